"""The writers against GitHub as documented, the remaining scenarios of issue 11's
checklist (docs/store.md, "Tests"): the identity check on a GHES host, a ruleset on an
existing lease ref, ``admit`` after the journal was lost, a transferred repository.
Over the HTTP emulator with GitHub's fidelity defaults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ghattempt.core import CliWriter
from ghattempt.emulator.fixture import ghes_fixture
from ghattempt.exclusive import BackendError, OwnershipLost, RefConflict, ScopeBusy
from ghattempt.store import BusinessAttemptStore, JournalMissing, JournalOptions, WrongWriter

from . import harness as h
from .test_real_github import CLI_CONFIG, LEASE_RULESET, admitted, cli, workspace

pytestmark = pytest.mark.network

WRITES = ("CreateDiscussion", "AddDiscussionComment", "CreateRef", "CreateCommitOnBranch",
          "UpdateRefs", "git/create-commit")


def _writes(world: Any) -> list[str]:
    return [e["operation"] for e in world.emu.request_log() if e.get("operation") in WRITES]


# ------------------------------------------------------------------ identity on GHES
def test_github_coms_bot_id_is_refused_before_any_write_on_a_ghes_host(
        serve: Any, tmp_path: Path) -> None:
    # CLI_CONFIG says database_id = 41898282 (github.com's Actions bot); this host's
    # Actions bot is account 7, so the records would not count for that reader
    world = serve(None, ghes_fixture(actions_bot_id=7, base=h.fixture()))
    world.emu.clear_request_log()
    admit = cli(world, workspace(tmp_path, CLI_CONFIG), "admit", "--pull-request", "1")
    assert admit.returncode == 2, admit.stderr
    assert "(databaseId 7)" in admit.stderr and "database_id = 7" in admit.stderr
    assert _writes(world) == [] and world.discussions() == []
    gh = world.provider()
    rid = h.repository_id(gh)
    store = BusinessAttemptStore(gh, JournalOptions(repository=h.REPO, repository_id=rid,
                                                    category=h.CATEGORY,
                                                    writer_login=h.LOGIN, writer_id=41898282),
                                 exclusive=h.lease(gh, rid), writer=CliWriter("x"),
                                 reader=h.READER)
    with pytest.raises(WrongWriter, match="databaseId 7"):
        store.open_journal(1, "main")
    assert _writes(world) == []


# ----------------------------------------------------------- ruleset on an existing ref
def test_a_ruleset_on_an_existing_lease_ref_is_not_a_lost_compare_and_set(serve: Any) -> None:
    world = serve()
    store = world.store()
    journal, attempt = admitted(store)
    world.emu.add_ruleset(h.REPO, **LEASE_RULESET)  # created after the lease ref
    before = world.emu.snapshot()
    with pytest.raises(BackendError) as info:
        store.append(journal, attempt, key="admission-started", phase="admission",
                     status="started")
    assert not isinstance(info.value, (ScopeBusy, RefConflict, OwnershipLost))
    assert not info.value.retryable
    assert "Repository rule violations found" in str(info.value)
    assert world.emu.snapshot()["repositories"] == before["repositories"]  # nothing written


# ---------------------------------------------------------- admit after a lost journal
@pytest.mark.parametrize("action", ["delete", "move", "transfer"])
def test_admit_after_the_journal_was_lost_fails_closed(serve: Any, tmp_path: Path,
                                                       action: str) -> None:
    data = h.fixture()
    data["repositories"].append({"owner": "octo-org", "name": "archive",
                                 "categories": [{"name": "Old", "slug": "old"}]})
    world = serve(None, data)
    ws = workspace(tmp_path, CLI_CONFIG)
    assert cli(world, ws, "admit", "--pull-request", "1").returncode == 0
    (journal,) = world.discussions()
    if action == "delete":
        world.emu.delete_discussion(journal["id"])
    elif action == "move":
        world.emu.move_discussion(journal["id"], "general")
    else:
        world.emu.transfer_discussion(journal["id"], "octo-org/archive")
    left = len(world.discussions())
    world.emu.clear_request_log()
    again = cli(world, ws, "admit", "--pull-request", "1")
    assert again.returncode == 3, again.stderr
    assert f"#{journal['number']}" in again.stderr and "journal_missing" in again.stderr
    assert len(world.discussions()) == left, "a fresh journal was opened"
    assert "CreateDiscussion" not in _writes(world)
    status = cli(world, ws, "status", "--pull-request", "1", "--json")
    assert status.returncode == 3, status.stderr
    assert '"recovery":"admit"' not in status.stdout


def test_the_store_names_the_lost_journal(serve: Any) -> None:
    world = serve()
    store = world.store()
    journal, _ = admitted(store)
    world.emu.delete_discussion(journal.discussion_id)
    with pytest.raises(JournalMissing) as info:
        admitted(world.store(h.WRITER_TOKENS[1]))
    assert info.value.number == journal.number and info.value.code == "journal_missing"


# ------------------------------------------------------------- transferred repository
def test_a_transferred_repository_keeps_its_journal(serve: Any, tmp_path: Path) -> None:
    world = serve()
    ws = workspace(tmp_path, CLI_CONFIG)
    assert cli(world, ws, "admit", "--pull-request", "1").returncode == 0
    world.emu.transfer_repository(h.REPO, "alice")
    moved = "alice/widgets"
    record = cli(world, ws, "record", "--pull-request", "1", "--phase", "admission",
                 "--status", "started", repository=moved)
    assert record.returncode == 0, record.stderr
    status = cli(world, ws, "status", "--pull-request", "1", "--json", repository=moved)
    assert status.returncode == 0, status.stderr
    out = json.loads(status.stdout)
    assert out["status"] == "running" and out["recovery"] == "continue:admission"
    again = cli(world, ws, "admit", "--pull-request", "1", repository=moved)
    assert again.returncode == 0 and "already admitted" in again.stdout, again.stderr
    assert len(world.discussions(moved)) == 1
