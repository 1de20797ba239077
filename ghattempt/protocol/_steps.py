"""Steps, results, rule tables and the one driver loop of ghattempt's protocols.

A protocol with retries (acquiring, renewing and releasing a lease; appending a record;
capturing until the witness is met) is a pure machine: asked what to do next, told what
happened, with no I/O and no clock of its own, as h11 drives an HTTP connection::

    step = machine.next(now)            # Send | Read | Sleep | Done | Refuse
    machine.feed(result)                # after a Send or a Read: what it gave

Steps (what a machine asks): :class:`Send` a write, :class:`Read`, :class:`Sleep`,
:class:`Done` (its value is the protocol's result), :class:`Refuse` (raise its error).
Results (what the loop feeds back after a Send or a Read): :class:`Answered` (the
request was answered), :class:`Conflict` (a compare-and-set failed: nothing written),
:class:`Lost` (sent; no answer says whether it landed), :class:`Limited` (a rate limit
refused it without executing it), :class:`Failed` (nothing written).

A machine's rules are the rows of one table, as in h2's ``H2ConnectionStateMachine``:
``(state, input) -> (effect, next state)``. The machine names what a result means (its
*input*, a member of its own enum); the row gives the effect (a function of the machine,
the result and the local time, returning the step it takes at once: a :class:`Sleep`, or
the :class:`Done` or :class:`Refuse` that ends it) and the state it is in afterwards;
each state asks for its own step (:meth:`TableMachine.ask`). A pair with no row is a
defect of the machine or of its loop.

:func:`drive` is the one loop: it performs each Send and Read with a function the caller
gives (the I/O), takes each Sleep, and returns the value of Done or raises the error of
Refuse.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

__all__ = [
    "NOTICE_AFTER",
    "Answered",
    "Conflict",
    "Done",
    "Failed",
    "Limited",
    "Lost",
    "Machine",
    "Read",
    "Refuse",
    "Result",
    "Rule",
    "Send",
    "Sleep",
    "Step",
    "TableMachine",
    "drive",
    "wait",
]

NOTICE_AFTER = 2.0
"""A wait expected to last longer than this (seconds) is announced (``Sleep.notice``)."""


# -- steps: what a machine asks ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Send:
    """Make a write: ``request`` says which (the machine's own type: the lease record to
    put on a ref; the record whose bytes the append sends). Feed :class:`Answered`,
    :class:`Conflict`, :class:`Lost`, :class:`Limited` or :class:`Failed`."""

    request: Any = None


@dataclass(frozen=True, slots=True)
class Read:
    """Make a read: ``request`` says which (a ref name; None: the one the loop knows,
    such as the journal). Feed :class:`Answered` or :class:`Failed`."""

    request: Any = None


@dataclass(frozen=True, slots=True)
class Sleep:
    """Wait ``seconds``, then ask again. ``notice`` is one line to tell the user when this
    starts a wait expected to last more than :data:`NOTICE_AFTER` seconds."""

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


Step = Send | Read | Sleep | Done | Refuse


def wait(seconds: float, why: str) -> Sleep:
    """A :class:`Sleep` of ``seconds`` for the reason ``why``; one longer than
    :data:`NOTICE_AFTER` seconds is told: ``waiting N s: why``."""
    return Sleep(seconds, f"waiting {seconds:.0f} s: {why}" if seconds > NOTICE_AFTER
                 else None)


# -- results: what the loop feeds back -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Answered:
    """The request was answered with ``value`` (a ref read or write, a comment, a
    capture); it was sent at local time ``sent`` (0.0 for machines that keep no time)."""

    value: Any
    sent: float = 0.0


@dataclass(frozen=True, slots=True)
class Conflict:
    """A write's compare-and-set failed: nothing was written."""


@dataclass(frozen=True, slots=True)
class Lost:
    """A write was sent and no answer says whether it landed (``error``, when there is
    one to name). ``retry_after`` > 0: a limit answered instead, one that does not say
    whether the write ran (GitHub's "was submitted too quickly"): wait that long before
    reading back."""

    error: Exception | None = None
    retry_after: float = 0.0


@dataclass(frozen=True, slots=True)
class Limited:
    """A rate limit refused the write without executing it (``error``); it may be sent
    again after ``retry_after`` seconds."""

    error: Exception
    retry_after: float


@dataclass(frozen=True, slots=True)
class Failed:
    """The request failed and wrote nothing (``error``)."""

    error: Exception


Result = Answered | Conflict | Lost | Limited | Failed


# -- machines ------------------------------------------------------------------------------


