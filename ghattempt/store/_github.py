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

The provider's ``RefConflict`` (``STALE_DATA``: nothing written) and ``AmbiguousOutcome``
(may have landed) are the backend vocabulary itself and pass through as they are;
``RateLimited`` and ``GitHubUnavailable`` become a retryable ``BackendError``,
``AuthFailed`` a non-retryable one. Any other refusal of a ref write (GitHub's wording
for a ref that exists already, or for a failed ``updateRefs`` precondition, is not
documented, and a repository ruleset answers with the same ``UNPROCESSABLE`` type) is
decided by reading the ref back, never by the message (:func:`refusal_meaning`): the
ref not where the write expected it is a lost compare-and-set (``RefConflict``); the
ref holding exactly what was sent means the write landed after all; the ref unmoved
means the refusal stands (non-retryable ``BackendError`` with GitHub's message, e.g. a
ruleset's "Repository rule violations found", whose ``hint`` is then :func:`ruleset_hint`,
the same words as :meth:`GitHubRefBackend.check_writable`'s). Messages never carry credentials (the
provider redacts them).
"""

from __future__ import annotations

import math
from typing import Literal

from ..exclusive import BackendError, RefSnapshot, RefWrite
from ..github import (
    EMPTY_TREE,
    AmbiguousOutcome,
    AuthFailed,
    GitHubError,
    GitHubProvider,
    GitHubRefused,
    GitHubUnavailable,
    RateLimited,
    Ref,
    RefConflict,
)

__all__ = ["GitHubRefBackend", "refusal_meaning"]

_HEADS = "refs/heads/"

Meaning = Literal["conflict", "landed", "refused"]


RULE_VIOLATION = "Repository rule violations found"
"""How GitHub begins a write's refusal by a repository ruleset (GraphQL ``UNPROCESSABLE``)."""


def ruleset_hint(name: str) -> str:
    """What to do when a ruleset covering lease ref ``name`` refuses this token's writes
    (the one wording of ``plan``'s check and of a real run's refusal)."""
    return (f"add the token's actor to the ruleset's bypass list, or exclude "
            f"{name.rsplit('/', 1)[0]}/** from it")


