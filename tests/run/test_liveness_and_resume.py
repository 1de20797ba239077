"""Issue 24, items 2-4 and 7, over the HTTP emulator: two runs started together, a failed
publication resumed with the build's artifacts brought back, the liveness of the runner
a ``started`` names (the Actions API; a command-line writer's ``stale_after`` and
``--takeover``), and the built-in ``github-release:TAG`` verify."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

from .conftest import REPO, RunWorld

pytestmark = pytest.mark.network


def outputs(done: subprocess.CompletedProcess[bytes] | bytes) -> dict[str, str]:
    raw = done if isinstance(done, bytes) else done.stdout
    return json.loads(raw.decode().strip().splitlines()[-1])


def test_two_runs_started_together_run_each_phase_once(world: RunWorld) -> None:
    """Two tag pushes: two runs, each with a build and a publication step. While one
    run's work is under way the other's step reads it live over the Actions API: busy."""
    first, second = world.start_run(), world.start_run()
    for phase in ("build", "publication"):
        hold = world.workspace / f"hold-{phase}"
        hold.write_text("")
        steps = [world.popen(phase, "--json", run_id=r) for r in (first, second)]
        world.wait_for(world.workspace / f"counter-{phase}")
        # the step that did not start the work ends while the work still runs: busy
        deadline = time.monotonic() + 90
        while all(s.poll() is None for s in steps):
            assert time.monotonic() < deadline, "neither step ended beside the work"
            time.sleep(0.1)
        [ended] = [s for s in steps if s.poll() is not None]
        assert ended.returncode == 4
        hold.unlink()
        results = [s.communicate(timeout=90) for s in steps]
        outcomes = sorted(outputs(out)["outcome"] for out, _ in results)
        assert outcomes == ["busy", "ran"], [e.decode() for _, e in results]
        assert sorted(s.returncode for s in steps) == [0, 4]
        assert world.count(phase) == 1
    # either run re-run now: every phase skipped, nothing runs again
    for run_id in (first, second):
        for phase in ("build", "publication"):
            again = world.run(phase, "--json", run_id=run_id)
            assert outputs(again)["outcome"] == "skipped", again.stderr.decode()
    assert (world.count("build"), world.count("publication")) == (1, 1)


def test_wait_outlasts_a_living_runner_then_skips(world: RunWorld) -> None:
    first, second = world.start_run(), world.start_run()
    hold = world.workspace / "hold-build"
    hold.write_text("")
    running = world.popen("build", run_id=first)
    world.wait_for(world.workspace / "counter-build")
    waiting = world.popen("build", "--wait", "60", "--json", run_id=second)
    subprocess.run(["sleep", "1.5"], check=True)
    assert waiting.poll() is None  # still waiting beside the living runner
    hold.unlink()
    assert running.wait(timeout=60) == 0
    out, err = waiting.communicate(timeout=90)
    assert waiting.returncode == 0, err.decode()
    assert outputs(out)["outcome"] == "skipped"
    assert world.count("build") == 1


def test_a_failed_publication_resumes_with_the_build_requalified(world: RunWorld) -> None:
    run_id = world.start_run()
    build = world.run("build", "--materials", "dist/build.txt", run_id=run_id)
    assert build.returncode == 0, build.stderr.decode()
    made = (world.workspace / "dist" / "build.txt").read_bytes()
    (world.workspace / "fail-publication").write_text("")
    failed = world.run("publication", run_id=run_id)
    assert failed.returncode == 3
    (world.workspace / "fail-publication").unlink()
    # the re-run's job starts from a fresh checkout and brings the build's artifact back
    (world.workspace / "dist" / "build.txt").unlink()
    world.emulator.end_workflow_run(REPO, run_id, "failure")
    world.emulator.rerun_workflow(REPO, run_id, ["release"])
    (world.workspace / "dist" / "build.txt").write_bytes(made)
    build = world.run("build", "--materials", "dist/build.txt", "--json", run_id=run_id,
                      attempt=2)
    assert build.returncode == 0, build.stderr.decode()
    assert (outputs(build)["outcome"], outputs(build)["row"]) == ("requalified", "D18")
    [material] = json.loads(outputs(build)["materials-json"])
    assert material["id"].startswith("build:dist/build.txt@")
    publication = world.run("publication", "--json", run_id=run_id, attempt=2)
    assert publication.returncode == 0, publication.stderr.decode()
    assert outputs(publication)["outcome"] == "ran"
    assert (world.count("build"), world.count("publication")) == (1, 2)
    assert world.phase_statuses("build") == ["started", "succeeded", "succeeded"]
    assert "status            succeeded" in world.status()


def test_different_bytes_are_not_requalified_the_build_runs_again(world: RunWorld) -> None:
    run_id = world.start_run()
    assert world.run("build", "--materials", "dist/build.txt", run_id=run_id).returncode == 0
    (world.workspace / "fail-publication").write_text("")
    assert world.run("publication", run_id=run_id).returncode == 3
    (world.workspace / "fail-publication").unlink()
    (world.workspace / "dist" / "build.txt").write_bytes(b"other bytes\n")
    build = world.run("build", "--materials", "dist/build.txt", "--json", run_id=run_id)
    assert outputs(build)["outcome"] == "ran", build.stderr.decode()
    assert world.count("build") == 2


def test_a_token_without_actions_read_is_one_error_naming_the_permission(
        world: RunWorld) -> None:
    first, second = world.start_run(), world.start_run()
    hold = world.workspace / "hold-build"
    hold.write_text("")
    running = world.popen("build", run_id=first)
    world.wait_for(world.workspace / "counter-build")
    world.emulator.add_token("ghs_noactions", "github-actions", "write", actions="none",
                             kind="Bot")
    refused = world.cli(*world.run_args("build"), token="ghs_noactions",
                        **world.actions_env(second))
    hold.unlink()
    running.wait(timeout=60)
    # a missing permission: a person must act (docs/errors.md), retrying cannot help
    assert refused.returncode == 5, refused.stderr.decode()
    lines = refused.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "actions: read" in lines[0] and "permissions:" in lines[0]
    assert world.count("build") == 1


def test_a_command_line_writer_is_live_until_stale_after_or_takeover(world: RunWorld) -> None:
    """No Actions run to ask: a phase a person started is busy until ``[run]
    stale_after`` has passed, or ``--takeover`` (which records ``unknown`` first)."""
    hold = world.workspace / "hold-publication"
    hold.write_text("")
    assert world.run("build").returncode == 0
    step = world.popen("publication")
    world.wait_for(world.workspace / "counter-publication")
    step.send_signal(signal.SIGKILL)
    step.wait(timeout=30)
    world.kill_work("publication")
    hold.unlink()
    busy = world.run("publication", "--verify", "exit 0", "--json")
    assert busy.returncode == 4, busy.stderr.decode()
    assert outputs(busy)["outcome"] == "busy"
    # an hour later, still within the default 6 hours
    world.emulator.clock.advance(3600)
    assert outputs(world.run("publication", "--json"))["outcome"] == "busy"
    took = world.run("publication", "--verify", "exit 0", "--takeover", "--json")
    assert took.returncode == 0, took.stderr.decode()
    assert outputs(took)["outcome"] == "settled"
    assert world.phase_statuses("publication") == ["started", "unknown", "succeeded"]
    assert world.count("publication") == 1


def test_stale_after_ends_a_command_line_writer(world: RunWorld) -> None:
    config = world.workspace / ".github" / "ghattempt.toml"
    config.write_text(config.read_text() + "\n[run]\nstale_after = 600\n")
    hold = world.workspace / "hold-build"
    hold.write_text("")
    step = world.popen("build")
    world.wait_for(world.workspace / "counter-build")
    step.send_signal(signal.SIGKILL)
    step.wait(timeout=30)
    world.kill_work("build")
    hold.unlink()
    assert outputs(world.run("build", "--json"))["outcome"] == "busy"
    world.emulator.clock.advance(601)
    refused = world.run("build", "--json")
    assert refused.returncode == 1
    assert (outputs(refused)["outcome"], outputs(refused)["recovery"]) == (
        "refused", "reconcile:build")
    assert world.phase_statuses("build") == ["started", "unknown"]


def released(world: RunWorld, content: bytes) -> None:
    world.emulator.add_release(REPO, "v1.0.0", assets=[
        {"name": "publication.txt", "content": content.decode()}])


@pytest.mark.parametrize(("release", "outcome", "code", "statuses"), [
    (b"made by publication\n", "settled", 0, ["started", "unknown", "succeeded"]),
    (None, "ran", 0, ["started", "unknown", "failed", "started", "succeeded"]),
    (b"other bytes\n", "refused", 1, ["started", "unknown"]),
])
def test_github_release_verify_reads_the_release_back(world: RunWorld, release: bytes | None,
                                                      outcome: str, code: int,
                                                      statuses: list[str]) -> None:
    run_id = world.start_run()
    assert world.run("build", "--materials", "dist/build.txt", run_id=run_id).returncode == 0
    hold = world.workspace / "hold-publication"
    hold.write_text("")
    step = world.popen("publication", "--materials", "dist/publication.txt", run_id=run_id)
    world.wait_for(world.workspace / "counter-publication")
    step.send_signal(signal.SIGKILL)
    step.wait(timeout=30)
    world.kill_work("publication")
    hold.unlink()
    if release is not None:
        released(world, release)
    world.emulator.end_workflow_run(REPO, run_id, "cancelled")
    world.emulator.rerun_workflow(REPO, run_id, ["release"])
    again = world.run("publication", "--materials", "dist/publication.txt", "--verify",
                      "github-release:v1.0.0", "--json", run_id=run_id, attempt=2)
    assert again.returncode == code, again.stderr.decode()
    assert outputs(again)["outcome"] == outcome
    assert world.phase_statuses("publication") == statuses
    assert world.count("publication") == (2 if outcome == "ran" else 1)


def test_a_command_line_step_interrupted_is_settled_by_the_next_without_takeover(
        world: RunWorld) -> None:
    """SIGTERM during a person's step: ``unknown`` (W1) says the runner ended; the next
    step asks the verify at once, no ``--takeover`` or ``stale_after`` needed."""
    hold = world.workspace / "hold-build"
    hold.write_text("")
    step = world.popen("build")
    world.wait_for(world.workspace / "counter-build")
    step.send_signal(signal.SIGINT)
    step.communicate(timeout=60)
    hold.unlink()
    assert step.returncode == 128 + signal.SIGINT
    assert world.phase_statuses("build") == ["started", "unknown"]
    settled = world.run("build", "--verify", "exit 0", "--json")
    assert settled.returncode == 0, settled.stderr.decode()
    assert (outputs(settled)["outcome"], outputs(settled)["row"]) == ("settled", "V1")
    assert world.count("build") == 1


def test_a_job_that_ended_in_a_run_still_running_has_ended(world: RunWorld) -> None:
    """The run attempt is still in progress (another job runs), but the job named in the
    ``started`` has completed: its runner has ended (the job's status, by name)."""
    world.run_id += 1
    run_id = world.run_id
    jobs = world.emulator.add_workflow_run(REPO, run_id, ".github/workflows/release.yml",
                                           "release", "0" * 40, status="in_progress",
                                           jobs=["release", "other"])
    assert world.run("build", run_id=run_id).returncode == 0
    hold = world.workspace / "hold-publication"
    hold.write_text("")
    step = world.popen("publication", run_id=run_id)
    world.wait_for(world.workspace / "counter-publication")
    step.send_signal(signal.SIGKILL)
    step.wait(timeout=30)
    world.kill_work("publication")
    hold.unlink()
    other = {**world.actions_env(run_id), "GITHUB_JOB": "other"}
    # while the job "release" is in progress its step's started is live: busy
    busy = world.cli(*world.run_args("publication", "--verify", "exit 0", "--json"), **other)
    assert (busy.returncode, outputs(busy)["outcome"]) == (4, "busy"), busy.stderr.decode()
    [release] = [j for j in jobs if j["name"] == "release"]
    world.emulator.set_workflow_job(release["id"], "completed", "cancelled")
    settled = world.cli(*world.run_args("publication", "--verify", "exit 0", "--json"),
                        **other)
    assert settled.returncode == 0, settled.stderr.decode()
    assert outputs(settled)["outcome"] == "settled"
    assert world.count("publication") == 1


def test_a_result_the_journal_no_longer_takes_is_said_not_written(world: RunWorld) -> None:
    """--takeover beside a runner that was in fact still working: the phase is settled
    while the work runs; the work's own result is then refused with what it did."""
    hold = world.workspace / "hold-build"
    hold.write_text("")
    step = world.popen("build")
    world.wait_for(world.workspace / "counter-build")
    took = world.run("build", "--takeover", "--verify", "exit 0", "--json", "--actor", "bob")
    assert outputs(took)["outcome"] == "settled", took.stderr.decode()
    hold.unlink()
    _, err = step.communicate(timeout=60)
    assert step.returncode == 1, err.decode()
    lines = err.decode().strip().splitlines()
    assert lines[-1].startswith("ghattempt: error: build's work ran and exited 0, but the "
                                "journal no longer takes its result")
    assert world.phase_statuses("build") == ["started", "unknown", "succeeded"]
