"""The lease protocols as pure state machines: no I/O, no clock, no sleep.

Written in the shared vocabulary of :mod:`ghattempt.protocol`: a machine is asked for
a step and fed what each request gave, and :func:`~ghattempt.protocol.drive` runs it
(``RefLease`` performs the requests on its backend)::

    machine = Acquire(scope, name, settings, holder=..., start=clock.monotonic(), rng=rng)
    acquired = drive(machine, perform, sleep, clock.monotonic)

Steps: :class:`~ghattempt.protocol.Read` the lease ref (``request``: its name),
:class:`~ghattempt.protocol.Send` a :class:`LeaseWrite` (create the ref when
``expected`` is None, else compare-and-set from ``expected``), ``Sleep``, ``Done``,
``Refuse``. Results: ``Answered`` (a :class:`~ghattempt.exclusive.RefSnapshot` after a
read, a :class:`~ghattempt.exclusive.RefWrite` after a send, with the local time it was
sent), ``Conflict``, ``Lost`` (sent, outcome unknown) or ``Failed`` (a
``BackendError``). Local times (``now``, ``sent``) are readings of the caller's monotonic
clock; GitHub's time comes only from the ``server_time`` of the answers
(docs/exclusion.md).

Three protocols: :class:`Acquire` (take the scope), :class:`Renew` (extend it, carrying
the witness), :class:`Release` (hand it over, carrying the witness). Their rules are the
rows of their tables (``RULES``: ``(state, what a result showed) -> (effect, next
state)``); ``tests/exclusive/test_machine.py`` feeds each row by hand.
"""

from __future__ import annotations

import enum
import math
import random
from dataclasses import dataclass

from ghattempt.errors import Fault, GhattemptError
from ghattempt.protocol import (
    NOTICE_AFTER,
    Answered,
    Conflict,
    Done,
    Failed,
    Lost,
    Read,
    Refuse,
    Result,
    Send,
    Sleep,
    Step,
    TableMachine,
    wait,
)

from ..core import Lease, Witness
from ._errors import AcquireAmbiguous, AmbiguousOutcome, BackendError, LeaseCorrupt, ScopeBusy
from ._protocol import RefSnapshot, RefWrite
from ._scope import Scope, expiry_of, read_lease, renewed
from ._settings import HTTP_DATE_RESOLUTION, LeaseSettings

__all__ = [
    "Acquire",
    "Acquired",
    "Head",
    "LeaseWrite",
    "Outcome",
    "Reconciled",
    "Release",
    "Renew",
    "Written",
    "describe",
    "expiry",
    "reconcile",
    "release_record",
    "settles",
]

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


@dataclass(frozen=True, slots=True)
class LeaseWrite:
    """What a lease :class:`~ghattempt.protocol.Send` writes: ``record`` to the ref
    ``name``, creating it when ``expected`` is None, else moving it from ``expected``
    (compare-and-set)."""

    name: str
    expected: str | None
    record: Lease

    @property
    def message(self) -> str:
        """The commit message carrying ``record``."""
        return self.record.message()


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


class Acquiring(enum.Enum):
    """The states of :class:`Acquire`."""

    READ = "read the ref"
    SEND = "send the record chosen"
    WAIT = "wait for the holder, or after conflicts in a row; then read"
    BACK_OFF = "wait after a failed request; then read"
    DONE = "acquired"
    REFUSED = "refused"


class Seen(enum.Enum):
    """What a result (or the clock) showed :class:`Acquire`."""

    NO_REF = "the lease ref is missing"
    NOT_A_LEASE = "the ref holds no lease record of this scope"
    OURS = "the ref holds a record this acquisition sent and lost the answer of"
    LIVE = "held, or released and quiet, and not expired by the read's Date"
    EXPIRED = "expired by the read's Date"
    WROTE = "the write landed"
    CONFLICT = "the compare-and-set failed (the first conflict or lost answer in a row)"
    CONFLICT_AGAIN = "the compare-and-set failed again"
    LOST = "the write's answer was lost (the first conflict or lost answer in a row)"
    LOST_AGAIN = "the write's answer was lost again"
    RETRYABLE = "the request failed, wrote nothing, and may be tried again"
    FATAL = "the request failed, wrote nothing, and will fail again"
    TIME_LEFT = "a wait starts before the acquire timeout runs out"
    DEADLINE = "the acquire timeout ran out"