def refusal_meaning(expected_oid: str | None, sent: str, seen: RefSnapshot) -> Meaning:
    """What a refused ref write means, from the ref read back after the refusal.

    Args:
        expected_oid: where the write expected the ref (None: absent, a creation).
        sent: the lease message the write carried (unique per write: holder nonce,
            token, expiry).
        seen: the ref as read back.

    Returns:
        ``landed`` when the ref's target carries exactly ``sent`` (GitHub answered an
        error, the write took effect all the same); ``conflict`` when the ref is not
        where the write expected it (someone else moved, made or deleted it: a lost
        compare-and-set); ``refused`` when the ref is still where the write expected it
        (the refusal was about something else: a ruleset, a permission).
    """
    if seen.oid is not None and seen.oid != expected_oid and seen.message == sent:
        return "landed"
    if seen.oid != expected_oid:
        return "conflict"
    return "refused"


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

    def _refused(self, exc: GitHubError, what: str, name: str, expected_oid: str | None,
                 message: str) -> RefWrite:
        """A ref write refused: read the ref back and decide by :func:`refusal_meaning`
        (returns the write when it landed, else raises)."""
        if isinstance(exc, RefConflict | AuthFailed) or not isinstance(
                exc, GitHubRefused):
            raise self._translate(exc, what) from None
        seen = self.read_ref(name)
        meaning = refusal_meaning(expected_oid, message, seen)
        if meaning == "landed":
            assert seen.oid is not None
            return RefWrite(seen.oid, seen.server_time)
        if meaning == "conflict":
            where = "absent" if seen.oid is None else f"at {seen.oid}"
            raise RefConflict(f"{what}: the ref is {where}, not where the write expected "
                              f"it ({expected_oid or 'absent'}): {exc}") from None
        refused = BackendError(f"{what}: {type(exc).__name__}: {exc}", retryable=False)
        if RULE_VIOLATION in str(exc):
            # what to do only; what the refusal means was decided by the read-back above
            refused.hint = ruleset_hint(name)
        raise refused from None

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
            return self._refused(exc, f"creating lease ref {name}", name, None, message)
        return RefWrite(commit.oid, self._now())

    def check_writable(self, name: str, *, exists: bool) -> None:
        """Whether a hold's writes to lease ref ``name`` may be made under the
        repository's rulesets, asked without writing: the rules GitHub reports for the
        branch (``GET .../rules/branches/{branch}``) that restrict creating it (when it
        does not exist) or updating it, each unless the ruleset says the token may
        bypass it (``current_user_can_bypass: always``; ``GET .../rulesets/{id}``).

        Raises:
            BackendError: (non-retryable) such a rule: the write would be refused.
        """
        if not name.startswith(_HEADS):
            raise BackendError(f"lease ref {name} is not a branch (refs/heads/...); "
                               "createCommitOnBranch moves branches only", retryable=False)
        branch = name[len(_HEADS):]
        wanted = ("update",) if exists else ("creation", "update")
        try:
            rules = self._provider.branch_rules(self._owner, self._name, branch)
            for rule in rules:
                kind, ident = rule.get("type"), rule.get("ruleset_id")
                if kind not in wanted:
                    continue
                ruleset = (self._provider.repository_ruleset(self._owner, self._name, ident)
                           if isinstance(ident, int) else {})
                if ruleset.get("current_user_can_bypass") == "always":
                    continue
                verb = "creating" if kind == "creation" else "updating"
                raise BackendError(
                    f"lease ref {name}: ruleset {ruleset.get('name') or ident!r} (id "
                    f"{ident}, {rule.get('ruleset_source_type') or 'Repository'} "
                    f"{rule.get('ruleset_source') or ''}) restricts {verb} it and this "
                    f"token may not bypass it: a real run would be refused "
                    f"('{RULE_VIOLATION}'); {ruleset_hint(name)}",
                    retryable=False)
        except GitHubError as exc:
            raise self._translate(exc, f"reading the rules of lease ref {name}") from None

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
            return self._refused(exc, f"advancing lease ref {name}", name, expected_oid,
                                 message)
        return RefWrite(commit.oid, self._now())


    def deletion_note(self, name: str) -> str:
        """Whether a repository rule keeps lease ref ``name`` from being deleted, in one
        line for ``plan``: a deleted lease ref leaves its journal unwitnessed, and every
        writer refuses the journal until a person restores it (``restore-lease``). Asked
        without writing (``GET .../rules/branches/{branch}``, rules of type ``deletion``).
        A "restrict deletions" rule does not refuse the lease's own writes (they create
        and update the ref). Classic branch protection is not in that answer (docs/exclusion.md).
        """
        prefix = name.rsplit("/", 1)[0] + "/**"
        branch = name[len(_HEADS):] if name.startswith(_HEADS) else name
        try:
            rules = self._provider.branch_rules(self._owner, self._name, branch)
        except GitHubError as exc:
            return (f"whether a rule keeps {prefix} from being deleted could not be read "
                    f"({type(exc).__name__})")
        for rule in rules:
            if rule.get("type") == "deletion":
                return (f"a ruleset (id {rule.get('ruleset_id')}) restricts deleting "
                        f"{prefix}: a lease ref, its journal's witness, is kept from "
                        "deletion")
        return (f"no rule keeps {prefix} from being deleted: anyone with contents: write "
                "can delete a lease ref, and every writer then refuses its journal until a "
                "person restores it (restore-lease); add a branch ruleset targeting "
                f"{prefix} with 'Restrict deletions' (it does not refuse the lease's own "
                "writes)")


# Public as ghattempt.store (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
GitHubRefBackend.__module__ = "ghattempt.store"
