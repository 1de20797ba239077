"""The release-cost benchmark still plays the example release workflow: it reads each
Action input the workflow passes (``attempt: ${{ steps.admit.outputs.attempt }}`` once
broke it) and its figures are the README's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.timeout(300)
def test_the_step_by_step_release_meets_the_cost_goals_with_githubs_limits_on() -> None:
    # the run-based example (the benchmark's default) does not: two holds a phase
    # (docs/store.md); tests/action/test_release_cost_benchmark.py plays it
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "release_cost.py"),
                           "--workflow", "examples/workflows/release-step-by-step.yml",
                           "--discussions", "1", "--after", "0"], capture_output=True, text=True,
                          timeout=280, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "goals met" in done.stdout
    assert "per release:         requests 49 (GraphQL 48, REST 1), GraphQL points 48, " \
           "mutations 37" in done.stdout
