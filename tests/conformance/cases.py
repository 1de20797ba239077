"""Running reader cases: the public sample cases (``tests/conformance/public``) and the
cases kept with each released reader (``readers/history/*/cases``) share one layout and
one comparison (tests/conformance/README.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PUBLIC = HERE / "public"
REPO = HERE.parent.parent
SHARED = REPO.parent / "shared" / "conformance" / "public"
KEYS = ("status", "reason", "recovery", "attempt", "generation", "missing_phases",
        "request_key", "ignored")


def case_dirs(root: Path = PUBLIC) -> list[Path]:
    """The case folders under ``root``, by name."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / "expected.json").is_file())


def load(case: Path) -> tuple[list[str], bytes, dict[str, Any]]:
    """``(argv, stdin, expected)`` of one case."""
    argv = json.loads((case / "args.json").read_text())
    expected = json.loads((case / "expected.json").read_text())
    stdin = case / "input.json"
    if not stdin.is_file():
        stdin = case / "input.bin"
    return argv, stdin.read_bytes(), expected


def differences(expected: dict[str, Any], code: int, out: object) -> list[str]:
    """What a verdict (exit status ``code``, stdout object ``out``) gets wrong."""
    diffs = [] if code == expected["exit"] else [f"exit {code}, expected {expected['exit']}"]
    if not isinstance(out, dict):
        return [*diffs, f"stdout is not one JSON object: {str(out)[:80]}"]
    unchecked = set(expected.get("unchecked", ()))
    diffs += [f"{k}: {out.get(k)!r}, expected {expected[k]!r}" for k in KEYS
              if k not in unchecked and out.get(k) != expected[k]]
    if "attempts_statuses" not in unchecked:
        statuses = [a.get("status") for a in out.get("attempts", [])]
        if statuses != expected["attempts_statuses"]:
            diffs.append(f"attempts {statuses}, expected {expected['attempts_statuses']}")
    return diffs


def run_bundle(python: str, bundle: Path, cases: list[Path], *,
               parallel: int = 2, flags: tuple[str, ...] = ()) -> list[str]:
    """Run ``python [flags] bundle`` over ``cases`` (``parallel`` processes at a time);
    returns one line per failing case, empty when all pass."""
    failures: list[str] = []
    for start in range(0, len(cases), parallel):
        running = []
        for case in cases[start:start + parallel]:
            argv, stdin, expected = load(case)
            proc = subprocess.Popen([python, *flags, str(bundle), *argv], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            running.append((case, proc, stdin, expected))
        for case, proc, stdin, expected in running:
            out, err = proc.communicate(stdin, timeout=120)
            try:
                verdict: object = json.loads(out)
            except ValueError:
                verdict = out.decode("utf-8", "replace")
            diffs = differences(expected, proc.returncode, verdict)
            if err:
                diffs.append(f"stderr: {err.decode('utf-8', 'replace')[:120]}")
            if not out.endswith(b"\n") or out.count(b"\n") != 1:
                diffs.append("stdout is not one line")
            if diffs:
                failures.append(f"{case.name}: {'; '.join(diffs)}")
    return failures
