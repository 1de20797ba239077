"""action/install.sh: the hash-checked install refuses what the lock does not pin.

Runs the real script offline against a local wheelhouse of small hand-made
distributions (pip reads PIP_NO_INDEX / PIP_FIND_LINKS from the environment).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "action" / "install.sh"


def make_wheel(folder: Path, name: str, version: str, requires: list[str] = ()) -> Path:
    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": f"VERSION = {version!r}\n",
        f"{dist}/METADATA": "Metadata-Version: 2.1\n"
        f"Name: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
    return wheel


def make_sdist(folder: Path, name: str, version: str) -> Path:
    sdist = folder / f"{name}-{version}.tar.gz"
    with tarfile.open(sdist, "w:gz") as t:
        data = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
        info = tarfile.TarInfo(f"{name}-{version}/PKG-INFO")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return sdist


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def tree(tmp_path):
    """A copy of the action's install script with its own lock and a wheelhouse."""
    (tmp_path / "action").mkdir()
    shutil.copy(ROOT / "action" / "install.sh", tmp_path / "action" / "install.sh")
    (tmp_path / "wheels").mkdir()
    return tmp_path


def install(tree: Path, lock: str) -> subprocess.CompletedProcess[str]:
    (tree / "action" / "requirements.txt").write_text(lock)
    env = dict(
        os.environ,
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(tree / "wheels"),
        PIP_CACHE_DIR=str(tree / "pip-cache"),
    )
    argv = [str(tree / "action" / "install.sh"), "deps", sys.executable, str(tree / "venv")]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)


def venv_import(tree: Path, module: str) -> subprocess.CompletedProcess[str]:
    python = tree / "venv" / "bin" / "python"
    code = f"import {module}; print({module}.VERSION)"
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=tree)


def test_pinned_hashed_wheels_install_and_nothing_else(tree):
    wheel = make_wheel(tree / "wheels", "tinypkg", "1.0", requires=["otherpkg"])
    make_wheel(tree / "wheels", "otherpkg", "2.0")
    done = install(tree, f"tinypkg==1.0 \\\n    --hash=sha256:{sha256(wheel)}\n")
    assert done.returncode == 0, done.stderr
    assert venv_import(tree, "tinypkg").stdout.strip() == "1.0"
    # --no-deps: a dependency the lock does not name is not installed
    assert venv_import(tree, "otherpkg").returncode != 0
    # the venv has no pip of its own; the base interpreter is remembered for `self`
    assert not (tree / "venv" / "bin" / "pip").exists()
    assert (tree / "venv" / ".ghattempt-base-python").read_text().strip() == sys.executable
    # --no-compile: no bytecode written at install time
    assert not list((tree / "venv").rglob("tinypkg/__pycache__"))


def test_a_file_with_another_hash_is_refused(tree):
    make_wheel(tree / "wheels", "tinypkg", "1.0")
    done = install(tree, "tinypkg==1.0 --hash=sha256:" + "0" * 64 + "\n")
    assert done.returncode != 0
    assert "DO NOT MATCH THE HASHES" in done.stderr
    assert venv_import(tree, "tinypkg").returncode != 0


def test_a_requirement_without_hash_is_refused(tree):
    make_wheel(tree / "wheels", "tinypkg", "1.0")
    done = install(tree, "tinypkg==1.0\n")
    assert done.returncode != 0
    assert "Hashes are required in --require-hashes mode" in done.stderr


def test_an_sdist_is_never_built_even_when_its_hash_is_pinned(tree):
    sdist = make_sdist(tree / "wheels", "tinypkg", "1.0")
    done = install(tree, f"tinypkg==1.0 --hash=sha256:{sha256(sdist)}\n")
    assert done.returncode != 0
    assert "No matching distribution found for tinypkg==1.0" in done.stderr


@pytest.mark.parametrize("argv", [[], ["deps", sys.executable], ["self"], ["build", "x"]])
def test_usage_errors_exit_2(argv):
    done = subprocess.run(
        [str(ROOT / "action" / "install.sh"), *argv], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert "usage:" in done.stderr


def test_self_copies_the_package_and_the_bundle_without_building(tmp_path):
    """`install.sh self` copies ghattempt/ and the reader bundle into site-packages: no
    build backend, no pip, no readers/history, no bytecode of the checkout."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (ROOT / "ghattempt" / "__pycache__").mkdir(exist_ok=True)  # the checkout has some
    done = subprocess.run([str(INSTALL), "self", str(venv)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    site = next(venv.glob("lib/python*/site-packages"))
    assert not list((site / "ghattempt").rglob("__pycache__"))
    assert not (site / "ghattempt" / "_bundle" / "history").exists()
    assert sorted(p.name for p in (site / "ghattempt" / "_bundle").iterdir()) == [
        "business-attempt.pyz", "business-attempt.pyz.sha256"]
    copied = {p.relative_to(site).as_posix() for p in (site / "ghattempt").rglob("*")
              if p.is_file() and "_bundle" not in p.parts}
    source = {p.relative_to(ROOT).as_posix() for p in (ROOT / "ghattempt").rglob("*")
              if p.is_file() and "__pycache__" not in p.parts}
    assert copied == source
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-I", "-c",
         "import ghattempt.readers as r, ghattempt; print(r.bundle_path()); "
         "print(r.reader_digest())"],
        capture_output=True, text=True, cwd=tmp_path)
    assert probe.returncode == 0, probe.stderr
    path, digest = probe.stdout.split()
    assert path.startswith(str(site))
    expected = (ROOT / "readers" / "business-attempt.pyz.sha256").read_text().split()[0]
    assert digest == "sha256:" + expected
    # a second run replaces the copy (a file gone from the source is gone from the venv)
    (site / "ghattempt" / "stale.py").write_text("")
    assert subprocess.run([str(INSTALL), "self", str(venv)], timeout=60).returncode == 0
    assert not (site / "ghattempt" / "stale.py").exists()
