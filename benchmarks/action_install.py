"""Time the Action's cold install on this machine.

Runs the commands the Action runs (``action/install.sh deps`` then ``self``) into a fresh
temporary venv with an empty pip cache, so every wheel is downloaded and unpacked, and
prints the seconds of each step, the total, and the installed size of the largest
distributions (what dominates). Goal: a cold install under 15 s.

Usage: python benchmarks/action_install.py [--runs N] [--python PATH] [--warm]

``--warm`` keeps one pip cache across runs (downloads only in the first run), which is
what a runner sees when the venv cache misses but pip's HTTP cache is warm; the Action
itself restores the whole venv with actions/cache and skips ``deps`` on a hit. Needs
network access to PyPI. Exits 1 when an install fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALL = ROOT / "action" / "install.sh"
GOAL_SECONDS = 15.0


def run_step(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"action_install: {' '.join(argv[1:3])} failed ({done.returncode})")
    return elapsed


def largest_distributions(venv: Path, top: int = 5) -> list[tuple[str, int, int]]:
    """Return (top-level entry, bytes, files) of the largest site-packages entries."""
    site = next(venv.glob("lib/python*/site-packages"))
    sizes: list[tuple[str, int, int]] = []
    for entry in site.iterdir():
        if entry.name.endswith(".dist-info") or entry.name == "__pycache__":
            continue
        files = [entry] if entry.is_file() else [p for p in entry.rglob("*") if p.is_file()]
        sizes.append((entry.name, sum(p.stat().st_size for p in files), len(files)))
    sizes.sort(key=lambda item: item[1], reverse=True)
    return sizes[:top]


def breakdown(python: str) -> None:
    """Split the deps step into download (network) and install (unpack) time."""
    lock = str(ROOT / "action" / "requirements.txt")
    flags = ["--disable-pip-version-check", "--no-input", "--quiet", "--require-hashes"]
    flags += ["--no-deps", "--only-binary", ":all:"]
    with tempfile.TemporaryDirectory(prefix="ghattempt-bench-split-") as tmp:
        env = dict(os.environ, PIP_CACHE_DIR=str(Path(tmp, "cache")))
        wheels, venv = Path(tmp, "wheels"), Path(tmp, "venv")
        fetch = run_step(
            [python, "-m", "pip", "download", *flags, "-d", str(wheels), "-r", lock], env
        )
        make = run_step([python, "-m", "venv", "--without-pip", str(venv)], env)
        unpack = run_step(
            [
                python,
                "-m",
                "pip",
                "--python",
                str(venv / "bin" / "python"),
                "install",
                *flags,
                "--no-compile",
                "--no-index",
                "--find-links",
                str(wheels),
                "-r",
                lock,
            ],
            env,
        )
        size = sum(p.stat().st_size for p in wheels.iterdir()) / 2**20
        print(
            f"  breakdown: download {fetch:.1f} s ({size:.1f} MiB of wheels), "
            f"venv {make:.1f} s, unpack {unpack:.1f} s"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--python", default=sys.executable, help="base interpreter")
    parser.add_argument("--warm", action="store_true", help="share one pip cache across runs")
    parser.add_argument(
        "--breakdown", action="store_true", help="also time download and unpack separately"
    )
    args = parser.parse_args()

    totals: list[float] = []
    with tempfile.TemporaryDirectory(prefix="ghattempt-bench-") as tmp:
        shared_cache = Path(tmp, "pip-cache-shared")
        for i in range(args.runs):
            venv = Path(tmp, f"venv-{i}")
            cache = shared_cache if args.warm else Path(tmp, f"pip-cache-{i}")
            env = dict(os.environ, PIP_CACHE_DIR=str(cache))
            deps = run_step([str(INSTALL), "deps", args.python, str(venv)], env)
            own = run_step([str(INSTALL), "self", str(venv)], env)
            check = subprocess.run(
                [str(venv / "bin" / "python"), "-c", "import ghattempt.config, githubkit"],
                cwd=tmp,
                capture_output=True,
                text=True,
            )
            if check.returncode != 0:
                sys.stderr.write(check.stderr)
                return 1
            totals.append(deps + own)
            print(
                f"run {i + 1}: deps {deps:.1f} s, ghattempt {own:.1f} s, total {deps + own:.1f} s"
            )
            if i == 0:
                lock = (ROOT / "action" / "requirements.txt").read_text()
                pinned = sum(1 for line in lock.splitlines() if "==" in line)
                print(f"  {pinned} locked distributions; largest installed entries:")
                for name, size, files in largest_distributions(venv):
                    print(f"    {name:32} {size / 2**20:6.1f} MiB {files:6d} files")
    if args.breakdown:
        breakdown(args.python)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"  load average during the runs: {load} on {os.cpu_count()} cores")
    kind = "warm-cache" if args.warm else "cold"
    median = statistics.median(totals)
    verdict = "within" if median < GOAL_SECONDS else "over"
    print(
        f"{kind} install: median {median:.1f} s (min {min(totals):.1f}, max {max(totals):.1f}) "
        f"over {len(totals)} run(s) "
        f"({verdict} the {GOAL_SECONDS:.0f} s goal)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
