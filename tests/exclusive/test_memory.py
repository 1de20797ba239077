"""InMemoryExclusive: a thread lock per scope (tests only, no exclusion across processes)."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest

from ghattempt.core import lease_ref_name
from ghattempt.exclusive import InMemoryExclusive, OwnershipLost, ScopeBusy

from .conftest import OTHER_SCOPE, SCOPE


def hammer(adapter, threads=8, rounds=200):
    """Threads doing a read-modify-write inside the scope; returns (overlaps, count, tokens)."""
    inside: list[str] = []
    overlaps: list[tuple[str, ...]] = []
    counter = {"n": 0}
    tokens: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def worker():
        start.wait()
        for _ in range(rounds):
            with adapter.hold(SCOPE) as owner:
                owner.assert_owner()
                with lock:
                    if inside:
                        overlaps.append(tuple(inside))
                    inside.append(owner.holder)
                    tokens.append(owner.fencing_token)
                value = counter["n"]
                time.sleep(0)  # yield: without exclusion another thread gets in here
                counter["n"] = value + 1
                with lock:
                    inside.remove(owner.holder)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in pool)
    return overlaps, counter["n"], tokens


def test_threads_hammering_one_scope_never_overlap():
    overlaps, count, tokens = hammer(InMemoryExclusive(acquire_timeout=30.0))
    assert overlaps == []
    assert count == 8 * 200
    assert tokens == list(range(1, 1601))  # strictly increasing in acquisition order


class _NoExclusion:
    """Control: the same interface without a lock."""

    def __init__(self):
        self._n = 0

    @contextlib.contextmanager
    def hold(self, scope):
        self._n += 1
        owner = InMemoryExclusive().hold(scope)
        with owner as o:
            yield o


def test_the_hammer_detects_missing_exclusion():
    overlaps, count, _ = hammer(_NoExclusion())
    assert overlaps and count < 8 * 200


def test_busy_scope_and_independent_scopes():
    adapter = InMemoryExclusive(acquire_timeout=0.0)
    with adapter.hold(SCOPE) as owner:
        result = {}

        def contender():
            try:
                with adapter.hold(SCOPE):
                    result["got"] = True
            except ScopeBusy as exc:
                result["busy"] = exc

        t = threading.Thread(target=contender)
        t.start()
        t.join()
        assert result["busy"].holder == owner.holder
        assert result["busy"].token == 1 and result["busy"].expires_at is None
        with adapter.hold(OTHER_SCOPE) as other:
            assert other.fencing_token == 1


def test_owner_fails_after_release_and_after_revoke():
    adapter = InMemoryExclusive()
    with adapter.hold(SCOPE) as first:
        first.assert_owner()
        with first.mutation():
            pass
    with pytest.raises(OwnershipLost, match="released"):
        first.assert_owner()
    with adapter.hold(SCOPE) as second:
        assert second.fencing_token == 2
        adapter.revoke(SCOPE)
        with pytest.raises(OwnershipLost, match="revoked"):
            with second.mutation():
                raise AssertionError("must not run")
        assert second.remaining() < 0
    assert adapter.run(SCOPE, lambda owner: owner.fencing_token) == 3


def test_it_says_loudly_that_it_is_for_tests_only():
    doc = InMemoryExclusive.__doc__ or ""
    assert "TESTS ONLY" in doc and "NO exclusion across processes" in doc


def test_bad_timeout_is_refused():
    with pytest.raises(ValueError):
        InMemoryExclusive(acquire_timeout=-1)


def test_a_nested_hold_in_the_same_thread_is_refused_at_once():
    from ghattempt.exclusive import ExclusionError

    adapter = InMemoryExclusive(acquire_timeout=5.0)
    with adapter.hold(SCOPE) as owner:
        with pytest.raises(ExclusionError, match="already held by this thread"):
            with adapter.hold(SCOPE):
                pass
        owner.assert_owner()


def test_what_the_store_asks_of_an_adapter_besides_holding():
    adapter = InMemoryExclusive()
    assert adapter.ref_name(SCOPE) == lease_ref_name(SCOPE.intent_id, SCOPE.repository_id)
    assert adapter.preview(SCOPE) == f"hold writer scope {SCOPE.key}"
    assert adapter.request_timeout == float("inf")
    with adapter.hold(SCOPE, observed=None) as owner:
        # no ref: it cannot tell whether anybody held the scope before
        assert not owner.created and owner.taken_from is None
