"""Model-based check of the safety rule (ADR 0006) with hypothesis.

Several writers share one scope on a MemoryRefBackend. Hypothesis drives acquisitions,
guarded mutations (answered or not), releases, pauses, injected faults, late landings,
per-response server clock offsets, request latency and a drifting local clock. Each
mutation that passes ``assert_owner()`` occupies a window of GitHub time in which it may
commit: until its answer if one came, else until the client timeout plus GitHub's server
bound. The invariant: windows of different holders never overlap, and the later holder
has the higher fencing token.
"""

from __future__ import annotations

import dataclasses
import os
import random

from hypothesis import HealthCheck, event, given, settings, target
from hypothesis import strategies as st

from ghattempt.exclusive import (
    BackendError,
    OwnershipLost,
    RefLease,
    ScopeBusy,
)
from ghattempt.exclusive.testing import FakeClock, Fault, MemoryRefBackend, ScaledClock

from .conftest import SCOPE, SETTINGS

WRITERS = 2
T, S = SETTINGS.request_timeout, SETTINGS.server_bound

RENEW_FAULTS = [None, Fault.UNAVAILABLE, Fault.DENIED, Fault.LOST_BEFORE_COMMIT,
                Fault.LOST_AFTER_COMMIT, Fault.DELAYED]

write = st.tuples(
    # acquire if not holding, then one guarded mutation, answered after `duration` or
    # never (the client times out after T); `renew_fault` hits the next ref write
    st.just("write"),
    st.integers(0, WRITERS - 1),
    st.booleans(),
    st.floats(0, T, allow_nan=False),
    st.sampled_from(RENEW_FAULTS),
)
# steer time to the edges that matter: a holder's margin and its expiry
pause_to_remaining = st.tuples(
    st.just("pause_to_remaining"), st.integers(0, WRITERS - 1), st.floats(0, 60, allow_nan=False)
)
pause_past_expiry = st.tuples(
    st.just("pause_past_expiry"), st.integers(0, WRITERS - 1), st.floats(-5, 3, allow_nan=False)
)
actions = st.one_of(
    write,
    write,
    write,
    pause_to_remaining,
    pause_past_expiry,
    st.tuples(st.just("release"), st.integers(0, WRITERS - 1)),
    st.tuples(st.just("pause"), st.floats(0, 200, allow_nan=False)),
    st.tuples(
        st.just("fault"),
        st.sampled_from(["read", "create", "advance", "write"]),
        st.sampled_from(list(Fault)),
    ),
    st.tuples(st.just("land")),
)



def _race(params):
    """A hand-over at the edge: writer i drifts to `left` seconds of lease, writes (its
    renewal may fail), pauses until `delta` past its expiry, then the other writer writes."""
    i, left, answered, duration, renew_fault, delta = params
    j = (i + 1) % WRITERS
    return [
        ("write", i, True, 0.0, None),
        ("pause_to_remaining", i, left),
        ("write", i, answered, duration, renew_fault),
        ("pause_past_expiry", i, delta),
        ("write", j, True, 0.0, None),
    ]


race = st.tuples(
    st.integers(0, WRITERS - 1),
    st.one_of(st.floats(0, 60, allow_nan=False), st.floats(20, 40, allow_nan=False)),
    st.booleans(),
    st.floats(0, T, allow_nan=False),
    st.sampled_from(RENEW_FAULTS),
    st.floats(-5, 3, allow_nan=False),
).map(_race)

script_strategy = st.lists(
    st.one_of(actions.map(lambda a: [a]), race), min_size=2, max_size=25
).map(lambda chunks: [a for chunk in chunks for a in chunk])


class _Unanswered(Exception):
    pass


class _ServerView:
    """The backend as one writer sees it: its requests reach servers whose clock is
    ``offset`` seconds off."""

    def __init__(self, backend, offset):
        self._backend = backend
        self._offset = offset

    def read_ref(self, name):
        snap = self._backend.read_ref(name)
        return dataclasses.replace(snap, server_time=snap.server_time + self._offset)

    def create_ref(self, name, message):
        write = self._backend.create_ref(name, message)
        return dataclasses.replace(write, server_time=write.server_time + self._offset)

    def advance_ref(self, name, expected_oid, message):
        write = self._backend.advance_ref(name, expected_oid, message)
        return dataclasses.replace(write, server_time=write.server_time + self._offset)


