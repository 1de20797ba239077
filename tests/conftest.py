"""Fixtures shared by more than one test package."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class DemoRun:
    """One run of ``ghattempt demo --keep DIR``: its process and the kept directory
    (``capture.json``, ``timeline.html``, each step's outputs and summary)."""

    proc: subprocess.CompletedProcess[str]
    kept: Path


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """The demo, run once for the session (about a minute): the demo's own test and the
    timeline page's browser tests read the same run."""
    kept = tmp_path_factory.mktemp("demo")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GHATTEMPT_"))}
    proc = subprocess.run([sys.executable, "-m", "ghattempt.cli", "demo", "--keep",
                           str(kept)], capture_output=True, text=True, timeout=400,
                          env=env, cwd=ROOT)
    return DemoRun(proc, kept)
