"""Fixture files: the actors, tokens, repositories, categories and pull requests a
fresh emulator database starts with. TOML or JSON, same shape (docs/emulator.md)::

    [fidelity]                  # optional fidelity switches (fidelity.py); GitHub's defaults
    replica_lag_ms = 2000

    [[actors]]                  # kind: User | Bot | Organization
    login = "github-actions"
    kind = "Bot"
    database_id = 41898282      # optional; otherwise allocated (a GHES instance has its own)
    legacy_node_id = false      # true: made before GitHub's node-id migration

    [[tokens]]
    token = "ghs_writer"
    actor = "github-actions"
    role = "write"              # none | read | triage | write | maintain | admin
    discussions = "write"       # none | read | write   (default write)
    contents = "write"          # none | read | write   (default write)
    actions = "read"            # none | read | write   (default read)
    rate_limit = 1000           # primary GraphQL points per hour (default 5000)
    repository = "octo-org/widgets"  # optional: the repository a GITHUB_TOKEN is for

    [[apps]]                    # optional: JWT -> installation token exchange
    app_id = 4242
    slug = "ghattempt-app"      # its Bot actor (created if missing)
    public_key = "-----BEGIN PUBLIC KEY-----\n..."
    installations = [{id = 777, role = "write", discussions = "write"}]

    [[repositories]]
    owner = "octo-org"
    name = "widgets"
    default_branch = "main"
    branches = [{name = "main", message = "Initial commit"},
                {name = "feature", message = "Add a widget", from = "main"}]
    categories = [{name = "Releases", slug = "releases"},
                  {name = "News", slug = "news", format = "announcement"}]
    pull_requests = [{number = 1, title = "Add a widget", head = "feature",
                      base = "main", author = "alice"}]
    legacy_node_id = false      # true: made before GitHub's node-id migration
    rulesets = [{name = "leases", include = ["refs/heads/ghattempt/lease/**"],
                 rules = ["creation", "update", "deletion",
                          {type = "required_status_checks", parameters = {
                            required_status_checks = [{context = "ci"}]}}],
                 bypass = ["alice"]}]   # never github-actions: GitHub refuses it
    branch_protection = [{pattern = "release/**", allow_deletions = false,
                          required_signatures = true,
                          required_pull_request_reviews = {required_approving_review_count = 1}}]

    [limits]                    # optional secondary limits (GitHub's defaults)
    content_per_minute = 80
    content_per_hour = 500
    points_per_minute = 2000
    rest_points_per_minute = 900
    discussion_comments = 2500  # comments and replies one discussion takes
    time_scale = 1              # benchmarks: the secondary windows pass k times faster

Branch commits have the empty tree and fixed dates, so their oids are stable.
"""

from __future__ import annotations

import copy
import json
import sqlite3
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import apps, git, protection, rulesets
from .fidelity import Fidelity
from .state import ROLES, State

FIXTURE_EPOCH = 1_700_000_000
DEFAULT_FIXTURE: dict[str, Any] = {
    "actors": [
        {"login": "github-actions", "kind": "Bot", "database_id": 41898282},
        {"login": "octo-org", "kind": "Organization"},
        {"login": "alice", "kind": "User", "name": "Alice"},
        {"login": "mallory", "kind": "User"},
        {"login": "ghattempt-app", "kind": "Bot"},
    ],
    "tokens": [
        {"token": "ghs_actions", "actor": "github-actions", "role": "write", "rate_limit": 1000},
        {"token": "ghs_app", "actor": "ghattempt-app", "role": "write"},
        {"token": "ghp_alice", "actor": "alice", "role": "admin"},
        {"token": "ghp_mallory", "actor": "mallory", "role": "read"},
        {
            "token": "ghs_nodiscussions",
            "actor": "ghattempt-app",
            "role": "write",
            "discussions": "none",
        },
    ],
    "repositories": [
        {
            "owner": "octo-org",
            "name": "widgets",
            "default_branch": "main",
            "branches": [
                {"name": "main", "message": "Initial commit"},
                {"name": "feature", "message": "Add a widget", "from": "main"},
            ],
            "categories": [
                {"name": "Release journal", "slug": "release-journal", "emoji": ":rocket:"},
                {"name": "General", "slug": "general", "emoji": ":speech_balloon:"},
            ],
            "pull_requests": [
                {
                    "number": 1,
                    "title": "Add a widget",
                    "head": "feature",
                    "base": "main",
                    "author": "alice",
                }
            ],
        }
    ],
}


GITHUB_COM_ACTIONS_BOT_ID = 41898282
"""The Actions bot's databaseId on github.com; a GHES instance numbers it itself."""


