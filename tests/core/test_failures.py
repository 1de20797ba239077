"""Every failure code of the spec, built with the builders, and the check order where
one fault could read two ways (docs/journal-format.md sections 2-9)."""

from __future__ import annotations

import pytest

from ghattempt.core import FAILURE_CODES, read_journal
from ghattempt.core.testing import (
    OCTOCAT,
    AttemptHandle,
    Scenario,
    block_body,
    forge,
    sample_generation,
)

PLAN = ("admission", "build", "merge")


def reason_of(s: Scenario, **kwargs: object) -> str | None:
    v = s.read(**kwargs)  # type: ignore[arg-type]
    if v.status == "invalid":
        assert v.exit_code in (2, 3)
        assert (v.attempt, v.generation, v.intent, v.missing_phases, v.attempts, v.ignored,
                v.recovery) == (None, None, None, (), (), 0, "fail-closed")
        assert v.journal is None or v.reason == "bad_input"
    return v.reason


def started() -> tuple[Scenario, AttemptHandle]:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.event("admission", "started")
    return s, a


# --------------------------------------------------------------- records (sections 2-4)

def test_two_markers_are_bad_record() -> None:
    s, a = started()
    e = a.build("admission", "succeeded")
    a.post(block_body(forge(e)) + block_body(forge(e)))
    assert reason_of(s) == "bad_record"


def test_more_markers_win_over_a_version() -> None:
    s, a = started()
    e = a.build("admission", "succeeded")
    a.post(block_body(forge(e), version="2") + block_body(forge(e)))
    assert reason_of(s) == "bad_record"


@pytest.mark.parametrize("version", ["2", "01", "10"])
def test_marker_version_other_than_1(version: str) -> None:
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded")), version=version))
    assert reason_of(s) == "unknown_version"


def test_unknown_marker_version_wins_over_a_broken_fence() -> None:
    s, a = started()
    a.post("<!-- ghattempt:v2 -->\nnot a fence")
    assert reason_of(s) == "unknown_version"


@pytest.mark.parametrize("body", [
    "<!-- ghattempt:v1 -->\n```\n{LINE}\n```\n",  # fence without json
    "<!-- ghattempt:v1 -->\n```json\n{LINE}\n``` \n",  # closing fence with a space
    "<!-- ghattempt:v1 -->\n```json\n{LINE}\n",  # no closing fence
    "<!-- ghattempt:v1 -->\n\n```json\n{LINE}\n```\n",  # blank line after marker
    "text <!-- ghattempt:v1 -->\n```json\n{LINE}\n```\n",  # marker not alone
    "<!-- ghattempt:v1 -->\n```json\n{LINE}\n{LINE}\n```\n",  # two JSON lines
])
def test_fence_shape_is_exact(body: str) -> None:
    s, a = started()
    a.post(body.replace("{LINE}", forge(a.build("admission", "succeeded"))))
    assert reason_of(s) == "bad_record"


def test_crlf_reads_as_lf() -> None:
    s, a = started()
    e = a.build("admission", "succeeded")
    a.post(block_body(forge(e)).replace("\n", "\r\n"))
    a.events.append(e)
    assert s.read().status == "running"
    assert s.read().current is not None and s.read().current.head_seq == 2


def test_non_canonical_spacing_is_bad_record() -> None:
    s, a = started()
    line = forge(a.build("admission", "succeeded")).replace(",", ", ", 1)
    a.post(block_body(line))
    assert reason_of(s) == "bad_record"


@pytest.mark.parametrize("change", [
    {"seq": 2.0}, {"extra_float": 1.5}, {"seq": 2**53}, {"v": True}, {"v": "1"},
    {"unknown": 1}, {"\u00e9": 1}, {"key": "has space"}, {"at": "2026-03-01 00:00:00Z"},
    {"phase": 3}, {"status": "done"}, {"reason": "not for started"}, {"materials": {}},
    {"writer": {"kind": "robot"}}, {"reader": "sha256:ABC"}, {"prev": "sha1:00"},
    {"seq": 0}, {"seq": True}, {"type": "comment"},
])
def test_value_and_shape_problems_are_bad_record(change: dict[str, object]) -> None:
    s, a = started()
    a.post(block_body(forge(a.build("admission", "started"), **change)))
    assert reason_of(s) == "bad_record"


