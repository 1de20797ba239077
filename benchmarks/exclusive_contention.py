"""Measure the exclusive writer scope; optionally soak the model check.

    .venv/bin/python benchmarks/exclusive_contention.py            # ~10 s
    .venv/bin/python benchmarks/exclusive_contention.py --processes 8 --seconds 20
    .venv/bin/python benchmarks/exclusive_contention.py --soak 20000

Reports:
  * requests per hold on the in-memory GitHub-like backend (cold and warm);
  * CPU cost of one hold (acquire + assert_owner + release) with a fake clock;
  * hand-overs per second and acquire latency of RefLease across processes sharing a
    SQLite ref backend (real clocks), and whether exclusion held.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pathlib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

from ghattempt.exclusive import LeaseSettings, RefLease, Scope
from ghattempt.exclusive.testing import FakeClock, MemoryRefBackend, SqliteRefBackend

SCOPE = Scope("R_kgDOBench", "sha256:" + "0" * 64)
MP_SETTINGS = LeaseSettings(
    lease_seconds=8,
    request_timeout=1.0,
    server_bound=1.0,
    clock_skew=1.0,
    acquire_timeout=120.0,
    backoff_initial=0.005,
    backoff_max=0.05,
    holder_label="bench",
)


def requests_per_hold() -> None:
    clock = FakeClock()
    backend = MemoryRefBackend(clock)
    lease = RefLease(backend, clock=clock)
    with lease.hold(SCOPE) as owner:
        with owner.mutation():
            pass
    cold = dict(backend.calls)
    backend.calls.clear()
    with lease.hold(SCOPE) as owner:
        with owner.mutation():
            pass
    warm = dict(backend.calls)
    print(f"requests per hold: cold {cold}, warm {warm}")


def cpu_per_hold(n: int = 20_000) -> None:
    clock = FakeClock()
    backend = MemoryRefBackend(clock)
    lease = RefLease(backend, clock=clock)
    start = time.perf_counter()
    for _ in range(n):
        with lease.hold(SCOPE) as owner:
            with owner.mutation():
                pass
        clock.advance(1.0)
    elapsed = time.perf_counter() - start
    print(f"CPU per hold (in-memory backend, fake clock): {elapsed / n * 1e6:.1f} us")


def _worker(refs: str, world: str, deadline: float, out) -> None:
    lease = RefLease(SqliteRefBackend(refs), MP_SETTINGS)
    db = sqlite3.connect(world, timeout=30.0, isolation_level=None)
    waits: list[float] = []
    holds = 0
    violations = 0
    while time.time() < deadline:
        t0 = time.monotonic()
        with lease.hold(SCOPE) as owner:
            waits.append(time.monotonic() - t0)
            with owner.mutation():
                db.execute("BEGIN IMMEDIATE")
                other = db.execute("SELECT holder FROM occupancy").fetchone()[0]
                violations += other is not None
                db.execute("UPDATE occupancy SET holder = ?", (owner.holder,))
                db.execute("COMMIT")
                time.sleep(0.002)
                db.execute("UPDATE occupancy SET holder = NULL")
            holds += 1
    out.put((holds, violations, waits))


def contention(processes: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        refs = str(pathlib.Path(tmp) / "refs.db")
        world = str(pathlib.Path(tmp) / "world.db")
        SqliteRefBackend(refs)
        db = sqlite3.connect(world, isolation_level=None)
        db.execute("CREATE TABLE occupancy (holder TEXT)")
        db.execute("INSERT INTO occupancy VALUES (NULL)")
        db.close()
        ctx = multiprocessing.get_context("fork")
        out = ctx.Queue()
        deadline = time.time() + seconds
        procs = [
            ctx.Process(target=_worker, args=(refs, world, deadline, out))
            for _ in range(processes)
        ]
        for p in procs:
            p.start()
        results = [out.get(timeout=seconds + 120) for _ in procs]
        for p in procs:
            p.join()
        holds = sum(r[0] for r in results)
        violations = sum(r[1] for r in results)
        waits = sorted(w for r in results for w in r[2])
        p50 = statistics.median(waits) if waits else float("nan")
        p99 = waits[int(len(waits) * 0.99) - 1] if waits else float("nan")
        print(
            f"{processes} processes, {seconds:g} s over SQLite refs: {holds} holds "
            f"({holds / seconds:.1f}/s), acquire wait p50 {p50 * 1e3:.1f} ms, "
            f"p99 {p99 * 1e3:.1f} ms, exclusion violations: {violations}"
        )
        print("  (the lease mechanism alone, no GitHub: on GitHub each hold writes two lease "
              "commits, content-creating requests, so one actor's holds are bound by 80 a "
              "minute and 500 an hour: at most 40 a minute and 250 an hour)")


def soak(examples: int) -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    env = dict(os.environ, GHATTEMPT_MODEL_EXAMPLES=str(examples))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           "--timeout=0", str(root / "tests/exclusive/test_model.py")]
    return subprocess.call(cmd, cwd=root, env=env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--soak", type=int, default=0, help="run the model check with N examples")
    args = parser.parse_args()
    if args.soak:
        return soak(args.soak)
    requests_per_hold()
    cpu_per_hold()
    contention(args.processes, args.seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
