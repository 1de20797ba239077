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
ruleset's "Repository rule violations found", whose ``hint`` is then :func:`ruleset_hint`
by token kind, or classic protection's "protected branch", :func:`protection_hint`: the
same words as :meth:`GitHubRefBackend.check_writable`'s). GitHub's "was submitted too
quickly" (``SubmittedTooQuickly``, an ``AmbiguousOutcome`` with a wait) passes through
like any lost answer; the lease machines wait before reading back. Messages never carry
credentials (the provider redacts them).

``check_writable`` (``plan``) judges every rule GitHub reports for the lease branch by
what a hold writes (:func:`rule_refusal`), and classic branch protection of an existing
lease branch (:func:`protection_refusal`), which the rules API does not list.
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

__all__ = ["GitHubRefBackend", "refusal_meaning", "rule_refusal", "ruleset_hint",
           "token_kind"]


def kind_known(kind: str) -> bool:
    """Whether a token kind was learned (not ``unknown``)."""
    return kind != "unknown"

_HEADS = "refs/heads/"

Meaning = Literal["conflict", "landed", "refused"]


RULE_VIOLATION = "Repository rule violations found"
"""How GitHub begins a write's refusal by a repository ruleset (GraphQL ``UNPROCESSABLE``)."""

PROTECTION_VIOLATION = "protected branch"
"""How GitHub's refusal by classic branch protection reads (GraphQL
``BRANCH_PROTECTION_RULE_VIOLATION``: "protected branch '<b>' check failed")."""

TokenKind = Literal["actions", "app", "person", "unknown"]

_DIRECT_WRITE = {
    "pull_request": "requires a pull request (no direct write reaches the branch)",
    "required_status_checks": "requires status checks to pass (none run on a lease commit)",
    "merge_queue": "requires a merge queue (no direct write reaches the branch)",
    "required_deployments": "requires deployments to succeed first",
    "workflows": "requires workflows to pass first",
    "code_scanning": "requires code scanning results first",
}
"""Rule types that refuse every direct write to a matching branch (GitHub docs, "Available
rules for rulesets"; the last four by the stricter reading: made for merges, a direct
write cannot meet them)."""

_HARMLESS = frozenset({"deletion", "non_fast_forward", "required_linear_history",
                       "file_path_restriction", "file_extension_restriction",
                       "max_file_path_length", "max_file_size"})
"""Rule types the lease's writes always meet: it never deletes or force-moves its ref,
and its commits are linear, with the empty tree."""

_OPERATORS = {"starts_with": "start with", "ends_with": "end with", "contains": "contain",
              "regex": "match"}


def token_kind(login: str | None) -> TokenKind:
    """What kind of token a ``viewer`` login is: the Actions bot's ``GITHUB_TOKEN``, a
    GitHub App's installation token (another ``[bot]``), or a person's token."""
    if login is None:
        return "unknown"
    if login in ("github-actions[bot]", "github-actions"):
        return "actions"
    return "app" if login.endswith("[bot]") else "person"


def ruleset_hint(name: str, kind: TokenKind = "unknown") -> str:
    """What to do when a ruleset covering lease ref ``name`` refuses this token's writes
    (the one wording of ``plan``'s check and of a real run's refusal), by token kind:
    GitHub refuses GitHub Actions as a bypass actor, so for a ``GITHUB_TOKEN`` the remedy
    is excluding the lease branches from the ruleset."""
    pattern = f"{name.rsplit('/', 1)[0]}/**"
    if kind == "actions":
        return (f"exclude {pattern} from the ruleset's target branches (GitHub does not "
                "accept GitHub Actions, the GITHUB_TOKEN's actor, on a bypass list)")
    who = {"app": "the GitHub App", "person": "the token's user"}.get(kind, "the token's actor")
    return f"add {who} to the ruleset's bypass list, or exclude {pattern} from it"


def protection_hint(name: str) -> str:
    """What to do when classic branch protection covering lease ref ``name`` refuses its
    writes: classic protection has no exclude and no bypass for the Actions bot."""
    return (f"narrow the branch protection rule's pattern so that it does not cover "
            f"{name.removeprefix(_HEADS).rsplit('/', 1)[0]}/** (or protect those branches "
            f"with a ruleset that excludes {name.rsplit('/', 1)[0]}/**)")


def signature_hint(name: str) -> str:
    """What to do when a signed-commits rule meets a person's token: GitHub signs the API
    commits of an App or a ``GITHUB_TOKEN``, never a personal token's REST commit."""
    return (f"write with a GitHub App or the GITHUB_TOKEN (GitHub signs the commits they "
            f"make through the API), or exclude {name.rsplit('/', 1)[0]}/** from the rule")


