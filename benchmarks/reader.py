"""Reader speed on every CPython found: start-up, verdict time, time per record.

    .venv/bin/python benchmarks/reader.py [--repeat 15] [--python PATH ...]

Runs the committed bundle (``readers/business-attempt.pyz``) as its users do, one fresh
process per verdict, on each interpreter: those given with ``--python``, else every
CPython 3.10, 3.11, 3.12 and 3.13 under ``~/.pyenv/versions`` (the ones missing are
named). The captures are made once, with the builders (``ghattempt.core.testing``):

- a small journal (one attempt, 4 events): the start-up;
- one attempt of 1,000 and of 10,000 events (``--max-records 10000``);
- 60 attempts, each the successor of the one before, with a material carried along.

Prints, per interpreter, the best wall time and the best CPU time (user + system) of
``--repeat`` runs of each, the journals taken in turn; the start-up again under
``python -I -S`` (no site-packages, so no ``.pth`` code of the machine's installation);
the CPU time of compiling the sources the reader loads (the zip importer compiles each
twice per start, and no bytecode is cached); and the time per record:
(verdict wall time - start-up wall time) / records. Goals (docs/reader.md, "Speed"):
start-up <= 150 ms and 1,000 events <= 300 ms, and time per record at 10,000 events
within 1.3 times that at 1,000 (linear). Prints whether each is met; asserts nothing
but that every verdict is valid (exit 0). The machine's load average is printed before
and after, and ``python -c pass`` (and ``python -I -S -c pass``) is measured in the same
turns: figures taken under load are slower, never faster, and that line shows by how much.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from ghattempt.core.testing import Scenario

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "readers" / "business-attempt.pyz"
ARGS = ["--writer", "github-actions", "--repository-id", "R_kgDOTest0001",
        "--max-records", "10000"]
PYENV = Path.home() / ".pyenv" / "versions"
VERSIONS = ("3.10", "3.11", "3.12", "3.13")


def one_attempt(events: int) -> bytes:
    """A capture with one attempt of ``events`` events, as stdin bytes."""
    s = Scenario()
    a = s.attempt(plan=("admission", "build"))
    a.event("admission", "started")
    for i in range(events - 2):
        a.event("admission", "waiting" if i % 2 == 0 else "started")
    a.event("admission", "succeeded")
    return json.dumps(s.pages(roots_per_page=50, replies_per_page=50,
                              more_replies_per_page=100)).encode()


def many_attempts(attempts: int) -> bytes:
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
                              more_replies_per_page=100)).encode()


def interpreters(given: list[str]) -> list[tuple[str, str]]:
    """``(version, path)`` of each interpreter to measure; names the versions missing."""
    if given:
        found = []
        for path in given:
            version = subprocess.run([path, "-c", "import platform; "
                                      "print(platform.python_version())"],
                                     capture_output=True, text=True, check=True).stdout.strip()
            found.append((version, path))
        return found
    found = []
    for version in VERSIONS:
        paths = sorted(PYENV.glob(f"{version}.*/bin/python3"))
        if paths:
            found.append((paths[-1].parent.parent.name, str(paths[-1])))
        else:
            print(f"CPython {version}: not found under {PYENV} (skipped)")
    return found


def once(python: str, flags: list[str], stdin: bytes | None) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of the bundle on ``stdin`` (of
    ``python -c pass`` for None), with interpreter ``flags``; it must exit 0."""
    target = ["-c", "pass"] if stdin is None else [str(BUNDLE), *ARGS]
    argv = [python, *flags, *target]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    assert proc.stdin is not None
    if stdin is not None:
        proc.stdin.write(stdin)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    assert os.waitstatus_to_exitcode(status) == 0, python
    return wall, usage.ru_utime + usage.ru_stime


def best(python: str, runs: list[tuple[list[str], bytes | None]],
         repeat: int) -> list[tuple[float, float]]:
    """Best wall and best CPU seconds of ``repeat`` runs of each ``(flags, stdin)``, taken
    in turn (so that a burst of load on the shared machine hits them all alike)."""
    wall = [float("inf")] * len(runs)
    cpu = [float("inf")] * len(runs)
    for _ in range(repeat):
        for i, (flags, stdin) in enumerate(runs):
            w, c = once(python, flags, stdin)
            wall[i], cpu[i] = min(wall[i], w), min(cpu[i], c)
    return list(zip(wall, cpu, strict=True))


