"""``python -m ghattempt.action`` as a runner runs it: env in, outputs and summary out."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ghattempt.action import ActionError, action_inputs, default_event_key

from .conftest import World, cli_env

TOKEN = "ghs_actions"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("action"))
    try:
        yield w
    finally:
        w.close()


class Step:
    def __init__(self, proc: subprocess.CompletedProcess[str], outputs: dict[str, str],
                 summary: str) -> None:
        self.rc, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        self.outputs, self.summary = outputs, summary


_run_id = [500]


def run_action(world: World, tmp: Path, command: str, *, drop: tuple[str, ...] = (),
               **inputs: str) -> Step:
    _run_id[0] += 1
    out, summary = tmp / f"out{_run_id[0]}", tmp / f"summary{_run_id[0]}.md"
    out.write_text("")
    event = tmp / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "base": {"ref": "main"}}}))
    env = cli_env(
        GITHUB_ACTIONS="true", GITHUB_RUN_ID=str(_run_id[0]), GITHUB_RUN_ATTEMPT="1",
        GITHUB_JOB="release", GITHUB_WORKFLOW="release.yml", GITHUB_REPOSITORY="octo-org/widgets",
        GITHUB_API_URL=world.api_url, GITHUB_WORKSPACE=str(world.workspace),
        GITHUB_EVENT_PATH=str(event), GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary),
        GHATTEMPT_COMMAND=command, GHATTEMPT_TOKEN=TOKEN)
    for name, value in inputs.items():
        env["GHATTEMPT_" + name.upper()] = value
    for name in drop:
        del env[name]
    proc = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env, text=True,
                          capture_output=True, timeout=120, cwd=tmp)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if line)
    return Step(proc, outputs, summary.read_text() if summary.exists() else "")


def test_admit_record_status_outputs_and_summary(world: World, tmp_path: Path) -> None:
    before = run_action(world, tmp_path, "status")
    assert before.rc == 0, before.stdout
    assert (before.outputs["status"], before.outputs["recovery"]) == ("empty", "admit")
    assert before.outputs["journal-url"] == ""
    admitted = run_action(world, tmp_path, "admit")
    assert admitted.rc == 0, admitted.stdout + admitted.stderr
    assert admitted.stdout.splitlines()[0] == f"::add-mask::{TOKEN}"
    assert set(admitted.outputs) == {"status", "recovery", "attempt", "generation",
                                     "missing-phases", "missing-phases-json", "next-phase",
                                     "ignored", "journal-url", "timeline", "plan-json"}
    assert json.loads(admitted.outputs["missing-phases-json"]) == [
        "admission", "build", "publication"]
    assert admitted.outputs["next-phase"] == "admission"
    assert admitted.outputs["ignored"] == "0"
    assert admitted.outputs["status"] == "pending"
    assert admitted.outputs["recovery"] == "continue:admission"
    assert admitted.outputs["attempt"].startswith("sha256:")
    assert admitted.outputs["missing-phases"] == "admission build publication"
    assert admitted.outputs["journal-url"].startswith(
        "https://github.com/octo-org/widgets/discussions/")

    started = run_action(world, tmp_path, "record", phase="admission", status="started")
    assert started.rc == 0, started.stdout
    done = run_action(world, tmp_path, "record", phase="admission", status="succeeded")
    assert done.outputs["status"] == "running"
    assert done.outputs["recovery"] == "continue:build"
    assert done.outputs["missing-phases"] == "build publication"
    waiting = run_action(world, tmp_path, "record", phase="build", status="waiting",
                         reason="runner queue")
    assert (waiting.outputs["status"], waiting.outputs["recovery"]) == ("waiting",
                                                                        "wait:build")
    assert waiting.outputs["next-phase"] == "build"
    # a record step's summary is brief by default: one line, not the whole journal again
    assert waiting.summary.count("\n") == 1 and "**ghattempt record**" in waiting.summary
    status = run_action(world, tmp_path, "status")
    assert status.rc == 0
    assert status.outputs == {**waiting.outputs}
    summary = status.summary
    assert summary.startswith("### ghattempt: waiting")
    assert "| recovery | `wait:build` |" in summary
    assert "```mermaid\nflowchart LR\n" in summary
    assert 'p0["admission<br/>succeeded"]' in summary
    assert 'p1["build<br/>waiting"]' in summary
    assert 'p2["publication<br/>none"]' in summary
    assert "| runner queue |" in summary
    for step in (admitted, started, done, waiting, status):
        shown = [x for x in (step.stdout + step.stderr).splitlines()
                 if not x.startswith("::add-mask::")]
        assert not any(TOKEN in x for x in shown)


RUN_VARIABLES = ("GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT", "GITHUB_JOB", "GITHUB_WORKFLOW")


def test_status_needs_no_run_variables_and_the_journal_bears_the_configured_title(
        tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        empty = run_action(w, tmp_path, "status", drop=RUN_VARIABLES)
        assert empty.rc == 0, empty.stdout + empty.stderr
        assert (empty.outputs["status"], empty.outputs["recovery"]) == ("empty", "admit")
        for missing in ("GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT"):
            refused = run_action(w, tmp_path, "admit", drop=(missing,))
            assert refused.rc == 2
            assert f"::error title=ghattempt::{missing} must be a number >= 1" in refused.stdout
            assert refused.outputs == {}
        assert w.emulator.snapshot()["repositories"][0]["discussions"] == []

        admitted = run_action(w, tmp_path, "admit")
        assert admitted.rc == 0, admitted.stdout + admitted.stderr
        discussions = w.emulator.snapshot()["repositories"][0]["discussions"]
        assert [d["title"] for d in discussions] == ["Releases of octo-org/widgets: #1 into main"]
        status = run_action(w, tmp_path, "status", drop=RUN_VARIABLES)
        assert status.rc == 0, status.stdout + status.stderr
        assert status.outputs == admitted.outputs
    finally:
        w.close()


def test_refusal_fails_the_step_and_still_writes_outputs(world: World,
                                                         tmp_path: Path) -> None:
    # The attempt has not succeeded: a rollback is refused by the replay rules.
    step = run_action(world, tmp_path, "rollback", status="started")
    assert step.rc == 1
    assert "::error title=ghattempt::" in step.stdout
    assert step.outputs["status"] in ("pending", "running", "waiting")
    assert step.outputs["attempt"].startswith("sha256:")


def test_missing_reason_is_refused_with_an_error_annotation(world: World,
                                                            tmp_path: Path) -> None:
    step = run_action(world, tmp_path, "record", phase="build", status="failed")
    assert step.rc == 2
    assert "::error title=ghattempt::" in step.stdout
    assert step.outputs == {}


def test_bad_command_is_an_error_annotation(world: World, tmp_path: Path) -> None:
    step = run_action(world, tmp_path, "deploy")
    assert step.rc == 2
    assert step.stdout.splitlines()[0] == f"::add-mask::{TOKEN}"
    assert "::error title=ghattempt::input 'command' must be one of" in step.stdout


def test_invalid_journal_fails_the_step_closed(tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        assert run_action(w, tmp_path, "admit").rc == 0
        for status in ("started", "succeeded"):
            assert run_action(w, tmp_path, "record", phase="admission", status=status).rc == 0
        snap = w.emulator.snapshot()
        disc = snap["repositories"][0]["discussions"][-1]
        first_event = next(c for c in disc["comments"] if c["reply_to"] is not None)
        w.emulator.tamper("delete", first_event["id"])
        status = run_action(w, tmp_path, "status")
        assert status.rc == 3
        assert status.outputs["status"] == "invalid"
        assert status.outputs["recovery"] == "fail-closed"
        assert "::error title=ghattempt::journal invalid, failing closed" in status.stdout
        assert "journal invalid (fail closed)" in status.summary
        write = run_action(w, tmp_path, "record", phase="build", status="started")
        assert write.rc == 3
        assert "::error title=ghattempt::journal invalid, failing closed" in write.stdout
    finally:
        w.close()


def test_default_event_key_is_stable_and_a_key() -> None:
    env = {"GITHUB_RUN_ID": "42", "GITHUB_RUN_ATTEMPT": "2", "GITHUB_JOB": "build (linux)"}
    key = default_event_key(env, "build", "succeeded")
    assert key == "gha:42:2:build-linux-:build:succeeded"
    assert key == default_event_key(env, "build", "succeeded")
    assert len(default_event_key({**env, "GITHUB_JOB": "j" * 300}, "build", "started")) == 128


def test_default_event_keys_of_a_long_job_id_stay_apart_per_phase_and_status() -> None:
    """A job id of 108 characters: every key once cut to the same 128 characters."""
    env = {"GITHUB_RUN_ID": "9" * 11, "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "j" * 108}
    keys = {default_event_key(env, phase, status) for phase in ("build", "review")
            for status in ("started", "succeeded")}
    assert len(keys) == 4 and {len(k) for k in keys} == {128}


def test_then_start_is_for_record_only(world: World, tmp_path: Path) -> None:
    step = run_action(world, tmp_path, "admit", then_start="build")
    assert step.rc == 2
    assert "::error title=ghattempt::input 'then-start' is for command 'record' only" in (
        step.stdout)
    assert step.outputs == {}


def test_then_start_records_the_next_start_under_the_steps_derived_key(
        tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        assert run_action(w, tmp_path, "admit", start="admission").rc == 0
        step = run_action(w, tmp_path, "record", phase="admission", status="succeeded",
                          then_start="build")
        assert step.rc == 0, step.stdout + step.stderr
        run = _run_id[0]
        assert (f"recorded build started (seq 3, key gha:{run}:1:release:build:started)"
                in step.stdout), step.stdout
        assert step.outputs["missing-phases"].split()[0] == "build"
        assert step.outputs["next-phase"] == "build"
    finally:
        w.close()


A, B = "a" * 40, "b" * 40


def _head_of(tmp: Path, event: dict[str, object] | None, **inputs: str) -> str | None:
    """The head check of one step's request (None: no check): its inputs, and the event
    payload ``event`` (None: no event file)."""
    env = {"GITHUB_RUN_ID": "7", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REPOSITORY": "o/r",
           "GHATTEMPT_PULL_REQUEST": "1", "GHATTEMPT_PHASE": "build",
           "GHATTEMPT_STATUS": "started"}
    if event is not None:
        (tmp / "event.json").write_text(json.dumps(event))
        env["GITHUB_EVENT_PATH"] = str(tmp / "event.json")
    env.update({"GHATTEMPT_" + name.upper(): value for name, value in inputs.items()})
    return getattr(action_inputs(env).request, "head", None)  # type: ignore[no-any-return]


def test_head_is_the_input_else_the_events_pull_request_head(tmp_path: Path) -> None:
    event = {"pull_request": {"number": 1, "head": {"sha": A}}}
    assert _head_of(tmp_path, event, command="record") == A
    assert _head_of(tmp_path, event, command="rollback") == A
    assert _head_of(tmp_path, event, command="plan", plan_command="record") == A
    assert _head_of(tmp_path, event, command="record", head=B) == B  # the input wins
    # no check without a head: no event file, an event without a pull request's head
    # (workflow_dispatch), or a step about another pull request or repository
    assert _head_of(tmp_path, None, command="record") is None
    assert _head_of(tmp_path, {"inputs": {"pull-request": "1"}}, command="record") is None
    assert _head_of(tmp_path, event, command="record", pull_request="2") is None
    assert _head_of(tmp_path, event, command="record", repository="o/other") is None
    # a superseded record is the newer head's run's, about the attempt of an older head
    assert _head_of(tmp_path, event, command="record", phase="attempt",
                    status="superseded", reason="a push") is None
    assert _head_of(tmp_path, event, command="record", phase="attempt",
                    status="superseded", reason="a push", head=B) == B
    # the other commands take none
    assert _head_of(tmp_path, event, command="admit") is None
    with pytest.raises(ActionError, match="input 'head' is for commands 'run', 'record' "
                       "and 'rollback' only"):
        _head_of(tmp_path, event, command="admit", head=A)


@pytest.mark.parametrize("bad", ["abc123", A.upper(), A + "a", "HEAD", "g" * 40])
def test_a_head_that_is_not_a_commit_sha_is_an_input_error(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ActionError, match=r"^input 'head' must be a commit SHA: 40 "):
        _head_of(tmp_path, None, command="record", head=bad)
    event = {"pull_request": {"number": 1, "head": {"sha": bad}}}
    with pytest.raises(ActionError, match=r"^the event's pull_request.head.sha \(the "
                       r"default of input 'head'\) must be a commit SHA"):
        _head_of(tmp_path, event, command="record")


def test_attempt_is_an_attempt_id_for_record_and_rollback(tmp_path: Path) -> None:
    attempt = "sha256:" + "ab" * 32

    def of(**inputs: str) -> str | None:
        env = {"GITHUB_RUN_ID": "7", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REPOSITORY": "o/r",
               "GHATTEMPT_PULL_REQUEST": "1", "GHATTEMPT_PHASE": "build",
               "GHATTEMPT_STATUS": "started"}
        env.update({"GHATTEMPT_" + name.upper(): value for name, value in inputs.items()})
        return getattr(action_inputs(env).request, "attempt", None)  # type: ignore[no-any-return]

    assert of(command="record", attempt=attempt) == attempt
    assert of(command="rollback", attempt=attempt) == attempt
    assert of(command="plan", plan_command="record", attempt=attempt) == attempt
    assert of(command="record") is None and of(command="record", attempt=" ") is None
    with pytest.raises(ActionError, match="input 'attempt' is for commands 'record' and "
                       "'rollback' only"):
        of(command="admit", attempt=attempt)
    for bad in ("ab" * 32, attempt.upper(), attempt[:-1], "sha256:" + "g" * 64):
        with pytest.raises(ActionError, match=r"^input 'attempt' must be an attempt id: "
                           r"sha256: and 64 lowercase hex digits \(the output 'attempt' of "
                           r"the admit step\)$"):
            of(command="record", attempt=bad)
