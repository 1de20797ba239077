"""action.yml end to end: its steps run the way a runner runs a composite action.

A small interpreter executes the Action's steps in order: it evaluates the ``${{ }}``
expressions the file uses (``inputs``, ``steps.<id>.outputs``, ``github``, ``runner``,
``!=``, ``==``, ``&&``), skips a step whose ``if`` is false, runs ``shell: bash`` steps
with ``bash --noprofile --norc -eo pipefail`` and a fresh ``$GITHUB_OUTPUT`` each, and
maps the action's outputs from the steps' outputs. The two ``uses:`` steps are played by
the test: setup-python answers with this interpreter, and the cache is never consulted
because the venv is already complete (as on a second use of the Action in one job), so
nothing is downloaded. ``python -m ghattempt.action`` then talks to the emulator over
HTTP on 127.0.0.1.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from ghattempt.config import PHASES
from ghattempt.demo import Demo, emulator

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ghs_actions"  # noqa: S105 -- the emulator fixture's Actions bot, opens nothing else
CONFIG = """\
[journal]
category = "release-journal"

[channels.stable]
plan = ["admission", "build", "review", "warrant", "merge", "publication",
        "distribution", "next-development"]

[lease]
length = 120
request_timeout = 20

[pacing]
write_interval = 0
"""
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class StepRun:
    name: str
    ran: bool
    rc: int = 0
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


@dataclass
class Result:
    rc: int
    outputs: dict[str, str]
    steps: list[StepRun]

    def step(self, name: str) -> StepRun:
        return next(s for s in self.steps if s.name == name)


class CompositeRunner:
    """Runs action.yml's steps for one use of the Action."""

    def __init__(self, work: Path, base_env: dict[str, str], github: dict[str, str]):
        self.doc = yaml.safe_load((ROOT / "action.yml").read_text())
        self.work = work
        self.base_env = base_env
        self.github = github
        self.runner = {"os": "Linux", "arch": "X64", "temp": base_env["RUNNER_TEMP"]}
        self.uses = 0

    def run(self, **with_: str) -> Result:
        self.uses += 1
        inputs: dict[str, str] = {}
        for name, spec in self.doc["inputs"].items():
            if name in with_:
                inputs[name] = with_[name]
            elif spec.get("required"):
                raise AssertionError(f"input {name} is required")
            else:
                inputs[name] = self.interpolate(str(spec.get("default", "")), {}, {})
        steps: dict[str, dict[str, str]] = {}
        log: list[StepRun] = []
        rc = 0
        for step in self.doc["runs"]["steps"]:
            name = step["name"]
            cond = step.get("if")
            if rc != 0 or (cond and not self.truthy(self.evaluate(cond, inputs, steps))):
                log.append(StepRun(name, ran=False))
                continue
            record = self.play(step, inputs, steps)
            log.append(record)
            if "id" in step:
                steps[step["id"]] = record.outputs
            rc = record.rc
        outputs = {
            name: self.interpolate(spec["value"], inputs, steps)
            for name, spec in self.doc["outputs"].items()
        }
        return Result(rc, outputs, log)

    def play(self, step: dict[str, Any], inputs: dict[str, str], steps: dict) -> StepRun:
        uses = step.get("uses", "")
        if uses.startswith("actions/setup-python@"):
            assert step["with"]["update-environment"] is False
            base = Path(sys._base_executable)  # the interpreter under this test's venv
            return StepRun(
                step["name"],
                ran=True,
                outputs={"python-path": str(base), "python-version": platform.python_version()},
            )
        if uses:
            raise AssertionError(f"step {step['name']!r} ({uses}) was not expected to run")
        env = dict(self.base_env)
        for key, value in (step.get("env") or {}).items():
            env[key] = self.interpolate(str(value), inputs, steps)
        out = self.work / f"use{self.uses}-{step.get('id', 'step')}.output"
        out.write_text("")
        env["GITHUB_OUTPUT"] = str(out)
        script = self.work / "step.sh"
        script.write_text(step["run"])
        argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
        done = subprocess.run(
            argv,
            env=env,
            cwd=env["GITHUB_WORKSPACE"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        return StepRun(
            step["name"], True, done.returncode, done.stdout, done.stderr, read_outputs(out)
        )

    # -- expressions: the subset action.yml uses
    def interpolate(self, text: str, inputs: dict[str, str], steps: dict) -> str:
        return EXPR.sub(lambda m: self.as_string(self.evaluate(m.group(1), inputs, steps)), text)

    def evaluate(self, expr: str, inputs: dict[str, str], steps: dict) -> Any:
        expr = expr.strip()
        if "&&" in expr:
            parts = [self.evaluate(p, inputs, steps) for p in expr.split("&&")]
            return all(self.truthy(p) for p in parts)
        for op in ("!=", "=="):
            if op in expr:
                left, right = (self.evaluate(p, inputs, steps) for p in expr.split(op, 1))
                equal = str(left) == str(right)
                return equal if op == "==" else not equal
        if expr.startswith("'") and expr.endswith("'"):
            return expr[1:-1]
        head, _, rest = expr.partition(".")
        if head == "inputs":
            return inputs[rest]
        if head == "steps":
            step_id, _, output = rest.partition(".outputs.")
            return steps.get(step_id, {}).get(output, "")
        if head == "github":
            return self.github[rest]
        if head == "runner":
            return self.runner[rest]
        raise AssertionError(f"expression not understood by the test runner: {expr}")

    @staticmethod
    def truthy(value: Any) -> bool:
        return bool(value) and value != "false"

    @staticmethod
    def as_string(value: Any) -> str:
        return str(value).lower() if isinstance(value, bool) else str(value)


def read_outputs(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        name, sep, value = lines[i].partition("=")
        if not sep and "<<" in lines[i]:
            name, delim = lines[i].split("<<", 1)
            j = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : j])
            i = j + 1
            continue
        out[name] = value
        i += 1
    return out


def complete_venv(runner: CompositeRunner, venv: Path) -> None:
    """Make ``venv`` what the install steps leave: ghattempt and its locked dependencies
    importable (here: from this checkout and the test environment) and both markers."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python*/site-packages"))
    deps = sysconfig.get_paths()["purelib"]
    (site / "ghattempt-under-test.pth").write_text(f"{ROOT}\n{deps}\n")
    prep = next(s for s in runner.doc["runs"]["steps"] if s.get("id") == "prep")
    probe = runner.play(prep, {}, {})
    assert probe.rc == 0, probe.stderr
    (venv / ".ghattempt-lock").write_text(probe.outputs["lock-hash"])
    (venv / ".ghattempt-self").write_text(probe.outputs["self-hash"])


def write_event(runner: CompositeRunner, head: str) -> None:
    """The triggering event's payload (``GITHUB_EVENT_PATH``): a ``pull_request`` event
    of pull request #1 at head commit ``head``."""
    Path(runner.base_env["GITHUB_EVENT_PATH"]).write_text(
        json.dumps(
            {
                "number": 1,
                "pull_request": {
                    "number": 1,
                    "base": {"ref": "main"},
                    "head": {"ref": "feature", "sha": head},
                },
            }
        )
    )


@contextmanager
def composite_world(work: Path) -> Iterator[tuple[CompositeRunner, Demo]]:
    """The emulator with pull request #1 (its release configuration pushed), a workspace,
    the event of its head, and a runner whose venv is complete."""
    with emulator(work) as api_url:
        demo = Demo(work, api_url=api_url, quiet=True)
        head = demo.push(".github/ghattempt.toml", CONFIG.encode(), "Add release config")
        workspace = work / "workspace"
        (workspace / ".github").mkdir(parents=True)
        (workspace / ".github" / "ghattempt.toml").write_text(CONFIG)
        runner_temp = work / "runner-temp"
        runner_temp.mkdir()
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GITHUB_", "GHATTEMPT_", "INPUT_", "RUNNER_"))
        }
        env.update(
            {
                "GITHUB_ACTIONS": "true",
                "CI": "true",
                "GHATTEMPT_PROGRESS": "0",
                "GITHUB_ACTION_PATH": str(ROOT),
                "RUNNER_TEMP": str(runner_temp),
                "GITHUB_WORKSPACE": str(workspace),
                "GITHUB_REPOSITORY": "octo-org/widgets",
                "GITHUB_API_URL": api_url,
                "GITHUB_SERVER_URL": "https://github.com",
                "GITHUB_RUN_ID": "9001",
                "GITHUB_RUN_ATTEMPT": "1",
                "GITHUB_JOB": "release",
                "GITHUB_WORKFLOW": "release",
                "GITHUB_EVENT_NAME": "pull_request",
                "GITHUB_EVENT_PATH": str(work / "event.json"),
                "GITHUB_STEP_SUMMARY": str(work / "summary.md"),
            }
        )
        runner = CompositeRunner(work, env, {"token": TOKEN, "repository": "octo-org/widgets"})
        write_event(runner, head)
        complete_venv(runner, runner_temp / "ghattempt-venv")
        yield runner, demo


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with composite_world(tmp_path_factory.mktemp("composite")) as (runner, _demo):
        yield runner


