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

CONFIG = CLI_CONFIG + """
[lease]
length = 60
request_timeout = 5
clock_skew = 1
acquire_timeout = 30
"""
"""GitHub's defaults but a short lease: the re-run after a lost answer waits out the
quiet period of that answer's window (docs/exclusion.md), seconds instead of a minute."""

pytestmark = pytest.mark.network

SUCCEEDED = ("record", "--pull-request", "1", "--phase", "admission", "--status",
             "succeeded")


def _started(serve: Any, tmp_path: Path) -> tuple[Any, Path]:
    """A fresh world whose attempt has admission started, and an empty request log."""
    world = serve()
    ws = workspace(tmp_path, CONFIG)
    admit = cli(world, ws, "admit", "--pull-request", "1", "--start", "admission")
    assert admit.returncode == 0, admit.stderr
    world.emu.clear_request_log()
    return world, ws


def _digests(world: Any) -> set[str]:
    store = world.store()
    capture = store.capture_witnessed(store.locate(1, "main")).capture
    return {e.digest for a in store.read(capture).journal.attempts for e in a.events}


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
     "needs --status succeeded, not 'started': the next phase starts once this one"),
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



def test_an_earlier_record_of_next_on_a_failed_attempt_is_no_success(
        serve: Any, tmp_path: Path) -> None:
    """NEXT already failed (under another run's keys): the step is refused as a separate
    ``started`` step is (``rewritten_terminal``, exit 1), never exit 0 for a terminal
    attempt, and nothing is written."""
    world, ws = _started(serve, tmp_path)
    assert cli(world, ws, *SUCCEEDED).returncode == 0
    for status, key in (("started", "other-run-started"), ("failed", "other-run-failed")):
        extra = ("--reason", "tests failed") if status == "failed" else ()
        done = cli(world, ws, "record", "--pull-request", "1", "--phase", "build",
                   "--status", status, "--key", key, *extra)
        assert done.returncode == 0, done.stderr
    events = _events(world)
    step = cli(world, ws, *SUCCEEDED, "--then-start", "build")
    assert step.returncode == 1, step.stdout + step.stderr
    assert "rewritten_terminal" in step.stderr
    assert _events(world) == events


def test_next_is_checked_against_the_attempts_own_plan_before_any_write(
        serve: Any, tmp_path: Path) -> None:
    """One request key for every channel: the attempt admitted in channel ``beta`` (plan
    admission, review, publication); ``--then-start build`` passes the configuration's
    default channel, and is refused on the attempt's plan before its success is
    written (exit 2)."""
    config = CONFIG.replace('[attempt]\ndefault_channel = "stable"\n',
                            '[channels.beta]\nplan = ["admission", "review", "publication"]\n'
                            '\n[attempt]\ndefault_channel = "stable"\n'
                            'request_key = "pr-{pull_request}:{base_ref}"\n')
    assert config != CONFIG
    world = serve()
    ws = workspace(tmp_path, config)
    admit = cli(world, ws, "admit", "--pull-request", "1", "--channel", "beta", "--start",
                "admission")
    assert admit.returncode == 0, admit.stderr
    step = cli(world, ws, *SUCCEEDED, "--then-start", "build")
    assert step.returncode == 2, step.stdout + step.stderr
    assert "the phase after 'admission' is 'review'" in step.stderr
    assert "nothing was written" in step.stderr
    assert [(p, s) for p, s, _ in _events(world)] == [("admission", "started")]
    step = cli(world, ws, *SUCCEEDED, "--channel", "beta", "--then-start", "review")
    assert step.returncode == 0, step.stderr
    assert [(p, s) for p, s, _ in _events(world)] == [
        ("admission", "started"), ("admission", "succeeded"), ("review", "started")]


def test_a_start_that_fails_after_the_success_landed_says_the_success_stands(
        serve: Any, tmp_path: Path) -> None:
    """Every send of the ``started`` reply answered 502: the outcome is unknown (exit 4)
    and the error says the success was recorded and stands."""
    world, ws = _started(serve, tmp_path)
    world.emu.add_fault({"kind": "fail", "operation": "addDiscussionComment", "nth": 2,
                         "status": 502})
    step = cli(world, ws, *SUCCEEDED, "--then-start", "build")
    assert step.returncode == 4, step.stdout + step.stderr
    assert "recorded admission succeeded" in step.stderr
    assert "and that stands; but build started:" in step.stderr
