"""Released readers keep passing their cases; the current reader agrees with them
(readers/history/README.md; idempotency note steps 6 and 8)."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ghattempt.core._reader_main import run

HISTORY = Path(__file__).resolve().parents[2] / "readers" / "history"
KEYS = ("status", "reason", "recovery", "attempt", "generation", "missing_phases",
        "request_key", "ignored")


def releases() -> list[Path]:
    return sorted(p for p in HISTORY.iterdir() if p.is_dir()) if HISTORY.is_dir() else []


def cases(release: Path) -> list[Path]:
    return sorted(p for p in (release / "cases").iterdir() if (p / "expected.json").is_file())


def compare(expected: dict[str, object], code: int, out: dict[str, object]) -> list[str]:
    diffs = [] if code == expected["exit"] else [f"exit {code} != {expected['exit']}"]
    diffs += [f"{k}: {out[k]!r} != {expected[k]!r}" for k in KEYS if out[k] != expected[k]]
    statuses = [a["status"] for a in out["attempts"]]  # type: ignore[union-attr]
    if statuses != expected["attempts_statuses"]:
        diffs.append(f"attempts: {statuses} != {expected['attempts_statuses']}")
    return diffs


def test_at_least_one_release_is_kept() -> None:
    assert releases(), "release the reader: scripts/release-reader"


@pytest.mark.parametrize("release", releases(), ids=lambda p: p.name[:12])
def test_release_folder_is_named_by_its_digest(release: Path) -> None:
    bundle = (release / "business-attempt.pyz").read_bytes()
    assert hashlib.sha256(bundle).hexdigest() == release.name
    assert len(cases(release)) >= 30


@pytest.mark.parametrize("release", releases(), ids=lambda p: p.name[:12])
def test_kept_reader_passes_its_cases_in_a_fresh_process(release: Path) -> None:
    failures = []
    for case in cases(release):
        args = json.loads((case / "args.json").read_text())
        proc = subprocess.run([sys.executable, "-I", str(release / "business-attempt.pyz"),
                               *args], input=(case / "input.json").read_bytes(),
                              capture_output=True, timeout=60)
        out = json.loads(proc.stdout)
        assert out["reader"] == "sha256:" + release.name
        diffs = compare(json.loads((case / "expected.json").read_text()), proc.returncode, out)
        if diffs:
            failures.append(f"{case.name}: {'; '.join(diffs)}")
    assert failures == []


@pytest.mark.parametrize("release", releases(), ids=lambda p: p.name[:12])
def test_current_reader_agrees_with_every_kept_v1_case(release: Path) -> None:
    failures = []
    for case in cases(release):
        args = json.loads((case / "args.json").read_text())
        verdict, _ = run(args, io.BytesIO((case / "input.json").read_bytes()), None)
        assert verdict is not None
        diffs = compare(json.loads((case / "expected.json").read_text()), verdict.exit_code,
                        verdict.to_json())
        if diffs:
            failures.append(f"{case.name}: {'; '.join(diffs)}")
    assert failures == []
