"""End to end, the worker pool over HTTP: the App's own server (uvicorn subprocess, the
store sink) against the HTTP emulator (subprocess) with two installations, driven by
@octokit/webhooks-examples payloads. One pull request's writer scope is held by another
writer (a Git ref lease taken with alice's token), so the App must wait for it; with
``GHATTEMPT_APP_WORKERS=4`` the other pull requests, of both installations, are written
meanwhile, and the waiting scope's results land in delivery order once the lease is
released. With one worker the waiting scope holds back every other (the control)."""

from __future__ import annotations

import copy
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .conftest import (
    APP_DB_ID,
    Emu,
    Server,
    app_fixture,
    encode,
    running_emulator,
    wait_until,
)
from .test_store_sink_e2e import CONFIG, _accepted, _store_server

OTHER_INSTALLATION = 778
ACQUIRE_TIMEOUT = 20
"""How long the App waits for the busy scope before it lets its thread go (CONFIG's
``[lease] acquire_timeout``): every check of the other scopes ends well before it, so a
single thread stuck in that wait could not pass them."""
assert f"acquire_timeout = {ACQUIRE_TIMEOUT}\n" in CONFIG.decode()


@dataclass(frozen=True)
class Pull:
    """One pull request the test drives: its repository, installation and number."""

    repository: str
    installation: int
    number: int

    @property
    def request_key(self) -> str:
        return f"pr-{self.number}:main:release"


WAITING = Pull("octo-org/widgets", 777, 1)
OTHERS = (Pull("octo-org/widgets", 777, 2), Pull("octo-org/widgets", 777, 3),
          Pull("octo-org/gadgets", OTHER_INSTALLATION, 1))


def _fixture(pem: str) -> dict[str, Any]:
    """The App's fixture with three pull requests on widgets (heads feature, feature2,
    feature3) and a second repository, gadgets, whose installation is another one."""
    fixture = app_fixture(pem)
    fixture["apps"][0]["installations"].append({"id": OTHER_INSTALLATION, "role": "write"})
    (widgets,) = [r for r in fixture["repositories"] if r["name"] == "widgets"]
    for n in (2, 3):
        widgets["branches"].append({"name": f"feature{n}", "message": f"Change {n}",
                                    "from": "main"})
        widgets["pull_requests"].append({"number": n, "title": f"Change {n}",
                                         "head": f"feature{n}", "base": "main",
                                         "author": "alice"})
    gadgets = copy.deepcopy(widgets)
    gadgets.update(name="gadgets", pull_requests=widgets["pull_requests"][:1],
                   branches=[widgets["branches"][0],
                             {"name": "feature", "message": "Add a gadget", "from": "main"}])
    fixture["repositories"].append(gadgets)
    return fixture


@pytest.fixture
def emu2(tmp_path: Path, rsa_pem: tuple[Path, str]) -> Iterator[Emu]:
    with running_emulator(tmp_path, _fixture(rsa_pem[1])) as running:
        yield running


class Scenario:
    """The emulator's repositories configured, payloads for each pull request."""

    def __init__(self, emu: Emu, example: Callable[..., dict[str, Any]]) -> None:
        self.emu = emu
        self.example = example
        self.ids: dict[str, str] = {}
        for full in {p.repository for p in (WAITING, *OTHERS)}:
            owner, name = full.split("/")
            self.ids[full] = emu.gh.repository(owner, name).id
            main = emu.gh.ref(owner, name, "refs/heads/main")
            assert main is not None
            # the configuration on the default branch: the heads have none
            emu.gh.create_commit_on_branch(full, "main", expected_head_oid=main.target_oid,
                                           headline="configure ghattempt",
                                           additions={".github/ghattempt.toml": CONFIG})
        self.heads = {p: self._pull(p).head_oid for p in (WAITING, *OTHERS)}
        assert len(set(self.heads.values())) == 4, self.heads  # every head is its own
        self.run_id = 100

    def _pull(self, p: Pull) -> Any:
        owner, name = p.repository.split("/")
        return self.emu.gh.pull_request(owner, name, p.number)

    def _adjust(self, payload: dict[str, Any], p: Pull) -> dict[str, Any]:
        payload["repository"].update(node_id=self.ids[p.repository], full_name=p.repository,
                                     name=p.repository.split("/")[1])
        payload["installation"] = {"id": p.installation}
        return payload

    def opened(self, p: Pull) -> bytes:
        payload = self._adjust(self.example("pull_request", "opened"), p)
        pull = self._pull(p)
        payload["number"] = p.number
        payload["pull_request"]["number"] = p.number
        payload["pull_request"]["head"].update(sha=pull.head_oid, ref=pull.head_ref_name)
        payload["pull_request"]["base"].update(sha=pull.base_oid, ref=pull.base_ref_name)
        return encode(payload)

    def job(self, p: Pull, conclusion: str) -> tuple[bytes, str]:
        """A completed ``compile`` job of a new CI run at ``p``'s head; its event key."""
        self.run_id += 1
        run_id = self.run_id
        self.emu.admin("runs", {"repository": p.repository, "run_id": run_id,
                                "path": ".github/workflows/ci.yml", "name": "CI",
                                "head_sha": self.heads[p]})
        payload = self._adjust(self.example("workflow_job", "completed"), p)
        payload["workflow_job"].update(id=run_id, run_id=run_id, run_attempt=1,
                                       name="compile", workflow_name="CI",
                                       head_sha=self.heads[p], conclusion=conclusion,
                                       status="completed")
        status = {"success": "succeeded", "action_required": "waiting"}[conclusion]
        return encode(payload), f"run:{run_id}:1:job:{run_id}:cfg:{status}"

    def journal(self, p: Pull) -> Any:
        """The reader's verdict on ``p``'s journal (captured from the emulator)."""
        from ghattempt.core import read_journal

        owner, name = p.repository.split("/")
        (repo,) = [r for r in self.emu.state()["repositories"]
                   if r["id"] == self.ids[p.repository]]
        for discussion in repo["discussions"]:
            pages = list(self.emu.gh.capture(owner, name, discussion["number"]).pages)
            verdict = read_journal(pages, writer="ghattempt-app",
                                   repository_id=self.ids[p.repository], writer_id=APP_DB_ID,
                                   request_key=p.request_key)
            if verdict.journal is not None and verdict.journal.intent.pull_request == p.number:
                assert verdict.valid, verdict.to_json()
                return verdict
        raise AssertionError(f"no journal for {p}")

    def keys(self, p: Pull) -> list[str]:
        return [e.key for e in self.journal(p).current.events]


