"""The writers against GitHub as documented, continued (see test_real_github.py): the
witness on an edited attempt root, journals found through their lease, renames seen by
``status`` and ``admit``, identities, and the notice lines. Over the HTTP emulator with
GitHub's fidelity defaults."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ghattempt.config import ConfigError, parse_config
from ghattempt.core import CliWriter
from ghattempt.store import BusinessAttemptStore, JournalOptions, StoreInputError, WitnessNotMet

from . import harness as h
from .test_real_github import CLI_CONFIG, GHES_CONFIG, KEY, admitted, cli, workspace

pytestmark = pytest.mark.network


def _mutations(world: Any) -> list[str]:
    return [e["operation"] for e in world.emu.request_log()
            if e.get("operation") in ("CreateDiscussion", "AddDiscussionComment", "CreateRef",
                                      "CreateCommitOnBranch", "UpdateRefs", "git/create-commit")]


# ------------------------------------------------------------------------------ witness
def test_an_edited_root_of_a_finished_attempt_makes_no_successor_run_again(serve: Any) -> None:
    # Without the witness, the edited root stops counting, the finished attempt vanishes
    # with it, and the next admission opens a fresh attempt that runs publication again.
    world = serve()
    store = world.store()
    journal, attempt = admitted(store)
    with store.session(journal) as s:
        for phase in h.PLAN:
            s.append(attempt, key=f"{phase}-started", phase=phase, status="started")
            s.append(attempt, key=f"{phase}-succeeded", phase=phase, status="succeeded")
        assert s.attempt(attempt).status == "succeeded"
        root = s.attempt(attempt).root_ids[0]
    world.emu.tamper("edit", root, body="an attempt nobody made")
    before = len(world.emu.snapshot()["repositories"][0]["discussions"][0]["comments"])
    with pytest.raises(WitnessNotMet) as info:
        with store.session(journal) as s:
            s.admit(request_key=KEY, generation=h.generation(), plan=h.PLAN,
                    channel="release", expires_at=h.FAR)
    assert info.value.code == "rolled_back"
    after = len(world.emu.snapshot()["repositories"][0]["discussions"][0]["comments"])
    assert after == before  # nothing written


# ------------------------------------------------------------------- journals in one read
def test_a_journal_with_a_lease_is_found_without_scanning_the_category(serve: Any) -> None:
    world = serve()
    journal, attempt = admitted(world.store())
    world.emu.clear_request_log()
    fresh = world.store(h.WRITER_TOKENS[1])  # another writer process
    fresh.append(fresh.locate(1, "main"), attempt, key="admission-started",
                 phase="admission", status="started")
    ops = [e["operation"] for e in world.emu.request_log()]
    assert "CategoryDiscussions" not in ops, ops
    assert ops.count("LeaseRef") == 1 and ops.count("JournalPageLease") == 1


# ---------------------------------------------------------------------------- renames
def test_after_a_rename_status_and_admit_see_the_journal(serve: Any, tmp_path: Path) -> None:
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    assert cli(world, ws, "admit", "--pull-request", "1").returncode == 0
    world.emu.rename_repository(h.REPO, "gizmos")
    status = cli(world, ws, "status", "--pull-request", "1", "--json",
                 repository="octo-org/gizmos")
    assert status.returncode == 0, status.stderr
    assert '"status":"pending"' in status.stdout and '"recovery":"continue:admission"' in (
        status.stdout)
    again = cli(world, ws, "admit", "--pull-request", "1", repository="octo-org/gizmos")
    assert again.returncode == 0, again.stderr
    assert "already admitted" in again.stdout
    assert len(world.discussions("octo-org/gizmos")) == 1


# --------------------------------------------------------------------------- identity
def test_a_configured_writer_that_is_not_the_token_is_refused_before_any_write(
        serve: Any, tmp_path: Path) -> None:
    world = serve()
    alice = world.emu.state.actor_by_login("alice")
    assert alice is not None
    config = GHES_CONFIG.replace('login = "github-actions"',
                                 f'login = "alice"\ndatabase_id = {int(alice["id"])}')
    ws = workspace(tmp_path, config)
    world.emu.clear_request_log()
    admit = cli(world, ws, "admit", "--pull-request", "1")  # with the Actions bot's token
    assert admit.returncode == 2, admit.stderr
    assert "the token is github-actions" in admit.stderr
    assert "not the configured writer alice" in admit.stderr
    assert _mutations(world) == []
    assert world.discussions() == []


def test_a_rest_bot_login_gets_the_configurations_error_everywhere(serve: Any,
                                                                   tmp_path: Path) -> None:
    world = serve()
    with pytest.raises(ConfigError) as configured:
        parse_config(b'[writer]\nlogin = "github-actions[bot]"\n', path="c.toml")
    expected = ('"github-actions[bot]" carries the REST suffix [bot]; use the bare GraphQL '
                'login "github-actions"')
    assert expected in str(configured.value)
    status = cli(world, workspace(tmp_path), "status", "--pull-request", "1", "--writer",
                 "github-actions[bot]")
    assert status.returncode == 2 and expected in status.stderr, status.stderr
    assert "empty" not in status.stdout and "admit" not in status.stdout
    gh = world.provider()
    with pytest.raises(StoreInputError) as api:
        BusinessAttemptStore(gh, JournalOptions(repository=h.REPO,
                                                repository_id=h.repository_id(gh),
                                                category=h.CATEGORY,
                                                writer_login="github-actions[bot]"),
                             exclusive=h.lease(gh, h.repository_id(gh)),
                             writer=CliWriter("x"), reader=h.READER)
    assert expected in str(api.value)


# ---------------------------------------------------------------------------- notices
def _notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("ghattempt: notice: ")]


@pytest.mark.parametrize("status", [502, 200], ids=["http502", "internal200"])
def test_a_reconciled_lost_answer_is_told_in_one_line(serve: Any, tmp_path: Path,
                                                      status: int) -> None:
    # 200 is GitHub's ``type: INTERNAL`` after the comment committed: an unknown
    # outcome, read back, never taken for a refusal
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    assert cli(world, ws, "admit", "--pull-request", "1").returncode == 0
    world.emu.add_fault({"kind": "lose_response", "operation": "addDiscussionComment",
                         "count": 1, "status": status})
    record = cli(world, ws, "record", "--pull-request", "1", "--phase", "admission",
                 "--status", "started")
    assert record.returncode == 0, record.stderr
    (line,) = [n for n in _notices(record.stderr) if "was lost" in n]
    assert "reading the journal back after" in line and "landed" in line


def test_a_wait_for_a_busy_scope_is_told_in_one_line(serve: Any, tmp_path: Path) -> None:
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    assert cli(world, ws, "admit", "--pull-request", "1").returncode == 0
    store = world.store()
    journal = store.locate(1, "main")
    assert journal is not None
    holding, done = threading.Event(), threading.Event()

    def other_writer() -> None:  # holds the scope for 4 s, then releases it
        with store._exclusive.hold(journal.scope):
            holding.set()
            done.wait(4)

    thread = threading.Thread(target=other_writer)
    thread.start()
    try:
        assert holding.wait(30)
        record = cli(world, ws, "record", "--pull-request", "1", "--phase", "admission",
                     "--status", "started")
    finally:
        done.set()
        thread.join(30)
    assert record.returncode == 0, record.stderr
    waits = [n for n in _notices(record.stderr) if n.startswith("ghattempt: notice: waiting")]
    assert len(waits) == 1, record.stderr
    assert "writer scope" in waits[0] and "holds it until" in waits[0]


# ------------------------------------------------------------------- known journals
def _action(world: Any, ws: Path, temp: Path, command: str, **inputs: str) -> Any:
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GHATTEMPT_", "INPUT_", "RUNNER_"))}
    out = temp / "output"
    out.write_text("")
    env.update({"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "1",
                "GITHUB_JOB": "release", "GITHUB_WORKFLOW": "release",
                "GITHUB_REPOSITORY": h.REPO, "GITHUB_API_URL": world.url + "/api/v3",
                "GITHUB_SERVER_URL": world.url, "GITHUB_WORKSPACE": str(ws),
                "GITHUB_OUTPUT": str(out), "RUNNER_TEMP": str(temp),
                "GHATTEMPT_TOKEN": "ghs_actions", "GHATTEMPT_COMMAND": command,
                "GHATTEMPT_PULL_REQUEST": "1"})
    env.update({f"GHATTEMPT_{k.upper()}": v for k, v in inputs.items()})
    return subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env, text=True,
                          capture_output=True, timeout=120, cwd=ws)


def test_a_step_that_knows_the_journal_reads_once_and_writes_three_times(
        serve: Any, tmp_path: Path) -> None:
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    admit = _action(world, ws, temp, "admit")
    assert admit.returncode == 0, admit.stdout + admit.stderr
    world.emu.clear_request_log()
    record = _action(world, ws, temp, "record", phase="admission", status="started")
    assert record.returncode == 0, record.stdout + record.stderr
    ops = [e["operation"] for e in world.emu.request_log()]
    assert ops == ["WriterRead", "CreateCommitOnBranch", "AddDiscussionComment",
                   "CreateCommitOnBranch"], ops


def test_what_a_step_knows_is_checked_and_a_wrong_memory_costs_only_reads(
        serve: Any, tmp_path: Path) -> None:
    import json

    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    assert _action(world, ws, temp, "admit").returncode == 0
    memo = temp / "ghattempt-journals.json"
    entry = json.loads(memo.read_text())
    (key,) = entry
    for wrong in ({"number": entry[key]["number"] + 40}, {"intent": "sha256:" + "0" * 64},
                  {"repository_id": "R_kgDOelsewhere"}, {"base_ref": "release"}):
        memo.write_text(json.dumps({key: {**entry[key], **wrong}}))
        record = _action(world, ws, temp, "record", phase="admission", status="started",
                         key=f"k-{sorted(wrong)[0]}")
        assert record.returncode in (0, 1), record.stdout + record.stderr
    verdict = world.store().verdict(world.store().locate(1, "main"))
    assert verdict.valid and verdict.journal is not None, verdict.detail
    assert len(world.discussions()) == 1  # never a second journal


def test_a_page_read_before_a_busy_lease_is_read_again_under_it(serve: Any,
                                                                tmp_path: Path) -> None:
    # the page read at start came with a lease still held: another writer's records may
    # land after it, so the journal is captured again once the scope is held
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    assert _action(world, ws, temp, "admit").returncode == 0
    store = world.store(h.WRITER_TOKENS[1])
    journal = store.locate(1, "main")
    assert journal is not None
    holding, done = threading.Event(), threading.Event()

    def other_writer() -> None:
        with store.session(journal) as s:
            holding.set()
            done.wait(30)
            tip = s.state.tip("pr-1:main:stable") or s.state.attempts[0]
            s.append(tip.id, key="other-writer", phase="admission", status="started")

    thread = threading.Thread(target=other_writer)
    thread.start()
    assert holding.wait(30)
    world.emu.clear_request_log()

    def release_after_the_read() -> None:  # once the step has read the page, not before
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
                e["operation"] == "WriterRead" for e in world.emu.request_log()):
            time.sleep(0.02)
        done.set()

    watcher = threading.Thread(target=release_after_the_read)
    watcher.start()
    record = _action(world, ws, temp, "record", phase="admission", status="succeeded")
    thread.join(30)
    watcher.join(30)
    assert record.returncode == 0, record.stdout + record.stderr
    ops = [e["operation"] for e in world.emu.request_log() if e.get("actor")]
    assert "JournalPageLease" in ops  # captured again under the lease
    verdict = world.store().verdict(journal)
    assert verdict.valid, verdict.detail
    keys = [e.key for e in verdict.journal.attempts[0].events]
    assert keys[0] == "other-writer" and len(keys) == 2
