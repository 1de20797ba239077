"""Fault tests of the business attempt store on the in-process emulator (ADR 0006 list)."""

from __future__ import annotations

import hashlib
import threading

import pytest

from ghattempt.core import Material, build_material, parse_capture, render_body
from ghattempt.core.testing import forge
from ghattempt.emulator import Clock, Emulator
from ghattempt.exclusive import InMemoryExclusive, OwnershipLost, RefLease
from ghattempt.materials import MaterialVerifier
from ghattempt.store import (
    AuthorizationReused,
    Blocked,
    BusinessAttemptStore,
    ConflictingKey,
    GitHubRefBackend,
    IllegalTransition,
    JournalInvalidError,
    JournalOptions,
    MaterialRefused,
    RefusedByRules,
    RepositoryMismatch,
    StoreInputError,
    TerminalAttempt,
)

from . import harness as h
from .conftest import EmulatorClock, World

KEY = "merge/pr-1@main"


def admit(world: World, **kwargs):
    with world.store.session(world.journal) as s:
        return s.admit(request_key=kwargs.pop("request_key", KEY),
                       generation=kwargs.pop("generation", h.generation()),
                       plan=kwargs.pop("plan", h.PLAN), channel="stable",
                       expires_at=kwargs.pop("expires_at", h.FAR), **kwargs)


def event_records(world: World) -> list[dict]:
    return [r for r in world.records() if r["type"] == "event"]


# --------------------------------------------------------------------- identity drift


def test_identity_drift_replaced_repository_is_refused(world: World):
    other = "R_kgDOReplaced"
    store = BusinessAttemptStore(world.gh, JournalOptions(repository=h.REPO,
                                                          repository_id=other,
                                                          category=h.CATEGORY,
                                                          writer_login=h.LOGIN),
                                 exclusive=InMemoryExclusive(), writer=world.store.writer,
                                 reader=h.READER)
    with pytest.raises(RepositoryMismatch) as info:
        store.initialise()
    assert info.value.expected == other and info.value.found == world.repo_id
    assert "replaced" in str(info.value)


def test_identity_drift_event_of_another_attempt_fails_closed(world: World):
    a = admit(world)
    b = admit(world, request_key="other-key")
    with world.store.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        ev = s.attempt(a.id).events[0]
    # a correctly signed event of attempt a, posted under attempt b's root
    world.gh.add_comment(world.journal.discussion_id, render_body(ev),
                         reply_to_id=b.root_ids[0])
    with pytest.raises(JournalInvalidError) as info:
        with world.store.session(world.journal):
            pass
    assert info.value.code == "identity_drift"


def test_no_default_lock(world: World):
    with pytest.raises(StoreInputError, match="no default lock"):
        BusinessAttemptStore(world.gh, JournalOptions(repository=h.REPO,
                                                      repository_id=world.repo_id,
                                                      category=h.CATEGORY,
                                                      writer_login=h.LOGIN),
                             exclusive=None, writer=world.store.writer, reader=h.READER)


def test_missing_category_and_read_only_token_are_refused(world: World):
    # GitHub tells a person's token its permission (a bot's viewerPermission is null:
    # its write access shows at the first write)
    ro = h.provider(emu=world.emu, token="ghp_mallory")
    from ghattempt.store import GitHubAnomaly
    with pytest.raises(GitHubAnomaly, match="READ access"):
        h.store(ro, InMemoryExclusive(), repo_id=world.repo_id)
    store = BusinessAttemptStore(world.gh, JournalOptions(repository=h.REPO,
                                                          repository_id=world.repo_id,
                                                          category="nope",
                                                          writer_login=h.LOGIN),
                                 exclusive=InMemoryExclusive(), writer=world.store.writer,
                                 reader=h.READER)
    with pytest.raises(GitHubAnomaly, match="no discussion category 'nope'"):
        store.initialise()


# ------------------------------------------------------------------ journals per intent


