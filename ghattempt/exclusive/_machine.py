"""The lease protocols as pure state machines: no I/O, no clock, no sleep.

A machine is asked what to do next and told what happened, as h11 drives a connection::

    machine = Acquire(scope, name, settings, holder=..., start=clock.monotonic(), rng=rng)
    while True:
        action = machine.next(clock.monotonic())
        if isinstance(action, Read):   machine.feed(<read the ref>)
        elif isinstance(action, Send): machine.feed(<create or advance the ref>)
        elif isinstance(action, Sleep): clock.sleep(action.seconds)
        elif isinstance(action, Done):  return action.value
        else:                           raise action.error        # Refuse

Actions (what the machine asks): :class:`Read` the lease ref, :class:`Send` a lease
record (create the ref when ``expected`` is None, else compare-and-set from
``expected``), :class:`Sleep`, :class:`Done`, :class:`Refuse`. Results (what the loop
feeds back): :class:`Snapshot` or :class:`Failed` after a read; :class:`Wrote`,
:class:`Conflict`, :class:`Lost` (sent, outcome unknown) or :class:`Failed` after a
send. Local times (``now``, ``sent``) are readings of the caller's monotonic clock;
GitHub's time comes only from the ``server_time`` of the answers (docs/exclusion.md).

Three protocols: :class:`Acquire` (take the scope), :class:`Renew` (extend it, carrying
the witness), :class:`Release` (hand it over, carrying the witness). Each rule they follow
is a row of the tables in ``tests/exclusive/test_machine.py``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from ghattempt.errors import Fault, GhattemptError

from ..core import Lease, Witness
from ._errors import AcquireAmbiguous, AmbiguousOutcome, BackendError, LeaseCorrupt, ScopeBusy
from ._protocol import RefSnapshot, RefWrite
from ._scope import Scope, expiry_of, read_lease, renewed
from ._settings import HTTP_DATE_RESOLUTION, LeaseSettings

__all__ = [
    "ADOPTED",
    "NOTICE_AFTER",
    "UNCHANGED",
    "Acquire",
    "Acquired",
    "Conflict",
    "Done",
    "Failed",
    "Lost",
    "Outcome",
    "Read",
    "Refuse",
    "Release",
    "Renew",
    "Send",
    "Sleep",
    "Snapshot",
    "Wrote",
    "describe",
    "expiry",
    "reconcile",
    "release_record",
    "settles",
]

NOTICE_AFTER = 2.0
"""A wait expected to last longer than this (seconds) is announced (``Sleep.notice``)."""

SETTLED_FAULTS = frozenset({Fault.BAD_INPUT, Fault.REFUSED, Fault.GITHUB_UNAVAILABLE,
                            Fault.GITHUB_REFUSED})
"""The kinds of fault that say a request can no longer commit: nothing was sent (bad
input, GitHub unreachable), or GitHub answered it (a refusal, a rate limit: not
executed). ``OUTCOME_UNKNOWN`` (sent, no answer) and every other kind are not."""


def settles(error: BaseException) -> bool:
    """True when ``error``, ending a mutation, proves the mutation cannot land later, so
    its window closes as for an answer (``RefOwner.mutation``); False when it may still
    commit: an unknown outcome, or any exception that is no classified ghattempt error
    (a timeout, a reset, an interrupt, a defect)."""
    return isinstance(error, GhattemptError) and error.fault in SETTLED_FAULTS


# -- actions -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Read:
    """Read the lease ref ``name``; feed :class:`Snapshot` or :class:`Failed`."""

    name: str


@dataclass(frozen=True, slots=True)
class Send:
    """Write ``record`` to ``name``: create the ref when ``expected`` is None, else move it
    from ``expected`` (compare-and-set). Feed :class:`Wrote`, :class:`Conflict`,
    :class:`Lost` or :class:`Failed`."""

    name: str
    expected: str | None
    record: Lease

    @property
    def message(self) -> str:
        """The commit message carrying ``record``."""
        return self.record.message()


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``seconds``, then ask again. ``notice`` is one line to tell the user when
    this starts a wait expected to last more than :data:`NOTICE_AFTER` seconds."""

    seconds: float
    notice: str | None = None


@dataclass(frozen=True, slots=True)
class Done:
    """The protocol ended; ``value`` is its result."""

    value: Any


@dataclass(frozen=True, slots=True)
class Refuse:
    """The protocol ended with ``error`` (raise it)."""

    error: Exception


Action = Read | Send | Sleep | Done | Refuse


# -- results -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A read answered ``snapshot``; the request was sent at local time ``sent``."""

    snapshot: RefSnapshot
    sent: float


@dataclass(frozen=True, slots=True)
class Wrote:
    """A send landed: ``write`` answered; sent at local time ``sent``."""

    write: RefWrite
    sent: float


