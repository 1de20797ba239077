"""The CLI with hostile arguments and files: one error line, the right exit, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import cli_env, run_cli

TOKEN = "ghp_" + "H0stileCliToken" * 2
DEEP = "[" * 100_000


def one_error_line(proc, code: int) -> str:  # type: ignore[no-untyped-def]
    err = proc.stderr.decode()
    assert proc.returncode == code, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ghattempt: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    assert TOKEN not in err and TOKEN not in proc.stdout.decode()
    return lines[0]


@pytest.mark.parametrize("value", ["nan", "inf", "NaN", "1e309"])
def test_a_timeout_that_is_not_a_finite_number_is_a_usage_error(value: str) -> None:
    proc = run_cli("status", "--repository", "octo/app", "--discussion", "1",
                   "--api-url", "http://127.0.0.1:9/", "--timeout", value,
                   env=cli_env(GITHUB_TOKEN=TOKEN))
    assert "--timeout" in one_error_line(proc, 2)


def test_deeply_nested_material_json_is_a_usage_error(tmp_path: Path) -> None:
    f = tmp_path / "a.bin"
    f.write_bytes(b"x")
    proc = run_cli("verify-material", str(f), "--material", DEEP)
    assert "--material is not JSON" in one_error_line(proc, 2)


def test_deeply_nested_capture_file_is_a_usage_error(tmp_path: Path) -> None:
    f = tmp_path / "a.bin"
    f.write_bytes(b"x")
    capture = tmp_path / "capture.json"
    capture.write_text(DEEP)
    proc = run_cli("verify-material", str(f), "--id", "m", "--capture", str(capture),
                   "--writer", "github-actions", "--repository-id", "R_1")
    assert "not UTF-8 JSON" in one_error_line(proc, 2)
