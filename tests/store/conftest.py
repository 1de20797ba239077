"""Fixtures of the store tests: an in-process emulator, a provider and a store on it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ghattempt.emulator import Emulator, EmulatorServer
from ghattempt.github import GitHubProvider
from ghattempt.store import BusinessAttemptStore, Journal

from . import harness as h


class EmulatorClock:
    """A lease clock that follows the emulator's clock: moving the emulator's time
    forward also moves this writer's monotonic time (a paused process)."""

    def __init__(self, emu: Emulator) -> None:
        self._emu = emu

    def monotonic(self) -> float:
        return self._emu.clock.now()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, min(seconds, 0.05)))


@dataclass
class World:
    emu: Emulator
    gh: GitHubProvider
    repo_id: str
    store: BusinessAttemptStore
    journal: Journal

    def new_store(self, **kwargs: Any) -> BusinessAttemptStore:
        return h.store(self.gh, repo_id=self.repo_id, **kwargs)

    def comments(self) -> list[dict[str, Any]]:
        repo = next(r for r in self.emu.snapshot()["repositories"]
                    if r["nameWithOwner"] == h.REPO)
        disc = next(d for d in repo["discussions"] if d["number"] == self.journal.number)
        return disc["comments"]

    def records(self) -> list[dict[str, Any]]:
        return [h.record_of(c["body"]) for c in self.comments()]


@pytest.fixture
def world() -> World:
    emu = h.emulator()
    gh = h.provider(emu=emu)
    repo_id = h.repository_id(gh)
    lease = h.lease(gh, repo_id)
    store = h.store(gh, lease, repo_id=repo_id)
    journal = store.open_journal(1, "main")
    return World(emu, gh, repo_id, store, journal)


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
