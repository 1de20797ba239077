"""Reader speed: a 1000-event attempt against json.loads + sha256 of each record, and
start-up of the bundle on a small journal.

    .venv/bin/python benchmarks/reader.py [--events 1000] [--repeat 7]

Prints the best-of-N wall times and their ratio. The bound the reader keeps: ratio
<= 1.5 on 1000 events, bundle start-up on a small journal <= 60 ms.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from ghattempt.core._args import make_options
from ghattempt.core._journal import read_with
from ghattempt.core.testing import Scenario

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "readers" / "business-attempt.pyz"


def journal(events: int) -> str:
    """A capture with one attempt of ``events`` events, as stdin text."""
    s = Scenario()
    a = s.attempt(plan=("admission", "build"))
    a.event("admission", "started")
    for i in range(events - 2):
        a.event("admission", "waiting" if i % 2 == 0 else "started")
    a.event("admission", "succeeded")
    return json.dumps(s.pages(roots_per_page=50, replies_per_page=50,
                              more_replies_per_page=100))


def baseline(text: str) -> None:
    """json.loads of the capture, then sha256 of each record's canonical bytes."""
    value = json.loads(text)
    for page in value:
        data = page["data"]
        if "repository" in data:
            nodes = [data["repository"]["discussion"]]
            for c in data["repository"]["discussion"]["comments"]["nodes"]:
                nodes.append(c)
                nodes.extend(c["replies"]["nodes"])
        else:
            nodes = data["node"]["replies"]["nodes"]
        for node in nodes:
            body = node["body"]
            start = body.index("```json\n") + 8
            record = json.loads(body[start:body.index("\n", start)])
            hashlib.sha256(json.dumps(record, sort_keys=True, separators=(",", ":"),
                                      ensure_ascii=False).encode()).hexdigest()


def reader(text: str) -> None:
    """The reader in-process: json.loads of the capture and the whole verdict."""
    verdict = read_with(json.loads(text), OPTS)
    assert verdict.exit_code == 0, verdict.to_json()


OPTS = make_options("github-actions", "R_kgDOTest0001")


def best(fn: object, text: str, repeat: int) -> tuple[float, float]:
    """Best wall time and best CPU time of ``fn(text)`` over ``repeat`` runs."""
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn(text)  # type: ignore[operator]
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return min(wall), min(cpu)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def startup(repeat: int) -> tuple[float, float, float]:
    """Best wall and CPU time of the bundle on a small journal; wall of ``python -c pass``."""
    small = journal(4).encode()
    args = [sys.executable, str(BUNDLE), "--writer", "github-actions",
            "--repository-id", "R_kgDOTest0001"]
    run, cpu, bare = [], [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), _child_cpu()
        subprocess.run(args, input=small, capture_output=True, check=True)
        run.append(time.perf_counter() - t)
        cpu.append(_child_cpu() - c)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t)
    return min(run), min(cpu), min(bare)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    opts = parser.parse_args()
    text = journal(opts.events)
    base_wall, base_cpu = best(baseline, text, opts.repeat)
    ours_wall, ours_cpu = best(reader, text, opts.repeat)
    print(f"{opts.events} events, {len(text)} bytes of capture (best of {opts.repeat})")
    print(f"baseline (json.loads + sha256 per record): {base_wall * 1000:.1f} ms wall, "
          f"{base_cpu * 1000:.1f} ms CPU")
    print(f"reader (in-process verdict):               {ours_wall * 1000:.1f} ms wall, "
          f"{ours_cpu * 1000:.1f} ms CPU")
    print(f"ratio: {ours_wall / base_wall:.2f} wall, {ours_cpu / base_cpu:.2f} CPU (bound 1.5)")
    if BUNDLE.is_file():
        run, cpu, bare = startup(opts.repeat)
        print(f"bundle on a small journal: {run * 1000:.1f} ms wall, {cpu * 1000:.1f} ms CPU "
              f"(python -c pass: {bare * 1000:.1f} ms wall; bound 60 ms)")


if __name__ == "__main__":
    main()
