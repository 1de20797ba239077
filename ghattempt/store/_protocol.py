"""The store's protocols as pure state machines: the append of one record, and the
capture that must hold every record the lease's witness names.

A machine is asked what to do next and told what happened (as the lease machines of
``ghattempt.exclusive._machine``); the store's loops perform the requests::

    machine = Append(record, max_sends=3)
    while True:
        action = machine.next()
        if isinstance(action, Send):    machine.feed(<addDiscussionComment, the same bytes>)
        elif isinstance(action, Read):  machine.feed(<capture and replay the journal>)
        elif isinstance(action, Sleep): sleep(action.seconds)
        elif isinstance(action, Done):  return action.value
        else:                           raise action.error          # Refuse

No I/O, no clock. Each rule is a row of the tables in ``tests/store/test_protocol.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
from ..exclusive import NOTICE_AFTER, Done, Refuse, Sleep
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
    "wait",
    "witness_in",
    "Done",
    "Limited",
    "Lost",
    "Read",
    "Refuse",
    "Send",
    "Sent",
    "Sleep",
]

MAX_SENDS = 3
"""How often one record's bytes are sent at most (the first send included)."""

MAX_RATE_WAITS = 3
"""How often one write waits out a rate limit (GitHub did not execute it) before giving up."""

MAX_RATE_WAIT = 120.0
"""The longest ``retry-after`` (seconds) a write waits out; a longer one is raised."""


