"""The ``run`` step's decision table (ghattempt.core._run, docs/run.md): one journal per
row, showing the row decides it and what it writes; the docs show the table as the code
has it."""

from __future__ import annotations

from pathlib import Path

import pytest
from run_world import ME, OTHER, PERSON, URL, World, observed, request

from ghattempt.core import (
    DECISION_KINDS,
    Decision,
    RunRequest,
    after_verify,
    after_work,
    decide,
    file_material,
    run_needs,
)
from ghattempt.core._run import DECISIONS, VERIFY_ROWS, decision_table_markdown
from ghattempt.core.testing import time_at

REPO = Path(__file__).resolve().parents[2]
TAR = observed("dist/widgets-1.2.0.tar.gz", b"tarball bytes")
WHEEL = observed("dist/widgets-1.2.0-py3-none-any.whl", b"wheel bytes")



def first(world: World, req: object, **kwargs: object) -> Decision:
    """The first decision of a step (nothing written)."""
    return decide(world.journal(), req, **{"liveness": "ended", **kwargs})  # type: ignore[arg-type]


def built_then_failed(world: World, *, files: tuple[object, ...] = (TAR, WHEEL)) -> object:
    """Attempt 1: build succeeded with materials, publication failed."""
    a = world.attempt()
    a.event("build", "started", writer=OTHER)
    state = world.journal().attempt(a.id)
    materials = [file_material(f, phase="build", attempt=state, url=URL)  # type: ignore[arg-type]
                 for f in files]
    a.event("build", "succeeded", materials=materials, writer=OTHER)
    a.event("publication", "started", writer=OTHER)
    a.event("publication", "failed", "exit 1: 403 Forbidden", writer=OTHER)
    return a


def test_d1_a_step_on_an_older_head_refuses_before_anything() -> None:
    w = World()
    d = first(w, request(head="f" * 40))
    assert (d.row, d.kind, d.outcome, d.writes) == ("D1", "refuse", "refused", ())
    assert "newer push" in d.reason


def test_d2_a_phase_outside_the_plan_is_refused() -> None:
    w = World()
    d = first(w, request("merge"))
    assert (d.row, d.kind, d.names) == ("D2", "refuse", "merge")
    a = w.attempt(plan=("build",))
    d = first(w, request("publication"))
    assert (d.row, d.attempt) == ("D2", a.id)


def test_d3_no_attempt_admits_one_and_decides_again() -> None:
    w = World()
    d = first(w, request())
    assert (d.row, d.kind, d.again) == ("D3", "admit", True)
    assert [(x.record, x.attempt) for x in d.writes] == [("attempt", None)]
    taken = w.step(request())
    assert [t.row for t in taken] == ["D3", "D22", "W2"]
    assert w.journal().tip("merge/pr-42@main").last["build"][0] == "succeeded"


def test_d4_a_generation_already_replaced_never_comes_back() -> None:
    w = World()
    a = w.attempt(generation=1)
    a.event(None, "superseded", "new generation: head 1 -> 2")
    w.attempt(generation=2, predecessor=a)
    d = first(w, request(generation=1))
    assert (d.row, d.kind, d.recovery) == ("D4", "refuse", "new-generation")


@pytest.mark.parametrize("status", ["succeeded", "reconciling", "rolling-back",
                                    "rollback-failed"])
def test_d5_an_older_generation_that_blocks_for_good_is_not_superseded(status: str) -> None:
    w = World()
    a = w.attempt(generation=1)
    if status == "reconciling":
        a.run(("build", "started"), ("build", "unknown"))
    else:
        a.succeed()
        if status != "succeeded":
            a.event("rollback", "started")
        if status == "rollback-failed":
            a.event("rollback", "failed", "revert conflicts")
    d = first(w, request(generation=2))
    assert (d.row, d.kind, d.writes) == ("D5", "refuse", ())
    assert d.recovery == {"succeeded": "none", "reconciling": "reconcile:build",
                          "rolling-back": "continue:rollback",
                          "rollback-failed": "manual"}[status]


