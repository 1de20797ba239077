"""Pages written for a person: the timeline of a journal, and the plan of a command.

Shape::

    timeline_page(capture, verdict, *, writer, writer_id, server_url) -> tuple[str, int]
    write_page(path: str, text: str) -> None          # "-": standard output
    plan_lines(outcome) -> list[str]                   # what a plan says, line by line
    plan_json(command: str, outcome) -> dict           # the plan as JSON
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ghattempt.commands import WriteOutcome
    from ghattempt.core import Capture, JournalInvalid, Verdict

__all__ = ["plan_json", "plan_lines", "timeline_page", "write_page"]


def timeline_page(capture: Capture | JournalInvalid, verdict: Verdict, *, writer: str,
                  writer_id: int | None, server_url: str | None) -> tuple[str, int]:
    """The timeline page (``ghattempt.render._timeline``) of a ``capture`` (or of
    responses that did not parse: their ``JournalInvalid``), read with the writer
    identity the verdict was read with, and how many attempts it shows."""
    from ghattempt.render._timeline import build_timeline, render_html

    timeline = build_timeline(capture, verdict, writer=writer, writer_id=writer_id,
                              server_url=server_url)
    return render_html(timeline), len(timeline.lanes)


def write_page(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (``-``: stdout) through a temporary file beside it."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def plan_lines(outcome: WriteOutcome) -> list[str]:
    """What a plan says, one line each: the writes, then where the journal would stand."""
    lines = [f"would write {p.kind}: {p.what}" for p in outcome.planned or ()]
    if len(lines) == 1:
        lines.append("no record would be written (the same operation is in the journal)")
    v = outcome.verdict
    lines.append(f"then: status {v.status}, recovery {v.recovery}")
    return lines


def plan_json(command: str, outcome: WriteOutcome) -> dict[str, Any]:
    """The plan as JSON: the command, each write (its kind, line and record as the
    journal holds it) and the verdict after them."""
    writes = [{"kind": p.kind, "what": p.what,
               "record": p.record.to_dict() if p.record is not None else None}
              for p in outcome.planned or ()]
    return {"command": command, "allowed": True, "message": outcome.message,
            "writes": writes, "verdict": outcome.verdict.to_json()}


# Public as ghattempt.render (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    plan_json, plan_lines, timeline_page, write_page,
):
    _exported.__module__ = "ghattempt.render"
del _exported