COMPILE_PROBE = """
import sys, time
sys.path.insert(0, sys.argv[1])
import ghattempt.core._reader_main
names = sorted(n for n in sys.modules if n.startswith("ghattempt"))
sources = [sys.modules[n].__loader__.get_source(n) or "" for n in names]
sources.append(sys.modules["ghattempt"].__loader__.get_source("__main__"))
best = float("inf")
for _ in range(int(sys.argv[2])):
    start = time.process_time()
    for text in sources:
        compile(text, "<source>", "exec")
    best = min(best, time.process_time() - start)
print(len(sources), sum(map(len, sources)), best)
"""


def compile_floor(python: str, repeat: int) -> tuple[int, int, float]:
    """(modules, characters, best CPU seconds) of compiling once the sources the reader
    loads from the bundle (its ``__main__.py`` and every ``ghattempt`` module it
    imports). Python's zip importer compiles each of them twice per start (once to
    name the module's file, once to run it) and never caches bytecode."""
    out = subprocess.run([python, "-I", "-S", "-c", COMPILE_PROBE, str(BUNDLE), str(repeat)],
                         capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), int(out[1]), float(out[2])


def ms(seconds: float) -> str:
    """Milliseconds with one decimal."""
    return f"{seconds * 1000:.1f} ms"


def load() -> str:
    """The 1-, 5- and 15-minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--python", action="append", default=[],
                        help="an interpreter to measure (repeatable)")
    opts = parser.parse_args()
    if not BUNDLE.is_file():
        sys.exit(f"{BUNDLE} is missing: run scripts/build-reader")
    small = one_attempt(4)
    journals = [("1,000 events", one_attempt(1000), 1001),
                ("10,000 events", one_attempt(10000), 10001),
                ("60 attempts", many_attempts(60), 60 + 4 * 60 - 1)]
    print(f"bundle {BUNDLE.name}, best of {opts.repeat} runs each; "
          f"load average {load()} (2 cores, shared)")
    met = True
    for version, python in interpreters(opts.python):
        plain, isolated = [], ["-I", "-S"]
        (bare, _), (bare_s, _), (startup, startup_cpu), (startup_s, startup_s_cpu), *rest = best(
            python, [(plain, None), (isolated, None), (plain, small), (isolated, small),
                     *((plain, j[1]) for j in journals)], opts.repeat)
        modules, chars, compiled = compile_floor(python, opts.repeat)
        figures = {name: wall for (name, _, _), (wall, _) in zip(journals, rest, strict=True)}
        cpus = {name: cpu for (name, _, _), (_, cpu) in zip(journals, rest, strict=True)}
        per = {name: (figures[name] - startup) / records for name, _, records in journals}
        goals = {"start-up <= 150 ms": startup <= 0.150,
                 "1,000 events <= 300 ms": figures["1,000 events"] <= 0.300,
                 "per record at 10,000 within 1.3x of 1,000":
                     per["10,000 events"] <= 1.3 * per["1,000 events"]}
        met = met and all(goals.values())
        print(f"CPython {version} ({python}); python -c pass: {ms(bare)} wall; "
              f"python -I -S -c pass: {ms(bare_s)} wall")
        print(f"  start-up (small journal) {ms(startup):>10s} wall {ms(startup_cpu):>10s} CPU")
        print(f"  start-up, -I -S          {ms(startup_s):>10s} wall {ms(startup_s_cpu):>10s} CPU"
              f"   ({ms(startup_s - bare_s)} above python -I -S -c pass)")
        print(f"  compiling the {modules} sources it loads ({chars} characters): "
              f"{ms(compiled)} CPU once; the zip importer does it twice per start")
        for name, _, records in journals:
            print(f"  {name:24s} {ms(figures[name]):>10s} wall {ms(cpus[name]):>10s} CPU   "
                  f"{per[name] * 1e6:6.1f} us per record ({records} records)")
        print("  goals: " + "; ".join(f"{goal} {'met' if ok else 'NOT met'}"
                                      for goal, ok in goals.items()))
    print(f"load average after: {load()}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
