"""The reader bundle compiling its own sources (its bytecode does not fit this
interpreter): the code it runs is the code its bytecode holds, asserts included, whatever
the interpreter's -O level."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ghattempt.core.testing import sample_cases

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "readers" / "business-attempt.pyz"


# Runs the bundle given as argv[1], then reports whether the module it compiled from
# source kept its asserts (it must: the bytecode it replaces was compiled with them).
KEPT_ASSERTS = r'''
import dis, runpy, sys
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit:
    pass
code = sys.modules["ghattempt.core._journal"]._read.__code__
ops = {i.opname for i in dis.get_instructions(code)}
sys.stderr.write("asserts kept\n" if "LOAD_ASSERTION_ERROR" in ops else "asserts stripped\n")
'''


@pytest.mark.parametrize("flag", ["-O", "-OO"])
def test_sources_compiled_by_the_bundle_keep_asserts_as_its_bytecode_does(
        tmp_path: Path, flag: str) -> None:
    # Every pyc made unusable (another interpreter's magic): the sources are compiled.
    variant = tmp_path / "variant.pyz"
    with zipfile.ZipFile(BUNDLE) as src, zipfile.ZipFile(variant, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, bytes(4) + data[4:] if info.filename.endswith(".pyc") else data)
    argv, pages = next((a, p) for n, _, a, p in sample_cases() if n == "valid-successor")
    proc = subprocess.run([sys.executable, flag, "-I", "-S", "-c", KEPT_ASSERTS, str(variant),
                           *argv], input=json.dumps(pages).encode(), capture_output=True,
                          timeout=60, check=False, cwd=tmp_path)
    assert json.loads(proc.stdout)["status"] == "running"
    assert proc.stderr.decode().strip() == "asserts kept"


# Runs the bundle given as argv[1], then prints each loaded module's file name as its
# code knows it (tracebacks and warnings show it) next to its __file__.
FILE_NAMES = r'''
import runpy, sys
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit:
    pass
for name, module in sorted(sys.modules.items()):
    if name.startswith("ghattempt.core._"):
        code = next(v.__code__ for v in vars(module).values()
                    if getattr(v, "__module__", None) == name and hasattr(v, "__code__"))
        sys.stderr.write(code.co_filename + " " + module.__file__ + "\n")
'''


@pytest.mark.parametrize("unusable", [False, True])
def test_code_names_the_file_it_was_loaded_from_with_or_without_bytecode(
        tmp_path: Path, unusable: bool) -> None:
    variant = tmp_path / "variant.pyz"
    with zipfile.ZipFile(BUNDLE) as src, zipfile.ZipFile(variant, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if unusable and info.filename.endswith(".pyc"):
                data = bytes(4) + data[4:]
            dst.writestr(info, data)
    argv, pages = next((a, p) for n, _, a, p in sample_cases() if n == "valid-successor")
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", FILE_NAMES, str(variant), *argv],
                          input=json.dumps(pages).encode(), capture_output=True,
                          timeout=60, check=False, cwd=tmp_path)
    pairs = [line.split(" ") for line in proc.stderr.decode().splitlines()]
    assert len(pairs) >= 5, proc.stderr
    for code_file, module_file in pairs:
        assert code_file == module_file == f"{variant}/{module_file[len(str(variant)) + 1:]}"
