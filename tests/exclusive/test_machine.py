"""The lease protocols as pure machines: each rule is a row fed by hand, no backend, no
clock (ghattempt.exclusive._machine, in the steps of ghattempt.protocol)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from ghattempt.core import NO_WITNESS, JournalInvalid, Witness
from ghattempt.errors import Fault as Kind
from ghattempt.errors import GhattemptError
from ghattempt.exclusive import (
    AmbiguousOutcome,
    BackendError,
    LeaseCorrupt,
    OwnershipLost,
    RefSnapshot,
    RefWrite,
    ScopeBusy,
)
from ghattempt.exclusive._errors import AcquireAmbiguous
from ghattempt.exclusive._machine import (
    Acquire,
    Acquired,
    Head,
    Release,
    Renew,
    reconcile,
    settles,
)
from ghattempt.exclusive._scope import parse_time
from ghattempt.github.errors import (
    AuthFailed,
    GitHubUnavailable,
    GraphQLRefused,
    InputError,
    NotFound,
    RateLimited,
    RefConflict,
)
from ghattempt.protocol import Answered, Conflict, Done, Failed, Lost, Read, Refuse, Send, Sleep

from .conftest import OTHER_SCOPE, SCOPE, SETTINGS, lease_message

NAME = SCOPE.ref_name()
T0 = 1_800_000_000  # GitHub's time of the reads below
LAST = "sha256:" + "ee" * 32


def snap(message: str | None = None, *, oid: str | None = "a" * 40,
         server_time: int = T0) -> Answered:
    if message is None:
        oid = None
    return Answered(RefSnapshot(NAME, oid, message, server_time), sent=10.0)


def held(**kw: Any) -> str:
    base: dict[str, Any] = {"holder": "other/1", "token": 4, "expires_at": T0 + 60,
                            "state": "held"}
    base.update(kw)
    return lease_message(SCOPE, **base)


def machine(**kw: Any) -> Acquire:
    settings = kw.pop("settings", SETTINGS)
    return Acquire(SCOPE, NAME, settings, holder="me/1", start=10.0, rng=random.Random(1),
                   **kw)


def after_read(m: Acquire, result: Any, now: float = 10.0) -> Any:
    assert isinstance(m.next(now), Read)
    m.feed(result)
    return m.next(now)


# -- acquire: what the machine does after one read, rule by rule -----------------------

def test_a_missing_ref_is_created_with_token_1_no_journal_and_no_witness():
    action = after_read(machine(), snap(None))
    assert isinstance(action, Send) and action.request.expected is None
    record = action.request.record
    assert (record.token, record.state, record.journal, record.head) == (1, "held", None,
                                                                           NO_WITNESS)
    assert parse_time(record.expires_at) == T0 + SETTINGS.lease_seconds


def test_a_released_lease_is_taken_with_the_next_token_carrying_journal_and_witness():
    witness = Witness(5, LAST)
    action = after_read(machine(), snap(held(state="released", expires_at=T0, journal=9,
                                             head=witness)))
    assert isinstance(action, Send) and action.request.expected == "a" * 40
    record = action.request.record
    assert (record.token, record.journal, record.head) == (5, 9, witness)
    assert record.holder == "me/1"


def test_an_expired_held_lease_is_taken_over():
    action = after_read(machine(), snap(held(expires_at=T0)))
    assert isinstance(action, Send) and action.request.record.token == 5


@pytest.mark.parametrize("state", ["held", "released"])
def test_a_lease_not_expired_by_githubs_clock_is_waited_for(state):
    m = machine(settings=SETTINGS.__class__(**{**_fields(SETTINGS), "acquire_timeout": 600}))
    action = after_read(m, snap(held(state=state, expires_at=T0 + 30)))
    assert isinstance(action, Sleep)
    assert 0 < action.seconds <= 31
    assert action.notice is not None and "other/1" in action.notice
    assert "fencing token 4" in action.notice and "up to 31 s" in action.notice
    assert isinstance(m.next(10.0 + action.seconds), Read)  # then it reads again


def test_a_wait_is_announced_once_per_holder_and_only_when_longer_than_2_s():
    m = machine(settings=SETTINGS.__class__(**{**_fields(SETTINGS), "acquire_timeout": 600}))
    first = after_read(m, snap(held(expires_at=T0 + 30)))
    second = after_read(m, snap(held(expires_at=T0 + 30), server_time=T0 + 2))
    assert first.notice is not None and second.notice is None
    short = machine(settings=SETTINGS.__class__(**{**_fields(SETTINGS), "acquire_timeout": 600}))
    assert after_read(short, snap(held(expires_at=T0 + 1))).notice is None


def test_a_ref_that_is_no_lease_of_this_scope_is_refused():
    for message in ("Initial commit", lease_message(OTHER_SCOPE)):
        action = after_read(machine(), snap(message))
        assert isinstance(action, Refuse) and isinstance(action.error, LeaseCorrupt)


def test_a_ref_not_pointing_to_a_commit_is_refused():
    action = after_read(machine(), Answered(RefSnapshot(NAME, "a" * 40, None, T0), 10.0))
    assert isinstance(action, Refuse) and isinstance(action.error, LeaseCorrupt)


def test_after_a_lost_answer_the_same_bytes_go_again_for_the_same_head():
    m = machine()
    first = after_read(m, snap(None))
    m.feed(Lost(AmbiguousOutcome("timed out")))
    again = after_read(m, snap(None))  # the first re-read is immediate
    assert isinstance(again, Send) and again.request.record == first.request.record


def test_a_lost_answer_found_on_the_ref_is_an_acquisition():
    m = machine()
    sent = after_read(m, snap(None))
    m.feed(Lost(AmbiguousOutcome("timed out")))
    done = after_read(m, snap(sent.request.record.message(), oid="b" * 40))
    assert isinstance(done, Done) and isinstance(done.value, Acquired)
    assert done.value.reconciled and done.value.oid == "b" * 40


def test_a_lost_answer_for_another_head_is_forgotten():
    m = machine()
    sent = after_read(m, snap(None))
    m.feed(Lost(AmbiguousOutcome("timed out")))
    other = after_read(m, snap(held(state="released", expires_at=T0), oid="c" * 40))
    assert isinstance(other, Send) and other.request.record != sent.request.record
    assert other.request.expected == "c" * 40


def test_a_first_conflict_reads_again_at_once_a_second_after_a_backoff():
    m = machine(settings=SETTINGS.__class__(**{**_fields(SETTINGS), "acquire_timeout": 600}))
    after_read(m, snap(None))
    m.feed(Conflict())
    assert isinstance(m.next(10.0), Read)
    m.feed(snap(None))
    assert isinstance(m.next(10.0), Send)
    m.feed(Conflict())
    assert isinstance(m.next(10.0), Sleep)


def test_a_success_ends_with_the_record_and_the_answers_anchor():
    m = machine()
    sent = after_read(m, snap(None))
    m.feed(Answered(RefWrite("d" * 40, T0 + 1), sent=11.0))
    done = m.next(11.0)
    assert isinstance(done, Done)
    assert done.value == Acquired(sent.request.record, "d" * 40, T0 + 1, 11.0,
                                  taken_from=None)


def test_a_permanent_failure_is_refused_at_once_a_retryable_one_is_retried():
    denied = machine()
    assert isinstance(denied.next(10.0), Read)
    denied.feed(Failed(BackendError("403", retryable=False)))
    assert isinstance(denied.next(10.0), Refuse)
    flaky = machine(settings=SETTINGS.__class__(**{**_fields(SETTINGS), "acquire_timeout": 60}))
    flaky.next(10.0)
    flaky.feed(Failed(BackendError("502", retryable=True)))
    assert isinstance(flaky.next(10.0), Sleep)


def test_at_the_deadline_a_busy_scope_names_its_holder():
    m = machine()  # acquire_timeout 0: one attempt
    action = after_read(m, snap(held(expires_at=T0 + 30)))
    assert isinstance(action, Refuse) and isinstance(action.error, ScopeBusy)
    assert action.error.holder == "other/1" and action.error.token == 4


def test_at_the_deadline_an_unresolved_write_of_ours_says_so():
    m = machine()
    after_read(m, snap(None))
    m.feed(Lost(AmbiguousOutcome("timed out")))
    m.next(10.0)
    m.feed(snap(None))
    m.next(10.0)
    m.feed(Lost(AmbiguousOutcome("timed out")))
    action = m.next(10.0)
    assert isinstance(action, Refuse) and isinstance(action.error, AmbiguousOutcome)


def test_an_observed_snapshot_saves_the_first_read():
    action = machine(observed=snap(None)).next(10.0)
    assert isinstance(action, Send)


# -- reconcile: what a read after a conflict or a lost answer means -----------------------

def _lease(**kw: Any) -> Any:
    base: dict[str, Any] = {"holder": "me/1", "token": 5, "state": "held",
                            "expires_at": T0 + 60, "journal": None, "head": NO_WITNESS}
    base.update(kw)
    return SCOPE.lease(**base)


RECONCILE = [
    # (snapshot oid, message, pending, expected kind: a head, or the reason it moved)
    ("a" * 40, "anything", [], "unchanged"),
    (None, None, [], "the lease ref was deleted"),
    ("b" * 40, "garbage", [], "the lease ref was overwritten"),
    ("b" * 40, "mine", ["mine"], "adopted"),
    ("b" * 40, "theirs", [], "the lease ref moved to holder 'other/1'"),
]


@pytest.mark.parametrize("oid,message,pending,kind", RECONCILE)
def test_reconcile(oid, message, pending, kind):
    records = {"mine": _lease(expires_at=T0 + 90), "theirs": _lease(holder="other/1", token=6)}
    text = records[message].message() if message in records else message
    got = reconcile(RefSnapshot(NAME, oid, text, T0), name=NAME, scope=SCOPE,
                    oid="a" * 40, pending=[records[p] for p in pending])
    if kind in ("unchanged", "adopted"):
        assert got.head is Head(kind)
    else:
        assert got.head is Head.MOVED and got.reason.startswith(kind)
    assert (got.record is not None) == (kind == "adopted")


# -- renew and release ---------------------------------------------------------------------

WRITE = [
    # (result of the send, result of the read-back or None, outcome kind)
    (Answered(RefWrite("b" * 40, T0 + 1), 12.0), None, "wrote"),
    (Conflict(), "same head", "kept"),
    (Conflict(), "theirs", "lost"),
    (Lost(AmbiguousOutcome("504")), "ours", "adopted"),
    (Lost(AmbiguousOutcome("504")), "same head", "kept"),
    (Lost(AmbiguousOutcome("504")), "read fails", "kept"),
    (Failed(BackendError("502", retryable=True)), None, "failed"),
]


@pytest.mark.parametrize("kind", [Renew, Release])
@pytest.mark.parametrize("sent,read,outcome", WRITE)
def test_renew_and_release_outcomes(kind, sent, read, outcome):
    record = _lease(expires_at=T0 + 120, head=Witness(2, LAST), journal=3)
    m = kind(SCOPE, NAME, "a" * 40, record, [])
    action = m.next(12.0)
    assert isinstance(action, Send) and action.request.record == record
    assert action.request.expected == "a" * 40
    m.feed(sent)
    if read is not None:
        assert isinstance(m.next(12.0), Read)
        reads = {"same head": snap("x", oid="a" * 40),
                 "theirs": snap(_lease(holder="other/1", token=6).message(), oid="c" * 40),
                 "ours": snap(record.message(), oid="d" * 40),
                 "read fails": Failed(BackendError("502", retryable=True))}
        m.feed(reads[read])
    done = m.next(12.0)
    assert isinstance(done, Done) and done.value.outcome.value == outcome
    if outcome in ("wrote", "adopted"):
        assert done.value.record == record  # the carried witness is what landed


def _fields(settings: Any) -> dict[str, Any]:
    import dataclasses

    return {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}


# -- which end of a mutation closes its window (RefOwner.mutation) ------------------------

class _Refused(GhattemptError):
    fault = Kind.REFUSED


SETTLES = [
    # GitHub answered, or nothing was sent: the mutation cannot land later
    (RateLimited("rate limited", kind="secondary", retry_after=60), True),
    (RateLimited("rate limited", kind="primary", retry_after=60), True),
    (AuthFailed("forbidden", status=403), True),
    (NotFound("no such discussion"), True),
    (GraphQLRefused("a ruleset refused it"), True),
    (RefConflict("stale"), True),
    (InputError("bad body"), True),
    (GitHubUnavailable("could not connect (nothing was sent)"), True),
    (_Refused("the journal's rules refuse it"), True),
    # sent, no answer: it may still commit
    (AmbiguousOutcome("timeout after send"), False),
    (AcquireAmbiguous("unresolved"), False),
    # not a classified answer at all
    (TimeoutError(), False),
    (OSError("reset"), False),
    (KeyboardInterrupt(), False),
    (RuntimeError("a defect"), False),
    (OwnershipLost(scope_key="0" * 40, holder="h", token=1, reason="r"), False),
    (JournalInvalid("bad_record", "x"), False),
]


@pytest.mark.parametrize("error,closes", SETTLES, ids=lambda v: type(v).__name__
                         if isinstance(v, BaseException) else str(v))
def test_a_definite_answer_closes_the_window_an_unknown_outcome_does_not(error, closes):
    assert settles(error) is closes
