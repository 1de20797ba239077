"""The durable inbox: accepted deliveries, recorded before GitHub gets an answer.

:class:`Inbox` is the interface; two backends implement it with one schema and one set
of statements (:func:`open_inbox` picks the one a location names; the App's composition,
``ghattempt.app.server``, calls it):

- **SQLite** (:class:`SqliteInbox`, the default; one server process):
  ``GHATTEMPT_APP_STATE`` names the file.
  WAL; acceptances commit with ``synchronous=FULL`` (fsynced), group-committed.
- **PostgreSQL** (:class:`PostgresInbox`, ``GHATTEMPT_APP_DATABASE=postgresql://...``;
  psycopg 3): any number
  of server replicas share the inbox. Each accepts, deduplicates against every other,
  and takes work with per-lane order; a replica that dies (even by SIGKILL) leaves its
  lanes free the moment its database connections close, and the others finish its
  accepted deliveries.

A delivery is *accepted* when its row is committed; only then does the server answer
202. Workers take the due head of a lane (:meth:`Inbox.claim`, see
:mod:`ghattempt.app.lanes`), hold that lane while they work, and mark the delivery
``done`` (or ``failed``) in the same transaction that applies its head-index changes.
A crash between the sink's effect and that mark makes a worker redo the delivery; the
sink's idempotency keys make the redo a no-op (at-least-once delivery plus idempotent
effects).

Holding a lane: SQLite, one process, keeps the held lanes in memory. PostgreSQL uses a
session advisory lock per lane (``pg_try_advisory_lock``) on the worker's own
connection, not a row lock: a row lock lives in a transaction, which would have to stay
open across every GitHub call of the lane's burst; the advisory lock stays across
transactions, so each done mark commits at once, and PostgreSQL drops it when the
session ends.

Deduplication (the horizon is :data:`RETENTION_SECONDS`; GitHub keeps deliveries
redeliverable for 3 days):

- the same ``X-GitHub-Delivery`` with the same body: a redelivery, acknowledged again
  with no new work;
- the same delivery id with another body: refused (:attr:`Admission.CONFLICT`);
- the same body (SHA-256) under another delivery id: a replay (the delivery header is
  not covered by the signature), acknowledged with no new work.

Both are unique keys of the table, so two replicas accepting the same delivery at the
same moment record it once: the second insert does nothing and reads the first row.

States: ``pending`` -> ``done`` | ``failed``; ``failed`` rows keep their error for an
operator and can be put back with :meth:`Inbox.requeue_failed`.

Migrations: the schema carries its version (``inbox_schema``); :meth:`Inbox.migrate`
brings an older inbox up to date (``python -m ghattempt.app migrate``; the server runs
it at start, PostgreSQL replicas one at a time under an advisory lock).
"""

from __future__ import annotations

import abc
import contextlib
import enum
import hashlib
import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ghattempt.app.lanes import Decision, decide
from ghattempt.app.routing import Forget, Remember
from ghattempt.app.sink import IntentRef
from ghattempt.errors import Fault, GhattemptError

__all__ = [
    "RETENTION_SECONDS",
    "InboxUnavailable",
    "SCHEMA_VERSION",
    "Accepted",
    "Admission",
    "Claim",
    "Inbox",
    "InboxItem",
    "PostgresInbox",
    "SqliteInbox",
    "is_postgres_url",
    "open_inbox",
]

log = logging.getLogger("ghattempt.app")

RETENTION_SECONDS = 14 * 24 * 3600
"""How long finished deliveries are kept for deduplication (longer than GitHub's 3-day
redelivery window)."""

SCHEMA_VERSION = 3
"""Version 1: deliveries and the head index. Version 2: lanes, the heads a pull request
had, the heads claimed at acceptance, the catch-up's bookkeeping. Version 3: the
content-creation budget (:mod:`ghattempt.app.budget`)."""

NOTIFY_CHANNEL = "ghattempt_inbox"
"""PostgreSQL: the channel an acceptance notifies, so other replicas' workers wake."""

_LOCK_CLASS = 0x67686174
"""PostgreSQL advisory locks: the first key of every lock the inbox takes ('ghat')."""

_MIGRATE_LOCK = 0
_CANDIDATES = 16

_V1 = """
CREATE TABLE IF NOT EXISTS deliveries (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery     TEXT NOT NULL UNIQUE,
    event        TEXT NOT NULL,
    action       TEXT,
    body_sha256  TEXT NOT NULL UNIQUE,
    body         BLOB NOT NULL,
    received_at  REAL NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
    tries        INTEGER NOT NULL DEFAULT 0,
    not_before   REAL NOT NULL DEFAULT 0,
    outcome      TEXT,
    finished_at  REAL
);
CREATE INDEX IF NOT EXISTS deliveries_pending ON deliveries (seq) WHERE state = 'pending';
CREATE TABLE IF NOT EXISTS heads (
    repository_id   TEXT NOT NULL,
    pull_request    INTEGER NOT NULL,
    base_ref        TEXT NOT NULL,
    repository_name TEXT NOT NULL,
    head_sha        TEXT NOT NULL,
    PRIMARY KEY (repository_id, pull_request, base_ref)
);
CREATE INDEX IF NOT EXISTS heads_by_sha ON heads (repository_id, head_sha);
"""

