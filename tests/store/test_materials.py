"""The material verifier over the provider's authenticated contents API (respx, no
network): bytes are fetched with the token and checked for count and digest."""

from __future__ import annotations

import base64
import hashlib

import httpx
import pytest
import respx

from ghattempt.core import Material
from ghattempt.github import GitHubProvider, NotFound, ProviderConfig, TokenAuth
from ghattempt.materials import MaterialVerifier, repository_file_fetch
from ghattempt.store import MaterialRefused

API = "https://api.github.com"
TOKEN = "ghs_" + "MaterialT0kenValue0123456789abcdef"
OID = "c" * 40
DATA = b"release tarball bytes\n"


def material(data: bytes = DATA, url: str | None = None, mid: str = "dist-1") -> Material:
    return Material(mid, "artifact", len(data), "sha256:" + hashlib.sha256(data).hexdigest(),
                    "sha256:" + "a" * 64, "sha256:" + "b" * 64,
                    url or f"https://github.com/octo/app/blob/{OID}/dist/app.tgz")


@pytest.fixture
def served() -> tuple[respx.MockRouter, dict[str, bytes]]:
    files = {"dist/app.tgz": DATA}
    router = respx.MockRouter(base_url=API, assert_all_called=False)

    def contents(request: httpx.Request, path: str) -> httpx.Response:
        assert request.headers["authorization"] == f"token {TOKEN}"
        assert request.url.params["ref"] == OID
        if path not in files:
            return httpx.Response(404, json={"message": "Not Found"})
        return httpx.Response(200, json={
            "type": "file", "encoding": "base64", "path": path,
            "content": base64.encodebytes(files[path]).decode()})

    router.get(path__regex=r"/repos/octo/app/contents/(?P<path>.+)").mock(side_effect=contents)
    return router, files


def provider(router: respx.MockRouter) -> GitHubProvider:
    return GitHubProvider(ProviderConfig(auth=TokenAuth(TOKEN), base_url=API + "/",
                                         transport=httpx.MockTransport(router.handler),
                                         sleep=lambda s: None))


def test_verifier_downloads_through_the_authenticated_api(served):
    router, files = served
    verifier = MaterialVerifier(repository_file_fetch(provider(router)))
    got = verifier.verify(material())
    assert got.size == len(DATA) and got.digest == material().digest
    files["dist/app.tgz"] = b"tampered"
    with pytest.raises(MaterialRefused) as info:
        MaterialVerifier(repository_file_fetch(provider(router))).verify(material())
    assert info.value.code == "material_mismatch"
    # the same verifier refuses the id with other bytes, without trusting the reference
    with pytest.raises(MaterialRefused) as info:
        verifier.verify(material(b"tampered"))
    assert info.value.code == "material_conflict"


def test_non_permanent_or_missing_files_are_refused(served):
    router, _ = served
    fetch = repository_file_fetch(provider(router))
    verifier = MaterialVerifier(fetch)
    branch = material(url="https://github.com/octo/app/blob/main/dist/app.tgz")
    with pytest.raises(MaterialRefused) as info:
        verifier.verify(branch)
    assert info.value.code == "material_unavailable"
    with pytest.raises(NotFound):
        fetch(material(url=f"https://github.com/octo/app/blob/{OID}/missing.bin"))
    huge = Material("big", "artifact", 10**12, material().digest, material().attempt,
                    material().generation, material().url)
    with pytest.raises(MaterialRefused) as info:
        verifier.verify(huge)
    assert info.value.code == "material_too_large"
    assert TOKEN not in str(info.value)
