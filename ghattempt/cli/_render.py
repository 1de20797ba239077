"""Human views of a verdict: a plain-text table, a Markdown summary, a Mermaid diagram.

Shape::

    text_report(verdict: Verdict, url: str | None) -> str
    event_rows(journal: JournalState) -> list[EventRow]
    markdown_summary(verdict: Verdict, url: str | None) -> str
    mermaid_phases(state: AttemptState) -> str

Phases, their order and each attempt's plan come from the core (``PHASES``, the
attempt's ``plan`` and replayed ``phases``); nothing here decides a status.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ghattempt.core import AttemptState, JournalState, Verdict

__all__ = ["EventRow", "event_rows", "markdown_summary", "mermaid_phases", "short",
           "text_report"]


def short(digest: str | None, n: int = 12) -> str:
    """``sha256:0123456789ab`` for a digest (``-`` for None)."""
    if not digest:
        return "-"
    return digest[: 7 + n] if digest.startswith("sha256:") else digest[:n]


@dataclass(frozen=True, slots=True)
class EventRow:
    """One line of the journal table: an attempt root (seq 0) or one of its events."""

    attempt: str
    seq: int
    phase: str
    status: str
    reason: str
    key: str
    at: str
    writer: str
    materials: int


def _writer(w: object) -> str:
    kind = getattr(w, "kind", "?")
    if kind == "actions":
        return f"run {getattr(w, 'run_id', '?')}.{getattr(w, 'run_attempt', '?')} " \
               f"{getattr(w, 'job', '')}"
    if kind == "app":
        return f"app {getattr(w, 'app_id', '?')}"
    return f"cli {getattr(w, 'actor', '?')}"


def event_rows(journal: JournalState) -> list[EventRow]:
    """Every attempt root and event of a valid journal, in node then seq order."""
    rows: list[EventRow] = []
    for state in journal.attempts:
        a = state.attempt
        rows.append(EventRow(short(state.id), 0, "(attempt)", state.status,
                             f"channel {a.channel}, {len(a.plan)} phases"
                             + (f", after {a.predecessor[7:15]}" if a.predecessor else ""),
                             a.request_key, a.at, _writer(a.writer), 0))
        for e in state.events:
            rows.append(EventRow(short(state.id), e.seq, e.phase or "(attempt)", e.status,
                                 e.reason or "", e.key, e.at, _writer(e.writer),
                                 len(e.materials)))
    return rows


def _inert(text: str) -> str:
    """``text`` for a terminal: control characters (escapes, newlines) shown as ``\\xNN``,
    so record text cannot move the cursor, retitle the window or add lines."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], limit: int = 40) -> str:
    cells = [[(c if len(c) <= limit else c[: limit - 1] + "\u2026") for c in map(_inert, r)]
             for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
              for r in cells]
    return "\n".join(lines) + "\n"


def text_report(verdict: Verdict, url: str | None) -> str:
    """The ``status`` table: the verdict, the attempts, then every record."""
    head = [
        ("journal", url or "-"),
        ("status", verdict.status + (f" ({verdict.reason})" if verdict.reason else "")),
        ("recovery", verdict.recovery),
        ("request key", verdict.request_key or "-"),
        ("attempt", short(verdict.attempt)),
        ("generation", short(verdict.generation)),
        ("missing phases", " ".join(verdict.missing_phases) or "-"),
        ("ignored comments", str(verdict.ignored)),
    ]
    if verdict.detail:
        head.append(("detail", verdict.detail))
    width = max(len(k) for k, _ in head)
    out = "".join(f"{k.ljust(width)}  {_inert(v)}\n" for k, v in head)
    journal = verdict.journal
    if journal is None:
        return out
    out += "\n" + _inert(f"intent {short(journal.intent.digest)}: pull request "
                         f"#{journal.intent.pull_request} into {journal.intent.base_ref} of "
                         f"{journal.repository_name}") + "\n"
    if journal.attempts:
        out += "\n" + _table(
            ("ATTEMPT", "REQUEST KEY", "STATUS", "PREDECESSOR", "GENERATION"),
            [(short(s.id), s.request_key, s.status, short(s.predecessor),
              short(s.generation_id)) for s in journal.attempts])
        out += "\n" + _table(
            ("ATTEMPT", "SEQ", "PHASE", "STATUS", "REASON", "KEY", "AT", "WRITER", "MAT"),
            [(r.attempt, str(r.seq) if r.seq else "-", r.phase, r.status, r.reason or "-",
              r.key, r.at, r.writer, str(r.materials) if r.materials else "-")
             for r in event_rows(journal)])
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


