"""``ghattempt read`` is the reader: byte-for-byte the bundle's stdout and exit status."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import BUNDLE, public_cases, require_cases, run_cli


def _input(case: Path) -> bytes:
    for name in ("input.json", "input.bin"):
        if (case / name).is_file():
            return (case / name).read_bytes()
    raise FileNotFoundError(case)


@pytest.mark.parametrize("case", public_cases(), ids=lambda p: p.name)
def test_read_agrees_with_the_bundle(case: Path) -> None:
    require_cases()
    args = json.loads((case / "args.json").read_text())
    stdin = _input(case)
    ours = run_cli("read", *args, stdin=stdin)
    bundle = subprocess.run([sys.executable, str(BUNDLE), *args], input=stdin,
                            capture_output=True, timeout=60)
    assert ours.returncode == bundle.returncode
    assert ours.stdout == bundle.stdout
    expected = json.loads((case / "expected.json").read_text())
    assert ours.returncode == expected["exit"]
    verdict = json.loads(ours.stdout)
    assert verdict["status"] == expected["status"]
    assert verdict["reason"] == expected["reason"]


def test_read_help_exits_0_and_documents_exit_codes() -> None:
    proc = run_cli("read", "--writer", "x", "--help")
    assert proc.returncode == 0
    assert b"usage: ghattempt read" in proc.stdout
    assert b"exit status" in proc.stdout


def test_read_bad_arguments_is_a_verdict_with_exit_2() -> None:
    proc = run_cli("read", "--writer=x", stdin=b"{}")
    assert proc.returncode == 2
    verdict = json.loads(proc.stdout)
    assert (verdict["status"], verdict["reason"], verdict["recovery"]) == (
        "invalid", "bad_arguments", "fail-closed")


def test_read_reports_the_bundle_digest() -> None:
    require_cases()
    case = public_cases()[0]
    proc = run_cli("read", *json.loads((case / "args.json").read_text()), stdin=_input(case))
    digest = (BUNDLE.parent / (BUNDLE.name + ".sha256")).read_text().split()[0]
    assert json.loads(proc.stdout)["reader"] == "sha256:" + digest
