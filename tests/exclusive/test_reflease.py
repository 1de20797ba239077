"""RefLease against MemoryRefBackend: GitHub's compare-and-set semantics, its Date clock,
injected faults, and a fake local clock (no real sleeps)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import time

import pytest

from ghattempt.core import Witness
from ghattempt.exclusive import (
    AmbiguousOutcome,
    BackendError,
    LeaseCorrupt,
    OwnershipLost,
    RefLease,
    RefSnapshot,
    ScopeBusy,
    read_lease,
)
from ghattempt.exclusive._scope import parse_time
from ghattempt.exclusive.testing import FakeClock, Fault, MemoryRefBackend
from ghattempt.github.errors import RateLimited

from .conftest import OTHER_SCOPE, SCOPE, SETTINGS, lease_message, make_lease

REF = SCOPE.ref_name()


class Head:
    """The lease record on the ref, with ``expires_at`` in epoch seconds."""

    def __init__(self, message: str) -> None:
        record = read_lease(message, ref=REF, scope=SCOPE)
        self.record = record
        self.holder, self.token, self.state = record.holder, record.token, record.state
        self.journal, self.head = record.journal, record.head
        self.expires_at = parse_time(record.expires_at)


def head_record(backend: MemoryRefBackend) -> Head:
    head = backend.head(REF)
    assert head is not None
    return Head(head[1])


def records(backend: MemoryRefBackend) -> list[dict]:
    return [json.loads(m.split("\n\n", 1)[1]) for m in backend.history(REF)]


def crash_holding(lease):
    """Acquire and never release: the writer's process died while holding the scope."""
    return lease._acquire(SCOPE, None)


