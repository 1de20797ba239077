"""Reader speed against a floor, on journals made with the builders.

    .venv/bin/python benchmarks/reader.py [--repeat 15] [--events 1000] [--attempts 60]

Two journals: one attempt of ``--events`` events, and ``--attempts`` attempts (each a
successor of the last, a few events each). For each, in one run:

- in process: the reader's verdict (``read_with`` over ``json.loads`` of the capture)
  against the floor's work (``json.loads`` of the capture, then for each record
  ``json.loads`` of its line, the canonical ``json.dumps`` and SHA-256), and their ratio;
- as processes: ``python3 readers/business-attempt.pyz`` against ``python3 -c FLOOR``
  doing the same floor work on the same stdin, and their ratio (start-up included);

then the bundle's start-up on a small journal, next to ``python3 -c pass``. Best of
``--repeat`` runs each (wall and CPU). Goals: the bundle's wall time at most
1.5 times the floor script's, on 1000 events and on 60 attempts; bundle start-up on a
small journal at most 60 ms. The in-process ratio (the reader's own work against the
floor's, start-up left out) is printed for information. Prints numbers and whether each
goal is met; asserts nothing but that every verdict is valid.

"python3" above is the interpreter running this script (its path and version are printed
first). The script needs only ``ghattempt/core``, so the interpreter a release job uses
can be measured without the venv: ``PYTHONPATH=. /usr/bin/python3 benchmarks/reader.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ghattempt.core._args import make_options
from ghattempt.core._journal import read_with
from ghattempt.core.testing import Scenario

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "readers" / "business-attempt.pyz"
ARGS = ["--writer", "github-actions", "--repository-id", "R_kgDOTest0001"]
OPTS = make_options("github-actions", "R_kgDOTest0001")

# The floor's work, as source: run as a script (``FLOOR``, reading stdin) and defined in
# process (``floor``) from the same text, so that both measure exactly the same work.
FLOOR_FUNCTION = r'''
import hashlib, json

def floor(text):
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
'''
FLOOR = FLOOR_FUNCTION + "\nimport sys\nfloor(sys.stdin.buffer.read().decode('utf-8'))\n"


def one_attempt(events: int) -> str:
    """A capture with one attempt of ``events`` events, as stdin text."""
    s = Scenario()
    a = s.attempt(plan=("admission", "build"))
    a.event("admission", "started")
    for i in range(events - 2):
        a.event("admission", "waiting" if i % 2 == 0 else "started")
    a.event("admission", "succeeded")
    return json.dumps(s.pages(roots_per_page=50, replies_per_page=50,
                              more_replies_per_page=100))


def many_attempts(attempts: int) -> str:
    """A capture with ``attempts`` attempts of one request key, each the successor of
    the one before (which failed), with a material carried along; the last is running."""
    s = Scenario()
    before = None
    for n in range(attempts):
        a = s.attempt(plan=("admission", "build", "merge"), predecessor=before)
        a.event("admission", "started")
        a.event("admission", "succeeded", materials=[a.material(f"build-{n}")])
        a.event("build", "started")
        if n < attempts - 1:
            a.event("build", "failed", "tests failed")
        before = a
    return json.dumps(s.pages(roots_per_page=50, replies_per_page=50,
                              more_replies_per_page=100))


def _floor_function() -> Callable[[str], None]:
    """``floor(text)``: the floor's work in process, defined from ``FLOOR_FUNCTION``."""
    scope: dict[str, Callable[[str], None]] = {}
    exec(FLOOR_FUNCTION, scope)  # noqa: S102 -- this file's own constant
    return scope["floor"]


floor = _floor_function()


def reader(text: str) -> None:
    """The reader in process: ``json.loads`` of the capture and the whole verdict."""
    verdict = read_with(json.loads(text), OPTS)
    assert verdict.exit_code == 0, verdict.to_json()


def best_in_process(fns: list[Callable[[str], None]], text: str,
                    repeat: int) -> list[tuple[float, float]]:
    """Best (wall, CPU) seconds of each ``fn(text)``, the functions run interleaved."""
    wall = [float("inf")] * len(fns)
    cpu = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t, c = time.perf_counter(), time.process_time()
            fn(text)
            wall[i] = min(wall[i], time.perf_counter() - t)
            cpu[i] = min(cpu[i], time.process_time() - c)
    return list(zip(wall, cpu, strict=True))


def run_process(argv: list[str], stdin: bytes) -> tuple[float, float, int]:
    """(wall, CPU) seconds and exit status of one process fed ``stdin``."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def best_processes(commands: list[list[str]], stdin: bytes,
                   repeat: int) -> list[tuple[float, float]]:
    """Best (wall, CPU) seconds of each command, run interleaved; each must exit 0."""
    wall = [float("inf")] * len(commands)
    cpu = [float("inf")] * len(commands)
    for _ in range(repeat):
        for i, argv in enumerate(commands):
            w, c, code = run_process(argv, stdin)
            assert code == 0, (argv[:3], code)
            wall[i], cpu[i] = min(wall[i], w), min(cpu[i], c)
    return list(zip(wall, cpu, strict=True))


def ms(seconds: float) -> str:
    """Milliseconds with one decimal."""
    return f"{seconds * 1000:.1f} ms"


def report(name: str, text: str, repeat: int) -> None:
    """Print the in-process and process comparison for one journal."""
    (fw, fc), (rw, rc) = best_in_process([floor, reader], text, repeat)
    print(f"{name}: {len(text)} bytes of capture (best of {repeat})")
    print(f"  in process  floor {ms(fw)} wall {ms(fc)} CPU | reader {ms(rw)} wall "
          f"{ms(rc)} CPU | ratio {rw / fw:.2f} wall, {rc / fc:.2f} CPU")
    if BUNDLE.is_file():
        stdin = text.encode()
        (pw, pc), (bw, bc) = best_processes(
            [[sys.executable, "-c", FLOOR], [sys.executable, str(BUNDLE), *ARGS]], stdin,
            repeat)
        print(f"  processes   floor {ms(pw)} wall {ms(pc)} CPU | bundle {ms(bw)} wall "
              f"{ms(bc)} CPU | ratio {bw / pw:.2f} wall, {bc / pc:.2f} CPU "
              f"(goal <= 1.5: {'met' if bw / pw <= 1.5 else 'NOT met'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--attempts", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=15)
    opts = parser.parse_args()
    print(f"python3 here is {sys.executable} (Python {platform.python_version()}); "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    report(f"one attempt of {opts.events} events", one_attempt(opts.events), opts.repeat)
    report(f"{opts.attempts} attempts", many_attempts(opts.attempts), opts.repeat)
    if BUNDLE.is_file():
        small = one_attempt(4).encode()
        (sw, sc), (bw, bc) = best_processes(
            [[sys.executable, "-c", "pass"], [sys.executable, str(BUNDLE), *ARGS]], small,
            opts.repeat)
        print(f"start-up on a small journal: bundle {ms(bw)} wall {ms(bc)} CPU "
              f"(goal <= 60 ms: {'met' if bw <= 0.060 else 'NOT met'}) | python3 -c pass "
              f"{ms(sw)} wall {ms(sc)} CPU")


if __name__ == "__main__":
    main()
