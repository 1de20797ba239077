"""The writers against GitHub as documented: scenarios over the HTTP emulator with its
fidelity switches (docs/emulator.md, "What GitHub does, and where it is written").

Each scenario is what an operator meets on github.com or GHES, with every fidelity
switch at GitHub's default unless the scenario says otherwise. Each asserts what the
writers do now; the comments say what they did before (what the test would catch).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ghattempt.core import CliWriter
from ghattempt.emulator import Emulator
from ghattempt.emulator.fixture import ghes_fixture
from ghattempt.emulator.ids import node_id
from ghattempt.exclusive import OwnershipLost, RefConflict, ScopeBusy
from ghattempt.store import (
    BusinessAttemptStore,
    Journal,
    JournalMissing,
    JournalOptions,
    WitnessNotMet,
)

from . import harness as h
from .conftest import Served

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
KEY = "merge/pr-1@main"
LEASE_RULESET = {"name": "leases", "include": ["refs/heads/ghattempt/lease/**"],
                 "rules": ["creation", "update", "deletion"], "bypass": []}


def admitted(store: BusinessAttemptStore) -> tuple[Journal, str]:
    journal = store.open_journal(1, "main")
    with store.session(journal) as s:
        attempt = s.admit(request_key=KEY, generation=h.generation(), plan=h.PLAN,
                          channel="release", expires_at=h.FAR)
    return journal, attempt.id


# ------------------------------------------------------------------- locked journals
def test_a_journal_stays_open_so_the_bot_can_append(serve: Any) -> None:
    world = serve()  # GitHub's behaviour: bots may not comment on a locked discussion
    store = world.store()
    journal, attempt = admitted(store)
    store.append(journal, attempt, key="admission-started", phase="admission",
                 status="started")
    assert [d["locked"] for d in world.discussions()] == [False]


# ------------------------------------------------------------------------ replica lag
def test_replica_lag_never_makes_a_writer_build_on_a_stale_head(serve: Any) -> None:
    world = serve({"replica_lag_ms": 0})
    first = world.store(h.WRITER_TOKENS[0])
    journal, attempt = admitted(first)
    world.emu.set_fidelity({"replica_lag_ms": 30_000})  # comments lag, refs read current
    started = first.append(journal, attempt, key="admission-started", phase="admission",
                           status="started")
    second = world.store(h.WRITER_TOKENS[1])  # another writer process, after the first
    # Without the witness the second writer saw no event, built seq 1 again and forked;
    # with it, it fails closed naming the record it cannot see yet, writing nothing
    with pytest.raises(WitnessNotMet) as info:
        second.append(journal, attempt, key="admission-succeeded", phase="admission",
                      status="succeeded")
    assert info.value.missing == started.event.digest
    assert started.event.digest in str(info.value)
    world.emu.clock.advance(31)  # the replicas caught up: the same writer builds on it
    second.append(journal, attempt, key="admission-succeeded", phase="admission",
                  status="succeeded")
    world.emu.clock.advance(31)  # its own comment lagged too
    verdict = first.verdict(journal)
    assert verdict.valid and verdict.journal is not None, (verdict.reason, verdict.detail)
    events = verdict.journal.attempt(attempt).events
    assert [(e.seq, e.key) for e in events] == [(1, "admission-started"),
                                                (2, "admission-succeeded")]


# ---------------------------------------------------------------------------- authors
def test_a_personal_token_writer_is_a_user_whose_records_count(serve: Any) -> None:
    world = serve()
    alice = world.emu.state.actor_by_login("alice")
    assert alice is not None and alice["kind"] == "User"
    gh = world.provider("ghp_alice")
    rid = h.repository_id(gh)
    store = BusinessAttemptStore(gh, JournalOptions(repository=h.REPO, repository_id=rid,
                                                    category=h.CATEGORY, writer_login="alice",
                                                    writer_id=int(alice["id"])),
                                 exclusive=h.lease(gh, rid), writer=CliWriter("alice"),
                                 reader=h.READER)
    store.initialise()
    journal, attempt = admitted(store)
    store.append(journal, attempt, key="admission-started", phase="admission",
                 status="started")
    verdict = store.verdict(journal)
    assert verdict.journal is not None, verdict.reason
    found = verdict.journal.attempt(attempt)
    assert found is not None and [e.key for e in found.events] == ["admission-started"]


GHES_CONFIG = """\
[journal]
category = "release-journal"

[writer]
login = "github-actions"

[channels.stable]
plan = ["admission", "build", "publication"]

[attempt]
default_channel = "stable"

