"""The library API writers use: state, builders, pre-write checks, blocking lookups."""

from __future__ import annotations

import pytest

from ghattempt.core import (
    AppWriter,
    CliWriter,
    JournalState,
    RecordValueError,
    build_attempt,
    build_event,
    build_intent,
    check_attempt,
    check_event,
    find_blocking,
    find_history,
    next_event,
    parse_body,
    render_body,
)
from ghattempt.core.testing import READER, WRITER, Scenario, sample_generation

PLAN = ("admission", "build", "merge")


def journal_of(s: Scenario, **kwargs: object) -> JournalState:
    v = s.read(**kwargs)  # type: ignore[arg-type]
    assert v.journal is not None, v.to_json()
    return v.journal


def test_state_gives_heads_phases_and_events() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.succeed("admission")
    a.event("build", "waiting", "queued", key="wait-1")
    v = s.read()
    state = v.current
    assert state is not None
    assert state.head_seq == 3 and state.head_digest == a.events[-1].digest
    assert state.root_ids == (a.root.id,)  # type: ignore[union-attr]
    assert state.phases["admission"].status == "succeeded"
    assert (state.phases["build"].status, state.phases["build"].reason) == ("waiting", "queued")
    assert "merge" not in state.phases
    assert state.event_by_key("wait-1") == a.events[-1]
    assert state.event_by_key("nope") is None
    assert state.events == tuple(a.events)
    assert state.event_nodes[a.events[0].digest] == (a.root.replies[0].id,)  # type: ignore[union-attr]
    assert state.blocks
    j = v.journal
    assert j is not None and j.intent == s.intent
    assert j.discussion_id == s.fixture.discussion_id and j.repository_name == "octo-org/widgets"


def test_empty_attempt_head_is_the_root() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    state = s.read().current
    assert state is not None and (state.head_seq, state.head_digest) == (0, a.id)


def test_next_event_extends_the_chain_and_reads_back() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.event("admission", "started")
    j = journal_of(s)
    state = j.attempts[0]
    e = next_event(state, key="adm-ok", phase="admission", status="succeeded", writer=WRITER,
                   reader=READER, at="2026-03-02T00:00:00Z")
    assert (e.seq, e.prev) == (2, a.events[0].digest)
    assert check_event(j, e) is None
    body = render_body(e)
    assert parse_body(body, "event") == e
    a.post(body)
    assert s.read().current.head_digest == e.digest  # type: ignore[union-attr]


@pytest.mark.parametrize("phase,status,reason,code", [
    ("merge", "started", None, "missing_predecessor"),
    ("deploy", "started", None, "undeclared_phase"),
    ("rollback", "started", None, "illegal_transition"),
    (None, "expired", "late", "illegal_transition"),
])
def test_check_event_refuses_illegal_transitions(phase: str | None, status: str,
                                                 reason: str | None, code: str) -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.event("admission", "started")
    j = journal_of(s)
    e = next_event(j.attempts[0], key="x", phase=phase, status=status, reason=reason,
                   writer=WRITER, reader=READER, at="2026-03-02T00:00:00Z")
    assert check_event(j, e) == code
    a.post(e)
    assert s.read().reason == code  # the reader agrees


def test_check_event_on_chain_problems() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.event("admission", "started", key="k1")
    j = journal_of(s)
    state = j.attempts[0]
    assert check_event(j, a.events[0]) is None  # identical repeat: one meaning
    same_key = next_event(state, key="k1", phase="admission", status="succeeded",
                          writer=WRITER, reader=READER, at="2026-03-02T00:00:00Z")
    assert check_event(j, same_key) == "conflicting_duplicate"
    stale = a.build("admission", "succeeded", seq=1, prev=a.id)
    assert check_event(j, stale) == "fork"
    ahead = a.build("admission", "succeeded", seq=3)
    assert check_event(j, ahead) == "gap"
    unlinked = a.build("admission", "succeeded", prev=a.id)
    assert check_event(j, unlinked) == "broken_link"
    foreign = build_event(intent=s.intent.digest, attempt="sha256:" + "9" * 64,
                          generation=state.generation_id, seq=2, prev=state.head_digest,
                          key="z", phase="admission", status="succeeded", writer=WRITER,
                          reader=READER, at="2026-03-02T00:00:00Z")
    assert check_event(j, foreign) == "identity_drift"
    bad_material = a.build("admission", "succeeded",
                           materials=[a.material("m", url="https://x.test/a")])
    assert check_event(j, bad_material) == "material_rejected"
    assert check_event(journal_of(s, max_records=1),
                       a.build("admission", "succeeded")) == "history_bound"


