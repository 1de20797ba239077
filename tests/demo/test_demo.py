"""The demo runs end to end: emulator over HTTP, the Action's entry per step, the lost
publication response reconciled, capture, and the reader bundle in its own process; then
the last act, a ``command: run`` publication whose job is killed during its work and
whose re-run is settled by its verify without running the work again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.network
def test_demo_passes_and_leaves_a_valid_journal(demo_run: Any) -> None:
    proc, tmp_path = demo_run.proc, demo_run.kept
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("demo passed: status succeeded, recovery none, 2 attempts")
    assert "journal URL: https://github.com/octo-org/widgets/discussions/" in proc.stdout
    # The kept capture reads the same with the bundle, in this test's own process.
    capture = tmp_path / "capture.json"
    pages = json.loads(capture.read_text())
    repo_id = pages[0]["data"]["repository"]["id"]
    read = subprocess.run([sys.executable, str(ROOT / "readers" / "business-attempt.pyz"),
                           "--writer", "github-actions", "--writer-id", "41898282",
                           "--repository-id", repo_id], input=capture.read_bytes(),
                          capture_output=True, timeout=60)
    verdict = json.loads(read.stdout)
    assert (read.returncode, verdict["status"], verdict["recovery"]) == (0, "succeeded", "none")
    assert [a["status"] for a in verdict["attempts"]] == ["superseded", "succeeded"]
    # Every record is in the journal once: the reconciled publication was not re-sent.
    bodies = [r["body"] for p in pages
              for root in p["data"]["repository"]["discussion"]["comments"]["nodes"]
              for r in [root, *root["replies"]["nodes"]]]
    assert len(bodies) == len(set(bodies)) == 2 + 2 + 16  # roots, attempt 1, attempt 2
    assert sum('"key":"publish-v1.4.0"' in b for b in bodies) == 1
    # Each Action step left its outputs file and a job summary (the killed one, step 22,
    # an empty one: it was killed before it had a result).
    summaries = sorted(tmp_path.glob("step*.summary.md"),
                       key=lambda p: int(p.name.removeprefix("step").split(".")[0]))
    assert len(summaries) == 23
    assert (tmp_path / "step22.summary.md").read_text() == ""
    # the status step writes the full summary; the record and run steps one line each
    assert "```mermaid" in (tmp_path / "step21.summary.md").read_text()
    assert summaries[1].read_text().count("\n") == 1
    settled = (tmp_path / "step23.summary.md").read_text()
    assert settled.startswith("**ghattempt run publication**: settled: ")
    assert settled.count("\n") == 1
    # the last act: killed during the work (after its effect), settled by the re-run's
    # verify, the work not run again (its counter), the journal's hotfix attempt
    # started, unknown, succeeded
    assert "outcome settled; the work ran 1 time(s) in all" in proc.stdout
    assert len((tmp_path / "act" / "counter").read_text().splitlines()) == 1
    outputs = (tmp_path / "step23.output").read_text()
    assert "outcome=settled" in outputs.splitlines() and "exit-code=" in outputs
    # the journal's timeline page, kept in --keep DIR, and its path printed
    assert f"timeline page: {(tmp_path / 'timeline.html').resolve()}" in proc.stdout
    assert (tmp_path / "timeline.html").read_text().startswith("<!DOCTYPE html>")


def test_demo_help() -> None:
    proc = subprocess.run([sys.executable, "-m", "ghattempt.cli", "demo", "--help"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0 and "--keep DIR" in proc.stdout
