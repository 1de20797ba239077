"""The shell scripts inside action.yml and the workflows, run as the runner runs them."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
IGNORE = shutil.ignore_patterns("__pycache__")
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


def test_prep_step_decides_what_the_venv_still_needs(tmp_path):
    prep = step(ROOT / "action.yml", "Locate the ghattempt environment")
    action_path = tmp_path / "action-copy"
    shutil.copytree(ROOT / "ghattempt", action_path / "ghattempt", ignore=IGNORE)
    (action_path / "readers").mkdir()
    for name in ("business-attempt.pyz", "business-attempt.pyz.sha256"):
        shutil.copy(ROOT / "readers" / name, action_path / "readers")
    (action_path / "action").mkdir()
    shutil.copy(ROOT / "action" / "requirements.txt", action_path / "action")
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    out = tmp_path / "out"
    env = {
        "GITHUB_ACTION_PATH": str(action_path),
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_OUTPUT": str(out),
    }
    lock_hash = hashlib.sha256((ROOT / "action" / "requirements.txt").read_bytes()).hexdigest()

    def prep_outputs() -> dict[str, str]:
        out.write_text("")
        done = run_bash(prep["run"], env, tmp_path)
        assert done.returncode == 0, done.stderr
        return outputs(out)

    first = prep_outputs()
    assert first["lock-hash"] == lock_hash
    assert re.fullmatch(r"[0-9a-f]{64}", first["self-hash"])
    assert first["venv"] == f"{runner_temp}/ghattempt-venv"
    assert (first["ready"], first["self-ready"]) == ("false", "false")

    # an earlier use of the Action in this job installed both: nothing to do
    venv = runner_temp / "ghattempt-venv"
    venv.mkdir()
    (venv / ".ghattempt-lock").write_text(lock_hash)
    (venv / ".ghattempt-self").write_text(first["self-hash"])
    again = prep_outputs()
    assert again == first | {"ready": "true", "self-ready": "true"}

    # bytecode caches do not count as source
    (action_path / "ghattempt" / "__pycache__").mkdir(exist_ok=True)
    (action_path / "ghattempt" / "__pycache__" / "x.pyc").write_bytes(b"junk")
    assert prep_outputs()["self-ready"] == "true"

    # another copy of ghattempt (a changed file, a new data file): reinstall it only
    (action_path / "ghattempt" / "config.py").write_text("# changed\n", "utf-8")
    changed = prep_outputs()
    assert (changed["ready"], changed["self-ready"]) == ("true", "false")
    assert changed["self-hash"] != first["self-hash"]
    (venv / ".ghattempt-self").write_text(changed["self-hash"])
    (action_path / "ghattempt" / "queries.graphql").write_text("query Q { x }\n")
    assert prep_outputs()["self-ready"] == "false"

    # another reader bundle is another copy too (install.sh self copies it)
    (venv / ".ghattempt-self").write_text(prep_outputs()["self-hash"])
    (action_path / "readers" / "business-attempt.pyz").write_bytes(b"another bundle")
    assert prep_outputs()["self-ready"] == "false"

    # a venv from another lock is rebuilt whole
    (venv / ".ghattempt-lock").write_text("0" * 64)
    assert (prep_outputs()["ready"], prep_outputs()["self-ready"]) == ("false", "false")



def test_example_release_work_scripts_print_without_expressions(tmp_path):
    """The `run` (and `verify`) scripts of the example's command: run steps, run as the
    Action runs them (`bash -e {0}`, the default shell) with the job's env: each phase's
    work prints its notice and succeeds; the publication's placeholder verify says
    absent (exit 1), never in place."""
    path = ROOT / ".github" / "workflows" / "example-release.yml"
    doc = yaml.safe_load(path.read_text())
    (job,) = doc["jobs"].values()
    work = [s for s in job["steps"] if s.get("uses") == "./"
            and s["with"]["command"] == "run"]
    assert len(work) == 8
    env = {"PULL_REQUEST": "42"}
    for s in work:
        f = tmp_path / "work.sh"
        f.write_text(s["with"]["run"])
        done = subprocess.run(["bash", "-e", str(f)], env={"PATH": "/usr/bin:/bin"} | env,
                              cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("::notice::"), s["id"]
        if "verify" in s["with"]:
            f.write_text(s["with"]["verify"])
            done = subprocess.run(["bash", "-e", str(f)], env={"PATH": "/usr/bin:/bin"},
                                  cwd=tmp_path, capture_output=True, text=True)
            assert done.returncode == 1 and done.stdout.startswith("::notice::"), s["id"]


def test_prep_step_hashes_with_shasum_where_sha256sum_is_missing(tmp_path):
    # macOS runners have `shasum -a 256` but no sha256sum; both print "<hex>  <name>"
    prep = step(ROOT / "action.yml", "Locate the ghattempt environment")
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "cat", "cut", "find", "sort", "xargs"):
        (tools / tool).symlink_to(shutil.which(tool))
    real = shutil.which("sha256sum")
    (tools / "shasum").write_text(
        f'#!/bin/sh\n[ "$1 $2" = "-a 256" ] || exit 9\nshift 2\nexec {real} "$@"\n'
    )
    (tools / "shasum").chmod(0o755)
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    results = []
    for path in (str(tools), "/usr/local/bin:/usr/bin:/bin"):
        out = tmp_path / "out"
        out.write_text("")
        env = {
            "PATH": path,
            "GITHUB_ACTION_PATH": str(ROOT),
            "RUNNER_TEMP": str(runner_temp),
            "GITHUB_OUTPUT": str(out),
        }
        script = tmp_path / "step.sh"
        script.write_text(prep["run"])
        done = subprocess.run(
            [str(tools / "bash"), "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        results.append(outputs(out))
    assert results[0] == results[1]
