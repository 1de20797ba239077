"""The material verifier: retrieved bytes, not references, qualify a material (ADR 0006).

A :class:`~ghattempt.core.Material` reference binds an id to a byte count and a digest.
Storing the reference proves nothing about the bytes; before a successor reuses a
retained material, :class:`MaterialVerifier` fetches the bytes through an authenticated
fetcher and checks both. Once an id has been verified, the same verifier refuses any
reference under that id with other bytes or another digest (a reused material id cannot
acquire different bytes).

Which rules stay where: the URL shape (repository prefix, no ``?``, ``#`` or ``@``) and
cross-journal id consistency are the core's (spec journal-v1 section 4, material); this
module only checks retrieved bytes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from .core import Material
from .github import GitHubProvider
from .store import MaterialRefused

__all__ = ["Fetch", "MaterialVerifier", "VerifiedMaterial", "repository_file_fetch"]

Fetch = Callable[[Material], bytes]
"""Retrieves a material's bytes through the provider's authenticated API (e.g. a
repository file at a commit, or a release asset). Raises on any failure."""

_FILE_URL = re.compile(r"(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/(?:blob|raw)/"
                       r"(?P<ref>[0-9a-f]{40}|[0-9a-f]{64})/(?P<path>[^?#@]+)")


def repository_file_fetch(provider: GitHubProvider, *,
                          server_url: str = "https://github.com") -> Fetch:
    """A :data:`Fetch` for permanent file URLs of a repository at a commit,
    ``<server>/<owner>/<repo>/blob/<commit oid>/<path>`` (or ``/raw/``), through the
    provider's authenticated contents API (files up to 1 MB).

    The fetcher raises ``ValueError`` for any other URL form (a branch name is not
    permanent) and the provider's errors for a failed download.
    """
    prefix = server_url.rstrip("/") + "/"

    def fetch(material: Material) -> bytes:
        url = material.url
        match = _FILE_URL.fullmatch(url[len(prefix):]) if url.startswith(prefix) else None
        if match is None:
            raise ValueError(f"material {material.id}: {url!r} is not a permanent file URL "
                             f"{prefix}<owner>/<repo>/blob/<commit oid>/<path>")
        owner, name = match["repo"].split("/")
        return provider.repository_file(owner, name, match["path"], match["ref"])

    return fetch


DEFAULT_MAX_BYTES = 512 * 1024 * 1024
"""Largest material the verifier accepts, in bytes, before fetching."""


@dataclass(frozen=True, slots=True)
class VerifiedMaterial:
    """A material whose bytes were fetched and matched: ``size`` in bytes, ``digest``."""

    id: str
    size: int
    digest: str


class MaterialVerifier:
    """Fetches material bytes and checks their count and SHA-256 digest.

    Args:
        fetch: the authenticated fetcher.
        max_bytes: refuse references claiming more bytes than this, without fetching.

    Raises (from :meth:`verify`):
        MaterialRefused: code ``material_conflict`` (the id was verified with other
            bytes/digest before), ``material_too_large``, ``material_unavailable`` (the
            fetch failed) or ``material_mismatch`` (count or digest differ).
    """

    def __init__(self, fetch: Fetch, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self._fetch = fetch
        self._max_bytes = max_bytes
        self._seen: dict[str, VerifiedMaterial] = {}

    def verify(self, material: Material) -> VerifiedMaterial:
        """Fetch ``material`` and check it; returns what was verified."""
        known = self._seen.get(material.id)
        if known is not None and (known.size, known.digest) != (material.bytes,
                                                                 material.digest):
            raise MaterialRefused("material_conflict",
                                  f"material {material.id} was verified as {known.size} bytes "
                                  f"{known.digest}; a reused id cannot acquire other bytes")
        if material.bytes > self._max_bytes:
            raise MaterialRefused("material_too_large",
                                  f"material {material.id} claims {material.bytes} bytes, more "
                                  f"than the verifier's limit of {self._max_bytes}")
        try:
            data = self._fetch(material)
        except Exception as exc:
            raise MaterialRefused("material_unavailable",
                                  f"material {material.id} could not be fetched "
                                  f"({type(exc).__name__})") from None
        return self.check(material, data)

    def check(self, material: Material, data: bytes) -> VerifiedMaterial:
        """Check already retrieved ``data`` against ``material``; remember the id."""
        if len(data) != material.bytes:
            raise MaterialRefused("material_mismatch",
                                  f"material {material.id}: fetched {len(data)} bytes, the "
                                  f"reference says {material.bytes}")
        got = "sha256:" + hashlib.sha256(data).hexdigest()
        if got != material.digest:
            raise MaterialRefused("material_mismatch",
                                  f"material {material.id}: fetched bytes have digest {got}, "
                                  f"the reference says {material.digest}")
        verified = VerifiedMaterial(material.id, len(data), got)
        known = self._seen.setdefault(material.id, verified)
        if known != verified:
            raise MaterialRefused("material_conflict",
                                  f"material {material.id} was verified with other bytes before")
        return verified
