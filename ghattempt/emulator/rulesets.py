"""Repository rulesets on refs: which rule a ref write breaks, in GitHub's words.

A ruleset targets refs by ``include`` patterns (``refs/heads/ghattempt/lease/**``;
``~ALL``; ``~DEFAULT_BRANCH``; a pattern without ``refs/`` means a branch) and holds
rules: ``creation`` (restrict creations), ``update`` (restrict updates), ``deletion``
(restrict deletions), ``non_fast_forward`` (block force pushes). Actors whose login is
in ``bypass`` are exempt. ``*`` matches within one path segment, ``**`` across them
(fnmatch with ``File::FNM_PATHNAME``, as GitHub's docs on ruleset patterns say).

Source: GitHub docs, "About rulesets" and "Available rules for rulesets"; the refusal
text of ``creation`` is GitHub's ("Cannot create ref due to creations being
restricted.", as git pushes and the REST API print it, e.g. dmf-mxl/mxl#356); the other
rules' sentences are the emulator's closest rendering.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache

from .state import State

RULES = ("creation", "update", "deletion", "non_fast_forward")
REFUSAL = {
    "creation": "Cannot create ref due to creations being restricted.",
    "update": "Cannot update this protected ref.",
    "deletion": "Cannot delete this protected ref.",
    "non_fast_forward": "Cannot force-push to this branch.",
}
HEADLINE = "Repository rule violations found"


@lru_cache(maxsize=256)
def _pattern(pattern: str) -> re.Pattern[str]:
    if not pattern.startswith("refs/"):
        pattern = f"refs/heads/{pattern}"
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def targets(include: Iterable[str], ref: str, default_branch: str) -> bool:
    """Whether a ruleset with these ``include`` patterns applies to ``ref`` (full name)."""
    for pattern in include:
        if pattern == "~ALL":
            return True
        if pattern == "~DEFAULT_BRANCH":
            if ref == f"refs/heads/{default_branch}":
                return True
            continue
        if _pattern(pattern).match(ref):
            return True
    return False


def add_ruleset(state: State, repo_id: int, name: str, include: list[str], rules: list[str],
                bypass: list[str]) -> int:
    """Store a ruleset; returns its id.

    Raises:
        ValueError: an unknown rule, or no ``include`` pattern.
    """
    unknown = set(rules) - set(RULES)
    if unknown:
        raise ValueError(f"ruleset {name!r}: unknown rule(s) {sorted(unknown)}; use {RULES}")
    if not include or not all(isinstance(p, str) and p for p in include):
        raise ValueError(f"ruleset {name!r}: include needs at least one ref pattern")
    with state.transaction() as db:
        ident = state.next_id()
        db.execute("INSERT INTO rulesets VALUES (?, ?, ?, ?, ?, ?)",
                   (ident, repo_id, name, json.dumps(list(include)), json.dumps(list(rules)),
                    json.dumps(list(bypass))))
        return ident


def broken_rule(state: State, repo_id: int, ref: str, rule: str, actor_login: str) -> str | None:
    """The refusal sentence of ``rule`` when a ruleset of the repository applies it to
    ``ref`` and ``actor_login`` may not bypass it; None when the write may go ahead."""
    repo = state.repository(repo_id)
    if repo is None:
        return None
    for row in state.all("SELECT * FROM rulesets WHERE repo_id = ? ORDER BY id", repo_id):
        if (rule in json.loads(row["rules"]) and actor_login not in json.loads(row["bypass"])
                and targets(json.loads(row["include"]), ref, str(repo["default_branch"]))):
            return REFUSAL[rule]
    return None


def branch_rules(state: State, repo_id: int, branch: str) -> list[dict[str, object]]:
    """REST ``GET /repos/{o}/{r}/rules/branches/{branch}``: every rule of every ruleset
    of the repository that targets ``refs/heads/<branch>`` (the branch need not exist),
    whoever asks: GitHub's "all active rules that apply", which does not weigh the
    caller's bypass (``current_user_can_bypass`` of the ruleset says that). Every
    emulated ruleset is active."""
    repo = state.repository(repo_id)
    if repo is None:
        return []
    full = _full_name(state, repo)
    ref = f"refs/heads/{branch}"
    out: list[dict[str, object]] = []
    for row in state.all("SELECT * FROM rulesets WHERE repo_id = ? ORDER BY id", repo_id):
        if targets(json.loads(row["include"]), ref, str(repo["default_branch"])):
            out.extend({"type": rule, "ruleset_source_type": "Repository",
                        "ruleset_source": full, "ruleset_id": int(row["id"])}
                       for rule in json.loads(row["rules"]))
    return out


def ruleset_json(state: State, repo_id: int, ident: int,
                 viewer_login: str) -> dict[str, object] | None:
    """REST ``GET /repos/{o}/{r}/rulesets/{id}``: the ruleset (target ``branch``,
    enforcement ``active``, its include patterns, its rules) with
    ``current_user_can_bypass``: ``always`` for an actor on its bypass list, else
    ``never``; None when the repository has no such ruleset. Bypass actors are listed by
    the emulator as logins, so ``bypass_actors`` is left out (GitHub too leaves it out
    for callers without write access to the ruleset)."""
    repo = state.repository(repo_id)
    row = state.one("SELECT * FROM rulesets WHERE repo_id = ? AND id = ?", repo_id, ident) \
        if repo is not None else None
    if repo is None or row is None:
        return None
    return {"id": ident, "name": row["name"], "target": "branch",
            "source_type": "Repository", "source": _full_name(state, repo),
            "enforcement": "active",
            "conditions": {"ref_name": {"include": json.loads(row["include"]),
                                        "exclude": []}},
            "rules": [{"type": rule} for rule in json.loads(row["rules"])],
            "current_user_can_bypass": "always" if viewer_login in json.loads(row["bypass"])
            else "never"}


def _full_name(state: State, repo: object) -> str:
    owner = state.actor(int(repo["owner_id"]))  # type: ignore[index]
    return f"{owner['login'] if owner else '?'}/{repo['name']}"  # type: ignore[index]


def violation_message(sentence: str) -> str:
    """GitHub's message for a refused ref write: the headline, then the rule."""
    return f"{HEADLINE}\n\n{sentence}\n\n"


__all__ = ["REFUSAL", "RULES", "add_ruleset", "branch_rules", "broken_rule", "ruleset_json",
           "targets", "violation_message"]
