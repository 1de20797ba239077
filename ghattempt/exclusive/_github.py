"""GitHubRefBackend: the :class:`RefBackend` of a :class:`RefLease` over ``GitHubProvider``.

How each operation maps onto GitHub (see ``RefBackend`` for the outcome contract):

* ``read_ref``: GraphQL ``LeaseRef`` (the ref, its target commit's message); the server
  time is the answer's ``Date`` header (``GitHubProvider.last_server_time``). The store
  reads the ref itself first (it names the journal) and hands the read to
  ``RefLease.hold(observed=...)`` through :meth:`GitHubRefBackend.snapshot`.
* ``create_ref``: REST ``POST /repos/{o}/{r}/git/commits`` (an unreferenced commit with
  the empty tree carrying the lease message) then ``createRef`` on it: the ref never
  exists without a lease commit. A duplicate unreferenced commit is harmless.
* ``advance_ref``: ``createCommitOnBranch`` with ``expectedHeadOid`` (a new empty commit
  whose parent is the current head, written and moved in one compare-and-set request).

The provider's ``RefConflict`` (nothing written) and ``AmbiguousOutcome`` (may have
landed) are the backend vocabulary itself and pass through as they are; ``RateLimited``
and ``GitHubUnavailable`` become a retryable ``BackendError``, other refusals (a
repository ruleset on the lease refs among them, which is not a lost compare-and-set) a
non-retryable one. Messages never carry credentials (the provider redacts them).
"""

from __future__ import annotations

import math

from ..github import (
    EMPTY_TREE,
    AmbiguousOutcome,
    GitHubError,
    GitHubProvider,
    GitHubUnavailable,
    RateLimited,
    Ref,
    RefConflict,
)
from ._errors import BackendError
from ._protocol import RefSnapshot, RefWrite

__all__ = ["GitHubRefBackend"]

_HEADS = "refs/heads/"


class GitHubRefBackend:
    """Lease refs of one repository, through a :class:`GitHubProvider`.

    Args:
        provider: the authenticated provider; its ``timeout`` must not exceed the lease
            settings' ``request_timeout`` (checked by the store).
        owner, name: the repository (``owner/name``) as GitHub names it now.
        repository_id: its GraphQL node id (``createRef`` takes the id).

    Lease refs must be branches (``refs/heads/...``): ``createCommitOnBranch`` moves
    branches only.
    """

    def __init__(self, provider: GitHubProvider, owner: str, name: str,
                 repository_id: str) -> None:
        self._provider = provider
        self._owner = owner
        self._name = name
        self._repository_id = repository_id

    def __repr__(self) -> str:
        return f"GitHubRefBackend({self._owner}/{self._name})"

    def _now(self) -> int:
        t = self._provider.last_server_time
        if t is None:  # pragma: no cover - every answer the provider accepts carries Date
            raise BackendError("GitHub's answer carried no Date header; the lease cannot be "
                               "timed by GitHub's clock", retryable=False)
        return math.floor(t)

    @staticmethod
    def _translate(exc: GitHubError, what: str) -> GitHubError | BackendError:
        if isinstance(exc, RefConflict | AmbiguousOutcome):
            return exc
        retryable = isinstance(exc, RateLimited | GitHubUnavailable)
        return BackendError(f"{what}: {type(exc).__name__}: {exc}", retryable=retryable)

    def snapshot(self, name: str, ref: Ref | None, server_time: float) -> RefSnapshot:
        """A :class:`RefSnapshot` from a ref read elsewhere (e.g. merged into a capture)."""
        if ref is None:
            return RefSnapshot(name, None, None, math.floor(server_time))
        message = ref.commit.message if ref.commit is not None else None
        return RefSnapshot(name, ref.target_oid, message, math.floor(server_time))

    def read_ref(self, name: str) -> RefSnapshot:
        """``LeaseRef`` (spec journal-v1 section 5) plus the answer's ``Date``."""
        try:
            ref, _ = self._provider.lease_ref(self._owner, self._name, name)
        except GitHubError as exc:
            raise self._translate(exc, f"reading lease ref {name}") from None
        return self.snapshot(name, ref, self._now())

    def create_ref(self, name: str, message: str) -> RefWrite:
        """A root commit with ``message`` and the empty tree, then ``createRef``."""
        try:
            commit = self._provider.create_commit(self._owner, self._name, message=message,
                                                  parents=(), tree=EMPTY_TREE)
        except AmbiguousOutcome as exc:
            # No ref was touched: the commit is unreferenced garbage at worst.
            raise BackendError(f"creating the lease commit for {name}: {exc}",
                               retryable=True) from None
        except GitHubError as exc:
            raise self._translate(exc, f"creating the lease commit for {name}") from None
        try:
            self._provider.create_ref(self._repository_id, name, commit.oid)
        except GitHubError as exc:
            raise self._translate(exc, f"creating lease ref {name}") from None
        return RefWrite(commit.oid, self._now())

    def advance_ref(self, name: str, expected_oid: str, message: str) -> RefWrite:
        """``createCommitOnBranch`` onto ``name`` expecting head ``expected_oid``."""
        if not name.startswith(_HEADS):
            raise BackendError(f"lease ref {name} is not a branch (refs/heads/...); "
                               "createCommitOnBranch moves branches only", retryable=False)
        headline, _, body = message.partition("\n\n")
        try:
            commit = self._provider.create_commit_on_branch(
                f"{self._owner}/{self._name}", name[len(_HEADS):],
                expected_head_oid=expected_oid, headline=headline, body=body)
        except GitHubError as exc:
            raise self._translate(exc, f"advancing lease ref {name}") from None
        return RefWrite(commit.oid, self._now())
