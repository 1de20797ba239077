"""The writers against GitHub as documented: scenarios over the HTTP emulator with its
fidelity switches (docs/emulator.md, "What GitHub does, and where it is written").

Each scenario is what an operator meets on github.com or GHES. Where today's writers get
it wrong the test is marked ``xfail(strict=True)`` with what they do instead; the mark
comes off with the fix. Each scenario turns off the fidelity switches it is not about
(``locked_conversations`` mostly: today's store locks every journal, which GitHub's
refusal of bot comments would otherwise turn into the failure of every scenario).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ghattempt.core import CliWriter
from ghattempt.emulator import Emulator, EmulatorServer
from ghattempt.emulator.fixture import ghes_fixture
from ghattempt.emulator.ids import node_id
from ghattempt.exclusive import OwnershipLost, RefConflict, ScopeBusy
from ghattempt.github import GitHubProvider
from ghattempt.store import BusinessAttemptStore, Journal

from . import harness as h

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
KEY = "merge/pr-1@main"
NO_LOCK_REFUSAL = {"locked_conversations": False}
LEASE_RULESET = {"name": "leases", "include": ["refs/heads/ghattempt/lease/**"],
                 "rules": ["creation", "update", "deletion"], "bypass": []}


@dataclass
class Served:
    emu: Emulator
    server: EmulatorServer

    @property
    def url(self) -> str:
        return self.server.url

    def provider(self, token: str = h.WRITER_TOKENS[0]) -> GitHubProvider:
        return h.provider(url=self.url, token=token)

    def store(self, token: str = h.WRITER_TOKENS[0], **kwargs: Any) -> BusinessAttemptStore:
        gh = self.provider(token)
        rid = h.repository_id(gh)
        return h.store(gh, h.lease(gh, rid), repo_id=rid, **kwargs)

    def discussions(self, repository: str = h.REPO) -> list[dict[str, Any]]:
        repo = next(r for r in self.emu.snapshot()["repositories"]
                    if r["nameWithOwner"] == repository)
        found: list[dict[str, Any]] = repo["discussions"]
        return found


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    servers: list[EmulatorServer] = []

    def start(fidelity: dict[str, Any] | None = None,
              fixture: dict[str, Any] | None = None) -> Served:
        emu = Emulator(str(tmp_path / f"emu{len(servers)}.db"), fixture or h.fixture(),
                       fidelity=fidelity)
        server = EmulatorServer(emu).start()
        servers.append(server)
        return Served(emu, server)

    yield start
    for server in servers:
        server.stop()


def admitted(store: BusinessAttemptStore) -> tuple[Journal, str]:
    journal = store.open_journal(1, "main")
    with store.session(journal) as s:
        attempt = s.admit(request_key=KEY, generation=h.generation(), plan=h.PLAN,
                          channel="release", expires_at=h.FAR)
    return journal, attempt.id


# ------------------------------------------------------------------- locked journals
@pytest.mark.xfail(strict=True, reason="the store locks every journal it finds or creates "
                   "(lockLockable); GitHub then refuses the Actions bot's comments on it")
def test_a_journal_stays_open_so_the_bot_can_append(serve: Any) -> None:
    world = serve()  # GitHub's behaviour: bots may not comment on a locked discussion
    store = world.store()
    journal, attempt = admitted(store)
    store.append(journal, attempt, key="admission-started", phase="admission",
                 status="started")
    assert [d["locked"] for d in world.discussions()] == [False]


# ------------------------------------------------------------------------ replica lag
@pytest.mark.xfail(strict=True, reason="the store builds on whatever its capture shows: "
                   "a reply still lagging on GitHub's replicas is missed, the next writer "
                   "reuses its seq and the journal forks")
def test_replica_lag_never_makes_a_writer_build_on_a_stale_head(serve: Any) -> None:
    world = serve({**NO_LOCK_REFUSAL, "replica_lag_ms": 0})
    first = world.store(h.WRITER_TOKENS[0])
    journal, attempt = admitted(first)
    world.emu.set_fidelity({"replica_lag_ms": 30_000})  # comments lag, refs read current
    first.append(journal, attempt, key="admission-started", phase="admission",
                 status="started")
    second = world.store(h.WRITER_TOKENS[1])  # another writer process, after the first
    refused: Exception | None = None
    try:
        second.append(journal, attempt, key="admission-succeeded", phase="admission",
                      status="succeeded")
    except Exception as exc:  # failing closed is right; building on a stale head is not
        refused = exc
    world.emu.clock.advance(31)
    verdict = first.verdict(journal)
    assert verdict.reason != "fork", f"the journal forked ({verdict.detail})"
    assert verdict.journal is not None, verdict.reason
    if refused is not None:
        assert "admission-started" in str(refused) or "sha256:" in str(refused)


# ---------------------------------------------------------------------------- authors
@pytest.mark.xfail(strict=True, reason="the capture queries ask databaseId of Bot authors "
                   "only, so a personal-access-token writer (a User) never matches its "
                   "writer id and its own journal is untrusted")
def test_a_personal_token_writer_is_a_user_whose_records_count(serve: Any) -> None:
    world = serve(NO_LOCK_REFUSAL)
    alice = world.emu.state.actor_by_login("alice")
    assert alice is not None and alice["kind"] == "User"
    gh = world.provider("ghp_alice")
    rid = h.repository_id(gh)
    store = BusinessAttemptStore(gh, exclusive=h.lease(gh, rid), repository=h.REPO,
                                 repository_id=rid, category=h.CATEGORY, writer_login="alice",
                                 writer_id=int(alice["id"]), writer=CliWriter("alice"),
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


@pytest.mark.xfail(strict=True, reason="without [writer] database_id the configuration "
                   "defaults to github.com's 41898282, so on a GHES instance, whose Actions "
                   "bot has another databaseId, the writer's own journal is untrusted")
def test_the_actions_bot_id_is_learned_from_the_ghes_instance(serve: Any,
                                                              tmp_path: Path) -> None:
    world = serve(NO_LOCK_REFUSAL, ghes_fixture(actions_bot_id=7, base=h.fixture()))
    bot = world.emu.state.actor_by_login("github-actions")
    assert bot is not None and int(bot["id"]) == 7
    ws = workspace(tmp_path)
    admit = cli(world, ws, "admit", "--pull-request", "1")
    assert admit.returncode == 0, admit.stderr
    record = cli(world, ws, "record", "--pull-request", "1", "--phase", "admission",
                 "--status", "started")
    assert record.returncode == 0, record.stderr


# --------------------------------------------------------------------------- node ids
@pytest.mark.xfail(strict=True, reason="the provider never sends X-Github-Next-Global-ID: 1, "
                   "so a repository made before the node-id migration is recorded under its "
                   "legacy id, which GitHub is retiring")
def test_a_pre_migration_repository_is_recorded_under_its_new_node_id(serve: Any) -> None:
    data = h.fixture()
    data["repositories"][0]["legacy_node_id"] = True
    world = serve(NO_LOCK_REFUSAL, data)
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
    world = serve(NO_LOCK_REFUSAL)
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
@pytest.mark.xfail(strict=True, reason="the store builds on the records its capture shows: "
                   "an edited or deleted newest record no longer counts, so the next append "
                   "takes its seq and silently overwrites it")
def test_an_edited_or_deleted_newest_record_is_refused(serve: Any, action: str) -> None:
    world = serve(NO_LOCK_REFUSAL)
    store = world.store()
    journal, attempt = admitted(store)
    store.append(journal, attempt, key="admission-started", phase="admission",
                 status="started")
    newest = store.append(journal, attempt, key="admission-succeeded", phase="admission",
                          status="succeeded")
    assert newest.comment_id is not None
    world.emu.tamper(action, newest.comment_id, body="rewritten by someone else")
    with pytest.raises(Exception) as info:  # legal after the first record alone
        store.append(journal, attempt, key="admission-failed", phase="admission",
                     status="failed", reason="the build host is gone")
    assert newest.event.digest in str(info.value), "the error names the missing record"


# --------------------------------------------------- deleted, moved, transferred journal
@pytest.mark.parametrize("action", ["delete", "move", "transfer"])
@pytest.mark.xfail(strict=True, reason="admit looks for the journal by scanning the "
                   "category; when it is gone, moved or transferred it silently opens a "
                   "fresh journal although the scope's lease ref exists")
def test_a_lost_journal_is_never_replaced_by_a_fresh_one(serve: Any, action: str) -> None:
    data = h.fixture()
    data["repositories"].append({"owner": "octo-org", "name": "archive",
                                 "categories": [{"name": "Old", "slug": "old"}]})
    world = serve(NO_LOCK_REFUSAL, data)
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
    with pytest.raises(Exception) as info:
        _, attempt = admitted(again)
    assert "journal" in str(info.value)
    assert len(world.discussions()) == before, "a second journal was opened"


# ---------------------------------------------------------------------- renamed repo
CLI_CONFIG = GHES_CONFIG.replace('login = "github-actions"',
                                 'login = "github-actions"\ndatabase_id = 41898282')


@pytest.mark.xfail(strict=True, reason="the intent record holds the repository's name, so "
                   "after a rename the writer computes another intent and `record` finds "
                   "no journal")
def test_a_renamed_repository_keeps_its_journal(serve: Any, tmp_path: Path) -> None:
    world = serve(NO_LOCK_REFUSAL)
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