@pytest.mark.parametrize("generation", [1, 2])
@pytest.mark.parametrize("liveness", ["live", "unknown"])
def test_d6_an_attempt_cancelled_while_a_runner_may_still_work_is_busy(
        liveness: str, generation: int) -> None:
    w = World()
    a = w.attempt(generation=1)
    a.event("build", "started", writer=OTHER)
    a.event(None, "cancelled", "called off", writer=PERSON)
    d = first(w, request(generation=generation), liveness=liveness)
    assert (d.row, d.kind, d.outcome, d.writes) == ("D6", "busy", "busy", ())
    needs = run_needs(w.journal(), request(generation=generation))
    assert (needs.runner, needs.phase, needs.status) == (OTHER, "build", "started")


def test_d7_an_attempt_cancelled_while_a_phase_was_in_flight_is_settled_by_a_person() -> None:
    w = World()
    a = w.attempt()
    a.event("build", "started", writer=OTHER)
    a.event(None, "cancelled", "called off", writer=PERSON)
    d = first(w, request())
    assert (d.row, d.kind, d.recovery, d.names, d.writes) == (
        "D7", "refuse", "manual", "build", ())
    assert [c.split()[1] for c in d.commands] == ["successor", "record"]
    assert "run 400 attempt 2" in d.reason


@pytest.mark.parametrize("liveness", ["live", "unknown"])
def test_d8_an_older_generation_with_a_living_runner_is_busy(liveness: str) -> None:
    w = World()
    w.attempt(generation=1).event("build", "started", writer=OTHER)
    d = first(w, request(generation=2), liveness=liveness)
    assert (d.row, d.kind, d.outcome, d.recovery) == ("D8", "busy", "busy", "wait:build")
    assert "run 400 attempt 2" in d.reason


def test_d9_an_older_generation_whose_runner_ended_is_marked_unknown_then_refused() -> None:
    w = World()
    a = w.attempt(generation=1)
    a.event("build", "started", writer=OTHER)
    d = first(w, request(generation=2))
    assert (d.row, d.kind, d.recovery) == ("D9", "refuse", "reconcile:build")
    assert [(x.attempt, x.phase, x.status) for x in d.writes] == [(a.id, "build", "unknown")]
    assert "run 400 attempt 2, job release" in (d.writes[0].reason or "")
    assert any("--status succeeded" in c for c in d.commands)
    w.apply(d.writes, request(generation=2))
    assert w.journal().tip("merge/pr-42@main").status == "reconciling"
    assert first(w, request(generation=2)).row == "D5"


@pytest.mark.parametrize("status", ["pending", "running", "waiting"])
def test_d10_an_older_generation_in_flight_nowhere_is_superseded(status: str) -> None:
    w = World()
    a = w.attempt(generation=1)
    if status == "running":
        a.succeed("build")
    if status == "waiting":
        a.event("build", "waiting", "queued for a runner", writer=OTHER)
    d = first(w, request(generation=2))
    assert (d.row, d.kind, d.again) == ("D10", "supersede", True)
    assert [(x.record, x.attempt, x.phase, x.status) for x in d.writes] == [
        ("event", a.id, None, "superseded"), ("attempt", a.id, None, None)]
    assert (d.writes[0].reason or "").startswith("new generation: head ")
    taken = w.step(request(generation=2))
    assert [t.row for t in taken] == ["D10", "D22", "W2"]


def test_d11_after_a_failed_older_generation_the_current_one_is_admitted() -> None:
    w = World()
    a = w.attempt(generation=1)
    a.run(("build", "started"), ("build", "failed"))
    d = first(w, request(generation=2))
    assert (d.row, d.kind, [x.attempt for x in d.writes]) == ("D11", "admit", [a.id])


@pytest.mark.parametrize("status", ["rolling-back", "rollback-failed", "superseded"])
def test_d12_no_step_acts_on_an_unwinding_or_superseded_attempt(status: str) -> None:
    w = World()
    a = w.attempt()
    if status == "superseded":
        a.event(None, "superseded", "by hand")
    else:
        a.succeed()
        a.event("rollback", "started")
        if status == "rollback-failed":
            a.event("rollback", "failed", "conflicts")
    d = first(w, request("build"))
    assert (d.row, d.kind, d.outcome) == ("D12", "refuse", "refused")


