"""Test doubles for the exclusive writer scope: a fake clock and two ref backends.

* :class:`FakeClock` - a manual monotonic clock whose ``sleep`` advances time instantly.
* :class:`ScaledClock` - a local clock that runs at another rate than the world's (drift).
* :class:`MemoryRefBackend` - refs in memory with GitHub's semantics as the lease uses them:
  compare-and-set, a server ``Date`` in whole seconds, optional per-response clock offsets
  (GitHub's servers disagreeing) and injected faults (answers lost after or before commit,
  writes landing late, errors).
* :class:`SqliteRefBackend` - refs in a SQLite file, so several processes share them;
  its server clock is the machine's wall clock.

None of these is a production backend; none gives exclusion on GitHub.
"""

from __future__ import annotations

import enum
import hashlib
import sqlite3
import threading
import time
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass

from ._errors import AmbiguousOutcome, BackendError, RefConflict
from ._protocol import RefSnapshot, RefWrite

__all__ = [
    "Fault",
    "FakeClock",
    "MemoryRefBackend",
    "ScaledClock",
    "SqliteRefBackend",
]

#: 2027-01-15T08:00:00Z: the default epoch of the fake GitHub clock.
DEFAULT_EPOCH = 1_800_000_000


class FakeClock:
    """A monotonic clock moved by hand; ``sleep`` advances it at once (thread-safe).

    Args:
        start: the initial reading; monotonic clocks have an arbitrary origin.

    Attributes:
        sleeps: every duration passed to ``sleep``, in order.
    """

    def __init__(self, start: float = 5_000.0) -> None:
        self._now = float(start)
        self._lock = threading.Lock()
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"sleep({seconds}) is negative")
        with self._lock:
            self.sleeps.append(seconds)
            self._now += seconds

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass (for example a paused process)."""
        if seconds < 0:
            raise ValueError(f"advance({seconds}) is negative")
        with self._lock:
            self._now += seconds


class ScaledClock:
    """A local clock reading ``origin + rate * world.monotonic()``.

    ``rate < 1`` models a local clock that runs slow against GitHub's (it undercounts
    elapsed time), ``rate > 1`` a fast one. ``sleep(s)`` lets ``s`` local seconds pass.
    """

    def __init__(self, world: FakeClock, *, rate: float, origin: float = 0.0) -> None:
        if rate <= 0:
            raise ValueError("rate must be > 0")
        self._world = world
        self._rate = rate
        self._origin = origin

    def monotonic(self) -> float:
        return self._origin + self._rate * self._world.monotonic()

    def sleep(self, seconds: float) -> None:
        self._world.sleep(seconds / self._rate)


class Fault(enum.Enum):
    """A fault injected into the next matching backend call."""

    #: The write lands; the answer is lost (``AmbiguousOutcome``).
    LOST_AFTER_COMMIT = "lost_after_commit"
    #: The write never lands; the answer is lost (``AmbiguousOutcome``).
    LOST_BEFORE_COMMIT = "lost_before_commit"
    #: The write stays in flight and lands (compare-and-set checked then) only when
    #: :meth:`MemoryRefBackend.land_delayed` is called; the answer is lost.
    DELAYED = "delayed"
    #: Nothing happens; ``BackendError(retryable=True)`` (a 502 on a read, a rate limit).
    UNAVAILABLE = "unavailable"
    #: Nothing happens; ``BackendError(retryable=False)`` (a 403 for missing permission).
    DENIED = "denied"
    #: A read answers from a lagging replica: the ref as it was before its latest write
    #: (GitHub's reads can lag a just-committed write). Applies to reads only.
    STALE_READ = "stale_read"


def _oid(parent: str | None, message: str, serial: int) -> str:
    return hashlib.sha1(  # noqa: S324 - a Git-style object id, not a security boundary
        f"{parent or ''}\0{message}\0{serial}".encode()
    ).hexdigest()


@dataclass
class _Delayed:
    name: str
    expected: str | None
    message: str


class MemoryRefBackend:
    """In-memory refs behaving like GitHub for the lease (thread-safe).

    Args:
        clock: the world's clock; the server's time is ``epoch`` plus the time elapsed on
            it since construction.
        epoch: server time (epoch seconds) at construction.
        latency: seconds each call takes; half passes before the server acts (and stamps
            its ``Date``), half after.

    Attributes:
        calls: how many times each method was called (``read``, ``create``, ``advance``).
    """

    def __init__(self, clock: FakeClock, *, epoch: int = DEFAULT_EPOCH, latency: float = 0.0):
        self._clock = clock
        self._origin = clock.monotonic()
        self._epoch = epoch
        self.latency = latency
        self._lock = threading.RLock()
        self._heads: dict[str, tuple[str, str]] = {}
        self._before: dict[str, tuple[str, str] | None] = {}  # head before the last write
        self._history: dict[str, list[str]] = {}
        self._serial = 0
        self._faults: dict[str, deque[Fault]] = {}
        self._date_offsets: deque[int] = deque()
        self._delayed: list[_Delayed] = []
        self.calls: Counter[str] = Counter()

    # -- control ---------------------------------------------------------------------

    def server_now(self) -> float:
        """The server's true time, epoch seconds with fractions."""
        return self._epoch + (self._clock.monotonic() - self._origin)

    def inject(self, op: str, *faults: Fault) -> None:
        """Queue ``faults`` for the next calls of ``op``: ``read``, ``create``, ``advance``
        or ``write`` (the next create or advance, whichever comes first)."""
        if op not in ("read", "create", "advance", "write"):
            raise ValueError(f"unknown operation {op!r}")
        self._faults.setdefault(op, deque()).extend(faults)

    def skew_dates(self, offsets: Iterable[int]) -> None:
        """Add these offsets (seconds) to the ``Date`` of the next responses, one each:
        the answering server's clock is off by that much."""
        self._date_offsets.extend(offsets)

    def land_delayed(self) -> list[bool]:
        """Apply the writes held by ``Fault.DELAYED``, in order; True where one landed."""
        with self._lock:
            delayed, self._delayed = self._delayed, []
            return [self._apply(d.name, d.expected, d.message) is not None for d in delayed]

    def force(self, name: str, message: str) -> str:
        """Point ``name`` at a new commit without any check (a push by someone else)."""
        with self._lock:
            head = self._heads.get(name)
            return self._commit(name, head[0] if head else None, message)

    def delete(self, name: str) -> None:
        """Delete the ref (an operator removing the branch)."""
        with self._lock:
            self._heads.pop(name, None)

    def head(self, name: str) -> tuple[str, str] | None:
        """``(oid, message)`` of the ref, or None."""
        with self._lock:
            return self._heads.get(name)

    def history(self, name: str) -> list[str]:
        """Every message the ref has pointed to, oldest first."""
        with self._lock:
            return list(self._history.get(name, []))

    # -- internals ---------------------------------------------------------------------

    def _commit(self, name: str, parent: str | None, message: str) -> str:
        self._before[name] = self._heads.get(name)
        self._serial += 1
        oid = _oid(parent, message, self._serial)
        self._heads[name] = (oid, message)
        self._history.setdefault(name, []).append(message)
        return oid

    def _apply(self, name: str, expected: str | None, message: str) -> str | None:
        head = self._heads.get(name)
        if expected is None:
            if head is not None:
                return None
            return self._commit(name, None, message)
        if head is None or head[0] != expected:
            return None
        return self._commit(name, expected, message)

    def _date(self) -> int:
        offset = self._date_offsets.popleft() if self._date_offsets else 0
        return int(self.server_now()) + offset

    def _fault(self, op: str) -> Fault | None:
        for key in (op, "write") if op in ("create", "advance") else (op,):
            queue = self._faults.get(key)
            if queue:
                return queue.popleft()
        return None

    def _half_latency(self) -> None:
        if self.latency:
            self._clock.sleep(self.latency / 2)

    def _write(self, op: str, name: str, expected: str | None, message: str) -> RefWrite:
        self.calls[op] += 1
        self._half_latency()
        with self._lock:
            fault = self._fault(op)
            if fault is Fault.UNAVAILABLE:
                raise BackendError(f"{op} {name}: 502 Bad Gateway", retryable=True)
            if fault is Fault.DENIED:
                raise BackendError(f"{op} {name}: 403 Resource not accessible", retryable=False)
            if fault is Fault.LOST_BEFORE_COMMIT:
                raise AmbiguousOutcome(f"{op} {name}: timed out")
            if fault is Fault.DELAYED:
                self._delayed.append(_Delayed(name, expected, message))
                raise AmbiguousOutcome(f"{op} {name}: timed out")
            oid = self._apply(name, expected, message)
            if fault is Fault.LOST_AFTER_COMMIT:
                raise AmbiguousOutcome(f"{op} {name}: 504 Gateway Timeout")
            if oid is None:
                what = "already exists" if expected is None else f"is not at {expected}"
                raise RefConflict(f"{op} {name}: the ref {what}")
            date = self._date()
        self._half_latency()
        return RefWrite(oid=oid, server_time=date)

    # -- RefBackend --------------------------------------------------------------------

    def read_ref(self, name: str) -> RefSnapshot:
        self.calls["read"] += 1
        self._half_latency()
        with self._lock:
            fault = self._fault("read")
            if fault in (Fault.UNAVAILABLE, Fault.LOST_BEFORE_COMMIT, Fault.LOST_AFTER_COMMIT,
                         Fault.DELAYED):
                raise BackendError(f"read {name}: 502 Bad Gateway", retryable=True)
            if fault is Fault.DENIED:
                raise BackendError(f"read {name}: 403 Resource not accessible", retryable=False)
            head = self._heads.get(name)
            if fault is Fault.STALE_READ and name in self._before:
                head = self._before[name]
            date = self._date()
        self._half_latency()
        if head is None:
            return RefSnapshot(name=name, oid=None, message=None, server_time=date)
        return RefSnapshot(name=name, oid=head[0], message=head[1], server_time=date)

    def create_ref(self, name: str, message: str) -> RefWrite:
        return self._write("create", name, None, message)

    def advance_ref(self, name: str, expected_oid: str, message: str) -> RefWrite:
        return self._write("advance", name, expected_oid, message)