def test_check_event_sees_material_conflicts_in_other_attempts() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN)
    first.event("admission", "failed", "no", materials=[first.material("m", size=1)])
    second = s.attempt(plan=PLAN, predecessor=first)
    j = journal_of(s)
    clash = second.build("admission", "started", materials=[second.material("m", size=2)])
    assert check_event(j, clash) == "material_conflict"
    reuse = second.build("admission", "started", materials=[first.material("m", size=1)])
    assert check_event(j, reuse) is None


def test_check_attempt_admission_rules() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN, authorization="auth-1")
    first.event("admission", "started")
    j = journal_of(s)
    assert find_blocking(j, "merge/pr-42@main") is not None
    successor = build_attempt(intent=s.intent, request_key="merge/pr-42@main",
                              generation=sample_generation(5), plan=PLAN, channel="stable",
                              expires_at="2026-03-20T00:00:00Z", writer=WRITER,
                              reader=READER, at="2026-03-02T00:00:00Z", predecessor=first.id)
    assert check_attempt(j, successor) == "blocked_successor"
    fresh = build_attempt(intent=s.intent, request_key="merge/pr-42@main",
                          generation=sample_generation(5), plan=PLAN, channel="stable",
                          expires_at="2026-03-20T00:00:00Z", writer=WRITER, reader=READER,
                          at="2026-03-02T00:00:00Z")
    assert check_attempt(j, fresh) == "fork"
    other_key = build_attempt(intent=s.intent, request_key="release/v1",
                              generation=sample_generation(6), plan=PLAN, channel="stable",
                              expires_at="2026-03-20T00:00:00Z", writer=WRITER, reader=READER,
                              at="2026-03-02T00:00:00Z", authorization="auth-1")
    assert check_attempt(j, other_key) == "authorization_reused"
    foreign = build_attempt(intent="sha256:" + "8" * 64, request_key="release/v1",
                            generation=sample_generation(6), plan=PLAN, channel="stable",
                            expires_at="2026-03-20T00:00:00Z", writer=WRITER, reader=READER,
                            at="2026-03-02T00:00:00Z")
    assert check_attempt(j, foreign) == "identity_drift"
    assert check_attempt(j, first.record) is None
    assert check_attempt(journal_of(s, max_attempts=1), other_key) == "history_bound"


def test_find_blocking_and_history_follow_adr_038() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN)
    first.event("admission", "failed", "no")
    j = journal_of(s)
    assert find_blocking(j, "merge/pr-42@main") is None
    assert [a.id for a in find_history(j, "merge/pr-42@main")] == [first.id]
    second = s.attempt(plan=PLAN, predecessor=first)
    j = journal_of(s)
    blocking = find_blocking(j, "merge/pr-42@main")
    assert blocking is not None and blocking.id == second.id
    assert [a.id for a in find_history(j, "merge/pr-42@main")] == [first.id, second.id]
    assert find_history(j, "other") == () and find_blocking(j, "other") is None