def test_missing_key_is_bad_record() -> None:
    s, a = started()
    e = a.build("admission", "started")
    wire = e.to_dict()
    del wire["reader"]
    from ghattempt.core._c14n import canonical_text, digest_text

    wire.pop("digest")
    wire["digest"] = digest_text(canonical_text(wire))
    a.post(block_body(canonical_text(wire)))
    assert reason_of(s) == "bad_record"


def test_a_reason_is_required_for_failed() -> None:
    s, a = started()
    a.post(block_body(forge(a.build("admission", "failed", "x"), reason=None)))
    assert reason_of(s) == "bad_record"


@pytest.mark.parametrize("phase,status", [("rollback", "waiting"), (None, "started"),
                                          ("build", "expired")])
def test_status_must_fit_the_kind_of_phase(phase: str | None, status: str) -> None:
    s, a = started()
    a.post(block_body(forge(a.build("admission", "started"), phase=phase, status=status)))
    assert reason_of(s) == "bad_record"


@pytest.mark.parametrize("plan", [[], ["build", "admission"], ["build", "build"], ["deploy"]])
def test_plan_must_be_an_ordered_subsequence(plan: list[str]) -> None:
    s = Scenario()
    record = s.attempt(plan=PLAN, post=False).record
    s.fixture.root(block_body(forge(record, plan=plan)))
    assert reason_of(s) == "bad_record"


def test_v2_record_is_unknown_version_even_with_a_wrong_digest() -> None:
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded"), v=2, digest="sha256:" + "0" * 64)))
    assert reason_of(s) == "unknown_version"


def test_v2_record_with_a_float_is_bad_record() -> None:
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded"), v=2, seq=1.5)))
    assert reason_of(s) == "bad_record"


def test_digest_mismatch() -> None:
    s, a = started()
    e = a.build("admission", "succeeded")
    a.post(block_body(forge(e, redigest=False, at="2026-03-02T00:00:00Z")))
    assert reason_of(s) == "digest_mismatch"


def test_shape_problem_wins_over_a_wrong_digest() -> None:
    s, a = started()
    e = a.build("admission", "succeeded")
    a.post(block_body(forge(e, redigest=False, key="bad key")))
    assert reason_of(s) == "bad_record"


def test_digest_mismatch_wins_over_a_misplaced_type() -> None:
    s, a = started()
    a.post(block_body(forge(s.attempts[0].record, redigest=False, channel="other")))
    assert reason_of(s) == "digest_mismatch"


def test_a_record_of_another_type_is_bad_record() -> None:
    s, a = started()
    a.post(s.attempts[0].record)  # an attempt record as a reply
    assert reason_of(s) == "bad_record"
    s = Scenario()
    s.fixture.root(s.intent)  # an intent record as an attempt root
    assert reason_of(s) == "bad_record"


def test_lone_surrogate_is_bad_record() -> None:
    s, a = started()
    line = forge(a.build("admission", "failed", "x")).replace('"reason":"x"',
                                                             '"reason":"\ud800"')
    a.post(block_body(line))
    assert reason_of(s) == "bad_record"


# ----------------------------------------------------------------- trust (sections 6, 7.3)

@pytest.mark.parametrize("change", [{"last_edited_at": "2026-03-02T00:00:00Z"},
                                    {"includes_created_edit": True},
                                    {"author": OCTOCAT}, {"author": None}])
def test_untrusted_journal(change: dict[str, object]) -> None:
    s = Scenario()
    s.attempt()
    for name, value in change.items():
        setattr(s.fixture, name, value)
    assert reason_of(s) == "untrusted_journal"


def test_writer_id_must_match_when_given() -> None:
    s = Scenario()
    s.attempt()
    assert s.read(writer_id=41898282).status == "pending"
    assert reason_of(s, writer_id=1) == "untrusted_journal"


