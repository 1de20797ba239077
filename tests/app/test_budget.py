"""The App's content-creation budget (ghattempt.app.budget): one per actor, kept in the
inbox, shared by every worker and replica, on both backends (PostgreSQL with a real
server, ``GHATTEMPT_TEST_POSTGRES``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ghattempt.app.budget import CONTENT_WINDOWS, ContentBudget
from ghattempt.app.inbox import Inbox, open_inbox
from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorTransport
from ghattempt.github import GitHubProvider, ProviderConfig, RateLimited, TokenAuth


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "inbox.sqlite")
    url: str = request.getfixturevalue("postgres")
    return url


@pytest.fixture
def inbox(location: str) -> Iterator[Inbox]:
    opened = open_inbox(location)
    yield opened
    opened.close()


def budget(inbox: Inbox, clock: Clock, **options: object) -> ContentBudget:
    return ContentBudget(inbox, "app:1", clock=clock, sleep=clock.sleep,
                         **options)  # type: ignore[arg-type]


def spend(b: ContentBudget, n: int) -> None:
    for _ in range(n):
        with b.creating("AddDiscussionComment"):
            pass


def test_eighty_a_minute_then_a_wait_until_the_first_leaves_the_window(inbox):
    clock = Clock()
    b = budget(inbox, clock, max_wait=0)
    spend(b, 80)  # answered at once: each counts from its answer
    with pytest.raises(RateLimited) as refused:
        spend(b, 1)
    assert refused.value.kind == "secondary"
    assert refused.value.retry_after == pytest.approx(60, abs=0.01)
    assert "nothing was sent" in str(refused.value)
    clock.now += 60.01
    spend(b, 1)  # the first 80 left the minute's window


def test_a_request_waits_for_its_place_when_the_wait_is_short(inbox):
    clock = Clock()
    b = budget(inbox, clock, max_wait=120)
    spend(b, 80)
    clock.now += 30
    spend(b, 1)
    assert clock.slept and sum(clock.slept) == pytest.approx(30, abs=0.01)


def test_five_hundred_an_hour(inbox):
    clock = Clock()
    b = budget(inbox, clock, max_wait=0)
    first = clock.now
    for _ in range(7):  # 7 x 70 = 490 over 7 minutes, within 80 a minute
        spend(b, 70)
        clock.now += 61
    spend(b, 10)
    with pytest.raises(RateLimited) as refused:
        spend(b, 1)
    # the oldest leaves the hour's window an hour after its answer
    assert refused.value.retry_after == pytest.approx(first + 3600 - clock.now, abs=0.01)
    clock.now = first + 3600.01
    spend(b, 70)


def test_a_request_in_flight_counts_until_its_answer_and_then_a_window_more(inbox):
    clock = Clock()
    b = budget(inbox, clock, max_wait=0, grace=30)
    holds = []
    for _ in range(80):
        hold = b.creating("CreateCommitOnBranch")
        hold.__enter__()
        holds.append(hold)
    clock.now += 80  # none answered yet: they count (until taken + 60 + grace)
    with pytest.raises(RateLimited):
        spend(b, 1)
    for hold in holds:  # answered now: they count 60 s from now
        hold.__exit__(None, None, None)
    clock.now += 59
    with pytest.raises(RateLimited):
        spend(b, 1)
    clock.now += 1.01
    spend(b, 1)


def test_a_request_never_answered_counts_for_the_grace_too(inbox):
    clock = Clock()
    b = budget(inbox, clock, max_wait=0, grace=30)
    lost = [b.creating("CreateCommitOnBranch") for _ in range(80)]
    for hold in lost:  # a replica died while these were on their way: never settled
        hold.__enter__()
    clock.now += 89.9
    with pytest.raises(RateLimited):
        spend(b, 1)
    clock.now += 0.2
    spend(b, 1)


def test_one_budget_for_every_worker_of_every_replica(location):
    """Two inboxes on one database (SQLite: one file; PostgreSQL: two replicas), 8
    threads each taking places at the same moment: exactly the limit is given."""
    clock = Clock()
    replicas = [open_inbox(location), open_inbox(location)]
    budgets = [budget(inbox, clock, max_wait=0) for inbox in replicas]
    given = []
    lock = threading.Lock()

    def work(n: int) -> None:
        b = budgets[n % 2]
        for _ in range(12):  # 96 tries: one replica alone cannot give 80
            try:
                with b.creating("AddDiscussionComment"):
                    with lock:
                        given.append(n)
            except RateLimited:
                pass

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(work, range(8)))
    assert len(given) == 80
    assert {n % 2 for n in given} == {0, 1}  # both replicas wrote
    for inbox in replicas:
        inbox.close()


def test_actors_have_budgets_of_their_own(inbox):
    clock = Clock()
    spend(budget(inbox, clock, max_wait=0), 80)
    other = ContentBudget(inbox, "app:2", clock=clock, sleep=clock.sleep, max_wait=0)
    spend(other, 80)


def test_a_reservation_waits_for_a_deliverys_worth_and_its_requests_use_it(inbox):
    clock = Clock()
    b = budget(inbox, clock)
    spend(b, 78)
    assert b.has_room(2) and not b.has_room(4)
    reservation = b.reserve(4)  # waits for the first places to leave the window
    assert reservation is not None and sum(clock.slept) == pytest.approx(60, abs=0.01)
    assert not b.has_room(77)  # the 4 reserved count: 76 are free
    assert b.has_room(76)
    other = b.reserve(76)
    assert other is not None and not b.has_room(1)  # the budget is all reserved
    with pytest.raises(RateLimited):  # a request without a reservation finds no place
        spend(b, 1)
    with b.using(reservation):
        spend(b, 4)  # the reserved places, without waiting
        with pytest.raises(RateLimited):
            spend(b, 1)  # a fifth: none left, none free
    b.release(other)
    assert b.has_room(76)


def test_a_burst_tops_its_reservation_up_and_frees_what_it_did_not_use(inbox):
    clock = Clock()
    b = budget(inbox, clock)
    reservation = b.reserve(6)
    assert reservation is not None
    with b.using(reservation):
        spend(b, 5)
    assert b.top_up(reservation, 6)  # 1 left, 5 more reserved
    assert b.has_room(80 - 5 - 6) and not b.has_room(80 - 5 - 6 + 1)
    spend(b, 80 - 5 - 6)  # others take the rest
    with b.using(reservation):
        spend(b, 6)
    assert not b.top_up(reservation, 6)  # nothing free: the burst ends
    b.release(reservation)
    clock.now += 60.01
    assert b.has_room(80)


def test_a_stopping_worker_gives_up_its_wait(inbox):
    clock = Clock()
    b = budget(inbox, clock)
    spend(b, 80)
    asked: list[float] = []
    before = clock.now
    assert b.reserve(4, stop=lambda seconds: asked.append(seconds) or True) is None
    assert asked == [pytest.approx(60, abs=0.01)] and clock.now == before


def test_a_reserved_place_unused_for_the_grace_is_not_taken(inbox):
    clock = Clock()
    b = budget(inbox, clock, grace=30)
    reservation = b.reserve(80)
    clock.now += 31  # reserved longer ago than a request can be on its way
    with b.using(reservation), pytest.raises(RateLimited):
        spend(b, 1)  # not taken: a request sent now would outlive its count
    clock.now += 60  # 60 + grace after it was reserved, the place no longer counts
    spend(b, 1)


def test_a_time_scale_runs_the_windows_faster(inbox):
    clock = Clock()
    b = budget(inbox, clock, max_wait=0, time_scale=60)
    spend(b, 80)
    with pytest.raises(RateLimited) as refused:
        spend(b, 1)
    assert refused.value.retry_after == pytest.approx(1, abs=0.001)  # real seconds
    clock.now += 1.001
    spend(b, 1)


def test_githubs_windows_are_the_default():
    assert CONTENT_WINDOWS == ((60.0, 80), (3600.0, 500))


class Recorder:
    def __init__(self) -> None:
        self.operations: list[str] = []

    def creating(self, operation: str):  # type: ignore[no-untyped-def]
        import contextlib

        self.operations.append(operation)
        return contextlib.nullcontext()


def test_a_provider_paces_its_content_creating_requests_and_no_others():
    emu = Emulator(fixture=DEFAULT_FIXTURE)
    pacer = Recorder()
    gh = GitHubProvider(ProviderConfig(auth=TokenAuth("ghp_alice"),
                                       base_url="https://api.github.com/",
                                       transport=EmulatorTransport(emu), mutation_interval=0,
                                       content_pacer=pacer))
    repo = gh.repository("octo-org", "widgets")
    category = gh.discussion_category("octo-org", "widgets", "release-journal")
    discussion = gh.create_discussion(repo.id, category.id, "t", "b")
    gh.add_comment(discussion.id, "c")
    gh.capture("octo-org", "widgets", discussion.number)
    assert pacer.operations == ["CreateDiscussion", "AddDiscussionComment"]
