"""The durable inbox: accepted deliveries, written to SQLite before GitHub gets an answer.

A delivery is *accepted* when its row is committed (WAL, ``synchronous=FULL``: the
commit is fsynced). Only then does the server answer 202. The worker takes pending rows
in arrival order, and marks one ``done`` (or ``failed``) in the same transaction that
applies its head-index changes. A crash between the sink's effect and that mark makes
the worker redo the delivery after restart; the sink's idempotency keys make the redo
a no-op (the idempotency note: at-least-once delivery plus idempotent effects).

Deduplication (the horizon is :data:`RETENTION_SECONDS`; GitHub keeps deliveries
redeliverable for 3 days):

- the same ``X-GitHub-Delivery`` with the same body: a redelivery, acknowledged again
  with no new work;
- the same delivery id with another body: refused (:attr:`Admission.CONFLICT`);
- the same body (SHA-256) under another delivery id: a replay (the delivery header is
  not covered by the signature), acknowledged with no new work.

States: ``pending`` -> ``done`` | ``failed``; ``failed`` rows keep their error for an
operator and can be put back with :meth:`Inbox.requeue_failed`.
"""

from __future__ import annotations

import enum
import hashlib
import json
import queue
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ghattempt.app.routing import Forget, Remember
from ghattempt.app.sink import IntentRef

__all__ = ["RETENTION_SECONDS", "Admission", "Inbox", "InboxItem", "Accepted"]

RETENTION_SECONDS = 14 * 24 * 3600
"""How long finished deliveries are kept for deduplication (longer than GitHub's 3-day
redelivery window)."""

