"""``scripts/build-reader`` under hostile environments: the same bytes as the committed
bundle whatever the caller's interpreter flags, or a clear refusal (never a traceback)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "build-reader"
BUNDLE = ROOT / "readers" / "business-attempt.pyz"


def _script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("build_reader", str(SCRIPT))
    spec = importlib.util.spec_from_loader("build_reader", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _build(tmp_path: Path, *flags: str, env: dict[str, str] | None = None
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *flags, str(SCRIPT), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, **(env or {})})


@pytest.mark.skipif(sys.implementation.cache_tag != "cpython-311",
                    reason="builds under this interpreter only on CPython 3.11")
@pytest.mark.parametrize("flags,env", [
    (("-OO",), {}),
    ((), {"PYTHONOPTIMIZE": "2", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "7"}),
])
def test_optimizing_callers_build_the_committed_bytes(tmp_path: Path, flags: tuple[str, ...],
                                                      env: dict[str, str]) -> None:
    proc = _build(tmp_path, *flags, env=env)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / BUNDLE.name).read_bytes() == BUNDLE.read_bytes()


def test_the_compiler_runs_with_a_fixed_hash_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    # A stand-in compiler that reports its string hash: the real one must see the same seed.
    script = _script()
    monkeypatch.setattr(script, "COMPILER", (
        "import json, marshal, sys\n"
        "for name, source in json.loads(sys.stdin.buffer.read()):\n"
        "    data = marshal.dumps(hash(name))\n"
        "    sys.stdout.buffer.write(len(data).to_bytes(8, 'little') + data)\n"))
    seen = {script.compiled([("ghattempt/core/m.py", b"")])[0] for _ in range(4)}
    assert len(seen) == 1


def test_a_module_that_does_not_compile_is_named(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n")
    with pytest.raises(SystemExit, match=r"build-reader: .*broken\.py.*SyntaxError"):
        _script().entries(tmp_path)


def test_an_output_folder_that_is_a_file_is_refused_clearly(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("")
    proc = _build(taken)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "build-reader: cannot write" in proc.stderr and str(taken) in proc.stderr


class _Exec(Exception):
    """Stands for os.execv: the process would become the other interpreter."""


def test_a_python311_on_path_that_is_not_cpython_311_is_refused_not_exec_looped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = _script()
    # This interpreter is "not the one" and PATH's python3.11 is no better: before the
    # fix the re-executed build found itself still wrong and executed it again, forever.
    monkeypatch.setattr(script, "BYTECODE_TAG", "cpython-999")
    monkeypatch.setenv(script.REEXEC, "")  # so that teardown removes what the build sets
    monkeypatch.delenv(script.REEXEC)
    fake = tmp_path / script.BYTECODE_PYTHON
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    calls: list[list[str]] = []

    def execv(path: str, argv: list[str]) -> None:
        calls.append(argv)
        raise _Exec

    monkeypatch.setattr(script.os, "execv", execv)
    with pytest.raises(_Exec):
        script.ensure_bytecode_python()  # the first process hands over
    assert calls[0][0] == str(fake)
    with pytest.raises(SystemExit, match=rf"{fake} is {sys.implementation.cache_tag}, "
                                         r"not cpython-999"):
        script.ensure_bytecode_python()  # the handed-over process stops
    assert len(calls) == 1