@pytest.mark.parametrize("status", ["failed", "cancelled", "expired", "rolled-back"])
def test_d13_a_non_blocking_attempt_gets_a_successor(status: str) -> None:
    w = World()
    a = w.attempt()
    if status == "failed":
        a.run(("build", "started"), ("build", "failed"))
    elif status == "cancelled":
        a.event(None, "cancelled", "called off")
    elif status == "expired":
        a.event(None, "expired", "unused", at=w.expires_at)
    else:
        a.succeed()
        a.run(("rollback", "started"), ("rollback", "succeeded"))
    d = first(w, request())
    assert (d.row, d.kind, [(x.record, x.attempt) for x in d.writes]) == (
        "D13", "successor", [("attempt", a.id)])
    assert [t.row for t in w.step(request())] == ["D13", "D22", "W2"]


def test_d14_a_pending_attempt_past_its_expiry_is_recorded_expired_first() -> None:
    w = World()
    a = w.attempt(expires_at=time_at(50))
    req = request(now=time_at(60))
    d = first(w, req)
    assert (d.row, d.kind) == ("D14", "successor")
    assert [(x.record, x.attempt, x.status) for x in d.writes] == [
        ("event", a.id, "expired"), ("attempt", a.id, None)]
    assert first(w, request(now=time_at(49))).row == "D22"
    assert [t.row for t in w.step(req)] == ["D14", "D22", "W2"]


def test_d15_a_succeeded_phase_is_skipped_and_nothing_is_written() -> None:
    w = World()
    w.attempt().succeed("build")
    d = first(w, request("build"), liveness="live")
    assert (d.row, d.kind, d.outcome, d.writes) == ("D15", "skip", "skipped", ())


def test_d16_earlier_phases_are_requalified_in_a_successor_then_the_phase_runs() -> None:
    w = World()
    a = built_then_failed(w)
    taken = w.step(request("publication"), files=(TAR, WHEEL))
    rows = [t.row for t in taken]
    assert rows == ["D13", "D16", "D22", "W2"]
    requalify = taken[1]
    assert requalify.kind == "requalify" and requalify.again
    assert [r.phase for r in requalify.requalified] == ["build"]
    cited = requalify.writes[0].materials
    assert {m.attempt for m in cited} == {a.id}  # cited as they are
    tip = w.journal().tip("merge/pr-42@main")
    assert tip.predecessor == a.id and tip.status == "succeeded"


def test_d18_requalifying_the_phase_itself_ends_the_step() -> None:
    w = World()
    built_then_failed(w)
    w.apply(decide(w.journal(), request(), liveness="ended").writes, request())
    d = first(w, request("build"), observed=(TAR, WHEEL))
    assert (d.row, d.kind, d.outcome) == ("D18", "requalify", "requalified")


@pytest.mark.parametrize("files,why", [((TAR,), "is not in the workspace"),
                                       ((TAR, observed(WHEEL.path, b"rebuilt")),
                                        "recorded"),
                                       ((), "is not in the workspace")])
def test_d17_a_missing_or_different_file_refuses_naming_the_phase(files: tuple[object, ...],
                                                                   why: str) -> None:
    w = World()
    built_then_failed(w)
    taken = w.step(request("publication"), files=files)
    assert [t.row for t in taken] == ["D13", "D17"]
    refused = taken[-1]
    assert (refused.names, refused.recovery) == ("build", "continue:build")
    assert why in refused.reason


def test_d17_without_a_predecessor_the_earlier_phase_is_named() -> None:
    w = World()
    w.attempt()
    d = first(w, request("publication"))
    assert (d.row, d.names, d.recovery) == ("D17", "build", "continue:build")


def test_d18_a_build_whose_files_are_back_is_not_run_again() -> None:
    w = World()
    built_then_failed(w)
    taken = w.step(request("build"), files=(TAR, WHEEL))
    assert [t.row for t in taken] == ["D13", "D18"]
    assert taken[-1].outcome == "requalified"


def test_d18_a_rebuilt_file_runs_the_build_again_under_a_new_material_id() -> None:
    w = World()
    built_then_failed(w)
    rebuilt = observed(TAR.path, b"other tarball bytes")
    taken = w.step(request("build"), files=(rebuilt, WHEEL), produced=(rebuilt, WHEEL))
    assert [t.row for t in taken] == ["D13", "D22", "W2"]
    assert "must run again" in taken[1].reason
    # the same path with other bytes is another material id: no material_conflict
    assert w.journal().tip("merge/pr-42@main").status == "running"