def test_one_journal_per_intent_found_without_search(world: World):
    again = world.new_store().open_journal(1, "main")
    assert again == world.journal
    other = world.store.open_journal(1, "release")
    assert other.number != world.journal.number
    journals = [d for r in world.emu.snapshot()["repositories"] for d in r["discussions"]
                if d["number"] in (world.journal.number, other.number)]
    # never locked: GitHub refuses comments by Apps and the Actions bot when locked
    assert len(journals) == 2 and not any(d["locked"] for d in journals)
    assert not any(e.get("operation") == "LockLockable" for e in world.emu.request_log())


def test_lost_create_discussion_response_makes_one_journal(world: World):
    world.emu.add_fault({"kind": "lose_response", "operation": "createDiscussion",
                         "count": 1})
    journal = world.store.open_journal(2, "main")
    repo = next(r for r in world.emu.snapshot()["repositories"]
                if r["nameWithOwner"] == h.REPO)
    titles = [d["title"] for d in repo["discussions"] if "#2 into main" in d["title"]]
    assert len(titles) == 1
    assert world.store.open_journal(2, "main") == journal


# ------------------------------------------------------------ incomplete and corrupted


def test_incomplete_chain_fails_closed(world: World):
    a = admit(world)
    with world.store.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        s.append(a.id, key="k2", phase="admission", status="succeeded")
        s.append(a.id, key="k3", phase="build", status="started")
        middle = s.attempt(a.id).event_nodes[s.attempt(a.id).events[1].digest][0]
    world.emu.tamper("delete", middle)
    before = len(world.comments())
    with pytest.raises(JournalInvalidError) as info:
        world.store.append(world.journal, a.id, key="k4", phase="build", status="succeeded")
    assert info.value.code == "gap"
    assert len(world.comments()) == before  # nothing written


def test_corrupted_chain_fails_closed(world: World):
    a = admit(world)
    with world.store.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        ev = s.attempt(a.id).events[0]
    # the writer's own token posts a record whose digest does not match its content
    body = "corrupted\n\n<!-- ghattempt:v1 -->\n```json\n" + forge(
        ev, redigest=False, reason=None, status="succeeded") + "\n```\n"
    world.gh.add_comment(world.journal.discussion_id, body, reply_to_id=a.root_ids[0])
    before = len(world.comments())
    with pytest.raises(JournalInvalidError) as info:
        world.store.append(world.journal, a.id, key="k2", phase="admission",
                           status="succeeded")
    assert info.value.code == "digest_mismatch"
    assert len(world.comments()) == before


# ------------------------------------------------------ duplicate and out-of-order delivery


def test_duplicate_delivery_is_one_record_and_key_replays(world: World):
    a = admit(world)
    first = world.store.append(world.journal, a.id, key="k1", phase="admission",
                               status="started")
    # the same record delivered twice (a retried webhook that posted the same bytes)
    world.gh.add_comment(world.journal.discussion_id, render_body(first.event),
                         reply_to_id=a.root_ids[0])
    again = world.store.append(world.journal, a.id, key="k1", phase="admission",
                               status="started")
    assert again.replayed and again.sends == 0 and again.event == first.event
    v = world.store.verdict(world.journal, KEY)
    assert v.status == "running" and len(v.journal.attempt(a.id).events) == 1
    with pytest.raises(ConflictingKey):
        world.store.append(world.journal, a.id, key="k1", phase="admission",
                           status="succeeded")


def test_out_of_order_delivery_reconstructs_the_history(world: World):
    a = admit(world)
    with world.store.session(world.journal) as s:
        for i, (phase, status) in enumerate([("admission", "started"),
                                             ("admission", "succeeded"),
                                             ("build", "started")]):
            s.append(a.id, key=f"k{i}", phase=phase, status=status)
    pages = world.gh.capture_journal(h.OWNER, h.NAME, world.journal.number)
    # the replies of the root arrive in reverse order, and the pages too
    for page in pages:
        for root in page["data"]["repository"]["discussion"]["comments"]["nodes"]:
            root["replies"]["nodes"].reverse()
    pages.reverse()
    v = world.store.read(parse_capture(pages), KEY)
    assert v.status == "running" and v.recovery == "continue:build"
    assert [e.seq for e in v.journal.attempt(a.id).events] == [1, 2, 3]