@dataclass(frozen=True, slots=True)
class _Reading:
    """A read of the ref and the lease record it holds (None: no ref)."""

    snapshot: RefSnapshot
    sent: float
    current: Lease | None


class Acquire(TableMachine[Acquiring]):
    """Take a writer scope (docs/exclusion.md, "Acquiring"); the rules are ``RULES``.

    A read of the ref shows one of: no ref (create it with token 1, no journal and no
    witness); no lease of this scope (refuse: ``LeaseCorrupt``); a record this
    acquisition sent and lost the answer of (acquired); a lease held, or released but
    quiet, and not expired by the ``Date`` of the read (wait: jittered backoff, at most
    until one second after the expiry, then read again); an expired one (compare-and-set
    from the head read, with the next fencing token and the record's ``journal`` and
    witness ``head`` carried forward). After a lost answer the same bytes are sent again
    for the same head, so at most one copy can land; a write expecting a head the ref no
    longer has can never land and is forgotten.

    A conflict or a lost answer is read again at once the first time in a row, after a
    backoff when it repeats. Reads and writes that fail retryably are retried after a
    backoff. When the ``acquire_timeout`` runs out: ``AmbiguousOutcome`` if a write of
    ours may have landed, else ``ScopeBusy`` naming the holder (or the backend's error).

    Args:
        scope: the writer scope; ``name``: its lease ref.
        settings: the validated lease settings.
        holder: this acquisition's holder id.
        start: the local time the acquisition starts.
        rng: the source of backoff jitter.
        observed: a read of the ref the caller made (used instead of a first read).
    """

    def __init__(self, scope: Scope, name: str, settings: LeaseSettings, *, holder: str,
                 start: float, rng: random.Random, observed: Answered | None = None) -> None:
        super().__init__(Acquiring.READ)
        self._scope = scope
        self._name = name
        self._s = settings
        self._holder = holder
        self._start = start
        self._rng = rng
        self._backoff = settings.backoff_initial
        self._pending: list[tuple[str | None, Lease]] = []  # (expected head, record) lost
        self._sending: Send | None = None
        self._wait = 0.0  # the wait a WAIT or BACK_OFF state takes
        self._last_error: BackendError | AmbiguousOutcome | None = None
        self._streak = 0  # conflicts and lost answers in a row
        self._current: Lease | None = None  # the record of the last read
        self._announced: tuple[str, int, str] | None = None
        self._read_time = 0  # GitHub's time of the last read (its Date)
        self._quick = 0.0  # the last wait after "was submitted too quickly" (0: none)
        if observed is not None:
            self.feed(observed)

    # -- what a result shows ---------------------------------------------------------

    def classify(self, result: Result) -> tuple[Seen, object]:
        if isinstance(result, Failed):
            return (Seen.RETRYABLE if getattr(result.error, "retryable", False)
                    else Seen.FATAL), result.error
        if self.state is Acquiring.READ:
            if not isinstance(result, Answered):  # pragma: no cover - a loop's defect
                raise TypeError(f"a read gives Answered or Failed, not {result!r}")
            return self._judge(result)
        if isinstance(result, Answered):
            return Seen.WROTE, result
        if isinstance(result, Conflict):
            return (Seen.CONFLICT if self._streak == 0 else Seen.CONFLICT_AGAIN), result
        if isinstance(result, Lost):
            # "was submitted too quickly" (retry_after) takes its own wait, then reads
            again = self._streak > 0 and result.retry_after <= 0
            return (Seen.LOST_AGAIN if again else Seen.LOST), result
        raise TypeError(  # pragma: no cover - a defect of the driving loop
            f"a send gives Answered, Conflict, Lost or Failed, not {result!r}")

    def _judge(self, answer: Answered) -> tuple[Seen, object]:
        snap: RefSnapshot = answer.value
        if snap.oid is None:
            return Seen.NO_REF, _Reading(snap, answer.sent, None)
        try:
            current = read_lease(snap.message, ref=self._name, scope=self._scope)
        except LeaseCorrupt as exc:
            return Seen.NOT_A_LEASE, exc
        landed = [e for e, record in self._pending if record == current]
        if landed:
            return Seen.OURS, Acquired(current, snap.oid, snap.server_time, answer.sent,
                                       reconciled=True, taken_from=landed[0])
        if snap.server_time < expiry_of(current):
            return Seen.LIVE, _Reading(snap, answer.sent, current)
        return Seen.EXPIRED, _Reading(snap, answer.sent, current)

    def arrives(self, now: float) -> Seen | None:
        if self.state in (Acquiring.WAIT, Acquiring.BACK_OFF):
            return Seen.TIME_LEFT if self._deadline - now > 0 else Seen.DEADLINE
        return None

    def ask(self, now: float) -> Step:
        if self.state is Acquiring.SEND:
            assert self._sending is not None
            return self._sending
        return Read(self._name)

    @property
    def _deadline(self) -> float:
        return self._start + self._s.acquire_timeout

    # -- effects -------------------------------------------------------------------------

    def _jittered(self) -> float:
        value = self._backoff * (0.5 + 0.5 * self._rng.random())
        self._backoff = min(self._backoff * self._s.backoff_factor, self._s.backoff_max)
        return max(value, min(self._s.backoff_initial, self._s.backoff_max))

    def _saw(self, reading: _Reading) -> None:
        """Keep the record read and GitHub's time of the read; forget writes that
        expected another head (heads never return to an old commit: they can never land
        now)."""
        self._read_time = reading.snapshot.server_time
        self._current = reading.current
        self._pending = [p for p in self._pending if p[0] == reading.snapshot.oid]

    def _claim(self, reading: _Reading, now: float) -> None:
        """Send a record from the head read: the same bytes again after a lost answer for
        this head, else the next token carrying the record's journal and witness."""
        self._saw(reading)
        snap, current = reading.snapshot, reading.current
        reuse = next((r for e, r in self._pending if e == snap.oid), None)
        if reuse is not None:
            record = reuse  # the same bytes again: at most one copy can land
        else:
            record = self._scope.lease(
                holder=self._holder, token=1 if current is None else current.token + 1,
                state="held", expires_at=expiry(self._s, snap.server_time, reading.sent, now),
                journal=None if current is None else current.journal,
                head=Witness(0, None) if current is None else current.head)
        self._sending = Send(LeaseWrite(self._name, snap.oid, record))

    def _wait_for_holder(self, reading: _Reading, now: float) -> None:
        self._saw(reading)
        self._streak = 0
        assert reading.current is not None
        until = expiry_of(reading.current) - reading.snapshot.server_time \
            + HTTP_DATE_RESOLUTION
        self._wait = min(self._jittered(), until)

    def _acquired(self, answer: Answered, now: float) -> Done:
        assert self._sending is not None
        put: LeaseWrite = self._sending.request
        write: RefWrite = answer.value
        return Done(Acquired(put.record, write.oid, write.server_time, answer.sent,
                             taken_from=put.expected))

    def _ended(self, value: object, now: float) -> Done:
        return Done(value)

    def _refuse(self, error: Exception, now: float) -> Refuse:
        return Refuse(error)

    def _failed(self, error: BackendError, now: float) -> None:
        self._last_error = error
        self._wait = max(self._jittered(), float(error.retry_after or 0.0))

    def _conflicted(self, result: Conflict, now: float) -> None:
        self._last_error = None
        self._streak += 1

    def _conflicted_again(self, result: Conflict, now: float) -> None:
        self._conflicted(result, now)
        self._wait = self._jittered()

    def _lost(self, result: Lost, now: float) -> Sleep | Refuse | None:
        assert self._sending is not None and isinstance(result.error, AmbiguousOutcome)
        put: LeaseWrite = self._sending.request
        self._last_error = result.error
        if not any(r == put.record for _, r in self._pending):
            self._pending.append((put.expected, put.record))
        self._streak += 1
        if result.retry_after > 0:
            # GitHub's "was submitted too quickly": the write may have landed. Wait (at
            # least what it asks, doubling), then read the ref back; once past the
            # acquire timeout, give up (the write is pending: an unknown outcome).
            if now >= self._deadline:
                return Refuse(self._gave_up(now, failing=False))
            self._quick = max(result.retry_after, self._quick * 2)
            return wait(self._quick, f"GitHub answered \"was submitted too quickly\" to "
                                     f"the write of lease ref {self._name} (its limit on "
                                     "creating content; the write may have landed); "
                                     "reading the ref back then")
        return None

    def _lost_again(self, result: Lost, now: float) -> Sleep | Refuse | None:
        step = self._lost(result, now)
        self._wait = self._jittered()
        return step

    def _sleep(self, _: None, now: float) -> Sleep:
        left = self._deadline - now
        return Sleep(min(self._wait, left), self._notice(left))

    def _sleep_quietly(self, _: None, now: float) -> Sleep:
        seconds = min(self._wait, self._deadline - now)
        if getattr(self._last_error, "retry_after", None):  # a limit: say why the wait
            return wait(seconds, f"a GitHub limit answered a write of lease ref "
                                 f"{self._name}: {self._last_error}")
        return Sleep(seconds)

    def _give_up(self, _: None, now: float) -> Refuse:
        return Refuse(self._gave_up(now, failing=False))

    def _give_up_failing(self, _: None, now: float) -> Refuse:
        return Refuse(self._gave_up(now, failing=True))

    def _gave_up(self, now: float, *, failing: bool) -> Exception:
        waited = now - self._start
        if self._pending:
            latest = self._pending[-1][1]
            return AcquireAmbiguous(
                f"could not learn whether acquiring writer scope {self._scope.key} landed "
                f"within {waited:.1f} s; if it did, the lease expires by itself at "
                f"{latest.expires_at} (GitHub's clock)")
        if failing and self._last_error is not None:
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

    def _notice(self, left: float) -> str | None:
        """One line when a wait for another holder starts that may last > 2 s."""
        current = self._current
        if current is None:
            return None
        until = expiry_of(current)
        key = (current.holder, current.token, current.state)
        expected = min(until - self._read_time + HTTP_DATE_RESOLUTION, left)
        if key == self._announced or expected <= NOTICE_AFTER:
            return None
        self._announced = key
        what = "released it and stays quiet" if current.state == "released" else "holds it"
        return (f"waiting up to {expected:.0f} s for writer scope {self._scope.key}: "
                f"{current.holder} (fencing token {current.token}) {what} until "
                f"{current.expires_at} by GitHub's clock")

    RULES = {
        # A read of the ref. No ref: create it (token 1, no journal, no witness);
        # expired: the next token, the record's journal and witness carried forward.
        (Acquiring.READ, Seen.NO_REF): (_claim, Acquiring.SEND),
        (Acquiring.READ, Seen.NOT_A_LEASE): (_refuse, Acquiring.REFUSED),
        (Acquiring.READ, Seen.OURS): (_ended, Acquiring.DONE),
        (Acquiring.READ, Seen.LIVE): (_wait_for_holder, Acquiring.WAIT),
        (Acquiring.READ, Seen.EXPIRED): (_claim, Acquiring.SEND),
        (Acquiring.READ, Seen.RETRYABLE): (_failed, Acquiring.BACK_OFF),
        (Acquiring.READ, Seen.FATAL): (_refuse, Acquiring.REFUSED),
        # The answer to a send. The first conflict or lost answer in a row reads again
        # at once, a repeated one after a backoff; a lost write is remembered (its bytes
        # go again for the same head, and a read finding it on the ref is an acquisition).
        (Acquiring.SEND, Seen.WROTE): (_acquired, Acquiring.DONE),
        (Acquiring.SEND, Seen.CONFLICT): (_conflicted, Acquiring.READ),
        (Acquiring.SEND, Seen.CONFLICT_AGAIN): (_conflicted_again, Acquiring.WAIT),
        (Acquiring.SEND, Seen.LOST): (_lost, Acquiring.READ),
        (Acquiring.SEND, Seen.LOST_AGAIN): (_lost_again, Acquiring.WAIT),
        (Acquiring.SEND, Seen.RETRYABLE): (_failed, Acquiring.BACK_OFF),
        (Acquiring.SEND, Seen.FATAL): (_refuse, Acquiring.REFUSED),
        # A wait, before the acquire timeout runs out or at it. A wait for a holder is
        # told (once per holder, when longer than NOTICE_AFTER); a back-off is not.
        (Acquiring.WAIT, Seen.TIME_LEFT): (_sleep, Acquiring.READ),
        (Acquiring.WAIT, Seen.DEADLINE): (_give_up, Acquiring.REFUSED),
        (Acquiring.BACK_OFF, Seen.TIME_LEFT): (_sleep_quietly, Acquiring.READ),
        (Acquiring.BACK_OFF, Seen.DEADLINE): (_give_up_failing, Acquiring.REFUSED),
    }