_SCHEMA = """
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
    """One pending delivery, as the worker sees it."""

    seq: int
    delivery: str
    event: str
    action: str | None
    body: bytes
    tries: int
    not_before: float


class _Submission:
    """One delivery waiting for the committer thread."""

    __slots__ = ("action", "body", "delivery", "digest", "done", "error", "event", "result")

    def __init__(self, delivery: str, event: str, action: str | None, body: bytes) -> None:
        self.delivery = delivery
        self.event = event
        self.action = action
        self.body = body
        self.digest = hashlib.sha256(body).hexdigest()
        self.done = threading.Event()
        self.result: Accepted | None = None
        self.error: BaseException | None = None


class Inbox:
    """A SQLite inbox file. Thread-safe: one connection per thread, short transactions.

    Acceptances are group-committed: one committer thread takes every delivery waiting
    at that moment, records them in one transaction and syncs once (``synchronous=FULL``),
    so a slow disk costs one fsync per batch, not per delivery. The worker's writes
    (done marks, the head index) commit without their own fsync (``synchronous=NORMAL``:
    still atomic and consistent, and a power loss can at worst undo a done mark, which
    makes the worker redo an idempotent delivery); the next acceptance's sync covers
    them. Checkpoints are not automatic: the worker runs passive ones
    (:meth:`checkpoint`), which do not block acceptances.

    Args:
        path: the database file (created with its parent directory if absent).
        busy_timeout: seconds a writer waits for another process's lock.
        max_batch: most deliveries committed by one transaction.

    Raises:
        sqlite3.Error: the file cannot be opened or is not an inbox.
    """

    def __init__(self, path: Path, *, busy_timeout: float = 10.0, max_batch: int = 256) -> None:
        self.path = path
        self._busy_ms = int(busy_timeout * 1000)
        self._max_batch = max_batch
        self._local = threading.local()
        # All writers of one process queue on this lock instead of meeting in SQLite's
        # busy handler, which sleeps in growing steps (up to 100 ms) and would let the
        # worker's steady writes starve an acceptance waiting to answer GitHub.
        self._write = threading.Lock()
        self._submissions: queue.SimpleQueue[_Submission | None] = queue.SimpleQueue()
        self._committer: threading.Thread | None = None
        self._committer_lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = self._conn()
        conn.executescript(_SCHEMA)

    def _conn(self, *, durable: bool = False) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=self._busy_ms / 1000)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            conn.execute(f"PRAGMA busy_timeout={self._busy_ms}")
            # no automatic checkpoints: they would run inside whichever commit crosses
            # the threshold, often an acceptance; the worker runs them (checkpoint())
            conn.execute("PRAGMA wal_autocheckpoint=0")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Stop the committer (after the deliveries it holds) and close this thread's
        connection (other threads' close when they end)."""
        with self._committer_lock:
            if self._committer is not None:
                self._submissions.put(None)
                self._committer.join(10)
                self._committer = None
        self.close_connection()

    def close_connection(self) -> None:
        """Close the calling thread's connection, if it has one."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # -- the server side ---------------------------------------------------------

    def accept(
        self,
        delivery: str,
        event: str,
        action: str | None,
        body: bytes,
        *,
        timeout: float | None = None,
    ) -> Accepted:
        """Record a delivery durably, or say why it is not new (module docstring).

        Blocks until the row is committed and synced to disk (group commit).

        Args:
            timeout: seconds to wait for the commit; ``None`` waits as long as it takes.

        Raises:
            sqlite3.Error: the inbox could not record it (the delivery is not accepted).
            TimeoutError: no commit within ``timeout``. The delivery may still be
                recorded later; a redelivery then finds it (no second effect).
        """
        submission = _Submission(delivery, event, action, body)
        with self._committer_lock:
            if self._committer is None or not self._committer.is_alive():
                self._committer = threading.Thread(
                    target=self._commit_loop, name="ghattempt-inbox-commit", daemon=True
                )
                self._committer.start()
            self._submissions.put(submission)
        if not submission.done.wait(timeout):
            raise TimeoutError(f"the inbox did not commit within {timeout} s")
        if submission.error is not None:
            raise submission.error
        assert submission.result is not None
        return submission.result

    def _commit_loop(self) -> None:
        conn = self._conn(durable=True)
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
                self._commit(conn, batch)
                if stop:
                    return
        finally:
            conn.close()
            self._local.conn = None

    def _commit(self, conn: sqlite3.Connection, batch: list[_Submission]) -> None:
        try:
            with self._write:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    results = [self._admit(conn, item) for item in batch]
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
        except Exception as exc:
            for item in batch:
                item.error = exc
                item.done.set()
            return
        for item, result in zip(batch, results, strict=True):
            item.result = result
            item.done.set()

    @staticmethod
    def _admit(conn: sqlite3.Connection, item: _Submission) -> Accepted:
        row = conn.execute(
            "SELECT delivery, body_sha256, state FROM deliveries "
            "WHERE delivery = ? OR body_sha256 = ? ORDER BY delivery = ? DESC LIMIT 1",
            (item.delivery, item.digest, item.delivery),
        ).fetchone()
        if row is not None:
            if row[0] == item.delivery:
                kind = Admission.DUPLICATE if row[1] == item.digest else Admission.CONFLICT
            else:
                kind = Admission.REPLAY
            return Accepted(kind, row[0], row[2])
        conn.execute(
            "INSERT INTO deliveries (delivery, event, action, body_sha256, body, "
            "received_at, state) VALUES (?, ?, ?, ?, ?, ?, 'pending')",
            (item.delivery, item.event, item.action, item.digest, item.body, time.time()),
        )
        return Accepted(Admission.NEW, item.delivery, "pending")

    # -- the worker side ---------------------------------------------------------

    def next_pending(self) -> InboxItem | None:
        """The oldest pending delivery (arrival order), or ``None``."""
        row = self._conn().execute(
            "SELECT seq, delivery, event, action, body, tries, not_before FROM deliveries "
            "WHERE state = 'pending' ORDER BY seq LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        return InboxItem(row[0], row[1], row[2], row[3], bytes(row[4]), row[5], row[6])

    def finish(
        self,
        seq: int,
        outcome: object,
        index: Iterable[Remember | Forget] = (),
        *,
        failed: bool = False,
    ) -> None:
        """Mark a delivery done (or failed) and apply its head-index changes, atomically."""
        with self._write:
            self._finish(seq, outcome, index, failed)

    def _finish(
        self, seq: int, outcome: object, index: Iterable[Remember | Forget], failed: bool
    ) -> None:
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
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
                ("failed" if failed else "done", json.dumps(outcome, sort_keys=True),
                 time.time(), seq),
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def postpone(self, seq: int, not_before: float, note: str) -> None:
        """Count one more try of a pending delivery and hold it until ``not_before``."""
        with self._write:
            self._conn().execute(
                "UPDATE deliveries SET tries = tries + 1, not_before = ?, outcome = ? "
                "WHERE seq = ? AND state = 'pending'",
                (not_before, json.dumps({"retrying": note}), seq),
            )

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database without blocking writers
        (``wal_checkpoint(PASSIVE)``); acceptances go on committing meanwhile."""
        self._conn().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

    def lookup_heads(self, repository_id: str, head_sha: str) -> Sequence[IntentRef]:
        """The intents whose pull request currently has ``head_sha`` as head."""
        rows = self._conn().execute(
            "SELECT repository_name, pull_request, base_ref FROM heads "
            "WHERE repository_id = ? AND head_sha = ? ORDER BY pull_request, base_ref",
            (repository_id, head_sha),
        ).fetchall()
        return [IntentRef(repository_id, r[0], r[1], r[2]) for r in rows]

    # -- operations ------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """Number of deliveries per state."""
        rows = self._conn().execute(
            "SELECT state, COUNT(*) FROM deliveries GROUP BY state"
        ).fetchall()
        counts = {"pending": 0, "done": 0, "failed": 0}
        counts.update({r[0]: r[1] for r in rows})
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
        with self._write:
            cur = self._conn().execute(
                "UPDATE deliveries SET state = 'pending', tries = 0, not_before = 0 "
                "WHERE state = 'failed'"
            )
        return cur.rowcount

    def prune(self, older_than: float = RETENTION_SECONDS) -> int:
        """Delete finished deliveries received more than ``older_than`` seconds ago."""
        with self._write:
            cur = self._conn().execute(
                "DELETE FROM deliveries WHERE state != 'pending' AND received_at < ?",
                (time.time() - older_than,),
            )
        return cur.rowcount
