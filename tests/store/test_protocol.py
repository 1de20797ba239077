"""The store's protocols as pure machines (ghattempt.store._protocol, in the steps of
ghattempt.protocol): each rule a row fed by hand with core-built journals, no emulator,
no I/O."""

from __future__ import annotations

from typing import Any

import pytest

from ghattempt.core import Witness, parse_capture, read_journal
from ghattempt.core.testing import Scenario
from ghattempt.github.errors import RateLimited
from ghattempt.protocol import Answered, Done, Limited, Lost, Read, Refuse, Send, Sleep
from ghattempt.store import ConflictingKey, GitHubAnomaly, JournalInvalidError, RefusedByRules
from ghattempt.store._errors import WitnessNotMet
from ghattempt.store._protocol import (
    MAX_RATE_WAIT,
    MAX_RATE_WAITS,
    MAX_SENDS,
    Append,
    Appended,
    Capture,
    Captured,
)


def captured(s: Scenario, **kwargs: Any) -> Answered:
    """A read's answer: a capture read by the core."""
    pages = kwargs.pop("pages", None) or s.pages()
    return Answered(Captured(s.read(pages=pages, **kwargs), parse_capture(pages)))


def limit(seconds: float) -> Limited:
    return Limited(RateLimited("rate limited", kind="secondary", retry_after=seconds), seconds)


# -- append ----------------------------------------------------------------------------

def test_an_answered_send_is_done_at_once():
    s = Scenario()
    event = s.attempt(plan=("build",)).build("build", "started")
    m = Append(event)
    assert isinstance(m.next(), Send)
    m.feed(Answered("comment"))
    done = m.next()
    assert isinstance(done, Done) and done.value == Appended("comment", 1)


def test_a_rate_limited_send_waits_and_sends_the_same_bytes_uncounted():
    s = Scenario()
    m = Append(s.attempt(plan=("build",)).build("build", "started"))
    m.next()
    m.feed(limit(5))
    wait = m.next()
    assert isinstance(wait, Sleep) and wait.seconds == 5 and "retry-after" in wait.notice
    assert wait.notice.startswith("waiting 5 s: ")  # longer than 2 s: told
    assert isinstance(m.next(), Send)
    m.feed(Answered("c"))
    assert m.next().value.sends == 1  # the refused send was not executed


@pytest.mark.parametrize("waits,seconds,refused", [
    (MAX_RATE_WAITS, 1, False),
    (MAX_RATE_WAITS + 1, 1, True),
    (1, MAX_RATE_WAIT, False),
    (1, MAX_RATE_WAIT + 1, True),
])
def test_rate_limits_are_waited_out_only_within_their_bounds(waits, seconds, refused):
    s = Scenario()
    m = Append(s.attempt(plan=("build",)).build("build", "started"))
    last: Any = None
    for _ in range(waits):
        m.next()
        m.feed(limit(seconds))
        last = m.next()
        if isinstance(last, Refuse):
            break
    assert isinstance(last, Refuse) is refused


def test_a_lost_answer_reads_back_and_a_landed_record_is_reconciled():
    s = Scenario()
    a = s.attempt(plan=("build",))
    event = a.build("build", "started")
    m = Append(event)
    m.next()
    m.feed(Lost())
    assert isinstance(m.next(), Read)
    a.post(event)  # GitHub had committed it
    m.feed(captured(s))
    done = m.next()
    assert isinstance(done, Done) and done.value.reconciled and done.value.comment is None
    assert done.value.state is not None


def test_an_absent_record_is_read_back_again_before_the_same_bytes_go_again():
    s = Scenario()
    event = s.attempt(plan=("build",)).build("build", "started")
    m = Append(event, reads=3, base=0.5, cap=1.0)
    m.next()
    m.feed(Lost())
    waits = []
    for _ in range(2):  # absent, absent: the replicas may lag
        assert isinstance(m.next(), Read)
        m.feed(captured(s))
        sleep = m.next()
        assert isinstance(sleep, Sleep)
        waits.append(sleep.seconds)
    assert waits == [0.5, 1.0]
    assert isinstance(m.next(), Read)
    m.feed(captured(s))  # absent a third time: now it may go again
    assert isinstance(m.next(), Send)
    assert m.sends == 2


def test_sends_are_bounded():
    s = Scenario()
    event = s.attempt(plan=("build",)).build("build", "started")
    m = Append(event)
    for _ in range(MAX_SENDS):
        assert isinstance(m.next(), Send)
        m.feed(Lost())
        m.next()
        m.feed(captured(s))
    refused = m.next()
    assert isinstance(refused, Refuse) and isinstance(refused.error, GitHubAnomaly)


