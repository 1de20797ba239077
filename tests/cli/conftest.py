"""Shared helpers: run the ``ghattempt`` CLI as a subprocess, the way a user does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT.parent / "shared" / "conformance"
BUNDLE = ROOT / "readers" / "business-attempt.pyz"


def cli_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GHATTEMPT_", "INPUT_"))}
    env["GHATTEMPT_PROGRESS"] = "0"
    env.update(extra)
    return env


def run_cli(*args: str, stdin: bytes = b"", env: dict[str, str] | None = None,
            timeout: float = 60, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ghattempt.cli", *args], input=stdin,
                          capture_output=True, env=env if env is not None else cli_env(),
                          timeout=timeout, cwd=cwd)


def public_cases() -> list[Path]:
    public = CONFORMANCE / "public"
    if not public.is_dir():
        return []
    return sorted(p for p in public.iterdir() if (p / "expected.json").is_file())


def require_cases() -> None:
    if not public_cases():
        message = f"shared conformance cases not found at {CONFORMANCE}"
        if os.environ.get("GHATTEMPT_REQUIRE_FIXTURES") == "1":
            pytest.fail(message)
        pytest.skip(message)


# ----------------------------------------------------------------- emulator world

CONFIG = """\
[journal]
category = "release-journal"
title = "Releases of {repository}: #{pull_request} into {base_ref}"

[writer]
login = "github-actions"
database_id = 41898282

[channels.stable]
plan = ["admission", "build", "publication"]

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


class World:
    """An emulator served over HTTP on loopback, a consumer workspace with a config,
    and the environment a user would export."""

    def __init__(self, tmp: Path) -> None:
        from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer

        self.emulator = Emulator(str(tmp / "emu.sqlite3"), DEFAULT_FIXTURE)
        self.server = EmulatorServer(self.emulator).start()
        self.api_url = self.server.url + "/"
        self.workspace = tmp / "workspace"
        (self.workspace / ".github").mkdir(parents=True)
        (self.workspace / ".github" / "ghattempt.toml").write_text(CONFIG)

    def env(self, token: str = "ghs_actions", **extra: str) -> dict[str, str]:
        return cli_env(GITHUB_TOKEN=token, GITHUB_API_URL=self.api_url,
                       GITHUB_REPOSITORY="octo-org/widgets", GITHUB_ACTOR="alice", **extra)

    def cli(self, *args: str, token: str = "ghs_actions", stdin: bytes = b"",
            **extra: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "ghattempt.cli", *args], input=stdin,
                              capture_output=True, env=self.env(token, **extra), timeout=120,
                              cwd=self.workspace)

    def repository_id(self) -> str:
        snap = self.emulator.snapshot()
        return next(r["id"] for r in snap["repositories"]
                    if r["nameWithOwner"] == "octo-org/widgets")

    def close(self) -> None:
        self.server.stop()
