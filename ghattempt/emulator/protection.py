"""Classic branch protection rules: a pattern of branch names (``main``, ``ghattempt/**``)
and its settings, what they refuse, and how GitHub serves them.

A rule protects the branches its ``pattern`` matches (fnmatch, ``*`` within a path
segment, ``**`` across; a rule naming a branch exactly wins over patterns). Its settings,
as GitHub's REST API names them: ``required_pull_request_reviews``
(``{"required_approving_review_count": N}``), ``required_status_checks``
(``{"contexts": [...], "strict": bool}``), ``required_signatures``, ``enforce_admins``,
``allow_deletions`` (off: a protected branch cannot be deleted), ``allow_force_pushes``,
``block_creations``, ``lock_branch``, ``restrictions`` (``{"users": [...], "apps": [...]}``:
only they may push). People with the admin role are exempt unless ``enforce_admins``.

What refuses what (GitHub docs, "About protected branches"; the wording from pushes and
API answers, docs/emulator.md lists the sources): an update of a matching branch without
a pull request ("Changes must be made through a pull request."), without its status
checks, with unverified commits, by someone outside ``restrictions``, or while locked;
a deletion unless ``allow_deletions``; a forced non-fast-forward unless
``allow_force_pushes``; a creation only under ``block_creations`` or with unverified
commits. GraphQL refuses with ``type: BRANCH_PROTECTION_RULE_VIOLATION``
(Thinkmill/keystatic#1598), REST with 422.

Classic protection is not a ruleset: ``GET .../rules/branches/{branch}`` does not list
it. GitHub serves it as ``GET /repos/{o}/{r}/branches/{branch}/protection`` (the admin
role, Administration read: a ``GITHUB_TOKEN`` gets 403), as ``protected`` and a summary in
``GET /repos/{o}/{r}/branches/{branch}`` (any reader; the branch must exist) and as
GraphQL ``Repository.branchProtectionRules`` (an empty list for a viewer without admin).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .ids import node_id
from .rulesets import Write, matches
from .state import State

if TYPE_CHECKING:
    from .graph import Ctx

SETTINGS = ("required_pull_request_reviews", "required_status_checks", "required_signatures",
            "enforce_admins", "allow_deletions", "allow_force_pushes", "block_creations",
            "lock_branch", "restrictions")
DEFAULTS: dict[str, Any] = {
    "required_pull_request_reviews": None, "required_status_checks": None,
    "required_signatures": False, "enforce_admins": False, "allow_deletions": False,
    "allow_force_pushes": False, "block_creations": False, "lock_branch": False,
    "restrictions": None,
}


def add_protection(state: State, repo_id: int, pattern: str,
                   settings: Mapping[str, Any]) -> int:
    """Store a branch protection rule for branches matching ``pattern``; returns its id.

    Raises:
        ValueError: an unknown setting, an empty pattern or a pattern with ``refs/``.
    """
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise ValueError(f"branch protection {pattern!r}: unknown setting(s) "
                         f"{sorted(unknown)}; use {SETTINGS}")
    if not isinstance(pattern, str) or not pattern or pattern.startswith("refs/"):
        raise ValueError("branch protection: pattern is a branch name pattern "
                         "(ghattempt/**), not a ref")
    merged = {**DEFAULTS, **dict(settings)}
    if merged["block_creations"] and merged["restrictions"] is None:
        raise ValueError(f"branch protection {pattern!r}: block_creations needs restrictions "
                         "(GitHub: it restricts who may create matching branches)")
    with state.transaction() as db:
        ident = state.next_id()
        db.execute("INSERT INTO branch_protections VALUES (?, ?, ?, ?)",
                   (ident, repo_id, pattern, json.dumps(merged)))
        return ident


def rule_for(state: State, repo_id: int, branch: str) -> tuple[int, str, dict[str, Any]] | None:
    """The rule protecting ``branch`` (id, pattern, settings): a rule naming it exactly
    first, then the first pattern that matches; None when unprotected."""
    rows = state.all("SELECT * FROM branch_protections WHERE repo_id = ? ORDER BY id", repo_id)
    ref = f"refs/heads/{branch}"
    exact = [r for r in rows if r["pattern"] == branch]
    for row in exact or [r for r in rows if matches(str(r["pattern"]), ref)]:
        return int(row["id"]), str(row["pattern"]), json.loads(row["settings"])
    return None


def broken(state: State, repo_id: int, write: Write, actor: Any, role: str) -> list[str]:
    """The sentences of the branch protection settings ``write`` breaks for ``actor``
    (a row with ``login`` and ``kind``) of repository ``role``; empty when allowed."""
    if not write.ref.startswith("refs/heads/"):
        return []
    found = rule_for(state, repo_id, write.ref[len("refs/heads/"):])
    if found is None:
        return []
    _, _, s = found
    if role == "admin" and str(actor["kind"]) == "User" and not s["enforce_admins"]:
        return []
    out: list[str] = []
    if write.action == "deletion":
        return [] if s["allow_deletions"] else ["Cannot delete this protected branch"]
    restrictions = s["restrictions"]
    allowed = restrictions is None or str(actor["login"]) in (
        list(restrictions.get("users", [])) + list(restrictions.get("apps", [])))
    if write.action == "creation":
        if s["block_creations"] and not allowed:
            out.append("You're not authorized to create this branch.")
    else:
        if s["lock_branch"]:
            out.append("Cannot update this protected branch: the branch is locked.")
        if not allowed:
            out.append("You're not authorized to push to this branch.")
        reviews = s["required_pull_request_reviews"]
        if reviews is not None:
            count = int(reviews.get("required_approving_review_count", 0) or 0)
            out.append(f"At least {count} approving review{'s are' if count > 1 else ' is'} "
                       "required by reviewers with write access." if count else
                       "Changes must be made through a pull request.")
        checks = s["required_status_checks"]
        if checks is not None:
            wanted = [str(c) for c in checks.get("contexts", [])]
            missing = [c for c in wanted if c not in write.passing]
            if len(wanted) == 1 and missing:
                out.append(f'Required status check "{wanted[0]}" is expected.')
            elif missing:
                out.append(f"{len(missing)} of {len(wanted)} required status checks are "
                           "expected.")
        if write.force and not s["allow_force_pushes"]:
            out.append("Cannot force-push to this protected branch")
    if s["required_signatures"] and any(not c["verified"] for c in write.commits):
        out.append("Commits must have verified signatures.")
    return out


def graphql_message(branch: str, sentences: list[str]) -> str:
    """GitHub's GraphQL refusal of a write to a protected branch (as
    microsoft/vscode-remote-repositories-github#252 quotes it)."""
    return f"protected branch '{branch}' check failed:\n" + "\n".join(
        f"  {s}" for s in sentences)


