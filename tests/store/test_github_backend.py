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


@pytest.mark.parametrize("status", [502, 200], ids=["http502", "internal200"])
def test_lost_answer_is_ambiguous_and_non_branch_refs_are_refused(backend, status):
    emu, b = backend
    w1 = b.create_ref(REF, "lease\n\nx")
    emu.add_fault({"kind": "lose_response", "operation": "createCommitOnBranch", "count": 1,
                   "status": status})
    with pytest.raises(AmbiguousOutcome):
        b.advance_ref(REF, w1.oid, "lease\n\ny")
    assert b.read_ref(REF).oid != w1.oid  # it had landed
    with pytest.raises(BackendError) as info:
        b.advance_ref("refs/tags/x", w1.oid, "m")
    assert not info.value.retryable


# A refused ref write is read back, never read by its wording: GitHub's refusal of an
# existing ref and a ruleset's are the same type (docs/emulator.md, rulesets and refs).
LEASES = {"name": "leases", "include": ["refs/heads/ghattempt/lease/**"],
          "rules": ["creation", "update"], "bypass": []}


def test_a_ruleset_refusal_is_not_a_lost_compare_and_set(backend):
    emu, b = backend
    w1 = b.create_ref(REF, "lease\n\nx")
    emu.add_ruleset(h.REPO, **LEASES)
    with pytest.raises(BackendError) as advanced:
        b.advance_ref(REF, w1.oid, "lease\n\ny")
    assert not isinstance(advanced.value, RefConflict) and not advanced.value.retryable
    assert "Repository rule violations found" in str(advanced.value)
    other = "refs/heads/ghattempt/lease/" + "2" * 40
    with pytest.raises(BackendError) as created:
        b.create_ref(other, "lease\n\nz")
    assert not isinstance(created.value, RefConflict) and not created.value.retryable
    assert "Cannot create ref due to creations being restricted." in str(created.value)


def test_a_deleted_lease_branch_is_a_lost_compare_and_set(backend):
    emu, b = backend
    w1 = b.create_ref(REF, "lease\n\nx")
    gh = h.provider(emu=emu)
    ref = gh.ref(h.OWNER, h.NAME, REF)
    assert ref is not None
    gh.delete_ref(ref.id)
    with pytest.raises(RefConflict, match="the ref is absent"):  # "Branch not found"
        b.advance_ref(REF, w1.oid, "lease\n\ny")


def test_what_a_refused_ref_write_means_is_decided_by_the_ref_read_back():
    from ghattempt.exclusive._protocol import RefSnapshot
    from ghattempt.store._github import refusal_meaning

    def seen(oid, message=None):
        return RefSnapshot(REF, oid, message, 0)

    a, b = "a" * 40, "b" * 40
    assert refusal_meaning(None, "mine", seen(None)) == "refused"          # creation
    assert refusal_meaning(None, "mine", seen(a, "theirs")) == "conflict"
    assert refusal_meaning(None, "mine", seen(a, "mine")) == "landed"
    assert refusal_meaning(a, "mine", seen(a, "before")) == "refused"      # advance
    assert refusal_meaning(a, "mine", seen(b, "theirs")) == "conflict"
    assert refusal_meaning(a, "mine", seen(None)) == "conflict"
    assert refusal_meaning(a, "mine", seen(b, "mine")) == "landed"
