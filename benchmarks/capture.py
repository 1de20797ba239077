"""Requests and rate-limit points to capture journals, against the embedded GitHub.

For each shape (A attempts x E events; A, E in 1, 10, 50, and one attempt of 1000
events) a journal is built by posting plain marker-bearing comments, then captured
once with ``GitHubProvider.capture_journal``. Printed next to each: the floor computed
from GitHub's page size of 100 (``floor_requests``), the points the provider counted
from ``x-ratelimit-*`` headers, and the cost the emulator charged (its own request log).

    .venv/bin/python benchmarks/capture.py          # in-process transport
    .venv/bin/python benchmarks/capture.py --http   # over HTTP on 127.0.0.1
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer, EmulatorTransport
from ghattempt.github import GitHubProvider, ProviderConfig, TokenAuth, floor_requests

OWNER, NAME = "octo-org", "widgets"
SHAPES = [(a, e) for a in (1, 10, 50) for e in (1, 10, 50)] + [(1, 1000)]
MARKER = '<!-- ghattempt:v1 -->\n```json\n{"n":%d}\n```'


def provider(emu: Emulator, server: EmulatorServer | None) -> GitHubProvider:
    if server is None:
        return GitHubProvider(ProviderConfig(
            auth=TokenAuth("ghp_alice"), base_url="https://api.github.com/",
            transport=EmulatorTransport(emu), mutation_interval=0))
    return GitHubProvider(ProviderConfig(auth=TokenAuth("ghp_alice"),
                                         base_url=server.url + "/", mutation_interval=0))


def build(gh: GitHubProvider, attempts: int, events: int) -> int:
    repo = gh.repository(OWNER, NAME)
    cat = gh.discussion_category(OWNER, NAME, "release-journal")
    d = gh.create_discussion(repo.id, cat.id, f"{attempts}x{events}", MARKER % 0)
    n = 0
    for _ in range(attempts):
        n += 1
        root = gh.add_comment(d.id, MARKER % n)
        for _ in range(events):
            n += 1
            gh.add_comment(d.id, MARKER % n, reply_to_id=root.id)
    return d.number


def measure(http: bool) -> list[dict[str, Any]]:
    emu = Emulator(fixture=DEFAULT_FIXTURE, content_per_minute=10**9, content_per_hour=10**9,
                   points_per_minute=10**9)
    server = EmulatorServer(emu).start() if http else None
    rows = []
    try:
        writer = GitHubProvider(ProviderConfig(
            auth=TokenAuth("ghp_alice"), base_url="https://api.github.com/",
            transport=EmulatorTransport(emu), mutation_interval=0))
        for attempts, events in SHAPES:
            number = build(writer, attempts, events)
            reader = provider(emu, server)
            emu.clear_request_log()
            start = time.perf_counter()
            pages = reader.capture_journal(OWNER, NAME, number)
            seconds = time.perf_counter() - start
            usage = reader.usage
            charged = sum(e["cost"] for e in emu.request_log())
            reader.close()
            rows.append({
                "attempts": attempts, "events": events, "requests": usage.requests,
                "pages": len(pages), "floor": floor_requests([events] * attempts),
                "points": usage.points, "emulator_cost": charged, "seconds": seconds,
            })
        writer.close()
    finally:
        if server is not None:
            server.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", action="store_true", help="capture over loopback HTTP")
    args = parser.parse_args(argv)
    rows = measure(args.http)
    print(f"{'A':>4} {'E':>5} {'requests':>8} {'floor':>5} {'points':>6} {'emu cost':>8} "
          f"{'ms':>7}  at floor")
    worst = 0
    for r in rows:
        at_floor = r["requests"] == r["floor"]
        worst = max(worst, r["requests"] - r["floor"])
        print(f"{r['attempts']:>4} {r['events']:>5} {r['requests']:>8} {r['floor']:>5} "
              f"{r['points']:>6} {r['emulator_cost']:>8} {r['seconds'] * 1000:>7.1f}  "
              f"{'yes' if at_floor else 'NO'}")
    return 0 if worst == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
