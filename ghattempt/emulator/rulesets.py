"""Repository rulesets on refs: which rule a ref write breaks, in GitHub's words.

A ruleset targets refs by ``include`` patterns (``refs/heads/ghattempt/lease/**``;
``~ALL``; ``~DEFAULT_BRANCH``; a pattern without ``refs/`` means a branch) and holds
rules, each ``{"type", "parameters"}`` as GitHub's REST API shows them (a bare type name
is accepted for rules without parameters):

- ``creation`` (restrict creations), ``update`` (restrict updates), ``deletion``
  (restrict deletions), ``non_fast_forward`` (block force pushes);
- ``pull_request`` (require a pull request before merging) and
  ``required_status_checks``: no direct write reaches a matching branch (the emulator
  refuses its creation and its updates; a status check counts as passed when a check
  run of that name on the new head concluded ``success``);
- ``required_signatures``: every commit the write introduces must be verified;
- ``commit_message_pattern``, ``commit_author_email_pattern``,
  ``committer_email_pattern`` (every introduced commit) and ``branch_name_pattern``
  (a branch's creation), with ``operator`` (``starts_with``, ``ends_with``,
  ``contains``, ``regex``), ``pattern`` and ``negate``.

Actors whose login is in ``bypass`` are exempt. GitHub refuses the GitHub Actions
integration (the ``GITHUB_TOKEN``'s actor, ``github-actions``) as a bypass actor ("Actor
GitHub Actions integration must be part of the ruleset source or owner organization",
422), so a ruleset naming it is refused here too. ``*`` matches within one path
segment, ``**`` across them (fnmatch with ``File::FNM_PATHNAME``, as GitHub's docs on
ruleset patterns say).

Source: GitHub docs, "About rulesets", "Available rules for rulesets", "REST API
endpoints for rules"; the refusal sentences and their sources are listed in
docs/emulator.md ("What GitHub does, and where it is written", the rulesets rows).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .state import State

RULES = ("creation", "update", "deletion", "non_fast_forward", "pull_request",
         "required_status_checks", "required_signatures", "commit_message_pattern",
         "commit_author_email_pattern", "committer_email_pattern", "branch_name_pattern")
PATTERN_RULES = {
    "commit_message_pattern": "Commit message",
    "commit_author_email_pattern": "Commit author email",
    "committer_email_pattern": "Committer email",
    "branch_name_pattern": "Branch name",
}
OPERATORS = {
    "starts_with": "start with a matching pattern",
    "ends_with": "end with a matching pattern",
    "contains": "contain a matching pattern",
    "regex": "match a given regex pattern",
}
PULL_REQUEST_DEFAULTS = {
    "dismiss_stale_reviews_on_push": False,
    "require_code_owner_review": False,
    "require_last_push_approval": False,
    "required_approving_review_count": 0,
    "required_review_thread_resolution": False,
}
REFUSAL = {
    "creation": "Cannot create ref due to creations being restricted.",
    "update": "Cannot update this protected ref.",
    "deletion": "Cannot delete this protected ref.",
    "non_fast_forward": "Cannot force-push to this branch.",
    "pull_request": "Changes must be made through a pull request.",
    "required_signatures": "Commits must have verified signatures.",
}
HEADLINE = "Repository rule violations found"
ACTIONS_BYPASS = ("Actor GitHub Actions integration must be part of the ruleset source or "
                  "owner organization")
ACTIONS_LOGINS = frozenset({"github-actions", "github-actions[bot]"})


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


def matches(pattern: str, ref: str) -> bool:
    """Whether fnmatch-style ``pattern`` (a branch pattern without ``refs/``, or a full
    ref pattern) matches the full ref name ``ref``."""
    return bool(_pattern(pattern).match(ref))


def targets(include: Iterable[str], ref: str, default_branch: str,
            exclude: Iterable[str] = ()) -> bool:
    """Whether a ruleset with these ``include`` and ``exclude`` patterns applies to
    ``ref`` (full name): some include pattern matches it and no exclude pattern does
    (GitHub docs, "Creating rulesets for a repository": branches are targeted by
    include and exclude patterns; REST ``conditions.ref_name.include``/``exclude``)."""
    if any(_targeted(pattern, ref, default_branch) for pattern in exclude):
        return False
    return any(_targeted(pattern, ref, default_branch) for pattern in include)


def _targeted(pattern: str, ref: str, default_branch: str) -> bool:
    if pattern == "~ALL":
        return True
    if pattern == "~DEFAULT_BRANCH":
        return ref == f"refs/heads/{default_branch}"
    return matches(pattern, ref)


def _rule(name: str, raw: Any) -> dict[str, Any]:
    """One rule in GitHub's shape ``{"type", "parameters"?}``, checked.

    Raises:
        ValueError: an unknown type or parameters the type does not take.
    """
    if isinstance(raw, str):
        raw = {"type": raw}
    if not isinstance(raw, Mapping) or not isinstance(raw.get("type"), str):
        raise ValueError(f"ruleset {name!r}: a rule is a type name or {{type, parameters}}")
    kind = raw["type"]
    if kind not in RULES:
        raise ValueError(f"ruleset {name!r}: unknown rule {kind!r}; use {RULES}")
    params = raw.get("parameters")
    if kind == "pull_request":
        return {"type": kind, "parameters": {**PULL_REQUEST_DEFAULTS, **dict(params or {})}}
    if kind == "required_status_checks":
        checks = (params or {}).get("required_status_checks")
        if not isinstance(checks, list) or not checks or not all(
                isinstance(c, Mapping) and isinstance(c.get("context"), str) for c in checks):
            raise ValueError(f"ruleset {name!r}: required_status_checks needs parameters "
                             "{required_status_checks: [{context}, ...]}")
        return {"type": kind, "parameters": {
            "required_status_checks": [dict(c) for c in checks],
            "strict_required_status_checks_policy":
                bool((params or {}).get("strict_required_status_checks_policy", False))}}
    if kind in PATTERN_RULES:
        p = dict(params or {})
        if p.get("operator") not in OPERATORS or not isinstance(p.get("pattern"), str):
            raise ValueError(f"ruleset {name!r}: {kind} needs parameters {{operator (one of "
                             f"{sorted(OPERATORS)}), pattern, negate}}")
        if p["operator"] == "regex":
            try:
                re.compile(p["pattern"])
            except re.error as exc:
                raise ValueError(f"ruleset {name!r}: {kind} pattern is not a regex: "
                                 f"{exc}") from None
        return {"type": kind, "parameters": {"name": str(p.get("name", "")),
                                             "negate": bool(p.get("negate", False)),
                                             "operator": p["operator"],
                                             "pattern": p["pattern"]}}
    if params:
        raise ValueError(f"ruleset {name!r}: rule {kind!r} takes no parameters")
    return {"type": kind}


def add_ruleset(state: State, repo_id: int, name: str, include: list[str],
                rules: Sequence[Any], bypass: list[str], exclude: Sequence[str] = ()) -> int:
    """Store a ruleset; returns its id.

    Raises:
        ValueError: an unknown rule or bad parameters, no ``include`` pattern, or the
            GitHub Actions integration (``github-actions``) on the bypass list, which
            GitHub refuses (FriendlyInternet/nuxt-crouton#1942).
    """
    checked = [_rule(name, r) for r in rules]
    if not include or not all(isinstance(p, str) and p for p in include):
        raise ValueError(f"ruleset {name!r}: include needs at least one ref pattern")
    if not all(isinstance(p, str) and p for p in exclude):
        raise ValueError(f"ruleset {name!r}: exclude holds ref patterns (non-empty strings)")
    if any(str(login) in ACTIONS_LOGINS for login in bypass):
        raise ValueError(f"ruleset {name!r}: {ACTIONS_BYPASS} (GitHub refuses GitHub "
                         "Actions as a bypass actor; bypass with a GitHub App or a person)")
    with state.transaction() as db:
        ident = state.next_id()
        db.execute("INSERT INTO rulesets (id, repo_id, name, include, rules, bypass, exclude)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (ident, repo_id, name, json.dumps(list(include)), json.dumps(checked),
                    json.dumps(list(bypass)), json.dumps(list(exclude))))
        return ident


def _rules_of(row: Any) -> list[dict[str, Any]]:
    """A stored ruleset's rules (rows written before parameters were kept hold names)."""
    return [r if isinstance(r, dict) else {"type": r} for r in json.loads(row["rules"])]


@dataclass(frozen=True)
class Write:
    """A ref write as the rules see it: ``action`` (creation, update, deletion), the
    ref, whether it is a forced non-fast-forward, the new head and the commits it
    introduces (rows: ``oid``, ``message``, ``author``, ``committer`` and their
    ``verified`` state), and the check runs that passed on the new head."""

    action: str
    ref: str
    force: bool = False
    commits: tuple[Mapping[str, Any], ...] = ()
    passing: frozenset[str] = frozenset()


def _metadata_ok(params: Mapping[str, Any], value: str) -> bool:
    pattern, operator = str(params["pattern"]), str(params["operator"])
    if operator == "starts_with":
        hit = value.startswith(pattern)
    elif operator == "ends_with":
        hit = value.endswith(pattern)
    elif operator == "contains":
        hit = pattern in value
    else:
        hit = re.search(pattern, value) is not None
    return hit != bool(params.get("negate"))


def _metadata_sentence(kind: str, params: Mapping[str, Any]) -> str:
    must = "must not" if params.get("negate") else "must"
    return f"{PATTERN_RULES[kind]} {must} {OPERATORS[str(params['operator'])]}: " \
           f"{params['pattern']}"


def _violations(rule: Mapping[str, Any], write: Write) -> list[str]:
    kind = str(rule["type"])
    params = rule.get("parameters") or {}
    act = write.action
    if kind in ("creation", "update", "deletion"):
        return [REFUSAL[kind]] if act == kind else []
    if act == "deletion":
        return []
    if kind == "non_fast_forward":
        return [REFUSAL[kind]] if write.force else []
    if kind == "pull_request":
        return [REFUSAL[kind]]
    if kind == "required_status_checks":
        wanted = [str(c["context"]) for c in params["required_status_checks"]]
        missing = [c for c in wanted if c not in write.passing]
        if not missing:
            return []
        if len(wanted) == 1:
            return [f'Required status check "{wanted[0]}" is expected.']
        return [f"{len(missing)} of {len(wanted)} required status checks are expected."]
    if kind == "required_signatures":
        bad = [c["oid"] for c in write.commits if not c["verified"]]
        if not bad:
            return []
        return [f"{REFUSAL[kind]}\n  Found {len(bad)} violation{'s' if len(bad) > 1 else ''}"
                ":\n\n" + "\n".join(f"  {oid}" for oid in bad)]
    if kind == "branch_name_pattern":
        if act != "creation" or not write.ref.startswith("refs/heads/"):
            return []
        ok = _metadata_ok(params, write.ref[len("refs/heads/"):])
        return [] if ok else [_metadata_sentence(kind, params)]
    field = {"commit_message_pattern": "message", "commit_author_email_pattern": "author",
             "committer_email_pattern": "committer"}[kind]
    for commit in write.commits:
        value = str(commit[field] if field == "message" else json.loads(commit[field])[1])
        if not _metadata_ok(params, value):
            return [_metadata_sentence(kind, params)]
    return []


def broken_rules(state: State, repo_id: int, write: Write, actor_login: str) -> list[str]:
    """The refusal sentences of every rule of every ruleset of the repository that
    applies to ``write.ref``, that ``actor_login`` may not bypass and that ``write``
    breaks (empty: the write may go ahead)."""
    repo = state.repository(repo_id)
    if repo is None:
        return []
    out: list[str] = []
    for row in state.all("SELECT * FROM rulesets WHERE repo_id = ? ORDER BY id", repo_id):
        if actor_login in json.loads(row["bypass"]) or not targets(
                json.loads(row["include"]), write.ref, str(repo["default_branch"]),
                json.loads(row["exclude"])):
            continue
        for rule in _rules_of(row):
            out.extend(s for s in _violations(rule, write) if s not in out)
    return out


def branch_rules(state: State, repo_id: int, branch: str) -> list[dict[str, object]]:
    """REST ``GET /repos/{o}/{r}/rules/branches/{branch}``: every rule of every ruleset
    of the repository that targets ``refs/heads/<branch>`` (the branch need not exist),
    whoever asks: GitHub's "all active rules that apply", which does not weigh the
    caller's bypass (``current_user_can_bypass`` of the ruleset says that). Each rule
    as GitHub's ``repository-rule-detailed``: ``type``, ``parameters`` where the type
    has them, ``ruleset_source_type``, ``ruleset_source``, ``ruleset_id``. Every
    emulated ruleset is active. Classic branch protection is not among them (GitHub
    serves it elsewhere: :mod:`.protection`)."""
    repo = state.repository(repo_id)
    if repo is None:
        return []
    full = _full_name(state, repo)
    ref = f"refs/heads/{branch}"
    out: list[dict[str, object]] = []
    for row in state.all("SELECT * FROM rulesets WHERE repo_id = ? ORDER BY id", repo_id):
        if targets(json.loads(row["include"]), ref, str(repo["default_branch"]),
                   json.loads(row["exclude"])):
            out.extend({**rule, "ruleset_source_type": "Repository",
                        "ruleset_source": full, "ruleset_id": int(row["id"])}
                       for rule in _rules_of(row))
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
                                        "exclude": json.loads(row["exclude"])}},
            "rules": _rules_of(row),
            "current_user_can_bypass": "always" if viewer_login in json.loads(row["bypass"])
            else "never"}


def _full_name(state: State, repo: object) -> str:
    owner = state.actor(int(repo["owner_id"]))  # type: ignore[index]
    return f"{owner['login'] if owner else '?'}/{repo['name']}"  # type: ignore[index]


def violation_message(sentences: str | Sequence[str]) -> str:
    """GitHub's message for a refused ref write: the headline, then each rule."""
    if isinstance(sentences, str):
        sentences = [sentences]
    return HEADLINE + "\n\n" + "".join(f"{s}\n\n" for s in sentences)


__all__ = ["ACTIONS_BYPASS", "REFUSAL", "RULES", "Write", "add_ruleset", "branch_rules",
           "broken_rules", "matches", "ruleset_json", "targets", "violation_message"]
