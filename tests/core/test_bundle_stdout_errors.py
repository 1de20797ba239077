"""The bundle when its stdout cannot take the verdict (closed, or a full device): no
verdict can be delivered, but the claim is still "never a traceback" (docs/reader.md,
"Decisions where the contract is silent").

Known gap, fixed in ``ghattempt/core/_reader_main.py`` (``main``): the final write and
flush raise (``AttributeError`` on a closed stdout, ``OSError`` on ENOSPC/EPIPE) and
Python prints a traceback. Marked strict ``xfail`` so that the fix turns these red until
the mark is removed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ghattempt.core.testing import sample_cases

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "readers" / "business-attempt.pyz"


def _run(stdout_setup: str) -> subprocess.CompletedProcess[bytes]:
    argv, pages = next((a, p) for n, _, a, p in sample_cases() if n == "valid-successor")
    quoted = " ".join(f"'{a}'" for a in argv)
    return subprocess.run(["sh", "-c", f"exec '{sys.executable}' '{BUNDLE}' {quoted} "
                                       f"{stdout_setup}"],
                          input=json.dumps(pages).encode(), stderr=subprocess.PIPE,
                          timeout=60, check=False)


@pytest.mark.xfail(strict=True, reason="_reader_main.main writes to a closed stdout")
def test_a_closed_stdout_ends_without_a_traceback() -> None:
    proc = _run(">&-")
    assert proc.returncode != 0
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.xfail(strict=True, reason="_reader_main.main does not catch a failed write")
def test_a_full_stdout_ends_without_a_traceback() -> None:
    proc = _run(">/dev/full")
    assert proc.returncode != 0
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