def test_journal_body_without_record_is_bad_record() -> None:
    s = Scenario()
    s.fixture.body = "just words"
    assert reason_of(s) == "bad_record"


def test_journal_body_of_another_type_is_bad_record() -> None:
    s = Scenario()
    a = s.attempt(post=False)
    s.fixture.body = block_body(forge(a.record))
    assert reason_of(s) == "bad_record"


def test_intent_of_another_repository() -> None:
    s = Scenario()
    s.fixture.body = block_body(forge(s.intent, repository={"id": "R_other",
                                                            "name": "octo-org/widgets"}))
    assert reason_of(s) == "repository_mismatch"


def test_repository_id_argument() -> None:
    s = Scenario()
    assert reason_of(s, repository_id="R_kgDOother") == "repository_mismatch"


def test_bad_records_in_non_contributing_comments_are_ignored() -> None:
    s, a = started()
    a.post(block_body("{not json"), author=OCTOCAT)
    a.post(block_body("{not json"), deleted_at="2026-03-02T00:00:00Z")
    a.post(block_body("{not json"), last_edited_at="2026-03-02T00:00:00Z")
    s.fixture.root(block_body("{not json", version="9"), author=OCTOCAT)
    v = s.read()
    assert (v.status, v.ignored) == ("running", 4)


def test_ignored_counts_replies_of_ignored_roots_and_unmarked_comments() -> None:
    s, a = started()
    a.post("a note by the bot, no marker")
    human = s.fixture.root("question", author=OCTOCAT)
    s.fixture.reply(human, a.build("admission", "succeeded"))  # a record under a human root
    s.fixture.reply(human, "answer")
    v = s.read()
    assert (v.status, v.ignored) == ("running", 4)


def test_minimized_comments_still_contribute() -> None:
    s, a = started()
    a.event("admission", "succeeded", node={"is_minimized": True})
    assert s.read().current.head_seq == 2  # type: ignore[union-attr]


# ----------------------------------------------------------------- attempts (section 7.4)

def test_attempt_of_another_intent_is_identity_drift() -> None:
    s = Scenario()
    a = s.attempt(post=False)
    s.fixture.root(block_body(forge(a.record, intent="sha256:" + "1" * 64)))
    assert reason_of(s) == "identity_drift"


def test_identical_roots_are_one_attempt_with_united_replies() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.event("admission", "started")
    copy = s.fixture.root(a.record)
    s.fixture.reply(copy, a.build("admission", "succeeded"))
    v = s.read()
    assert len(v.attempts) == 1 and v.status == "running"
    assert v.current is not None and v.current.root_ids == (a.root.id, copy.id)  # type: ignore[union-attr]
    assert v.current.head_seq == 2


def test_history_bound_on_attempts() -> None:
    s = Scenario()
    s.attempt(request_key="a")
    s.attempt(request_key="b")
    assert reason_of(s, max_attempts=1, request_key="a") == "history_bound"
    assert s.read(max_attempts=2, request_key="a").status == "pending"


# --------------------------------------------------------------- one attempt (section 7.5)

def test_identity_drift_event_under_wrong_root() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN)
    first.event("admission", "failed", "no")
    second = s.attempt(plan=PLAN, predecessor=first)
    first.post(second.build("admission", "started"))
    assert reason_of(s) == "identity_drift"


def test_identity_drift_on_generation() -> None:
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded"), generation="sha256:" + "2" * 64)))
    assert reason_of(s) == "identity_drift"


def test_identical_repeats_count_once() -> None:
    s, a = started()
    a.post(a.events[0])
    a.post(a.events[0])
    v = s.read()
    assert (v.status, v.ignored, v.current.head_seq) == ("running", 0, 1)  # type: ignore[union-attr]


def test_history_bound_on_records() -> None:
    s, a = started()
    a.event("admission", "succeeded")
    assert reason_of(s, max_records=1) == "history_bound"
    assert s.read(max_records=2).status == "running"


def test_conflicting_duplicate_key() -> None:
    s, a = started()
    a.event("admission", "succeeded", key="same")
    a.post(a.build("build", "started", key="same"))
    assert reason_of(s) == "conflicting_duplicate"