@dataclass(frozen=True, slots=True)
class Conflict:
    """A send's compare-and-set failed: nothing was written."""


@dataclass(frozen=True, slots=True)
class Lost:
    """A send got no answer that says whether it landed (``error``)."""

    error: AmbiguousOutcome


@dataclass(frozen=True, slots=True)
class Failed:
    """A request failed and wrote nothing (``error.retryable`` says whether to retry)."""

    error: BackendError


Result = Snapshot | Wrote | Conflict | Lost | Failed


@dataclass(frozen=True, slots=True)
class Acquired:
    """What :class:`Acquire` ends with: the record now on the ref, its commit ``oid``,
    GitHub's time of the answer that proved it and the local time that request was sent
    (the anchor of the holder's clock arithmetic), whether a lost answer was
    reconciled (``reconciled``: the record was recognised on a read-back), and the head
    the acquiring compare-and-set moved the ref from (``taken_from``; None: it created
    the ref)."""

    record: Lease
    oid: str
    server_time: int
    sent: float
    reconciled: bool = False
    taken_from: str | None = None


def expiry(settings: LeaseSettings, server_time: int, sent: float, now: float) -> int:
    """GitHub's time now, estimated from an answer to a request sent at local ``sent``,
    plus the lease length (epoch seconds)."""
    elapsed = max(0, math.floor(now - sent))
    return server_time + elapsed + settings.lease_seconds


# -- acquire -------------------------------------------------------------------------