def protection_json(api: str, full_name: str, branch: str,
                    settings: Mapping[str, Any]) -> dict[str, Any]:
    """REST ``GET .../branches/{branch}/protection``: GitHub's ``branch-protection``
    object (a section only when that setting is on, as GitHub answers)."""
    url = f"{api}/repos/{full_name}/branches/{branch}/protection"
    out: dict[str, Any] = {"url": url}
    checks = settings["required_status_checks"]
    if checks is not None:
        contexts = [str(c) for c in checks.get("contexts", [])]
        out["required_status_checks"] = {
            "url": f"{url}/required_status_checks", "strict": bool(checks.get("strict")),
            "contexts": contexts, "contexts_url": f"{url}/required_status_checks/contexts",
            "checks": [{"context": c, "app_id": None} for c in contexts]}
    reviews = settings["required_pull_request_reviews"]
    if reviews is not None:
        out["required_pull_request_reviews"] = {
            "url": f"{url}/required_pull_request_reviews", "dismiss_stale_reviews": False,
            "require_code_owner_reviews": False, "require_last_push_approval": False,
            "required_approving_review_count":
                int(reviews.get("required_approving_review_count", 0) or 0)}
    out["required_signatures"] = {"url": f"{url}/required_signatures",
                                  "enabled": bool(settings["required_signatures"])}
    out["enforce_admins"] = {"url": f"{url}/enforce_admins",
                             "enabled": bool(settings["enforce_admins"])}
    for key in ("allow_force_pushes", "allow_deletions", "block_creations", "lock_branch"):
        out[key] = {"enabled": bool(settings[key])}
    if settings["restrictions"] is not None:
        r = settings["restrictions"]
        out["restrictions"] = {"url": f"{url}/restrictions",
                               "users": [{"login": u} for u in r.get("users", [])],
                               "teams": [], "apps": [{"slug": a} for a in r.get("apps", [])]}
    return out