def _met(params: dict[str, object], value: str) -> bool:
    import re

    pattern, operator = str(params.get("pattern", "")), str(params.get("operator", ""))
    if operator == "starts_with":
        hit = value.startswith(pattern)
    elif operator == "ends_with":
        hit = value.endswith(pattern)
    elif operator == "contains":
        hit = pattern in value
    else:
        try:
            hit = re.search(pattern, value) is not None
        except re.error:
            return False
    return hit != bool(params.get("negate"))


def rule_refusal(rule: dict[str, object], branch: str, *, exists: bool, kind: TokenKind,
                 login: str | None, email: str | None = None) -> str | None:
    """Why ``rule`` (GitHub's ``repository-rule-detailed``) refuses a hold's writes to
    lease branch ``branch``, or None when the lease's writes meet it: a hold creates the
    branch (when it does not exist: a root commit through REST, then ``createRef``) and
    moves it with ``createCommitOnBranch`` (fast-forward, empty tree, committed by GitHub).
    ``email``: the noreply address GitHub gives the token's account
    (``<databaseId>+<login>@users.noreply.github.com``), for the email patterns.
    """
    from ..core import LEASE_HEADLINE

    rtype = str(rule.get("type"))
    params = rule.get("parameters") if isinstance(rule.get("parameters"), dict) else {}
    assert isinstance(params, dict)
    if rtype in _HARMLESS:
        return None
    if rtype == "creation":
        return None if exists else "restricts creating it"
    if rtype == "update":
        return "restricts updating it"
    if rtype in _DIRECT_WRITE:
        return _DIRECT_WRITE[rtype]
    if rtype == "required_signatures":
        # createCommitOnBranch commits are signed by GitHub for everyone; the REST root
        # commit only for a bot (an App or GITHUB_TOKEN) without custom author data
        if not exists and kind in ("person", "unknown"):
            return ("requires signed commits, and the lease branch's first commit, made "
                    "through the REST API with a personal token, is unsigned (GitHub signs "
                    "only the API commits of a GitHub App or a GITHUB_TOKEN)")
        return None
    if rtype == "branch_name_pattern":
        if exists or _met(params, branch):
            return None
        return (f"requires branch names to {_OPERATORS.get(str(params.get('operator')), '?')}"
                f" {params.get('pattern')!r}, which {branch} does not")
    if rtype in ("commit_message_pattern", "commit_author_email_pattern",
                 "committer_email_pattern"):
        # GitHub's noreply address of the token's account authors every lease commit;
        # createCommitOnBranch commits are committed by GitHub (noreply@github.com), the
        # REST root commit by the account itself
        own = email or f"{login or ''}@users.noreply.github.com"
        values = {
            "commit_message_pattern": [LEASE_HEADLINE + "\n\n{}"],
            "commit_author_email_pattern": [own],
            "committer_email_pattern": ["noreply@github.com"] + ([] if exists else [own]),
        }[rtype]
        if all(_met(params, v) for v in values):
            return None
        what = rtype.removesuffix("_pattern").replace("_", " ")
        return (f"requires the {what} to {_OPERATORS.get(str(params.get('operator')), '?')} "
                f"{params.get('pattern')!r}, which a lease commit's does not")
    return f"is a rule of type {rtype!r}, which ghattempt cannot tell a lease write meets"


