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
            timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "ghattempt.cli", *args], input=stdin,
                          capture_output=True, env=env if env is not None else cli_env(),
                          timeout=timeout, cwd=ROOT)


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
