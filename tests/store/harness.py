"""Shared wiring for the store tests: an emulator, providers, leases and stores.

Used in-process by the tests and by the writer subprocesses (``writer.py``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import httpx

from ghattempt.core import ActionsWriter, Generation, Intent
from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorTransport
from ghattempt.exclusive import (
    ExclusiveAdapter,
    InMemoryExclusive,
    LeaseSettings,
    RefLease,
    Scope,
)
from ghattempt.github import GitHubProvider, ProviderConfig, RetryPolicy, TokenAuth
from ghattempt.store import BusinessAttemptStore, GitHubRefBackend, JournalOptions

OWNER, NAME = "octo-org", "widgets"
REPO = f"{OWNER}/{NAME}"
LOGIN, LOGIN_ID = "github-actions", 41898282
CATEGORY = "release-journal"
READER = "sha256:" + "ab" * 32
PLAN = ("admission", "build", "review", "merge")
FAR = "2099-01-01T00:00:00Z"
WRITER_TOKENS = tuple(f"ghs_writer{i}" for i in range(10))


def fixture(tokens: tuple[str, ...] = WRITER_TOKENS) -> dict[str, Any]:
    """The default emulator fixture plus many writer tokens of the Actions bot with a
    large budget (each writer process uses its own token)."""
    data = copy.deepcopy(DEFAULT_FIXTURE)
    for token in tokens:
        data["tokens"].append({"token": token, "actor": LOGIN, "role": "write",
                               "rate_limit": 1_000_000})
    data["tokens"].append({"token": "ghs_readonly", "actor": LOGIN, "role": "read",
                           "rate_limit": 1_000_000})
    # GitHub's secondary limits are per actor; every writer here is the Actions bot
    data["limits"] = {"content_per_minute": 100_000, "content_per_hour": 1_000_000,
                      "points_per_minute": 1_000_000, "rest_points_per_minute": 1_000_000}
    return data


def emulator(db: str = ":memory:") -> Emulator:
    return Emulator(db, fixture())


def provider(*, emu: Emulator | None = None, url: str | None = None,
             token: str = WRITER_TOKENS[0], timeout: float = 5.0,
             transport: httpx.BaseTransport | None = None, lag: bool = False) -> GitHubProvider:
    """A provider over the in-process emulator (``emu``), over HTTP (``url``) or over
    ``transport`` (e.g. a wrapped :class:`EmulatorTransport`). ``lag``: re-reads of
    lagging replicas last up to about 10 s (else a fraction of a second)."""
    if transport is None and emu is not None:
        transport = EmulatorTransport(emu)
    base = "https://api.github.com/" if url is None else url.rstrip("/") + "/api/v3/"
    retry = RetryPolicy(max_attempts=4, backoff_base=0.01, backoff_cap=0.05,
                        lag_base=0.2 if lag else 0.01, lag_cap=2.0 if lag else 0.05,
                        lag_attempts=8 if lag else 5, secondary_min_wait=0.1, max_wait=30)
    return GitHubProvider(ProviderConfig(auth=TokenAuth(token), base_url=base,
                                         timeout=timeout, connect_timeout=timeout,
                                         mutation_interval=0.0, retry=retry,
                                         transport=transport))


def settings(**changes: Any) -> LeaseSettings:
    base: dict[str, Any] = {"lease_seconds": 60, "request_timeout": 5.0, "server_bound": 10.0,
                            "clock_skew": 1.0, "acquire_timeout": 120.0,
                            "backoff_initial": 0.02, "backoff_max": 0.2, "holder_label": "test"}
    base.update(changes)
    return LeaseSettings(**base)


def repository_id(gh: GitHubProvider) -> str:
    return gh.repository(OWNER, NAME).id


def lease(gh: GitHubProvider, repo_id: str, **changes: Any) -> RefLease:
    return RefLease(GitHubRefBackend(gh, OWNER, NAME, repo_id), settings(**changes))


def store(gh: GitHubProvider, exclusive: ExclusiveAdapter | None = None, *,
          repo_id: str | None = None, writer: ActionsWriter | None = None,
          observer: Callable[[str], None] | None = None,
          journal_title: Callable[[Intent], str] | None = None) -> BusinessAttemptStore:
    rid = repo_id if repo_id is not None else repository_id(gh)
    adapter = exclusive if exclusive is not None else lease(gh, rid)
    s = BusinessAttemptStore(gh, JournalOptions(repository=REPO, repository_id=rid,
                                                category=CATEGORY, writer_login=LOGIN,
                                                writer_id=LOGIN_ID, title=journal_title),
                             exclusive=adapter,
                             writer=writer or ActionsWriter(101, 1, "release", "Release"),
                             reader=READER, observer=observer)
    s.initialise()
    return s


def generation(n: int = 1, base: int = 1) -> Generation:
    return Generation(source_commit=f"{n:040x}", tree=f"{n + 1000:040x}",
                      config_path=".github/ghattempt.toml", config_blob=f"{n + 2000:040x}",
                      config_digest="sha256:" + f"{n:064x}", base_ref="main",
                      base_commit=f"{base + 3000:040x}")


class NoExclusion(InMemoryExclusive):
    """An adapter that excludes nothing: for the test that shows forks are detected."""

    def hold(self, scope: Scope, **kwargs: Any) -> Any:
        # A fresh in-memory adapter per hold: every caller "owns" the scope at once.
        return InMemoryExclusive().hold(scope)

    def run(self, scope: Scope, fn: Any) -> Any:
        with self.hold(scope) as owner:
            return fn(owner)


def replies_of(emu_state: dict[str, Any], number: int) -> list[dict[str, Any]]:
    """Every reply comment of discussion ``number`` in an emulator snapshot."""
    repo = next(r for r in emu_state["repositories"] if r["nameWithOwner"] == REPO)
    disc = next(d for d in repo["discussions"] if d["number"] == number)
    return [c for c in disc["comments"] if c["reply_to"] is not None]


def record_of(body: str) -> dict[str, Any]:
    """The JSON record inside a comment body."""
    line = body.split("```json\n", 1)[1].split("\n", 1)[0]
    return json.loads(line)
