"""The shared vocabulary of the protocols (ghattempt.protocol): the driver loop and the
table a machine's rules are rows of, on a toy machine."""

from __future__ import annotations

import enum
from typing import Any

import pytest

from ghattempt.protocol import (
    NOTICE_AFTER,
    Answered,
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
    drive,
    wait,
)


class State(enum.Enum):
    SEND = "send"
    READ = "read"
    DONE = "done"
    REFUSED = "refused"


class Seen(enum.Enum):
    ANSWERED = "answered"
    LOST = "lost"
    THERE = "there"
    FAILED = "failed"


class Toy(TableMachine[State]):
    """Send once; a lost answer reads back after a pause; a failed read refuses."""

    def __init__(self) -> None:
        super().__init__(State.SEND)

    def classify(self, result: Result) -> tuple[Seen, Any]:
        if isinstance(result, Failed):
            return Seen.FAILED, result.error
        if isinstance(result, Lost):
            return Seen.LOST, result
        assert isinstance(result, Answered)
        return (Seen.ANSWERED if self.state is State.SEND else Seen.THERE), result.value

    def ask(self, now: float) -> Step:
        return Send("bytes") if self.state is State.SEND else Read("journal")

    def _pause(self, _: Any, now: float) -> Sleep:
        return Sleep(1.5)

    def _done(self, value: Any, now: float) -> Done:
        return Done(value)

    def _refuse(self, error: Exception, now: float) -> Refuse:
        return Refuse(error)

    RULES = {
        (State.SEND, Seen.ANSWERED): (_done, State.DONE),
        (State.SEND, Seen.LOST): (_pause, State.READ),
        (State.READ, Seen.THERE): (_done, State.DONE),
        (State.READ, Seen.FAILED): (_refuse, State.REFUSED),
    }


def test_drive_performs_sends_and_reads_takes_sleeps_and_returns_the_value():
    answers: list[Result] = [Lost(), Answered("found")]
    performed: list[Step] = []
    slept: list[float] = []

    def perform(step: Send | Read) -> Result:
        performed.append(step)
        return answers.pop(0)

    assert drive(Toy(), perform, lambda s: slept.append(s.seconds)) == "found"
    assert performed == [Send("bytes"), Read("journal")] and slept == [1.5]


def test_drive_raises_the_refusal():
    answers: list[Result] = [Lost(), Failed(ValueError("no"))]
    with pytest.raises(ValueError, match="no"):
        drive(Toy(), lambda step: answers.pop(0), lambda s: None)


def test_a_sleep_is_taken_once_and_an_end_for_good():
    m = Toy()
    assert m.next() == Send("bytes")
    m.feed(Lost())
    assert m.next() == Sleep(1.5)
    assert m.next() == Read("journal") and m.next() == Read("journal")
    m.feed(Answered("x"))
    assert m.next() == Done("x") and m.next() == Done("x")


def test_a_result_with_no_row_is_a_defect():
    m = Toy()
    m.next()
    m.feed(Failed(ValueError("a send never fails in this toy")))
    with pytest.raises(TypeError, match="no rule for FAILED in state SEND"):
        m.next()


def test_a_wait_is_told_only_when_longer_than_notice_after():
    assert wait(NOTICE_AFTER, "why").notice is None
    assert wait(NOTICE_AFTER + 1, "why").notice == "waiting 3 s: why"