@pytest.mark.parametrize("liveness", ["live", "unknown"])
@pytest.mark.parametrize("last", ["started", "unknown", "waiting"])
def test_d19_never_run_beside_a_runner_that_may_be_live(liveness: str, last: str) -> None:
    w = World()
    a = w.attempt()
    a.event("build", "started" if last != "waiting" else "waiting", writer=OTHER)
    if last == "unknown":
        a.event("build", "unknown", "runner lost", writer=PERSON)
    d = first(w, request(), liveness=liveness)
    assert (d.row, d.kind, d.outcome, d.recovery) == ("D19", "busy", "busy", "wait:build")
    needs = run_needs(w.journal(), request())
    assert needs.runner == OTHER and needs.phase == "build" and not needs.own


def test_d20_a_started_phase_whose_runner_ended_is_ambiguous() -> None:
    w = World()
    a = w.attempt()
    a.event("build", "started", writer=OTHER)
    d = first(w, request())
    assert (d.row, d.kind) == ("D20", "ambiguous")
    assert [(x.phase, x.status) for x in d.writes] == [("build", "unknown")]
    assert "run 400 attempt 2, job release" in (d.writes[0].reason or "")
    assert a.id[7:19] in (d.writes[0].reason or "")


def test_d20_this_jobs_own_started_record_has_ended_whatever_liveness_says() -> None:
    w = World()
    w.attempt().event("build", "started", writer=ME)
    assert run_needs(w.journal(), request()).own
    d = first(w, request(), liveness="live")
    assert d.row == "D20" and "earlier step of this job" in d.reason


def test_a_command_line_writer_is_not_taken_for_ended_by_identity() -> None:
    w = World()
    w.attempt().event("build", "started", writer=PERSON)
    d = first(w, request(writer=PERSON), liveness="unknown")
    assert d.row == "D19"


def test_d21_an_unknown_phase_is_not_marked_unknown_twice() -> None:
    w = World()
    a = w.attempt()
    a.run(("build", "started"))
    a.event("build", "unknown", "runner lost")
    d = first(w, request(writer=OTHER))
    assert (d.row, d.kind, d.writes) == ("D21", "ambiguous", ())


def test_d22_a_fresh_phase_is_started_inside_the_decision() -> None:
    w = World()
    a = w.attempt()
    d = first(w, request())
    assert (d.row, d.kind, d.outcome) == ("D22", "run", None)
    assert [(x.attempt, x.phase, x.status) for x in d.writes] == [(a.id, "build", "started")]


def test_d22_a_waiting_phase_whose_writer_ended_runs() -> None:
    w = World()
    w.attempt().event("build", "waiting", "approval", writer=OTHER)
    assert first(w, request()).row == "D22"


@pytest.mark.parametrize("verify,rows,status", [
    ("present", ["D20", "V1"], "running"),
    ("absent", ["D20", "V2", "D13", "D22", "W2"], "running"),
    ("neither", ["D20", "V3"], "reconciling"),
    (None, ["D20", "V4"], "reconciling")])
def test_verify_settles_an_ambiguous_phase(verify: str | None, rows: list[str],
                                           status: str) -> None:
    w = World()
    first_attempt = w.attempt()
    first_attempt.event("build", "started", writer=OTHER)
    taken = w.step(request(), verify=verify)
    assert [t.row for t in taken] == rows
    tip = w.journal().tip("merge/pr-42@main")
    assert tip.status == status
    if verify == "present":
        assert taken[-1].outcome == "settled"
        settled = tip.event_by_key(f"run:{w.counter}")
        assert settled is not None and settled.status == "succeeded"
        assert [m.kind for m in settled.materials] == ["readback"]
    if verify == "absent":
        assert first_attempt.id != tip.id and tip.predecessor == first_attempt.id
        failed = w.journal().attempt(first_attempt.id)
        assert failed is not None and failed.last["build"][0] == "failed"
        assert failed.last["build"][1].startswith("verified absent")
    if verify in ("neither", None):
        assert taken[-1].outcome == "refused" and taken[-1].recovery == "reconcile:build"
        assert len(taken[-1].commands) == 2
        assert "--pull-request 42 --base-ref main" in taken[-1].commands[0]