_STYLE = {
    "succeeded": "fill:#d1f7d6,stroke:#1a7f37",
    "started": "fill:#ddf4ff,stroke:#0969da",
    "waiting": "fill:#fff8c5,stroke:#9a6700",
    "unknown": "fill:#fbefff,stroke:#8250df",
    "failed": "fill:#ffebe9,stroke:#cf222e",
    "cancelled": "fill:#eaeef2,stroke:#57606a",
    "superseded": "fill:#eaeef2,stroke:#57606a",
    "none": "fill:#ffffff,stroke:#8c959f,stroke-dasharray:4",
}


def mermaid_phases(state: AttemptState) -> str:
    """A Mermaid flowchart of the attempt's plan (in the core's phase order), each node
    labelled and styled with the phase's last status (``none`` before any record)."""
    from ghattempt.core import PHASES

    plan = [p for p in PHASES if p in state.attempt.plan]
    lines = ["flowchart LR"]
    for i, phase in enumerate(plan):
        last = state.phases.get(phase)
        st = last.status if last is not None else "none"
        lines.append(f'  p{i}["{phase}<br/>{st}"]')
        lines.append(f"  style p{i} {_STYLE.get(st, _STYLE['none'])}")
    for i in range(len(plan) - 1):
        lines.append(f"  p{i} --> p{i + 1}")
    return "\n".join(lines) + "\n"


def markdown_summary(verdict: Verdict, url: str | None) -> str:
    """The job summary: verdict table, the current attempt's phases as a Mermaid
    diagram, and every record of the journal as a table."""
    title = "ghattempt: journal invalid (fail closed)" if verdict.status == "invalid" \
        else f"ghattempt: {verdict.status}"
    out = [f"### {title}", "", "| | |", "| --- | --- |"]
    rows = [
        ("status", f"`{verdict.status}`"),
        ("reason", _md(verdict.reason) if verdict.reason else "-"),
        ("recovery", f"`{verdict.recovery}`"),
        ("request key", f"`{verdict.request_key}`" if verdict.request_key else "-"),
        ("attempt", f"`{short(verdict.attempt)}`"),
        ("generation", f"`{short(verdict.generation)}`"),
        ("missing phases", " ".join(f"`{p}`" for p in verdict.missing_phases) or "-"),
        ("journal", f"[{url}]({url})" if url else "-"),
    ]
    if verdict.detail:
        rows.append(("detail", _md(verdict.detail)))
    out += [f"| {k} | {v} |" for k, v in rows]
    current = verdict.current
    if current is not None:
        out += ["", "#### Phases of the current attempt", "", "```mermaid",
                mermaid_phases(current).rstrip("\n"), "```"]
    journal = verdict.journal
    if journal is not None and journal.attempts:
        out += ["", "#### Journal", "",
                "| attempt | seq | phase | status | reason | key | at |",
                "| --- | --- | --- | --- | --- | --- | --- |"]
        out += [f"| `{r.attempt}` | {r.seq or '-'} | {_md(r.phase)} | {r.status} | "
                f"{_md(r.reason) or '-'} | `{_md(r.key)}` | {r.at} |"
                for r in event_rows(journal)]
    return "\n".join(out) + "\n"
