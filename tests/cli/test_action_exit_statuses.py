"""The Action's exit statuses a workflow acts on (issue 23, section 3), through
``python -m ghattempt.action`` over the HTTP emulator: 4 "try again", 5 "a person must
act"; messages in the user's terms; a full runner disk after the write landed."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import World, cli_env

DEV_FULL = Path("/dev/full")


@pytest.fixture()
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    try:
        yield w
    finally:
        w.close()


_run = [900]


def step(world: World, tmp: Path, command: str, *, token: str = "ghs_actions",
         output: Path | None = None, summary: Path | None = None,
         **inputs: str) -> subprocess.CompletedProcess[str]:
    _run[0] += 1
    event = tmp / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "base": {"ref": "main"}}}))
    out = output if output is not None else tmp / f"out{_run[0]}"
    summ = summary if summary is not None else tmp / f"summary{_run[0]}.md"
    env = cli_env(
        GITHUB_ACTIONS="true", GITHUB_RUN_ID=str(_run[0]), GITHUB_RUN_ATTEMPT="1",
        GITHUB_JOB="release", GITHUB_WORKFLOW="release.yml",
        GITHUB_REPOSITORY="octo-org/widgets", GITHUB_API_URL=world.api_url,
        GITHUB_WORKSPACE=str(world.workspace), GITHUB_EVENT_PATH=str(event),
        GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summ), RUNNER_TEMP=str(tmp),
        GHATTEMPT_COMMAND=command, GHATTEMPT_TOKEN=token)
    for name, value in inputs.items():
        env["GHATTEMPT_" + name.upper()] = value
    return subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env, text=True,
                          capture_output=True, timeout=120, cwd=tmp)


def errors(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if line.startswith("::error")]


def _written(world: World) -> int:
    """Discussions and comments (replies included) in the emulator."""
    snap = world.emulator.snapshot()
    return sum(1 + len(d["comments"]) for r in snap["repositories"] for d in r["discussions"])


@pytest.mark.skipif(not DEV_FULL.exists(), reason="needs /dev/full")
@pytest.mark.parametrize("which", ["output", "summary"])
def test_a_full_disk_after_the_write_landed_is_one_error_line_and_exit_5(
        world: World, tmp_path: Path, which: str) -> None:
    full = {which: DEV_FULL}
    done = step(world, tmp_path, "admit", **full)  # type: ignore[arg-type]
    assert done.returncode == 5, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "OSError" not in done.stderr
    (error,) = errors(done)
    variable = "GITHUB_OUTPUT" if which == "output" else "GITHUB_STEP_SUMMARY"
    assert "the journal holds this step's records (they landed" in error
    assert f"{variable} (/dev/full) could not be written: No space left on device" in error
    assert "running the step again with the same key reads the records back" in error
    assert done.stdout.rstrip().splitlines()[-1] == error  # it ends the step
    # the record did land: a status step reads it
    after = step(world, tmp_path, "status")
    assert after.returncode == 0, after.stdout
    out = sorted(tmp_path.glob("out*"))[-1].read_text()
    assert "status=pending" in out and "recovery=continue:admission" in out


@pytest.mark.skipif(not DEV_FULL.exists(), reason="needs /dev/full")
def test_a_full_disk_on_a_read_says_nothing_was_written(world: World, tmp_path: Path) -> None:
    done = step(world, tmp_path, "status", output=DEV_FULL)
    assert done.returncode == 5, done.stdout + done.stderr
    (error,) = errors(done)
    assert "read the journal and wrote nothing" in error and "landed" not in error
    assert "run the step again" in error and "same key" not in error


def test_bad_credentials_are_exit_5_in_the_users_terms(world: World, tmp_path: Path) -> None:
    done = step(world, tmp_path, "admit", token="ghs_" + "wrong" * 8)
    assert done.returncode == 5, done.stdout + done.stderr
    (error,) = errors(done)
    assert "GitHub refused the credentials (HTTP 401" in error
    assert "WriterRead" not in error and "RepositoryLookup" not in error
    assert "--" not in error.split("::", 2)[2]  # no command-line option in an Action message


def test_a_missing_permission_names_the_permissions_key(world: World, tmp_path: Path) -> None:
    world.emulator.add_token("ghs_readonly_discussions", "github-actions", role="write",
                             discussions="read")
    done = step(world, tmp_path, "admit", token="ghs_readonly_discussions")
    assert done.returncode == 5, done.stdout + done.stderr
    (error,) = errors(done)
    assert "the token needs discussions: write" in error and "permissions:" in error, error
    assert "CreateDiscussion" not in error and "AddDiscussionComment" not in error
    assert _written(world) == 0



def test_a_repository_not_found_is_exit_5_without_command_line_options(
        world: World, tmp_path: Path) -> None:
    done = step(world, tmp_path, "status", repository="octo-org/nothing-here")
    assert done.returncode == 5, done.stdout + done.stderr
    (error,) = errors(done)
    message = error.split("::", 2)[2]
    assert "input 'repository'" in message and "input 'pull-request'" in message, message
    assert "--" not in message and "RepositoryLookup" not in message


@pytest.mark.skipif(not DEV_FULL.exists(), reason="needs /dev/full")
def test_a_full_disk_after_a_run_steps_work_is_one_error_line_and_the_work_stands(
        world: World, tmp_path: Path) -> None:
    counter = world.workspace / "counter.txt"
    work = f"echo ran >> '{counter}'"
    done = step(world, tmp_path, "run", output=DEV_FULL, phase="admission", run=work)
    assert done.returncode == 5, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "OSError" not in done.stderr
    (error,) = errors(done)
    assert "the journal holds this step's records (they landed" in error
    assert "GITHUB_OUTPUT (/dev/full) could not be written" in error
    assert counter.read_text().count("ran") == 1
    # the records landed: the same step again runs nothing and says so
    again = step(world, tmp_path, "run", phase="admission", run=work)
    assert again.returncode == 0, again.stdout + again.stderr
    out = sorted(tmp_path.glob("out*"))[-1].read_text()
    assert "outcome=skipped" in out
    assert counter.read_text().count("ran") == 1
