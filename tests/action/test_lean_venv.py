"""The Action's venv holds exactly the locked distributions, and that is enough.

A venv is made from the distributions action/requirements.txt names, each linked file by
file (its RECORD) from this test environment, so nothing else is importable: no
githubkit-schemas-2026-03-10, no App server, no emulator, no build backend. ghattempt is
copied in by ``action/install.sh self``. The Action's entry then admits and reads a
journal in it, against the emulator over HTTP on 127.0.0.1 (served from the test
environment, which has the ``emulator`` extra).
"""

from __future__ import annotations

import importlib.metadata as md
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ghattempt.demo import Demo, emulator

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "action" / "requirements.txt"
TOKEN = "ghs_actions"  # noqa: S105 -- the emulator fixture's Actions bot
CONFIG = '[journal]\ncategory = "release-journal"\n\n[lease]\nlength = 120\nrequest_timeout = 20\n'

pytestmark = pytest.mark.network


def locked_names() -> set[str]:
    names = set()
    for line in LOCK.read_text().splitlines():
        m = re.match(r"([A-Za-z0-9_.-]+)(?: @ |==)", line)
        if m:
            names.add(re.sub(r"[-_.]+", "-", m.group(1)).lower())
    return names


def link_distribution(name: str, site: Path) -> None:
    dist = md.distribution(name)
    for file in dist.files or ():
        if "__pycache__" in file.parts or file.parts[0] == "..":
            continue
        source = Path(dist.locate_file(file))
        target = site / file
        if source.is_file() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source)


@pytest.fixture(scope="module")
def lean(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("lean")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    for name in locked_names():
        link_distribution(name, site)
    done = subprocess.run([str(ROOT / "action" / "install.sh"), "self", str(venv)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return venv


def test_the_lock_is_what_writing_and_reading_need(lean):
    assert "githubkit-schemas-2026-03-10" not in locked_names()
    probe = subprocess.run(
        [str(lean / "bin" / "python"), "-I", "-c", """
import importlib.util as u
absent = [m for m in ("graphql", "starlette", "uvicorn", "jwt", "cryptography", "hatchling",
                      "githubkit_schemas.v2026_03_10", "pip") if u.find_spec(m.split(".")[0])
          and u.find_spec(m)]
print(absent)
"""], capture_output=True, text=True)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "[]"


def test_the_action_admits_and_reads_in_the_lean_venv(lean, tmp_path):
    with emulator(tmp_path) as api_url:
        demo = Demo(tmp_path, api_url=api_url, quiet=True)
        demo.push(".github/ghattempt.toml", CONFIG.encode(), "Add release config")
        workspace = tmp_path / "workspace"
        (workspace / ".github").mkdir(parents=True)
        (workspace / ".github" / "ghattempt.toml").write_text(CONFIG)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GITHUB_", "GHATTEMPT_", "RUNNER_"))}
        env.update({"GHATTEMPT_TOKEN": TOKEN, "GHATTEMPT_PULL_REQUEST": "1",
                    "GITHUB_API_URL": api_url, "GITHUB_REPOSITORY": "octo-org/widgets",
                    "GITHUB_WORKSPACE": str(workspace), "GITHUB_RUN_ID": "77",
                    "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "release",
                    "GITHUB_WORKFLOW": "release", "GHATTEMPT_PROGRESS": "0"})
        results = {}
        for command in ("admit", "status"):
            out = tmp_path / f"{command}.out"
            out.write_text("")
            done = subprocess.run(
                [str(lean / "bin" / "python"), "-I", "-m", "ghattempt.action"],
                env=env | {"GHATTEMPT_COMMAND": command, "GITHUB_OUTPUT": str(out)},
                capture_output=True, text=True, timeout=120, cwd=workspace)
            assert done.returncode == 0, done.stdout + done.stderr
            results[command] = dict(line.split("=", 1) for line in out.read_text().splitlines()
                                    if "=" in line)
    assert results["admit"]["status"] == "pending"
    assert results["status"]["attempt"] == results["admit"]["attempt"]
    assert json.loads(results["status"]["missing-phases-json"])[0] == "admission"