[pacing]
write_interval = 0.0
"""


def cli(world: Served, workspace: Path, *args: str, repository: str = h.REPO,
        token: str = "ghs_actions") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GHATTEMPT_", "INPUT_"))}
    env.update(GHATTEMPT_PROGRESS="0", GITHUB_TOKEN=token, GITHUB_API_URL=world.url + "/api/v3/",
               GITHUB_SERVER_URL=world.url, GITHUB_REPOSITORY=repository, GITHUB_ACTOR="alice")
    return subprocess.run([sys.executable, "-m", "ghattempt.cli", *args], capture_output=True,
                          text=True, env=env, timeout=120, cwd=workspace)


def workspace(tmp_path: Path, config: str = GHES_CONFIG) -> Path:
    ws = tmp_path / "workspace"
    (ws / ".github").mkdir(parents=True)
    (ws / ".github" / "ghattempt.toml").write_text(config)
    return ws


def test_the_actions_bot_id_is_learned_from_the_ghes_instance(serve: Any,
                                                              tmp_path: Path) -> None:
    world = serve(None, ghes_fixture(actions_bot_id=7, base=h.fixture()))
    bot = world.emu.state.actor_by_login("github-actions")
    assert bot is not None and int(bot["id"]) == 7
    ws = workspace(tmp_path)
    admit = cli(world, ws, "admit", "--pull-request", "1")
    assert admit.returncode == 0, admit.stderr
    record = cli(world, ws, "record", "--pull-request", "1", "--phase", "admission",
                 "--status", "started")
    assert record.returncode == 0, record.stderr


# --------------------------------------------------------------------------- node ids
def test_a_pre_migration_repository_is_recorded_under_its_new_node_id(serve: Any) -> None:
    data = h.fixture()
    data["repositories"][0]["legacy_node_id"] = True
    world = serve(None, data)
    repo = world.emu.state.repository_by_name(h.OWNER, h.NAME)
    assert repo is not None
    new_id = node_id("Repository", int(repo["id"]))
    store = world.store()
    journal, _ = admitted(store)
    assert store.repository_id == new_id
    assert journal.intent.repository_id == new_id


# --------------------------------------------------------------------------- rulesets
def test_a_lease_ruleset_refusal_is_not_taken_for_a_busy_scope(serve: Any) -> None:
    """Today's writers already get this right: GitHub's ruleset refusal of ``createRef``
    reaches the caller as GitHub's refusal, with its message, and is neither a lost
    compare-and-set nor a busy scope."""
    world = serve()
    world.emu.add_ruleset(h.REPO, **LEASE_RULESET)
    store = world.store()
    with pytest.raises(Exception) as info:
        store.open_journal(1, "main")
    assert not isinstance(info.value, (ScopeBusy, RefConflict, OwnershipLost))
    assert "Repository rule violations found" in str(info.value)
    assert "Cannot create ref due to creations being restricted." in str(info.value)
    assert world.discussions() == []  # nothing was written without the lease


# ------------------------------------------------------- edited or deleted newest record
@pytest.mark.parametrize("action", ["edit", "delete"])
def test_an_edited_or_deleted_newest_record_is_refused(serve: Any, action: str) -> None:
    world = serve()
    store = world.store()
    journal, attempt = admitted(store)
    store.append(journal, attempt, key="admission-started", phase="admission",
                 status="started")
    newest = store.append(journal, attempt, key="admission-succeeded", phase="admission",
                          status="succeeded")
    assert newest.comment_id is not None
    world.emu.tamper(action, newest.comment_id, body="rewritten by someone else")
    before = len(world.discussions()[0]["comments"])
    # legal after the first record alone: without the witness it was written over the gap
    with pytest.raises(WitnessNotMet) as info:
        store.append(journal, attempt, key="admission-failed", phase="admission",
                     status="failed", reason="the build host is gone")
    assert info.value.code == "rolled_back"
    assert newest.event.digest in str(info.value), "the error names the missing record"
    assert len(world.discussions()[0]["comments"]) == before  # nothing written


# --------------------------------------------------- deleted, moved, transferred journal
@pytest.mark.parametrize("action", ["delete", "move", "transfer"])
def test_a_lost_journal_is_never_replaced_by_a_fresh_one(serve: Any, action: str) -> None:
    data = h.fixture()
    data["repositories"].append({"owner": "octo-org", "name": "archive",
                                 "categories": [{"name": "Old", "slug": "old"}]})
    world = serve(None, data)
    store = world.store()
    journal, _ = admitted(store)
    if action == "delete":
        world.emu.delete_discussion(journal.discussion_id)
    elif action == "move":
        world.emu.move_discussion(journal.discussion_id, "general")
    else:
        world.emu.transfer_discussion(journal.discussion_id, "octo-org/archive")
    before = len(world.discussions())
    again = world.store(h.WRITER_TOKENS[1])
    with pytest.raises(JournalMissing) as info:
        _, attempt = admitted(again)
    assert info.value.number == journal.number
    assert info.value.why == ("moved" if action == "move" else "gone")
    assert len(world.discussions()) == before, "a second journal was opened"
    # a moved journal may as well be a configuration naming the wrong category
    assert ("if the configuration names the wrong category" in str(info.value)) == (
        action == "move")
    assert ("restore the Discussion or move it back" in str(info.value)) == (action != "move")


# ---------------------------------------------------------------------- renamed repo
CLI_CONFIG = GHES_CONFIG.replace('login = "github-actions"',
                                 'login = "github-actions"\ndatabase_id = 41898282')


def test_a_renamed_repository_keeps_its_journal(serve: Any, tmp_path: Path) -> None:
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    admit = cli(world, ws, "admit", "--pull-request", "1")
    assert admit.returncode == 0, admit.stderr
    world.emu.rename_repository(h.REPO, "gizmos")
    record = cli(world, ws, "record", "--pull-request", "1", "--phase", "admission",
                 "--status", "started", repository="octo-org/gizmos")
    assert record.returncode == 0, record.stderr
    assert len(world.discussions("octo-org/gizmos")) == 1


def test_scenarios_use_githubs_defaults_unless_they_say_otherwise() -> None:
    """The fixture of these scenarios keeps GitHub's fidelity defaults."""
    emu = Emulator(fixture=h.fixture())
    assert emu.fidelity.locked_conversations and emu.fidelity.viewer_permission
    assert emu.fidelity.legacy_node_ids and emu.fidelity.rulesets
    assert "fidelity" not in h.fixture()
