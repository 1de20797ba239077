"""Released readers (readers/history/README.md): each folder is named by its bundle's
digest and listed in the CHANGELOG, the current reader agrees with every kept case, and
the history is not installed. That each kept bundle passes its own cases in a fresh
process, on every CPython found, is tests/core/test_interpreters.py's."""

from __future__ import annotations

import hashlib
import io
import tomllib
from pathlib import Path

import pytest
from conformance.cases import REPO, case_dirs, differences, load

from ghattempt.core._reader_main import run

HISTORY = REPO / "readers" / "history"


def releases() -> list[Path]:
    return sorted(p for p in HISTORY.iterdir() if p.is_dir()) if HISTORY.is_dir() else []


def test_at_least_one_release_is_kept() -> None:
    assert releases(), "release the reader: scripts/release-reader"


@pytest.mark.parametrize("release", releases(), ids=lambda p: p.name[:12])
def test_a_release_folder_is_named_by_its_digest_and_listed(release: Path) -> None:
    bundle = (release / "business-attempt.pyz").read_bytes()
    assert hashlib.sha256(bundle).hexdigest() == release.name
    assert len(case_dirs(release / "cases")) >= 30
    assert f"sha256:{release.name}" in (REPO / "CHANGELOG.md").read_text()
    assert f"sha256:{release.name}" in (HISTORY / "README.md").read_text()


@pytest.mark.parametrize("release", releases(), ids=lambda p: p.name[:12])
def test_current_reader_agrees_with_every_kept_case(release: Path) -> None:
    failures = []
    for case in case_dirs(release / "cases"):
        argv, stdin, expected = load(case)
        verdict, _ = run(argv, io.BytesIO(stdin), None)
        assert verdict is not None
        diffs = differences(expected, verdict.exit_code, verdict.to_json())
        if diffs:
            failures.append(f"{case.name}: {'; '.join(diffs)}")
    assert failures == []


def test_the_wheel_ships_the_bundle_and_its_digest_but_not_the_history() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    included = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert included == {
        "readers/business-attempt.pyz": "ghattempt/_bundle/business-attempt.pyz",
        "readers/business-attempt.pyz.sha256": "ghattempt/_bundle/business-attempt.pyz.sha256"}
    assert config["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["ghattempt"]
