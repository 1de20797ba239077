"""The store's protocols as pure state machines: the append of one record, and the
capture that must hold every record the lease's witness names.

Written in the shared vocabulary of :mod:`ghattempt.protocol` (as the lease's machines
are): a machine is asked for a step and fed what each request gave, and
:func:`~ghattempt.protocol.drive` runs it; the store performs the requests::

    done = drive(Append(record, max_sends=3), perform, sleep)
    # perform(Send(record)) -> Answered(comment) | Lost() | Limited(error, retry_after)
    # perform(Read())       -> Answered(Captured(...))   (capture and replay the journal)

No I/O, no clock. Each machine's rules are its ``RULES`` (``(state, what a result
showed) -> (effect, next state)``); ``tests/store/test_protocol.py`` feeds each row by
hand.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ghattempt.protocol import (
    Answered,
    Done,
    Limited,
    Lost,
    Read,
    Refuse,
    Result,
    Send,
    Sleep,
    Step,
    TableMachine,
    drive,
    wait,
)

from ..core import (
    Attempt,
    Event,
    JournalInvalid,
    JournalState,
    Verdict,
    Witness,
    parse_lease,
    read_back,
)
from ..core import Capture as JournalCapture
from ..errors import Fault
from ..github import RateLimited
from ._errors import (
    ConflictingKey,
    GitHubAnomaly,
    JournalInvalidError,
    RefusedByRules,
    WitnessNotMet,
)

__all__ = [
    "MAX_RATE_WAIT",
    "MAX_RATE_WAITS",
    "MAX_SENDS",
    "Append",
    "Appended",
    "Capture",
    "Captured",
    "capture_until_witnessed",
    "witness_in",
]

MAX_SENDS = 3
"""How often one record's bytes are sent at most (the first send included)."""

MAX_RATE_WAITS = 3
"""How often one write waits out a rate limit (GitHub did not execute it) before giving up."""

MAX_RATE_WAIT = 120.0
"""The longest ``retry-after`` (seconds) a write waits out; a longer one is raised."""


@dataclass(frozen=True, slots=True)
class Captured:
    """A capture was read: ``verdict`` is the core reader's, ``capture`` what was read
    (None: responses that did not parse, which the verdict names), ``witness`` the
    lease's witness it carries (None: no lease member). What a
    :class:`~ghattempt.protocol.Read` of the store's machines is answered with."""

    verdict: Verdict
    capture: JournalCapture | None = None
    witness: Witness | None = None


# -- append -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Appended:
    """How an append ended: ``comment`` (None when a read-back found the record),
    ``sends`` (how often the bytes went out), ``state`` and ``capture`` (the journal as
    read back, when it was), ``reconciled`` (a lost answer was resolved by reading
    back)."""

    comment: Any
    sends: int
    state: JournalState | None = None
    capture: JournalCapture | None = None
    reconciled: bool = False


class Appending(enum.Enum):
    """The states of :class:`Append`."""

    SEND = "send the record's bytes"
    READ = "read the journal back"
    DONE = "appended"
    REFUSED = "refused"


class Heard(enum.Enum):
    """What a result showed :class:`Append` (after a read-back: the core's
    ``read_back``)."""

    ANSWERED = "GitHub answered the send"
    LIMITED = "a rate limit refused the send (not executed); it may be waited out"
    OVER_LIMIT = "a rate limit refused the send, too long or too often to wait out"
    LOST = "the send's answer was lost"
    TOO_QUICKLY = ("GitHub's content limit answered (\"was submitted too quickly\"); the "
                   "write may have landed")
    LANDED = "the read-back holds the record"
    ABSENT_YET = "the read-back lacks the record; more read-backs are due (replicas lag)"
    ABSENT = "every read-back lacked the record; sends are left"
    ABSENT_AFTER_ALL = "every read-back lacked the record after the last send allowed"
    LIMITED_AFTER_ALL = ("every read-back lacked the record after the last send allowed, "
                         "which GitHub's content limit answered")
    CONFLICT = "the key holds another record"
    HEAD_MOVED = "the attempt's head moved"
    FORK = "another attempt of the request key has the same predecessor"
    VANISHED = "the read-back lacks the attempt the event belongs to"
    INVALID = "the journal read back is invalid"


