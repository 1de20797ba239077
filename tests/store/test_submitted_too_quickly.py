"""GitHub's "was submitted too quickly" over the HTTP emulator (issue 23, section 1): a
secondary limit on content creation whose write may or may not have landed
(cli/cli#4801). The writers wait at least a minute (doubling, announced), read back, and
send the same bytes again only when the write is absent; the waits go through the
provider's injected sleep, so these tests do not sleep minutes.

Before: ``github/retry.py`` read the answer as a definite refusal (``GraphQLRefused``):
an append failed its step (exit 5 now, 4 before), and a lease write read the ref back
unmoved and became a non-retryable error."""

from __future__ import annotations

import time
from typing import Any

import pytest

from ghattempt.cli._errors import EXIT_BY_FAULT
from ghattempt.core import ActionsWriter
from ghattempt.errors import Fault
from ghattempt.exclusive import RefLease
from ghattempt.github import GitHubProvider, ProviderConfig, RateLimited, RetryPolicy, TokenAuth
from ghattempt.store import BusinessAttemptStore, GitHubRefBackend, JournalOptions

from . import harness as h
from .conftest import Served

pytestmark = pytest.mark.network

KEY = "merge/pr-1@main"


class Waits:
    """The provider's sleep: records each wait, sleeps none; GitHub's clock (the
    emulator's) moves on by the wait, as it would."""

    def __init__(self, emu: Any = None) -> None:
        self.seconds: list[float] = []
        self._emu = emu

    def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)
        if self._emu is not None and seconds > 0:
            self._emu.clock.advance(seconds)

    def long(self) -> list[float]:
        return [s for s in self.seconds if s >= 10]


class LeaseClock:
    """The lease's local clock: real time plus the waits it was asked for (not slept)."""

    def __init__(self, waits: Waits) -> None:
        self._waits = waits
        self._skipped = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self._skipped

    def sleep(self, seconds: float) -> None:
        self._waits(seconds)
        self._skipped += max(seconds, 0.0)


def writer(world: Served, waits: Waits, notices: list[str]) -> BusinessAttemptStore:
    gh = GitHubProvider(ProviderConfig(
        auth=TokenAuth(h.WRITER_TOKENS[0]), base_url=world.url.rstrip("/") + "/api/v3/",
        timeout=5.0, connect_timeout=5.0, mutation_interval=0.0, sleep=waits,
        retry=RetryPolicy(max_attempts=4, backoff_base=0.01, backoff_cap=0.05,
                          lag_base=0.01, lag_cap=0.05, max_wait=30)))  # secondary: 60 s
    rid = h.repository_id(gh)
    store = BusinessAttemptStore(
        gh, JournalOptions(repository=h.REPO, repository_id=rid, category=h.CATEGORY,
                           writer_login=h.LOGIN, writer_id=h.LOGIN_ID),
        exclusive=RefLease(GitHubRefBackend(gh, h.OWNER, h.NAME, rid), h.settings(),
                           clock=LeaseClock(waits), notice=notices.append),
        writer=ActionsWriter(101, 1, "release", "Release"),
        reader=h.READER, notice=notices.append)
    store.initialise()
    return store


def admitted(store: BusinessAttemptStore) -> tuple[Any, str]:
    journal = store.open_journal(1, "main")
    with store.session(journal) as s:
        attempt = s.admit(request_key=KEY, generation=h.generation(), plan=h.PLAN,
                          channel="release", expires_at=h.FAR)
    return journal, attempt.id


def bodies(world: Served) -> list[str]:
    return [c["body"] for d in world.discussions() for c in d["comments"]]