# -- actions ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Send the record's bytes (``addDiscussionComment``; the same bytes every time).
    Feed :class:`Sent`, :class:`Lost` or :class:`Limited`."""


@dataclass(frozen=True, slots=True)
class Read:
    """Capture the journal and replay it. Feed :class:`Captured`."""


def wait(seconds: float, why: str) -> Sleep:
    """A :class:`Sleep` of ``seconds`` (:class:`Sleep`, :class:`Done` and
    :class:`Refuse` are the lease machines' own). One that lasts more than
    :data:`~ghattempt.exclusive._machine.NOTICE_AFTER` seconds is told: what, how long."""
    return Sleep(seconds, f"waiting {seconds:.0f} s: {why}" if seconds > NOTICE_AFTER
                 else None)


# -- results ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sent:
    """GitHub answered the send: ``comment`` is what it created."""

    comment: Any


@dataclass(frozen=True, slots=True)
class Lost:
    """The send got no answer that says whether it landed."""


@dataclass(frozen=True, slots=True)
class Limited:
    """GitHub refused the send for a rate limit, without executing it (``error``, with
    ``retry_after`` seconds)."""

    error: Any


@dataclass(frozen=True, slots=True)
class Captured:
    """A capture was read: ``verdict`` is the core reader's, ``pages`` what was read,
    ``witness`` the lease's witness the pages carry (None: no lease member)."""

    verdict: Verdict
    pages: Any = None
    witness: Witness | None = None


# -- append -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Appended:
    """How an append ended: ``comment`` (None when a read-back found the record),
    ``sends`` (how often the bytes went out), ``state`` (the journal as read back, when
    it was), ``reconciled`` (a lost answer was resolved by reading back)."""

    comment: Any
    sends: int
    state: JournalState | None = None
    pages: Any = None
    reconciled: bool = False


class Append:
    """Write one record by the writer protocol (docs/store.md, the writer protocol).

    Rules:

    1. send the bytes; an answer ends it;
    2. a rate-limited send (not executed) waits ``retry-after`` and sends the same bytes
       again, at most :data:`MAX_RATE_WAITS` times and only for waits of at most
       :data:`MAX_RATE_WAIT` seconds; else the rate limit is raised;
    3. a lost answer reads the journal back; the core's ``read_back`` decides:
       ``landed`` ends it (reconciled); ``absent`` reads back again, ``reads`` read-backs
       in all, after waits of ``base`` doubling up to ``cap`` seconds (a comment GitHub
       committed stays invisible while its replicas lag), and only when every one says
       absent sends the same bytes again (at most :data:`MAX_SENDS` sends, then
       ``GitHubAnomaly``); ``conflict`` is ``ConflictingKey``; ``moved`` is refused
       (``head_moved``, or ``fork`` for a root); ``vanished`` fails closed
       (``identity_drift``);
    4. a read-back of an invalid journal fails closed (``JournalInvalidError``).

    The caller proves it holds the writer scope before every send (``owner.mutation()``).
    """

    def __init__(self, record: Attempt | Event, *, max_sends: int = MAX_SENDS,
                 reads: int = 1, base: float = 0.0, cap: float = 0.0) -> None:
        self._record = record
        self._max = max_sends
        self._sends = 0
        self._waits = 0
        self._reads = max(1, reads)
        self._base = base
        self._cap = cap
        self._absent = 0  # read-backs in a row that found the record absent
        self._after_sleep: Send | Read = Send()
        self._next: Send | Read | Sleep | Done | Refuse = Send()

    @property
    def sends(self) -> int:
        """How often the bytes were sent so far."""
        return self._sends

    def next(self) -> Send | Read | Sleep | Done | Refuse:
        """The next action."""
        action = self._next
        if isinstance(action, Send):
            self._sends += 1
            self._absent = 0
        elif isinstance(action, Sleep):
            self._next = self._after_sleep
        return action

    def feed(self, result: Sent | Lost | Limited | Captured) -> None:
        """Tell the machine what the last :class:`Send` or :class:`Read` gave."""
        if isinstance(result, Sent):
            self._next = Done(Appended(result.comment, self._sends))
        elif isinstance(result, Limited):
            self._sends -= 1  # not executed: it does not count as a send
            self._waits += 1
            seconds = float(result.error.retry_after)
            if self._waits > MAX_RATE_WAITS or seconds > MAX_RATE_WAIT:
                self._next = Refuse(result.error)
            else:
                self._after_sleep = Send()
                self._next = wait(seconds, f"GitHub's rate limit refused the write "
                                           f"(retry-after {seconds:g} s)")
        elif isinstance(result, Lost):
            self._next = Read()
        else:
            self._next = self._judge(result)

    def _judge(self, captured: Captured) -> Done | Send | Read | Sleep | Refuse:
        state = captured.verdict.journal
        if state is None:
            return Refuse(JournalInvalidError(captured.verdict.reason or "invalid",
                                              captured.verdict.detail))
        back = read_back(state, self._record)
        if back.outcome == "landed":
            return Done(Appended(None, self._sends, state, captured.pages, reconciled=True))
        if back.outcome == "absent":
            self._absent += 1
            if self._absent < self._reads:
                self._after_sleep = Read()
                return wait(min(self._cap, self._base * 2 ** (self._absent - 1)),
                            "the write's answer was lost and the journal does not show it "
                            "yet (replicas lag); reading back again")
            if self._sends >= self._max:
                return Refuse(GitHubAnomaly(
                    f"the outcome of a write stayed unknown after {self._max} sends of the "
                    "same bytes; the writer scope was kept throughout. Capture the journal "
                    "again before anything else"))
            return Send()
        record = self._record
        if back.outcome == "conflict":
            assert isinstance(record, Event) and back.found is not None
            return Refuse(ConflictingKey(record.key, back.found))
        if back.outcome == "moved":
            if isinstance(record, Event):
                return Refuse(RefusedByRules(
                    "head_moved", f"the head of attempt {record.attempt} moved while the "
                    f"write's outcome was unknown ({back.detail}); not re-sending"))
            return Refuse(RefusedByRules(
                "fork", f"another attempt for {record.request_key} appeared while the "
                f"write's outcome was unknown ({back.detail})"))
        return Refuse(JournalInvalidError("identity_drift", back.detail))


# -- capture that meets the witness ---------------------------------------------------------


class Capture:
    """Capture the journal until it holds every record the lease's witness names
    (journal-v1 section 4: a writer builds on a capture only then).

    Refs are read current while comments can lag for seconds (git storage and the
    database are separate), so a capture that reads ``rolled_back`` is read again,
    ``attempts`` times in all, after waits of ``base`` doubling up to ``cap`` seconds.
    Still short: :class:`WitnessNotMet` naming what is missing (fail closed; a deleted
    or edited newest record reads exactly like this). Any other invalid verdict fails
    closed at once (``JournalInvalidError``). Ends with ``Captured``.
    """

    def __init__(self, *, attempts: int, base: float, cap: float) -> None:
        self._attempts = max(1, attempts)
        self._base = base
        self._cap = cap
        self._reads = 0
        self._next: Read | Sleep | Done | Refuse = Read()

    def next(self) -> Read | Sleep | Done | Refuse:
        """The next action."""
        action = self._next
        if isinstance(action, Read):
            self._reads += 1
        elif isinstance(action, Sleep):
            self._next = Read()
        return action

    def feed(self, result: Captured) -> None:
        """Tell the machine what the last :class:`Read` gave."""
        verdict = result.verdict
        if verdict.journal is not None:
            self._next = Done(result)
        elif verdict.reason != "rolled_back":
            self._next = Refuse(JournalInvalidError(verdict.reason or "invalid",
                                                    verdict.detail))
        elif self._reads >= self._attempts:
            self._next = Refuse(WitnessNotMet(verdict.detail, self._reads, result.witness))
        else:
            seconds = min(self._cap, self._base * 2 ** (self._reads - 1))
            self._next = wait(seconds, "the journal read holds fewer records than the lease's "
                                     "witness names (comments lag refs); reading again")


def capture_until_witnessed(read: Callable[[], Captured], sleep: Callable[[Sleep], None],
                            *, attempts: int, base: float,
                            cap: float) -> tuple[Captured, JournalInvalidError | None]:
    """Drive :class:`Capture` with ``read`` (one capture, read by the core) and ``sleep``
    (a :class:`Sleep` to take, and tell when it says so): the last capture read, and the
    error when it is short of its witness or invalid (for a writer to raise; a reader
    hands the pages over anyway)."""
    machine = Capture(attempts=attempts, base=base, cap=cap)
    got: Captured | None = None
    while True:
        action = machine.next()
        if isinstance(action, Read):
            got = read()
            machine.feed(got)
        elif isinstance(action, Sleep):
            sleep(action)
        else:
            assert got is not None
            if isinstance(action, Done):
                return got, None
            assert isinstance(action, Refuse) and isinstance(action.error, JournalInvalidError)
            return got, action.error


def witness_in(pages: list[dict[str, Any]]) -> Witness | None:
    """The witness of the lease member a capture's first page carries, if it holds a
    lease record (journal-v1 section 4)."""
    try:
        message = pages[0]["data"]["repository"]["lease"]["target"]["message"]
        return parse_lease(message).head
    except (LookupError, TypeError, JournalInvalid):
        return None


# Public as ghattempt.store (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    Captured, capture_until_witnessed, witness_in,
):
    _exported.__module__ = "ghattempt.store"
del _exported