class Append(TableMachine[Appending]):
    """Write one record by the writer protocol (docs/store.md, the writer protocol);
    the rules are ``RULES``.

    An answer ends it. GitHub's "was submitted too quickly" (a limit that does not say
    whether the write ran: ``Lost`` with a ``retry_after``) waits at least that long,
    doubling each time, then reads back as for a lost answer; after the last send allowed
    it reads back once more and, absent, raises ``RateLimited`` (nothing was written;
    try again later). A rate-limited send (not executed) waits ``retry-after`` and
    sends the same bytes again, at most :data:`MAX_RATE_WAITS` times and only for waits
    of at most :data:`MAX_RATE_WAIT` seconds; else the rate limit is raised. A lost answer
    reads the journal back, and the core's ``read_back`` decides: ``landed`` ends it
    (reconciled); ``absent`` reads back again, ``reads`` read-backs in all, after waits
    of ``base`` doubling up to ``cap`` seconds (a comment GitHub committed stays
    invisible while its replicas lag), and only when every one says absent the same
    bytes go again (at most :data:`MAX_SENDS` sends, then ``GitHubAnomaly``);
    ``conflict`` is ``ConflictingKey``; ``moved`` is refused (``head_moved``, or
    ``fork`` for a root); ``vanished`` fails closed (``identity_drift``). A read-back
    of an invalid journal fails closed (``JournalInvalidError``).

    The caller proves it holds the writer scope before every send (``owner.mutation()``).
    """

    def __init__(self, record: Attempt | Event, *, max_sends: int = MAX_SENDS,
                 reads: int = 1, base: float = 0.0, cap: float = 0.0) -> None:
        super().__init__(Appending.SEND)
        self._record = record
        self._max = max_sends
        self._sends = 0
        self._waits = 0
        self._reads = max(1, reads)
        self._base = base
        self._cap = cap
        self._absent = 0  # read-backs in a row that found the record absent
        self._quick = 0.0  # the last wait after "was submitted too quickly" (0: none)
        self._quick_last = False  # the last send was answered so

    @property
    def sends(self) -> int:
        """How often the bytes were sent so far."""
        return self._sends

    def ask(self, now: float) -> Step:
        if self.state is Appending.SEND:
            self._sends += 1
            self._absent = 0
            return Send(self._record)
        return Read()

    def classify(self, result: Result) -> tuple[Heard, object]:
        if self.state is Appending.READ:
            assert isinstance(result, Answered) and isinstance(result.value, Captured)
            return self._judge(result.value)
        if isinstance(result, Answered):
            return Heard.ANSWERED, result.value
        if isinstance(result, Limited):
            over = (self._waits + 1 > MAX_RATE_WAITS
                    or float(result.retry_after) > MAX_RATE_WAIT)
            return (Heard.OVER_LIMIT if over else Heard.LIMITED), result
        if isinstance(result, Lost):
            self._quick_last = result.retry_after > 0
            return (Heard.TOO_QUICKLY if self._quick_last else Heard.LOST), result
        raise TypeError(  # pragma: no cover - a defect of the driving loop
            f"a send gives Answered, Lost or Limited, not {result!r}")

    def _judge(self, captured: Captured) -> tuple[Heard, object]:
        state = captured.verdict.journal
        if state is None:
            return Heard.INVALID, captured.verdict
        back = read_back(state, self._record)
        if back.outcome == "landed":
            return Heard.LANDED, captured
        if back.outcome == "absent":
            if self._absent + 1 < self._reads:
                return Heard.ABSENT_YET, back
            if self._sends < self._max:
                return Heard.ABSENT, back
            return (Heard.LIMITED_AFTER_ALL if self._quick_last else Heard.ABSENT_AFTER_ALL), back
        if back.outcome == "conflict":
            return Heard.CONFLICT, back
        if back.outcome == "moved":
            return (Heard.HEAD_MOVED if isinstance(self._record, Event) else Heard.FORK), back
        return Heard.VANISHED, back

    # -- effects -------------------------------------------------------------------------

    def _appended(self, comment: Any, now: float) -> Done:
        return Done(Appended(comment, self._sends))

    def _rate_wait(self, limited: Limited, now: float) -> Sleep:
        self._sends -= 1  # not executed: it does not count as a send
        self._waits += 1
        seconds = float(limited.retry_after)
        return wait(seconds, f"GitHub's rate limit refused the write (retry-after "
                             f"{seconds:g} s)")

    def _rate_limited(self, limited: Limited, now: float) -> Refuse:
        return Refuse(limited.error)

    def _too_quickly(self, lost: Lost, now: float) -> Sleep:
        self._quick = max(float(lost.retry_after), self._quick * 2)
        return wait(self._quick, "GitHub answered \"was submitted too quickly\" (its limit "
                                 "on creating content; the write may have landed); reading "
                                 "the journal back then")

    def _limited_after_all(self, back: Any, now: float) -> Refuse:
        return Refuse(RateLimited(
            f"GitHub's limit on creating content (\"was submitted too quickly\") answered "
            f"all {self._sends} sends of the record, and reading the journal back showed "
            "none of them landed: nothing was written. Try again later (the limit lasts "
            "minutes, up to an hour)", kind="secondary", retry_after=self._quick * 2))

    def _landed(self, captured: Captured, now: float) -> Done:
        return Done(Appended(None, self._sends, captured.verdict.journal, captured.capture,
                             reconciled=True))

    def _read_again(self, back: Any, now: float) -> Sleep:
        self._absent += 1
        return wait(min(self._cap, self._base * 2 ** (self._absent - 1)),
                    "the write's answer was lost and the journal does not show it yet "
                    "(replicas lag); reading back again")

    def _unknown(self, back: Any, now: float) -> Refuse:
        error = GitHubAnomaly(
            f"the outcome of a write stayed unknown after {self._max} sends of the same "
            "bytes; the writer scope was kept throughout. Capture the journal again before "
            "anything else")
        # try again (exit 4), not "a person must act": the same request with the same
        # key reads the record back before it sends anything
        error.fault = Fault.OUTCOME_UNKNOWN
        return Refuse(error)

    def _conflicting(self, back: Any, now: float) -> Refuse:
        assert isinstance(self._record, Event) and back.found is not None
        return Refuse(ConflictingKey(self._record.key, back.found))

    def _head_moved(self, back: Any, now: float) -> Refuse:
        assert isinstance(self._record, Event)
        return Refuse(RefusedByRules(
            "head_moved", f"the head of attempt {self._record.attempt} moved while the "
            f"write's outcome was unknown ({back.detail}); not re-sending"))

    def _forked(self, back: Any, now: float) -> Refuse:
        assert isinstance(self._record, Attempt)
        return Refuse(RefusedByRules(
            "fork", f"another attempt for {self._record.request_key} appeared while the "
            f"write's outcome was unknown ({back.detail})"))

    def _vanished(self, back: Any, now: float) -> Refuse:
        return Refuse(JournalInvalidError("identity_drift", back.detail))

    def _invalid(self, verdict: Verdict, now: float) -> Refuse:
        return Refuse(JournalInvalidError(verdict.reason or "invalid", verdict.detail))

    RULES = {
        # the answer to a send
        (Appending.SEND, Heard.ANSWERED): (_appended, Appending.DONE),
        (Appending.SEND, Heard.LIMITED): (_rate_wait, Appending.SEND),  # the same bytes
        (Appending.SEND, Heard.OVER_LIMIT): (_rate_limited, Appending.REFUSED),
        (Appending.SEND, Heard.LOST): (None, Appending.READ),
        (Appending.SEND, Heard.TOO_QUICKLY): (_too_quickly, Appending.READ),
        # a read-back, judged by the core's read_back
        (Appending.READ, Heard.LANDED): (_landed, Appending.DONE),
        (Appending.READ, Heard.ABSENT_YET): (_read_again, Appending.READ),
        (Appending.READ, Heard.ABSENT): (None, Appending.SEND),  # the same bytes again
        (Appending.READ, Heard.ABSENT_AFTER_ALL): (_unknown, Appending.REFUSED),
        (Appending.READ, Heard.LIMITED_AFTER_ALL): (_limited_after_all, Appending.REFUSED),
        (Appending.READ, Heard.CONFLICT): (_conflicting, Appending.REFUSED),
        (Appending.READ, Heard.HEAD_MOVED): (_head_moved, Appending.REFUSED),
        (Appending.READ, Heard.FORK): (_forked, Appending.REFUSED),
        (Appending.READ, Heard.VANISHED): (_vanished, Appending.REFUSED),
        (Appending.READ, Heard.INVALID): (_invalid, Appending.REFUSED),
    }