class Machine(Protocol):
    """What :func:`drive` runs: asked for a step at a local time, told each result."""

    def next(self, now: float) -> Step:
        """The next step, at local time ``now``."""
        ...

    def feed(self, result: Result) -> None:
        """What the last :class:`Send` or :class:`Read` gave."""
        ...


S = TypeVar("S", bound=enum.Enum)

Effect = Callable[[Any, Any, float], "Step | None"]
"""A row's effect: ``effect(machine, given, now)`` (``given``: what :meth:`classify`
gave with the input; None for an input the state raises by itself) -> the step taken at
once, or None for the state's own."""

Rule = tuple[Effect | None, Any]
"""A row's right-hand side: ``(effect or None, next state)``."""


class TableMachine(Generic[S]):
    """A machine whose rules are the rows of ``RULES``: ``(state, input) -> (effect,
    next state)``.

    A subclass names its states (an enum), its inputs (an enum), and gives:

    * ``RULES``: the table;
    * :meth:`classify`: what a fed result means in the current state (an input, and
      what the row's effect is given);
    * :meth:`ask`: the step the current state asks for;
    * :meth:`arrives` (optional): an input a state raises by itself at a local time (a
      wait that reached its deadline), applied before the state is asked.

    A step an effect returns is taken at once: a :class:`Sleep` once (then the state is
    asked), a :class:`Done` or :class:`Refuse` for good.
    """

    RULES: ClassVar[Mapping[tuple[Any, Any], Rule]]

    def __init__(self, state: S) -> None:
        self._state = state
        self._fed: Result | None = None
        self._once: Sleep | None = None
        self._end: Done | Refuse | None = None

    @property
    def state(self) -> S:
        """The state the machine is in."""
        return self._state

    def classify(self, result: Result) -> tuple[enum.Enum, Any]:
        """What ``result`` means in the current state: an input of ``RULES``, and what
        the row's effect is given (the result, or what the machine read in it)."""
        raise NotImplementedError

    def ask(self, now: float) -> Step:
        """The step the current state asks for."""
        raise NotImplementedError

    def arrives(self, now: float) -> enum.Enum | None:
        """An input the current state raises by itself at local time ``now``, if any."""
        return None

    def feed(self, result: Result) -> None:
        """Tell the machine what the last :class:`Send` or :class:`Read` gave."""
        self._fed = result

    def next(self, now: float = 0.0) -> Step:
        """The next step, at local time ``now``: the fed result's row applied first."""
        if self._end is None and self._fed is not None:
            result, self._fed = self._fed, None
            self._apply(*self.classify(result), now)
        while self._end is None and self._once is None:
            arrived = self.arrives(now)
            if arrived is None:
                break
            self._apply(arrived, None, now)
        if self._end is not None:
            return self._end
        if self._once is not None:
            step, self._once = self._once, None
            return step
        return self.ask(now)

    def _apply(self, seen: enum.Enum, result: Any, now: float) -> None:
        rule = self.RULES.get((self._state, seen))
        if rule is None:  # a defect of the machine or of its loop
            raise TypeError(f"{type(self).__name__} has no rule for {seen.name} in state "
                            f"{self._state.name} (fed {result!r})")
        effect, self._state = rule
        step = effect(self, result, now) if effect is not None else None
        if isinstance(step, Done | Refuse):
            self._end = step
        elif isinstance(step, Sleep):
            self._once = step
        elif step is not None:  # pragma: no cover - a defect of the machine
            raise TypeError(f"an effect takes a Sleep, Done or Refuse at once, not {step!r}")


def drive(machine: Machine, perform: Callable[[Send | Read], Result],
          sleep: Callable[[Sleep], None], clock: Callable[[], float] | None = None) -> Any:
    """Run ``machine`` to its end: ``perform`` each :class:`Send` and :class:`Read` (the
    I/O; it returns the result to feed), ``sleep`` each :class:`Sleep`; ask at the local
    times ``clock`` reads (0.0 without one). Returns :class:`Done`'s value.

    Raises:
        the error of :class:`Refuse`.
    """
    while True:
        step = machine.next(clock() if clock is not None else 0.0)
        if isinstance(step, Send | Read):
            machine.feed(perform(step))
        elif isinstance(step, Sleep):
            sleep(step)
        elif isinstance(step, Done):
            return step.value
        else:
            raise step.error


# Public as ghattempt.protocol (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    Answered, Conflict, Done, Failed, Limited, Lost, Machine, Read, Refuse, Send, Sleep,
    TableMachine, drive, wait,
):
    _exported.__module__ = "ghattempt.protocol"
del _exported
