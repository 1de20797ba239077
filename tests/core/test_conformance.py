"""The public sample cases (tests/conformance/public), in process and through the
committed bundle; and the copy is the shared corpus it was made from, when present."""

from __future__ import annotations

import filecmp
import io
import json
import sys
from pathlib import Path

import pytest
from conformance.cases import PUBLIC, REPO, SHARED, case_dirs, differences, load, run_bundle

from ghattempt.core._reader_main import run

BUNDLE = REPO / "readers" / "business-attempt.pyz"


def test_the_copy_holds_the_cases() -> None:
    assert len(case_dirs()) >= 47


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_the_copy_is_the_shared_corpus() -> None:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is not present: nothing to compare the copy with")
    mine, theirs = _tree(PUBLIC), _tree(SHARED)
    changed = sorted(set(mine) ^ set(theirs) | {n for n in set(mine) & set(theirs)
                                                if mine[n] != theirs[n]})
    assert changed == [], ("tests/conformance/public differs from the shared cases; copy "
                           f"them again: {changed[:10]}")
    assert filecmp.dircmp(PUBLIC, SHARED).diff_files == []


@pytest.mark.parametrize("case", case_dirs(), ids=lambda p: p.name)
def test_library_agrees_with_case(case: Path) -> None:
    """The reader CLI in process (``run``: arguments, stdin, verdict) gives the case's
    verdict; a valid one carries the journal state."""
    argv, stdin, expected = load(case)
    verdict, usage = run(argv, io.BytesIO(stdin), None)
    assert verdict is not None, usage
    assert differences(expected, verdict.exit_code, verdict.to_json()) == []
    assert (verdict.journal is not None) == (expected["exit"] == 0)
    json.dumps(verdict.to_json())


def test_bundle_passes_every_public_case() -> None:
    assert run_bundle(sys.executable, BUNDLE, case_dirs()) == []
