"""The durable inbox and the worker, in process, with the recording sink."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ghattempt.app.inbox import Admission, Inbox, open_inbox
from ghattempt.app.phases import PhaseMap
from ghattempt.app.recording import RecordingSink, read_calls, read_effects
from ghattempt.app.sink import SinkResult, SinkUnavailable
from ghattempt.app.worker import Worker, redact

from .conftest import encode


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def make_worker(tmp_path: Path, sink=None, **kw) -> tuple[Inbox, Worker, Path]:
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    rec = tmp_path / "rec.sqlite"
    sink = sink or RecordingSink(rec)
    worker = Worker(inbox, sink, app_id=7, phase_map=PhaseMap(), **kw)
    return inbox, worker, rec


def drain(worker: Worker) -> None:
    while worker.run_once() is None:
        pass


def test_accept_is_durable_and_deduplicates(tmp_path):
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    body = b'{"action":"opened"}'
    assert inbox.accept("d1", "pull_request", "opened", body).admission is Admission.NEW
    again = inbox.accept("d1", "pull_request", "opened", body)
    assert (again.admission, again.state) == (Admission.DUPLICATE, "pending")
    replay = inbox.accept("d2", "pull_request", "opened", body)
    assert (replay.admission, replay.delivery) == (Admission.REPLAY, "d1")
    conflict = inbox.accept("d1", "pull_request", "opened", b'{"action":"closed"}')
    assert conflict.admission is Admission.CONFLICT
    inbox.close()
    # a fresh connection (another process after a crash) sees the committed row
    conn = sqlite3.connect(tmp_path / "inbox.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT delivery, state FROM deliveries").fetchall() == [("d1", "pending")]
    assert open_inbox(tmp_path / "inbox.sqlite").next_pending().delivery == "d1"


def test_worker_sends_the_plan_and_a_second_run_has_no_second_effect(tmp_path, example):
    inbox, worker, rec = make_worker(tmp_path)
    inbox.accept("d1", "pull_request", "opened", encode(example("pull_request", "opened")))
    drain(worker)
    assert inbox.counts() == {"pending": 0, "done": 1, "failed": 0}
    (effect,) = read_effects(rec)
    assert effect["method"] == "open_intent" and effect["key"] == "gh:d1:open"
    # the head index now knows the pull request's head
    (intent,) = inbox.lookup_heads(
        effect["request"]["intent"]["repository_id"], effect["request"]["generation"]["head_sha"]
    )
    assert intent.pull_request == 2
    # as after a crash between the effect and the done mark: the redo is a no-op
    inbox._conn().execute("UPDATE deliveries SET state = 'pending'")
    drain(worker)
    assert [c["outcome"] for c in read_calls(rec)] == ["applied", "already-applied"]
    assert len(read_effects(rec)) == 1
    state, outcome = inbox.state_of("d1")
    assert state == "done" and outcome["results"][0]["outcome"] == "already-applied"


def test_unavailable_sink_is_retried_with_backoff_then_failed(tmp_path, example):
    clock = Clock()
    sink = RecordingSink(tmp_path / "rec.sqlite", unavailable=2)
    inbox, worker, rec = make_worker(tmp_path, sink, clock=clock, retry_base=4, max_tries=5)
    inbox.accept("d1", "pull_request", "opened", encode(example("pull_request", "opened")))
    inbox.accept("d2", "pull_request", "closed", encode(example("pull_request", "closed")))
    assert worker.run_once() is None  # try 1: unavailable
    assert worker.run_once() == pytest.approx(1.0)  # held 4 s; d2 waits behind it
    clock.now += 4
    assert worker.run_once() is None  # try 2: unavailable, held 8 s
    clock.now += 7
    assert worker.run_once() == pytest.approx(1.0)
    clock.now += 1
    drain(worker)
    assert [e["method"] for e in read_effects(rec)] == ["open_intent", "cancel"]  # in order
    assert inbox.counts()["done"] == 2

    always = RecordingSink(tmp_path / "rec2.sqlite", unavailable=100)
    inbox2 = open_inbox(tmp_path / "inbox2.sqlite")
    worker2 = Worker(
        inbox2, always, app_id=7, phase_map=PhaseMap(), clock=clock, retry_base=1, max_tries=3
    )
    inbox2.accept("d9", "pull_request", "opened", encode(example("pull_request", "opened")))
    for _ in range(3):
        clock.now += 100
        worker2.run_once()
    state, outcome = inbox2.state_of("d9")
    assert state == "failed" and "after 3 tries" in outcome["error"]
    assert inbox2.requeue_failed() == 1 and inbox2.counts()["pending"] == 1


class Exploding:
    def __init__(self, message: str) -> None:
        self.message = message

    def _boom(self, request) -> SinkResult:
        raise RuntimeError(self.message)

    open_intent = supersede_and_admit = record_phase = cancel = report_tampering = _boom


def test_sink_error_fails_the_delivery_without_leaking_secrets(tmp_path, example):
    secret = "s3cr3t-value-xyz"
    inbox, worker, _ = make_worker(
        tmp_path, Exploding(f"GitHub said no; token {secret}"), secrets=(secret,)
    )
    inbox.accept("d1", "pull_request", "opened", encode(example("pull_request", "opened")))
    drain(worker)
    state, outcome = inbox.state_of("d1")
    assert state == "failed"
    assert "RuntimeError: GitHub said no" in outcome["error"]
    assert secret not in json.dumps(outcome) and "***" in outcome["error"]


def test_unroutable_payload_is_failed_with_the_reason(tmp_path, example):
    inbox, worker, rec = make_worker(tmp_path)
    payload = example("pull_request", "opened")
    del payload["repository"]
    inbox.accept("d1", "pull_request", "opened", encode(payload))
    drain(worker)
    state, outcome = inbox.state_of("d1")
    assert state == "failed" and "repository.node_id" in outcome["error"]
    assert read_effects(rec) == []


def test_closed_forgets_the_current_head_and_keeps_it_as_a_past_one(tmp_path, example):
    inbox, worker, _ = make_worker(tmp_path)
    opened = example("pull_request", "opened")
    inbox.accept("d1", "pull_request", "opened", encode(opened))
    inbox.accept("d2", "pull_request", "closed", encode(example("pull_request", "closed")))
    repo, head = opened["repository"]["node_id"], opened["pull_request"]["head"]["sha"]
    worker.run_once()
    (intent,) = inbox.lookup_heads(repo, head)
    worker.run_once()
    assert inbox._conn().execute("SELECT COUNT(*) FROM heads").fetchone()[0] == 0
    # a late result for that head still finds the pull request: the store refuses it
    # at once (an earlier attempt's head) instead of it waiting for a pull request
    assert inbox.lookup_heads(repo, head) == [intent]


def test_redact_and_truncate():
    assert redact("a KEY b KEY", ["KEY", ""]) == "a *** b ***"
    assert len(redact("x" * 5000, [])) == 2001


def test_worker_thread_processes_and_stops(tmp_path, example):
    inbox, worker, rec = make_worker(tmp_path)
    worker.start()
    try:
        inbox.accept("d1", "pull_request", "opened", encode(example("pull_request", "opened")))
        worker.wake()
        import time

        deadline = time.monotonic() + 10
        while not read_effects(rec) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(read_effects(rec)) == 1
    finally:
        worker.stop()
    assert worker._thread is None


def test_sink_unavailable_carries_retry_after():
    exc = SinkUnavailable("rate limited", retry_after=30)
    assert exc.retry_after == 30 and str(exc) == "rate limited"


def test_concurrent_acceptances_are_group_committed_correctly(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    inbox = open_inbox(tmp_path / "inbox.sqlite")
    bodies = [f'{{"n":{i}}}'.encode() for i in range(40)]
    jobs = [(f"d{i}", bodies[i]) for i in range(40)]
    jobs += [(f"d{i}", bodies[i]) for i in range(0, 40, 2)]  # redeliveries
    jobs += [(f"x{i}", bodies[i]) for i in range(1, 40, 4)]  # replays under new ids
    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda j: inbox.accept(j[0], "e", "a", j[1]), jobs))
    kinds = [r.admission for r in results]
    assert kinds.count(Admission.NEW) == 40
    first: dict[bytes, set[str]] = {}
    for (delivery, body), r in zip(jobs, results):
        first.setdefault(body, set()).add(r.delivery)  # every answer names the first id
        if r.admission is Admission.DUPLICATE:
            assert r.delivery == delivery
    assert all(len(ids) == 1 for ids in first.values())
    assert inbox.counts()["pending"] == 40
    inbox.close()
    reopened = open_inbox(tmp_path / "inbox.sqlite")
    assert reopened.counts()["pending"] == 40
    reopened.close()


def test_an_acceptance_that_cannot_commit_in_time_times_out_and_lands_later(tmp_path):
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    with inbox._write:  # another writer holds the inbox
        with pytest.raises(TimeoutError, match="did not commit within 0.2 s"):
            inbox.accept("d1", "e", "a", b"{}", timeout=0.2)
    again = inbox.accept("d1", "e", "a", b"{}", timeout=5)  # GitHub's redelivery
    assert again.admission is Admission.DUPLICATE
    assert inbox.counts()["pending"] == 1
    inbox.close()


def test_worker_survives_a_failing_step(tmp_path, example, monkeypatch):
    import time

    import ghattempt.app.worker as worker_module

    monkeypatch.setattr(worker_module, "_STEP_RETRY", 0.05)
    inbox, worker, rec = make_worker(tmp_path)
    real = inbox.claim
    failures = []

    def flaky(now):
        if not failures:
            failures.append(1)
            raise sqlite3.OperationalError("database is locked")
        return real(now)

    monkeypatch.setattr(inbox, "claim", flaky)
    inbox.accept("d1", "pull_request", "opened", encode(example("pull_request", "opened")))
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while not read_effects(rec) and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        worker.stop()
    assert failures == [1]
    assert len(read_effects(rec)) == 1
    inbox.close()


def test_a_dead_committer_is_replaced(tmp_path):
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    assert inbox.accept("d1", "e", "a", b"{}").admission is Admission.NEW
    inbox._submissions.put(None)  # the committer ends, as if it had died
    inbox._committer.join(5)
    assert not inbox._committer.is_alive()
    assert inbox.accept("d2", "e", "a", b"[]", timeout=5).admission is Admission.NEW
    inbox.close()


def test_checkpoints_run_in_the_worker_not_in_acceptances(tmp_path, example, monkeypatch):
    inbox, worker, _ = make_worker(tmp_path)
    assert inbox._conn().execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    calls = []
    real = inbox.checkpoint
    monkeypatch.setattr(inbox, "checkpoint", lambda: (calls.append(1), real()))
    for i, action in enumerate(("opened", "synchronize", "closed")):
        inbox.accept(f"d{i}", "pull_request", action, encode(example("pull_request", action)))
    drain(worker)
    assert calls == [1]  # once, when the worker fell idle
    assert worker.run_once() == 1.0 and calls == [1]  # nothing new: no checkpoint
    inbox.close()


def test_the_apps_own_bot_login_is_asked_only_for_a_bot_sender_and_retried(tmp_path, example):
    """A delivery sent by a bot needs the App's own login (``GET /app``, which may fail:
    the delivery is tried again); one sent by a person never asks."""
    asked: list[int] = []

    def bot_login() -> str:
        asked.append(1)
        if len(asked) == 1:
            raise SinkUnavailable("GitHub is down")
        return "ghattempt-app[bot]"

    clock = Clock()
    inbox, worker, rec = make_worker(tmp_path, bot_login=bot_login, clock=clock)
    person = example("discussion_comment", "edited")
    inbox.accept("d1", "discussion_comment", "edited", encode(person))
    drain(worker)
    assert asked == [] and inbox.state_of("d1")[0] == "done"
    own = example("pull_request", "opened")
    own["sender"] = {"login": "ghattempt-app[bot]", "id": 9, "type": "Bot"}
    inbox.accept("d2", "pull_request", "opened", encode(own))
    drain(worker)
    assert asked == [1] and inbox.state_of("d2")[0] == "pending"
    clock.now += 60
    drain(worker)
    assert asked == [1, 1]
    assert inbox.state_of("d2") == ("done", {"results": [], "note": "event pull_request/opened "
                                             "was sent by this App itself"})
    assert read_effects(rec) == []