# ------------------------------------------------------ concurrent and stale writers


def test_stale_writer_whose_lease_expired_does_not_commit(world: World):
    clock = EmulatorClock(world.emu)
    a = admit(world)

    def store_with_clock() -> BusinessAttemptStore:
        lease = RefLease(GitHubRefBackend(world.gh, h.OWNER, h.NAME, world.repo_id),
                         h.settings(), clock=clock)
        return world.new_store(exclusive=lease)

    stale, fresh = store_with_clock(), store_with_clock()
    with stale.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        # the holder pauses past its lease; another writer takes the scope and appends
        world.emu.clock.advance(h.settings().lease_seconds + 5)
        fresh.append(world.journal, a.id, key="k2", phase="admission", status="succeeded")
        # valid by the stale writer's own (old) view: only the lease can stop it
        with pytest.raises(OwnershipLost):
            s.append(a.id, key="k3", phase="admission", status="waiting", reason="stale")
    keys = [r["key"] for r in event_records(world)]
    assert keys == ["k1", "k2"]
    assert world.store.verdict(world.journal, KEY).status == "running"


def test_concurrent_threads_with_the_lease_never_fork(world: World):
    a = admit(world)
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        gh = h.provider(emu=world.emu, token=h.WRITER_TOKENS[n])
        store = h.store(gh, repo_id=world.repo_id)
        try:
            for i in range(5):
                store.append(world.journal, a.id, key=f"t{n}-{i}", phase="admission",
                             status="waiting", reason=f"writer {n} step {i}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    v = world.store.verdict(world.journal, KEY)
    assert v.status == "waiting", v.detail
    keys = [r["key"] for r in event_records(world)]
    assert sorted(keys) == sorted(f"t{n}-{i}" for n in range(4) for i in range(5))


class SteppingWall:
    """A machine wall clock that the test sets, also backwards (an NTP or VM step)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_wall_clock_stepping_back_hides_no_comment_from_the_next_writer():
    # The emulator shows a comment to reads whose clock is at or past its creation; a
    # wall clock stepping back between two writers must not hide the first one's event
    # from the second, which would build on a stale head (a fork at seq 1).
    t0 = 1_800_000_000.0
    wall = SteppingWall(t0 + 0.1)
    emu = Emulator(":memory:", h.fixture(), clock=Clock(wall))
    gh = h.provider(emu=emu)
    store = h.store(gh)
    journal = store.open_journal(1, "main")
    with store.session(journal) as s:
        a = s.admit(request_key=KEY, generation=h.generation(), plan=h.PLAN,
                    channel="stable", expires_at=h.FAR)
    wall.now = t0 + 0.6
    store.append(journal, a.id, key="k1", phase="admission", status="started")
    wall.now = t0 + 0.3  # the machine's clock steps back, within the same second
    second = store.append(journal, a.id, key="k2", phase="admission", status="waiting",
                          reason="waiting for review")
    wall.now = t0 + 1.0
    assert second.event.seq == 2
    v = store.verdict(journal, KEY)
    assert v.status == "waiting", v.detail
    assert v.current is not None
    assert [e.key for e in v.current.events] == ["k1", "k2"]


def test_the_journal_is_captured_only_once_the_scope_is_held(world: World):
    # the capture is what the record is built on: it must follow the acquisition, so no
    # writer can have written between the two (the lease's witness then proves it whole)
    a = admit(world)
    world.emu.clear_request_log()
    world.new_store().append(world.journal, a.id, key="k1", phase="admission",
                             status="started")
    ops = [e["operation"] for e in world.emu.request_log()]
    assert ops.index("CreateCommitOnBranch") < ops.index("JournalPageLease")
    assert ops.index("JournalPageLease") < ops.index("AddDiscussionComment")


# ------------------------------------------------------------- cancellation and failure


def test_failure_and_cancellation_are_terminal_and_successor_inherits_nothing(world: World):
    a = admit(world, authorization="auth-1")
    with world.store.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        s.append(a.id, key="k2", phase="admission", status="succeeded")
        s.append(a.id, key="k3", phase="build", status="failed", reason="compiler crashed")
        assert s.attempt(a.id).status == "failed"
        with pytest.raises(TerminalAttempt):
            s.append(a.id, key="k4", phase="build", status="started")
        with pytest.raises(AuthorizationReused):
            s.admit(request_key=KEY, generation=h.generation(), plan=h.PLAN, channel="stable",
                    expires_at=h.FAR, authorization="auth-1")
        b = s.successor(a.id, generation=h.generation(), plan=h.PLAN, channel="stable",
                        expires_at=h.FAR, authorization="auth-2").attempt
        assert b.status == "pending" and b.predecessor == a.id
        assert b.phases == {} and b.missing_phases == h.PLAN  # no inherited success
        s.append(b.id, key="c1", phase=None, status="cancelled", reason="operator stop")
        assert s.attempt(b.id).status == "cancelled"
        with pytest.raises(TerminalAttempt):
            s.append(b.id, key="c2", phase="admission", status="started")
    assert world.store.verdict(world.journal, KEY).recovery == "successor"


def test_preflight_refuses_a_blocked_key_before_anything_is_written(world: World):
    a = admit(world)
    before = len(world.comments())
    with world.store.session(world.journal) as s:
        with pytest.raises(Blocked) as info:
            s.preflight(KEY, "auth-fresh")
        assert info.value.attempt == a.id and info.value.status == "pending"
        assert [x.id for x in s.find_history(KEY)] == [a.id]
        assert s.find_blocking(KEY).id == a.id
        with pytest.raises(Blocked):
            s.admit(request_key=KEY, generation=h.generation(), plan=h.PLAN,
                    channel="stable", expires_at=h.FAR)
    assert len(world.comments()) == before


def test_illegal_transition_is_refused_before_writing(world: World):
    a = admit(world)
    before = len(world.comments())
    with world.store.session(world.journal) as s:
        with pytest.raises(IllegalTransition) as info:
            s.append(a.id, key="k1", phase="build", status="started")
        assert info.value.code == "missing_predecessor"
        with pytest.raises(IllegalTransition):
            s.append(a.id, key="k2", phase="publication", status="started")
        with pytest.raises(StoreInputError):
            s.append(a.id, key="k3", phase="admission", status="failed")  # no reason
    assert len(world.comments()) == before


# ------------------------------------------------------------ response loss after commit


@pytest.mark.parametrize("answer", [{"status": 502}, {"drop": True}, {"status": 200}],
                         ids=["http502", "dropped", "internal200"])
def test_response_loss_after_commit_leaves_no_duplicate(world: World,
                                                        answer: dict[str, object]):
    # 200 is GitHub's ``type: INTERNAL``: the mutation may have landed, no refusal
    a = admit(world)
    world.emu.add_fault({"kind": "lose_response", "operation": "addDiscussionComment",
                         "count": 1, **answer})
    r = world.store.append(world.journal, a.id, key="k1", phase="admission", status="started")
    assert not r.replayed and r.sends == 1
    assert [x["key"] for x in event_records(world)] == ["k1"]
    assert len(world.comments()) == 2  # root + one reply: zero duplicates


def test_lost_root_response_makes_one_attempt(world: World):
    world.emu.add_fault({"kind": "lose_response", "operation": "addDiscussionComment",
                         "count": 1})
    a = admit(world)
    roots = [r for r in world.records() if r["type"] == "attempt"]
    assert [r["digest"] for r in roots] == [a.id]


@pytest.mark.parametrize("status", [502, 200], ids=["http502", "internal200"])
def test_unsent_mutation_is_sent_again_with_the_same_bytes(world: World, status: int):
    a = admit(world)
    world.emu.add_fault({"kind": "fail", "operation": "addDiscussionComment", "count": 1,
                         "status": status})
    r = world.store.append(world.journal, a.id, key="k1", phase="admission", status="started")
    assert r.sends == 2 and not r.replayed
    assert [x["key"] for x in event_records(world)] == ["k1"]
    sent = [e for e in world.emu.request_log() if e.get("operation") == "AddDiscussionComment"]
    assert len(sent) >= 3  # root, the failed send, the resend


# --------------------------------------------------------- untrusted and edited records


def test_untrusted_records_are_ignored(world: World):
    a = admit(world)
    r1 = world.store.append(world.journal, a.id, key="k1", phase="admission", status="started")
    # another account posts a well-formed next event: it never contributes
    alice = h.provider(emu=world.emu, token="ghp_alice")
    forged = forge(r1.event, seq=2, prev=r1.event.digest, key="evil", status="succeeded")
    alice.add_comment(world.journal.discussion_id,
                      "<!-- ghattempt:v1 -->\n```json\n" + forged + "\n```\n",
                      reply_to_id=a.root_ids[0])
    r2 = world.store.append(world.journal, a.id, key="k2", phase="admission",
                            status="succeeded")
    assert r2.event.seq == 2
    v = world.store.verdict(world.journal, KEY)
    assert v.status == "running" and v.ignored == 1


def test_edited_record_no_longer_counts_and_fails_closed(world: World):
    a = admit(world)
    with world.store.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        s.append(a.id, key="k2", phase="admission", status="succeeded")
        s.append(a.id, key="k3", phase="build", status="started")
        first = s.attempt(a.id).event_nodes[s.attempt(a.id).events[0].digest][0]
    world.emu.tamper("edit", first, actor=h.LOGIN, body="edited")
    with pytest.raises(JournalInvalidError) as info:
        world.store.append(world.journal, a.id, key="k4", phase="build", status="succeeded")
    assert info.value.code == "gap"


# ------------------------------------------------------------------- material integrity


def _material(attempt, data: bytes, mid: str = "dist-1", url: str | None = None) -> Material:
    return build_material(attempt=attempt.attempt, id=mid, kind="artifact", size=len(data),
                          digest="sha256:" + hashlib.sha256(data).hexdigest(),
                          url=url or f"https://github.com/{h.REPO}/releases/download/v1/a.tgz")


def test_material_integrity(world: World):
    blobs = {"dist-1": b"release bytes"}
    verifier = MaterialVerifier(lambda m: blobs[m.id])
    a = admit(world)
    good = _material(a, b"release bytes")
    with world.store.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        s.append(a.id, key="k2", phase="admission", status="succeeded")
        s.append(a.id, key="k3", phase="build", status="succeeded", materials=[good])
        # a reused id with other bytes is refused by the core before writing
        other = _material(a, b"other bytes")
        with pytest.raises(MaterialRefused) as info:
            s.append(a.id, key="k4", phase="review", status="started", materials=[other])
        assert info.value.code == "material_conflict"
        signed = _material(a, b"x", mid="signed",
                           url=f"https://github.com/{h.REPO}/a.tgz?token=abc")
        with pytest.raises(MaterialRefused) as info:
            s.append(a.id, key="k5", phase="review", status="started", materials=[signed])
        assert info.value.code == "material_rejected"
        s.append(a.id, key="k6", phase="review", status="failed", reason="reviewer said no")
        # recovery re-verifies retained bytes: tampered bytes are refused, no root written
        blobs["dist-1"] = b"tampered bytes"
        n = len(s.state.attempts)
        with pytest.raises(MaterialRefused) as info:
            s.successor(a.id, generation=h.generation(), plan=h.PLAN, channel="stable",
                        expires_at=h.FAR, retained=[good], verifier=MaterialVerifier(
                            lambda m: blobs[m.id]))
        assert info.value.code == "material_mismatch"
        assert len(s.state.attempts) == n
        blobs["dist-1"] = b"release bytes"
        succ = s.successor(a.id, generation=h.generation(), plan=h.PLAN, channel="stable",
                           expires_at=h.FAR, retained=[good], verifier=verifier)
        assert succ.materials == (good,)
    # the verifier remembers: the same id can never acquire other bytes
    with pytest.raises(MaterialRefused) as info:
        verifier.verify(_material(a, b"release bytez"))
    assert info.value.code == "material_conflict"
    with pytest.raises(MaterialRefused) as info:
        MaterialVerifier(lambda m: b"short").verify(good)
    assert info.value.code == "material_mismatch"


# ------------------------------------------------------- published-history preservation


def test_new_generation_preserves_published_history(world: World):
    a = admit(world)
    data = b"published"
    with world.store.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        s.append(a.id, key="k2", phase="admission", status="succeeded")
        s.append(a.id, key="k3", phase="build", status="succeeded",
                 materials=[_material(a, data)])
    before = {c["id"]: c["body"] for c in world.comments()}
    with world.store.session(world.journal) as s:
        with pytest.raises(StoreInputError, match="unchanged"):
            s.supersede(a.id, generation=h.generation(), reason="x", expires_at=h.FAR)
        b = s.supersede(a.id, generation=h.generation(2), reason="source commit changed",
                        expires_at=h.FAR)
        s.append(b.id, key="n1", phase="admission", status="started")
    after = {c["id"]: c["body"] for c in world.comments()}
    assert all(after[i] == body for i, body in before.items())  # nothing rewritten
    v = world.store.verdict(world.journal, KEY)
    assert v.attempt == b.id and v.status == "running"
    old = v.journal.attempt(a.id)
    assert old.status == "superseded"
    assert [e.key for e in old.events] == ["k1", "k2", "k3", f"supersede:{h.generation(2).id}"]
    assert old.phases["build"].status == "succeeded" and old.materials[0].bytes == len(data)
    assert [x["status"] for x in v.attempts] == ["superseded", "running"]


# ----------------------------------------------------------------- expiry and rollback


def test_expire_pending_only_after_expiry_at_the_expected_head(world: World):
    now = world.emu.clock.now()
    import time as _t
    soon = _t.strftime("%Y-%m-%dT%H:%M:%SZ", _t.gmtime(now + 30))
    a = admit(world, expires_at=soon)
    with world.store.session(world.journal) as s:
        with pytest.raises(RefusedByRules) as info:
            s.expire(a.id, expected_head=a.id, reason="confirmation window elapsed")
        assert info.value.code == "not_expired"
    world.emu.clock.advance(40)
    world.emu.clear_request_log()
    with world.store.session(world.journal) as s:
        with pytest.raises(RefusedByRules) as info:
            s.expire(a.id, expected_head="sha256:" + "0" * 64, reason="x")
        assert info.value.code == "head_moved"
        r = s.expire(a.id, expected_head=a.id, reason="confirmation window elapsed")
        assert s.attempt(a.id).status == "expired" and r.event.at >= soon
        with pytest.raises(RefusedByRules) as info:
            s.expire(a.id, expected_head=r.event.digest, reason="again")
        assert info.value.code == "not_pending"
    ops = {e["operation"] for e in world.emu.request_log()}
    # the lease read, the lease, the capture with the lease ref, the one write: no other
    # provider contact
    assert ops <= {"LeaseRef", "JournalPageLease", "CreateCommitOnBranch",
                   "AddDiscussionComment"}, ops
    # an expired attempt no longer blocks: a fresh attempt is admitted as its successor
    b = admit(world)
    assert b.predecessor == a.id


def test_rollback_after_success(world: World):
    a = admit(world, plan=("admission",))
    with world.store.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        s.append(a.id, key="k2", phase="admission", status="succeeded")
        assert s.attempt(a.id).status == "succeeded"
        with pytest.raises(Blocked):
            s.preflight(KEY)
        s.rollback(a.id, key="r1", status="started")
        assert s.attempt(a.id).status == "rolling-back"
        s.rollback(a.id, key="r2", status="succeeded")
        assert s.attempt(a.id).status == "rolled-back"
        s.preflight(KEY)  # no longer blocks
        with pytest.raises(TerminalAttempt):
            s.rollback(a.id, key="r3", status="started")


def test_provider_timeout_must_fit_the_lease(world: World):
    slow = h.provider(emu=world.emu, timeout=30.0)
    with pytest.raises(StoreInputError, match="request_timeout"):
        BusinessAttemptStore(slow, JournalOptions(repository=h.REPO,
                                                  repository_id=world.repo_id,
                                                  category=h.CATEGORY, writer_login=h.LOGIN),
                             exclusive=h.lease(slow, world.repo_id),
                             writer=world.store.writer, reader=h.READER)


def test_a_journal_forged_by_another_account_is_not_taken(world: World):
    intent = world.store.intent(5, "main")
    alice = h.provider(emu=world.emu, token="ghp_alice")
    category = next(c.id for c in alice.repository(h.OWNER, h.NAME).categories
                    if c.slug == h.CATEGORY)
    forged = alice.create_discussion(world.repo_id, category, "Release journal: #5 into main",
                                     render_body(intent))
    journal = world.store.open_journal(5, "main")
    assert journal.discussion_id != forged.id and journal.intent == intent
    v = world.store.verdict(journal)
    assert v.status == "empty" and v.valid


def test_lost_ownership_before_the_mutation_writes_nothing(world: World):
    memory = InMemoryExclusive()
    store = world.new_store(exclusive=memory)
    a = admit(world)
    before = len(world.comments())
    with store.session(world.journal) as s:
        memory.revoke(world.journal.scope)
        with pytest.raises(OwnershipLost):
            s.append(a.id, key="k1", phase="admission", status="started")
    assert len(world.comments()) == before


def test_held_session_advances_locally_and_matches_a_fresh_capture(world: World):
    a = admit(world)
    b = admit(world, request_key="other-key")
    world.emu.clear_request_log()
    with world.store.session(world.journal) as s:
        s.append(a.id, key="k1", phase="admission", status="started")
        s.append(b.id, key="k1", phase="admission", status="started")
        s.append(a.id, key="k2", phase="admission", status="succeeded")
        local = s.state
    ops = [e["operation"] for e in world.emu.request_log()]
    assert ops.count("AddDiscussionComment") == 3
    assert ops.count("JournalPageLease") == 1 and "JournalPage" not in ops  # no re-capture
    fresh = world.store.verdict(world.journal, KEY).journal
    assert [x.summary() for x in fresh.attempts] == [x.summary() for x in local.attempts]
    assert [x.events for x in fresh.attempts] == [x.events for x in local.attempts]
    assert dict(fresh.materials) == dict(local.materials)


def test_rate_limited_write_is_waited_out_and_sent_once(world: World):
    a = admit(world)
    world.emu.add_fault({"kind": "secondary_rate_limit", "operation": "addDiscussionComment",
                         "count": 1, "retry_after": 1})
    steps: list[str] = []
    store = world.new_store(observer=steps.append)
    r = store.append(world.journal, a.id, key="k1", phase="admission", status="started")
    assert r.sends == 1 and "rate-limited" in steps
    assert [x["key"] for x in event_records(world)] == ["k1"]


def test_a_write_refused_by_a_rate_limit_hands_the_scope_over_at_once(world: World):
    """GitHub answered the append with a secondary rate limit (not executed) for longer
    than the store waits: the release does not keep the scope quiet for a mutation that
    cannot land (the window closes as for an answer)."""
    from ghattempt.exclusive import read_lease
    from ghattempt.exclusive._scope import parse_time
    from ghattempt.github.errors import RateLimited

    a = admit(world)
    world.emu.add_fault({"kind": "secondary_rate_limit", "operation": "addDiscussionComment",
                         "count": 1, "retry_after": 3600})
    with pytest.raises(RateLimited):
        world.store.append(world.journal, a.id, key="k1", phase="admission",
                           status="started")
    scope = world.journal.scope
    snap = GitHubRefBackend(world.gh, h.OWNER, h.NAME, world.repo_id).read_ref(
        scope.ref_name())
    lease = read_lease(snap.message, ref=snap.name, scope=scope)
    assert lease.state == "released"
    assert parse_time(lease.expires_at) <= snap.server_time  # the next may take it now
    assert event_records(world) == []
