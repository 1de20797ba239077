"""Issue 24, item 7, over the HTTP emulator: the job killed (SIGKILL) during
publication's work, then re-run as GitHub re-runs it (the same run, attempt 2); a runner
cancellation (SIGTERM) during the work. The CLI is a subprocess inside a simulated
Actions job (``GITHUB_RUN_ID``...), the emulator serves the run's status, the work
appends to a counter file."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from .conftest import REPO, RunWorld

pytestmark = pytest.mark.network

VERIFY_PRESENT = "exit 0"
VERIFY_ABSENT = "exit 1"


def outputs(done: subprocess.CompletedProcess[bytes]) -> dict[str, str]:
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def killed_during_publication(world: RunWorld) -> int:
    """Run 1 builds, then is killed (SIGKILL, the step and its work) while publication's
    work runs; GitHub ends the run (cancelled) and the test re-runs it (attempt 2)."""
    run_id = world.start_run()
    build = world.run("build", "--materials", "dist/build.txt", run_id=run_id)
    assert build.returncode == 0, build.stderr.decode()
    hold = world.workspace / "hold-publication"
    hold.write_text("")
    step = world.popen("publication", run_id=run_id)
    world.wait_for(world.workspace / "counter-publication")
    step.send_signal(signal.SIGKILL)
    step.wait(timeout=30)
    world.kill_work("publication")
    hold.unlink()
    assert world.count("publication") == 1
    world.emulator.end_workflow_run(REPO, run_id, "cancelled")
    world.emulator.rerun_workflow(REPO, run_id, ["release"])
    return run_id


def test_killed_then_rerun_with_verify_0_settles_without_running(world: RunWorld) -> None:
    run_id = killed_during_publication(world)
    again = world.run("publication", "--verify", VERIFY_PRESENT, "--json", run_id=run_id,
                      attempt=2)
    assert again.returncode == 0, again.stderr.decode()
    out = outputs(again)
    assert (out["outcome"], out["row"], out["exit-code"]) == ("settled", "V1", "")
    assert world.count("publication") == 1
    assert "status            succeeded" in world.status()
    # the ambiguity stays on record, settled in the same attempt
    assert world.phase_statuses("publication") == ["started", "unknown", "succeeded"]
    [readback] = json.loads(out["materials-json"])
    assert readback["kind"] == "readback" and readback["id"].startswith("readback:publication@")


def test_killed_then_rerun_with_verify_1_runs_once_more_in_a_successor(world: RunWorld) -> None:
    run_id = killed_during_publication(world)
    again = world.run("publication", "--verify", VERIFY_ABSENT, "--json", run_id=run_id,
                      attempt=2)
    assert again.returncode == 0, again.stderr.decode()
    out = outputs(again)
    assert (out["outcome"], out["row"], out["exit-code"]) == ("ran", "W2", "0")
    assert world.count("publication") == 2
    assert world.count("build") == 1  # re-qualified in the successor by its bytes
    status = world.status()
    assert "status            succeeded" in status
    assert "verified absent" in status
    # the first attempt: started, unknown, failed (verified absent); its successor:
    # build re-qualified, publication started and succeeded
    assert world.phase_statuses("publication") == ["started", "unknown", "failed",
                                                   "started", "succeeded"]
    assert world.phase_statuses("build") == ["started", "succeeded", "succeeded"]


def test_killed_then_rerun_without_verify_refuses_and_runs_nothing(world: RunWorld) -> None:
    run_id = killed_during_publication(world)
    again = world.run("publication", run_id=run_id, attempt=2)
    assert again.returncode == 1, again.stderr.decode()
    text = again.stderr.decode()
    assert "recovery reconcile:publication" in text
    assert "ghattempt record --pull-request 1 --base-ref main" in text
    assert "--phase publication --status succeeded" in text
    assert "--phase publication --status failed --reason" in text
    assert world.count("publication") == 1
    # the re-run recorded what it knows: unknown, naming the run that ended
    assert world.phase_statuses("publication") == ["started", "unknown"]
    assert f"run {run_id} attempt 1" in world.status()
    # running it again refuses the same way, and writes nothing more
    third = world.run("publication", run_id=run_id, attempt=2)
    assert third.returncode == 1
    assert "recovery reconcile:publication" in third.stderr.decode()
    assert world.phase_statuses("publication") == ["started", "unknown"]
    assert world.count("publication") == 1


def test_a_runner_cancellation_is_recorded_unknown_and_the_next_run_settles_it(
        world: RunWorld) -> None:
    run_id = world.start_run()
    assert world.run("build", run_id=run_id).returncode == 0
    hold = world.workspace / "hold-publication"
    hold.write_text("")
    step = world.popen("publication", run_id=run_id)
    world.wait_for(world.workspace / "counter-publication")
    step.send_signal(signal.SIGTERM)  # the runner cancels the step
    _, err = step.communicate(timeout=60)
    hold.unlink()
    assert step.returncode == 128 + signal.SIGTERM, err.decode()
    assert "SIGTERM" in err.decode()
    # unknown, never failed or cancelled: the effect may have happened
    assert world.phase_statuses("publication") == ["started", "unknown"]
    world.emulator.end_workflow_run(REPO, run_id, "cancelled")
    world.emulator.rerun_workflow(REPO, run_id, ["release"])
    again = world.run("publication", "--verify", VERIFY_PRESENT, "--json", run_id=run_id,
                      attempt=2)
    assert again.returncode == 0, again.stderr.decode()
    assert outputs(again)["outcome"] == "settled"
    assert world.count("publication") == 1
    assert "status            succeeded" in world.status()


def test_a_phase_settled_by_hand_while_the_verify_ran_is_not_written_again(
        world: RunWorld) -> None:
    """The verify takes its time; meanwhile a person records the phase succeeded. What
    the verify found is written only if the phase is still ambiguous: here the step
    decides again and skips."""
    run_id = killed_during_publication(world)
    by_hand = (f"{sys.executable} -m ghattempt.cli record --pull-request 1 --phase "
               "publication --status succeeded --actor bob >/dev/null 2>&1; exit 0")
    again = world.run("publication", "--verify", by_hand, "--json", run_id=run_id,
                      attempt=2)
    assert again.returncode == 0, again.stderr.decode()
    assert outputs(again)["outcome"] == "skipped"
    assert world.phase_statuses("publication") == ["started", "unknown", "succeeded"]
    assert world.count("publication") == 1
