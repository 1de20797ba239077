"""``admit --start PHASE``: the phase's ``started`` under the admission's one hold of the
writer scope (docs/action.md, ``start``), with the key a separate ``record`` step would
use, its lost answer read back, and the release's witness naming both records. Over the
HTTP emulator with GitHub's fidelity defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ghattempt.core import lease_ref_name, parse_lease

from . import harness as h
from .test_real_github import CLI_CONFIG, cli, workspace

pytestmark = pytest.mark.network


def _ops(world: Any) -> list[str]:
    return [e["operation"] for e in world.emu.request_log()]


def _events(world: Any) -> list[tuple[str, str, str]]:
    store = world.store()
    journal = store.locate(1, "main")
    assert journal is not None
    state = store.read(store.capture_witnessed(journal).capture).journal
    assert state is not None
    (attempt,) = state.attempts
    return [(e.phase or "attempt", e.status, e.key) for e in attempt.events]


def _witness(world: Any) -> tuple[int, str | None, str]:
    store = world.store()
    journal = store.locate(1, "main")
    assert journal is not None
    ref, _ = store.provider.lease_ref(h.OWNER, h.NAME,
                                      lease_ref_name(journal.id, store.repository_id))
    assert ref is not None and ref.commit is not None
    lease = parse_lease(ref.commit.message)
    return lease.head.records, lease.head.last, lease.state


def _admitted(serve: Any, tmp_path: Path, start: str) -> tuple[Any, Path, Any]:
    """A fresh world, then ``admit --start start`` with an empty request log."""
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    world.emu.clear_request_log()
    return world, ws, cli(world, ws, "admit", "--pull-request", "1", "--start", start)


def test_admit_starts_the_phase_in_the_same_hold_and_a_rerun_writes_nothing(
        serve: Any, tmp_path: Path) -> None:
    world, ws, admit = _admitted(serve, tmp_path, "admission")
    assert admit.returncode == 0, admit.stderr
    ops = _ops(world)
    # one lease cycle: created (commit + ref), released once; two comments
    assert ops.count("AddDiscussionComment") == 2, ops
    assert ops.count("CreateCommitOnBranch") == 1 and ops.count("CreateRef") == 1, ops
    events = _events(world)
    assert [(p, s) for p, s, _ in events] == [("admission", "started")]
    records, last, state = _witness(world)
    store = world.store()
    capture = store.capture_witnessed(store.locate(1, "main")).capture
    digests = {e.digest for a in store.read(capture).journal.attempts for e in a.events}
    assert (records, state) == (2, "released") and last in digests
    # the same admission again, and the separate step of the same key: nothing written
    world.emu.clear_request_log()
    again = cli(world, ws, "admit", "--pull-request", "1", "--start", "admission")
    assert again.returncode == 0, again.stderr
    step = cli(world, ws, "record", "--pull-request", "1", "--phase", "admission",
               "--status", "started")
    assert step.returncode == 0, step.stderr
    assert "already recorded" in step.stdout + step.stderr
    assert "AddDiscussionComment" not in _ops(world)
    assert _events(world) == events


def test_a_rerun_under_another_key_does_not_start_the_phase_again(
        serve: Any, tmp_path: Path) -> None:
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    assert cli(world, ws, "admit", "--pull-request", "1", "--start",
               "admission").returncode == 0
    events = _events(world)
    world.emu.clear_request_log()
    rerun = cli(world, ws, "admit", "--pull-request", "1", "--start", "admission",
                "--actor", "bob")  # another writer label: another derived key
    assert rerun.returncode == 0, rerun.stderr
    assert "admission already recorded (started)" in rerun.stdout + rerun.stderr
    assert "AddDiscussionComment" not in _ops(world)
    assert _events(world) == events


@pytest.mark.parametrize("status", [502, 200], ids=["http502", "internal200"])
def test_a_lost_answer_on_the_started_reply_is_read_back(serve: Any, tmp_path: Path,
                                                         status: int) -> None:
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    world.emu.add_fault({"kind": "lose_response", "operation": "addDiscussionComment",
                         "nth": 2, "count": 1, "status": status})
    admit = cli(world, ws, "admit", "--pull-request", "1", "--start", "admission")
    assert admit.returncode == 0, admit.stderr
    assert any("was lost" in line and "landed" in line for line in admit.stderr.splitlines())
    events = _events(world)
    assert [(p, s) for p, s, _ in events] == [("admission", "started")]  # exactly once
    records, last, _ = _witness(world)
    assert records == 2 and last is not None


def test_a_start_phase_outside_the_plan_is_refused_before_any_request(
        serve: Any, tmp_path: Path) -> None:
    world, _, admit = _admitted(serve, tmp_path, "bogus")
    assert admit.returncode == 2, admit.stderr
    assert "--start 'bogus' is not in the plan" in admit.stderr
    assert _ops(world) == []


def test_a_start_no_new_attempt_can_take_admits_nothing(serve: Any, tmp_path: Path) -> None:
    """``--start build`` where a new attempt's plan begins with admission: the replay
    rules would refuse build's ``started`` (``missing_predecessor``), so the admission is
    refused before its attempt is written (exit 2); it was written and stayed, pending."""
    world, _ws, admit = _admitted(serve, tmp_path, "build")
    assert admit.returncode == 2, admit.stderr
    assert ("--start build: a new attempt of channel stable begins with admission (its "
            "plan: admission build") in admit.stderr
    assert "no attempt was admitted" in admit.stderr
    assert _attempts(world) == 0


def _attempts(world: Any) -> int:
    store = world.store()
    journal = store.locate(1, "main")
    if journal is None:
        return 0
    state = store.read(store.capture_witnessed(journal).capture).journal
    return 0 if state is None else len(state.attempts)