def test_builders_refuse_what_the_reader_would_refuse() -> None:
    with pytest.raises(ValueError, match="bad_record"):
        build_intent(repository_id="R", repository_name="not a repo", pull_request=1,
                     base_ref="main")
    with pytest.raises(RecordValueError, match="bad_record") as required:
        build_event(intent="sha256:" + "1" * 64, attempt="sha256:" + "1" * 64,
                    generation="sha256:" + "1" * 64, seq=1, prev="sha256:" + "1" * 64,
                    key="k", phase="build", status="failed", writer=WRITER, reader=READER,
                    at="2026-03-02T00:00:00Z")  # failed needs a reason
    assert required.value.problem == "reason_required"  # a writer acts on it, not the text
    with pytest.raises(RecordValueError) as forbidden:
        build_event(intent="sha256:" + "1" * 64, attempt="sha256:" + "1" * 64,
                    generation="sha256:" + "1" * 64, seq=1, prev="sha256:" + "1" * 64,
                    key="k", phase="build", status="started", reason="why",
                    writer=WRITER, reader=READER, at="2026-03-02T00:00:00Z")
    assert forbidden.value.problem == "reason_forbidden"
    with pytest.raises(ValueError, match="marker"):
        build_event(intent="sha256:" + "1" * 64, attempt="sha256:" + "1" * 64,
                    generation="sha256:" + "1" * 64, seq=1, prev="sha256:" + "1" * 64,
                    key="k", phase="build", status="failed", reason="<!-- ghattempt:v1 -->",
                    writer=WRITER, reader=READER, at="2026-03-02T00:00:00Z")


def test_writers_of_every_kind_round_trip() -> None:
    s = Scenario(writer=AppWriter(app_id=12, delivery="d-1"))
    a = s.attempt(plan=PLAN)
    a.event("admission", "started", writer=CliWriter(actor="monalisa"))
    v = s.read()
    assert v.current is not None
    assert v.current.attempt.writer == AppWriter(12, "d-1")
    assert v.current.events[0].writer == CliWriter("monalisa")


def test_render_body_is_markdown_plus_one_block() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    e = a.build("admission", "failed", "tests ``` failed <!-- here -->",
                materials=[a.material("log")])
    body = render_body(e)
    assert body.count("<!-- ghattempt:v") == 1 and "**admission** failed" in body
    assert parse_body(body, "event") == e
    assert parse_body(render_body(s.intent), "intent") == s.intent
    assert parse_body(render_body(a.record, summary="custom"), "attempt") == a.record
    with pytest.raises(ValueError):
        render_body(e, summary="<!-- ghattempt:v1 -->")
    with pytest.raises(ValueError, match="65536"):
        render_body(e, summary="x" * 70000)


def test_key_from_maps_runs_outside_the_key_alphabet_to_one_dash_and_cuts_at_128() -> None:
    import hashlib

    from ghattempt.core import key_from
    from ghattempt.core._records import is_key

    assert key_from("gha:7001:1:build job:build:started") == "gha:7001:1:build-job:build:started"
    assert key_from("a  b\u00e9\u00e9c/d@e+f=g") == "a-b-c/d@e+f=g"
    assert key_from("x" * 128) == "x" * 128
    long = key_from("x" * 200)
    assert long == "x" * 111 + "-" + hashlib.sha256(b"x" * 200).hexdigest()[:16]
    assert is_key(long) and len(long) == 128
    assert key_from("") == ""


def test_key_from_keeps_long_texts_that_differ_after_the_cut_apart() -> None:
    """A job id of about 108 characters: the keys of two phases once cut to the same 128
    characters (``conflicting_duplicate`` on the second step)."""
    from ghattempt.core import key_from

    job = "release-" + "j" * 100
    build = key_from(f"gha:7001:1:{job}:build:started")
    review = key_from(f"gha:7001:1:{job}:review:started")
    assert build != review and len(build) == len(review) == 128
    assert build == key_from(f"gha:7001:1:{job}:build:started")
    lone = key_from("a" * 120 + "\ud800" + "b" * 20)  # a lone surrogate, past the cut
    assert lone.startswith("a" * 111 + "-") and len(lone) == 128