# -- capture that meets the witness ---------------------------------------------------------


class Capturing(enum.Enum):
    """The states of :class:`Capture`."""

    READ = "capture the journal"
    DONE = "captured"
    REFUSED = "refused"


class Holds(enum.Enum):
    """What a capture showed :class:`Capture`."""

    WITNESSED = "a valid journal, holding every record the witness names"
    SHORT = "fewer records than the witness names (rolled_back); reads are left"
    STILL_SHORT = "fewer records than the witness names, at the last read"
    INVALID = "an invalid journal, for another reason"


class Capture(TableMachine[Capturing]):
    """Capture the journal until it holds every record the lease's witness names
    (journal-v1 section 4: a writer builds on a capture only then); the rules are
    ``RULES``.

    Refs are read current while comments can lag for seconds (git storage and the
    database are separate), so a capture that reads ``rolled_back`` is read again,
    ``attempts`` times in all, after waits of ``base`` doubling up to ``cap`` seconds.
    Still short: :class:`WitnessNotMet` naming what is missing (fail closed; a deleted
    or edited newest record reads exactly like this). Any other invalid verdict fails
    closed at once (``JournalInvalidError``). Ends with ``Captured``.
    """

    def __init__(self, *, attempts: int, base: float, cap: float) -> None:
        super().__init__(Capturing.READ)
        self._attempts = max(1, attempts)
        self._base = base
        self._cap = cap
        self._reads = 0

    def ask(self, now: float) -> Step:
        self._reads += 1
        return Read()

    def classify(self, result: Result) -> tuple[Holds, object]:
        assert isinstance(result, Answered) and isinstance(result.value, Captured)
        captured: Captured = result.value
        verdict = captured.verdict
        if verdict.journal is not None:
            return Holds.WITNESSED, captured
        if verdict.reason != "rolled_back":
            return Holds.INVALID, captured
        return (Holds.STILL_SHORT if self._reads >= self._attempts else Holds.SHORT), captured

    def _witnessed(self, captured: Captured, now: float) -> Done:
        return Done(captured)

    def _read_again(self, captured: Captured, now: float) -> Sleep:
        return wait(min(self._cap, self._base * 2 ** (self._reads - 1)),
                    "the journal read holds fewer records than the lease's witness names "
                    "(comments lag refs); reading again")

    def _short(self, captured: Captured, now: float) -> Refuse:
        return Refuse(WitnessNotMet(captured.verdict.detail, self._reads, captured.witness))

    def _invalid(self, captured: Captured, now: float) -> Refuse:
        verdict = captured.verdict
        return Refuse(JournalInvalidError(verdict.reason or "invalid", verdict.detail))

    RULES = {
        (Capturing.READ, Holds.WITNESSED): (_witnessed, Capturing.DONE),
        (Capturing.READ, Holds.SHORT): (_read_again, Capturing.READ),
        (Capturing.READ, Holds.STILL_SHORT): (_short, Capturing.REFUSED),
        (Capturing.READ, Holds.INVALID): (_invalid, Capturing.REFUSED),
    }