# Version 2. Rows of a version-1 inbox keep one lane, 'legacy': the single ordered queue
# they were made for.
_V2 = """
ALTER TABLE deliveries ADD COLUMN lane TEXT NOT NULL DEFAULT 'legacy';
CREATE INDEX IF NOT EXISTS deliveries_lane ON deliveries (lane, seq) WHERE state = 'pending';
CREATE TABLE IF NOT EXISTS head_history (
    repository_id   TEXT NOT NULL,
    head_sha        TEXT NOT NULL,
    pull_request    INTEGER NOT NULL,
    base_ref        TEXT NOT NULL,
    repository_name TEXT NOT NULL,
    seen_at         REAL NOT NULL,
    PRIMARY KEY (repository_id, head_sha, pull_request, base_ref)
);
CREATE TABLE IF NOT EXISTS lane_heads (
    repository_id TEXT NOT NULL,
    head_sha      TEXT NOT NULL,
    lane          TEXT NOT NULL,
    claimed_at    REAL NOT NULL,
    PRIMARY KEY (repository_id, head_sha)
);
CREATE TABLE IF NOT EXISTS redeliveries (
    guid         TEXT PRIMARY KEY,
    requested_at REAL NOT NULL,
    requests     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS inbox_meta (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

# Version 3: one row per content-creating request of an actor, while it counts against
# GitHub's windows (ghattempt.app.budget): reserved by a worker for a delivery
# (reserved_by), taken before it is sent, settled when its answer came (or it failed), in
# the budget's clock.
_V3 = """
CREATE TABLE IF NOT EXISTS content_budget (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    actor       TEXT NOT NULL,
    taken_at    REAL NOT NULL,
    settled_at  REAL,
    reserved_by TEXT
);
CREATE INDEX IF NOT EXISTS content_budget_actor ON content_budget (actor, taken_at);
"""

_POSTGRES_TYPES = (
    ("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
    ("BLOB", "BYTEA"),
    ("REAL", "DOUBLE PRECISION"),  # PostgreSQL's REAL has 24 bits: not enough for a time
)


def _postgres(script: str) -> str:
    """A schema script in PostgreSQL's types (the scripts are written in SQLite's)."""
    for sqlite_type, postgres_type in _POSTGRES_TYPES:
        script = script.replace(sqlite_type, postgres_type)
    return script




class InboxUnavailable(GhattemptError):  # noqa: N818 - what the caller learns
    """The inbox cannot be opened or migrated (unreachable, not an inbox, or a schema
    newer than this ghattempt); the message says which, never the database password."""

    fault = Fault.BAD_INPUT


def is_postgres_url(location: object) -> bool:
    """Whether ``location`` names a PostgreSQL database (``postgresql://`` or
    ``postgres://``) rather than a SQLite file."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


class Admission(enum.Enum):
    """What :meth:`Inbox.accept` did with a delivery."""

    NEW = "new"
    """Recorded and durable; work will follow."""
    DUPLICATE = "duplicate"
    """This delivery id with this body was already accepted."""
    REPLAY = "replay"
    """This body was already accepted under another delivery id."""
    CONFLICT = "conflict"
    """This delivery id was accepted with another body."""


@dataclass(frozen=True, slots=True)
class Accepted:
    """The answer of :meth:`Inbox.accept`.

    Attributes:
        admission: what happened.
        delivery: the delivery id the body was first accepted under.
        state: that row's state (``pending``, ``done``, ``failed``).
    """

    admission: Admission
    delivery: str
    state: str


@dataclass(frozen=True, slots=True)
class InboxItem:
    """One pending delivery, as a worker sees it.

    Attributes:
        seq: its place in the inbox (the commit order of acceptances).
        received_at: when it was accepted (seconds since the epoch).
        lane: its lane (:mod:`ghattempt.app.lanes`).
    """

    seq: int
    delivery: str
    event: str
    action: str | None
    body: bytes
    tries: int
    not_before: float
    received_at: float = 0.0
    lane: str = "legacy"


@dataclass(frozen=True, slots=True)
class Claim:
    """A lane a worker holds, with its due head. Release it with :meth:`Inbox.release`."""

    lane: str
    item: InboxItem


_ITEM_COLUMNS = "seq, delivery, event, action, body, tries, not_before, received_at, lane"


def _item(row: Sequence[Any]) -> InboxItem:
    return InboxItem(int(row[0]), row[1], row[2], row[3], bytes(row[4]), int(row[5]),
                     float(row[6]), float(row[7]), row[8])


class _Submission:
    """One delivery waiting for the committer thread."""

    __slots__ = ("action", "body", "decision", "delivery", "digest", "done", "error", "event",
                 "result")

    def __init__(self, delivery: str, event: str, action: str | None, body: bytes,
                 decision: Decision) -> None:
        self.delivery = delivery
        self.event = event
        self.action = action
        self.body = body
        self.decision = decision
        self.digest = hashlib.sha256(body).hexdigest()
        self.done = threading.Event()
        self.result: Accepted | None = None
        self.error: BaseException | None = None


class _Ready:
    """Asks the committer thread to open its connection (:meth:`Inbox.start`)."""

    __slots__ = ("done", "error")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.error: BaseException | None = None


class _Conn:
    """One database connection behind the same four calls (statements are written with
    ``?`` placeholders, SQLite's; no statement of the inbox holds a literal ``?`` or
    ``%``)."""

    begin = "BEGIN"

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.raw.execute(sql, tuple(params))

    def script(self, sql: str) -> None:
        self.raw.execute(sql)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[_Conn]:
        self.raw.execute(self.begin)
        try:
            yield self
        except BaseException:
            with contextlib.suppress(Exception):
                self.raw.execute("ROLLBACK")
            raise
        self.raw.execute("COMMIT")

    @property
    def usable(self) -> bool:
        return True

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.raw.close()


class _SqliteConn(_Conn):
    begin = "BEGIN IMMEDIATE"

    def script(self, sql: str) -> None:
        self.raw.executescript(sql)


class _PostgresConn(_Conn):
    """psycopg's placeholders are ``%s``."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.raw.execute(sql.replace("?", "%s"), tuple(params))

    @property
    def usable(self) -> bool:
        return not (self.raw.closed or self.raw.broken)


def open_inbox(location: Path | str, **options: Any) -> Inbox:
    """The inbox at ``location``: a :class:`PostgresInbox` for a ``postgresql://`` (or
    ``postgres://``) URL, else a :class:`SqliteInbox` for the file (``options``: the
    backend's).

    Raises:
        InboxUnavailable: the inbox cannot be opened or migrated.
    """
    if is_postgres_url(location):
        return PostgresInbox(str(location), **options)
    return SqliteInbox(Path(location), **options)


class Inbox(abc.ABC):
    """The inbox (module docstring): what the server and the workers need of it, over a
    backend's connections (:class:`SqliteInbox`, :class:`PostgresInbox`).

    Thread-safe: one connection per thread, short transactions. Acceptances are
    group-committed: one committer thread takes every delivery waiting at that moment,
    records them in one transaction and commits once, so a slow disk costs one sync per
    batch, not per delivery. SQLite: the workers' writes (done marks, the head index)
    commit without their own fsync (``synchronous=NORMAL``: still atomic and
    consistent; a power loss can at worst undo a done mark, and the delivery is then
    redone, a no-op); checkpoints are not automatic: the workers run passive ones
    (:meth:`checkpoint`), which do not block acceptances.

    Args:
        location: where the inbox is (the backend's: a file, a connection URL).
        busy_timeout: seconds a writer waits for another process's lock (SQLite).
        max_batch: most deliveries committed by one transaction.

    Raises:
        InboxUnavailable: the inbox cannot be opened or migrated.
    """

    kind: str
    """``sqlite`` or ``postgresql``."""
    errors: tuple[type[BaseException], ...]
    """The backend driver's errors."""
    _migrations: dict[int, str]
    """The schema script of each version, in the backend's types."""

    def __init__(self, location: Path | str, *, busy_timeout: float = 10.0,
                 max_batch: int = 256) -> None:
        self.location = location
        self._busy_ms = int(busy_timeout * 1000)
        self._max_batch = max_batch
        self._local = threading.local()
        # every connection by the thread it belongs to: those of threads that ended
        # (a web server's pool threads come and go) are closed when the next one opens
        self._connections: dict[threading.Thread, _Conn] = {}
        self._connections_lock = threading.Lock()
        # SQLite: all writers of one process queue on this lock instead of meeting in
        # SQLite's busy handler, which sleeps in growing steps (up to 100 ms) and would
        # let the workers' steady writes starve an acceptance waiting to answer GitHub.
        # PostgreSQL has row locks; the lock is not taken there.
        self._write = threading.Lock()
        self._held: set[str] = set()  # the lanes held in this process
        self._held_lock = threading.Lock()
        self._submissions: queue.SimpleQueue[_Submission | _Ready | None] = queue.SimpleQueue()
        self._committer: threading.Thread | None = None
        self._committer_lock = threading.Lock()
        self._prepare()
        try:
            self.schema_found = self.migrate()
            """The schema version the inbox had when it was opened (0: new)."""
        except self.errors as exc:
            self.close()
            raise InboxUnavailable(f"cannot open {self._where()}: {type(exc).__name__}: "
                                   f"{str(exc).strip()}") from None
        self.close_connection()  # the opening thread may never use the inbox again

    # -- what a backend is -----------------------------------------------------------

    @abc.abstractmethod
    def _prepare(self) -> None:
        """Before the first connection (SQLite: the file's directory)."""

    @abc.abstractmethod
    def _where(self) -> str:
        """The inbox in a message (never a password)."""

    @abc.abstractmethod
    def _connect(self, *, durable: bool) -> _Conn:
        """A new connection of the calling thread (``durable``: acceptances' commits)."""

    @abc.abstractmethod
    def _writer(self) -> contextlib.AbstractContextManager[object]:
        """Held around each write transaction (SQLite: one writer of this process at a
        time)."""

    @abc.abstractmethod
    def _migrating(self, conn: _Conn) -> None:
        """At the start of the migration's transaction (PostgreSQL: one replica at a
        time)."""

    @abc.abstractmethod
    def _has_table(self, conn: _Conn, name: str) -> bool:
        """Whether the database holds table ``name``."""

    @abc.abstractmethod
    def _accepted(self, conn: _Conn) -> None:
        """In the transaction that accepted new deliveries (PostgreSQL: wake the other
        replicas' workers)."""

    @abc.abstractmethod
    def _hold_across(self, conn: _Conn, lane: str) -> bool:
        """Hold ``lane`` against other processes too (held in this one already)."""

    @abc.abstractmethod
    def _release_across(self, lane: str) -> None:
        """Let ``lane`` go for other processes."""

    @abc.abstractmethod
    def _serialize(self, conn: _Conn, name: str) -> None:
        """In a write transaction: no other process's transaction that serializes on
        ``name`` runs until this one ends (SQLite: its write lock already does that)."""

    # -- connections ---------------------------------------------------------------

    def _open(self, *, durable: bool) -> _Conn:
        conn = self._connect(durable=durable)
        with self._connections_lock:
            ended = [t for t in self._connections if not t.is_alive()]
            stale = [self._connections.pop(t) for t in ended]
            self._connections[threading.current_thread()] = conn
        for old in stale:
            old.close()
        return conn

    def _conn(self, *, durable: bool = False) -> _Conn:
        conn: _Conn | None = getattr(self._local, "conn", None)
        if conn is not None and not conn.usable:
            self._forget(conn)
            conn = None
        if conn is None:
            conn = self._open(durable=durable)
            self._local.conn = conn
        return conn

    def _forget(self, conn: _Conn) -> None:
        conn.close()
        with self._connections_lock:
            for thread, known in list(self._connections.items()):
                if known is conn:
                    del self._connections[thread]
        if getattr(self._local, "conn", None) is conn:
            self._local.conn = None

    def close(self) -> None:
        """Stop the committer (after the deliveries it holds) and close every connection
        this inbox opened (the lanes they held are free again)."""
        with self._committer_lock:
            if self._committer is not None:
                self._submissions.put(None)
                self._committer.join(10)
                self._committer = None
        with self._connections_lock:
            conns = list(self._connections.values())
            self._connections.clear()
        for conn in conns:
            conn.close()
        self._local = threading.local()

    def close_connection(self) -> None:
        """Close the calling thread's connection, if it has one (PostgreSQL: the lanes
        it held are free again)."""
        conn: _Conn | None = getattr(self._local, "conn", None)
        if conn is not None:
            self._forget(conn)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[_Conn]:
        """A write transaction on this thread's connection (SQLite: one writer of this
        process at a time)."""
        conn = self._conn()
        try:
            with self._writer(), conn.transaction():
                yield conn
        except self.errors:
            if not conn.usable:
                self._forget(conn)
            raise

    # -- schema ----------------------------------------------------------------------

    def migrate(self) -> int:
        """Bring the schema to :data:`SCHEMA_VERSION`; returns the version found.

        Idempotent. PostgreSQL replicas starting together migrate one at a time (an
        advisory lock held for the transaction).

        Raises:
            InboxUnavailable: the inbox has a newer schema than this version of ghattempt.
        """
        conn = self._conn()
        steps = self._migrations
        with self._writer():
            with conn.transaction():
                self._migrating(conn)
                conn.execute("CREATE TABLE IF NOT EXISTS inbox_schema (version INTEGER NOT "
                             "NULL)")
                row = conn.execute("SELECT MAX(version) FROM inbox_schema").fetchone()
                found = int(row[0]) if row and row[0] is not None else 0
                if found == 0 and self._has_table(conn, "deliveries"):
                    found = 1  # an inbox made before versions were recorded
                if found > SCHEMA_VERSION:
                    raise InboxUnavailable(
                        f"the inbox has schema version {found}, newer than this ghattempt "
                        f"({SCHEMA_VERSION}): run the newer version, or a fresh inbox")
                for version in range(found + 1, SCHEMA_VERSION + 1):
                    for statement in _statements(steps[version]):
                        conn.execute(statement)
                    log.info("inbox schema migrated to version %d", version)
                if found < SCHEMA_VERSION:
                    conn.execute("DELETE FROM inbox_schema")
                    conn.execute("INSERT INTO inbox_schema VALUES (?)", (SCHEMA_VERSION,))
        return found

    # -- the server side -------------------------------------------------------------

    def accept(
        self,
        delivery: str,
        event: str,
        action: str | None,
        body: bytes,
        *,
        payload: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Accepted:
        """Record a delivery durably, or say why it is not new (module docstring).

        Blocks until the row is committed (group commit).

        Args:
            payload: the parsed body, if the caller has it (it decides the lane;
                parsed here otherwise).
            timeout: seconds to wait for the commit; ``None`` waits as long as it takes.

        Raises:
            sqlite3.Error, psycopg.Error: the inbox could not record it (the delivery is
                not accepted).
            TimeoutError: no commit within ``timeout``. The delivery may still be
                recorded later; a redelivery then finds it (no second effect).
        """
        if payload is None:
            try:
                parsed = json.loads(body)
            except (ValueError, RecursionError):
                parsed = None
            payload = parsed if isinstance(parsed, dict) else {}
        submission = _Submission(delivery, event, action, body, decide(event, payload, delivery))
        with self._committer_lock:
            self._start_committer()
            self._submissions.put(submission)
        if not submission.done.wait(timeout):
            raise TimeoutError(f"the inbox did not commit within {timeout} s")
        if submission.error is not None:
            raise submission.error
        assert submission.result is not None
        return submission.result

    def start(self) -> None:
        """Start the committer and open its connection now, not at the first acceptance
        (the server does this at start: an acceptance then needs no new file descriptor
        for the database, which a flood of open connections may have used up)."""
        with self._committer_lock:
            self._start_committer()
        ready = _Ready()
        self._submissions.put(ready)
        ready.done.wait(30)
        if ready.error is not None:
            raise ready.error

    def _start_committer(self) -> None:
        if self._committer is None or not self._committer.is_alive():
            self._committer = threading.Thread(
                target=self._commit_loop, name="ghattempt-inbox-commit", daemon=True
            )
            self._committer.start()

    def _commit_loop(self) -> None:
        try:
            while True:
                first = self._submissions.get()
                if first is None:
                    return
                batch = [first]
                stop = False
                while len(batch) < self._max_batch:
                    try:
                        nxt = self._submissions.get_nowait()
                    except queue.Empty:
                        break
                    if nxt is None:
                        stop = True
                        break
                    batch.append(nxt)
                self._commit(batch)
                if stop:
                    return
        finally:
            self.close_connection()

    def _commit(self, waiting: list[_Submission | _Ready]) -> None:
        try:
            conn = self._conn(durable=True)
        except Exception as exc:
            for waiter in waiting:
                waiter.error = exc
                waiter.done.set()
            return
        batch = [item for item in waiting if isinstance(item, _Submission)]
        for waiter in waiting:
            if isinstance(waiter, _Ready):
                waiter.done.set()
        if not batch:
            return
        try:
            with self._writer():
                with conn.transaction():
                    results = [self._admit(conn, item) for item in batch]
                    if any(r.admission is Admission.NEW for r in results):
                        self._accepted(conn)
        except Exception as exc:
            conn_now: _Conn | None = getattr(self._local, "conn", None)
            if conn_now is not None and not conn_now.usable:
                self._forget(conn_now)
            for item in batch:
                item.error = exc
                item.done.set()
            return
        for item, result in zip(batch, results, strict=True):
            item.result = result
            item.done.set()

    def _admit(self, conn: _Conn, item: _Submission) -> Accepted:
        now = time.time()
        lane = self._lane(conn, item.decision)
        row = conn.execute(
            "INSERT INTO deliveries (delivery, event, action, body_sha256, body, received_at, "
            "state, lane) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT DO NOTHING "
            "RETURNING seq",
            (item.delivery, item.event, item.action, item.digest, item.body, now, lane),
        ).fetchone()
        if row is None:
            found = conn.execute(
                "SELECT delivery, body_sha256, state FROM deliveries WHERE delivery = ? "
                "OR body_sha256 = ? ORDER BY seq LIMIT 1",
                (item.delivery, item.digest),
            ).fetchone()
            if found is None:  # pragma: no cover - a unique key held the insert back
                raise RuntimeError(f"delivery {item.delivery}: not recorded and not found")
            if found[0] == item.delivery:
                kind = Admission.DUPLICATE if found[1] == item.digest else Admission.CONFLICT
            else:
                kind = Admission.REPLAY
            return Accepted(kind, found[0], found[2])
        for claim in item.decision.claims:
            conn.execute(
                "INSERT INTO lane_heads VALUES (?, ?, ?, ?) ON CONFLICT (repository_id, "
                "head_sha) DO UPDATE SET lane = excluded.lane, claimed_at = excluded.claimed_at",
                (claim.repository_id, claim.head_sha, claim.lane, now),
            )
        return Accepted(Admission.NEW, item.delivery, "pending")

    def _lane(self, conn: _Conn, decision: Decision) -> str:
        if decision.head is None:
            return decision.lane
        row = conn.execute(
            "SELECT lane FROM lane_heads WHERE repository_id = ? AND head_sha = ?",
            decision.head,
        ).fetchone()
        return str(row[0]) if row is not None else decision.lane

    # -- the worker side -------------------------------------------------------------

    def claim(self, now: float) -> Claim | None:
        """Hold the lane of the oldest due delivery that heads a lane no one holds.

        A lane's head is its oldest pending delivery; it is due when its
        ``not_before`` has passed. Returns ``None`` when no lane is free and due.
        Release the lane with :meth:`release` on the same thread.
        """
        conn = self._conn()
        offset = 0
        while True:  # a page of candidates at a time: other workers hold some of them
            rows = conn.execute(
                "SELECT d.lane FROM deliveries d JOIN (SELECT lane, MIN(seq) AS head FROM "
                "deliveries WHERE state = 'pending' GROUP BY lane) h ON d.seq = h.head "
                "WHERE d.not_before <= ? ORDER BY d.seq LIMIT ? OFFSET ?",
                (now, _CANDIDATES, offset),
            ).fetchall()
            for (lane,) in rows:
                if not self._hold(conn, lane):
                    continue
                item = self.head_of(lane)
                if item is not None and item.not_before <= now:
                    return Claim(lane, item)
                self.release(lane)
            if len(rows) < _CANDIDATES:
                return None
            offset += _CANDIDATES

    def head_of(self, lane: str) -> InboxItem | None:
        """The oldest pending delivery of ``lane`` (due or not), or ``None``."""
        row = self._conn().execute(
            f"SELECT {_ITEM_COLUMNS} FROM deliveries WHERE lane = ? AND state = 'pending' "  # noqa: S608
            "ORDER BY seq LIMIT 1",
            (lane,),
        ).fetchone()
        return _item(row) if row is not None else None

    def _hold(self, conn: _Conn, lane: str) -> bool:
        # in this process first (a PostgreSQL session may take its own advisory lock
        # twice), then, for PostgreSQL, across replicas
        with self._held_lock:
            if lane in self._held:
                return False
            self._held.add(lane)
        got = False
        try:
            got = self._hold_across(conn, lane)
        finally:
            if not got:
                with self._held_lock:
                    self._held.discard(lane)
        return got

    def release(self, lane: str) -> None:
        """Let go of a lane held by :meth:`claim` (on the thread that claimed it)."""
        try:
            self._release_across(lane)
        finally:
            with self._held_lock:
                self._held.discard(lane)

    def next_pending(self) -> InboxItem | None:
        """The oldest pending delivery of any lane (arrival order), or ``None``."""
        row = self._conn().execute(
            f"SELECT {_ITEM_COLUMNS} FROM deliveries WHERE state = 'pending' "  # noqa: S608
            "ORDER BY seq LIMIT 1"
        ).fetchone()
        return _item(row) if row is not None else None

    def due_in(self, now: float) -> float | None:
        """Seconds until the earliest held-back lane head is due (0 if one is due now),
        or ``None`` when nothing is pending."""
        row = self._conn().execute(
            "SELECT MIN(d.not_before) FROM deliveries d JOIN (SELECT lane, MIN(seq) AS head "
            "FROM deliveries WHERE state = 'pending' GROUP BY lane) h ON d.seq = h.head"
        ).fetchone()
        if row is None or row[0] is None:
            return None
        return max(0.0, float(row[0]) - now)

    def finish(
        self,
        seq: int,
        outcome: object,
        index: Iterable[Remember | Forget] = (),
        *,
        failed: bool = False,
    ) -> None:
        """Mark a delivery done (or failed) and apply its head-index changes, atomically.

        A delivery already finished (by another replica that took over) stays as it is.
        """
        now = time.time()
        with self._writing() as conn:
            for change in index:
                if isinstance(change, Remember):
                    it = change.intent
                    conn.execute(
                        "INSERT INTO heads VALUES (?, ?, ?, ?, ?) ON CONFLICT "
                        "(repository_id, pull_request, base_ref) DO UPDATE SET "
                        "head_sha = excluded.head_sha, repository_name = excluded.repository_name",
                        (it.repository_id, it.pull_request, it.base_ref, it.repository_name,
                         change.head_sha),
                    )
                    conn.execute(
                        "INSERT INTO head_history VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT "
                        "(repository_id, head_sha, pull_request, base_ref) DO UPDATE SET "
                        "seen_at = excluded.seen_at",
                        (it.repository_id, change.head_sha, it.pull_request, it.base_ref,
                         it.repository_name, now),
                    )
                elif change.base_ref is None:
                    conn.execute(
                        "DELETE FROM heads WHERE repository_id = ? AND pull_request = ?",
                        (change.repository_id, change.pull_request),
                    )
                else:
                    conn.execute(
                        "DELETE FROM heads WHERE repository_id = ? AND pull_request = ? "
                        "AND base_ref = ?",
                        (change.repository_id, change.pull_request, change.base_ref),
                    )
            conn.execute(
                "UPDATE deliveries SET state = ?, outcome = ?, finished_at = ? "
                "WHERE seq = ? AND state = 'pending'",
                ("failed" if failed else "done", json.dumps(outcome, sort_keys=True), now, seq),
            )

    def postpone(self, seq: int, not_before: float, note: str, *,
                 lane: str | None = None) -> None:
        """Count one more try of a pending delivery and hold it until ``not_before``;
        with ``lane``, move it to that lane (it stops holding back its old one)."""
        with self._writing() as conn:
            if lane is None:
                conn.execute(
                    "UPDATE deliveries SET tries = tries + 1, not_before = ?, outcome = ? "
                    "WHERE seq = ? AND state = 'pending'",
                    (not_before, json.dumps({"retrying": note}), seq),
                )
            else:
                conn.execute(
                    "UPDATE deliveries SET tries = tries + 1, not_before = ?, outcome = ?, "
                    "lane = ? WHERE seq = ? AND state = 'pending'",
                    (not_before, json.dumps({"waiting": note}), lane, seq),
                )

    @abc.abstractmethod
    def checkpoint(self) -> None:
        """Copy what the backend logged ahead into the database, without blocking writers
        (SQLite); nothing to do where the database checkpoints itself (PostgreSQL)."""

    def lookup_heads(self, repository_id: str, head_sha: str) -> Sequence[IntentRef]:
        """The intents whose pull request has ``head_sha`` as head now, or else the ones
        whose pull request had it before (a result for an older head goes to the store,
        which refuses it at once instead of waiting for a pull request that never
        comes)."""
        conn = self._conn()
        rows = conn.execute(
            "SELECT repository_name, pull_request, base_ref FROM heads "
            "WHERE repository_id = ? AND head_sha = ? ORDER BY pull_request, base_ref",
            (repository_id, head_sha),
        ).fetchall()
        if not rows:
            rows = conn.execute(
                "SELECT repository_name, pull_request, base_ref FROM head_history "
                "WHERE repository_id = ? AND head_sha = ? ORDER BY pull_request, base_ref",
                (repository_id, head_sha),
            ).fetchall()
        return [IntentRef(repository_id, r[0], r[1], r[2]) for r in rows]

    # -- catching up -----------------------------------------------------------------

    def knows(self, delivery: str) -> bool:
        """Whether a delivery with this id was ever accepted (within the retention)."""
        row = self._conn().execute("SELECT 1 FROM deliveries WHERE delivery = ?",
                                   (delivery,)).fetchone()
        return row is not None

    def meta(self, name: str) -> str | None:
        """A value the App keeps in the inbox (the catch-up's horizon), or ``None``."""
        row = self._conn().execute("SELECT value FROM inbox_meta WHERE name = ?",
                                   (name,)).fetchone()
        return str(row[0]) if row is not None else None

    def set_meta(self, name: str, value: str) -> None:
        """Set :meth:`meta` ``name``."""
        with self._writing() as conn:
            conn.execute("INSERT INTO inbox_meta VALUES (?, ?) ON CONFLICT (name) DO UPDATE "
                         "SET value = excluded.value", (name, value))

    def redelivery_requests(self, guid: str) -> int:
        """How many redeliveries of ``guid`` this App asked GitHub for."""
        row = self._conn().execute("SELECT requests FROM redeliveries WHERE guid = ?",
                                   (guid,)).fetchone()
        return int(row[0]) if row is not None else 0

    def record_redelivery(self, guid: str, now: float) -> None:
        """Count one redelivery request of ``guid``."""
        with self._writing() as conn:
            conn.execute("INSERT INTO redeliveries VALUES (?, ?, 1) ON CONFLICT (guid) DO "
                         "UPDATE SET requested_at = excluded.requested_at, "
                         "requests = redeliveries.requests + 1", (guid, now))

    @abc.abstractmethod
    def leading(self, name: str) -> contextlib.AbstractContextManager[bool]:
        """Whether this replica leads the task ``name`` for the block: one process at a
        time."""

    @abc.abstractmethod
    def wait_for_work(self, stop: threading.Event, notify: Callable[[], None],
                      timeout: float = 5.0) -> None:
        """Wait for other replicas' acceptances until ``stop`` is set, calling ``notify``
        for each (PostgreSQL); returns at once where acceptances wake the workers in
        process (SQLite)."""

    # -- the content-creation budget ----------------------------------------------------

    def take_content(self, actor: str, now: float, windows: Sequence[tuple[float, int]],
                     grace: float, *, count: int = 1, take: bool = True,
                     reserve: str | None = None) -> tuple[int | None, float]:
        """Take a place for one content-creating request of ``actor`` at ``now`` (or
        reserve ``count`` places for ``reserve``) if every window allows ``count`` more;
        one transaction, serialized across processes.

        A place counts in a window of ``W`` seconds at ``T`` while it may still count at
        GitHub: settled (answered) after ``T - W``, or unsettled (reserved, or on its
        way) and taken after ``T - W - grace`` (``grace``: the longest a request can be
        on its way). Rows that count in no window are deleted.

        Args:
            windows: ``(seconds, most requests)`` pairs (GitHub's: 60 s 80, 3600 s 500).
            count: the places that must be free.
            take: take them (else only look whether ``count`` would fit).
            reserve: reserve the ``count`` places for this name instead of taking one
                (:meth:`use_reserved` takes them, :meth:`release_reserved` frees the rest).

        Returns:
            ``(row, 0.0)`` with the place taken (``None`` when ``take`` is false or the
            places were reserved), or ``(None, seconds)`` to wait until ``count`` more
            may fit.
        """
        longest = max(seconds for seconds, _ in windows)
        if not 1 <= count <= min(most for _, most in windows):
            raise ValueError(f"count must be between 1 and every window's limit, not {count}")
        with self._writing() as conn:
            self._serialize(conn, "budget:" + actor)
            conn.execute(
                "DELETE FROM content_budget WHERE actor = ? AND "
                "COALESCE(settled_at, taken_at + ?) <= ?", (actor, grace, now - longest))
            stamps = sorted(float(r[0]) for r in conn.execute(
                "SELECT COALESCE(settled_at, taken_at + ?) FROM content_budget "
                "WHERE actor = ?", (grace, actor)).fetchall())
            wait = 0.0
            for seconds, most in windows:
                counted = [t for t in stamps if t > now - seconds]
                over = len(counted) + count - most
                if over > 0:  # the over-th oldest must leave the window first
                    wait = max(wait, counted[over - 1] + seconds - now, 0.001)
            if wait > 0:
                return None, wait
            if not take:
                return None, 0.0
            if reserve is not None:
                for _ in range(count):
                    conn.execute("INSERT INTO content_budget (actor, taken_at, reserved_by) "
                                 "VALUES (?, ?, ?)", (actor, now, reserve))
                return None, 0.0
            row = conn.execute("INSERT INTO content_budget (actor, taken_at) VALUES (?, ?) "
                               "RETURNING id", (actor, now)).fetchone()
        return int(row[0]), 0.0

    def use_reserved(self, reservation: str, now: float, fresh_after: float) -> int | None:
        """Take one place ``reservation`` reserved after ``fresh_after`` for a request
        sent at ``now``; ``None`` when it has none left."""
        with self._writing() as conn:
            row = conn.execute(
                "UPDATE content_budget SET reserved_by = NULL, taken_at = ? WHERE id = "
                "(SELECT id FROM content_budget WHERE reserved_by = ? AND taken_at > ? "
                "ORDER BY id LIMIT 1) RETURNING id", (now, reservation, fresh_after)).fetchone()
        return None if row is None else int(row[0])

    def reserved_left(self, reservation: str, fresh_after: float) -> int:
        """The places ``reservation`` reserved after ``fresh_after`` and has not used."""
        row = self._conn().execute(
            "SELECT COUNT(*) FROM content_budget WHERE reserved_by = ? AND taken_at > ?",
            (reservation, fresh_after)).fetchone()
        return int(row[0])

    def release_reserved(self, reservation: str) -> None:
        """Free the places ``reservation`` did not use."""
        with self._writing() as conn:
            conn.execute("DELETE FROM content_budget WHERE reserved_by = ?", (reservation,))

    def settle_content(self, row: int, now: float) -> None:
        """The request of place ``row`` was answered (or failed) at ``now``."""
        with self._writing() as conn:
            conn.execute("UPDATE content_budget SET settled_at = ? WHERE id = ?", (now, row))

    # -- operations ------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """Number of deliveries per state."""
        rows = self._conn().execute(
            "SELECT state, COUNT(*) FROM deliveries GROUP BY state"
        ).fetchall()
        counts = {"pending": 0, "done": 0, "failed": 0}
        counts.update({r[0]: int(r[1]) for r in rows})
        return counts

    def state_of(self, delivery: str) -> tuple[str, object] | None:
        """``(state, outcome)`` of one delivery, or ``None`` if unknown."""
        row = self._conn().execute(
            "SELECT state, outcome FROM deliveries WHERE delivery = ?", (delivery,)
        ).fetchone()
        if row is None:
            return None
        return row[0], (json.loads(row[1]) if row[1] else None)

    def requeue_failed(self) -> int:
        """Put every failed delivery back to pending; returns how many."""
        with self._writing() as conn:
            cur = conn.execute(
                "UPDATE deliveries SET state = 'pending', tries = 0, not_before = 0 "
                "WHERE state = 'failed'"
            )
        return int(cur.rowcount)

    def prune(self, older_than: float = RETENTION_SECONDS) -> int:
        """Delete finished deliveries received more than ``older_than`` seconds ago, and
        heads and redelivery requests as old; returns the deliveries deleted."""
        horizon = time.time() - older_than
        with self._writing() as conn:
            cur = conn.execute(
                "DELETE FROM deliveries WHERE state != 'pending' AND received_at < ?",
                (horizon,),
            )
            conn.execute("DELETE FROM head_history WHERE seen_at < ?", (horizon,))
            conn.execute("DELETE FROM lane_heads WHERE claimed_at < ?", (horizon,))
            conn.execute("DELETE FROM redeliveries WHERE requested_at < ?", (horizon,))
        return int(cur.rowcount)


class SqliteInbox(Inbox):
    """The inbox in a SQLite file (one server process; ``GHATTEMPT_APP_STATE``), created
    with its parent directory if absent. WAL; acceptances commit with
    ``synchronous=FULL`` (fsynced), the workers' writes with ``NORMAL``."""

    kind = "sqlite"
    errors = (sqlite3.Error,)
    _migrations = {1: _V1, 2: _V2, 3: _V3}

    def __init__(self, path: Path | str, *, busy_timeout: float = 10.0,
                 max_batch: int = 256) -> None:
        self.path = Path(path)
        super().__init__(self.path, busy_timeout=busy_timeout, max_batch=max_batch)

    def __repr__(self) -> str:
        return f"SqliteInbox({self.path})"

    def _where(self) -> str:
        return str(self.path)

    def _prepare(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def _connect(self, *, durable: bool) -> _Conn:
        raw = sqlite3.connect(self.path, isolation_level=None,
                              timeout=self._busy_ms / 1000, check_same_thread=False)
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        raw.execute(f"PRAGMA busy_timeout={self._busy_ms}")
        # no automatic checkpoints: they would run inside whichever commit crosses the
        # threshold, often an acceptance; the workers run them (checkpoint())
        raw.execute("PRAGMA wal_autocheckpoint=0")
        return _SqliteConn(raw)

    def _writer(self) -> contextlib.AbstractContextManager[object]:
        return self._write

    def _migrating(self, conn: _Conn) -> None:
        return None  # one process: the writer lock is enough

    def _accepted(self, conn: _Conn) -> None:
        return None  # the workers are in this process: the acceptance wakes them

    def _hold_across(self, conn: _Conn, lane: str) -> bool:
        return True  # one process

    def _release_across(self, lane: str) -> None:
        return None

    def _serialize(self, conn: _Conn, name: str) -> None:
        return None  # BEGIN IMMEDIATE: one writer at a time already

    @contextlib.contextmanager
    def leading(self, name: str) -> Iterator[bool]:
        """One process: it always leads."""
        yield True

    def wait_for_work(self, stop: threading.Event, notify: Callable[[], None],
                      timeout: float = 5.0) -> None:
        """Returns at once: acceptances wake the workers in process."""
        return None

    def _has_table(self, conn: _Conn, name: str) -> bool:
        row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                           (name,)).fetchone()
        return row is not None

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database without blocking writers
        (``wal_checkpoint(PASSIVE)``); acceptances go on committing meanwhile."""
        self._conn().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()


class PostgresInbox(Inbox):
    """The inbox in a PostgreSQL database (``GHATTEMPT_APP_DATABASE``; psycopg 3), shared
    by any number of replicas: a connection URL (``postgresql://user@host:5432/db``;
    libpq's parameters and environment apply). Lanes are held with session advisory
    locks, the migration and the leading tasks with advisory locks too, and an
    acceptance notifies the other replicas' workers (``LISTEN``/``NOTIFY``)."""

    kind = "postgresql"
    _migrations = {1: _postgres(_V1), 2: _postgres(_V2), 3: _postgres(_V3)}

    def __init__(self, url: str, *, busy_timeout: float = 10.0,
                 max_batch: int = 256) -> None:
        import psycopg

        self.errors = (psycopg.Error,)
        super().__init__(url, busy_timeout=busy_timeout, max_batch=max_batch)

    def __repr__(self) -> str:
        return "PostgresInbox(PostgreSQL)"

    def _where(self) -> str:
        return "the PostgreSQL inbox"

    def _prepare(self) -> None:
        return None

    def _writer(self) -> contextlib.AbstractContextManager[object]:
        return contextlib.nullcontext()  # PostgreSQL has row locks

    def checkpoint(self) -> None:
        """PostgreSQL checkpoints itself: nothing to do."""
        return None

    def _connect(self, *, durable: bool) -> _Conn:
        import psycopg

        return _PostgresConn(psycopg.connect(str(self.location), autocommit=True,
                                             application_name="ghattempt-app"))

    def _migrating(self, conn: _Conn) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(?, ?)", (_LOCK_CLASS, _MIGRATE_LOCK))

    def _has_table(self, conn: _Conn, name: str) -> bool:
        row = conn.execute("SELECT to_regclass(?)", (name,)).fetchone()
        return row is not None and row[0] is not None

    def _accepted(self, conn: _Conn) -> None:
        conn.execute(f"NOTIFY {NOTIFY_CHANNEL}")

    def _hold_across(self, conn: _Conn, lane: str) -> bool:
        # a PostgreSQL session may take its own advisory lock twice: held in this
        # process first (Inbox._hold), then across replicas
        return bool(conn.execute("SELECT pg_try_advisory_lock(?, hashtext(?))",
                                 (_LOCK_CLASS, lane)).fetchone()[0])

    def _release_across(self, lane: str) -> None:
        conn: _Conn | None = getattr(self._local, "conn", None)
        if conn is not None and conn.usable:
            conn.execute("SELECT pg_advisory_unlock(?, hashtext(?))", (_LOCK_CLASS, lane))

    def _serialize(self, conn: _Conn, name: str) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))", (_LOCK_CLASS, name))

    @contextlib.contextmanager
    def leading(self, name: str) -> Iterator[bool]:
        """Whether this replica leads the task ``name`` for the block: a session advisory
        lock that one replica at a time holds (the others get ``False``)."""
        conn = self._conn()
        got = bool(conn.execute("SELECT pg_try_advisory_lock(?, hashtext(?))",
                                (_LOCK_CLASS, "task:" + name)).fetchone()[0])
        try:
            yield got
        finally:
            if got and conn.usable:
                conn.execute("SELECT pg_advisory_unlock(?, hashtext(?))",
                             (_LOCK_CLASS, "task:" + name))

    def wait_for_work(self, stop: threading.Event, notify: Callable[[], None],
                      timeout: float = 5.0) -> None:
        """Wait on the acceptances' notifications (``LISTEN``) until ``stop`` is set,
        calling ``notify`` for each (a replica accepted something). Runs in a thread of
        its own; listens again after ``timeout`` when the connection drops."""
        import psycopg

        while not stop.is_set():
            try:
                with psycopg.connect(str(self.location), autocommit=True,
                                     application_name="ghattempt-app-listen") as conn:
                    conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    while not stop.is_set():
                        for _ in conn.notifies(timeout=1.0, stop_after=1):
                            notify()
            except psycopg.Error as exc:
                log.warning("inbox notifications interrupted (%s); listening again", exc)
                stop.wait(timeout)


def _statements(script: str) -> list[str]:
    """The statements of a migration script (none of them holds a ``;``)."""
    return [s.strip() for s in script.split(";") if s.strip()]
