"""The emulator's GitHub App token exchange, file contents and check runs, driven
through the real provider (githubkit's App auth strategy signs the JWT)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from ghattempt.config import blob_oid
from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorTransport
from ghattempt.github import AppAuth, AuthFailed, GitHubProvider, ProviderConfig, TokenAuth

INSTALLATION = 4242


def _key() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


@pytest.fixture(scope="module")
def keys() -> tuple[str, str]:
    return _key()


@pytest.fixture
def emu(keys: tuple[str, str]) -> Emulator:
    fixture = copy.deepcopy(DEFAULT_FIXTURE)
    fixture["apps"] = [{"app_id": 77, "slug": "ghattempt-app", "public_key": keys[1],
                        "installations": [{"id": INSTALLATION, "role": "write"}]}]
    return Emulator(fixture=fixture)


def _provider(emu: Emulator, auth: AppAuth | TokenAuth) -> Iterator[GitHubProvider]:
    with GitHubProvider(ProviderConfig(auth=auth, transport=EmulatorTransport(emu),
                                       mutation_interval=0.0)) as gh:
        yield gh


def test_app_jwt_is_exchanged_for_an_installation_token(emu: Emulator,
                                                         keys: tuple[str, str]) -> None:
    for gh in _provider(emu, AppAuth(77, keys[0], INSTALLATION)):
        repo = gh.repository("octo-org", "widgets")
        assert repo.name_with_owner == "octo-org/widgets"
        gh.create_check_run("octo-org", "widgets", head_sha=gh.pull_request(
            "octo-org", "widgets", 1).head_oid, check_name="probe", conclusion="neutral",
            title="t", summary="s")
    log = emu.request_log()
    assert [e["operation"] for e in log][0] == "apps/create-installation-access-token"
    runs = emu._check_runs
    assert runs[-1]["app"] == {"slug": "ghattempt-app"}


def test_a_jwt_signed_by_another_key_is_refused(emu: Emulator) -> None:
    other, _ = _key()
    for gh in _provider(emu, AppAuth(77, other, INSTALLATION)):
        with pytest.raises(AuthFailed):
            gh.repository("octo-org", "widgets")


def test_unknown_installation_is_refused(emu: Emulator, keys: tuple[str, str]) -> None:
    for gh in _provider(emu, AppAuth(77, keys[0], INSTALLATION + 1)):
        with pytest.raises(AuthFailed):
            gh.repository("octo-org", "widgets")


def test_file_contents_at_a_commit_and_a_branch(emu: Emulator) -> None:
    for gh in _provider(emu, TokenAuth("ghp_alice")):
        head = gh.pull_request("octo-org", "widgets", 1).head_oid
        assert gh.file_contents("octo-org", "widgets", ".github/ghattempt.toml", head) is None
        data = b"[journal]\ncategory = \"release-journal\"\n"
        commit = gh.create_commit_on_branch("octo-org/widgets", "feature",
                                            expected_head_oid=head, headline="config",
                                            additions={".github/ghattempt.toml": data})
        for ref in (commit.oid, "feature"):
            got = gh.file_contents("octo-org", "widgets", ".github/ghattempt.toml", ref)
            assert got == (data, blob_oid(data))
        assert gh.file_contents("octo-org", "widgets", ".github/ghattempt.toml", "main") is None


def test_check_runs_are_listed_per_commit(emu: Emulator) -> None:
    for gh in _provider(emu, TokenAuth("ghs_app")):
        head = gh.pull_request("octo-org", "widgets", 1).head_oid
        run_id = gh.create_check_run("octo-org", "widgets", head_sha=head,
                                     check_name="ghattempt journal", conclusion="failure",
                                     title="journal tampered", summary="edited record")
        listed = emu.handle("GET", f"/repos/octo-org/widgets/commits/{head}/check-runs",
                            {"authorization": "token ghs_app"}, b"")
        body = json.loads(listed.body)
        assert body["total_count"] == 1
        assert body["check_runs"][0]["id"] == run_id
        assert body["check_runs"][0]["conclusion"] == "failure"
        assert body["check_runs"][0]["output"]["title"] == "journal tampered"


def test_route_modules_are_a_list_another_module_can_join() -> None:
    import types

    from ghattempt.emulator.app import ROUTE_MODULES
    from ghattempt.emulator.exchange import Reply

    extra = types.ModuleType("extra")

    def route(emulator: Emulator, request: object, path: str) -> Reply | None:
        return Reply(204, (), b"") if path == "/extra" else None

    extra.route = route  # type: ignore[attr-defined]
    emu = Emulator(fixture=DEFAULT_FIXTURE, routes=(extra, *ROUTE_MODULES))
    assert emu.handle("GET", "/extra", {}, b"").status == 204
    assert emu.handle("GET", "/api/v3/extra", {}, b"").status == 204
    assert emu.handle("GET", "/rate_limit", {}, b"").status == 401  # the others still answer
    assert Emulator(fixture=DEFAULT_FIXTURE).handle("GET", "/extra", {}, b"").status == 401
