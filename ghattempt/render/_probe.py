"""The probe's report as a person reads it: one table (behaviour, expected with its
source, observed, verdict) for a terminal, the same as Markdown for a job summary, and
the lines saying what the probe left behind.

Shape::

    probe_table(report, width=None, token_env=None) -> str   # plain text, a row each
    probe_markdown(report, token_env=None) -> str            # the job summary's table
    probe_json(report, token_env=None) -> str                # the observations, for an issue

Every text GitHub gave (an observed refusal) passes the same redaction as error lines:
token-shaped strings and the token's own value never reach the table or the file.
"""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ghattempt.commands import ProbeReport

__all__ = ["probe_json", "probe_markdown", "probe_table"]

_HEAD = ("behaviour", "expected (source)", "observed", "verdict")


def _public(text: str, token_env: str | None) -> str:
    from ghattempt.commands import secret_values
    from ghattempt.github import redact

    return redact(text, secret_values(token_env))


def _redacted(value: Any, token_env: str | None) -> Any:
    if isinstance(value, str):
        return _public(value, token_env)
    if isinstance(value, list):
        return [_redacted(v, token_env) for v in value]
    if isinstance(value, dict):
        return {k: _redacted(v, token_env) for k, v in value.items()}
    return value


def probe_json(report: ProbeReport, token_env: str | None = None) -> str:
    """The report as indented JSON (``ProbeReport.to_dict``), redacted."""
    return json.dumps(_redacted(report.to_dict(), token_env), ensure_ascii=True,
                      indent=1) + "\n"


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


def probe_table(report: ProbeReport, width: int | None = None,
                token_env: str | None = None) -> str:
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
    return _public("\n".join(out + [""] + _closing(report)) + "\n", token_env)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def probe_markdown(report: ProbeReport, token_env: str | None = None) -> str:
    """The report as a Markdown table (the Action's job summary)."""
    lines = [f"### ghattempt probe: {_md(report.repository)}", "",
             "| behaviour | expected (source) | observed | verdict |",
             "| --- | --- | --- | --- |"]
    for o in report.observations:
        verdict = f"**{o.verdict}**" if o.verdict == "FAILS" else o.verdict
        lines.append(f"| {_md(o.behaviour)} | {_md(o.expected)} ({_md(o.source)}) | "
                     f"{_md(o.observed)} | {verdict} |")
    return _public("\n".join(lines + [""] + [_md(line) for line in _closing(report)]) + "\n",
                   token_env)


# Public as ghattempt.render (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    probe_json, probe_markdown, probe_table,
):
    _exported.__module__ = "ghattempt.render"
del _exported
