"""The bundle when its stdout cannot take the verdict (closed, or a full device): no
verdict can be delivered, but the claim is still "never a traceback" (docs/reader.md,
"Decisions where the contract is silent").

The bundle then exits 2 with one line on stderr naming the problem (``_emit`` in
``ghattempt/core/_reader_main.py``)."""

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


def test_a_closed_stdout_ends_without_a_traceback() -> None:
    proc = _run(">&-")
    assert proc.returncode == 2
    assert proc.stderr == (b"business-attempt: cannot write the verdict to stdout "
                           b"(stdout is closed)\n"), proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_stdout_ends_without_a_traceback() -> None:
    proc = _run(">/dev/full")
    assert proc.returncode == 2
    assert proc.stderr == (b"business-attempt: cannot write the verdict to stdout "
                           b"(OSError: [Errno 28] No space left on device)\n"), proc.stderr


def test_a_closed_pipe_ends_without_a_traceback() -> None:
    """Whoever read the pipe is gone before the verdict is written."""
    argv, pages = next((a, p) for n, _, a, p in sample_cases() if n == "valid-successor")
    proc = subprocess.Popen([sys.executable, str(BUNDLE), *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdin is not None and proc.stderr is not None
    proc.stdout.close()
    proc.stdin.write(json.dumps(pages).encode())
    proc.stdin.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 2
    assert err == (b"business-attempt: cannot write the verdict to stdout "
                   b"(BrokenPipeError: [Errno 32] Broken pipe)\n"), err