def ghes_fixture(actions_bot_id: int, base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``base`` (default :data:`DEFAULT_FIXTURE`) as a GHES instance has it: the Actions
    bot ``github-actions`` with this instance's ``actions_bot_id`` instead of github.com's
    41898282 (its account is created per instance; danger/danger-js#1404 makes the id
    configurable for GHE for that reason)."""
    data = copy.deepcopy(dict(base if base is not None else DEFAULT_FIXTURE))
    for actor in data.get("actors", []):
        if actor.get("login") == "github-actions" and actor.get("kind") == "Bot":
            actor["database_id"] = actions_bot_id
    return data


class FixtureError(ValueError):
    """The fixture is malformed; the message names the entry and the field."""


def load_fixture(path: str | Path) -> dict[str, Any]:
    """Read a ``.toml`` or ``.json`` fixture file.

    Raises:
        FixtureError: unreadable, not TOML/JSON, or not a table at the top.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
        data = tomllib.loads(text) if p.suffix == ".toml" else json.loads(text)
    except (OSError, ValueError) as exc:
        raise FixtureError(f"fixture {p}: {exc}") from exc
    if not isinstance(data, dict):
        raise FixtureError(f"fixture {p}: the top level must be a table/object")
    return data


def _req(entry: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in entry:
        raise FixtureError(f"{where}: missing {key!r}")
    return entry[key]


def seed(state: State, data: Mapping[str, Any]) -> None:
    """Apply ``data`` to an empty database in one transaction, then mark it seeded.

    Raises:
        FixtureError: a missing field, an unknown actor or branch, a bad role.
    """
    with state.transaction():
        try:
            _seed(state, data)
        except FixtureError:
            raise
        except (ValueError, TypeError, KeyError, sqlite3.IntegrityError) as exc:
            # a duplicate login, token, number or id, or a value of the wrong type
            raise FixtureError(f"fixture: {exc}") from exc
        state.set_meta("seeded", "1")


CATEGORY_FORMATS = ("discussion", "announcement")
"""A category's discussion format as far as ghattempt meets it: in an announcement
category only maintainers and admins start discussions (GitHub docs, "Managing categories
for discussions")."""

LIMITS = ("content_per_minute", "content_per_hour", "points_per_minute", "rest_points_per_minute",
          "discussion_comments", "time_scale")


def _seed(state: State, data: Mapping[str, Any]) -> None:
    fidelity = data.get("fidelity", {})
    if not isinstance(fidelity, Mapping):
        raise FixtureError("fidelity: must be a table of switches")
    try:
        Fidelity().changed(dict(fidelity))
    except ValueError as exc:
        raise FixtureError(f"fidelity: {exc}") from None
    state.set_meta("fidelity", json.dumps(dict(fidelity)))
    limits = data.get("limits", {})
    unknown = set(limits) - set(LIMITS)
    if unknown:
        raise FixtureError(f"limits: unknown key(s) {sorted(unknown)}; use {LIMITS}")
    for key, value in limits.items():
        if not isinstance(value, int) or value < 1:
            raise FixtureError(f"limits.{key}: must be an integer >= 1")
        state.set_meta(f"limit:{key}", str(value))
    actors: dict[str, int] = {}
    for i, a in enumerate(data.get("actors", [])):
        where = f"actors[{i}]"
        login = str(_req(a, "login", where))
        actors[login] = state.add_actor(
            login, str(a.get("kind", "User")), a.get("database_id"), a.get("name"),
            bool(a.get("legacy_node_id", False)),
        )
    for i, t in enumerate(data.get("tokens", [])):
        where = f"tokens[{i}]"
        login = str(_req(t, "actor", where))
        if login not in actors:
            raise FixtureError(f"{where}: unknown actor {login!r}")
        state.add_token(
            str(_req(t, "token", where)),
            actors[login],
            str(t.get("role", "write")),
            str(t.get("discussions", "write")),
            str(t.get("contents", "write")),
            int(t.get("rate_limit", 5000)),
            t.get("installation_id"),
            t.get("repository"),
            str(t.get("actions", "read")),
        )
    for i, a in enumerate(data.get("apps", [])):
        where = f"apps[{i}]"
        app_id = int(_req(a, "app_id", where))
        slug = str(_req(a, "slug", where))
        apps.add_app(state, app_id, slug, str(_req(a, "public_key", where)))
        actor = state.actor_by_login(slug)
        assert actor is not None
        actors[slug] = int(actor["id"])
        for j, inst in enumerate(a.get("installations", [])):
            iwhere = f"{where}.installations[{j}]"
            role = str(inst.get("role", "write"))
            if role not in ROLES:
                raise FixtureError(f"{iwhere}: role must be one of {ROLES}")
            apps.add_installation(
                state,
                int(_req(inst, "id", iwhere)),
                app_id,
                role,
                str(inst.get("discussions", "write")),
                str(inst.get("contents", "write")),
                int(inst.get("rate_limit", 5000)),
                str(inst.get("actions", "read")),
            )
    for i, r in enumerate(data.get("repositories", [])):
        where = f"repositories[{i}]"
        owner = str(_req(r, "owner", where))
        if owner not in actors:
            raise FixtureError(f"{where}: unknown owner {owner!r}")
        default_branch = str(r.get("default_branch", "main"))
        repo_id = state.add_repository(
            actors[owner],
            str(_req(r, "name", where)),
            default_branch,
            bool(r.get("has_discussions", True)),
            bool(r.get("private", False)),
            bool(r.get("legacy_node_id", False)),
        )
        for j, rs in enumerate(r.get("rulesets", [])):
            rwhere = f"{where}.rulesets[{j}]"
            try:
                rulesets.add_ruleset(state, repo_id, str(_req(rs, "name", rwhere)),
                                     list(_req(rs, "include", rwhere)),
                                     list(_req(rs, "rules", rwhere)), list(rs.get("bypass", [])),
                                     list(rs.get("exclude", [])))
            except ValueError as exc:
                raise FixtureError(f"{rwhere}: {exc}") from None
        for j, bp in enumerate(r.get("branch_protection", [])):
            pwhere = f"{where}.branch_protection[{j}]"
            try:
                settings = {k: v for k, v in bp.items() if k != "pattern"}
                protection.add_protection(state, repo_id, str(_req(bp, "pattern", pwhere)),
                                          settings)
            except ValueError as exc:
                raise FixtureError(f"{pwhere}: {exc}") from None
        branches = r.get("branches") or [{"name": default_branch, "message": "Initial commit"}]
        heads: dict[str, str] = {}
        for j, b in enumerate(branches):
            bwhere = f"{where}.branches[{j}]"
            name = str(_req(b, "name", bwhere))
            parents: list[str] = []
            if b.get("from"):
                if b["from"] not in heads:
                    raise FixtureError(f"{bwhere}: unknown branch {b['from']!r} in 'from'")
                parents = [heads[b["from"]]]
            sig = ("Fixture", "fixture@example.invalid", FIXTURE_EPOCH + j)
            oid = state.add_commit(
                repo_id,
                git.EMPTY_TREE,
                parents,
                str(b.get("message", f"Commit on {name}")),
                sig,
                sig,
                oid=b.get("oid"),
            )
            heads[name] = oid
            state.set_ref(repo_id, f"refs/heads/{name}", oid)
        for j, c in enumerate(r.get("categories", [])):
            cwhere = f"{where}.categories[{j}]"
            fmt = str(c.get("format", "discussion"))
            if fmt not in CATEGORY_FORMATS:
                raise FixtureError(f"{cwhere}: format must be one of {CATEGORY_FORMATS}")
            with state.transaction() as db:
                db.execute(
                    "INSERT INTO categories (id, repo_id, name, slug, emoji, description, "
                    "is_answerable, created_at, format) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        state.next_id(),
                        repo_id,
                        str(_req(c, "name", cwhere)),
                        str(_req(c, "slug", cwhere)),
                        str(c.get("emoji", ":speech_balloon:")),
                        c.get("description"),
                        int(bool(c.get("is_answerable", False))),
                        FIXTURE_EPOCH,
                        fmt,
                    ),
                )
        for j, p in enumerate(r.get("pull_requests", [])):
            pwhere = f"{where}.pull_requests[{j}]"
            head, base = str(_req(p, "head", pwhere)), str(_req(p, "base", pwhere))
            for ref in (head, base):
                if ref not in heads:
                    raise FixtureError(f"{pwhere}: unknown branch {ref!r}")
            number = int(p["number"]) if "number" in p else state.take_number(repo_id)
            with state.transaction() as db:
                db.execute(
                    "UPDATE repositories SET next_number = max(next_number, ?) WHERE id = ?",
                    (number + 1, repo_id),
                )
                author = p.get("author")
                if author is not None and author not in actors:
                    raise FixtureError(f"{pwhere}: unknown author {author!r}")
                db.execute(
                    "INSERT INTO pull_requests VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        state.next_id(),
                        repo_id,
                        number,
                        str(p.get("title", f"Pull request {number}")),
                        str(p.get("body", "")),
                        actors.get(author) if author else None,
                        head,
                        heads[head],
                        base,
                        heads[base],
                        str(p.get("state", "OPEN")),
                        FIXTURE_EPOCH,
                    ),
                )
