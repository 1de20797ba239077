"""What a cold start imports: ``status --json`` loads the transport (githubkit) and
nothing a read does not use; lighter paths do not load the transport at all.

These check ``sys.modules`` of a fresh process after the command, not a time: the
time is measured by ``benchmarks/cli_start.py`` (docs/cli.md, "Start-up time").
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import ROOT, World, cli_env

NOT_ON_THE_READ_PATH = (
    "click", "pygments", "rich",            # httpx's command-line client
    "graphql",                              # documents are plain text on the read path
    "starlette", "uvicorn",                 # the App server
    "ghattempt.store._store", "ghattempt.emulator", "ghattempt.app", "ghattempt.action",
    "ghattempt.demo", "ghattempt.commands._writing", "ghattempt.render._summary",
)
"""Modules (and their submodules) a ``status --json`` process must not import. (The
store's pure protocols, ``ghattempt.store._protocol``, are on it: a capture short of its
lease's witness is read again by that module's rule.)"""

TRANSPORT = ("githubkit", "httpx", "httpcore", "pydantic", "jwt", "tenacity")


def _modules_after(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, set[str]]:
    """Run ``ghattempt ARGV`` in a fresh interpreter; its exit status and the names in
    ``sys.modules`` when it returned."""
    code = ("import json, sys\n"
            "from ghattempt.cli import main\n"
            f"rc = main({argv!r})\n"
            "sys.stdout.flush()\n"
            "sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)) + '\\n')\n"
            "sys.exit(rc)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env,
                          cwd=cwd, timeout=120)
    tail = proc.stderr.decode().rsplit("MODULES ", 1)
    assert len(tail) == 2, proc.stderr.decode()
    return proc.returncode, set(json.loads(tail[1]))


def _loaded(modules: set[str], roots: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == r or m.startswith(r + ".") for r in roots))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("startup"))
    try:
        out = w.cli("admit", "--pull-request", "1")
        assert out.returncode == 0, out.stderr
        w.number = out.stdout.decode().rsplit("/discussions/", 1)[1].strip()  # type: ignore[attr-defined]
        yield w
    finally:
        w.close()


def test_status_json_imports_the_transport_and_nothing_a_read_does_not_use(
        world: World) -> None:
    number = world.number  # type: ignore[attr-defined]
    rc, modules = _modules_after(["status", "--json", "--discussion", number], world.env(),
                                 world.workspace)
    assert rc == 0
    # the read went through githubkit (so the absences below are not vacuous)
    assert {"githubkit", "httpx", "ghattempt.github.transport", "ghattempt.core"} <= modules
    assert _loaded(modules, NOT_ON_THE_READ_PATH) == []


def test_offline_status_and_errors_do_not_import_the_transport(world: World,
                                                              tmp_path: Path) -> None:
    number = world.number  # type: ignore[attr-defined]
    capture = world.cli("capture", "--discussion", number)
    assert capture.returncode == 0, capture.stderr
    (tmp_path / "capture.json").write_bytes(capture.stdout)
    rc, modules = _modules_after(["status", "--json", "--capture",
                                  str(tmp_path / "capture.json")], cli_env(), world.workspace)
    assert rc == 0
    assert "ghattempt.core" in modules
    assert _loaded(modules, TRANSPORT) == []
    # an error line is scrubbed of secrets without loading the transport
    rc, modules = _modules_after(["status", "--repository", "octo/app", "--discussion", "1"],
                                 cli_env(), ROOT)
    assert rc == 2
    assert "ghattempt.github._redact" in modules
    assert _loaded(modules, TRANSPORT) == []


def test_github_package_names_load_on_first_use() -> None:
    code = ("import sys\n"
            "import ghattempt.github as gh\n"
            "from ghattempt.github import errors, InputError\n"
            "from ghattempt.github._redact import redact\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('httpx', 'githubkit', 'click')))\n"
            "assert gh.InputError is errors.InputError is InputError\n"
            "for name in gh.__all__:\n"
            "    getattr(gh, name)\n"
            "import click, httpx\n"                   # click still imports normally
            "print(set(dir(gh)) >= set(gh.__all__), 'httpx._main' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[]", "True False"]
    bad = subprocess.run([sys.executable, "-c", "import ghattempt.github as g; g.Nope"],
                         capture_output=True, text=True, timeout=60)
    assert "has no attribute 'Nope'" in bad.stderr