class Acquire:
    """Take a writer scope (docs/exclusion.md, "Acquiring").

    Rules, in the order they are tried on each read of the ref:

    1. the ref is missing: create it with token 1, no journal and no witness;
    2. the ref does not point to a lease record of this scope: refuse (``LeaseCorrupt``);
    3. the ref holds a record this acquisition sent and lost the answer of: acquired;
    4. the lease is held, or released but quiet, and not expired by the ``Date`` of the
       read: wait (jittered backoff, at most until one second after the expiry), read again;
    5. otherwise: compare-and-set from the head read, with the next fencing token and the
       record's ``journal`` and witness ``head`` carried forward. After a lost answer the
       same bytes are sent again for the same head, so at most one copy can land.

    A conflict is read again at once the first time, after a backoff when it repeats.
    Reads and writes that fail retryably are retried after a backoff. When the
    ``acquire_timeout`` runs out: ``AmbiguousOutcome`` if a write of ours may have landed,
    else ``ScopeBusy`` naming the holder (or the backend's error).

    Args:
        scope: the writer scope; ``name``: its lease ref.
        settings: the validated lease settings.
        holder: this acquisition's holder id.
        start: the local time the acquisition starts.
        rng: the source of backoff jitter.
        observed: a read of the ref the caller made (used instead of a first read).
    """

    def __init__(self, scope: Scope, name: str, settings: LeaseSettings, *, holder: str,
                 start: float, rng: random.Random, observed: Snapshot | None = None) -> None:
        self._scope = scope
        self._name = name
        self._s = settings
        self._holder = holder
        self._start = start
        self._deadline = start + settings.acquire_timeout
        self._rng = rng
        self._backoff = settings.backoff_initial
        self._read: Snapshot | None = observed
        self._pending: list[tuple[str | None, Lease]] = []
        self._sending: Send | None = None
        self._wait: float | None = None  # a sleep to take before the next read
        self._failing = False  # the pending wait follows a backend failure
        self._last_error: BackendError | AmbiguousOutcome | None = None
        self._streak = 0
        self._current: Lease | None = None
        self._announced: tuple[str, int, str] | None = None
        self._read_time = 0  # GitHub's time of the last read (its Date)
        self._end: Done | Refuse | None = None

    def _jittered(self) -> float:
        value = self._backoff * (0.5 + 0.5 * self._rng.random())
        self._backoff = min(self._backoff * self._s.backoff_factor, self._s.backoff_max)
        return max(value, min(self._s.backoff_initial, self._s.backoff_max))

    def _give_up(self, now: float) -> Exception:
        waited = now - self._start
        if self._pending:
            latest = self._pending[-1][1]
            return AcquireAmbiguous(
                f"could not learn whether acquiring writer scope {self._scope.key} landed "
                f"within {waited:.1f} s; if it did, the lease expires by itself at "
                f"{latest.expires_at} (GitHub's clock)")
        if self._failing and self._last_error is not None:
            return self._last_error
        current = self._current
        if current is not None:
            return ScopeBusy(scope_key=self._scope.key, holder=current.holder,
                             token=current.token, expires_at=expiry_of(current),
                             state=current.state, waited=waited)
        if self._last_error is not None:
            return self._last_error
        return BackendError(
            f"could not acquire writer scope {self._scope.key} within {waited:.1f} s: reads "
            "showed no lease ref but creating it kept conflicting (a lagging read "
            "replica?); retry later", retryable=True)

    def _schedule(self, seconds: float, *, failing: bool = False) -> None:
        self._wait, self._failing = seconds, failing
        self._read = None

    def next(self, now: float) -> Action:
        """The next action, at local time ``now``."""
        if self._end is not None:
            return self._end
        if self._sending is not None:
            return self._sending
        if self._wait is not None:
            left = self._deadline - now
            if left <= 0:
                self._end = Refuse(self._give_up(now))
                return self._end
            seconds, self._wait = min(self._wait, left), None
            return Sleep(seconds, self._notice(now, left))
        if self._read is None:
            return Read(self._name)
        return self._decide(self._read, now)

    def _notice(self, now: float, left: float) -> str | None:
        """One line when a wait for another holder starts that may last > 2 s."""
        current = self._current
        if current is None or self._failing:
            return None
        until = expiry_of(current)
        key = (current.holder, current.token, current.state)
        server_now = self._read_time
        expected = min(until - server_now + HTTP_DATE_RESOLUTION, left)
        if key == self._announced or expected <= NOTICE_AFTER:
            return None
        self._announced = key
        what = "released it and stays quiet" if current.state == "released" else "holds it"
        return (f"waiting up to {expected:.0f} s for writer scope {self._scope.key}: "
                f"{current.holder} (fencing token {current.token}) {what} until "
                f"{current.expires_at} by GitHub's clock")

    def _decide(self, read: Snapshot, now: float) -> Action:
        snap = read.snapshot
        self._read_time = snap.server_time
        current: Lease | None = None
        if snap.oid is not None:
            try:
                current = read_lease(snap.message, ref=self._name, scope=self._scope)
            except LeaseCorrupt as exc:
                self._end = Refuse(exc)
                return self._end
            landed = [e for e, record in self._pending if record == current]
            if landed:
                self._end = Done(Acquired(current, snap.oid, snap.server_time, read.sent,
                                          reconciled=True, taken_from=landed[0]))
                return self._end
        self._current = current
        # A write that expected another head can never land now (heads never return to
        # an old commit): forget it.
        self._pending = [p for p in self._pending if p[0] == snap.oid]
        if current is not None and snap.server_time < expiry_of(current):
            self._streak = 0
            until = expiry_of(current) - snap.server_time + HTTP_DATE_RESOLUTION
            self._schedule(min(self._jittered(), until))
            return self.next(now)
        reuse = next((r for e, r in self._pending if e == snap.oid), None)
        if reuse is not None:
            record = reuse  # the same bytes again: at most one copy can land
        else:
            record = self._scope.lease(
                holder=self._holder, token=1 if current is None else current.token + 1,
                state="held", expires_at=expiry(self._s, snap.server_time, read.sent, now),
                journal=None if current is None else current.journal,
                head=Witness(0, None) if current is None else current.head)
        self._sending = Send(self._name, snap.oid, record)
        return self._sending

    def feed(self, result: Result) -> None:
        """Tell the machine what the last :class:`Read` or :class:`Send` gave."""
        sending, self._sending = self._sending, None
        if sending is None:
            if isinstance(result, Snapshot):
                self._read = result
            elif isinstance(result, Failed):
                if not result.error.retryable:
                    self._end = Refuse(result.error)
                    return
                self._last_error = result.error
                self._schedule(self._jittered(), failing=True)
            else:  # pragma: no cover - a defect of the driving loop
                raise TypeError(f"a read gives Snapshot or Failed, not {result!r}")
            return
        if isinstance(result, Wrote):
            self._end = Done(Acquired(sending.record, result.write.oid,
                                      result.write.server_time, result.sent,
                                      taken_from=sending.expected))
            return
        if isinstance(result, Conflict | Lost):
            if isinstance(result, Lost):
                self._last_error = result.error
                if not any(r == sending.record for _, r in self._pending):
                    self._pending.append((sending.expected, sending.record))
            else:
                self._last_error = None
            self._streak += 1
            if self._streak > 1:
                self._schedule(self._jittered())
            else:
                self._read = None
            return
        if isinstance(result, Failed):
            if not result.error.retryable:
                self._end = Refuse(result.error)
                return
            self._last_error = result.error
            self._schedule(self._jittered(), failing=True)
            return
        raise TypeError(  # pragma: no cover - a defect of the driving loop
            f"a send gives Wrote, Conflict, Lost or Failed, not {result!r}")


# -- renew and release ----------------------------------------------------------------


ADOPTED = "adopted"
UNCHANGED = "unchanged"


