"""The emulator's durable state: GitHub objects in SQLite (stdlib ``sqlite3``).

One connection guarded by one re-entrant lock serializes every request, so concurrent
clients (threads of the HTTP server, many writer processes talking to it) see the
writes of a request all at once or not at all. A file database survives a restart;
``":memory:"`` is for in-process tests.

Times are stored as float seconds since the epoch on the emulator clock
(:class:`Clock`), which tests may move forward. Database ids come from one counter
starting at 100,000,000 so that every node id has GitHub's ``kgDO``/``kwDO`` shape.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from . import git

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS actors (
  id INTEGER PRIMARY KEY, login TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
  name TEXT, created_at REAL NOT NULL, legacy_node_id INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS tokens (
  token TEXT PRIMARY KEY, actor_id INTEGER NOT NULL, role TEXT NOT NULL,
  discussions TEXT NOT NULL, contents TEXT NOT NULL, rate_limit INTEGER NOT NULL,
  installation_id INTEGER, repository TEXT);
CREATE TABLE IF NOT EXISTS repositories (
  id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, name TEXT NOT NULL,
  default_branch TEXT NOT NULL, next_number INTEGER NOT NULL,
  has_discussions INTEGER NOT NULL, private INTEGER NOT NULL, created_at REAL NOT NULL,
  legacy_node_id INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS repo_names (
  owner_login TEXT NOT NULL, name TEXT NOT NULL, repo_id INTEGER NOT NULL,
  PRIMARY KEY (owner_login, name));
CREATE TABLE IF NOT EXISTS categories (
  id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, name TEXT NOT NULL,
  slug TEXT NOT NULL, emoji TEXT NOT NULL, description TEXT,
  is_answerable INTEGER NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS discussions (
  id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, number INTEGER NOT NULL,
  category_id INTEGER NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,
  author_id INTEGER, locked INTEGER NOT NULL DEFAULT 0, lock_reason TEXT,
  created_at REAL NOT NULL, updated_at REAL NOT NULL, last_edited_at REAL,
  includes_created_edit INTEGER NOT NULL DEFAULT 0, visible_at REAL NOT NULL,
  id_repo INTEGER);
CREATE TABLE IF NOT EXISTS comments (
  id INTEGER PRIMARY KEY, discussion_id INTEGER NOT NULL, reply_to INTEGER,
  body TEXT NOT NULL, author_id INTEGER, created_at REAL NOT NULL,
  updated_at REAL NOT NULL, last_edited_at REAL,
  includes_created_edit INTEGER NOT NULL DEFAULT 0,
  is_minimized INTEGER NOT NULL DEFAULT 0, minimized_reason TEXT,
  deleted_at REAL, visible_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS comments_by_discussion ON comments (discussion_id, reply_to, id);
CREATE TABLE IF NOT EXISTS pull_requests (
  id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, number INTEGER NOT NULL,
  title TEXT NOT NULL, body TEXT NOT NULL, author_id INTEGER,
  head_ref TEXT NOT NULL, head_oid TEXT NOT NULL, base_ref TEXT NOT NULL,
  base_oid TEXT NOT NULL, state TEXT NOT NULL, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS commits (
  repo_id INTEGER NOT NULL, oid TEXT NOT NULL, tree TEXT NOT NULL,
  parents TEXT NOT NULL, message TEXT NOT NULL, author TEXT NOT NULL,
  committer TEXT NOT NULL, PRIMARY KEY (repo_id, oid));
CREATE TABLE IF NOT EXISTS trees (
  repo_id INTEGER NOT NULL, oid TEXT NOT NULL, files TEXT NOT NULL,
  PRIMARY KEY (repo_id, oid));
CREATE TABLE IF NOT EXISTS refs (
  repo_id INTEGER NOT NULL, name TEXT NOT NULL, oid TEXT NOT NULL,
  PRIMARY KEY (repo_id, name));
CREATE TABLE IF NOT EXISTS rulesets (
  id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, name TEXT NOT NULL,
  include TEXT NOT NULL, rules TEXT NOT NULL, bypass TEXT NOT NULL,
  exclude TEXT NOT NULL DEFAULT '[]');
CREATE TABLE IF NOT EXISTS branch_protections (
  id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, pattern TEXT NOT NULL,
  settings TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS commit_signatures (
  repo_id INTEGER NOT NULL, oid TEXT NOT NULL, reason TEXT NOT NULL,
  PRIMARY KEY (repo_id, oid));
"""

