"""The worker pool in process: order within a lane, lanes in parallel, a waiting
delivery holding back its own lane only, out-of-order deliveries set aside and retried
for the window, a burst under the sink's hold."""

from __future__ import annotations

import contextlib
import copy
import sqlite3
import threading
import time
from collections.abc import Iterator
from typing import Any

from ghattempt.app.inbox import _V1, SCHEMA_VERSION, open_inbox
from ghattempt.app.phases import PhaseMap
from ghattempt.app.recording import RecordingSink, read_effects
from ghattempt.app.sink import Outcome, SinkResult, SinkUnavailable
from ghattempt.app.worker import Worker

from .conftest import encode, pr, wait_until


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now



def job(example, head: str, job_id: int = 1) -> dict[str, Any]:
    payload = example("workflow_job", "completed")
    payload["repository"] = copy.deepcopy(example("pull_request", "opened")["repository"])
    payload["workflow_job"].update(head_sha=head, id=job_id, conclusion="success")
    return payload



class Gate:
    """A sink that records calls, and can make one pull request's calls unavailable or
    make calls wait for each other."""

    def __init__(self, *, down: set[int] = frozenset(), barrier: threading.Barrier | None = None,
                 delay: float = 0.0) -> None:
        self.down = set(down)
        self.barrier = barrier
        self.delay = delay
        self.calls: list[tuple[int, str, str]] = []
        self.running: dict[int, int] = {}
        self.most: dict[int, int] = {}
        self.lock = threading.Lock()

    def _call(self, request) -> SinkResult:
        intent = getattr(request, "intent", None) or getattr(request, "admit", None)
        number = intent.pull_request if intent is not None else 0
        with self.lock:
            self.running[number] = self.running.get(number, 0) + 1
            self.most[number] = max(self.most.get(number, 0), self.running[number])
        try:
            if self.barrier is not None:
                self.barrier.wait()
            if self.delay:
                time.sleep(self.delay)
            if number in self.down:
                raise SinkUnavailable(f"#{number} is rate limited", retry_after=0.05)
            with self.lock:
                self.calls.append((number, type(request).__name__, request.key))
            return SinkResult(Outcome.APPLIED)
        finally:
            with self.lock:
                self.running[number] -= 1

    open_intent = supersede_and_admit = record_phase = cancel = report_tampering = _call


def test_lanes_run_at_the_same_time(tmp_path, example):
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    sink = Gate(barrier=threading.Barrier(2, timeout=30))  # two calls must meet
    worker = Worker(inbox, sink, app_id=7, phase_map=PhaseMap(), workers=2)
    inbox.accept("a", "pull_request", "opened", encode(pr(example, "opened", 1)))
    inbox.accept("b", "pull_request", "opened", encode(pr(example, "opened", 2)))
    worker.start()
    try:
        wait_until(lambda: inbox.counts()["done"] == 2)
    finally:
        worker.stop()
    assert sorted(n for n, _, _ in sink.calls) == [1, 2]
    inbox.close()


def test_one_lane_keeps_its_order_and_never_runs_twice_at_once(tmp_path, example):
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    sink = Gate(delay=0.01)
    worker = Worker(inbox, sink, app_id=7, phase_map=PhaseMap(), workers=4)
    heads = [f"{i:040x}" for i in range(1, 13)]
    expected: dict[int, list[str]] = {1: [], 2: []}
    for i, head in enumerate(heads):
        number = 1 + i % 2
        action = "opened" if i < 2 else "synchronize"
        inbox.accept(f"d{i}", "pull_request", action, encode(pr(example, action, number, head)))
        expected[number].append(f"gh:d{i}:{'open' if i < 2 else 'synchronize'}")
    worker.start()
    try:
        wait_until(lambda: inbox.counts()["done"] == len(heads))
    finally:
        worker.stop()
    for number in (1, 2):
        assert [k for n, _, k in sink.calls if n == number] == expected[number]
        assert sink.most[number] == 1
    inbox.close()


