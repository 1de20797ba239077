"""The reader CLI and its bundle: arguments, output, exit codes, any input, and
byte-reproducible builds (docs/journal-format.md sections 6 and 10)."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ghattempt.core._reader_main import run
from ghattempt.core.testing import Scenario
from ghattempt.readers import bundle_path, reader_digest

REPO = Path(__file__).resolve().parents[2]
BUNDLE = REPO / "readers" / "business-attempt.pyz"
BASE = ["--writer", "github-actions", "--repository-id", "R_kgDOTest0001"]
OUTPUT_KEYS = ["reader", "status", "reason", "intent", "request_key", "attempt", "generation",
               "missing_phases", "recovery", "attempts", "ignored", "detail"]


def invoke(argv: list[str], stdin: bytes) -> tuple[int, dict[str, object] | str]:
    verdict, usage = run(argv, io.BytesIO(stdin), "sha256:" + "0" * 64)
    if verdict is None:
        return 0, usage
    return verdict.exit_code, verdict.to_json()


def capture() -> bytes:
    s = Scenario()
    s.attempt(plan=("build",)).event("build", "started")
    return json.dumps(s.pages()).encode()


@pytest.mark.parametrize("argv", [
    [],
    ["--writer", "github-actions"],
    ["--repository-id", "R"],
    BASE + ["--writer", "x"],
    BASE + ["--since", "x"],
    BASE + ["stray"],
    ["--writer=github-actions", "--repository-id", "R"],
    BASE + ["--request-key"],
    BASE + ["--writer-id", "0"],
    BASE + ["--writer-id", "+1"],
    BASE + ["--writer-id", "1.0"],
    BASE + ["--writer-id", "\u0661"],
    BASE + ["--max-records", "-3"],
    BASE + ["--max-attempts", ""],
    BASE + ["--request-key", "no spaces"],
    BASE + ["--request-key", "x" * 129],
    BASE + ["--server-url", "github.com"],
    BASE + ["--server-url", "https://github.com/api/v3"],
    BASE + ["--server-url", "https://github.com//"],
    BASE + ["--server-url", "https://user@github.com"],
])
def test_bad_arguments(argv: list[str]) -> None:
    code, out = invoke(argv, capture())
    assert code == 2
    assert isinstance(out, dict)
    assert (out["status"], out["reason"], out["recovery"]) == ("invalid", "bad_arguments",
                                                               "fail-closed")


def test_a_flag_with_an_equals_sign_is_named_and_a_stray_argument_is_not() -> None:
    _, out = invoke(["--writer=github-actions", "--repository-id", "R"], capture())
    assert isinstance(out, dict)
    assert "write --writer VALUE, not --writer=VALUE" in out["detail"]
    _, out = invoke(BASE + ["ghp_" + "a" * 36], capture())
    assert isinstance(out, dict)
    assert "an argument that is not a flag name (not shown: it may be a secret)" in out["detail"]
    assert "ghp_" not in json.dumps(out)


@pytest.mark.parametrize("argv", [
    BASE + ["--writer-id", "41898282", "--max-records", "0010", "--max-attempts", "9" * 40],
    BASE + ["--server-url", "http://127.0.0.1:8080/"],
    BASE + ["--server-url", "https://ghe.example.com"],
    BASE + ["--request-key", "merge/pr-42@main"],
    ["--repository-id", "R_kgDOTest0001", "--writer", "github-actions"],
    # the token after a flag is always its value:
    ["--writer", "--repository-id", "--repository-id", "R_kgDOTest0001"],
])
def test_good_arguments(argv: list[str]) -> None:
    code, out = invoke(argv, capture())
    assert isinstance(out, dict) and out["reason"] != "bad_arguments"
    assert code in (0, 3)


def test_request_key_of_bad_arguments_is_reported_when_valid() -> None:
    _, out = invoke(BASE + ["--request-key", "release/v1", "--bogus", "1"], capture())
    assert isinstance(out, dict) and out["request_key"] == "release/v1"
    _, out = invoke(BASE + ["--request-key", "bad key", "--bogus", "1"], capture())
    assert isinstance(out, dict) and out["request_key"] is None


@pytest.mark.parametrize("argv", [["--help"], BASE + ["--bogus", "--help"],
                                  ["--writer", "--help"]])
def test_help_wins(argv: list[str]) -> None:
    code, out = invoke(argv, b"garbage")
    assert code == 0 and isinstance(out, str)
    assert "exit status" in out and "--writer" in out


@pytest.mark.parametrize("stdin", [b"", b"\xff\xfe", b"{", b"NaN", b"[NaN]", b"\xef\xbb\xbf{}",
                                   b"[]", b"{}", b"[1]", b'"x"', b"[" * 100000])
def test_bad_input(stdin: bytes) -> None:
    code, out = invoke(BASE, stdin)
    assert code == 2 and isinstance(out, dict)
    assert out["reason"] == "bad_input"


def test_output_object_has_exactly_the_spec_keys() -> None:
    code, out = invoke(BASE, capture())
    assert code == 0 and isinstance(out, dict)
    assert list(out) == OUTPUT_KEYS
    assert out["status"] == "running"


def test_random_bytes_always_end_in_one_verdict() -> None:
    rng = random.Random(7)
    good = capture()
    for i in range(300):
        if i % 3 == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
        else:
            data = bytearray(good)
            for _ in range(rng.randrange(1, 6)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            data = bytes(data)
        code, out = invoke(BASE, data)
        assert isinstance(out, dict) and list(out) == OUTPUT_KEYS
        assert code in (0, 2, 3)
        assert (code == 0) == (out["status"] != "invalid")


def run_bundle(argv: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, str(BUNDLE), *argv], input=stdin,
                          capture_output=True, timeout=60)


def test_bundle_prints_one_line_and_its_own_digest() -> None:
    proc = run_bundle(BASE, capture())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(b"\n") and proc.stdout.count(b"\n") == 1
    out = json.loads(proc.stdout)
    assert out["reader"] == reader_digest()
    assert proc.stderr == b""


@pytest.mark.parametrize("stdin,code", [(b"\x00\x01garbage", 2), (b'[{"data":{}}]', 2)])
def test_bundle_never_shows_a_traceback(stdin: bytes, code: int) -> None:
    proc = run_bundle(BASE, stdin)
    assert proc.returncode == code
    assert b"Traceback" not in proc.stderr
    json.loads(proc.stdout)


def test_bundle_exit_3_on_invalid() -> None:
    proc = run_bundle(["--writer", "someone-else", "--repository-id", "R_kgDOTest0001"],
                      capture())
    assert proc.returncode == 3
    assert json.loads(proc.stdout)["reason"] == "untrusted_journal"


def test_bundle_is_reproducible_and_matches_the_committed_digest(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "build-reader"),
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rebuilt = (tmp_path / "business-attempt.pyz").read_bytes()
    assert rebuilt == BUNDLE.read_bytes(), "rebuild the bundle: scripts/build-reader"
    assert (tmp_path / "business-attempt.pyz.sha256").read_text() == (
        REPO / "readers" / "business-attempt.pyz.sha256").read_text()
    assert bundle_path() == BUNDLE


def test_bundle_is_a_plain_zipapp_of_the_core_sources() -> None:
    """No bytecode, no finder: ``__main__.py``, an empty package and the sources."""
    data = BUNDLE.read_bytes()
    assert data.startswith(b"#!/usr/bin/env python3\n")
    with zipfile.ZipFile(BUNDLE) as archive:
        names = archive.namelist()
        infos = archive.infolist()
        contents = {n: archive.read(n) for n in names}
    assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in infos)
    assert all((i.external_attr >> 16) == 0o100644 for i in infos)
    assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)
    core = sorted((REPO / "ghattempt" / "core").glob("*.py"))
    sources = {f"ghattempt/core/{p.name}": p.read_bytes() for p in core
               if p.name != "testing.py"}
    assert names == ["__main__.py", "ghattempt/__init__.py", *sources]
    assert contents["ghattempt/__init__.py"] == b""
    assert all(contents[name] == source for name, source in sources.items())
    main = contents["__main__.py"].decode("ascii")
    assert "meta_path" not in main and "marshal" not in main and "_imp" not in main


def test_bundle_runs_without_the_package_installed(tmp_path: Path) -> None:
    """A fresh interpreter that can see only the bundle (isolated mode, empty cwd)."""
    proc = subprocess.run([sys.executable, "-I", "-S", str(BUNDLE), *BASE], input=capture(),
                          capture_output=True, timeout=60, cwd=tmp_path,
                          env={"PATH": os.environ.get("PATH", "")})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "running"


def test_stray_tokens_are_not_echoed() -> None:
    _, out = invoke(BASE + ["--token=ghp_secretsecretsecret"], capture())
    assert isinstance(out, dict) and "ghp_" not in json.dumps(out)
    _, out = invoke(BASE + ["--since", "x"], capture())
    assert isinstance(out, dict) and "--since" in str(out["detail"])
