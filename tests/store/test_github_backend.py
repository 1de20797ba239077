"""GitHubRefBackend on the in-process emulator: the lease's ref operations and how
provider outcomes become the RefBackend vocabulary."""

from __future__ import annotations

import pytest

from ghattempt.exclusive import AmbiguousOutcome, BackendError, RefConflict
from ghattempt.store import GitHubRefBackend

from . import harness as h

REF = "refs/heads/ghattempt/lease/" + "1" * 40


@pytest.fixture
def backend():
    emu = h.emulator()
    gh = h.provider(emu=emu)
    return emu, GitHubRefBackend(gh, h.OWNER, h.NAME, h.repository_id(gh))


def test_create_read_advance_with_compare_and_set(backend):
    emu, b = backend
    snap = b.read_ref(REF)
    assert snap.oid is None and snap.message is None and snap.server_time > 1_700_000_000
    w1 = b.create_ref(REF, "lease\n\n{\"holder\":\"a/1\"}\n")
    with pytest.raises(RefConflict):
        b.create_ref(REF, "again")
    snap = b.read_ref(REF)
    assert snap.oid == w1.oid and snap.message.startswith("lease\n\n")
    w2 = b.advance_ref(REF, w1.oid, "lease\n\n{\"holder\":\"b/2\"}")
    with pytest.raises(RefConflict):
        b.advance_ref(REF, w1.oid, "lease\n\n{\"holder\":\"c/3\"}")  # stale head
    assert b.read_ref(REF).oid == w2.oid


def test_lost_answer_is_ambiguous_and_non_branch_refs_are_refused(backend):
    emu, b = backend
    w1 = b.create_ref(REF, "lease\n\nx")
    emu.add_fault({"kind": "lose_response", "operation": "createCommitOnBranch", "count": 1})
    with pytest.raises(AmbiguousOutcome):
        b.advance_ref(REF, w1.oid, "lease\n\ny")
    assert b.read_ref(REF).oid != w1.oid  # it had landed
    with pytest.raises(BackendError) as info:
        b.advance_ref("refs/tags/x", w1.oid, "m")
    assert not info.value.retryable
