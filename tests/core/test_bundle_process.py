"""The reader bundle as users run it: a fresh ``python3`` process on the committed
``readers/business-attempt.pyz`` (docs/journal-format.md section 10; docs/reader.md).

- Fuzz (bounded, a few seconds): random bytes and mutated valid captures only ever end
  in exit 0, 2 or 3 with exactly one JSON verdict line on stdout and nothing on stderr
  (no traceback); ``--help`` prints the usage and exits 0. ``scripts/fuzz-reader`` is
  the long run.
- Isolation: the bundle run as ``python3 -I -S`` from a folder holding only the bundle,
  under an audit hook that stops the process on any file opened outside the bundle and
  the standard library, any file opened for writing, any socket and any subprocess.
  Variants of the bundle that open ``/etc/hostname`` or create a socket are stopped,
  which proves the hook fires.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import io
import json
import random
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ghattempt.core._reader_main import USAGE, run
from ghattempt.core.testing import sample_cases

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "readers" / "business-attempt.pyz"
KEYS = ["reader", "status", "reason", "intent", "request_key", "attempt", "generation",
        "missing_phases", "recovery", "attempts", "ignored", "detail"]
HOOK_EXIT = 97


def _fuzz_module() -> ModuleType:
    path = ROOT / "scripts" / "fuzz-reader"
    loader = importlib.machinery.SourceFileLoader("fuzz_reader", str(path))
    spec = importlib.util.spec_from_loader("fuzz_reader", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _run_bundle(argv: list[str], stdin: bytes, *, bundle: Path = BUNDLE,
                prefix: tuple[str, ...] = (), cwd: Path | None = None
                ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, *prefix, str(bundle), *argv], input=stdin,
                          capture_output=True, timeout=60, check=False, cwd=cwd)


def _one_verdict(proc: subprocess.CompletedProcess[bytes]) -> dict[str, Any]:
    """Check the shape of one bundle run; return its verdict object."""
    assert proc.stderr == b"", proc.stderr.decode(errors="replace")
    assert proc.returncode in (0, 2, 3), proc.returncode
    assert proc.stdout.endswith(b"\n") and proc.stdout.count(b"\n") == 1, proc.stdout
    assert proc.stdout.isascii()
    out = json.loads(proc.stdout)
    assert type(out) is dict and list(out) == KEYS, out
    assert (proc.returncode == 0) == (out["status"] != "invalid"), out
    if proc.returncode == 2:
        assert out["reason"] in ("bad_input", "bad_arguments"), out
    if out["status"] == "invalid":
        assert out["recovery"] == "fail-closed" and out["attempts"] == [], out
    return out


def test_help_prints_usage_and_exits_0() -> None:
    proc = _run_bundle(["--writer", "x", "--help", "--nonsense"], b"not read")
    assert (proc.returncode, proc.stderr) == (0, b"")
    assert proc.stdout.decode() == USAGE


def test_fuzzed_input_always_ends_in_one_verdict_from_the_bundle() -> None:
    fuzz = _fuzz_module()
    rng = random.Random(20261130)  # noqa: S311 -- reproducible fuzz inputs
    corpus = [(argv, pages) for _, _, argv, pages in sample_cases()]
    inputs: list[tuple[list[str], bytes]] = []
    for n in range(40):
        argv, pages = rng.choice(corpus)
        if n % 4 == 0:
            stdin = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
        elif n % 4 == 1:
            stdin = fuzz.mutate_bytes(json.dumps(pages).encode(), rng)
        else:
            stdin = json.dumps(fuzz.mutate_json(pages, rng)).encode()
        inputs.append((argv, stdin))
    started = time.monotonic()
    procs = [(argv, stdin, subprocess.Popen([sys.executable, str(BUNDLE), *argv],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE))
             for argv, stdin in inputs[:20]]
    results = []
    for argv, stdin, proc in procs:
        out, err = proc.communicate(stdin, timeout=60)
        results.append((argv, stdin, subprocess.CompletedProcess(proc.args, proc.returncode,
                                                                 out, err)))
    results += [(argv, stdin, _run_bundle(argv, stdin)) for argv, stdin in inputs[20:]]
    reasons = set()
    for argv, stdin, proc in results:
        out = _one_verdict(proc)
        mine, _ = run(argv, io.BytesIO(stdin), None)
        assert mine is not None
        assert {**out, "reader": None} == mine.to_json(), (argv, stdin[:200])
        reasons.add(out["reason"] or out["status"])
    assert {"bad_input"} < reasons  # random bytes, and mutations that parse
    assert time.monotonic() - started < 30


# The wrapper: installs the audit hook, then runs the bundle given as argv[1].
WRAPPER = r'''
import os, sys
bundle = os.path.realpath(sys.argv[1])
stdlib = os.path.realpath(os.path.dirname(os.__file__))
allowed = stdlib + os.sep

def fail(what):
    os.write(2, ("audit: " + what + "\n").encode("ascii", "replace"))
    os._exit(97)

def hook(event, args):
    if event == "open":
        path, mode, flags = args
        if path is None or isinstance(path, int):
            return
        real = os.path.realpath(os.fsdecode(path))
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC))
        if writing:
            fail("open for writing " + real)
        if real != bundle and not real.startswith(allowed):
            fail("open " + real)
    elif event.startswith(("socket.", "subprocess.", "os.exec", "os.posix_spawn",
                           "os.spawn", "os.system", "os.fork", "urllib.")):
        fail(event)

sys.addaudithook(hook)
import runpy
sys.argv = sys.argv[1:]
runpy.run_path(bundle, run_name="__main__")
'''


def _isolated(bundle: Path, argv: list[str], stdin: bytes, cwd: Path
              ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-I", "-S", "-c", WRAPPER, bundle.name, *argv],
                          input=stdin, capture_output=True, timeout=60, check=False, cwd=cwd)


@pytest.fixture
def alone(tmp_path: Path) -> Path:
    """A folder holding only a copy of the bundle."""
    folder = tmp_path / "alone"
    folder.mkdir()
    shutil.copyfile(BUNDLE, folder / BUNDLE.name)
    return folder


def test_bundle_opens_only_itself_and_the_stdlib_and_no_socket(alone: Path) -> None:
    cases = {name: (argv, pages) for name, _, argv, pages in sample_cases()}
    digest = "sha256:" + (ROOT / "readers" / "business-attempt.pyz.sha256").read_text().split()[0]
    for name in ("valid-successor", "valid-request-key", "material_rejected", "fork"):
        argv, pages = cases[name]
        stdin = json.dumps(pages).encode()
        proc = _isolated(alone / BUNDLE.name, argv, stdin, alone)
        out = _one_verdict(proc)
        mine, _ = run(argv, io.BytesIO(stdin), digest)
        assert mine is not None
        assert out == mine.to_json(), name
    proc = _isolated(alone / BUNDLE.name, ["--writer", "x", "--repository-id", "R"],
                     b"\xff\xfe", alone)
    assert _one_verdict(proc)["reason"] == "bad_input"
    assert sorted(p.name for p in alone.iterdir()) == [BUNDLE.name]  # nothing written


def _variant(alone: Path, prelude: str) -> Path:
    """A copy of the bundle whose entry point runs ``prelude`` first."""
    out = alone / "variant.pyz"
    with zipfile.ZipFile(BUNDLE) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "__main__.py":
                data = prelude.encode() + b"\n" + data
            dst.writestr(info, data)
    return out


@pytest.mark.parametrize("prelude,caught", [
    ("open('/etc/hostname', 'rb')", "audit: open /etc/hostname"),
    ("import socket; socket.socket()", "audit: socket."),
    ("open('written.txt', 'w')", "audit: open for writing"),
    ("import subprocess; subprocess.run(['true'])", "audit: subprocess."),
])
def test_the_audit_hook_stops_a_violating_bundle(alone: Path, prelude: str,
                                                 caught: str) -> None:
    argv, pages = next((a, p) for n, _, a, p in sample_cases() if n == "valid-running")
    variant = _variant(alone, f"try:\n    {prelude}\nexcept OSError:\n    pass")
    proc = _isolated(variant, argv, json.dumps(pages).encode(), alone)
    assert proc.returncode == HOOK_EXIT, (proc.stdout, proc.stderr)
    assert proc.stderr.decode().startswith(caught), proc.stderr
    assert proc.stdout == b""
    unchanged = _variant(alone, "pass")
    _one_verdict(_isolated(unchanged, argv, json.dumps(pages).encode(), alone))