def test_conflicting_duplicate_wins_over_fork() -> None:
    s, a = started()
    a.post(a.build("admission", "succeeded", key="k2"))
    a.post(a.build("admission", "succeeded", key="k2", at="2026-03-05T00:00:00Z"))
    assert reason_of(s) == "conflicting_duplicate"


def test_history_bound_wins_over_conflicting_duplicate() -> None:
    s, a = started()
    a.post(a.build("admission", "succeeded", key="k2"))
    a.post(a.build("admission", "succeeded", key="k2", at="2026-03-05T00:00:00Z"))
    assert reason_of(s, max_records=2) == "history_bound"


def test_fork_same_seq() -> None:
    s, a = started()
    a.post(a.build("admission", "succeeded"))
    a.post(a.build("admission", "waiting", "queued"))
    assert reason_of(s) == "fork"


def test_gap() -> None:
    s, a = started()
    a.post(a.build("admission", "succeeded", seq=3))
    assert reason_of(s) == "gap"


def test_fork_wins_over_gap() -> None:
    s, a = started()
    a.post(a.build("admission", "succeeded", seq=1, key="other"))
    a.post(a.build("admission", "succeeded", seq=4))
    assert reason_of(s) == "fork"


def test_deleted_middle_is_a_gap() -> None:
    s, a = started()
    a.event("admission", "succeeded", node={"deleted_at": "2026-03-02T00:00:00Z"})
    a.event("build", "started")
    assert reason_of(s) == "gap"


def test_broken_link() -> None:
    s, a = started()
    a.event("admission", "succeeded")
    a.post(a.build("build", "started", prev=a.events[0].digest))
    assert reason_of(s) == "broken_link"


def test_broken_link_at_seq_1() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.post(a.build("admission", "started", prev="sha256:" + "3" * 64))
    assert reason_of(s) == "broken_link"


def test_gap_wins_over_broken_link() -> None:
    s, a = started()
    a.post(a.build("admission", "succeeded", seq=3, prev="sha256:" + "3" * 64))
    assert reason_of(s) == "gap"


def test_out_of_order_delivery_is_fine() -> None:
    s, a = started()
    a.event("admission", "succeeded")
    a.event("build", "started")
    s.fixture.roots[0].replies.reverse()
    assert s.read().status == "running"


# --------------------------------------------------------------------- replay (section 8)

def terminal(status: str) -> tuple[Scenario, AttemptHandle]:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    if status in ("expired",):
        a.event(None, "expired", "late", at="2026-03-21T00:00:00Z")
    elif status in ("cancelled", "superseded"):
        a.event(None, status, "by a person")
    elif status == "failed":
        a.event("admission", "failed", "no")
    elif status in ("rolled-back", "rollback-failed", "succeeded"):
        a.succeed()
        if status != "succeeded":
            a.event("rollback", "started")
            a.event("rollback", "succeeded" if status == "rolled-back" else "failed",
                    None if status == "rolled-back" else "conflict")
    assert s.read().status == status
    return s, a


@pytest.mark.parametrize("status", ["expired", "cancelled", "superseded", "failed",
                                    "rolled-back", "rollback-failed"])
@pytest.mark.parametrize("phase,new", [("admission", "started"), (None, "cancelled"),
                                       ("rollback", "started")])
def test_terminal_attempts_take_no_record(status: str, phase: str | None, new: str) -> None:
    s, a = terminal(status)
    a.event(phase, new)
    assert reason_of(s) == "rewritten_terminal"


@pytest.mark.parametrize("phase,new", [("merge", "started"), (None, "cancelled"),
                                       ("rollback", "succeeded")])
def test_succeeded_takes_only_rollback_started(phase: str | None, new: str) -> None:
    s, a = terminal("succeeded")
    a.event(phase, new)
    assert reason_of(s) == "rewritten_terminal"


@pytest.mark.parametrize("phase,new", [("merge", "started"), (None, "cancelled"),
                                       ("rollback", "started")])
def test_rolling_back_takes_only_its_outcome(phase: str | None, new: str) -> None:
    s, a = terminal("succeeded")
    a.event("rollback", "started")
    a.event(phase, new)
    assert reason_of(s) == "illegal_transition"


