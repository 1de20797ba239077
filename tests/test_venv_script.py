"""scripts/venv.sh (sourced by scripts/test and scripts/demo): an interpreter older than
3.11 is refused in one line before anything is installed; a .venv made by another Python
is made again; each set of extras is installed once. Driven by fake interpreters (shell
scripts answering the few questions the script asks), so nothing is installed here."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAKE = """#!/bin/sh
# a fake Python {version}: answers the version questions scripts/venv.sh asks, makes a
# fake venv, and logs every other call
echo "$0 $*" >> "{log}"
case "$*" in
  *"print("*) echo {version} ;;
  *"sys.exit("*) [ "{old}" = no ] ;;
  "-m venv .venv") mkdir -p .venv/bin && cp "$0" .venv/bin/python ;;
  *) exit 0 ;;
esac
"""


def _fake(path: Path, version: str, log: Path) -> Path:
    old = "yes" if tuple(map(int, version.split("."))) < (3, 11) else "no"
    path.write_text(FAKE.format(version=version, log=log, old=old))
    path.chmod(0o755)
    return path


def _run(tmp: Path, python: Path, extras: str = "emulator") -> subprocess.CompletedProcess[str]:
    if not (tmp / "pyproject.toml").exists():  # older than the stamps made after it
        (tmp / "pyproject.toml").touch()
    script = f'set -euo pipefail; . "{ROOT / "scripts" / "venv.sh"}"; ghattempt_venv {extras}'
    env = {**os.environ, "PYTHON": str(python)}
    return subprocess.run(["bash", "-c", script], cwd=tmp, env=env, capture_output=True,
                          text=True, timeout=30)


def test_an_old_python_is_refused_in_one_line_before_anything(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    proc = _run(tmp_path, _fake(tmp_path / "python3.9", "3.9", log))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs Python 3.11 or newer" in lines[0] and "3.9" in lines[0]
    assert not (tmp_path / ".venv").exists()
    assert "-m venv" not in log.read_text() and "pip" not in log.read_text()


def test_a_venv_of_another_python_is_made_again_and_extras_installed_once(
        tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    old = _fake(tmp_path / "python3.9", "3.9", log)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").write_bytes(old.read_bytes())
    (tmp_path / ".venv" / "bin" / "python").chmod(0o755)
    new = _fake(tmp_path / "python3.11", "3.11", log)
    proc = _run(tmp_path, new)
    assert proc.returncode == 0, proc.stderr
    assert "made by Python 3.9, not 3.11: making it again" in proc.stderr
    calls = log.read_text()
    assert "-m venv .venv" in calls
    assert calls.count("-m pip install") == 1 and ".[emulator]" in calls
    assert (tmp_path / ".venv" / ".ghattempt-installed-emulator").exists()
    # the same extras again: nothing installed; other extras: installed once
    assert _run(tmp_path, new).returncode == 0
    assert log.read_text().count("-m pip install") == 1
    assert _run(tmp_path, new, "test").returncode == 0
    assert log.read_text().count("-m pip install") == 2
