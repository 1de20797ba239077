"""The reader bundle unpacked (``python3 -m zipfile -e``) still runs as the reader: the
folder, or its ``__main__.py``, gives the same verdicts as the library, with no
traceback; its ``reader`` is null, as when the reader runs from source (``own_digest``)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ghattempt.core._reader_main import run
from ghattempt.core.testing import sample_cases

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "readers" / "business-attempt.pyz"


@pytest.mark.parametrize("target", [".", "__main__.py"])
def test_the_unpacked_bundle_gives_the_library_verdicts(tmp_path: Path, target: str) -> None:
    folder = tmp_path / "unpacked"
    with zipfile.ZipFile(BUNDLE) as archive:
        archive.extractall(folder)
    cases = {name: (argv, pages) for name, _, argv, pages in sample_cases()}
    for name in ("valid-successor", "fork"):
        argv, pages = cases[name]
        stdin = json.dumps(pages).encode()
        proc = subprocess.run([sys.executable, "-I", "-S", str(folder / target), *argv],
                              input=stdin, capture_output=True, timeout=60, check=False,
                              cwd=tmp_path)
        assert proc.stderr == b"", proc.stderr.decode(errors="replace")
        mine, _ = run(argv, io.BytesIO(stdin), None)
        assert mine is not None
        assert json.loads(proc.stdout) == mine.to_json(), name