# -- renew and release ----------------------------------------------------------------


class Head(enum.Enum):
    """What a read of the ref after a conflict or a lost answer of the holder shows."""

    UNCHANGED = "unchanged"  # still the holder's head (or a lagging read)
    ADOPTED = "adopted"  # a pending write of the holder is the head
    MOVED = "moved"  # another writer owns the ref now


@dataclass(frozen=True, slots=True)
class Reconciled:
    """:func:`reconcile`'s answer: ``head``, the ``record`` adopted (``ADOPTED``), and for
    ``MOVED`` the ``reason`` (what was seen)."""

    head: Head
    record: Lease | None = None
    reason: str = ""


def reconcile(snapshot: RefSnapshot, *, name: str, scope: Scope, oid: str,
              pending: list[Lease]) -> Reconciled:
    """What a read of the ref after a conflict or a lost answer of the holder means.

    Returns:
        ``UNCHANGED``: the head is still the holder's (or a lagging read); a pending
        write may still land. ``ADOPTED`` with the record: a pending write of the holder
        is the head. ``MOVED`` with the reason: another writer owns the ref now.
    """
    if snapshot.oid == oid:
        return Reconciled(Head.UNCHANGED)
    if snapshot.oid is None:
        return Reconciled(Head.MOVED, reason="the lease ref was deleted")
    try:
        current = read_lease(snapshot.message, ref=name, scope=scope)
    except LeaseCorrupt as exc:
        return Reconciled(Head.MOVED, reason=f"the lease ref was overwritten ({exc.detail})")
    if current in pending:
        return Reconciled(Head.ADOPTED, current)
    return Reconciled(Head.MOVED, reason=f"the lease ref moved to holder {current.holder!r} "
                                          f"(token {current.token})")