def test_a_waiting_delivery_holds_back_only_its_own_lane(tmp_path, example):
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    sink = Gate(down={1})
    worker = Worker(inbox, sink, app_id=7, phase_map=PhaseMap(), workers=2, retry_base=0.05,
                    max_tries=1000)
    inbox.accept("a1", "pull_request", "opened", encode(pr(example, "opened", 1)))
    inbox.accept("a2", "pull_request", "closed", encode(pr(example, "closed", 1)))
    inbox.accept("b1", "pull_request", "opened", encode(pr(example, "opened", 2)))
    inbox.accept("b2", "pull_request", "closed", encode(pr(example, "closed", 2)))
    worker.start()
    try:
        wait_until(lambda: len(sink.calls) == 2)  # pull request 2, while 1 is retried
        assert [k for _, _, k in sink.calls] == ["gh:b1:open", "gh:b2:closed"]
        assert inbox.state_of("a1")[0] == "pending" and inbox.state_of("a2")[0] == "pending"
        sink.down.clear()  # the rate limit ends
        wait_until(lambda: inbox.counts()["done"] == 4)
    finally:
        worker.stop()
    assert [k for n, _, k in sink.calls if n == 1] == ["gh:a1:open", "gh:a2:closed"]
    inbox.close()


class Journal:
    """A sink that, like the store, has results wait until their attempt is admitted."""

    def __init__(self, deaf: set[int] = frozenset()) -> None:
        self.heads: dict[int, str] = {}
        self.recorded: list[str] = []
        self.deaf = deaf  # pull requests whose admissions never land
        self.lock = threading.Lock()

    def open_intent(self, request) -> SinkResult:
        if request.intent.pull_request not in self.deaf:
            with self.lock:
                self.heads[request.intent.pull_request] = request.generation.head_sha
        return SinkResult(Outcome.APPLIED)

    def record_phase(self, request) -> SinkResult:
        with self.lock:
            if self.heads.get(request.intent.pull_request) != request.head_sha:
                return SinkResult(Outcome.NOT_YET, f"no attempt at head {request.head_sha}")
            self.recorded.append(request.key)
        return SinkResult(Outcome.APPLIED)

    def cancel(self, request) -> SinkResult:
        return SinkResult(Outcome.APPLIED)

    report_tampering = cancel


def test_a_result_before_its_pull_request_is_set_aside_then_lands(tmp_path, example):
    clock = Clock()
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    sink = Journal()
    worker = Worker(inbox, sink, app_id=7, phase_map=PhaseMap(), clock=clock, retry_base=2)
    head = "ab" * 20
    result = job(example, head)
    run_id = result["workflow_job"]["run_id"]
    inbox.accept("j1", "workflow_job", "completed", encode(result))
    inbox.accept("p1", "pull_request", "opened", encode(pr(example, "opened", 5, head)))
    assert worker.run_once() is None  # the job: no pull request has that head yet
    state, outcome = inbox.state_of("j1")
    assert state == "pending" and "no pull request is known to have head" in outcome["waiting"]
    assert worker.run_once() is None  # the pull request goes on (the job stepped aside)
    assert sink.heads == {5: head}
    assert worker.run_once() == 1.0  # the job waits 2 s
    clock.now += 2
    assert worker.run_once() is None
    assert sink.recorded == [f"run:{run_id}:1:job:1:cfg:succeeded"]
    assert inbox.counts() == {"pending": 0, "done": 2, "failed": 0}
    inbox.close()


def test_waiting_ends_after_the_window_refused_with_the_reason(tmp_path, example):
    clock = Clock()
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    sink = Journal(deaf={6})
    worker = Worker(inbox, sink, app_id=7, phase_map=PhaseMap(), clock=clock, retry_base=2,
                    retry_window=30)
    other = "cd" * 20
    inbox.accept("p1", "pull_request", "opened", encode(pr(example, "opened", 6, other)))
    assert worker.run_once() is None
    inbox.accept("j1", "workflow_job", "completed", encode(job(example, other)))
    tries = 0
    while inbox.counts()["pending"]:
        delay = worker.run_once()
        tries += 1
        clock.now += delay or 0
        assert tries < 40
    state, outcome = inbox.state_of("j1")
    (result,) = outcome["results"]
    assert state == "done" and result["outcome"] == "refused"
    assert result["detail"] == ("still not there 30 s after the delivery was accepted: "
                                f"no attempt at head {other}")
    assert clock.now - time.time() <= 31  # tried until the window's end, not beyond
    inbox.close()