# Columns added after the first release, for databases made before them.
MIGRATIONS = (
    ("actors", "legacy_node_id", "INTEGER NOT NULL DEFAULT 0"),
    ("repositories", "legacy_node_id", "INTEGER NOT NULL DEFAULT 0"),
    ("discussions", "id_repo", "INTEGER"),
    ("tokens", "repository", "TEXT"),
    ("tokens", "actions", "TEXT NOT NULL DEFAULT 'read'"),
    ("categories", "format", "TEXT NOT NULL DEFAULT 'discussion'"),
    ("rulesets", "exclude", "TEXT NOT NULL DEFAULT '[]'"),
)

FIRST_DATABASE_ID = 100_000_000
ROLES = ("none", "read", "triage", "write", "maintain", "admin")
ACCESS = ("none", "read", "write")


class Clock:
    """Wall clock plus an offset that tests move forward; it never goes backward.

    ``now()`` never returns less than it returned before, even when the machine's wall
    clock steps back (NTP, a virtual machine resynchronising its clock): a comment is
    visible to reads whose ``now`` is at least its ``visible_at``, so a backward step
    would hide a committed comment from every later read and let a writer build on a
    stale head.
    """

    def __init__(self, wall: Callable[[], float] = time.time) -> None:
        self._wall = wall
        self._offset = 0.0
        self._last = -math.inf
        self._lock = threading.Lock()

    def now(self) -> float:
        """Seconds since the epoch (float), never less than any earlier answer."""
        with self._lock:
            self._last = max(self._last, self._wall() + self._offset)
            return self._last

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds`` (>= 0). Raises ValueError if negative."""
        if seconds < 0:
            raise ValueError("the emulator clock only moves forward")
        with self._lock:
            self._offset += seconds


def iso(ts: float | None) -> str | None:
    """GitHub's DateTime rendering: ``YYYY-MM-DDTHH:MM:SSZ`` (UTC, whole seconds)."""
    if ts is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


