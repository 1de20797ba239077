"""What GitHub refuses of a ref write, whichever way it arrives (GraphQL ``createRef``,
``updateRefs``, ``deleteRef``, ``createCommitOnBranch``; REST ``git/refs``): the
repository's rulesets (:mod:`.rulesets`) and its classic branch protection
(:mod:`.protection`), judged on the commits the write introduces (those reachable from
the new head down to the head of any ref) and on the check runs that
passed on the new head. Rulesets answer GraphQL ``type: UNPROCESSABLE`` "Repository
rule violations found" and REST 422; branch protection answers GraphQL ``type:
BRANCH_PROTECTION_RULE_VIOLATION`` and REST 422 (docs/emulator.md, the rulesets and
branch protection rows)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import errors as gh
from . import protection, rulesets
from .errors import ResolverError
from .fidelity import Fidelity
from .state import State

Passing = Callable[[int, str], frozenset[str]]
"""The names of the check runs that concluded ``success`` on a commit (repo id, oid)."""


@dataclass(frozen=True)
class Refusal:
    """Why a ref write is refused: the sentences of the rules it breaks."""

    ref: str
    ruleset: tuple[str, ...]
    protection: tuple[str, ...]

    def graphql(self) -> ResolverError:
        if self.ruleset:
            return ResolverError(rulesets.violation_message(self.ruleset), "UNPROCESSABLE")
        branch = self.ref.removeprefix("refs/heads/")
        return ResolverError(protection.graphql_message(branch, list(self.protection)),
                             "BRANCH_PROTECTION_RULE_VIOLATION")

    def rest(self) -> tuple[int, Any]:
        if self.ruleset:
            message = rulesets.violation_message(self.ruleset)
            docs = "https://docs.github.com/rest/git/refs"
        else:
            message = (f"Protected branch update failed for {self.ref}.\n\n"
                       + "\n".join(self.protection))
            docs = ("https://docs.github.com/repositories/configuring-branches-and-merges-in-"
                    "your-repository/managing-protected-branches/about-protected-branches")
        return 422, json.loads(gh.rest_body(message, 422, docs))


def introduced(state: State, repo_id: int, ref: str, after: str | None) -> list[dict[str, Any]]:
    """The commits a write of ``ref`` to ``after`` brings into the repository: those
    reachable from ``after`` down to (not including) the head of any ref, ``ref``'s own
    current head included, each with its ``verified`` state. (Git judges pushes on the
    commits no ref reaches; stopping at ref heads gives the same answer for the writes
    ghattempt and the tests make: a new commit on a head, a new root, an existing head.)
    """
    if after is None:
        return []
    heads = {str(r["oid"]) for r in state.all("SELECT oid FROM refs WHERE repo_id = ?",
                                                repo_id)}
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    todo = [after]
    while todo:
        oid = todo.pop()
        if oid in seen or oid in heads:
            continue
        seen.add(oid)
        row = state.commit(repo_id, oid)
        if row is None:
            continue
        out.append({**dict(row), "verified": state.verification(repo_id, oid) == "valid"})
        todo.extend(json.loads(row["parents"]))
    return out


def check(state: State, fidelity: Fidelity, repo_id: int, ref: str, action: str,
          actor: Any, role: str, *, after: str | None = None,
          force: bool = False, passing: Passing | None = None) -> Refusal | None:
    """The refusal of writing ``ref`` (``action``: creation, update or deletion; ``after``
    the new head; ``force`` a non-fast-forward) by ``actor`` (``login``, ``kind``) of
    repository ``role``, or None when GitHub would let it through."""
    if not (fidelity.rulesets or fidelity.branch_protection):
        return None
    if state.one("SELECT 1 FROM rulesets WHERE repo_id = ? UNION ALL SELECT 1 FROM "
                 "branch_protections WHERE repo_id = ? LIMIT 1", repo_id, repo_id) is None:
        return None  # nothing to judge: spare the walk over the new commits
    write = rulesets.Write(
        action=action, ref=ref, force=force,
        commits=tuple(introduced(state, repo_id, ref, after)),
        passing=(passing(repo_id, after) if passing and after else frozenset()))
    by_rules = (rulesets.broken_rules(state, repo_id, write, str(actor["login"]))
                if fidelity.rulesets else [])
    by_protection = (protection.broken(state, repo_id, write, actor, role)
                     if fidelity.branch_protection else [])
    if not by_rules and not by_protection:
        return None
    return Refusal(ref, tuple(by_rules), tuple(by_protection))


__all__ = ["Passing", "Refusal", "check", "introduced"]
