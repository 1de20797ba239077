#!/usr/bin/env python3
"""Cold start of the CLI: ``ghattempt --help`` and ``ghattempt status --json``.

Usage: .venv/bin/python benchmarks/cli_start.py [--runs 15]

Starts the emulator (``ghattempt emulator serve``, its own process, loopback), writes a
journal with the CLI (an admitted attempt and four events), then runs each command
``--runs`` times as a fresh process and prints the median wall time and the median CPU
time (user + system of the child) in seconds. The goal is <= 0.4 s wall for each on an
idle machine; the CPU time is what the command costs when the machine is busy.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 0.4

CONFIG = """\
[journal]
category = "release-journal"
[channels.stable]
plan = ["admission", "build", "publication"]
[attempt]
default_channel = "stable"
[lease]
length = 60
request_timeout = 5
clock_skew = 1
[pacing]
write_interval = 0.0
"""


def _timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    exe = str(Path(sys.executable).with_name("ghattempt"))
    if not os.path.exists(exe):
        print(f"{exe} is missing: install ghattempt into this environment first",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / ".github").mkdir()
        (work / ".github" / "ghattempt.toml").write_text(CONFIG)
        emu = subprocess.Popen([exe, "emulator", "serve", "--port", "0", "--db",
                                str(work / "emu.sqlite3")], stdout=subprocess.PIPE, text=True)
        try:
            assert emu.stdout is not None
            url = emu.stdout.readline().strip().split("listening on ", 1)[1] + "/"
            env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
            env.update(GITHUB_TOKEN="ghs_actions", GITHUB_API_URL=url,  # noqa: S106
                       GITHUB_REPOSITORY="octo-org/widgets", GHATTEMPT_PROGRESS="0")
            setup = [["admit", "--pull-request", "1"]] + [
                ["record", "--pull-request", "1", "--phase", p, "--status", s]
                for p, s in (("admission", "started"), ("admission", "succeeded"),
                             ("build", "started"), ("build", "succeeded"))]
            for cmd in setup:
                out = subprocess.run([exe, *cmd], env=env, cwd=work, capture_output=True,
                                     text=True)
                if out.returncode != 0:
                    print(f"setup {cmd[0]} failed: {out.stderr.strip()}", file=sys.stderr)
                    return 1
            number = out.stdout.rsplit("/discussions/", 1)[1].strip()
            cases = {
                "ghattempt --help": [exe, "--help"],
                "ghattempt status --json": [exe, "status", "--json", "--discussion", number],
            }
            worst = 0.0
            for name, argv in cases.items():
                _timed(argv, env, work)  # warm the file cache
                runs = [_timed(argv, env, work) for _ in range(args.runs)]
                if any(rc != 0 for _, _, rc in runs):
                    print(f"{name}: a run failed", file=sys.stderr)
                    return 1
                wall = statistics.median(w for w, _, _ in runs)
                cpu = statistics.median(c for _, c, _ in runs)
                worst = max(worst, wall)
                print(f"{name:<26} median wall {wall:.3f} s   median CPU {cpu:.3f} s   "
                      f"({args.runs} runs; goal <= {GOAL} s)")
            load = os.getloadavg()[0]
            print(f"load average {load:.2f} on {os.cpu_count()} CPUs while measuring")
        finally:
            emu.terminate()
            emu.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