@pytest.mark.parametrize("status", ["cancelled", "superseded"])
def test_reconciling_refuses_attempt_level_abandon(status: str) -> None:
    s, a = started()
    a.event("admission", "unknown", "lost")
    a.event(None, status)
    assert reason_of(s) == "illegal_transition"


def test_expired_needs_pending() -> None:
    s, a = started()
    a.event(None, "expired", "late", at="2026-03-21T00:00:00Z")
    assert reason_of(s) == "illegal_transition"


def test_expired_needs_the_window_to_have_elapsed() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN, expires_at="2026-03-20T00:00:00Z")
    a.event(None, "expired", "early", at="2026-03-19T23:59:59Z")
    assert reason_of(s) == "illegal_transition"


def test_rollback_before_success_is_illegal() -> None:
    s, a = started()
    a.event("rollback", "started")
    assert reason_of(s) == "illegal_transition"


@pytest.mark.parametrize("phase", ["review", "deploy"])
def test_undeclared_phase(phase: str) -> None:
    s, a = started()
    a.event("admission", "succeeded")
    a.event(phase, "started")
    assert reason_of(s) == "undeclared_phase"


def test_out_of_order_wins_over_rewritten_terminal() -> None:
    s, a = started()
    a.event("admission", "succeeded")
    a.event("build", "started")
    a.event("admission", "started")  # earlier phase, and admission already succeeded
    assert reason_of(s) == "out_of_order_phase"


def test_rewritten_terminal_phase() -> None:
    s, a = started()
    a.event("admission", "succeeded")
    a.event("admission", "started")
    assert reason_of(s) == "rewritten_terminal"


def test_missing_predecessor_phase() -> None:
    s, a = started()
    a.event("build", "started")
    assert reason_of(s) == "missing_predecessor"


def test_missing_predecessor_while_reconciling() -> None:
    s, a = started()
    a.event("admission", "unknown", "lost")
    a.event("build", "started")
    assert reason_of(s) == "missing_predecessor"


@pytest.mark.parametrize("new", ["started", "waiting", "cancelled", "superseded"])
def test_unknown_is_never_retried_or_abandoned(new: str) -> None:
    s, a = started()
    a.event("admission", "unknown", "lost")
    a.event("admission", new)
    assert reason_of(s) == "illegal_transition"


def test_reconciling_then_expired_is_illegal() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.event("admission", "unknown", "lost")
    a.event(None, "expired", "late", at="2026-03-21T00:00:00Z")
    assert reason_of(s) == "illegal_transition"


# ------------------------------------------------------------------ materials (section 4)

@pytest.mark.parametrize("url", [
    "https://github.com/octo-org/widgets/a?sig=1",
    "https://github.com/octo-org/widgets/a#frag",
    "https://user@github.com/octo-org/widgets/a",
    "https://github.com/octo-org/other/a",
    "https://github.com/octo-org/widgets",
    "https://example.com/octo-org/widgets/a",
])
def test_material_url_rejected(url: str) -> None:
    s, a = started()
    a.event("admission", "succeeded", materials=[a.material("m1", url=url)])
    assert reason_of(s) == "material_rejected"


def test_material_url_compares_case_of_a_to_z_only() -> None:
    s, a = started()
    a.event("admission", "succeeded",
            materials=[a.material("m1", url="HTTPS://GitHub.com/Octo-Org/Widgets/x")])
    assert s.read().status == "running"


def test_material_url_under_the_server_url() -> None:
    s, a = started()
    a.event("admission", "succeeded",
            materials=[a.material("m1", url="https://ghe.example.com/octo-org/widgets/x")])
    assert reason_of(s) == "material_rejected"
    v = s.read(server_url="https://ghe.example.com/")
    assert v.status == "running"


def test_material_of_a_foreign_attempt_or_generation() -> None:
    s, a = started()
    bad = a.material("m1")
    from ghattempt.core._value import replace

    a.event("admission", "succeeded", materials=[replace(bad, attempt="sha256:" + "4" * 64)])
    assert reason_of(s) == "material_rejected"
    s, a = started()
    a.event("admission", "succeeded",
            materials=[replace(a.material("m1"), generation=sample_generation(9).id)])
    assert reason_of(s) == "material_rejected"


