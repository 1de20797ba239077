"""``ghattempt run`` over the HTTP emulator, driven as a user drives it: the CLI as a
subprocess, the work a real process that appends a line to a counter file."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = "octo-org/widgets"
PR = ("--pull-request", "1")

RUN_CONFIG = """\
[journal]
category = "release-journal"

[writer]
login = "github-actions"
database_id = 41898282

[channels.stable]
plan = ["build", "publication"]

[attempt]
default_channel = "stable"

[lease]
length = 60
request_timeout = 5
clock_skew = 1
acquire_timeout = 30

[pacing]
write_interval = 0.0
"""


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GHATTEMPT_", "INPUT_", "RUNNER_"))}
    env["GHATTEMPT_PROGRESS"] = "0"
    env.update(extra)
    return env


class RunWorld:
    """The emulator over HTTP on loopback, a consumer workspace with a configuration and
    a work script: it appends its phase to ``counter-<phase>``, writes
    ``dist/<phase>.txt``, waits while ``hold-<phase>`` exists (so a test can stop it
    mid-work) and fails while ``fail-<phase>`` exists."""

    def __init__(self, tmp: Path) -> None:
        from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer

        self.emulator = Emulator(str(tmp / "emu.sqlite3"), DEFAULT_FIXTURE)
        self.server = EmulatorServer(self.emulator).start()
        self.api_url = self.server.url + "/"
        self.workspace = tmp / "workspace"
        (self.workspace / ".github").mkdir(parents=True)
        (self.workspace / ".github" / "ghattempt.toml").write_text(RUN_CONFIG)
        (self.workspace / "work.sh").write_text(
            "#!/bin/sh\n"
            "phase=$1\n"
            "echo $$ > \"pid-$phase\"\n"
            "echo \"$phase\" >> \"counter-$phase\"\n"
            "mkdir -p dist\n"
            "printf 'made by %s\\n' \"$phase\" > \"dist/$phase.txt\"\n"
            "while [ -e \"hold-$phase\" ]; do sleep 0.05; done\n"
            "if [ -e \"fail-$phase\" ]; then echo \"$phase broke\" >&2; exit 3; fi\n"
            "exit 0\n")
        os.chmod(self.workspace / "work.sh", 0o755)
        self.run_id = 7000

    def count(self, phase: str) -> int:
        path = self.workspace / f"counter-{phase}"
        return len(path.read_text().splitlines()) if path.exists() else 0

    def actions_env(self, run_id: int, attempt: int = 1, job: str = "release") -> dict[str, str]:
        return {"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": str(run_id),
                "GITHUB_RUN_ATTEMPT": str(attempt), "GITHUB_JOB": job,
                "GITHUB_WORKFLOW": "release", "GITHUB_WORKSPACE": str(self.workspace)}

    def start_run(self, jobs: tuple[str, ...] = ("release",)) -> int:
        """A workflow run in progress, as the runner has it while a job runs."""
        self.run_id += 1
        self.emulator.add_workflow_run(REPO, self.run_id, ".github/workflows/release.yml",
                                       "release", "0" * 40, status="in_progress",
                                       jobs=list(jobs))
        return self.run_id

    def run_args(self, phase: str, *extra: str) -> list[str]:
        return ["run", *PR, "--phase", phase, *extra, "--", "./work.sh", phase]

    def run(self, phase: str, *extra: str, run_id: int | None = None, attempt: int = 1,
            **env: str) -> subprocess.CompletedProcess[bytes]:
        more = self.actions_env(run_id, attempt) if run_id is not None else {}
        return self.cli(*self.run_args(phase, *extra), **more, **env)

    def popen(self, phase: str, *extra: str, run_id: int | None = None, attempt: int = 1,
              **env: str) -> subprocess.Popen[bytes]:
        more = self.actions_env(run_id, attempt) if run_id is not None else {}
        return subprocess.Popen([sys.executable, "-m", "ghattempt.cli",
                                 *self.run_args(phase, *extra)],
                                env=self.env(**more, **env), cwd=self.workspace,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def wait_for(self, path: Path, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not path.exists():
            if time.monotonic() > deadline:
                raise AssertionError(f"{path} never appeared")
            time.sleep(0.05)

    def env(self, token: str = "ghs_actions", **extra: str) -> dict[str, str]:
        return cli_env(GITHUB_TOKEN=token, GITHUB_API_URL=self.api_url,
                       GITHUB_REPOSITORY=REPO, GITHUB_ACTOR="alice", **extra)

    def cli(self, *args: str, token: str = "ghs_actions",
            **extra: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "ghattempt.cli", *args],
                              capture_output=True, env=self.env(token, **extra), timeout=120,
                              cwd=self.workspace)

    def kill_work(self, phase: str) -> None:
        """SIGKILL the work's process group, as a runner that loses the job does."""
        pid = int((self.workspace / f"pid-{phase}").read_text())
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def status(self) -> str:
        return self.cli("status", *PR).stdout.decode()

    def records(self) -> list[tuple[str, str, str]]:
        """Every record of the journal as ``status`` lists it: (attempt, phase, status),
        attempt-level ones with phase ``(attempt)``."""
        rows = []
        for line in self.status().split("\nATTEMPT ")[-1].splitlines()[1:]:
            cells = re.split(r"\s{2,}", line.strip())
            if len(cells) >= 4 and cells[0].startswith("sha256:"):
                rows.append((cells[0], cells[2], cells[3]))
        return rows

    def phase_statuses(self, phase: str) -> list[str]:
        """The statuses recorded for ``phase``, in the order of the listing."""
        return [status for _, p, status in self.records() if p == phase]

    def close(self) -> None:
        self.server.stop()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[RunWorld]:
    w = RunWorld(tmp_path)
    try:
        yield w
    finally:
        w.close()


