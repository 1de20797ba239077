"""Human views of a verdict: a plain-text table, a Markdown summary, a Mermaid diagram.

Shape::

    text_report(verdict: Verdict, url: str | None) -> str
    event_rows(journal: JournalState) -> list[EventRow]
    markdown_summary(verdict, url, *, mode, command, message, server_url) -> str
    next_phase(verdict) -> str; ignored_text(verdict) -> str
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

__all__ = ["EventRow", "event_rows", "ignored_reasons", "ignored_text", "markdown_summary",
           "mermaid_phases", "next_phase", "short", "text_report"]


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
                             f"channel {a.channel}, {len(a.plan)} "
                             + ("phase" if len(a.plan) == 1 else "phases")
                             + (f", after {a.predecessor[7:15]}" if a.predecessor else ""),
                             a.request_key, a.at, _writer(a.writer), 0))
        for e in state.events:
            rows.append(EventRow(short(state.id), e.seq, e.phase or "(attempt)", e.status,
                                 e.reason or "", e.key, e.at, _writer(e.writer),
                                 len(e.materials)))
    return rows


def _inert(text: str) -> str:
    """``text`` for a terminal: control characters (escapes, newlines) shown as ``\\xNN``,
    so record text cannot move the cursor, retitle the window or add lines; a token of
    the environment or a token-shaped string (a record written before such values were
    refused) shown as ``[redacted]``."""
    text = public(text)
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


def public(text: str) -> str:
    """``text`` with the environment's tokens and token-shaped strings redacted."""
    from ghattempt.commands import secret_values
    from ghattempt.github import redact

    return redact(text, secret_values())


def _md(text: str) -> str:
    return public(text).replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


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


def ignored_reasons(verdict: Verdict) -> dict[str, int]:
    """The journal's ignored comments counted by kind, as the core counts them
    (``JournalState.ignored_kinds``: edited, deleted, other author, no record, reply of
    an ignored comment); empty when the verdict carries no journal state."""
    journal = verdict.journal
    return dict(getattr(journal, "ignored_kinds", None) or ()) if journal is not None else {}


def ignored_text(verdict: Verdict) -> str:
    """``3 comments ignored (edited: 1, other author: 2)``, or the count alone."""
    n = verdict.ignored
    reasons = ignored_reasons(verdict)
    head = f"{n} comment{'s' if n != 1 else ''} of the journal ignored"
    if reasons:
        return head + " (" + ", ".join(f"{k}: {v}" for k, v in sorted(reasons.items())) + ")"
    return head + " (edited, deleted, or not by the configured writer)"


def next_phase(verdict: Verdict) -> str:
    """The phase the recovery names (``continue:P``, ``wait:P``, ``reconcile:P``), else
    empty: what the next step of a release workflow runs."""
    kind, _, phase = verdict.recovery.partition(":")
    return phase if kind in ("continue", "wait", "reconcile") else ""


def markdown_summary(verdict: Verdict, url: str | None, *, mode: str = "full",
                     command: str = "", message: str = "",
                     server_url: str | None = None) -> str:
    """The job summary of one step.

    ``brief``: one line of what the step did and where the attempt stands. ``full``: the
    verdict table, then every attempt of the journal (not only the current) with each
    phase's records, its duration and the run and job that wrote it (linked), what was
    ignored, and a Mermaid diagram of the current attempt's phases. ``none``: empty.
    """
    if mode == "none":
        return ""
    nxt = next_phase(verdict)
    if mode == "brief":
        link = f" \u00b7 [journal]({url})" if url else ""
        done = f"{_md(message)}: " if message else ""
        return (f"**ghattempt {_md(command)}**: {done}status `{verdict.status}`, recovery "
                f"`{verdict.recovery}`" + (f", next phase `{nxt}`" if nxt else "")
                + f"{link}\n")
    title = "ghattempt: journal invalid (fail closed)" if verdict.status == "invalid" \
        else f"ghattempt: {verdict.status}"
    out = [f"### {title}", ""]
    if message:
        out += [f"{_md(command)}: {_md(message)}", ""]
    out += ["| | |", "| --- | --- |"]
    rows = [
        ("status", f"`{verdict.status}`"),
        ("reason", _md(verdict.reason) if verdict.reason else "-"),
        ("recovery", f"`{verdict.recovery}`"),
        ("next phase", f"`{nxt}`" if nxt else "-"),
        ("request key", f"`{verdict.request_key}`" if verdict.request_key else "-"),
        ("attempt", f"`{short(verdict.attempt)}`"),
        ("generation", f"`{short(verdict.generation)}`"),
        ("missing phases", " ".join(f"`{p}`" for p in verdict.missing_phases) or "-"),
        ("ignored", _md(ignored_text(verdict)) if verdict.ignored else "0"),
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
        out += ["", "#### Attempts", ""]
        out += _attempts(journal, server_url)
    return "\n".join(out) + "\n"


def _attempts(journal: JournalState, server_url: str | None) -> list[str]:
    from ghattempt.render._timeline import phase_spans, run_url, writer_label

    server = server_url or "https://github.com"
    by_id = {s.id: s for s in journal.attempts}
    out: list[str] = []

    def who(writer: object) -> str:
        link = run_url(server, journal.repository_name, writer)  # type: ignore[arg-type]
        label = _md(writer_label(writer))  # type: ignore[arg-type]
        return f"[{label}]({link})" if link else label

    for state in journal.attempts:
        a = state.attempt
        pred = by_id.get(a.predecessor or "")
        gen = f"generation `{short(a.generation_id)}`"
        if pred is not None and pred.generation_id != a.generation_id:
            gen = f"**new generation** `{short(a.generation_id)}` (head " \
                  f"`{a.generation.source_commit[:12]}`)"
        after = f", after `{short(a.predecessor)}`" if a.predecessor else ""
        out += [f"**attempt `{short(state.id)}`**: `{state.status}`, channel "
                f"`{_md(a.channel)}`, {gen}{after}; admitted {a.at} by {who(a.writer)}", "",
                "| phase | status | first record | result | duration | reason | written by |",
                "| --- | --- | --- | --- | --- | --- | --- |"]
        spans = {s.phase: s for s in phase_spans(state.events, a.plan)}
        for phase in [*a.plan, *(p for p in spans if p not in a.plan)]:
            span = spans.get(phase)
            if span is None:
                out.append(f"| {_md(phase)} | - | - | - | - | - | - |")
                continue
            first, last = span.events[0], span.events[-1]
            seconds = span.seconds
            took = "open" if seconds is None else f"{seconds:.0f} s"
            writers = " ".join(dict.fromkeys(who(e.writer) for e in span.events))
            out.append(f"| {_md(phase)} | `{span.status}` | {first.at} | "
                       f"{last.at if seconds is not None else '-'} | {took} | "
                       f"{_md(last.reason or '-')} | {writers} |")
        for e in state.events:
            if e.phase is None:
                out.append(f"| (attempt) | `{e.status}` | {e.at} | {e.at} | - | "
                           f"{_md(e.reason or '-')} | {who(e.writer)} |")
        out.append("")
    return out


# Public as ghattempt.render (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    ignored_text, markdown_summary, next_phase, text_report,
):
    _exported.__module__ = "ghattempt.render"
del _exported
