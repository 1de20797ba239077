"""Every input error of a writing command is exit 2 with one line, before the first
request to GitHub: the emulator's request log stays empty (issue: "Requests checked
before anything is sent"). Each of these was refused only after the writer lease had
been taken and released (two lease commits and a raised fencing token for nothing)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import World
from .test_action import TOKEN, run_action

DIGEST = "sha256:" + "a" * 64
URL = "https://github.com/octo-org/widgets/releases/download/v1/a.tgz"
GHP = "ghp_" + "A" * 36


def _material(**changes: object) -> str:
    material = {"id": "a", "kind": "artifact", "bytes": 1, "digest": DIGEST, "url": URL}
    return json.dumps([{k: v for k, v in {**material, **changes}.items() if v is not None}])


@pytest.fixture(scope="module")
def admitted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[World, Path]]:
    """A journal with a pending attempt: every command below would find something to
    write on, were its input good."""
    tmp = tmp_path_factory.mktemp("refused")
    w = World(tmp)
    try:
        out = w.cli("admit", "--pull-request", "1")
        assert out.returncode == 0, out.stderr
        yield w, tmp
    finally:
        w.close()


RECORD = ("record", "--pull-request", "1")

CLI_CASES = [
    pytest.param([*RECORD, "--phase", "admission", "--status", "bogus"],
                 "--status 'bogus' is not allowed for phase 'admission'", id="status-unknown"),
    pytest.param([*RECORD, "--phase", "attempt", "--status", "started"],
                 "--status 'started' is not allowed for an attempt-level event",
                 id="status-not-of-the-kind"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "waiting"],
                 "needs a reason of 1..1024 characters; pass --reason TEXT",
                 id="reason-missing"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--reason", "why"],
                 "--status started takes no reason; leave out --reason", id="reason-on-started"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "succeeded", "--reason", "why"],
                 "--status succeeded takes no reason", id="reason-on-succeeded"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "failed", "--reason", "x" * 1025],
                 "--reason is not a reason (1..1024 characters): it has 1025",
                 id="reason-too-long"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--materials", "{"],
                 "--materials is not UTF-8 JSON", id="materials-json"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--materials",
                  _material(bytes="12")],
                 "--materials[0].bytes is not an integer >= 0", id="materials-shape"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--materials",
                  _material(url=None)], "--materials[0] lacks 'url'", id="materials-field"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--materials",
                  _material(kind="tarball")], "--materials[0].kind is not one of",
                 id="materials-kind"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--materials",
                  _material(id=GHP)], "--materials[0] holds a token or key",
                 id="materials-secret"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--key", GHP],
                 "--key holds a token or key", id="key-secret"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--actor", GHP],
                 "--actor holds a token or key", id="actor-secret"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--actor", "a" * 300],
                 "writer.actor is not a name (1..256 characters)", id="actor-too-long"),
    pytest.param([*RECORD, "--phase", "admission", "--status", "started", "--then-start",
                  "build"], "--then-start 'build' needs --status succeeded",
                 id="then-start-not-succeeded"),
    pytest.param(["rollback", "--pull-request", "1", "--status", "failed"],
                 "--status failed needs a reason", id="rollback-reason-missing"),
    pytest.param(["expire", "--pull-request", "1", "--reason", "x" * 1025],
                 "--reason is not a reason", id="expire-reason-too-long"),
    pytest.param(["supersede", "--pull-request", "1", "--reason", "x" * 1025],
                 "--reason is not a reason", id="supersede-reason-too-long"),
    pytest.param(["admit", "--pull-request", "1", "--authorization", "has space"],
                 "--authorization must be 1-128 characters", id="authorization-shape"),
]


@pytest.mark.parametrize(("argv", "said"), CLI_CASES)
def test_the_cli_refuses_bad_input_before_any_request(admitted: tuple[World, Path],
                                                      argv: list[str], said: str) -> None:
    world, _ = admitted
    world.emulator.clear_request_log()
    out = world.cli(*argv)
    err = out.stderr.decode()
    assert out.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ghattempt: error: "), err
    assert said in lines[0], lines[0]
    assert GHP not in err
    assert world.emulator.request_log() == []  # not even who the token is


def test_the_same_commands_with_good_input_do_send(admitted: tuple[World, Path]) -> None:
    """The control: the log is where the requests would be."""
    world, _ = admitted
    world.emulator.clear_request_log()
    out = world.cli(*RECORD, "--phase", "admission", "--status", "started",
                    "--materials", _material())
    assert out.returncode == 0, out.stderr
    assert len(world.emulator.request_log()) > 2


ACTION_CASES = [
    pytest.param({"phase": "admission", "status": "bogus"},
                 "input 'status' 'bogus' is not allowed for phase 'admission'",
                 id="status-unknown"),
    pytest.param({"phase": "attempt", "status": "started"},
                 "is not allowed for an attempt-level event", id="status-not-of-the-kind"),
    pytest.param({"phase": "admission", "status": "waiting"},
                 "needs a reason of 1..1024 characters; pass input 'reason' TEXT",
                 id="reason-missing"),
    pytest.param({"phase": "admission", "status": "started", "reason": "why"},
                 "takes no reason; leave out input 'reason'", id="reason-on-started"),
    pytest.param({"phase": "admission", "status": "failed", "reason": "x" * 1025},
                 "input 'reason' is not a reason (1..1024 characters)", id="reason-too-long"),
    pytest.param({"phase": "admission", "status": "started", "materials": "[{"},
                 "input 'materials' is not UTF-8 JSON", id="materials-json"),
    pytest.param({"phase": "admission", "status": "started", "materials": _material(bytes="1")},
                 "input 'materials'[0].bytes is not an integer >= 0", id="materials-shape"),
    pytest.param({"phase": "admission", "status": "started", "materials": _material(id=GHP)},
                 "input 'materials'[0] holds a token or key", id="materials-secret"),
    pytest.param({"phase": "admission", "status": "started", "key": "has space"},
                 "input 'key' must be 1-128 characters", id="key-shape"),
    pytest.param({"phase": "admission", "status": "started", "request_key": GHP},
                 "input 'request-key' holds a token or key", id="request-key-secret"),
]


@pytest.mark.parametrize(("inputs", "said"), ACTION_CASES)
def test_the_action_refuses_bad_input_before_any_request(
        admitted: tuple[World, Path], inputs: dict[str, str], said: str) -> None:
    world, tmp = admitted
    world.emulator.clear_request_log()
    step = run_action(world, tmp, "record", **inputs)
    assert step.rc == 2, step.stdout + step.stderr
    errors = [line for line in step.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and said in errors[0], step.stdout
    assert "--" not in errors[0].split("::", 2)[2]  # the Action's words, not the CLI's
    assert GHP not in step.stdout + step.stderr and TOKEN not in step.stderr
    assert step.outputs == {}
    assert world.emulator.request_log() == []


def test_the_action_plans_refuse_bad_input_before_any_request(
        admitted: tuple[World, Path]) -> None:
    world, tmp = admitted
    world.emulator.clear_request_log()
    step = run_action(world, tmp, "plan", plan_command="record", phase="build",
                      status="succeeded", reason="no reason is taken")
    assert step.rc == 2, step.stdout
    assert "takes no reason" in step.stdout
    assert world.emulator.request_log() == []
