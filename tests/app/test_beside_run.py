"""The App beside the workflow's own steps (docs/app.md, "Beside `run`"), over HTTP.

A phase that a workflow step records (``command: run`` or ``record``, through the
Action's entry ``python -m ghattempt.action`` in its own process) and that the
repository's ``[[app.jobs]]`` also maps to the job is recorded once: the App's result
for that job writes nothing, neither a second result (another key) nor a contradicting
one (``failed`` for a job killed during the work, a result from another run's job). The
running App server (uvicorn subprocess, store sink) and the emulator (subprocess) with
App auth; the step writes with the App's installation identity (``ghs_app``: the
journal has one author), as a workflow using ``actions/create-github-app-token`` does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import Emu, Server
from .test_store_sink_e2e import CONFIG, REPO, _accepted, _job, _opened

pytestmark = pytest.mark.network

APP_TOKEN = "ghs_app"  # noqa: S105 -- the emulator fixture's App bot


def _step(emu: Emu, work: Path, *, run_id: int, job: str = "compile",
          **inputs: str) -> tuple[int, str]:
    """One Action step of workflow run ``run_id`` (``python -m ghattempt.action``)."""
    workspace = work / "workspace"
    (workspace / ".github").mkdir(parents=True, exist_ok=True)
    (workspace / ".github" / "ghattempt.toml").write_bytes(CONFIG)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GHATTEMPT_", "RUNNER_"))}
    env.update({"GHATTEMPT_TOKEN": APP_TOKEN, "GITHUB_API_URL": emu.url + "/",
                "GITHUB_REPOSITORY": REPO, "GITHUB_WORKSPACE": str(workspace),
                "GITHUB_RUN_ID": str(run_id), "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": job,
                "GITHUB_WORKFLOW": "CI", "GHATTEMPT_PULL_REQUEST": "1",
                "GHATTEMPT_PROGRESS": "0"})
    for name, value in inputs.items():
        env["GHATTEMPT_" + name.upper()] = value
    done = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env,
                          capture_output=True, text=True, timeout=120, cwd=workspace)
    return done.returncode, done.stdout + done.stderr


def _job_result(app: Server, emu: Emu, example: Callable[..., dict[str, Any]], *,
                run_id: int, job_id: int, conclusion: str) -> dict[str, Any]:
    """The App's handling of a ``workflow_job`` completed delivery of run ``run_id`` (job
    ``compile`` of ``ci.yml``, mapped to build): its one result."""
    from ghattempt.app.inbox import open_inbox

    emu.admin("runs", {"repository": REPO, "run_id": run_id,
                       "path": ".github/workflows/ci.yml", "name": "CI",
                       "head_sha": emu.pull().head_oid})
    delivery = str(uuid.uuid4())
    _accepted(app.post("workflow_job", _job(example, emu, run_id=run_id, job_id=job_id,
                                            name="compile", workflow="CI",
                                            conclusion=conclusion), delivery=delivery))
    assert app.wait_idle(60)["pending"] == 0, app.log_text()
    inbox = open_inbox(app.state)
    try:
        state, outcome = inbox.state_of(delivery)
    finally:
        inbox.close()
    assert state == "done", (state, outcome, app.log_text())
    (result,) = outcome["results"]
    return dict(result)


def _build_records(emu: Emu) -> list[tuple[str, str, str]]:
    verdict, _ = emu.verdict()
    assert verdict.valid, verdict.to_json()
    return [(a["status"], e.status, e.writer.kind)
            for a, state in zip(verdict.attempts, verdict.journal.attempts, strict=True)
            for e in state.events if e.phase == "build"]


def test_a_job_killed_after_its_step_started_the_phase_is_not_recorded_failed(
        emu: Emu, server_factory: Callable[..., Server],
        example: Callable[..., dict[str, Any]], tmp_path: Path) -> None:
    """The step recorded build started and the job died (SIGKILL, runner lost): its
    conclusion ``failure`` is not the phase's result (the effect may have happened);
    the App leaves the phase to the workflow, so a re-run can settle it."""
    app = _opened(emu, server_factory, example)
    rc, out = _step(emu, tmp_path, run_id=9001, command="record", phase="build",
                    status="started")
    assert rc == 0, out
    result = _job_result(app, emu, example, run_id=9001, job_id=500, conclusion="failure")
    assert result["outcome"] == "already-applied", result
    assert "the workflow's steps record this phase" in result["detail"], result
    assert _build_records(emu) == [("running", "started", "actions")]
    # the job of another run (one that found the phase busy, or skipped it) neither
    assert _job_result(app, emu, example, run_id=9002, job_id=501,
                       conclusion="success")["outcome"] == "already-applied"
    assert _build_records(emu) == [("running", "started", "actions")]


def test_a_late_conclusion_of_a_run_that_recorded_the_phase_stays_out_of_the_successor(
        emu: Emu, server_factory: Callable[..., Server],
        example: Callable[..., dict[str, Any]], tmp_path: Path) -> None:
    """Run 9001's step recorded build failed, and the next run opened the successor
    before run 9001's job conclusion reached the App: the successor has no build record,
    and still the App writes none there (run 9001 reported the phase itself)."""
    app = _opened(emu, server_factory, example)
    for status, extra in (("started", {}), ("failed", {"reason": "tests failed"})):
        rc, out = _step(emu, tmp_path, run_id=9001, command="record", phase="build",
                        status=status, **extra)
        assert rc == 0, out
    rc, out = _step(emu, tmp_path, run_id=9003, command="successor")
    assert rc == 0, out
    result = _job_result(app, emu, example, run_id=9001, job_id=500, conclusion="failure")
    assert result["outcome"] == "already-applied", result
    assert "workflow run 9001 recorded build started itself" in result["detail"], result
    assert _build_records(emu) == [("failed", "started", "actions"),
                                   ("failed", "failed", "actions")]


def test_a_phase_no_step_records_is_the_apps_to_record(
        emu: Emu, server_factory: Callable[..., Server],
        example: Callable[..., dict[str, Any]]) -> None:
    """The control: no step recorded build, so the App records the job's conclusion."""
    app = _opened(emu, server_factory, example)
    result = _job_result(app, emu, example, run_id=9004, job_id=502, conclusion="failure")
    assert result["outcome"] == "applied", result
    assert _build_records(emu) == [("failed", "failed", "app")]


def test_a_phase_run_recorded_is_not_recorded_again_by_the_app(
        emu: Emu, server_factory: Callable[..., Server],
        example: Callable[..., dict[str, Any]], tmp_path: Path) -> None:
    """``command: run`` did build in run 9005 (started, the work, succeeded); the App
    then gets that job's conclusion, ``success``: it writes no second ``succeeded``
    (nor a refused rewrite), and the journal holds build's two records, by the step."""
    app = _opened(emu, server_factory, example)
    counter = tmp_path / "counter"
    rc, out = _step(emu, tmp_path, run_id=9005, command="run", phase="build",
                    run=f'echo built >> "{counter}"')
    assert rc == 0, out
    assert "ghattempt run build: ran" in out, out
    result = _job_result(app, emu, example, run_id=9005, job_id=505, conclusion="success")
    assert result["outcome"] == "already-applied", result
    assert "build succeeded not recorded" in result["detail"], result
    assert _build_records(emu) == [("running", "started", "actions"),
                                   ("running", "succeeded", "actions")]
    assert counter.read_text().splitlines() == ["built"]
