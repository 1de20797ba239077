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