def reconcile(snapshot: RefSnapshot, *, name: str, scope: Scope, oid: str,
              pending: list[Lease]) -> tuple[str, Lease | None]:
    """What a read of the ref after a conflict or a lost answer of the holder means.

    Returns:
        ``("unchanged", None)``: the head is still the holder's (or a lagging read); a
        pending write may still land. ``("adopted", record)``: a pending write of the
        holder is the head. ``(reason, None)``: another writer owns the ref now; the
        reason says what was seen.
    """
    if snapshot.oid == oid:
        return UNCHANGED, None
    if snapshot.oid is None:
        return "the lease ref was deleted", None
    try:
        current = read_lease(snapshot.message, ref=name, scope=scope)
    except LeaseCorrupt as exc:
        return f"the lease ref was overwritten ({exc.detail})", None
    if current in pending:
        return ADOPTED, current
    return f"the lease ref moved to holder {current.holder!r} (token {current.token})", None


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a :class:`Renew` or :class:`Release` ended.

    ``kind``: ``"wrote"`` (``record`` is on the ref at ``oid``, proven by an answer at
    ``server_time`` to a request sent at ``sent``), ``"adopted"`` (a pending write was
    found on the ref by a read at ``server_time`` sent at ``sent``), ``"kept"`` (nothing
    changed that can be proven; keep what was held), ``"lost"`` (another writer owns the
    ref; ``reason`` says why), ``"failed"`` (the backend failed; ``reason``).
    """

    kind: str
    record: Lease | None = None
    oid: str | None = None
    server_time: int | None = None
    sent: float | None = None
    reason: str = ""


class _Write:
    """One compare-and-set of the holder's record, reconciled by a read after a conflict
    or a lost answer (the shared part of :class:`Renew` and :class:`Release`)."""

    def __init__(self, scope: Scope, name: str, oid: str, record: Lease,
                 pending: list[Lease]) -> None:
        self._scope = scope
        self._name = name
        self._oid = oid
        self._record = record
        self._pending = pending
        self._step = "send"
        self._end: Done | None = None

    def next(self, now: float) -> Action:
        """The next action (``now`` is unused: these protocols never wait)."""
        if self._end is not None:
            return self._end
        if self._step == "send":
            return Send(self._name, self._oid, self._record)
        return Read(self._name)

    def _finish(self, outcome: Outcome) -> None:
        self._end = Done(outcome)

    def feed(self, result: Result) -> None:
        """Tell the machine what the last :class:`Send` or :class:`Read` gave."""
        if self._step == "send":
            if isinstance(result, Wrote):
                self._finish(Outcome("wrote", self._record, result.write.oid,
                                     result.write.server_time, result.sent))
            elif isinstance(result, Conflict):
                self._step = "read"
            elif isinstance(result, Lost):
                self._pending.append(self._record)
                self._step = "read"
            elif isinstance(result, Failed):
                self._finish(Outcome("failed", reason=str(result.error)))
            return
        if isinstance(result, Failed):
            self._finish(Outcome("kept", reason="the read-back failed"))
            return
        assert isinstance(result, Snapshot)
        kind, record = reconcile(result.snapshot, name=self._name, scope=self._scope,
                                 oid=self._oid, pending=self._pending)
        if kind == ADOPTED:
            self._finish(Outcome(ADOPTED, record, result.snapshot.oid,
                                 result.snapshot.server_time, result.sent))
        elif kind == UNCHANGED:
            self._finish(Outcome("kept"))
        else:
            self._finish(Outcome("lost", reason=kind))


class Renew(_Write):
    """Extend the lease (docs/exclusion.md, "Renewing"): one compare-and-set from the
    holder's own head carrying ``record`` (the new expiry and the witness to carry).

    Ends with an :class:`Outcome`: ``wrote``; ``adopted`` (an earlier renewal whose
    answer was lost had landed); ``kept`` (the head is still ours, or the read failed:
    keep the lease provable by time alone); ``lost`` (another holder took over: the
    scope is lost for good); ``failed`` (nothing written; keep the current lease).
    """


class Release(_Write):
    """Hand the scope over (docs/exclusion.md, "Releasing"): write ``record`` with
    ``state: released``, the witness and the quiet-until expiry. ``adopted`` means an
    earlier renewal had landed: release again from that head (a new machine)."""


def release_record(held: Lease, *, quiet_until: int, head: Witness,
                   journal: int | None) -> Lease:
    """The record a release writes: ``released``, quiet until ``quiet_until`` (epoch
    seconds, never later than the held expiry), carrying the witness and journal."""
    return renewed(held, state="released", expires_at=min(quiet_until, expiry_of(held)),
                   head=head, journal=journal)


def describe(record: Lease) -> str:
    """``holder (token N, state, until T)`` for messages."""
    return (f"{record.holder} (token {record.token}, {record.state}, until "
            f"{record.expires_at})")


# Public as ghattempt.exclusive (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    Done, Refuse, Sleep,
):
    _exported.__module__ = "ghattempt.exclusive"
del _exported
