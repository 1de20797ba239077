#!/usr/bin/env python3
"""Load the emulator over HTTP: N writer processes append comments concurrently.

Usage: .venv/bin/python benchmarks/emulator_load.py [--writers 8] [--comments 50]

Prints requests per second, the latency percentiles seen by writers, and the total
GraphQL cost from the emulator's request log. Checks that every comment landed once.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer  # noqa: E402

ADD = """mutation($d: ID!, $b: String!) {
  addDiscussionComment(input: {discussionId: $d, body: $b}) { comment { id } } }"""


def writer(url: str, discussion: str, index: int, count: int) -> list[float]:
    times = []
    with httpx.Client(
        base_url=url, timeout=30, headers={"Authorization": "bearer ghs_actions"}
    ) as c:
        for i in range(count):
            t0 = time.perf_counter()
            r = c.post(
                "/graphql",
                json={"query": ADD, "variables": {"d": discussion, "b": f"w{index}-{i}"}},
            )
            r.raise_for_status()
            assert "errors" not in r.json(), r.text
            times.append(time.perf_counter() - t0)
    return times


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--comments", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        emu = Emulator(
            str(Path(tmp) / "emu.db"),
            DEFAULT_FIXTURE,
            content_per_minute=10**6,
            points_per_minute=10**6,
            content_per_hour=10**6,
        )
        emu.state.db.execute("UPDATE tokens SET rate_limit = 1000000")
        with EmulatorServer(emu) as server:
            repo = emu.snapshot()["repositories"][0]
            q = """mutation($r: ID!, $c: ID!) { createDiscussion(input: {repositoryId: $r,
              categoryId: $c, title: "load", body: "load"}) { discussion { id } } }"""
            r = httpx.post(
                f"{server.url}/graphql",
                json={"query": q, "variables": {"r": repo["id"], "c": repo["categories"][0]["id"]}},
                headers={"Authorization": "bearer ghs_actions"},
                timeout=30,
            )
            discussion = r.json()["data"]["createDiscussion"]["discussion"]["id"]
            t0 = time.perf_counter()
            with ProcessPoolExecutor(args.writers) as pool:
                futures = [
                    pool.submit(writer, server.url, discussion, i, args.comments)
                    for i in range(args.writers)
                ]
                latencies = sorted(t for f in futures for t in f.result())
            elapsed = time.perf_counter() - t0
            bodies = [
                c["body"]
                for d in emu.snapshot()["repositories"][0]["discussions"]
                for c in d["comments"]
            ]
            total = args.writers * args.comments
            assert len(bodies) == len(set(bodies)) == total, (len(bodies), total)
            log = emu.request_log()
            print(
                json.dumps(
                    {
                        "writers": args.writers,
                        "comments": total,
                        "seconds": round(elapsed, 3),
                        "requests_per_second": round(total / elapsed, 1),
                        "p50_ms": round(statistics.median(latencies) * 1000, 2),
                        "p95_ms": round(latencies[int(len(latencies) * 0.95) - 1] * 1000, 2),
                        "graphql_cost": sum(e["cost"] for e in log),
                    }
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