def _state(inbox: Any, delivery: str) -> str:
    """The inbox state of ``delivery`` (``pending``, ``done``, ``failed``)."""
    found = inbox.state_of(delivery)
    assert found is not None, delivery
    return str(found[0])


def _other_writer(emu: Emu, s: Scenario, p: Pull) -> Any:
    """``p``'s writer scope and a lease on it for another writer (alice), long enough to
    outlast the test: the App, which respects the scope, must wait for it."""
    from ghattempt.exclusive import LeaseSettings, RefLease, Scope
    from ghattempt.store import GitHubRefBackend

    owner, name = p.repository.split("/")
    repository_id = s.ids[p.repository]
    scope = Scope(repository_id, s.journal(p).intent)
    lease = RefLease(GitHubRefBackend(emu.gh, owner, name, repository_id),
                     LeaseSettings(lease_seconds=60, request_timeout=5, clock_skew=1,
                                   acquire_timeout=10, holder_label="alice"))
    return scope, lease


@pytest.mark.parametrize("workers", [4, 1])
def test_a_waiting_scope_holds_back_only_itself_over_http(
        workers: int, emu2: Emu, server_factory: Callable[..., Server],
        example: Callable[..., dict[str, Any]]) -> None:
    from ghattempt.app.inbox import open_inbox

    s = Scenario(emu2, example)
    app = _store_server(emu2, server_factory, GHATTEMPT_APP_WORKERS=str(workers)).start()
    for p in (WAITING, *OTHERS):
        _accepted(app.post("pull_request", s.opened(p)))
    assert app.wait_idle(30) == {"pending": 0, "done": 4, "failed": 0}, app.log_text()
    scope, lease = _other_writer(emu2, s, WAITING)
    # three results of the waiting pull request, in this order; one for each other one
    waiting = [s.job(WAITING, c) for c in ("action_required", "action_required", "success")]
    others = {p: s.job(p, "success") for p in OTHERS}
    inbox = open_inbox(app.state)
    try:
        with lease.hold(scope):
            held: list[str] = []
            for body, _ in waiting:
                held.append(str(uuid.uuid4()))
                _accepted(app.post("workflow_job", body, delivery=held[-1]))
            # the App has read the lease and waits for alice (its notice, in its log)
            wait_until(lambda: f"for writer scope {scope.key}" in app.log_text(), 10)
            waited_from = time.monotonic()
            sent: dict[Pull, str] = {}
            for p, (body, _) in others.items():
                sent[p] = str(uuid.uuid4())
                _accepted(app.post("workflow_job", body, delivery=sent[p]))

            def others_done() -> bool:
                return all(_state(inbox, d) == "done" for d in sent.values())

            if workers > 1:
                wait_until(others_done, 10)
                # well inside the App's wait for the scope: no thread had given it up
                assert time.monotonic() - waited_from < ACQUIRE_TIMEOUT / 2
                for p, (_, key) in others.items():
                    assert s.keys(p) == [key], p
            else:
                time.sleep(3)  # the one thread waits for the scope: nothing else moves
                assert not any(_state(inbox, d) == "done" for d in sent.values())
                assert all(s.keys(p) == [] for p in OTHERS)
            assert [_state(inbox, d) for d in held] == ["pending"] * 3
            assert s.keys(WAITING) == []
        # alice lets the scope go: the waiting results land, in the order delivered
        assert app.wait_idle(30) == {"pending": 0, "done": 10, "failed": 0}, app.log_text()
    finally:
        inbox.close()
    assert s.keys(WAITING) == [key for _, key in waiting]
    for p, (_, key) in others.items():
        assert s.keys(p) == [key], p