def test_material_of_a_predecessor_is_accepted() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN)
    ckpt = first.material("ckpt", kind="checkpoint")
    first.event("admission", "failed", "no", materials=[ckpt])
    second = s.attempt(plan=PLAN, predecessor=first)
    second.event("admission", "started", materials=[ckpt])
    assert s.read().status == "running"
    assert s.read().journal.materials["ckpt"] == ckpt  # type: ignore[union-attr]


def test_material_conflict_across_attempts() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN)
    first.event("admission", "failed", "no", materials=[first.material("m", size=1)])
    second = s.attempt(plan=PLAN, predecessor=first)
    second.event("admission", "started", materials=[second.material("m", size=2)])
    assert reason_of(s) == "material_conflict"


def test_material_rejected_wins_over_conflict_in_one_event() -> None:
    s, a = started()
    a.event("admission", "succeeded", materials=[a.material("m", size=1)])
    a.event("build", "started", materials=[a.material("m", size=2),
                                           a.material("n", url="https://x.test/a")])
    assert reason_of(s) == "material_rejected"


def test_materials_are_checked_after_the_transition() -> None:
    s, a = started()
    a.event("build", "started", materials=[a.material("n", url="https://x.test/a")])
    assert reason_of(s) == "missing_predecessor"


# ------------------------------------------------------------- across attempts (section 9)

def test_missing_predecessor_attempt() -> None:
    s = Scenario()
    s.attempt(plan=PLAN, predecessor="sha256:" + "5" * 64)
    assert reason_of(s) == "missing_predecessor_attempt"


def test_predecessor_with_another_request_key() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN, request_key="a")
    first.event("admission", "failed", "no")
    s.attempt(plan=PLAN, request_key="b", predecessor=first)
    assert reason_of(s, request_key="a") == "identity_drift"


def test_two_successors_fork() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN)
    first.event("admission", "failed", "no")
    s.attempt(plan=PLAN, predecessor=first)
    s.attempt(plan=PLAN, predecessor=first)
    assert reason_of(s) == "fork"


def test_two_chain_starts_for_one_key_fork() -> None:
    s = Scenario()
    s.attempt(plan=PLAN)
    s.attempt(plan=PLAN)
    assert reason_of(s) == "fork"


@pytest.mark.parametrize("status", ["pending", "running", "succeeded", "rollback-failed"])
def test_blocked_successor(status: str) -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN)
    if status == "running":
        first.event("admission", "started")
    elif status != "pending":
        first.succeed()
        if status == "rollback-failed":
            first.event("rollback", "started")
            first.event("rollback", "failed", "conflict")
    s.attempt(plan=PLAN, predecessor=first)
    assert reason_of(s) == "blocked_successor"


def test_authorization_reused() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN, authorization="auth-1")
    first.event("admission", "failed", "no")
    s.attempt(plan=PLAN, predecessor=first, authorization="auth-1")
    assert reason_of(s) == "authorization_reused"


def test_rules_across_attempts_run_rule_by_rule() -> None:
    """A fork (rule 3) of a later pair wins over a blocked successor (rule 4) earlier."""
    s = Scenario()
    running = s.attempt(plan=PLAN, request_key="a")
    running.event("admission", "started")
    s.attempt(plan=PLAN, request_key="a", predecessor=running)  # blocked successor
    s.attempt(plan=PLAN, request_key="b")
    s.attempt(plan=PLAN, request_key="b")  # fork
    assert reason_of(s, request_key="a") == "fork"


# ------------------------------------------------------------------ arguments and input

@pytest.mark.parametrize("kwargs", [{"max_records": 0}, {"max_attempts": -1},
                                    {"writer_id": 0}, {"request_key": "has space"},
                                    {"server_url": "ftp://x"},
                                    {"server_url": "https://github.com/path"}])