def branch_summary(api: str, full_name: str, branch: str, oid: str,
                   found: tuple[int, str, dict[str, Any]] | None) -> dict[str, Any]:
    """REST ``GET /repos/{o}/{r}/branches/{branch}`` (``branch-with-protection``): the
    branch, ``protected``, and the summary GitHub gives any reader (mondoohq/mql#4296)."""
    checks = (found[2]["required_status_checks"] if found else None) or {}
    contexts = [str(c) for c in checks.get("contexts", [])]
    return {
        "name": branch,
        "commit": {"sha": oid, "url": f"{api}/repos/{full_name}/commits/{oid}"},
        "protected": found is not None,
        "protection": {"enabled": found is not None, "required_status_checks": {
            "enforcement_level": ("everyone" if found and found[2]["enforce_admins"] else
                                  "non_admins") if contexts else "off",
            "contexts": contexts, "checks": [{"context": c, "app_id": None}
                                             for c in contexts]}},
        "protection_url": f"{api}/repos/{full_name}/branches/{branch}/protection",
    }


class BranchProtectionRule:
    """GraphQL ``BranchProtectionRule``: the settings as GitHub's schema names them."""

    __typename = "BranchProtectionRule"

    def __init__(self, ctx: Ctx, repo_id: int, ident: int, pattern: str,
                 s: Mapping[str, Any]) -> None:
        self._ctx = ctx
        self._repo_id = repo_id
        self.id = node_id("BranchProtectionRule", repo_id, ident)
        self.databaseId = ident
        self.pattern = pattern
        reviews = s["required_pull_request_reviews"]
        checks = s["required_status_checks"]
        self.allowsDeletions = bool(s["allow_deletions"])
        self.allowsForcePushes = bool(s["allow_force_pushes"])
        self.blocksCreations = bool(s["block_creations"])
        self.isAdminEnforced = bool(s["enforce_admins"])
        self.lockBranch = bool(s["lock_branch"])
        self.requiresApprovingReviews = bool(
            reviews and int(reviews.get("required_approving_review_count", 0) or 0) > 0)
        self.requiredApprovingReviewCount = (
            int(reviews.get("required_approving_review_count", 0) or 0) if reviews else None)
        self.requiresCommitSignatures = bool(s["required_signatures"])
        self.requiresStatusChecks = checks is not None
        self.requiredStatusCheckContexts = (
            [str(c) for c in checks.get("contexts", [])] if checks else [])
        self.restrictsPushes = s["restrictions"] is not None


def graphql_rules(ctx: Ctx, repo_id: int) -> list[tuple[int, BranchProtectionRule]]:
    """``Repository.branchProtectionRules`` as the viewer sees them: every rule for the
    admin role, none for anyone else (GitHub answers an empty list then:
    w3c/validate-repos#30, prodigyeducation/branch-cleaner#27)."""
    if not ctx.role_at_least("admin"):
        return []
    rows = ctx.state.all("SELECT * FROM branch_protections WHERE repo_id = ? ORDER BY id",
                         repo_id)
    return [(int(r["id"]), BranchProtectionRule(ctx, repo_id, int(r["id"]), str(r["pattern"]),
                                                json.loads(r["settings"]))) for r in rows]


__all__ = ["SETTINGS", "BranchProtectionRule", "add_protection", "branch_summary", "broken",
           "graphql_message", "graphql_rules", "protection_json", "rule_for"]