class Journal:
    """A stand-in for Discussions: accepts any append (it cannot refuse a stale write).
    Writers append only through ``owner.mutation()``, as the store does."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, int]] = []

    def append(self, owner) -> None:
        with owner.mutation():
            self.entries.append((owner.holder, owner.fencing_token))


# -- acquire, renew, release ------------------------------------------------------------


def test_cold_acquire_creates_the_ref_and_release_marks_it_released(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        assert owner.fencing_token == 1
        assert owner.ref_name == REF
        record = head_record(backend)
        assert record.holder == owner.holder and record.state == "held"
        assert record.expires_at == int(backend.server_now()) + 120
        assert owner.remaining() == pytest.approx(119.0)  # minus the Date's 1 s resolution
        assert dict(backend.calls) == {"read": 1, "create": 1}
    assert dict(backend.calls) == {"read": 1, "create": 1, "advance": 1}
    assert head_record(backend).state == "released"
    assert owner.holder.startswith("ghattempt/")


def test_warm_acquire_advances_with_the_next_token(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE):
        pass
    backend.calls.clear()
    with lease.hold(SCOPE) as owner:
        assert owner.fencing_token == 2
        assert dict(backend.calls) == {"read": 1, "advance": 1}


def test_an_observed_snapshot_saves_the_first_read(backend, clock):
    lease = make_lease(backend, clock)
    snapshot = backend.read_ref(REF)
    backend.calls.clear()
    with lease.hold(SCOPE, observed=snapshot) as owner:
        assert owner.fencing_token == 1
    assert dict(backend.calls) == {"create": 1, "advance": 1}
    # a snapshot of another ref is ignored (read again)
    other = RefSnapshot(name=OTHER_SCOPE.ref_name(), oid=None, message=None, server_time=0)
    backend.calls.clear()
    with lease.hold(SCOPE, observed=other):
        pass
    assert backend.calls["read"] == 1


def test_the_owner_says_whether_its_acquisition_created_the_ref_or_what_it_took(backend,
                                                                                clock):
    lease = make_lease(backend, clock)
    assert lease.ref_name(SCOPE) == REF and lease.request_timeout == lease.settings.request_timeout
    with lease.hold(SCOPE) as first:
        assert first.created and first.taken_from is None
    released = backend.read_ref(REF).oid
    with lease.hold(SCOPE) as second:
        assert not second.created and second.taken_from == released


def test_a_stale_observed_snapshot_is_corrected_by_compare_and_set(backend, clock):
    lease = make_lease(backend, clock)
    stale = backend.read_ref(REF)  # absent
    with lease.hold(SCOPE):
        pass  # now the ref exists, released
    with lease.hold(SCOPE, observed=stale) as owner:
        assert owner.fencing_token == 2  # create conflicted, re-read, advanced


def test_assert_owner_does_no_io_until_the_renew_window(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        before = dict(backend.calls)
        clock.advance(60)  # 59 s left > 35 + 22
        owner.assert_owner()
        assert dict(backend.calls) == before
        clock.advance(3)  # 56 s left: renew
        owner.assert_owner()
        assert backend.calls["advance"] == 1
        assert owner.remaining() == pytest.approx(119.0)
        assert owner.fencing_token == 1  # renewal keeps the token
        assert head_record(backend).expires_at == owner.expires_at


def test_run_returns_the_result_and_releases_on_error(backend, clock):
    lease = make_lease(backend, clock)
    assert lease.run(SCOPE, lambda owner: owner.fencing_token * 10) == 10
    with pytest.raises(RuntimeError, match="boom"):
        lease.run(SCOPE, lambda owner: (_ for _ in ()).throw(RuntimeError("boom")))
    assert head_record(backend).state == "released"
    assert head_record(backend).token == 2


def test_after_release_the_owner_refuses_mutations(backend, clock):
    lease = make_lease(backend, clock)
    journal = Journal()
    with lease.hold(SCOPE) as owner:
        journal.append(owner)
    with pytest.raises(OwnershipLost, match="released"):
        journal.append(owner)
    assert len(journal.entries) == 1


# -- contention and takeover ----------------------------------------------------------


def test_a_busy_scope_raises_scope_busy_naming_holder_and_expiry(backend, clock):
    lease = make_lease(backend, clock)
    other = make_lease(backend, clock)
    with lease.hold(SCOPE) as first:
        with pytest.raises(ScopeBusy) as info:
            with other.hold(SCOPE):
                pass
        busy = info.value
        assert busy.holder == first.holder
        assert busy.token == 1 and busy.state == "held"
        assert busy.expires_at == first.expires_at
        assert first.holder in str(busy) and "2027-01-15T08:02:00Z" in str(busy)
        first.assert_owner()  # the loser changed nothing
    assert head_record(backend).state == "released"


def test_released_scope_is_taken_at_once_with_a_higher_token(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE):
        pass
    start = clock.monotonic()
    with lease.hold(SCOPE) as second:
        assert second.fencing_token == 2
    assert clock.monotonic() == start  # no waiting


def test_an_expired_lease_is_taken_over_by_githubs_clock(backend, clock):
    lease = make_lease(backend, clock)
    first = crash_holding(lease)
    clock.advance(119)
    with pytest.raises(ScopeBusy):  # one second early by GitHub's Date
        with lease.hold(SCOPE):
            pass
    clock.advance(1)
    with lease.hold(SCOPE) as second:
        assert second.fencing_token == first.fencing_token + 1
        assert second.holder != first.holder


def test_a_waiting_contender_backs_off_and_takes_over_at_expiry(backend, clock):
    lease = make_lease(backend, clock)
    patient = make_lease(backend, clock, acquire_timeout=300.0)
    crash_holding(lease)
    start = clock.monotonic()
    with patient.hold(SCOPE) as second:
        waited = clock.monotonic() - start
        assert second.fencing_token == 2
    assert 120 <= waited <= 121 + 8  # not before expiry, at most one backoff after
    assert all(1.0 * 0.5 <= s <= 8.0 for s in clock.sleeps)
    assert backend.calls["read"] <= 32  # bounded polling, no tight loop


def test_a_waiting_contender_gets_a_released_scope_soon(backend, clock):
    lease = make_lease(backend, clock)
    patient = make_lease(backend, clock, acquire_timeout=60.0)
    stack = contextlib.ExitStack()
    stack.enter_context(lease.hold(SCOPE))
    backend.inject("read", Fault.UNAVAILABLE)  # a failing poll is retried
    # release after the contender's first poll: emulate by releasing from a read hook
    original = backend.read_ref
    polls = []

    def read_ref(name):
        polls.append(clock.monotonic())
        if len(polls) == 3:
            stack.close()
        return original(name)

    backend.read_ref = read_ref
    with patient.hold(SCOPE) as second:
        assert second.fencing_token == 2
    assert clock.monotonic() - polls[0] < 10


def test_acquire_gives_up_at_the_timeout(backend, clock):
    lease = make_lease(backend, clock)
    impatient = make_lease(backend, clock, acquire_timeout=30.0)
    with lease.hold(SCOPE) as first:
        start = clock.monotonic()
        with pytest.raises(ScopeBusy) as info:
            with impatient.hold(SCOPE):
                pass
        assert clock.monotonic() - start == pytest.approx(30.0)
        assert info.value.waited == pytest.approx(30.0)
        assert info.value.holder == first.holder


def test_tokens_strictly_increase_across_releases_and_expiries(backend, clock):
    lease = make_lease(backend, clock)
    tokens = []
    for i in range(12):
        if i % 3 == 2:
            tokens.append(crash_holding(lease).fencing_token)
            clock.advance(121)  # abandoned, expires
        else:
            with lease.hold(SCOPE) as owner:
                tokens.append(owner.fencing_token)
    assert tokens == list(range(1, 13))
    history_tokens = [r["token"] for r in records(backend)]
    assert history_tokens == sorted(history_tokens)


def test_scopes_are_independent(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as a, lease.hold(OTHER_SCOPE) as b:
        assert a.fencing_token == b.fencing_token == 1
        assert a.ref_name != b.ref_name


# -- the paused holder (ADR 0006) -----------------------------------------------------


def test_a_paused_holder_whose_lease_expired_cannot_commit(backend, clock):
    lease = make_lease(backend, clock)
    journal = Journal()
    paused_cm = lease.hold(SCOPE)
    paused = paused_cm.__enter__()
    journal.append(paused)
    clock.advance(500)  # a GC pause, a stopped runner: the lease expired long ago
    with make_lease(backend, clock).hold(SCOPE) as successor:
        journal.append(successor)
        with pytest.raises(OwnershipLost) as info:
            journal.append(paused)  # the paused writer wakes up and tries its next append
        assert successor.holder in info.value.reason
        journal.append(successor)
        successor.assert_owner()
    writes = backend.calls["advance"]
    paused_cm.__exit__(None, None, None)  # must not clobber the successor's release
    assert backend.calls["advance"] == writes  # and does not even try
    assert journal.entries == [
        (paused.holder, 1),
        (successor.holder, 2),
        (successor.holder, 2),
    ]
    assert head_record(backend).holder == successor.holder
    assert head_record(backend).state == "released"
    with pytest.raises(OwnershipLost):  # sticky
        paused.assert_owner()


def test_a_holder_inside_the_margin_starts_nothing_if_it_cannot_renew(backend, clock):
    lease = make_lease(backend, clock)
    journal = Journal()
    with lease.hold(SCOPE) as owner:
        clock.advance(119 - 35)  # exactly the margin left: too little
        backend.inject("advance", Fault.UNAVAILABLE)
        with pytest.raises(OwnershipLost, match="margin"):
            journal.append(owner)
        assert journal.entries == []
        assert owner.remaining() > 0  # not even expired yet: refused by the margin


def test_a_paused_holder_nobody_replaced_renews_and_continues(backend, clock):
    lease = make_lease(backend, clock)
    journal = Journal()
    with lease.hold(SCOPE) as owner:
        clock.advance(1000)  # expired, but nobody took over: CAS from our head proves it
        journal.append(owner)
        assert owner.remaining() > 35
    assert len(journal.entries) == 1


def test_renewal_losing_compare_and_set_loses_ownership(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        clock.advance(200)
        other = make_lease(backend, clock)
        with other.hold(SCOPE):
            pass
        with pytest.raises(OwnershipLost, match="moved to holder"):
            owner.assert_owner()


def test_a_deleted_lease_ref_loses_ownership(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        backend.delete(REF)
        clock.advance(70)
        with pytest.raises(OwnershipLost, match="deleted"):
            owner.assert_owner()


def test_an_overwritten_lease_ref_loses_ownership_and_blocks_everyone(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        backend.force(REF, "Merge branch 'main'")
        clock.advance(70)
        with pytest.raises(OwnershipLost, match="overwritten"):
            owner.assert_owner()
    assert backend.head(REF)[1] == "Merge branch 'main'"  # release wrote nothing
    with pytest.raises(LeaseCorrupt):
        with lease.hold(SCOPE):
            pass


def test_a_lease_of_another_scope_on_the_ref_is_corrupt(backend, clock):
    backend.force(REF, lease_message(OTHER_SCOPE, holder="x/1", token=3, expires_at=1,
                                     state="released"))
    with pytest.raises(LeaseCorrupt, match="another scope"):
        with make_lease(backend, clock).hold(SCOPE):
            pass


# -- lost answers (ambiguous outcomes) --------------------------------------------------


def test_lost_answer_after_create_is_reconciled_by_reading_back(backend, clock):
    lease = make_lease(backend, clock)
    backend.inject("create", Fault.LOST_AFTER_COMMIT)
    with lease.hold(SCOPE) as owner:
        assert owner.fencing_token == 1
        assert head_record(backend).holder == owner.holder
        assert dict(backend.calls) == {"read": 2, "create": 1}
        owner.assert_owner()
    assert len(backend.history(REF)) == 2  # one acquire, one release


def test_lost_answer_before_create_sends_the_same_bytes_again(backend, clock):
    lease = make_lease(backend, clock)
    backend.inject("create", Fault.LOST_BEFORE_COMMIT)
    with lease.hold(SCOPE) as owner:
        assert owner.fencing_token == 1
        assert backend.calls["create"] == 2
    assert len(backend.history(REF)) == 2


def test_lost_answer_after_takeover_is_reconciled(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE):
        pass
    backend.inject("advance", Fault.LOST_AFTER_COMMIT)
    with lease.hold(SCOPE) as owner:
        assert owner.fencing_token == 2
        assert head_record(backend).holder == owner.holder


def test_a_late_landing_acquire_copy_cannot_land_twice(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE):
        pass
    backend.inject("advance", Fault.DELAYED)  # in flight while we re-read and re-send
    with lease.hold(SCOPE) as owner:
        sent = backend.history(REF)[-1]
        assert backend.land_delayed() == [False]  # compare-and-set refuses the late copy
        assert backend.history(REF)[-1] == sent
        assert owner.fencing_token == 2
        owner.assert_owner()


def test_lost_answer_of_a_competing_acquire_never_yields_two_owners(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE):
        pass
    # B's takeover is in flight (delayed) when A takes the scope; B's copy lands too late.
    b_lease = make_lease(backend, clock)
    backend.inject("advance", Fault.DELAYED)
    original = backend.read_ref
    winner = {}

    def read_ref(name):
        snap = original(name)
        if backend.calls["read"] == 3 and not winner:  # B's reconciling read
            backend.read_ref = original
            cm = lease.hold(SCOPE)
            winner["owner"] = cm.__enter__()
            winner["cm"] = cm
            backend.read_ref = read_ref
            return original(name)
        return snap

    backend.read_ref = read_ref
    with pytest.raises(ScopeBusy) as info:
        with b_lease.hold(SCOPE):
            pass
    assert info.value.holder == winner["owner"].holder
    assert backend.land_delayed() == [False]
    winner["owner"].assert_owner()
    winner["cm"].__exit__(None, None, None)


def test_lost_answer_of_a_renewal_is_adopted(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        clock.advance(70)
        backend.inject("advance", Fault.LOST_AFTER_COMMIT)
        owner.assert_owner()
        assert owner.expires_at == head_record(backend).expires_at
        assert owner.remaining() == pytest.approx(119.0)
    assert head_record(backend).state == "released"  # released from the adopted head


def test_a_renewal_landing_late_is_adopted_when_the_next_write_conflicts(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        clock.advance(70)
        old_expiry = owner.expires_at
        backend.inject("advance", Fault.DELAYED)
        owner.assert_owner()  # 49 s > 35 left: still allowed on the old lease
        assert owner.expires_at == old_expiry
        assert backend.land_delayed() == [True]  # our renewal lands after all
        late = head_record(backend)
        assert late.holder == owner.holder and late.expires_at > old_expiry
    # the release conflicted, recognised our late renewal and released from it
    final = head_record(backend)
    assert final.state == "released" and final.holder == owner.holder


def test_an_unanswered_release_leaves_a_lease_that_expires(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        backend.inject("advance", Fault.LOST_BEFORE_COMMIT)
    assert head_record(backend).state == "held"  # no exception escaped the block
    with pytest.raises(ScopeBusy):
        with lease.hold(SCOPE):
            pass
    clock.advance(120)
    with lease.hold(SCOPE) as second:
        assert second.fencing_token == owner.fencing_token + 1


# -- the mutation window and release ------------------------------------------------------


def test_release_hands_over_at_once_when_the_last_mutation_was_answered(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        with owner.mutation():
            pass
    assert head_record(backend).expires_at <= int(backend.server_now())
    with lease.hold(SCOPE) as second:
        assert second.fencing_token == 2


def test_release_stays_quiet_while_an_unanswered_mutation_may_land(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        with pytest.raises(TimeoutError):
            with owner.mutation():
                clock.advance(20)  # the request timed out: it may still commit
                raise TimeoutError
        gate = backend.server_now() - 20
    released = head_record(backend)
    assert released.state == "released"
    # quiet until the window (T + S) and the skew allowance K have passed
    assert released.expires_at >= gate + 20 + 10 + 5
    assert released.expires_at <= gate + 20 + 10 + 5 + 2
    with pytest.raises(ScopeBusy) as info:
        with lease.hold(SCOPE):
            pass
    assert info.value.state == "released" and "quiet until" in str(info.value)
    clock.advance(released.expires_at - backend.server_now())
    with lease.hold(SCOPE) as second:
        assert second.fencing_token == 2


def test_admission_checks_can_skip_opening_a_window(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        owner.assert_owner(mutating=False)
    assert head_record(backend).expires_at <= int(backend.server_now())


# -- clocks ---------------------------------------------------------------------------------


def test_the_local_wall_clock_is_never_consulted(backend, clock, monkeypatch):
    def broken_wall_clock():
        raise AssertionError("time.time() must not be used")

    monkeypatch.setattr(time, "time", broken_wall_clock)
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        clock.advance(70)
        owner.assert_owner()


@pytest.mark.parametrize("origin", [0.0, 1e9, -5e6])
def test_the_local_monotonic_origin_does_not_matter(origin):
    clock = FakeClock(start=origin)
    backend = MemoryRefBackend(clock, epoch=1_700_000_000)
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        assert owner.remaining() == pytest.approx(119.0)
        clock.advance(84)
        with pytest.raises(OwnershipLost):
            backend.inject("advance", Fault.UNAVAILABLE)
            owner.assert_owner()


def test_a_contenders_server_clock_ahead_by_the_skew_allowance_is_tolerated(backend, clock):
    """The holder's last permitted mutation (window T + S from its gate) ends before a
    contender whose server reports a Date up to K ahead can take over."""
    lease = make_lease(backend, clock)
    cm = lease.hold(SCOPE)
    holder = cm.__enter__()
    last_gate = None
    backend.inject("advance", *([Fault.UNAVAILABLE] * 1000))  # it can never renew
    while True:
        try:
            holder.assert_owner()
        except OwnershipLost:
            break
        last_gate = backend.server_now()
        clock.advance(0.25)
    window_end = last_gate + 20 + 10
    backend._faults.clear()
    contender = make_lease(backend, clock)
    # poll each quarter second with servers that run K = 5 s ahead
    while True:
        backend.skew_dates([5])
        try:
            with contender.hold(SCOPE) as other:
                taken = backend.server_now()
                assert other.fencing_token == 2
                break
        except ScopeBusy:
            clock.advance(0.25)
    assert taken >= window_end
    assert taken - window_end < 2  # and not needlessly late


def test_the_holders_server_behind_by_the_skew_allowance_is_tolerated(backend, clock):
    lease = make_lease(backend, clock)
    backend.skew_dates([-5, -5])  # the holder's read and create are answered 5 s slow
    cm = lease.hold(SCOPE)
    holder = cm.__enter__()
    backend.inject("advance", *([Fault.UNAVAILABLE] * 1000))
    last_gate = None
    while True:
        try:
            holder.assert_owner()
        except OwnershipLost:
            break
        last_gate = backend.server_now()
        clock.advance(0.25)
    window_end = last_gate + 30
    backend._faults.clear()
    contender = make_lease(backend, clock)
    while True:
        try:
            with contender.hold(SCOPE):
                taken = backend.server_now()
                break
        except ScopeBusy:
            clock.advance(0.25)
    assert taken >= window_end


def test_a_slow_local_clock_within_the_allowance_is_tolerated():
    from ghattempt.exclusive.testing import ScaledClock

    world = FakeClock()
    backend = MemoryRefBackend(world)
    slow = ScaledClock(world, rate=0.97, origin=123.0)  # undercounts 3.6 s per 120 s
    lease = make_lease(backend, slow)
    cm = lease.hold(SCOPE)
    holder = cm.__enter__()
    backend.inject("advance", *([Fault.UNAVAILABLE] * 1000))
    last_gate = None
    while True:
        try:
            holder.assert_owner()
        except OwnershipLost:
            break
        last_gate = backend.server_now()
        world.advance(0.25)
    backend._faults.clear()
    contender = make_lease(backend, world)
    while True:
        try:
            with contender.hold(SCOPE):
                taken = backend.server_now()
                break
        except ScopeBusy:
            world.advance(0.25)
    assert taken >= last_gate + 30


# -- backend failures -----------------------------------------------------------------------


def test_a_failing_read_is_retried_within_the_acquire_timeout(backend, clock):
    lease = make_lease(backend, clock, acquire_timeout=30.0)
    backend.inject("read", Fault.UNAVAILABLE, Fault.UNAVAILABLE)
    with lease.hold(SCOPE) as owner:
        assert owner.fencing_token == 1
    assert backend.calls["read"] == 3
    assert len(clock.sleeps) == 2


def test_a_permanent_error_is_raised_at_once(backend, clock):
    lease = make_lease(backend, clock, acquire_timeout=30.0)
    backend.inject("read", Fault.DENIED)
    with pytest.raises(BackendError, match="403") as info:
        with lease.hold(SCOPE):
            pass
    assert not info.value.retryable
    assert clock.sleeps == []
    backend.inject("create", Fault.DENIED)
    with pytest.raises(BackendError, match="403"):
        with lease.hold(SCOPE):
            pass


def test_an_unavailable_backend_fails_after_the_acquire_timeout(backend, clock):
    lease = make_lease(backend, clock, acquire_timeout=20.0)
    backend.inject("read", *([Fault.UNAVAILABLE] * 100))
    with pytest.raises(BackendError, match="502"):
        with lease.hold(SCOPE):
            pass
    assert sum(clock.sleeps) == pytest.approx(20.0)


def test_an_acquire_whose_outcome_stays_unknown_says_so(backend, clock):
    lease = make_lease(backend, clock, acquire_timeout=5.0)
    observed = backend.read_ref(REF)
    backend.inject("create", Fault.LOST_BEFORE_COMMIT)
    backend.inject("read", *([Fault.UNAVAILABLE] * 100))
    with pytest.raises(AmbiguousOutcome, match="expires by itself"):
        with lease.hold(SCOPE, observed=observed):
            pass
    assert sum(clock.sleeps) == pytest.approx(5.0)


def test_a_nested_hold_in_the_same_thread_is_refused_at_once(backend, clock):
    from ghattempt.exclusive import ExclusionError

    lease = make_lease(backend, clock, acquire_timeout=60.0)
    with lease.hold(SCOPE) as owner:
        with pytest.raises(ExclusionError, match="already held by this thread"):
            with lease.hold(SCOPE):
                pass
        assert clock.sleeps == []
        owner.assert_owner()
    with lease.hold(SCOPE) as again:  # the guard is cleared on exit
        assert again.fencing_token == 2
    backend.inject("read", Fault.DENIED)
    with pytest.raises(BackendError):
        with lease.hold(SCOPE):
            pass
    with lease.hold(SCOPE):  # also cleared when acquiring fails
        pass


def test_a_lagging_read_after_a_lost_answer_does_not_fool_the_reconciliation(backend, clock):
    lease = make_lease(backend, clock, acquire_timeout=10.0)
    backend.inject("create", Fault.LOST_AFTER_COMMIT)
    original = backend.read_ref
    reads = []

    def read_ref(name):
        reads.append(name)
        if len(reads) == 2:  # the reconciling read hits a lagging replica
            backend.inject("read", Fault.STALE_READ)
        return original(name)

    backend.read_ref = read_ref
    with lease.hold(SCOPE) as owner:
        assert owner.fencing_token == 1
        assert head_record(backend).holder == owner.holder
        # create, lost; stale read (absent) -> the same create again -> conflict -> fresh read
        assert backend.calls["create"] == 2
    assert len(backend.history(REF)) == 2  # one acquire, one release: no second lease


def test_a_lagging_read_after_a_lost_renewal_keeps_the_old_lease_then_adopts(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        clock.advance(70)
        old = owner.expires_at
        backend.inject("advance", Fault.LOST_AFTER_COMMIT)
        backend.inject("read", Fault.STALE_READ)
        owner.assert_owner()  # renewal landed, the read lagged: still on the old lease
        assert owner.expires_at == old
        clock.advance(5)
        owner.assert_owner()  # next renewal conflicts, a fresh read shows ours: adopted
        assert owner.expires_at > old
        assert head_record(backend).holder == owner.holder
    assert head_record(backend).state == "released"


def test_release_hands_over_at_once_after_a_definite_refusal_of_the_mutation(backend, clock):
    """GitHub answered (a secondary rate limit: not executed), so the mutation cannot land
    later: the window closes as for an answer that came back with a result."""
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        with pytest.raises(RateLimited):
            with owner.mutation():
                clock.advance(1)
                raise RateLimited("secondary rate limit", kind="secondary", retry_after=60)
    released = head_record(backend)
    assert released.state == "released"
    assert released.expires_at <= int(backend.server_now())
    with lease.hold(SCOPE) as second:
        assert second.fencing_token == 2


def test_a_refusal_does_not_close_an_earlier_unanswered_window(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        with contextlib.suppress(AmbiguousOutcome):
            with owner.mutation():
                clock.advance(20)
                raise AmbiguousOutcome("timeout after send")
        gate = backend.server_now() - 20
        with contextlib.suppress(RateLimited):
            with owner.mutation():
                raise RateLimited("rate limited", kind="primary", retry_after=60)
    assert head_record(backend).expires_at >= gate + 35


def test_release_stays_quiet_for_the_latest_unanswered_mutation(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        for _ in range(2):
            with contextlib.suppress(TimeoutError):
                with owner.mutation():
                    clock.advance(20)
                    raise TimeoutError
        with owner.mutation():  # an answered one does not close the earlier windows
            pass
        last_unanswered_gate = backend.server_now() - 20
    released = head_record(backend)
    assert released.expires_at >= last_unanswered_gate + 35


def test_a_bare_assert_owner_keeps_the_scope_quiet_after_release(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        owner.assert_owner()  # a mutation may follow; nobody tells us its answer came
        gate = backend.server_now()
    assert head_record(backend).expires_at >= gate + 35


def test_reads_that_keep_lagging_end_in_a_clear_error(backend, clock):
    backend.force(REF, lease_message(SCOPE, holder="x/1", token=1, expires_at=0,
                                     state="released"))
    # every read answers from before that write: the ref looks absent, creating conflicts
    backend.inject("read", *([Fault.STALE_READ] * 100))
    lease = make_lease(backend, clock, acquire_timeout=10.0)
    with pytest.raises(BackendError, match="lagging") as info:
        with lease.hold(SCOPE):
            pass
    assert info.value.retryable
    assert backend.calls["create"] >= 2


def test_a_ref_that_does_not_point_to_a_commit_is_corrupt(backend, clock):
    tag = RefSnapshot(name=REF, oid="a" * 40, message=None, server_time=1_800_000_000)
    with pytest.raises(LeaseCorrupt, match="does not point to a commit"):
        with make_lease(backend, clock).hold(SCOPE, observed=tag):
            pass


def test_a_failing_compare_and_set_is_retried_after_backoff(backend, clock):
    lease = make_lease(backend, clock, acquire_timeout=30.0)
    backend.inject("create", Fault.UNAVAILABLE)
    with lease.hold(SCOPE) as owner:
        assert owner.fencing_token == 1
    assert backend.calls["create"] == 2 and len(clock.sleeps) == 1
    backend.inject("advance", *([Fault.UNAVAILABLE] * 100))
    with pytest.raises(BackendError, match="502"):
        with lease.hold(SCOPE):
            pass


def test_ambiguous_writes_that_never_resolve_give_up_at_the_deadline(backend, clock):
    lease = make_lease(backend, clock, acquire_timeout=10.0)
    backend.inject("create", *([Fault.LOST_BEFORE_COMMIT] * 100))
    with pytest.raises(AmbiguousOutcome, match="expires by itself"):
        with lease.hold(SCOPE):
            pass
    assert sum(clock.sleeps) == pytest.approx(10.0)
    assert backend.head(REF) is None


def test_an_unreadable_ref_after_a_lost_renewal_keeps_the_old_lease(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        clock.advance(70)
        old = owner.expires_at
        backend.inject("advance", Fault.LOST_AFTER_COMMIT)
        backend.inject("read", Fault.UNAVAILABLE)
        owner.assert_owner()  # inconclusive: 49 s > 35 s left on the lease we can prove
        assert owner.expires_at == old
        clock.advance(14)  # 35 s left: no more mutations on the old lease
        owner.assert_owner()  # the next renewal conflicts; a fresh read shows ours
        assert owner.expires_at > old


def test_system_clock_counts_forward():
    from ghattempt.exclusive import SystemClock

    clock = SystemClock()
    first = clock.monotonic()
    clock.sleep(-1.0)  # clamped, returns at once
    clock.sleep(0.001)
    assert clock.monotonic() > first


# -- the witness and the journal number ---------------------------------------------------

LAST = "sha256:" + "ee" * 32


def test_release_carries_the_witness_and_the_next_holder_starts_from_it(backend, clock):
    lease = make_lease(backend, clock)
    with lease.hold(SCOPE) as owner:
        assert owner.acquired.head.records == 0 and owner.journal is None
        owner.carry(Witness(1, LAST), journal=7)
    assert (head_record(backend).head, head_record(backend).journal) == (Witness(1, LAST), 7)
    with lease.hold(SCOPE) as owner:
        assert owner.acquired.head == Witness(1, LAST) and owner.acquired.journal == 7
        assert head_record(backend).head == Witness(1, LAST)  # the acquisition kept it
    assert head_record(backend).head == Witness(1, LAST)


def test_a_renewal_carries_the_witness_too(backend, clock):
    with make_lease(backend, clock).hold(SCOPE) as owner:
        owner.carry(Witness(2, LAST), journal=3)
        clock.advance(70)  # inside the renew window: the next check renews
        owner.assert_owner()
        assert head_record(backend).head == Witness(2, LAST)
        assert head_record(backend).journal == 3


def test_the_witness_never_goes_back_and_the_journal_never_changes(backend, clock):
    with make_lease(backend, clock).hold(SCOPE) as owner:
        owner.carry(Witness(2, LAST), journal=3)
        with pytest.raises(ValueError, match="never goes back"):
            owner.carry(Witness(1, LAST))
        with pytest.raises(ValueError, match="#3"):
            owner.carry(Witness(3, LAST), journal=4)


def test_a_long_wait_and_a_reconciled_answer_are_told_in_one_line_each(backend, clock):
    lines: list[str] = []
    first = crash_holding(make_lease(backend, clock))
    waiter = RefLease(backend, dataclasses.replace(SETTINGS, acquire_timeout=300), clock=clock,
                      rng=random.Random(1), notice=lines.append)
    with waiter.hold(SCOPE):
        pass
    waits = [line for line in lines if line.startswith("waiting up to")]
    assert len(waits) == 1 and first.holder in waits[0]
    backend.inject("write", Fault.LOST_AFTER_COMMIT)
    lines.clear()
    with waiter.hold(SCOPE):
        pass
    assert len(lines) == 1 and "was lost" in lines[0] and "landed" in lines[0]
