"""The bundle on every supported CPython (3.10 to 3.13) found on this machine: built from
each into the committed bytes, passing every public sample case (also run as
``python -I -S``) and every case kept with the released readers; an older Python is told
the minimum version (exit 2, one line).

Interpreters are looked for in ``$GHATTEMPT_READER_PYTHONS`` (paths separated by
``os.pathsep``), then the one running the tests, ``~/.pyenv/versions/3.X.*``, and
``python3.X`` on PATH. A version not found is skipped, saying so; a version named in
``$GHATTEMPT_REQUIRE_PYTHON`` (CI's matrix) fails instead of skipping.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from conformance.cases import REPO, case_dirs, run_bundle

BUNDLE = REPO / "readers" / "business-attempt.pyz"
HISTORY = REPO / "readers" / "history"
SUPPORTED = ("3.10", "3.11", "3.12", "3.13")
OLDER = ("2.7", "3.6", "3.7", "3.8", "3.9")
PYENV = Path.home() / ".pyenv" / "versions"


def _version_of(path: str) -> str | None:
    try:
        out = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return None
    return out.stdout.strip() or None


@cache
def find(version: str) -> str | None:
    """A path to CPython ``version`` (``3.X``), or None."""
    candidates = [p for p in os.environ.get("GHATTEMPT_READER_PYTHONS", "").split(os.pathsep)
                  if p]
    candidates.append(sys.executable)
    candidates += [str(p) for p in sorted(PYENV.glob(f"{version}.*/bin/python"))]
    on_path = shutil.which(f"python{version}")
    if on_path:
        candidates.append(on_path)
    return next((c for c in candidates if _version_of(c) == version), None)


def interpreter(version: str) -> str:
    """The path of CPython ``version``; skips (or fails, when required) if not found."""
    found = find(version)
    if found is None:
        message = (f"CPython {version} not found (GHATTEMPT_READER_PYTHONS, "
                   f"{PYENV}/{version}.*, python{version} on PATH): the bundle is NOT "
                   f"tested on it")
        if version in os.environ.get("GHATTEMPT_REQUIRE_PYTHON", "").split(","):
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.mark.parametrize("version", SUPPORTED)
def test_the_build_from_this_interpreter_is_the_committed_bundle(version: str,
                                                                  tmp_path: Path) -> None:
    python = interpreter(version)
    proc = subprocess.run([python, str(REPO / "scripts" / "build-reader"), "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / BUNDLE.name).read_bytes() == BUNDLE.read_bytes(), (
        f"CPython {version} builds other bytes: run scripts/build-reader")


@pytest.mark.parametrize("version", SUPPORTED)
def test_the_bundle_passes_every_public_case(version: str) -> None:
    assert run_bundle(interpreter(version), BUNDLE, case_dirs()) == []


@pytest.mark.parametrize("version", SUPPORTED)
def test_the_bundle_run_isolated_without_site_passes_every_public_case(version: str) -> None:
    """``python3 -I -S business-attempt.pyz``, as docs/reader.md suggests for a verifier:
    no site-packages (no ``.pth`` code), no environment variables, no current folder on
    ``sys.path``; the stdlib-only reader needs none of them."""
    assert run_bundle(interpreter(version), BUNDLE, case_dirs(), flags=("-I", "-S")) == []


@pytest.mark.parametrize("version", SUPPORTED)
def test_every_released_reader_passes_its_cases(version: str) -> None:
    python = interpreter(version)
    failures = []
    for release in sorted(p for p in HISTORY.iterdir() if p.is_dir()):
        failures += [f"{release.name[:8]} {line}" for line in
                     run_bundle(python, release / "business-attempt.pyz",
                                case_dirs(release / "cases"))]
    assert failures == []


@pytest.mark.parametrize("version", OLDER)
def test_an_older_python_is_told_the_minimum_version(version: str) -> None:
    python = find(version)
    if python is None:
        pytest.skip(f"Python {version} not found: nothing to check")
    proc = subprocess.run([python, str(BUNDLE), "--help"], capture_output=True,
                          timeout=60, check=False)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr == (f"business-attempt.pyz: needs Python 3.10 or newer; this is "
                           f"Python {version}\n").encode()