class SqliteRefBackend:
    """Refs in a SQLite file shared by processes; compare-and-set inside ``BEGIN IMMEDIATE``.

    Args:
        path: the database file (created on first use).
        clock_offset: seconds added to the wall clock to form the server's ``Date``.

    Picklable (it holds only the path), so it can be handed to worker processes.
    """

    def __init__(self, path: str, *, clock_offset: float = 0.0) -> None:
        self.path = path
        self.clock_offset = clock_offset
        with self._connect() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS refs (name TEXT PRIMARY KEY, oid TEXT NOT NULL, "
                "message TEXT NOT NULL)"
            )
            db.execute(
                "CREATE TABLE IF NOT EXISTS commits (serial INTEGER PRIMARY KEY AUTOINCREMENT, "
                "name TEXT NOT NULL, oid TEXT NOT NULL, message TEXT NOT NULL)"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30.0, isolation_level=None)

    def _date(self) -> int:
        return int(time.time() + self.clock_offset)

    def read_ref(self, name: str) -> RefSnapshot:
        db = self._connect()
        try:
            row = db.execute("SELECT oid, message FROM refs WHERE name = ?", (name,)).fetchone()
        finally:
            db.close()
        date = self._date()
        if row is None:
            return RefSnapshot(name=name, oid=None, message=None, server_time=date)
        return RefSnapshot(name=name, oid=row[0], message=row[1], server_time=date)

    def _write(self, name: str, expected: str | None, message: str) -> RefWrite:
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT oid FROM refs WHERE name = ?", (name,)).fetchone()
            current = None if row is None else row[0]
            if expected is None and current is not None:
                db.execute("ROLLBACK")
                raise RefConflict(f"create {name}: the ref already exists")
            if expected is not None and current != expected:
                db.execute("ROLLBACK")
                raise RefConflict(f"advance {name}: the ref is not at {expected}")
            cursor = db.execute(
                "INSERT INTO commits (name, oid, message) VALUES (?, '', ?)", (name, message)
            )
            serial = cursor.lastrowid
            assert serial is not None
            oid = _oid(current, message, serial)
            db.execute("UPDATE commits SET oid = ? WHERE serial = ?", (oid, serial))
            db.execute(
                "INSERT INTO refs (name, oid, message) VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET oid = excluded.oid, message = excluded.message",
                (name, oid, message),
            )
            db.execute("COMMIT")
        finally:
            db.close()
        return RefWrite(oid=oid, server_time=self._date())

    def create_ref(self, name: str, message: str) -> RefWrite:
        return self._write(name, None, message)

    def advance_ref(self, name: str, expected_oid: str, message: str) -> RefWrite:
        return self._write(name, expected_oid, message)

    def history(self, name: str) -> list[str]:
        """Every message the ref has pointed to, oldest first."""
        db = self._connect()
        try:
            rows = db.execute(
                "SELECT message FROM commits WHERE name = ? ORDER BY serial", (name,)
            ).fetchall()
        finally:
            db.close()
        return [r[0] for r in rows]

