"""mypy --strict still sees through the core's slotted value classes (PEP 681
``dataclass_transform`` in ``ghattempt/core/_slots.py``): assigning to a frozen field,
a wrong or missing constructor argument, an unknown keyword and a wrong ``replace()``
are type errors, as they were with ``dataclasses``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = '''\
from __future__ import annotations

from ghattempt.core import Verdict
from ghattempt.core._capture import Comment
from ghattempt.core._records import ActionsWriter
from ghattempt.core._rules import ReplayState
from ghattempt.core._slots import replace


def probe(w: ActionsWriter, v: Verdict, r: ReplayState, c: Comment) -> None:
    w.run_id = 3  # line 11
    v.status = "x"
    ActionsWriter("1", 2, "job", "wf")
    ActionsWriter(1, 2, "job")
    ActionsWriter(1, 2, "job", "wf", extra=1)
    r.events = "many"
    c.body = 5
    replace(w, run_id="x")
    replace(w, bogus=1)
    r.events = 3  # fine: a @mutable field
    ok: ActionsWriter = replace(w, run_id=4)
'''

EXPECTED = {
    11: "read-only", 12: "read-only", 13: "arg-type", 14: "call-arg", 15: "call-arg",
    16: "assignment", 17: "assignment", 18: "arg-type", 19: "call-arg",
}


def test_mypy_strict_rejects_misuse_of_core_value_classes(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", str(tmp_path / "cache"), str(probe)],
        capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)
    found: dict[int, str] = {}
    for line in proc.stdout.splitlines():
        hit = re.match(r".*probe\.py:(\d+): error: (.*)", line)
        if hit:
            found[int(hit[1])] = hit[2]
    assert set(found) == set(EXPECTED), proc.stdout
    for number, what in EXPECTED.items():
        assert what in found[number], (number, found[number])