def test_admit_record_and_status_through_action_yml(world):
    admitted = world.run(command="admit")
    run = admitted.step("Run ghattempt")
    assert admitted.rc == 0, run.stdout + run.stderr
    # the venv was complete: nothing restored, nothing installed
    for skipped in (
        "Restore the ghattempt environment",
        "Install pinned, hash-checked dependencies",
        "Install ghattempt",
    ):
        assert not admitted.step(skipped).ran, skipped
    # the token is masked before anything else is printed, and never printed otherwise
    assert run.stdout.startswith(f"::add-mask::{TOKEN}\n")
    assert TOKEN not in run.stdout.split("\n", 1)[1] + run.stderr
    out = admitted.outputs
    assert set(out) == {
        "outcome",  # command run's three: empty for the others
        "exit-code",
        "materials-json",
        "status",
        "recovery",
        "attempt",
        "generation",
        "missing-phases",
        "missing-phases-json",
        "next-phase",
        "ignored",
        "journal-url",
        "timeline",
        "plan-json",
        "probe-report",  # command probe's: empty for the others
    }
    assert json.loads(out["missing-phases-json"]) == list(PHASES)
    assert out["next-phase"] == "admission"
    # the timeline page is written in RUNNER_TEMP, for actions/upload-artifact
    assert out["timeline"].startswith(world.base_env["RUNNER_TEMP"])
    assert "<svg" in Path(out["timeline"]).read_text()
    assert out["status"] == "pending"
    assert out["recovery"] == "continue:admission"
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", out["attempt"])
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", out["generation"])
    assert out["missing-phases"] == " ".join(PHASES)
    assert re.fullmatch(r"https://github\.com/octo-org/widgets/discussions/\d+", out["journal-url"])

    started = world.run(command="record", phase="admission", status="started")
    assert started.rc == 0, started.step("Run ghattempt").stdout
    assert started.outputs["status"] == "running"
    assert started.outputs["attempt"] == out["attempt"]

    done = world.run(command="record", phase="admission", status="succeeded")
    assert done.rc == 0
    assert done.outputs["missing-phases"] == " ".join(PHASES[1:])
    assert done.outputs["recovery"] == "continue:build"

    status = world.run(command="status")
    assert status.rc == 0
    assert status.outputs == done.outputs | {"timeline": status.outputs["timeline"]}
    summary = Path(world.base_env["GITHUB_STEP_SUMMARY"]).read_text()
    assert out["journal-url"] in summary and TOKEN not in summary