@pytest.mark.parametrize("landed", [True, False], ids=["landed", "not-landed"])
def test_an_append_answered_too_quickly_waits_reads_back_and_records_once(
        serve: Any, landed: bool) -> None:
    world = serve()
    waits, notices = Waits(world.emu), []
    store = writer(world, waits, notices)
    journal, attempt = admitted(store)
    before = len(bodies(world))
    world.emu.clear_request_log()
    world.emu.add_fault({"kind": "submitted_too_quickly", "operation": "addDiscussionComment",
                         "count": 1, "landed": landed})
    written = store.append(journal, attempt, key="admission-started", phase="admission",
                           status="started")
    after = bodies(world)
    assert len(after) == before + 1  # exactly one copy, whether the first send landed
    assert sum(written.event.digest in b for b in after) == 1 or \
        sum('"admission-started"' in b for b in after) == 1
    assert waits.long() == [60.0]  # at least a minute before reading back
    told = [n for n in notices if "was submitted too quickly" in n]
    assert told and told[0].startswith("waiting 60 s: "), notices
    sends = [e for e in world.emu.request_log()
             if e["operation"] in ("AddDiscussionComment", "addDiscussionComment")]
    assert len(sends) == (1 if landed else 2), sends  # sent again only when absent


def test_a_limit_that_lasts_ends_in_try_again_with_nothing_written(serve: Any) -> None:
    world = serve()
    waits, notices = Waits(world.emu), []
    store = writer(world, waits, notices)
    journal, attempt = admitted(store)
    before = len(bodies(world))
    world.emu.add_fault({"kind": "submitted_too_quickly", "operation": "addDiscussionComment"})
    with pytest.raises(RateLimited) as info:
        store.append(journal, attempt, key="admission-started", phase="admission",
                     status="started")
    assert waits.long() == [60.0, 120.0, 240.0]  # doubling, announced each time
    assert len([n for n in notices if "was submitted too quickly" in n]) == 3
    assert len(bodies(world)) == before  # nothing landed
    assert info.value.fault is Fault.GITHUB_UNAVAILABLE and info.value.retry_after == 480.0
    assert EXIT_BY_FAULT[info.value.fault] == 4  # try again, not "a person must act"
    assert "nothing was written" in str(info.value)


@pytest.mark.parametrize("landed", [True, False], ids=["landed", "not-landed"])
def test_a_lease_write_answered_too_quickly_is_read_back_not_refused(
        serve: Any, landed: bool) -> None:
    world = serve()
    waits, notices = Waits(world.emu), []
    store = writer(world, waits, notices)
    world.emu.add_fault({"kind": "submitted_too_quickly", "operation": "createRef",
                         "count": 1, "landed": landed})
    journal, attempt = admitted(store)  # the first hold creates the lease ref
    assert attempt.startswith("sha256:")
    assert waits.long() == [60.0]
    assert any("was submitted too quickly" in n and "lease ref" in n for n in notices)
    refs = [e for e in world.emu.request_log() if e["operation"] in ("CreateRef", "createRef")]
    assert len(refs) == (1 if landed else 2), refs


@pytest.mark.parametrize("landed", [True, False], ids=["landed", "not-landed"])
def test_the_journals_creation_answered_too_quickly_makes_one_journal(
        serve: Any, landed: bool) -> None:
    world = serve()
    waits, notices = Waits(world.emu), []
    store = writer(world, waits, notices)
    world.emu.add_fault({"kind": "submitted_too_quickly", "operation": "createDiscussion",
                         "count": 1, "landed": landed})
    journal, attempt = admitted(store)
    assert attempt.startswith("sha256:")
    assert len(world.discussions()) == 1  # one journal, whether the first send landed
    assert 60.0 in waits.long()
    assert any("was submitted too quickly" in n and "journal" in n for n in notices)


def test_the_app_retries_it_later_rather_than_failing_the_delivery() -> None:
    from ghattempt.app.store_sink import OUTCOME_BY_FAULT
    from ghattempt.github import SubmittedTooQuickly

    sent = SubmittedTooQuickly("adding a record to the journal: too quickly", retry_after=60.0)
    spent = RateLimited("nothing was written", kind="secondary", retry_after=480.0)
    for error in (sent, spent):
        assert error.fault in OUTCOME_BY_FAULT and OUTCOME_BY_FAULT[error.fault] is None
        assert error.retry_after is not None and error.retry_after >= 60
