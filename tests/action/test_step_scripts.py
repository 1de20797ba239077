"""The shell scripts inside action.yml and the workflows, run as the runner runs them."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "action.yml", *sorted((ROOT / ".github" / "workflows").glob("*.yml"))]


def steps_of(path: Path) -> list[dict[str, Any]]:
    doc = yaml.safe_load(path.read_text())
    if "runs" in doc:
        return list(doc["runs"]["steps"])
    return [s for job in doc["jobs"].values() for s in job.get("steps", [])]


def step(path: Path, name: str) -> dict[str, Any]:
    return next(s for s in steps_of(path) if s.get("name") == name)


def run_bash(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # GitHub runs `shell: bash` steps as `bash --noprofile --norc -eo pipefail {0}`
    script_file = cwd / "step.sh"
    script_file.write_text(script)
    argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script_file)]
    base = {"PATH": "/usr/local/bin:/usr/bin:/bin"}
    return subprocess.run(argv, env=base | env, cwd=cwd, capture_output=True, text=True)


def outputs(file: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in file.read_text().splitlines())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_run_script_parses_in_bash(path, tmp_path):
    for s in steps_of(path):
        if "run" in s:
            f = tmp_path / "s.sh"
            f.write_text(s["run"])
            done = subprocess.run(["bash", "-n", str(f)], capture_output=True, text=True)
            assert done.returncode == 0, f"{path.name}: {s.get('name')}: {done.stderr}"


def test_prep_step_finds_the_lock_hash_and_whether_the_venv_is_ready(tmp_path):
    prep = step(ROOT / "action.yml", "Locate the ghattempt environment")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    out = tmp_path / "out"
    env = {
        "GITHUB_ACTION_PATH": str(ROOT),
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_OUTPUT": str(out),
    }
    lock_hash = hashlib.sha256((ROOT / "action" / "requirements.txt").read_bytes()).hexdigest()

    out.write_text("")
    done = run_bash(prep["run"], env, tmp_path)
    assert done.returncode == 0, done.stderr
    assert outputs(out) == {
        "lock-hash": lock_hash,
        "venv": f"{runner_temp}/ghattempt-venv",
        "ready": "false",
    }

    # a venv installed from this very lock earlier in the job is reused
    venv = runner_temp / "ghattempt-venv"
    venv.mkdir()
    (venv / ".ghattempt-lock").write_text(lock_hash)
    out.write_text("")
    assert run_bash(prep["run"], env, tmp_path).returncode == 0
    assert outputs(out)["ready"] == "true"

    # one installed from another lock is not
    (venv / ".ghattempt-lock").write_text("0" * 64)
    out.write_text("")
    assert run_bash(prep["run"], env, tmp_path).returncode == 0
    assert outputs(out)["ready"] == "false"


@pytest.mark.parametrize(
    "recovery, phase",
    [("continue:build", "build"), ("continue:next-development", "next-development")],
)
def test_example_release_finds_the_phase_in_progress(tmp_path, recovery, phase):
    find = step(
        ROOT / ".github" / "workflows" / "example-release.yml", "Find the phase in progress"
    )
    assert find["if"] == "failure() && startsWith(steps.failed.outputs.recovery, 'continue:')"
    out = tmp_path / "out"
    out.write_text("")
    done = run_bash(find["run"], {"RECOVERY": recovery, "GITHUB_OUTPUT": str(out)}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert outputs(out) == {"phase": phase}


def test_example_release_work_steps_print_without_expressions(tmp_path):
    path = ROOT / ".github" / "workflows" / "example-release.yml"
    doc = yaml.safe_load(path.read_text())
    (job,) = doc["jobs"].values()
    work = [s for s in job["steps"] if s.get("id", "").startswith("work-")]
    assert len(work) == 8
    for s in work:
        env = {"PULL_REQUEST": "42", "ATTEMPT": "sha256:" + "a" * 64}
        done = run_bash(s["run"], env, tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("::notice::replace with the ")
