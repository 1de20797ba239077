"""``ghattempt run`` end to end over the HTTP emulator (issue 24, item 7): the CLI as a
subprocess, the work a real process appending to a counter file."""

from __future__ import annotations

import json

import pytest

from .conftest import RunWorld

pytestmark = pytest.mark.network


def outputs(done: object) -> dict[str, str]:
    out = done.stdout.decode().strip().splitlines()  # type: ignore[attr-defined]
    return json.loads(out[-1])


def test_each_phase_runs_once_and_a_rerun_after_success_runs_nothing(world: RunWorld) -> None:
    build = world.run("build", "--materials", "dist/build.txt", "--json")
    assert build.returncode == 0, build.stderr.decode()
    out = outputs(build)
    assert (out["outcome"], out["exit-code"], out["row"], out["next-phase"]) == (
        "ran", "0", "W2", "publication")
    assert json.loads(out["missing-phases-json"]) == ["publication"]
    [material] = json.loads(out["materials-json"])
    assert material["id"].startswith("build:dist/build.txt@")
    assert material["bytes"] == len(b"made by build\n")
    publication = world.run("publication", "--json")
    assert publication.returncode == 0, publication.stderr.decode()
    assert outputs(publication)["outcome"] == "ran"
    assert (world.count("build"), world.count("publication")) == (1, 1)
    # the whole workflow again: nothing runs, every phase reports skipped
    for phase in ("build", "publication"):
        again = world.run(phase, "--json")
        assert again.returncode == 0, again.stderr.decode()
        assert (outputs(again)["outcome"], outputs(again)["exit-code"]) == ("skipped", "")
    assert (world.count("build"), world.count("publication")) == (1, 1)
    assert "status            succeeded" in world.status()


def test_a_failing_work_is_recorded_failed_with_its_last_error_line(world: RunWorld) -> None:
    (world.workspace / "fail-build").write_text("")
    failed = world.run("build")
    assert failed.returncode == 3, failed.stderr.decode()
    assert "build broke" in failed.stderr.decode()
    status = world.status()
    assert "exit 3: build broke" in status
    # fixed, run again: the successor runs it
    (world.workspace / "fail-build").unlink()
    again = world.run("build", "--json")
    assert again.returncode == 0, again.stderr.decode()
    assert outputs(again)["outcome"] == "ran"
    assert world.count("build") == 2


def test_the_phase_must_be_in_the_plan_before_anything_is_sent(world: RunWorld) -> None:
    done = world.run("merge")
    assert done.returncode == 2
    assert "--phase 'merge' is not in the plan of channel 'stable'" in done.stderr.decode()
    assert world.count("merge") == 0
    no_work = world.cli("run", "--pull-request", "1", "--phase", "build")
    assert no_work.returncode == 2
    assert "run needs the work" in no_work.stderr.decode()


def test_the_work_runs_in_the_working_directory_of_the_workspace(world: RunWorld) -> None:
    (world.workspace / "sub").mkdir()
    done = world.cli("run", "--pull-request", "1", "--phase", "build", "--working-directory",
                     "sub", "--materials", "sub/here", "--json", "--", "sh", "-c",
                     "pwd > here; echo from the work")
    assert done.returncode == 0, done.stderr.decode()
    here = world.workspace / "sub" / "here"
    assert here.read_text().strip() == str((world.workspace / "sub").resolve())
    # the work's standard output is the step's; the report goes to standard error
    assert done.stdout.decode().splitlines()[0] == "from the work"
    [material] = json.loads(outputs(done)["materials-json"])
    assert material["id"].startswith("build:sub/here@")


def test_work_that_exits_0_without_its_files_is_recorded_unknown(world: RunWorld) -> None:
    done = world.run("build", "--materials", "dist/nothing-*.tar.gz", "--json")
    assert done.returncode == 2, done.stderr.decode()
    out = outputs(done)
    assert (out["outcome"], out["row"], out["exit-code"]) == ("ran", "W4", "0")
    assert world.phase_statuses("build") == ["started", "unknown"]
    assert "matches no file" in world.status()  # the unknown's reason names the glob
    # the next step settles it with the verify, never runs it on a guess
    settled = world.run("build", "--verify", "exit 0", "--json")
    assert outputs(settled)["outcome"] == "settled"
    assert world.count("build") == 1