@pytest.mark.parametrize("exit_code,signal,row,status", [
    (0, None, "W2", "succeeded"), (3, None, "W3", "failed"),
    (143, "SIGTERM", "W1", "unknown"), (0, "SIGINT", "W1", "unknown")])
def test_the_work_s_end_is_recorded(exit_code: int, signal: str | None, row: str,
                                    status: str) -> None:
    w = World()
    w.attempt()
    taken = w.step(request(), exit_code=exit_code, signal=signal, produced=(TAR,))
    assert [t.row for t in taken] == ["D22", row]
    last = w.journal().tip("merge/pr-42@main").last["build"]
    assert last[0] == status
    if status == "failed":
        assert last[1] == "exit 3: boom"
    if status == "unknown":
        assert signal in (last[1] or "") and "run 500 attempt 1, job release" in (last[1] or "")


MERGED_PLAN = ("build", "merge", "publication")


def merged(world: World) -> object:
    a = world.attempt(plan=MERGED_PLAN)
    a.event("build", "started", writer=OTHER)
    state = world.journal().attempt(a.id)
    a.event("build", "succeeded", writer=OTHER, materials=[
        file_material(TAR, phase="build", attempt=state, url=URL)])  # type: ignore[arg-type]
    a.run(("merge", "started"), ("merge", "succeeded"))
    return a


def moved_base(phase: str) -> RunRequest:
    """The request after the merge moved the base: same head and tree."""
    from ghattempt.core._value import replace

    req = request(phase, plan=MERGED_PLAN)
    return RunRequest(req.request_key, replace(req.generation, base_commit="c" * 40),
                      phase, req.plan, req.writer, req.now)


def test_after_the_merge_a_moved_base_is_no_new_generation() -> None:
    w = World()
    a = merged(w)
    d = first(w, moved_base("publication"))
    assert (d.row, d.kind, d.attempt) == ("D22", "run", a.id)  # type: ignore[attr-defined]


def test_the_successor_of_a_merged_attempt_keeps_its_generation() -> None:
    w = World()
    a = merged(w)
    a.run(("publication", "started"), ("publication", "failed"))  # type: ignore[attr-defined]
    taken = w.step(moved_base("publication"), files=(TAR,))
    assert [t.row for t in taken] == ["D13", "D17"]
    assert taken[0].writes[0].generation == a.record.generation  # type: ignore[attr-defined]
    # merge recorded no file material: it cannot be re-qualified by bytes (docs/run.md)
    assert taken[-1].names == "merge" and "no file material" in taken[-1].reason


def test_follow_ups_refuse_the_wrong_decision() -> None:
    w = World()
    w.attempt()
    run = first(w, request())
    with pytest.raises(ValueError, match="ambiguous"):
        after_verify(run, "present")
    with pytest.raises(ValueError, match="run decision"):
        after_work(first(w, request("merge")), exit_code=0)


def test_bad_requests_are_refused_before_deciding() -> None:
    w = World()
    with pytest.raises(ValueError, match="not a phase"):
        decide(w.journal(), request("deploy"), liveness="ended")
    with pytest.raises(ValueError, match="liveness"):
        decide(w.journal(), request(), liveness="alive")


def test_no_journal_yet_admits() -> None:
    d = decide(None, request(), liveness="ended")
    assert (d.row, d.kind, d.attempt) == ("D3", "admit", None)


def test_the_kinds_are_the_documented_ones() -> None:
    assert {row[1] for row in DECISIONS} | {row[1] for row in VERIFY_ROWS} <= set(
        DECISION_KINDS)
    assert set(DECISION_KINDS) == {"admit", "supersede", "skip", "refuse", "busy",
                                   "ambiguous", "successor", "requalify", "run", "settle",
                                   "record"}


def test_docs_show_the_decision_table_as_the_code_has_it() -> None:
    docs = (REPO / "docs" / "run.md").read_text()
    assert decision_table_markdown() in docs