def test_a_bad_input_fails_the_step_with_one_annotation_and_writes_nothing(world):
    before = world.run(command="status")
    bad = world.run(command="deploy")
    run = bad.step("Run ghattempt")
    assert bad.rc == 2
    errors = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "deploy" in errors[0]
    assert bad.outputs["status"] == ""  # no outputs on bad input
    assert world.run(command="status").outputs == before.outputs


def test_inputs_are_not_interpreted_by_the_shell(world):
    # a reason full of shell syntax reaches the program verbatim through env:
    marker = world.work / "pwned"
    reason = f'$(touch {marker}) `touch {marker}` "; touch {marker}; echo "'
    result = world.run(command="record", phase="build", status="waiting", reason=reason)
    assert not marker.exists()
    assert result.rc == 0, result.step("Run ghattempt").stdout
    assert result.outputs["status"] == "waiting"


def test_hash_of_this_checkout_matches_the_marker_the_install_step_writes(world):
    lock = hashlib.sha256((ROOT / "action" / "requirements.txt").read_bytes()).hexdigest()
    venv = Path(world.base_env["RUNNER_TEMP"]) / "ghattempt-venv"
    assert (venv / ".ghattempt-lock").read_text() == lock


# ------------------------------------------- a step of a run for an older head (head)


def journal_records(runner: CompositeRunner) -> int:
    """How many records the journal holds (every comment and reply holding one carries
    the record marker; the discussion's body counts as one), from a capture."""
    done = subprocess.run(
        [sys.executable, "-m", "ghattempt.cli", "capture", "--pull-request", "1"],
        env=dict(runner.base_env, GITHUB_TOKEN=TOKEN),
        cwd=runner.base_env["GITHUB_WORKSPACE"],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.count(b"<!-- ghattempt:v1 -->")


def refusal(result: Result) -> str:
    run = result.step("Run ghattempt")
    assert result.rc == 1, run.stdout + run.stderr
    (error,) = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    return error


def test_the_event_head_refuses_a_step_of_a_run_for_an_older_head(tmp_path):
    with composite_world(tmp_path) as (runner, demo):
        old = demo.head()
        assert runner.run(command="admit").rc == 0
        # the event's head is the attempt's: checked, and recorded
        assert runner.run(command="record", phase="admission", status="started").rc == 0
        new = demo.push("src/x.txt", b"x\n", "a push")
        # the push's run (its event at head B) supersedes attempt 1, of head A: the event's
        # head is not the default of a `superseded` record, which is about an older head
        write_event(runner, new)
        superseded = runner.run(
            command="record", phase="attempt", status="superseded", reason="a push"
        )
        assert superseded.rc == 0, superseded.step("Run ghattempt").stdout
        successor = runner.run(command="successor")
        assert successor.rc == 0, successor.step("Run ghattempt").stdout
        second = successor.outputs["attempt"]
        records, before = journal_records(runner), runner.run(command="status").outputs

        # a re-run of the first run's step: its event is at head A
        write_event(runner, old)
        stale = refusal(runner.run(command="record", phase="admission", status="started"))
        assert f"attempt {second} is of head {new[:12]}, not {old[:12]}" in stale
        assert "older (or other) head" in stale and "nothing was recorded" in stale
        # with then-start: neither record
        then = runner.run(
            command="record", phase="admission", status="succeeded", **{"then-start": "build"}
        )
        assert f"not {old[:12]}" in refusal(then)
        # an explicit input wins over the event: head A in a run whose event is at B
        write_event(runner, new)
        explicit = refusal(
            runner.run(command="record", phase="admission", status="started", head=old)
        )
        assert f"attempt {second} is of head {new[:12]}, not {old[:12]}" in explicit
        assert journal_records(runner) == records
        assert runner.run(command="status").outputs == before

        # and head B in a run whose event is at A records on attempt 2
        write_event(runner, old)
        current = runner.run(command="record", phase="admission", status="started", head=new)
        assert current.rc == 0, current.step("Run ghattempt").stdout
        assert (current.outputs["attempt"], current.outputs["status"]) == (second, "running")
        assert journal_records(runner) == records + 1


def test_supersede_after_a_push_and_its_rerun_writes_nothing(tmp_path):
    """The Action's ``supersede``: a push's run supersedes the old head's attempt; a
    re-run of that run finds the attempt already of the current generation and writes
    nothing (a ``record`` of ``superseded`` would supersede the new head's own)."""
    with composite_world(tmp_path) as (runner, demo):
        first = runner.run(command="admit").outputs["attempt"]
        new = demo.push("src/x.txt", b"x\n", "a push")
        write_event(runner, new)
        done = runner.run(command="supersede")
        assert done.rc == 0, done.step("Run ghattempt").stdout
        second = done.outputs["attempt"]
        assert second != first and done.outputs["status"] == "pending"
        records, before = journal_records(runner), runner.run(command="status").outputs
        again = refusal(runner.run(command="supersede"))
        assert f"attempt {second} is already of the current generation" in again
        assert "nothing to supersede" in again
        assert journal_records(runner) == records
        assert runner.run(command="status").outputs == before