class State:
    """SQLite-backed GitHub objects. Every method expects the caller to hold ``lock``
    (use :meth:`transaction` for writes); reads outside a transaction are fine."""

    def __init__(self, path: str = ":memory:", clock: Clock | None = None) -> None:
        self.path = path
        self.clock = clock or Clock()
        self.lock = threading.RLock()
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        if path != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")  # survives a process crash
        self.db.execute("PRAGMA busy_timeout=10000")
        self.db.executescript(SCHEMA)
        for table, column, decl in MIGRATIONS:
            have = {r["name"] for r in self.db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
        self._depth = 0

    def close(self) -> None:
        with self.lock:
            self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and one SQLite transaction (nested calls join the outer one)."""
        with self.lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self.db
                finally:
                    self._depth -= 1
                return
            self.db.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            else:
                self.db.execute("COMMIT")
            finally:
                self._depth = 0

    # ----------------------------------------------------------------- helpers
    def one(self, sql: str, *args: Any) -> sqlite3.Row | None:
        with self.lock:
            row: sqlite3.Row | None = self.db.execute(sql, args).fetchone()
            return row

    def all(self, sql: str, *args: Any) -> list[sqlite3.Row]:
        with self.lock:
            return list(self.db.execute(sql, args).fetchall())

    def meta(self, key: str, default: str | None = None) -> str | None:
        row = self.one("SELECT value FROM meta WHERE key = ?", key)
        return default if row is None else str(row["value"])

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def next_id(self) -> int:
        with self.transaction():
            current = int(self.meta("next_id", str(FIRST_DATABASE_ID)) or FIRST_DATABASE_ID)
            self.set_meta("next_id", str(current + 1))
            return current

    @property
    def seeded(self) -> bool:
        return self.meta("seeded") == "1"

    # ------------------------------------------------------------------ actors
    def add_actor(self, login: str, kind: str, database_id: int | None, name: str | None,
                  legacy_node_id: bool = False) -> int:
        """Add an actor; ``legacy_node_id``: it predates GitHub's node-id migration."""
        if kind not in ("User", "Bot", "Organization"):
            raise ValueError(f"actor {login!r}: kind must be User, Bot or Organization")
        with self.transaction() as db:
            ident = database_id if database_id is not None else self.next_id()
            db.execute(
                "INSERT INTO actors (id, login, kind, name, created_at, legacy_node_id) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (ident, login, kind, name, self.clock.now(), int(legacy_node_id)),
            )
            return ident

    def actor(self, ident: int | None) -> sqlite3.Row | None:
        if ident is None:
            return None
        return self.one("SELECT * FROM actors WHERE id = ?", ident)

    def actor_by_login(self, login: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM actors WHERE login = ?", login)

    def add_token(
        self,
        token: str,
        actor_id: int,
        role: str,
        discussions: str,
        contents: str,
        rate_limit: int,
        installation_id: int | None,
        repository: str | None = None,
        actions: str = "read",
    ) -> None:
        """Store a token. ``discussions``, ``contents`` and ``actions`` are the
        permissions a token that carries permissions (an App's, a ``GITHUB_TOKEN``, a
        fine-grained token) has: none, read or write."""
        if role not in ROLES:
            raise ValueError(f"token role must be one of {ROLES}, not {role!r}")
        for label, value in (("discussions", discussions), ("contents", contents),
                             ("actions", actions)):
            if value not in ACCESS:
                raise ValueError(f"token {label} access must be one of {ACCESS}")
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO tokens (token, actor_id, role, discussions, contents, "
                "rate_limit, installation_id, repository, actions) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (token, actor_id, role, discussions, contents, rate_limit, installation_id,
                 repository, actions),
            )

    def token(self, token: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM tokens WHERE token = ?", token)

    # ------------------------------------------------------------ repositories
    def add_repository(
        self, owner_id: int, name: str, default_branch: str, has_discussions: bool, private: bool,
        legacy_node_id: bool = False,
    ) -> int:
        owner = self.actor(owner_id)
        if owner is None:
            raise ValueError("repository owner is not an actor")
        with self.transaction() as db:
            ident = self.next_id()
            db.execute(
                "INSERT INTO repositories (id, owner_id, name, default_branch, next_number, "
                "has_discussions, private, created_at, legacy_node_id) "
                "VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)",
                (
                    ident,
                    owner_id,
                    name,
                    default_branch,
                    int(has_discussions),
                    int(private),
                    self.clock.now(),
                    int(legacy_node_id),
                ),
            )
            db.execute(
                "INSERT OR REPLACE INTO repo_names VALUES (?, ?, ?)",
                (owner["login"].lower(), name.lower(), ident),
            )
            db.execute(
                "INSERT OR IGNORE INTO trees VALUES (?, ?, ?)", (ident, git.EMPTY_TREE, "{}")
            )
            return ident

    def rename_repository(self, repo_id: int, new_name: str) -> None:
        """Rename a repository; its id stays, the old name keeps resolving."""
        repo = self.repository(repo_id)
        if repo is None:
            raise ValueError(f"no repository with databaseId {repo_id}")
        owner = self.actor(repo["owner_id"])
        assert owner is not None
        with self.transaction() as db:
            db.execute("UPDATE repositories SET name = ? WHERE id = ?", (new_name, repo_id))
            db.execute(
                "INSERT OR REPLACE INTO repo_names VALUES (?, ?, ?)",
                (owner["login"].lower(), new_name.lower(), repo_id),
            )

    def transfer_repository(self, repo_id: int, new_owner_id: int) -> None:
        """Move a repository to another owner; its id stays, the old owner/name keeps
        resolving (GitHub redirects a transferred repository)."""
        repo = self.repository(repo_id)
        owner = self.actor(new_owner_id)
        if repo is None or owner is None:
            raise ValueError("no such repository or owner")
        with self.transaction() as db:
            db.execute("UPDATE repositories SET owner_id = ? WHERE id = ?", (new_owner_id, repo_id))
            db.execute(
                "INSERT OR REPLACE INTO repo_names VALUES (?, ?, ?)",
                (owner["login"].lower(), str(repo["name"]).lower(), repo_id),
            )

    def repository(self, ident: int) -> sqlite3.Row | None:
        return self.one("SELECT * FROM repositories WHERE id = ?", ident)

    def repository_by_name(
        self, owner: str, name: str, follow_renames: bool = True
    ) -> sqlite3.Row | None:
        """Case-insensitive lookup; with ``follow_renames`` an old name resolves too."""
        row = self.one(
            "SELECT r.* FROM repositories r JOIN actors a ON a.id = r.owner_id "
            "WHERE lower(a.login) = ? AND lower(r.name) = ?",
            owner.lower(),
            name.lower(),
        )
        if row is not None or not follow_renames:
            return row
        alias = self.one(
            "SELECT repo_id FROM repo_names WHERE owner_login = ? AND name = ?",
            owner.lower(),
            name.lower(),
        )
        return None if alias is None else self.repository(alias["repo_id"])

    def take_number(self, repo_id: int) -> int:
        """The next issue/PR/discussion number (one sequence per repository)."""
        with self.transaction() as db:
            row = db.execute(
                "SELECT next_number FROM repositories WHERE id = ?", (repo_id,)
            ).fetchone()
            number = int(row["next_number"])
            db.execute(
                "UPDATE repositories SET next_number = ? WHERE id = ?", (number + 1, repo_id)
            )
            return number

    # ---------------------------------------------------------------- git data
    def add_commit(
        self,
        repo_id: int,
        tree: str,
        parents: list[str],
        message: str,
        author: tuple[str, str, int],
        committer: tuple[str, str, int],
        oid: str | None = None,
    ) -> str:
        """Store a commit; its oid is git's unless ``oid`` is given (fixtures only)."""
        if oid is None:
            oid = git.commit_id(tree, parents, message, author, committer)
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO commits VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    repo_id,
                    oid,
                    tree,
                    json.dumps(parents),
                    message,
                    json.dumps(author),
                    json.dumps(committer),
                ),
            )
        return oid

    def commit(self, repo_id: int, oid: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM commits WHERE repo_id = ? AND oid = ?", repo_id, oid)

    def add_tree(self, repo_id: int, files: dict[str, str]) -> str:
        """Store a root tree of ``{path: base64 contents}``; returns its oid."""
        import base64

        decoded = {p: base64.b64decode(c) for p, c in files.items()}
        oid = git.tree_id(decoded)
        with self.transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO trees VALUES (?, ?, ?)",
                (repo_id, oid, json.dumps(files, sort_keys=True)),
            )
        return oid

    def tree(self, repo_id: int, oid: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM trees WHERE repo_id = ? AND oid = ?", repo_id, oid)

    def ref(self, repo_id: int, name: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM refs WHERE repo_id = ? AND name = ?", repo_id, name)

    def set_ref(self, repo_id: int, name: str, oid: str | None) -> None:
        with self.transaction() as db:
            if oid is None:
                db.execute("DELETE FROM refs WHERE repo_id = ? AND name = ?", (repo_id, name))
            else:
                db.execute("INSERT OR REPLACE INTO refs VALUES (?, ?, ?)", (repo_id, name, oid))

    def set_verification(self, repo_id: int, oid: str, reason: str) -> None:
        """Record how GitHub verifies a commit's signature (``valid``, ``unsigned``, ...:
        the REST ``verification.reason``)."""
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO commit_signatures VALUES (?, ?, ?)",
                       (repo_id, oid, reason))

    def verification(self, repo_id: int, oid: str) -> str:
        """The commit's ``verification.reason``; ``unsigned`` when none was recorded."""
        row = self.one("SELECT reason FROM commit_signatures WHERE repo_id = ? AND oid = ?",
                       repo_id, oid)
        return "unsigned" if row is None else str(row["reason"])

    def walk(self, repo_id: int, heads: list[str]) -> Iterator[str]:
        """Every commit reachable from ``heads`` (themselves included), each once,
        lazily: a caller that found what it looks for stops the walk."""
        seen: set[str] = set()
        todo = list(heads)
        while todo:
            oid = todo.pop()
            if oid in seen:
                continue
            seen.add(oid)
            yield oid
            row = self.commit(repo_id, oid)
            if row is not None:
                todo.extend(json.loads(row["parents"]))

    def is_ancestor(self, repo_id: int, ancestor: str, descendant: str) -> bool:
        """Whether ``ancestor`` is ``descendant`` or reachable through its parents."""
        return any(oid == ancestor for oid in self.walk(repo_id, [descendant]))