def protection_refusal(settings: dict[str, object], *, exists: bool, kind: TokenKind,
                       login: str | None) -> list[str]:
    """Why classic branch protection (GitHub's ``branch-protection`` object, or the status
    checks of a branch's summary) refuses a hold's writes to an existing lease branch."""
    out: list[str] = []

    def on(key: str) -> bool:
        value = settings.get(key)
        return bool(value.get("enabled")) if isinstance(value, dict) else bool(value)

    if settings.get("required_pull_request_reviews"):
        out.append("requires a pull request")
    checks = settings.get("required_status_checks")
    if isinstance(checks, dict) and checks.get("contexts"):
        out.append(f"requires status checks ({', '.join(map(str, checks['contexts']))})")
    if on("lock_branch"):
        out.append("locks the branch")
    restrictions = settings.get("restrictions")
    if isinstance(restrictions, dict):
        allowed = {str(u.get("login")) for u in restrictions.get("users", []) or []
                   if isinstance(u, dict)} | {str(a.get("slug")) for a in
                                              restrictions.get("apps", []) or []
                                              if isinstance(a, dict)}
        if (login or "").removesuffix("[bot]") not in allowed:
            out.append("restricts who may push to it")
    if on("required_signatures") and not exists and kind in ("person", "unknown"):
        out.append("requires signed commits (a personal token's REST commit is unsigned)")
    return out


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
        self._viewer: str | None = None  # the token's login, once asked
        self._email: str | None = None  # its noreply address

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
        # what to do only; what the refusal means was decided by the read-back above
        if RULE_VIOLATION in str(exc):
            kind = token_kind(self._login())
            refused.hint = (signature_hint(name) if "verified signatures" in str(exc)
                            and kind == "person" else ruleset_hint(name, kind))
        elif PROTECTION_VIOLATION in str(exc):
            refused.hint = protection_hint(name)
        raise refused from None

    def _login(self) -> str | None:
        """The token's login on this host (``viewer``), asked once; None when unknown."""
        if self._viewer is None:
            try:
                repo = self._provider.repository(self._owner, self._name)
            except GitHubError:
                return None
            viewer = repo.viewer
            self._viewer = viewer.login if viewer is not None else ""
            self._email = (f"{viewer.database_id}+{viewer.login}@users.noreply.github.com"
                           if viewer is not None else None)
        return self._viewer or None

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
            failed = BackendError(f"creating the lease commit for {name}: {exc}",
                                  retryable=True)
            failed.retry_after = getattr(exc, "retry_after", None)  # too quickly: wait
            raise failed from None
        except GitHubError as exc:
            raise self._translate(exc, f"creating the lease commit for {name}") from None
        try:
            self._provider.create_ref(self._repository_id, name, commit.oid)
        except GitHubError as exc:
            return self._refused(exc, f"creating lease ref {name}", name, None, message)
        return RefWrite(commit.oid, self._now())

    def check_writable(self, name: str, *, exists: bool) -> None:
        """Whether a hold's writes to lease ref ``name`` may be made, asked without
        writing: every rule GitHub reports for the branch (``GET .../rules/branches/
        {branch}``, from rulesets of every level) that a hold's writes would break
        (:func:`rule_refusal`: creating it when it does not exist, updating it, a required
        pull request or status checks, signed commits for a personal token's first
        commit, metadata patterns...), each unless its ruleset says this token may bypass
        it (``current_user_can_bypass: always``; ``GET .../rulesets/{id}``); and, for a
        branch that exists, classic branch protection (which the rules API does not list:
        ``GET .../branches/{branch}`` and its ``/protection``). The hint is worded by token
        kind (:func:`ruleset_hint`).

        Raises:
            BackendError: (non-retryable) such a rule: the write would be refused.
        """
        if not name.startswith(_HEADS):
            raise BackendError(f"lease ref {name} is not a branch (refs/heads/...); "
                               "createCommitOnBranch moves branches only", retryable=False)
        branch = name[len(_HEADS):]
        try:
            rules = self._provider.branch_rules(self._owner, self._name, branch)
            needs_kind = any(r.get("type") in ("required_signatures",
                                               "commit_author_email_pattern",
                                               "committer_email_pattern")
                             for r in rules)
            login = self._login() if rules and needs_kind else None
            kind = token_kind(login)
            found: list[str] = []
            rulesets: dict[int, dict[str, object]] = {}
            signatures = False
            for rule in rules:
                why = rule_refusal(rule, branch, exists=exists, kind=kind, login=login,
                                   email=self._email)
                if why is None:
                    continue
                ident = rule.get("ruleset_id")
                if isinstance(ident, int) and ident not in rulesets:
                    rulesets[ident] = self._provider.repository_ruleset(
                        self._owner, self._name, ident)
                ruleset = rulesets.get(ident, {}) if isinstance(ident, int) else {}
                if ruleset.get("current_user_can_bypass") == "always":
                    continue
                signatures = signatures or rule.get("type") == "required_signatures"
                found.append(
                    f"ruleset {ruleset.get('name') or ident!r} (id {ident}, "
                    f"{rule.get('ruleset_source_type') or 'Repository'} "
                    f"{rule.get('ruleset_source') or ''}) {why}")
            protected = (self._provider.branch_protection(self._owner, self._name, branch)
                         if exists else None)
        except GitHubError as exc:
            raise self._translate(exc, f"reading the rules of lease ref {name}") from None
        guarded: list[str] = []
        if protected is not None and protected[0] and protected[1] is not None:
            login = login if login is not None else self._login()
            guarded = protection_refusal(protected[1], exists=exists,
                                         kind=token_kind(login), login=login)
        if not found and not guarded:
            return
        if found and not kind_known(kind):
            kind = token_kind(self._login())
        said = "; ".join(found + [f"branch protection {why}" for why in guarded])
        hints = []
        if found:
            only_signatures = signatures and len(found) == 1 and kind == "person"
            hints.append(signature_hint(name) if only_signatures else ruleset_hint(name, kind))
        if guarded:
            hints.append(protection_hint(name))
        raise BackendError(
            f"lease ref {name}: {said}, and this token may not bypass it: a real run "
            f"would be refused ('{RULE_VIOLATION if found else 'protected branch'}'); "
            + "; ".join(hints), retryable=False)

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
