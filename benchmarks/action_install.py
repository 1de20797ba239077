"""Time the Action's cold install on this machine, and measure the venv it leaves.

Runs the commands the Action runs (``action/install.sh deps`` then ``self``) into a fresh
temporary venv with an empty pip cache, so every wheel is downloaded and unpacked, and
prints the seconds of each step, the total, the venv's size in MB (10**6 bytes) and
files, and the largest installed entries (what dominates). Goals: a cold install of at
most 5 s on this project's 2-core machine, a venv of at most 35 MB.

Usage: python benchmarks/action_install.py [--runs N] [--python PATH] [--warm]

``--warm`` keeps one pip cache across runs (downloads only in the first run), which is
what a runner sees when the venv cache misses but pip's HTTP cache is warm; the Action
itself restores the whole venv with actions/cache and skips ``deps`` on a hit. Needs
network access to PyPI. Exits 1 when an install fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALL = ROOT / "action" / "install.sh"
GOAL_SECONDS = 5.0
GOAL_MB = 35.0


# What the Action's own entry needs, imported the way it imports it (isolated mode).
CHECK = (
    "import ghattempt.action, ghattempt.commands._writing, ghattempt.commands._reading, "
    "ghattempt.render._summary, ghattempt.render._timeline, "
    "ghattempt.github.transport, ghattempt.store, ghattempt.readers as r; r.reader_digest()"
)


def action_python() -> str:
    """A CPython 3.12 (what action.yml sets up) that runs, else this interpreter."""
    found = shutil.which("python3.12")
    if found:
        probe = subprocess.run(
            [found, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True
        )
        if probe.returncode == 0 and probe.stdout.strip():
            return probe.stdout.strip()
    for candidate in sorted(Path.home().glob(".pyenv/versions/3.12*/bin/python3.12")):
        return str(candidate)
    return sys.executable


def run_step(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"action_install: {' '.join(argv[1:3])} failed ({done.returncode})")
    return elapsed


def venv_size(venv: Path) -> tuple[float, int]:
    """(MB, files) of everything under ``venv`` (10**6 bytes; symlinks not followed)."""
    files = [p for p in venv.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum(p.stat().st_size for p in files) / 1e6, len(files)


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
                "--disable-pip-version-check",
                "--quiet",
                "--no-deps",
                "--no-compile",
                "--no-index",
                # the files `pip download` fetched and hash-checked against the lock
                *sorted(str(w) for w in wheels.glob("*.whl")),
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
    parser.add_argument(
        "--python",
        default=action_python(),
        help="base interpreter (default: python3.12 on PATH, the Python action.yml sets up, "
        "else this one)",
    )
    parser.add_argument("--warm", action="store_true", help="share one pip cache across runs")
    parser.add_argument(
        "--breakdown", action="store_true", help="also time download and unpack separately"
    )
    args = parser.parse_args()

    print(f"base interpreter: {args.python}")
    totals: list[float] = []
    sizes: list[tuple[float, int]] = []
    with tempfile.TemporaryDirectory(prefix="ghattempt-bench-") as tmp:
        shared_cache = Path(tmp, "pip-cache-shared")
        for i in range(args.runs):
            venv = Path(tmp, f"venv-{i}")
            cache = shared_cache if args.warm else Path(tmp, f"pip-cache-{i}")
            env = dict(os.environ, PIP_CACHE_DIR=str(cache))
            deps = run_step([str(INSTALL), "deps", args.python, str(venv)], env)
            own = run_step([str(INSTALL), "self", str(venv)], env)
            # measured before anything runs in it (a first import writes __pycache__)
            sizes.append(venv_size(venv))
            check = subprocess.run(
                [str(venv / "bin" / "python"), "-I", "-c", CHECK],
                cwd=tmp,
                capture_output=True,
                text=True,
            )
            if check.returncode != 0:
                sys.stderr.write(check.stderr)
                return 1
            totals.append(deps + own)
            mb, files = sizes[-1]
            print(
                f"run {i + 1}: deps {deps:.1f} s, ghattempt {own:.1f} s, total {deps + own:.1f} s;"
                f" venv {mb:.1f} MB in {files} files"
            )
            if i == 0:
                site = next(venv.glob("lib/python*/site-packages"))
                dists = len(list(site.glob("*.dist-info")))
                print(f"  {dists} locked distributions installed; largest installed entries:")
                for name, size, files in largest_distributions(venv):
                    print(f"    {name:32} {size / 2**20:6.1f} MiB {files:6d} files")
    if args.breakdown:
        breakdown(args.python)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"  load average during the runs: {load} on {os.cpu_count()} cores")
    kind = "warm-cache" if args.warm else "cold"
    median = statistics.median(totals)
    verdict = "within" if median <= GOAL_SECONDS else "over"
    print(
        f"{kind} install: median {median:.1f} s (min {min(totals):.1f}, max {max(totals):.1f}) "
        f"over {len(totals)} run(s) "
        f"({verdict} the {GOAL_SECONDS:.0f} s goal)"
    )
    mb, files = sizes[0]
    print(
        f"venv: {mb:.1f} MB in {files} files "
        f"({'within' if mb <= GOAL_MB else 'over'} the {GOAL_MB:.0f} MB goal)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
