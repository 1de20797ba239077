"""RefLease across processes sharing one ref backend (SQLite file): mutual exclusion holds.
The same workload under InMemoryExclusive (a per-process lock) shows it does not."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import time

import pytest

from ghattempt.exclusive import InMemoryExclusive, LeaseSettings, RefLease
from ghattempt.exclusive.testing import SqliteRefBackend

from .conftest import SCOPE

PROCESSES = 4
ROUNDS = 8

SETTINGS = LeaseSettings(
    # a loaded machine may pause a holder for seconds between its gate and the end of
    # its "mutation"; a longer lease costs nothing here (every hold is released at once)
    # and keeps such a pause from looking like a lost scope
    lease_seconds=30,
    request_timeout=1.0,
    server_bound=1.0,  # the SQLite backend commits within its transaction
    clock_skew=1.0,
    acquire_timeout=60.0,
    backoff_initial=0.01,
    backoff_max=0.1,
    holder_label="mp",
)


def _world(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
    db.execute("CREATE TABLE IF NOT EXISTS counter (n INTEGER NOT NULL)")
    db.execute("CREATE TABLE IF NOT EXISTS occupancy (holder TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS log (token INTEGER, pid INTEGER, violation TEXT)")
    if db.execute("SELECT COUNT(*) FROM counter").fetchone()[0] == 0:
        db.execute("INSERT INTO counter VALUES (0)")
        db.execute("INSERT INTO occupancy VALUES (NULL)")
    return db


def _worker(kind: str, refs_path: str, world_path: str, barrier) -> None:
    if kind == "ref":
        adapter = RefLease(SqliteRefBackend(refs_path), SETTINGS)
    else:
        adapter = InMemoryExclusive(acquire_timeout=60.0)
    world = _world(world_path)
    barrier.wait()
    for _ in range(ROUNDS):
        with adapter.hold(SCOPE) as owner:
            owner.assert_owner(mutating=False)  # admission: no mutation follows yet
            world.execute("BEGIN IMMEDIATE")
            other = world.execute("SELECT holder FROM occupancy").fetchone()[0]
            world.execute("UPDATE occupancy SET holder = ?", (owner.holder,))
            world.execute("COMMIT")
            with owner.mutation():  # a read-modify-write "mutation", guarded
                n = world.execute("SELECT n FROM counter").fetchone()[0]
                time.sleep(0.01)
                world.execute("UPDATE counter SET n = ?", (n + 1,))
            world.execute(
                "INSERT INTO log VALUES (?, ?, ?)", (owner.fencing_token, os.getpid(), other)
            )
            world.execute("UPDATE occupancy SET holder = NULL WHERE holder = ?", (owner.holder,))
    world.close()


def _run(kind: str, tmp_path) -> tuple[int, list[tuple[int, int, str | None]]]:
    refs = str(tmp_path / "refs.db")
    world_path = str(tmp_path / "world.db")
    SqliteRefBackend(refs)
    _world(world_path).close()
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(PROCESSES)
    procs = [
        ctx.Process(target=_worker, args=(kind, refs, world_path, barrier))
        for _ in range(PROCESSES)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
    world = _world(world_path)
    count = world.execute("SELECT n FROM counter").fetchone()[0]
    log = world.execute("SELECT token, pid, violation FROM log ORDER BY rowid").fetchall()
    world.close()
    return count, log


@pytest.mark.timeout(120)
def test_ref_lease_excludes_across_processes(tmp_path):
    count, log = _run("ref", tmp_path)
    assert [v for _, _, v in log if v is not None] == []  # nobody found the scope occupied
    assert count == PROCESSES * ROUNDS  # no lost update
    tokens = [t for t, _, _ in log]
    assert tokens == list(range(1, PROCESSES * ROUNDS + 1))  # strictly increasing
    assert len({pid for _, pid, _ in log}) == PROCESSES


@pytest.mark.timeout(120)
def test_in_memory_adapter_gives_no_exclusion_across_processes(tmp_path):
    count, log = _run("memory", tmp_path)
    violations = [v for _, _, v in log if v is not None]
    assert violations or count < PROCESSES * ROUNDS