class Outcome(enum.Enum):
    """How a :class:`Renew` or :class:`Release` ended."""

    WROTE = "wrote"  # the record is on the ref, proven by the answer
    ADOPTED = "adopted"  # a pending write of the holder was found on the ref by a read
    KEPT = "kept"  # nothing changed that can be proven: keep what was held
    LOST = "lost"  # another writer owns the ref
    FAILED = "failed"  # the backend failed; nothing was written


@dataclass(frozen=True, slots=True)
class Written:
    """What a :class:`Renew` or :class:`Release` ends with: its ``outcome``; for
    ``WROTE`` and ``ADOPTED`` the ``record`` on the ref at ``oid``, proven by an answer
    at ``server_time`` to a request sent at ``sent``; for ``LOST`` and ``FAILED`` (and a
    ``KEPT`` whose read-back failed) the ``reason``."""

    outcome: Outcome
    record: Lease | None = None
    oid: str | None = None
    server_time: int | None = None
    sent: float | None = None
    reason: str = ""


class Writing(enum.Enum):
    """The states of :class:`Renew` and :class:`Release`."""

    SEND = "send the record"
    READ = "read the ref back"
    DONE = "done"


class Shown(enum.Enum):
    """What a result showed :class:`Renew` or :class:`Release`."""

    WROTE = "the compare-and-set landed"
    CONFLICT = "the compare-and-set failed"
    LOST = "the answer was lost"
    FAILED = "the send failed; nothing was written"
    UNCHANGED = "the read-back shows the holder's head"
    ADOPTED = "the read-back shows a pending write of the holder"
    MOVED = "the read-back shows another writer's ref"
    UNREAD = "the read-back failed"