def capture_until_witnessed(read: Callable[[], Captured], sleep: Callable[[Sleep], None],
                            *, attempts: int, base: float,
                            cap: float) -> tuple[Captured, JournalInvalidError | None]:
    """Drive :class:`Capture` with ``read`` (one capture, read by the core) and ``sleep``
    (a :class:`~ghattempt.protocol.Sleep` to take, and tell when it says so): the last
    capture read, and the error when it is short of its witness or invalid (for a writer
    to raise; a reader hands the capture over anyway)."""
    machine = Capture(attempts=attempts, base=base, cap=cap)
    reads: list[Captured] = []

    def perform(step: Send | Read) -> Result:
        reads.append(read())
        return Answered(reads[-1])

    try:
        drive(machine, perform, sleep)
    except JournalInvalidError as exc:
        if machine.state is not Capturing.REFUSED:
            raise  # from ``read``, not the machine's refusal
        return reads[-1], exc
    return reads[-1], None


def witness_in(capture: JournalCapture | JournalInvalid | None) -> Witness | None:
    """The witness of the lease member a capture carries, if it holds a lease record
    (journal-v1 section 4); None for responses that did not parse."""
    if not isinstance(capture, JournalCapture) or capture.lease is None \
            or capture.lease.message is None:
        return None
    try:
        return parse_lease(capture.lease.message).head
    except JournalInvalid:
        return None


# Public as ghattempt.store (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    Captured, capture_until_witnessed, witness_in,
):
    _exported.__module__ = "ghattempt.store"
del _exported