def simulate(script, offsets, latency, rates, seed, writer_offsets=(0,) * WRITERS):
    """Run ``script``; return the mutation windows (holder, token, start, end).

    ``offsets`` cycle over all responses, ``writer_offsets`` add per writer: together
    the clocks behind the ``Date`` headers must stay within K of each other.
    """
    world = FakeClock()
    backend = MemoryRefBackend(world, latency=latency)
    # one offset per response, cycling: servers disagree by at most 3 s (< K = 5 s,
    # leaving room for the local clocks' drift over a lease)
    backend.skew_dates(offsets * 200)
    rng = random.Random(seed)
    leases = [
        RefLease(
            _ServerView(backend, writer_offsets[i]),
            dataclasses.replace(SETTINGS, holder_label=f"w{i}"),
            clock=ScaledClock(world, rate=rates[i], origin=rng.uniform(-1e6, 1e6)),
            rng=random.Random(seed + i),
        )
        for i in range(WRITERS)
    ]
    held: dict[int, tuple[object, object]] = {}
    windows: list[tuple[str, int, float, float]] = []

    for action in script:
        kind = action[0]
        if kind == "write":
            i, answered, duration, renew_fault = action[1:]
            if i not in held:
                cm = leases[i].hold(SCOPE)
                try:
                    held[i] = (cm, cm.__enter__())
                except (ScopeBusy, BackendError):
                    continue
            owner = held[i][1]
            renewal_due = owner.remaining() <= SETTINGS.margin + SETTINGS.effective_renew_window
            if renew_fault is not None and renewal_due:
                backend.inject("advance", renew_fault)
            try:
                with owner.mutation():
                    start = world.monotonic()  # exact arithmetic: compare windows only
                    if answered:
                        world.advance(duration)
                        windows.append((owner.holder, owner.fencing_token, start, start + duration))
                    else:
                        world.advance(T)
                        windows.append((owner.holder, owner.fencing_token, start, start + T + S))
                        raise _Unanswered
            except (OwnershipLost, _Unanswered):
                pass
        elif kind == "release":
            i = action[1]
            if i in held:
                held.pop(i)[0].__exit__(None, None, None)
        elif kind == "pause":
            world.advance(action[1])
        elif kind == "fault":
            backend.inject(action[1], action[2])
        elif kind == "land":
            backend.land_delayed()
        elif kind == "pause_to_remaining":
            i, goal_left = action[1], action[2]
            if i in held and held[i][1].remaining() > goal_left:
                world.advance(held[i][1].remaining() - goal_left)
        elif kind == "pause_past_expiry":
            i, delta = action[1], action[2]
            if i in held:
                goal = held[i][1].expires_at + delta
                if goal > backend.server_now():
                    world.advance(goal - backend.server_now())

    for cm, _ in held.values():
        cm.__exit__(None, None, None)

    windows.sort(key=lambda w: w[2])
    return windows


def check(windows):
    """The invariant; returns the tightest hand-over gap (s) or None."""
    for a_index, a in enumerate(windows):
        for b in windows[a_index + 1 :]:
            if a[0] == b[0]:
                continue
            assert a[3] <= b[2], f"windows overlap: {a} and {b}"
            assert a[1] < b[1], f"fencing token did not increase: {a} then {b}"
    gaps = [b[2] - a[3] for a, b in zip(windows, windows[1:]) if a[0] != b[0]]
    return min(gaps) if gaps else None


@settings(
    max_examples=int(os.environ.get("GHATTEMPT_MODEL_EXAMPLES", "300")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    script=script_strategy,
    offsets=st.lists(st.integers(0, 1), min_size=1, max_size=20),
    writer_offsets=st.lists(st.integers(0, 2), min_size=WRITERS, max_size=WRITERS),
    latency=st.floats(0, 2, allow_nan=False),
    rates=st.lists(st.floats(0.995, 1.005, allow_nan=False), min_size=WRITERS, max_size=WRITERS),
    seed=st.integers(0, 2**32 - 1),
)
def test_no_two_holders_can_commit_at_once(script, offsets, writer_offsets, latency, rates, seed):
    windows = simulate(script, offsets, latency, rates, seed, writer_offsets)
    event(f"holders with windows: {min(len({w[0] for w in windows}), 3)}")
    gap = check(windows)
    if gap is not None:
        target(-gap, label="closest hand-over (s)")  # steer towards tight hand-overs


def test_hand_overs_at_the_margin_edge_are_safe():
    """A sweep of the riskiest hand-over: the holder writes with `left` seconds of lease,
    its renewal fails, its answer never comes, and the other writer takes over as soon as
    GitHub's clock allows. The holder's servers run up to K = 5 s behind the contender's
    (or 4 s while the holder's local clock runs 0.5 % slow)."""
    steps = [20 + 0.25 * k for k in range(81)]  # 20 .. 40 s left
    faults = [Fault.UNAVAILABLE, Fault.LOST_BEFORE_COMMIT, Fault.DELAYED]
    cases = 0
    for left in steps:
        for fault in faults:
            for writer_offsets, latency, rate in (
                ((0, 0), 0.0, 1.0),
                ((0, 3), 0.0, 0.995),
                ((0, 3), 1.0, 1.0),
                ((-1, 2), 0.5, 0.995),
                ((0, 4), 0.0, 0.995),  # 4 s + 0.6 s of drift: nearly all of K
                ((0, 5), 0.2, 1.0),  # all of K
            ):
                for delta in (-5.0, -4.0, -3.0, -1.5, 0.0):
                    script = _race((0, left, False, 0.0, fault, delta))
                    windows = simulate(
                        script, [0], latency, [rate, 1.0], seed=cases,
                        writer_offsets=writer_offsets,
                    )
                    check(windows)
                    cases += 1
    assert cases == 81 * 3 * 6 * 5