class _Write(TableMachine[Writing]):
    """One compare-and-set of the holder's record, reconciled by a read after a conflict
    or a lost answer (the shared part of :class:`Renew` and :class:`Release`)."""

    def __init__(self, scope: Scope, name: str, oid: str, record: Lease,
                 pending: list[Lease]) -> None:
        super().__init__(Writing.SEND)
        self._scope = scope
        self._name = name
        self._oid = oid
        self._record = record
        self._pending = pending

    def classify(self, result: Result) -> tuple[Shown, object]:
        if self.state is Writing.SEND:
            if isinstance(result, Answered):
                return Shown.WROTE, result
            if isinstance(result, Conflict):
                return Shown.CONFLICT, result
            if isinstance(result, Lost):
                return Shown.LOST, result
            if isinstance(result, Failed):
                return Shown.FAILED, result
            raise TypeError(  # pragma: no cover - a defect of the driving loop
                f"a send gives Answered, Conflict, Lost or Failed, not {result!r}")
        if isinstance(result, Failed):
            return Shown.UNREAD, result
        assert isinstance(result, Answered)
        seen = reconcile(result.value, name=self._name, scope=self._scope, oid=self._oid,
                         pending=self._pending)
        return Shown[seen.head.name], (result, seen)

    def ask(self, now: float) -> Step:
        """The next step (``now`` is unused: these protocols never wait)."""
        if self.state is Writing.SEND:
            return Send(LeaseWrite(self._name, self._oid, self._record))
        return Read(self._name)

    def _wrote(self, answer: Answered, now: float) -> Done:
        write: RefWrite = answer.value
        return Done(Written(Outcome.WROTE, self._record, write.oid, write.server_time,
                            answer.sent))

    def _remember(self, result: Lost, now: float) -> Sleep | None:
        self._pending.append(self._record)
        if result.retry_after > 0:  # "was submitted too quickly": it may have landed
            return wait(result.retry_after, f"GitHub answered \"was submitted too "
                                            f"quickly\" to the write of lease ref "
                                            f"{self._name}; reading the ref back then")
        return None

    def _failed(self, result: Failed, now: float) -> Done:
        return Done(Written(Outcome.FAILED, reason=str(result.error)))

    def _kept(self, _: object, now: float) -> Done:
        return Done(Written(Outcome.KEPT))

    def _unread(self, _: Failed, now: float) -> Done:
        return Done(Written(Outcome.KEPT, reason="the read-back failed"))

    def _adopted(self, read: tuple[Answered, Reconciled], now: float) -> Done:
        answer, seen = read
        snap: RefSnapshot = answer.value
        return Done(Written(Outcome.ADOPTED, seen.record, snap.oid, snap.server_time,
                            answer.sent))

    def _moved(self, read: tuple[Answered, Reconciled], now: float) -> Done:
        return Done(Written(Outcome.LOST, reason=read[1].reason))

    RULES = {
        (Writing.SEND, Shown.WROTE): (_wrote, Writing.DONE),
        (Writing.SEND, Shown.CONFLICT): (None, Writing.READ),
        (Writing.SEND, Shown.LOST): (_remember, Writing.READ),
        (Writing.SEND, Shown.FAILED): (_failed, Writing.DONE),
        # Still the holder's head (or a lagging read): a pending write may still land;
        # a failed read-back keeps the lease provable by time alone.
        (Writing.READ, Shown.UNCHANGED): (_kept, Writing.DONE),
        (Writing.READ, Shown.ADOPTED): (_adopted, Writing.DONE),
        (Writing.READ, Shown.MOVED): (_moved, Writing.DONE),
        (Writing.READ, Shown.UNREAD): (_unread, Writing.DONE),
    }


class Renew(_Write):
    """Extend the lease (docs/exclusion.md, "Renewing"): one compare-and-set from the
    holder's own head carrying ``record`` (the new expiry and the witness to carry).

    Ends with :class:`Written`: ``WROTE``; ``ADOPTED`` (an earlier renewal whose answer
    was lost had landed); ``KEPT`` (the head is still ours, or the read failed: keep the
    lease provable by time alone); ``LOST`` (another holder took over: the scope is lost
    for good); ``FAILED`` (nothing written; keep the current lease).
    """


class Release(_Write):
    """Hand the scope over (docs/exclusion.md, "Releasing"): write ``record`` with
    ``state: released``, the witness and the quiet-until expiry. ``ADOPTED`` means an
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