def _after_lost(s: Scenario, record: Any) -> Any:
    m = Append(record)
    m.next()
    m.feed(Lost())
    m.next()
    m.feed(captured(s))
    return m.next()


def test_another_record_under_the_key_is_a_conflict():
    s = Scenario()
    a = s.attempt(plan=("build",))
    event = a.build("build", "started", key="k")
    a.event("build", "waiting", "queued", key="k")
    got = _after_lost(s, event)
    assert isinstance(got, Refuse) and isinstance(got.error, ConflictingKey)


def test_a_moved_head_is_refused_and_a_second_root_is_a_fork():
    s = Scenario()
    a = s.attempt(plan=("build",))
    event = a.build("build", "started")
    a.event("build", "waiting", "someone else")
    got = _after_lost(s, event)
    assert isinstance(got, Refuse) and got.error.code == "head_moved"
    s2 = Scenario()
    root = s2.attempt(plan=("build",), post=False).record
    s2.attempt(plan=("review",))
    got = _after_lost(s2, root)
    assert isinstance(got, Refuse) and isinstance(got.error, RefusedByRules)
    assert got.error.code == "fork"


def test_a_vanished_attempt_and_an_invalid_read_back_fail_closed():
    s = Scenario()
    a = s.attempt(plan=("build",), post=False)
    got = _after_lost(s, a.build("build", "started"))
    assert isinstance(got, Refuse) and got.error.code == "identity_drift"
    s2 = Scenario()
    b = s2.attempt(plan=("build",))
    event = b.build("build", "started")
    b.event("build", "started", seq=2)  # a gap: invalid
    got = _after_lost(s2, event)
    assert isinstance(got, Refuse) and isinstance(got.error, JournalInvalidError)


# -- capture that meets the witness ------------------------------------------------------

def _short_of_witness() -> tuple[Scenario, list[dict[str, Any]], Witness]:
    s = Scenario()
    a = s.attempt(plan=("build",))
    a.event("build", "started")
    witness = Witness(3, "sha256:" + "ab" * 32)  # names a record the pages do not hold
    pages = [*s.pages(), s.lease_ref(s.lease(head=witness))]
    return s, pages, witness


def test_a_capture_that_meets_its_witness_is_done():
    s = Scenario()
    s.attempt(plan=("build",)).event("build", "started")
    pages = [*s.pages(), s.lease_ref()]
    m = Capture(attempts=3, base=0.5, cap=4)
    assert isinstance(m.next(), Read)
    m.feed(captured(s, pages=pages))
    assert isinstance(m.next(), Done)


def test_a_capture_short_of_its_witness_is_read_again_then_refused_naming_the_record():
    s, pages, witness = _short_of_witness()
    m = Capture(attempts=3, base=0.5, cap=0.75)
    sleeps = []
    for _ in range(2):
        assert isinstance(m.next(), Read)
        m.feed(Answered(Captured(s.read(pages=pages), parse_capture(pages), witness)))
        sleep = m.next()
        assert isinstance(sleep, Sleep) and sleep.notice is None  # short waits go untold
        sleeps.append(sleep.seconds)
    assert sleeps == [0.5, 0.75]
    assert isinstance(m.next(), Read)
    m.feed(Answered(Captured(s.read(pages=pages), parse_capture(pages), witness)))
    refused = m.next()
    assert isinstance(refused, Refuse) and isinstance(refused.error, WitnessNotMet)
    assert refused.error.code == "rolled_back" and witness.last in str(refused.error)
    assert refused.error.reads == 3 and refused.error.missing == witness.last


def test_a_capture_that_catches_up_is_done():
    s, pages, witness = _short_of_witness()
    m = Capture(attempts=3, base=0.5, cap=4)
    m.next()
    m.feed(Answered(Captured(s.read(pages=pages), parse_capture(pages), witness)))
    m.next()
    assert isinstance(m.next(), Read)
    m.feed(captured(s))  # the lagging records showed up
    assert isinstance(m.next(), Done)


def test_any_other_invalid_capture_fails_closed_at_once():
    s = Scenario()
    a = s.attempt(plan=("build",))
    a.event("build", "started", seq=2)  # a gap
    m = Capture(attempts=5, base=0.5, cap=4)
    m.next()
    m.feed(captured(s))
    refused = m.next()
    assert isinstance(refused, Refuse) and refused.error.code == "gap"


def test_the_reader_counts_what_the_witness_needs():
    # the core's count is what the witness carries: distinct records, the intent not counted
    s = Scenario()
    a = s.attempt(plan=("build",))
    a.event("build", "started")
    state = read_journal(s.pages(), writer=s.login, repository_id=s.fixture.repository_id)
    assert state.journal is not None and state.journal.record_count == 2
