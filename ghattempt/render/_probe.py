"""The probe's report as a person reads it: one table (behaviour, expected with its
source, observed, verdict) for a terminal, the same as Markdown for a job summary, and
the lines saying what the probe left behind.

Shape::

    probe_table(report, width=None) -> str     # plain text, one row per behaviour
    probe_markdown(report) -> str              # the job summary's table
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ghattempt.commands import ProbeReport

__all__ = ["probe_markdown", "probe_table"]

_HEAD = ("behaviour", "expected (source)", "observed", "verdict")


def _closing(report: ProbeReport) -> list[str]:
    lines = [f"left behind: {what}" for what in report.left]
    if report.ok:
        lines.append(f"ghattempt probe: every relied-on behaviour holds on {report.repository}")
    else:
        names = ", ".join(o.behaviour for o in report.failed)
        lines.append(f"ghattempt probe: {len(report.failed)} relied-on behaviour(s) do not "
                     f"hold on {report.repository}: {names}; a person must act (each row "
                     "says what to change)")
    return lines


def probe_table(report: ProbeReport, width: int | None = None) -> str:
    """The report as a text table wrapped to ``width`` columns (default 120), each cell
    wrapped within its column; then what was left behind and the one-line outcome."""
    total = max(80, width or 120)
    rest = total - 26 - 11 - 6  # the two wide columns share what the others leave
    cols = (26, rest // 2, rest - rest // 2, 11)
    rows = [_HEAD] + [(o.behaviour, f"{o.expected} [{o.source}]", o.observed, o.verdict)
                      for o in report.observations]
    out: list[str] = []
    for i, row in enumerate(rows):
        cells = [textwrap.wrap(text, w) or [""] for text, w in zip(row, cols, strict=True)]
        for n in range(max(len(c) for c in cells)):
            out.append("  ".join((c[n] if n < len(c) else "").ljust(w)
                                 for c, w in zip(cells, cols, strict=True)).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in cols))
    return "\n".join(out + [""] + _closing(report)) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def probe_markdown(report: ProbeReport) -> str:
    """The report as a Markdown table (the Action's job summary)."""
    lines = [f"### ghattempt probe: {_md(report.repository)}", "",
             "| behaviour | expected (source) | observed | verdict |",
             "| --- | --- | --- | --- |"]
    for o in report.observations:
        verdict = f"**{o.verdict}**" if o.verdict == "FAILS" else o.verdict
        lines.append(f"| {_md(o.behaviour)} | {_md(o.expected)} ({_md(o.source)}) | "
                     f"{_md(o.observed)} | {verdict} |")
    return "\n".join(lines + [""] + [_md(line) for line in _closing(report)]) + "\n"
