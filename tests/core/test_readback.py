"""What a read-back means (ghattempt.core.read_back), one row per case of its table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ghattempt.core import READ_BACK_OUTCOMES, JournalState, read_back
from ghattempt.core.testing import Scenario


def _state(s: Scenario) -> JournalState:
    verdict = s.read()
    assert verdict.journal is not None, verdict.detail
    return verdict.journal


def event_landed(s: Scenario) -> tuple[Any, JournalState]:
    a = s.attempt(plan=("build",))
    sent = a.event("build", "started")
    return sent, _state(s)


def event_absent(s: Scenario) -> tuple[Any, JournalState]:
    a = s.attempt(plan=("build",))
    return a.build("build", "started"), _state(s)


def event_conflict(s: Scenario) -> tuple[Any, JournalState]:
    a = s.attempt(plan=("build",))
    sent = a.build("build", "started", key="the-key")
    a.event("build", "waiting", "queued", key="the-key")
    return sent, _state(s)


def event_moved(s: Scenario) -> tuple[Any, JournalState]:
    a = s.attempt(plan=("build",))
    sent = a.build("build", "started")
    a.event("build", "waiting", "someone else's record")
    return sent, _state(s)


def event_vanished(s: Scenario) -> tuple[Any, JournalState]:
    a = s.attempt(plan=("build",), post=False)
    s.attempt(request_key="other", plan=("build",))
    return a.build("build", "started"), _state(s)


def root_landed(s: Scenario) -> tuple[Any, JournalState]:
    return s.attempt(plan=("build",)).record, _state(s)


def root_absent(s: Scenario) -> tuple[Any, JournalState]:
    s.attempt(request_key="other-key", plan=("build",))
    return s.attempt(plan=("build",), post=False).record, _state(s)


def root_moved(s: Scenario) -> tuple[Any, JournalState]:
    sent = s.attempt(plan=("build",), post=False).record
    s.attempt(plan=("review",))  # same request key, no predecessor: where ours would stand
    return sent, _state(s)


CASES: list[tuple[str, Callable[[Scenario], tuple[Any, JournalState]], bool]] = [
    ("landed", event_landed, False),
    ("absent", event_absent, True),
    ("conflict", event_conflict, False),
    ("moved", event_moved, False),
    ("vanished", event_vanished, False),
    ("landed", root_landed, False),
    ("absent", root_absent, True),
    ("moved", root_moved, False),
]


@pytest.mark.parametrize("outcome,case,resend", CASES, ids=[c[1].__name__ for c in CASES])
def test_each_row_of_the_read_back_table(outcome: str, case: Any, resend: bool) -> None:
    record, state = case(Scenario())
    got = read_back(state, record)
    assert got.outcome == outcome
    assert got.record == record.digest
    assert got.resend is resend
    assert got.detail


def test_what_stands_in_the_records_place_is_named() -> None:
    s = Scenario()
    a = s.attempt(plan=("build",))
    sent = a.build("build", "started", key="k")
    other = a.event("build", "waiting", "queued", key="k")
    assert read_back(_state(s), sent).found == other.digest


def test_every_outcome_is_covered_by_the_table() -> None:
    assert {c[0] for c in CASES} == set(READ_BACK_OUTCOMES)


def test_anything_but_an_attempt_or_event_is_a_type_error() -> None:
    s = Scenario()
    with pytest.raises(TypeError):
        read_back(_state(s), s.intent)  # type: ignore[arg-type]