class Holding(Gate):
    def __init__(self) -> None:
        super().__init__()
        self.holds: list[str] = []
        self.inside = False

    @contextlib.contextmanager
    def hold(self, lane: str) -> Iterator[None]:
        self.holds.append(lane)
        self.inside = True
        try:
            yield
        finally:
            self.inside = False

    def _call(self, request) -> SinkResult:
        assert self.inside, "a burst's call outside the hold"
        return super()._call(request)

    open_intent = supersede_and_admit = record_phase = cancel = report_tampering = _call


def test_a_burst_of_one_lane_is_written_under_one_hold(tmp_path, example):
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    sink = Holding()
    for i, action in enumerate(("opened", "synchronize", "closed")):
        inbox.accept(f"d{i}", "pull_request", action,
                     encode(pr(example, action, 3, f"{i + 1:040x}")))
    worker = Worker(inbox, sink, app_id=7, phase_map=PhaseMap(), workers=1)
    worker.start()
    try:
        wait_until(lambda: inbox.counts()["done"] == 3)
    finally:
        worker.stop()
    assert len(sink.holds) == 1 and sink.holds[0].startswith("pr:")
    assert [k for _, _, k in sink.calls] == ["gh:d0:open", "gh:d1:synchronize", "gh:d2:closed"]
    inbox.close()


def test_an_inbox_of_version_1_is_migrated_and_its_deliveries_keep_one_order(tmp_path,
                                                                             example):
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(_V1)
    for i, number in enumerate((1, 2)):
        body = encode(pr(example, "opened", number))
        conn.execute("INSERT INTO deliveries (delivery, event, action, body_sha256, body, "
                     "received_at, state) VALUES (?, 'pull_request', 'opened', ?, ?, ?, "
                     "'pending')", (f"old{i}", f"{i:064x}", body, time.time()))
    conn.commit()
    conn.close()
    inbox = open_inbox(path)
    assert inbox.schema_found == 1
    assert inbox._conn().execute("SELECT version FROM inbox_schema").fetchone()[0] == (
        SCHEMA_VERSION)
    rec = tmp_path / "rec.sqlite"
    worker = Worker(inbox, RecordingSink(rec), app_id=7, phase_map=PhaseMap())
    while worker.run_once() is None:
        pass
    assert [e["key"] for e in read_effects(rec)] == ["gh:old0:open", "gh:old1:open"]
    assert open_inbox(path).schema_found == SCHEMA_VERSION
    inbox.close()


def test_a_free_lane_is_found_behind_many_held_ones(tmp_path, example, monkeypatch):
    import ghattempt.app.inbox as inbox_module

    monkeypatch.setattr(inbox_module, "_CANDIDATES", 4)
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    for n in range(1, 12):
        inbox.accept(f"d{n}", "pull_request", "opened", encode(pr(example, "opened", n)))
    now = time.time()
    held = [inbox.claim(now) for _ in range(10)]  # ten lanes taken (by other workers)
    assert [c.item.delivery for c in held] == [f"d{n}" for n in range(1, 11)]
    last = inbox.claim(now)  # three pages of candidates later
    assert last is not None and last.item.delivery == "d11"
    assert inbox.claim(now) is None
    inbox.close()


def test_a_spent_content_budget_holds_every_lane_back_until_it_has_room(tmp_path, example):
    """The worker's gate: with GitHub's content budget spent, no lane is claimed (no
    delivery is handled, nothing is held) until a delivery's worth is free again."""
    from ghattempt.app.budget import ContentBudget

    inbox = open_inbox(tmp_path / "inbox.sqlite")
    budget = ContentBudget(inbox, "app:1", windows=((1.5, 4), (3600.0, 500)))
    for _ in range(4):  # the minute's window (here 1.5 s) is full
        with budget.creating("AddDiscussionComment"):
            pass
    spent = time.time()
    sink = Gate()
    worker = Worker(inbox, sink, app_id=1, phase_map=PhaseMap(), workers=2, budget=budget)
    inbox.accept("d1", "pull_request", "opened", encode(pr(example, "opened", 1, "a" * 40)))
    worker.start()
    try:
        wait_until(lambda: sink.calls)
        handled = time.time()
    finally:
        worker.stop()
    assert handled - spent >= 1.4  # not before the spent places left the window
    assert [c[0] for c in sink.calls] == [1]