def test_bad_arguments(kwargs: dict[str, object]) -> None:
    s = Scenario()
    v = s.read(**kwargs)  # type: ignore[arg-type]
    assert (v.reason, v.exit_code) == ("bad_arguments", 2)


@pytest.mark.parametrize("pages", [[], 3, "x", [1], [{"data": {"node": None}}],
                                   {"data": {"repository": None}}, None])
def test_bad_input(pages: object) -> None:
    v = read_journal(pages, writer="github-actions", repository_id="R")
    assert (v.reason, v.exit_code) == ("bad_input", 2)


def test_every_failure_code_is_tested_here() -> None:
    import pathlib

    text = "".join(p.read_text() for p in pathlib.Path(__file__).parent.glob("test_*.py"))
    missing = [code for code in FAILURE_CODES if f'"{code}"' not in text]
    assert missing == []


def test_digest_fields_are_checked_one_by_one() -> None:
    """Two digests whose boundary is shifted still spell two digests when joined."""
    s, a = started()
    e = a.build("admission", "succeeded")
    a.post(block_body(forge(e, generation=e.generation[:-1], prev=e.generation[-1] + e.prev)))
    assert reason_of(s) == "bad_record"


@pytest.mark.parametrize("noise", ["<!-- ghattempt:v -->", "<!-- ghattempt:vx -->",
                                   "<!-- ghattempt:v1-->", "<!-- ghattempt:v2 --"])
def test_marker_like_text_is_not_a_marker(noise: str) -> None:
    s, a = started()
    e = a.build("admission", "succeeded")
    a.post(f"{noise}\n\n" + block_body(forge(e)))
    a.post(noise)  # and alone: no marker, ignored
    v = s.read()
    assert (v.status, v.ignored, v.current.head_seq) == ("running", 1, 2)  # type: ignore[union-attr]


@pytest.mark.parametrize("change", [
    {"v": 2, "seq": 2**53}, {"v": 2, "extra": [-(2**53)]}, {"v": 2**53},
    {"writer": {"kind": "actions", "run_id": 2**53, "run_attempt": 1, "job": "j",
                "workflow": "w"}},
])
def test_unsafe_integers_are_bad_record_before_the_version(change: dict[str, object]) -> None:
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded"), **change)))
    assert reason_of(s) == "bad_record"


def test_unsafe_material_size_is_bad_record() -> None:
    s, a = started()
    from ghattempt.core._value import replace

    a.post(block_body(forge(a.build("admission", "succeeded"),
                            materials=[replace(a.material("m"), bytes=2**53).to_dict()])))
    assert reason_of(s) == "bad_record"


def test_an_untrusted_body_says_why_it_does_not_count() -> None:
    """Section 7.3: the detail names the first reason the body does not contribute."""

    s = Scenario()
    s.attempt(plan=("admission",))
    pages = s.pages()
    for argv, expected in [
        (dict(writer="someone-else"), "author 'github-actions' is not the writer "
                                      "'someone-else'"),
        (dict(writer_id=7), "databaseId 41898282 differs from --writer-id 7"),
    ]:
        verdict = s.read(pages=pages, **argv)
        assert (verdict.reason, verdict.detail) == (
            "untrusted_journal", "the discussion body does not count: " + expected)
    s.fixture.last_edited_at = "2026-03-02T00:00:00Z"
    assert s.read().detail == "the discussion body does not count: edited"
    s.fixture.last_edited_at = None
    s.fixture.author = None
    assert s.read().detail == ("the discussion body does not count: author a deleted "
                               "account is not the writer 'github-actions'")


def test_a_gap_says_which_replies_do_not_count() -> None:
    s = Scenario()
    a = s.attempt(plan=("admission", "build"))
    a.event("admission", "started")
    a.event("admission", "succeeded")
    a.event("build", "started", node={"last_edited_at": "2026-03-03T00:00:00Z"})
    a.event("build", "succeeded")
    verdict = s.read()
    assert verdict.reason == "gap"
    assert verdict.detail is not None and verdict.detail.endswith(
        "seqs are not exactly 1..3 (missing [3]; a reply not by --writer, edited or "
        "deleted does not count)")
