"""The shared public conformance cases, over the committed bundle and in-process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ghattempt.core import read_journal
from ghattempt.core._args import parse_argv
from ghattempt.core._codes import JournalInvalid

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = REPO.parent / "shared" / "conformance"
BUNDLE = REPO / "readers" / "business-attempt.pyz"
KEYS = ("status", "reason", "recovery", "attempt", "generation", "missing_phases",
        "request_key", "ignored")


def _require_cases() -> Path:
    if not (CONFORMANCE / "run_cases.py").is_file():
        message = (f"shared conformance cases not found at {CONFORMANCE}: "
                   "the reader is NOT checked against them")
        if os.environ.get("GHATTEMPT_REQUIRE_FIXTURES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return CONFORMANCE


def _cases() -> list[Path]:
    public = CONFORMANCE / "public"
    if not public.is_dir():
        return []
    return sorted(p for p in public.iterdir() if (p / "expected.json").is_file())


def test_bundle_passes_every_public_case() -> None:
    root = _require_cases()
    proc = subprocess.run(
        [sys.executable, str(root / "run_cases.py"), f"{sys.executable} {BUNDLE}",
         str(root / "public")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 failed" in proc.stdout


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_library_agrees_with_case(case: Path) -> None:
    """read_journal gives the same verdict as the expected one, in-process."""
    _require_cases()
    args = json.loads((case / "args.json").read_text())
    expected = json.loads((case / "expected.json").read_text())
    raw = (case / "input.json") if (case / "input.json").is_file() else case / "input.bin"
    try:
        opts = parse_argv(args)
    except JournalInvalid as exc:
        assert expected["reason"] == exc.code == "bad_arguments"
        return
    try:
        pages = json.loads(raw.read_bytes().decode("utf-8"))
    except ValueError:
        assert expected["reason"] == "bad_input"
        return
    verdict = read_journal(pages, writer=opts.writer, repository_id=opts.repository_id,
                           writer_id=opts.writer_id, request_key=opts.request_key,
                           server_url=None if opts.server_url == "https://github.com"
                           else opts.server_url, max_records=opts.max_records,
                           max_attempts=opts.max_attempts,
                           require_witness=opts.require_witness)
    got = verdict.to_json()
    unchecked = set(expected.get("unchecked", ()))
    assert verdict.exit_code == expected["exit"]
    for key in KEYS:
        if key not in unchecked:
            assert got[key] == expected[key], key
    if "attempts_statuses" not in unchecked:
        assert [a["status"] for a in got["attempts"]] == expected["attempts_statuses"]
    assert (verdict.journal is not None) == (expected["exit"] == 0)
