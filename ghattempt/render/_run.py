"""How a ``run`` step ended, for a person and for a workflow.

Shape::

    run_lines(outcome: RunOutcome) -> list[str]       # the command line's report
    run_outputs(outcome: RunOutcome) -> dict[str, str]  # outputs: outcome, exit-code, ...

The outputs' names are the Action's (``outcome``, ``exit-code``, ``attempt``,
``next-phase``, ``missing-phases-json``, ``materials-json``, ``row``); the command
line's ``--json`` prints the same object.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ghattempt.commands import RunOutcome

__all__ = ["run_lines", "run_outputs"]


def run_outputs(outcome: RunOutcome) -> dict[str, str]:
    """The step's outputs, each a string (``exit-code`` is empty when the work did not
    run; the JSON ones are compact JSON)."""
    materials = [{"id": m.id, "kind": m.kind, "bytes": m.bytes, "digest": m.digest,
                  "url": m.url} for m in outcome.materials]
    return {
        "outcome": outcome.outcome,
        "exit-code": "" if outcome.exit_code is None else str(outcome.exit_code),
        "attempt": outcome.attempt or "",
        "next-phase": outcome.next_phase,
        "missing-phases-json": json.dumps(list(outcome.missing_phases),
                                          separators=(",", ":")),
        "materials-json": json.dumps(materials, separators=(",", ":"), ensure_ascii=True),
        "row": outcome.row,
        "recovery": outcome.recovery or "",
    }


def run_lines(outcome: RunOutcome) -> list[str]:
    """The report the command line prints: what happened, where the journal stands, and
    for a phase left ambiguous the commands that settle it by hand."""
    from ._messages import scrub

    lines = [f"run: {outcome.outcome} ({' '.join(outcome.rows)}): {scrub(outcome.message)}"]
    if outcome.exit_code is not None:
        lines.append(f"the work exited {outcome.exit_code}"
                     + (f" after {outcome.signal}" if outcome.signal else ""))
    for m in outcome.materials:
        lines.append(f"material {m.id} ({m.bytes} bytes, {m.digest})")
    if outcome.recovery:
        lines.append(f"recovery {outcome.recovery}")
    if outcome.commands:
        lines.append("settle it by hand with one of:")
        lines += [f"  {c}" for c in outcome.commands]
    missing = " ".join(outcome.missing_phases) or "-"
    lines.append(f"attempt {outcome.attempt or '-'}; missing phases {missing}; journal "
                 f"{outcome.url or '-'}")
    return lines


# Public as ghattempt.render (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    run_lines, run_outputs,
):
    _exported.__module__ = "ghattempt.render"
del _exported
