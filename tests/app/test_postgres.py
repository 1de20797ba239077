"""The inbox in PostgreSQL (a real server, ``GHATTEMPT_TEST_POSTGRES``): replicas that
deduplicate against each other, share the lanes, migrate one at a time, and finish a
dead replica's accepted deliveries exactly once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest

from ghattempt.app.inbox import SCHEMA_VERSION, Admission, open_inbox
from ghattempt.app.phases import PhaseMap
from ghattempt.app.recording import RecordingSink, read_calls, read_effects
from ghattempt.app.worker import Worker

from .conftest import ROOT, encode, free_port, pr, wait_until

pytestmark = pytest.mark.network




def test_replicas_deduplicate_against_each_other(postgres):
    one, two = open_inbox(postgres), open_inbox(postgres)
    bodies = [f'{{"n":{i}}}'.encode() for i in range(30)]
    jobs = [(inbox, f"d{i}", bodies[i]) for i in range(30) for inbox in (one, two)]
    jobs += [(two, f"x{i}", bodies[i]) for i in range(0, 30, 3)]  # replays, new ids
    with ThreadPoolExecutor(12) as pool:
        results = list(pool.map(lambda j: j[0].accept(j[1], "e", "a", j[2]), jobs))
    kinds = [r.admission for r in results]
    assert kinds.count(Admission.NEW) == 30
    assert kinds.count(Admission.DUPLICATE) == 30
    assert kinds.count(Admission.REPLAY) == 10
    assert one.counts() == two.counts() == {"pending": 30, "done": 0, "failed": 0}
    assert one.accept("d0", "e", "a", b"{}").admission is Admission.CONFLICT
    one.close()
    two.close()


def test_replicas_migrate_one_at_a_time(postgres):
    with ThreadPoolExecutor(4) as pool:
        inboxes = list(pool.map(lambda _: open_inbox(postgres), range(4)))
    assert sorted(i.schema_found for i in inboxes) == [0] + [SCHEMA_VERSION] * 3
    with psycopg.connect(postgres) as conn:
        assert conn.execute("SELECT version FROM inbox_schema").fetchall() == [
            (SCHEMA_VERSION,)]
    for inbox in inboxes:
        inbox.close()


def test_a_lane_is_held_by_one_replica_and_freed_when_its_session_ends(postgres, example):
    one, two = open_inbox(postgres), open_inbox(postgres)
    one.accept("a", "pull_request", "opened", encode(pr(example, "opened", 1, "a" * 40)))
    one.accept("b", "pull_request", "opened", encode(pr(example, "opened", 2, "b" * 40)))
    now = time.time()
    first = one.claim(now)
    assert first is not None and first.item.delivery == "a"
    second = two.claim(now)  # lane 1 is held: the other replica takes lane 2
    assert second is not None and second.item.delivery == "b"
    assert two.claim(now) is None and one.claim(now) is None
    # a replica that dies holds nothing: its session ends, its lanes are free (once the
    # server has noticed the closed connection: a moment, not a lease's length)
    one.close()
    deadline = time.monotonic() + 10
    while (taken := two.claim(time.time())) is None:
        assert time.monotonic() < deadline, "the closed session's lane stayed held"
        time.sleep(0.02)
    assert taken.item.delivery == "a"
    two.close()


def test_two_pools_share_the_lanes_in_order_and_apply_each_effect_once(postgres, example,
                                                                       tmp_path):
    rec = tmp_path / "rec.sqlite"
    sink = RecordingSink(rec, delay=0.01)
    inboxes = [open_inbox(postgres), open_inbox(postgres)]
    workers = [Worker(i, sink, app_id=7, phase_map=PhaseMap(), workers=3) for i in inboxes]
    expected: dict[int, list[str]] = {}
    for i in range(40):
        number = i % 8 + 1
        action = "opened" if i < 8 else "synchronize"
        inboxes[i % 2].accept(f"d{i}", "pull_request", action,
                              encode(pr(example, action, number, f"{i + 1:040x}")))
        expected.setdefault(number, []).append(
            f"gh:d{i}:{'open' if action == 'opened' else 'synchronize'}")
    for worker in workers:
        worker.start()
    try:
        wait_until(lambda: inboxes[0].counts()["done"] == 40)
    finally:
        for worker in workers:
            worker.stop()
    effects = read_effects(rec)
    assert len(effects) == 40 and len({e["key"] for e in effects}) == 40
    for number, keys in expected.items():
        assert [e["key"] for e in effects if _number(e) == number] == keys
    for inbox in inboxes:
        inbox.close()


def _number(effect: dict[str, Any]) -> int:
    request = effect["request"]
    return int((request.get("intent") or request["admit"])["pull_request"])


def test_a_replica_killed_mid_burst_leaves_its_work_to_another_exactly_once(
        postgres, server_factory, example):
    """Two server processes on one PostgreSQL inbox behind a round-robin sender; every
    fourth delivery is also redelivered to the other replica (GitHub's redelivery landing
    elsewhere behind the load balancer): one copy is accepted, the other is a duplicate.
    One replica is SIGKILLed while its workers are inside their lanes' bursts; the other
    finishes every accepted delivery, each effect once, each lane in order, and takes
    over lanes the dead one had begun."""
    one = server_factory(GHATTEMPT_APP_STATE="", GHATTEMPT_APP_DATABASE=postgres,
                         GHATTEMPT_APP_RECORDING_DELAY="0.5")
    two = server_factory(GHATTEMPT_APP_STATE="", GHATTEMPT_APP_DATABASE=postgres,
                         GHATTEMPT_APP_RECORDING=str(one.recording),
                         GHATTEMPT_APP_RECORDING_DELAY="0.5")
    one.start()
    two.start()
    assert one.proc is not None and two.proc is not None
    pids = {"one": one.proc.pid, "two": two.proc.pid}
    sent: list[tuple[int, str]] = []
    lanes = 8
    plan = [(i % lanes + 1, "opened" if i < lanes else "synchronize") for i in range(64)]
    killed_with_pending = -1
    answers: dict[int, int] = {}
    for i, (number, action) in enumerate(plan):
        pair = [one, two] if i % 2 == 0 else [two, one]
        alive = [server for server in pair if server.proc is not None]
        body = encode(pr(example, action, number, f"{i + 1:040x}"))
        delivery = f"burst-{i}"
        # the delivery; every fourth one then redelivered to the other replica
        for server in alive[:2 if i % 4 == 0 else 1]:
            status = server.post("pull_request", body, delivery=delivery).status_code
            answers[status] = answers.get(status, 0) + 1
        sent.append((number, f"gh:{delivery}:{'open' if action == 'opened' else 'synchronize'}"))
        if i == 31:  # the load balancer's other replica dies, work in hand
            wait_until(lambda: len(read_effects(one.recording)) >= 4)
            one.kill()
            killed_with_pending = two.health()["inbox"]["pending"]
    assert killed_with_pending > 0
    assert answers == {202: len(plan), 200: 8}  # each accepted once; the 8 redeliveries
    counts = two.wait_idle(120)
    assert counts == {"pending": 0, "done": len(plan), "failed": 0}, two.log_text()
    effects = read_effects(two.recording)
    assert sorted(e["key"] for e in effects) == sorted(k for _, k in sent)  # each once
    for number in range(1, lanes + 1):
        order = [k for n, k in sent if n == number]
        assert [e["key"] for e in effects if e["key"] in order] == order
    # the delivery the dead replica had in hand was redone: already applied, no effect
    calls = read_calls(two.recording)
    assert len(calls) >= len(effects)
    # lanes the dead replica had begun, finished by the other one
    by_lane: dict[str, list[int]] = {}
    for call in calls:
        by_lane.setdefault(call["scope"], []).append(call["pid"])
    assert {pid for pids_ in by_lane.values() for pid in pids_} == set(pids.values())
    handed_over = [scope for scope, made in by_lane.items()
                   if pids["one"] in made and made[-1] == pids["two"]]
    assert handed_over, by_lane
    assert "Traceback" not in two.log_text()


def test_workers_wake_on_another_replicas_acceptance(postgres, example, tmp_path,
                                                     monkeypatch):
    import ghattempt.app.worker as worker_module

    monkeypatch.setattr(worker_module, "_IDLE", 60.0)  # idle workers do not look again
    rec = tmp_path / "rec.sqlite"
    idle, accepting = open_inbox(postgres), open_inbox(postgres)
    worker = Worker(idle, RecordingSink(rec), app_id=7, phase_map=PhaseMap(), workers=2)
    worker.start()
    try:
        time.sleep(1.0)  # both workers found nothing and wait
        accepting.accept("n1", "pull_request", "opened",
                         encode(pr(example, "opened", 9, "9" * 40)))
        # only the notification of the other replica's acceptance can wake them
        wait_until(lambda: len(read_effects(rec)) == 1, timeout=20)
    finally:
        worker.stop()
    idle.close()
    accepting.close()


def _app_command(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GHATTEMPT_APP")}
    return subprocess.run([sys.executable, "-m", "ghattempt.app", *args], env={**base, **env},
                          capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_migrate_reports_and_a_newer_schema_is_refused_by_name(postgres):
    done = _app_command("migrate", GHATTEMPT_APP_DATABASE=postgres)
    assert done.returncode == 0 and json.loads(done.stdout) == {"schema": SCHEMA_VERSION,
                                                                  "was": 0}
    again = _app_command("migrate", GHATTEMPT_APP_DATABASE=postgres)
    assert json.loads(again.stdout) == {"schema": SCHEMA_VERSION, "was": SCHEMA_VERSION}
    with psycopg.connect(postgres, autocommit=True) as conn:
        conn.execute("UPDATE inbox_schema SET version = 99")
    newer = _app_command("inbox", GHATTEMPT_APP_DATABASE=postgres)
    assert newer.returncode == 2
    assert "schema version 99, newer than this ghattempt" in newer.stderr
    assert "Traceback" not in newer.stderr


def test_an_unreachable_database_is_one_line_without_its_password():
    url = f"postgresql://app:s3cr3t-pw@127.0.0.1:{free_port()}/ghattempt?connect_timeout=5"
    failed = _app_command("inbox", GHATTEMPT_APP_DATABASE=url)
    assert failed.returncode == 2
    assert failed.stderr.startswith("ghattempt app: cannot open the PostgreSQL inbox")
    assert "s3cr3t-pw" not in failed.stderr + failed.stdout
    assert "Traceback" not in failed.stderr


def test_times_keep_their_precision(postgres, example):
    """PostgreSQL's REAL has 24 bits (about two minutes at today's epoch seconds): every
    time column is double precision."""
    inbox = open_inbox(postgres)
    before = time.time()
    inbox.accept("t1", "pull_request", "opened", encode(pr(example, "opened", 3, "c" * 40)))
    with psycopg.connect(postgres) as conn:
        (received,) = conn.execute("SELECT received_at FROM deliveries").fetchone()
        (claimed,) = conn.execute("SELECT claimed_at FROM lane_heads").fetchone()
        types = set(conn.execute(
            "SELECT data_type FROM information_schema.columns WHERE column_name IN "
            "('received_at', 'not_before', 'finished_at', 'seen_at', 'claimed_at', "
            "'requested_at')").fetchall())
    assert abs(received - before) < 5 and abs(claimed - before) < 5
    assert types == {("double precision",)}
    inbox.close()
