"""``record --status succeeded --then-start NEXT``: the next phase's ``started`` in the
same hold of the writer scope as the success (docs/cli.md, docs/action.md
``then-start``), with the key a separate ``record`` step would use, its lost answer
read back, the release's witness naming both records, and the refusals before any
request. Over the HTTP emulator with GitHub's fidelity defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .test_admit_start import _events, _ops, _witness
from .test_real_github import CLI_CONFIG, cli, workspace

pytestmark = pytest.mark.network

SUCCEEDED = ("record", "--pull-request", "1", "--phase", "admission", "--status",
             "succeeded")


def _started(serve: Any, tmp_path: Path) -> tuple[Any, Path]:
    """A fresh world whose attempt has admission started, and an empty request log."""
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    admit = cli(world, ws, "admit", "--pull-request", "1", "--start", "admission")
    assert admit.returncode == 0, admit.stderr
    world.emu.clear_request_log()
    return world, ws


def _digests(world: Any) -> set[str]:
    store = world.store()
    pages = store.capture_witnessed(store.locate(1, "main"))
    return {e.digest for a in store.read(pages).journal.attempts for e in a.events}


def test_the_success_and_the_next_start_are_one_hold_and_a_rerun_writes_nothing(
        serve: Any, tmp_path: Path) -> None:
    world, ws = _started(serve, tmp_path)
    step = cli(world, ws, *SUCCEEDED, "--then-start", "build")
    assert step.returncode == 0, step.stderr
    assert "recorded admission succeeded" in step.stdout
    assert "recorded build started" in step.stdout
    ops = _ops(world)
    # one lease cycle (acquire, release) around both comments
    assert ops.count("CreateCommitOnBranch") == 2, ops
    first, last = (i for i, op in enumerate(ops) if op == "CreateCommitOnBranch")
    assert [op for op in ops[first:last] if op == "AddDiscussionComment"] == [
        "AddDiscussionComment"] * 2, ops
    assert ops.count("AddDiscussionComment") == 2, ops
    events = _events(world)
    assert [(p, s) for p, s, _ in events] == [
        ("admission", "started"), ("admission", "succeeded"), ("build", "started")]
    records, last, state = _witness(world)
    assert (records, state) == (4, "released") and last in _digests(world)
    # the same step again, and the separate step (its key is the one derived here):
    # nothing written
    world.emu.clear_request_log()
    again = cli(world, ws, *SUCCEEDED, "--then-start", "build")
    assert again.returncode == 0, again.stderr
    assert "already recorded admission succeeded" in again.stdout
    assert "already recorded build started" in again.stdout
    separate = cli(world, ws, "record", "--pull-request", "1", "--phase", "build",
                   "--status", "started")
    assert separate.returncode == 0, separate.stderr
    assert "already recorded" in separate.stdout
    assert "AddDiscussionComment" not in _ops(world)
    assert _events(world) == events


def test_a_success_recorded_alone_before_gets_only_the_start(serve: Any,
                                                             tmp_path: Path) -> None:
    world, ws = _started(serve, tmp_path)
    alone = cli(world, ws, *SUCCEEDED)  # an older workflow's step, same key
    assert alone.returncode == 0, alone.stderr
    world.emu.clear_request_log()
    step = cli(world, ws, *SUCCEEDED, "--then-start", "build")
    assert step.returncode == 0, step.stderr
    assert "already recorded admission succeeded" in step.stdout
    assert _ops(world).count("AddDiscussionComment") == 1
    assert [(p, s) for p, s, _ in _events(world)] == [
        ("admission", "started"), ("admission", "succeeded"), ("build", "started")]


def test_a_next_phase_started_under_another_key_is_not_started_again(
        serve: Any, tmp_path: Path) -> None:
    world, ws = _started(serve, tmp_path)
    assert cli(world, ws, *SUCCEEDED).returncode == 0
    other = cli(world, ws, "record", "--pull-request", "1", "--phase", "build", "--status",
                "started", "--key", "someone-else-started-it")
    assert other.returncode == 0, other.stderr
    events = _events(world)
    world.emu.clear_request_log()
    step = cli(world, ws, *SUCCEEDED, "--then-start", "build")
    assert step.returncode == 0, step.stderr
    assert "build already recorded (started)" in step.stdout
    assert "AddDiscussionComment" not in _ops(world)
    assert _events(world) == events


@pytest.mark.parametrize("status", [502, 200], ids=["http502", "internal200"])
def test_a_lost_answer_on_the_started_reply_is_read_back(serve: Any, tmp_path: Path,
                                                         status: int) -> None:
    world, ws = _started(serve, tmp_path)
    world.emu.add_fault({"kind": "lose_response", "operation": "addDiscussionComment",
                         "nth": 2, "count": 1, "status": status})
    step = cli(world, ws, *SUCCEEDED, "--then-start", "build")
    assert step.returncode == 0, step.stderr
    assert any("was lost" in line and "landed" in line for line in step.stderr.splitlines())
    assert [(p, s) for p, s, _ in _events(world)] == [
        ("admission", "started"), ("admission", "succeeded"), ("build", "started")]
    records, last, _ = _witness(world)
    assert records == 4 and last in _digests(world)
    # the step run again after the lost answer: nothing new
    world.emu.clear_request_log()
    assert cli(world, ws, *SUCCEEDED, "--then-start", "build").returncode == 0
    assert "AddDiscussionComment" not in _ops(world)


@pytest.mark.parametrize(("args", "says"), [
    (("--phase", "admission", "--status", "succeeded", "--then-start", "publication"),
     "the phase after 'admission' in the plan of channel 'stable' is 'build'"),
    (("--phase", "admission", "--status", "started", "--then-start", "build"),
     "needs --status succeeded"),
    (("--phase", "publication", "--status", "succeeded", "--then-start", "admission"),
     "'publication' has no next phase"),
    (("--phase", "attempt", "--status", "cancelled", "--reason", "x", "--then-start",
      "admission"), "has no next phase"),
], ids=["not-next", "not-succeeded", "last-phase", "attempt-level"])
def test_a_then_start_the_plan_order_does_not_allow_is_refused_before_any_request(
        serve: Any, tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    world, ws = _started(serve, tmp_path)
    step = cli(world, ws, "record", "--pull-request", "1", *args)
    assert step.returncode == 2, step.stderr
    assert says in step.stderr
    assert _ops(world) == []
    assert [(p, s) for p, s, _ in _events(world)] == [("admission", "started")]

