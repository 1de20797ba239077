"""ghattempt.readers finds the committed bundle digest, installed or from a checkout."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
from pathlib import Path

import pytest

import ghattempt.readers as readers

REPO = Path(__file__).resolve().parents[2]


def test_reader_digest_is_the_committed_bundle_digest() -> None:
    data = (REPO / "readers" / "business-attempt.pyz").read_bytes()
    assert readers.reader_digest() == "sha256:" + hashlib.sha256(data).hexdigest()


def _load_copy(tmp: Path) -> object:
    spec = importlib.util.spec_from_file_location("readers_copy", tmp / "ghattempt" /
                                                  "readers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_installed_layout_uses_the_bundle_shipped_in_the_package(tmp_path: Path) -> None:
    pkg = tmp_path / "ghattempt"
    (pkg / "_bundle").mkdir(parents=True)
    shutil.copy(REPO / "ghattempt" / "readers.py", pkg / "readers.py")
    (pkg / "_bundle" / "business-attempt.pyz.sha256").write_text(
        "ab" * 32 + "  business-attempt.pyz\n")
    module = _load_copy(tmp_path)
    assert module.reader_digest() == "sha256:" + "ab" * 32  # type: ignore[attr-defined]


def test_missing_or_malformed_digest_file_is_an_error(tmp_path: Path) -> None:
    pkg = tmp_path / "ghattempt"
    pkg.mkdir()
    shutil.copy(REPO / "ghattempt" / "readers.py", pkg / "readers.py")
    module = _load_copy(tmp_path)
    with pytest.raises(FileNotFoundError, match="build-reader"):
        module.reader_digest()  # type: ignore[attr-defined]
    (pkg / "_bundle").mkdir()
    (pkg / "_bundle" / "business-attempt.pyz.sha256").write_text("not a digest\n")
    with pytest.raises(ValueError):
        module.reader_digest()  # type: ignore[attr-defined]
