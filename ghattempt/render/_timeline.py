"""The journal timeline: every attempt on a time axis, as one self-contained HTML page.

Shape::

    build_timeline(capture, verdict, *, writer, writer_id, server_url) -> Timeline
    render_html(timeline: Timeline) -> str        # one page: inline CSS and SVG, no script
    phase_spans(events) -> list[Span]             # also used by the job summary
    run_url(server_url, repository, writer) -> str | None

The page is built from the capture itself (the typed ``ghattempt.core.Capture``), so it
shows a journal the reader refused too:
every top-level comment that holds an attempt record is a lane, every reply that holds
an event record a point of it. What counts is decided by the core alone: a comment
*contributes* when ``Comment.refused_because`` (journal-v1 section 6) says nothing
against it; the statuses of a valid journal are the reader's (``Verdict.journal``).
Marked on the page:

- *ignored*: a comment that does not count (another author, edited, deleted, no record),
  with the reason the core gives;
- *tampered*: a record by the writer that was edited or deleted after it was written,
  and any record the reader's failure names (``comment ID``/``reply ID``, or an
  attempt and seq), with the verdict's reason shown in a banner.

Each phase is a bar from its first record to its result, one segment per record, each
coloured by that record's status; a phase still open runs to the end of the axis with a
dashed edge. Attempts are linked to their successor (``supersede`` when the predecessor
was superseded); an attempt whose generation differs from its predecessor's says so.
Bars link to the workflow run that wrote the record (``<server>/<repo>/actions/runs/
<run id>/attempts/<run attempt>``). Nothing is fetched: the page carries a
Content-Security-Policy of ``default-src 'none'`` and uses the system's sans-serif font.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ghattempt.core import Attempt, Capture, Event, JournalInvalid, Verdict, Writer

__all__ = ["COLORS", "TAMPERED_COLOR", "Lane", "Mark", "Span", "Timeline", "build_timeline",
           "phase_spans", "render_html", "run_url"]

COLORS = {
    "succeeded": "#2da44e",
    "started": "#218bff",
    "waiting": "#d4a72c",
    "unknown": "#8250df",
    "failed": "#cf222e",
    "cancelled": "#6e7781",
    "superseded": "#1b7c83",
    "expired": "#953800",
}
"""Fill colour of a segment by the status of the record that starts it; each status its
own (cancelled grey, superseded teal, expired brown: a reader tells an attempt a person
stopped from one a new push replaced, or one that ran out of time)."""
TAMPERED_COLOR = "#e3008c"
"""The one colour of tampered marks and of the invalid-journal banner (used nowhere else)."""
IGNORED_COLOR = "#afb8c1"
ATTEMPT_ENDS = frozenset({"expired", "cancelled", "superseded"})
"""Attempt-level statuses (journal-v1 section 8) after which no phase record follows."""


@dataclass(frozen=True, slots=True)
class Span:
    """One phase of one attempt: its records in seq order and where it stands.

    ``segments`` are ``(start, end, status)`` with times in seconds since the epoch;
    ``end`` None for the last record of a phase that is not finished (open to the right).
    """

    phase: str
    status: str
    started: float
    finished: float | None
    segments: tuple[tuple[float, float | None, str], ...]
    events: tuple[Event, ...]

    @property
    def seconds(self) -> float | None:
        """From the first record to the result; None while the phase is open."""
        return None if self.finished is None else self.finished - self.started


@dataclass
class Mark:
    """A comment the page marks: ignored (with why) or tampered (with what)."""

    node: str
    at: float
    kind: str  # "ignored" or "tampered"
    why: str
    attempt: str | None = None
    phase: str | None = None  # the phase row it is drawn on, when its record names one


@dataclass
class Lane:
    """One attempt: its record, its spans, attempt-level events, marks on its rows."""

    node: str
    attempt: Attempt
    status: str
    spans: list[Span]
    attempt_events: list[Event]
    marks: list[Mark] = field(default_factory=list)
    generation_changed: bool = False
    tampered: bool = False


@dataclass
class Timeline:
    """Everything the page shows."""

    title: str
    repository: str
    server_url: str
    verdict: Verdict | None
    lanes: list[Lane]
    marks: list[Mark]
    problem: str | None  # why the journal is invalid (the banner), else None
    start: float
    end: float


def _ts(text: str | None) -> float | None:
    if not text:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


def phase_spans(events: Iterable[Event], plan: Sequence[str] = (),
                ended: float | None = None) -> list[Span]:
    """The spans of the plan phases that have records, in plan order (then any other
    phase, e.g. ``rollback``, in order of first record). A phase is finished by its
    last record when that record's status ends it (the core's ``PHASE_TERMINAL``); a
    phase left open when its attempt ended (``ended``: the time of the attempt-level
    record that ended it) stops there, unfinished."""
    from ghattempt.core import PHASE_TERMINAL

    by_phase: dict[str, list[Event]] = {}
    for event in sorted(events, key=lambda e: e.seq):
        if event.phase is not None:
            by_phase.setdefault(event.phase, []).append(event)
    order = [p for p in plan if p in by_phase] + [p for p in by_phase if p not in plan]
    spans = []
    for phase in order:
        records = by_phase[phase]
        times = [_ts(e.at) or 0.0 for e in records]
        last = records[-1]
        done = last.status in PHASE_TERMINAL or (phase == "rollback"
                                                 and last.status != "started")
        segments = []
        for i, event in enumerate(records):
            end = times[i + 1] if i + 1 < len(records) else (times[i] if done else ended)
            segments.append((times[i], end, event.status))
        spans.append(Span(phase, last.status, times[0], times[-1] if done else None,
                          tuple(segments), tuple(records)))
    return spans


def run_url(server_url: str, repository: str, writer: Writer) -> str | None:
    """The web URL of the workflow run attempt that wrote a record (Actions writers)."""
    if getattr(writer, "kind", None) != "actions":
        return None
    return (f"{server_url.rstrip('/')}/{repository}/actions/runs/"
            f"{getattr(writer, 'run_id', 0)}/attempts/{getattr(writer, 'run_attempt', 1)}")


def writer_label(writer: Writer) -> str:
    """``run 123.1 job build`` / ``app 42`` / ``cli alice``."""
    kind = getattr(writer, "kind", "?")
    if kind == "actions":
        return (f"run {getattr(writer, 'run_id', '?')}.{getattr(writer, 'run_attempt', '?')} "
                f"job {getattr(writer, 'job', '')}")
    if kind == "app":
        return f"app {getattr(writer, 'app_id', '?')}"
    return f"cli {getattr(writer, 'actor', '?')}"


_NAMED = re.compile(r"\b(?:comment|reply|node) ([A-Za-z0-9_=-]{4,})")
_ATTEMPT_SEQ = re.compile(r"attempt (sha256:[0-9a-f]{64})(?:[: ]+seq (\d+))?")


def _named_in(detail: str | None) -> tuple[set[str], set[tuple[str, int | None]]]:
    """Node ids, and (attempt, seq) pairs, that a failure's detail names."""
    if not detail:
        return set(), set()
    nodes = set(_NAMED.findall(detail))
    pairs = {(a, int(s) if s else None) for a, s in _ATTEMPT_SEQ.findall(detail)}
    return nodes, pairs


def build_timeline(capture: Capture | JournalInvalid, verdict: Verdict | None, *,
                   writer: str, writer_id: int | None,
                   server_url: str | None = None) -> Timeline:
    """The timeline of a captured journal (``capture``: the core's parse of what the
    reader reads on stdin, or the ``JournalInvalid`` parsing raised).

    Never raises for a bad capture: responses that do not parse give a page with no
    lanes and the reader's reason in the banner.
    """
    from ghattempt.core import Attempt, Event, JournalInvalid, parse_body

    server = (server_url or "https://github.com").rstrip("/")
    invalid = verdict is not None and verdict.status == "invalid"
    problem = f"{verdict.reason}: {verdict.detail}" if invalid and verdict else None
    if isinstance(capture, JournalInvalid):
        now = datetime.now(UTC).timestamp()
        return Timeline("journal (unreadable capture)", "", server, verdict, [], [],
                        problem or f"{capture.code}: {capture.detail}", now, now + 1)
    nodes, pairs = _named_in(verdict.detail if invalid and verdict else None)
    states = {s.id: s for s in verdict.journal.attempts} \
        if verdict is not None and verdict.journal is not None else {}
    lanes: list[Lane] = []
    marks: list[Mark] = []
    times: list[float] = []

    def refused(comment: Any) -> str | None:
        return comment.refused_because(writer, writer_id)  # type: ignore[no-any-return]

    def tampering(comment: Any, reason: str | None) -> str | None:
        """Why a comment is marked tampered: the writer's own record edited/deleted, or
        named by the reader's failure."""
        if comment.id in nodes:
            return f"the reader refused it: {problem}"
        if reason in ("edited", "deleted") and comment.login == writer:
            return f"a record by the writer, then {reason}"  # the core's words
        return None

    def read(comment: Any, expected: Any) -> tuple[Any, str | None, str | None]:
        """(the record or None, why it does not count, why it is marked tampered)."""
        why = refused(comment)
        try:
            return parse_body(comment.body, expected), why, tampering(comment, why)
        except JournalInvalid as exc:
            bad = f"not a valid record ({exc.code}: {exc.detail})" if why is None else None
            return None, why, tampering(comment, why) or bad

    for comment in capture.comments:
        at = _ts(comment.created_at) or 0.0
        times.append(at)
        found, why, tampered = read(comment, "attempt")
        record = found if isinstance(found, Attempt) else None
        if record is None:
            kind = "tampered" if tampered else "ignored"
            marks.append(Mark(comment.id, at, kind, tampered or why or "no record"))
            continue
        events: list[Event] = []
        lane_marks: list[Mark] = []
        for reply in capture.replies.get(comment.id, ()):
            rat = _ts(reply.created_at) or at
            times.append(rat)
            parsed, rwhy, rtampered = read(reply, "event")
            event = parsed if isinstance(parsed, Event) else None
            if event is not None and (record.digest, event.seq) in pairs:
                rtampered = rtampered or f"the reader refused it: {problem}"
            row = event.phase if event is not None else None
            if rtampered:
                lane_marks.append(Mark(reply.id, rat, "tampered", rtampered, record.digest,
                                       row))
            elif rwhy is not None or event is None:
                lane_marks.append(Mark(reply.id, rat, "ignored", rwhy or "no record",
                                       record.digest, row))
            if event is not None and rwhy is None and not rtampered \
                    and event.attempt == record.digest:
                events.append(event)
                times.append(_ts(event.at) or rat)
        if any(lane.attempt.digest == record.digest for lane in lanes):
            continue  # a retried root write: the same attempt again
        state = states.get(record.digest)
        status = state.status if state is not None else ("invalid" if invalid else "?")
        if state is not None:
            events = list(state.events)
        lane_tampered = bool(tampered) or (record.digest, None) in pairs \
            or any(m.kind == "tampered" for m in lane_marks)
        if tampered:
            lane_marks.insert(0, Mark(comment.id, at, "tampered", tampered, record.digest))
        elif why is not None:
            lane_marks.insert(0, Mark(comment.id, at, "ignored", why, record.digest))
        times.append(_ts(record.at) or at)
        ended = max((_ts(e.at) or at for e in events
                     if e.phase is None and e.status in ATTEMPT_ENDS), default=None)
        lanes.append(Lane(comment.id, record, status, phase_spans(events, record.plan, ended),
                          [e for e in events if e.phase is None], lane_marks,
                          tampered=lane_tampered))
    by_id = {lane.attempt.digest: lane for lane in lanes}
    for lane in lanes:
        pred = by_id.get(lane.attempt.predecessor or "")
        lane.generation_changed = pred is not None and \
            pred.attempt.generation_id != lane.attempt.generation_id
    start = min(times) if times else 0.0
    end = max(times) if times else 1.0
    if end - start < 1:
        end = start + 1
    try:  # named after the pull request the journal is about (its intent), then where
        intent = parse_body(capture.body.body, "intent")
    except JournalInvalid:
        intent = None
    where = f"discussion #{capture.discussion_number}"
    pull = getattr(intent, "pull_request", None)
    title = (f"{capture.repository_name} pull request #{pull} into "
             f"{getattr(intent, 'base_ref', '?')} ({where})" if pull is not None
             else f"{capture.repository_name} {where}")
    return Timeline(title, capture.repository_name, server, verdict, lanes, marks, problem,
                    start, end)


# ------------------------------------------------------------------------- rendering

_W = 1200          # page width of the picture, px
_LEFT = 250        # label column
_RIGHT = 84        # room right of the axis: a duration label after a bar that ends there
_CHAR = 6.5        # a generous width of one character of 11 px sans-serif, px
_ROW = 22          # height of one phase row
_HEAD = 30         # height of an attempt's header row
_GAP = 26          # space between attempts (successor links run here)
_AXIS = 40


def _esc(text: object) -> str:
    """Escaped for HTML, with tokens and token-shaped strings redacted (the page may be
    uploaded as an artifact)."""
    from ghattempt.render._summary import public

    return html.escape(public(str(text)), quote=True)


def _short(digest: str | None) -> str:
    if not digest:
        return "-"
    return digest[7:19] if digest.startswith("sha256:") else digest[:12]


def _clock(ts: float, with_date: bool = False) -> str:
    moment = datetime.fromtimestamp(ts, UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S")


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "open"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


def render_html(tl: Timeline) -> str:
    """The page: a heading, the verdict, an SVG time axis with one lane per attempt, and a
    table of every record and mark. All text is escaped; there is no script."""
    span = tl.end - tl.start
    plot = _W - _LEFT - _RIGHT

    def x(ts: float) -> float:
        return _LEFT + (ts - tl.start) / span * plot

    parts: list[str] = []
    y = _AXIS
    ticks = 6
    for i in range(ticks + 1):
        ts = tl.start + span * i / ticks
        parts.append(f'<line class="tick" x1="{x(ts):.1f}" y1="{_AXIS - 8}" x2="{x(ts):.1f}" '
                     f'y2="HEIGHT" stroke="#eaeef2"/>')
        parts.append(f'<text class="tick-label" x="{x(ts):.1f}" y="{_AXIS - 14}" '
                     f'text-anchor="middle">{_esc(_clock(ts, i == 0))}</text>')
    ends: dict[str, tuple[float, float]] = {}   # attempt -> (x of its end, y of its header)
    starts: dict[str, tuple[float, float]] = {}
    for lane in tl.lanes:
        a = lane.attempt
        a_at = _ts(a.at) or tl.start
        classes = "attempt" + (" tampered" if lane.tampered else "")
        parts.append(f'<g class="{classes}" data-attempt="{_esc(a.digest)}" '
                     f'data-status="{_esc(lane.status)}" data-node="{_esc(lane.node)}">')
        label = f"attempt {_short(a.digest)} \u00b7 {lane.status}"
        parts.append(f'<rect class="lane" x="0" y="{y}" width="{_W}" '
                     f'height="{_HEAD + _ROW * max(1, len(a.plan))}" fill="#f6f8fa"/>')
        parts.append(f'<text class="attempt-label" x="8" y="{y + 19}" font-weight="bold">'
                     f'{_esc(label)}<title>{_esc(a.digest)}: request key {_esc(a.request_key)}, '
                     f'channel {_esc(a.channel)}, generation {_esc(a.generation_id)}</title>'
                     f'</text>')
        gen = (f"new generation {_short(a.generation_id)} (head "
               f"{_esc(a.generation.source_commit[:12])})") if lane.generation_changed \
            else f"generation {_short(a.generation_id)}"
        cls = "generation generation-changed" if lane.generation_changed else "generation"
        parts.append(f'<text class="{cls}" x="{_W - 8}" y="{y + 19}" text-anchor="end" '
                     f'fill="{"#9a6700" if lane.generation_changed else "#57606a"}">'
                     f'{_esc(gen)} \u00b7 channel {_esc(a.channel)}</text>')
        starts[a.digest] = (x(a_at), y + _HEAD / 2)
        last_x = x(a_at)
        parts.append(f'<circle class="admitted" cx="{x(a_at):.1f}" cy="{y + _HEAD - 6}" r="4" '
                     f'fill="#24292f"><title>admitted {_esc(a.at)} by '
                     f'{_esc(writer_label(a.writer))}</title></circle>')
        for event in lane.attempt_events:
            ex = x(_ts(event.at) or a_at)
            last_x = max(last_x, ex)
            color = COLORS.get(event.status, "#57606a")
            parts.append(f'<path class="attempt-event" data-status="{_esc(event.status)}" '
                         f'd="M{ex:.1f},{y + _HEAD - 12} l6,6 l-6,6 l-6,-6 z" fill="{color}">'
                         f'<title>attempt {_esc(event.status)} {_esc(event.at)}: '
                         f'{_esc(event.reason or "")}</title></path>')
        spans = {s.phase: s for s in lane.spans}
        rows = list(a.plan) + [p for p in spans if p not in a.plan]
        for i, phase in enumerate(rows):
            ry = y + _HEAD + i * _ROW
            parts.append(f'<text class="phase-label" x="24" y="{ry + 15}">{_esc(phase)}</text>')
            s = spans.get(phase)
            if s is None:
                parts.append(f'<g class="phase" data-phase="{_esc(phase)}" data-status="none">'
                             f'</g>')
                continue
            url = run_url(tl.server_url, tl.repository, s.events[0].writer)
            parts.append(f'<g class="phase" data-phase="{_esc(phase)}" '
                         f'data-status="{_esc(s.status)}">')
            if url:
                parts.append(f'<a class="run" href="{_esc(url)}">')
            for start, end, status in s.segments:
                x1 = x(start)
                x2 = x(end) if end is not None else x(tl.end)
                width = max(x2 - x1, 6.0)
                dash = ' stroke="#24292f" stroke-dasharray="3,2"' if end is None else ""
                parts.append(f'<rect class="segment" data-status="{_esc(status)}" '
                             f'x="{x1:.1f}" y="{ry + 4}" width="{width:.1f}" height="{_ROW - 8}" '
                             f'rx="2" fill="{COLORS.get(status, "#57606a")}"{dash}/>')
                last_x = max(last_x, x1 + width)
            first = s.events[0]
            tip = "; ".join(f"{e.status} {e.at} ({writer_label(e.writer)})"
                            + (f": {e.reason}" if e.reason else "") for e in s.events)
            parts.append(f'<title>{_esc(phase)}: {_esc(s.status)}, {_esc(_duration(s.seconds))}'
                         f' \u2014 {_esc(tip)}</title>')
            if url:
                parts.append("</a>")
            parts.append("</g>")
            labels: list[tuple[str, str, str, str]] = []
            if s.finished is not None:
                labels.append(("duration", _duration(s.seconds), "#57606a", ""))
            if s.status == "failed":
                reason = next((e.reason for e in reversed(s.events) if e.reason), "") or ""
                labels.append(("reason", f"failed: {reason}" if reason else "failed",
                               COLORS["failed"], reason))
            bar_start = x(s.segments[0][0])
            bar_end = max(x(e if e is not None else tl.end) for _s, e, _st in s.segments)
            bar_end = max(bar_end, bar_start + 6.0)
            parts.extend(_row_labels(labels, bar_start, bar_end, ry + 15,
                                     24 + _text_width(phase) + 12))
            del first
        for mark in lane.marks:
            my = y + 6 if mark.phase not in rows else \
                y + _HEAD + rows.index(mark.phase) * _ROW + 4
            parts.append(_mark(mark, x(mark.at), my))
        ends[a.digest] = (last_x, y + _HEAD / 2)
        parts.append("</g>")
        y += _HEAD + _ROW * max(1, len(a.plan)) + _GAP
    for lane in tl.lanes:
        pred = lane.attempt.predecessor
        if pred and pred in ends and lane.attempt.digest in starts:
            (x1, y1), (x2, y2) = ends[pred], starts[lane.attempt.digest]
            prior = next((other for other in tl.lanes if other.attempt.digest == pred), None)
            superseded = prior is not None and (prior.status == "superseded" or any(
                e.status == "superseded" for e in prior.attempt_events))
            kind = "supersede" if superseded else "successor"
            parts.append(f'<path class="link {kind}" d="M{x1:.1f},{y1:.1f} C{x1 + 40:.1f},'
                         f'{y1:.1f} {x2 - 40:.1f},{y2:.1f} {x2:.1f},{y2:.1f}" fill="none" '
                         f'stroke="#24292f" stroke-width="1.5" marker-end="url(#arrow)">'
                         f'<title>{kind}: {_short(pred)} \u2192 {_short(lane.attempt.digest)}'
                         f'</title></path>')
            parts.append(f'<text class="link-label" x="{(x1 + x2) / 2:.1f}" '
                         f'y="{(y1 + y2) / 2 - 4:.1f}" font-size="11">{kind}</text>')
    if tl.marks:
        parts.append(f'<text class="phase-label" x="8" y="{y + 15}">outside any attempt</text>')
        for mark in tl.marks:
            parts.append(_mark(mark, x(mark.at), y + 4))
        y += _ROW + _GAP
    height = y + 10
    svg = "".join(parts).replace('y2="HEIGHT"', f'y2="{height - 10}"')
    picture = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{height}" '
               f'viewBox="0 0 {_W} {height}" role="img" aria-label="journal timeline">'
               '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" '
               'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
               '<path d="M0,0 L10,5 L0,10 z" fill="#24292f"/></marker>'
               f'<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
               f'patternTransform="rotate(45)"><rect width="3" height="6" '
               f'fill="{TAMPERED_COLOR}"/></pattern></defs>'
               f'{svg}</svg>')
    return _page(tl, picture)


def _text_width(text: str) -> float:
    """A generous estimate of ``text``'s width at 11 px (no script measures it)."""
    return len(text) * _CHAR


def _fit(text: str, room: float) -> str:
    """``text`` cut to ``room`` px with an ellipsis; "" when not even a word fits."""
    if _text_width(text) <= room:
        return text
    keep = int(room // _CHAR) - 1
    return "" if keep < 8 else text[:keep].rstrip() + "\u2026"


def _row_labels(labels: list[tuple[str, str, str, str]], bar_start: float, bar_end: float,
                y: float, left_limit: float) -> list[str]:
    """A phase row's labels (``(class, text, colour, whole text for the tooltip)``: the
    duration, then a failure's reason) beside its bar. The duration goes after the bar
    when it fits before the picture's right edge, else before the bar (right-aligned,
    back to ``left_limit``, after the phase's name). The reason goes where most of it
    fits (after or before the bar, or inside it in white), cut to that room with an
    ellipsis; its tooltip holds the whole. Nothing is drawn past either edge."""
    out: list[str] = []
    right = [bar_end + 8, _W - 4]          # free span after the bar
    left = [left_limit, bar_start - 8]     # free span before it

    def text(cls: str, shown: str, at: float, anchor: str, fill: str, whole: str) -> str:
        tip = f"<title>{_esc(whole)}</title>" if whole else ""
        return (f'<text class="{cls}" x="{at:.1f}" y="{y}" font-size="11" '
                f'text-anchor="{anchor}" fill="{fill}">{_esc(shown)}{tip}</text>')

    for cls, label, fill, whole in labels:
        width = _text_width(label)
        rooms = [("after", right[1] - right[0]), ("before", left[1] - left[0])]
        if cls == "reason":
            rooms.append(("inside", bar_end - bar_start - 12))
        where, room = max(rooms, key=lambda r: r[1]) if cls == "reason" else (
            rooms[0] if width <= rooms[0][1] else max(rooms, key=lambda r: r[1]))
        shown = _fit(label, room)
        if not shown:
            continue
        step = _text_width(shown) + 8
        if where == "after":
            out.append(text(cls, shown, right[0], "start", fill, whole))
            right[0] += step
        elif where == "before":
            out.append(text(cls, shown, left[1], "end", fill, whole))
            left[1] -= step
        else:
            out.append(text(cls, shown, bar_start + 6, "start", "#ffffff", whole))
    return out


def _mark(mark: Mark, mx: float, my: float) -> str:
    why = _esc(mark.why)
    if mark.kind == "tampered":
        return (f'<g class="mark tampered" data-node="{_esc(mark.node)}" data-why="{why}">'
                f'<rect x="{mx - 7:.1f}" y="{my - 2}" width="14" height="14" '
                f'fill="url(#hatch)" stroke="{TAMPERED_COLOR}" stroke-width="2"/>'
                f'<text x="{mx + 10 if mx + 70 < _W else mx - 10:.1f}" y="{my + 10}" '
                f'font-size="11" font-weight="bold" text-anchor='
                f'"{"start" if mx + 70 < _W else "end"}" '
                f'fill="{TAMPERED_COLOR}">tampered</text><title>tampered: {why}</title></g>')
    return (f'<g class="mark ignored" data-node="{_esc(mark.node)}" data-why="{why}">'
            f'<path d="M{mx - 5:.1f},{my} l10,10 M{mx + 5:.1f},{my} l-10,10" '
            f'stroke="{IGNORED_COLOR}" stroke-width="2"/><title>ignored: {why}</title></g>')


_CSS = """
body{font-family:sans-serif;margin:16px;color:#24292f;background:#fff}
h1{font-size:20px;margin:0 0 4px}
.verdict{margin:0 0 12px;color:#57606a}
.banner{border:3px solid %(t)s;color:%(t)s;padding:8px 12px;margin:0 0 12px;font-weight:bold}
svg text{font-family:sans-serif;font-size:12px}
table{border-collapse:collapse;margin-top:16px;font-size:12px}
td,th{border:1px solid #d0d7de;padding:2px 6px;text-align:left;vertical-align:top}
tr.tampered td{color:%(t)s;font-weight:bold}
tr.ignored td{color:#6e7781}
.legend span{display:inline-block;margin-right:12px}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
""".replace("%(t)s", TAMPERED_COLOR)


def _page(tl: Timeline, picture: str) -> str:
    v = tl.verdict
    marks = [m for lane in tl.lanes for m in lane.marks] + tl.marks
    tampered = sum(m.kind == "tampered" for m in marks)
    ignored = sum(m.kind == "ignored" for m in marks)
    verdict = ("no verdict" if v is None else f"status {v.status}, recovery {v.recovery}, ") \
        + f"{len(tl.lanes)} attempt(s), {ignored} comment(s) ignored" \
        + (f", {tampered} tampered" if tampered else "")
    rows = []
    for lane in tl.lanes:
        a = lane.attempt
        url = run_url(tl.server_url, tl.repository, a.writer)
        rows.append(_row("attempt", _short(a.digest), "0", "(attempt)", lane.status, a.at,
                         writer_label(a.writer), url, f"channel {a.channel}"))
        for s in lane.spans:
            for e in s.events:
                rows.append(_row("record", _short(a.digest), str(e.seq), s.phase, e.status,
                                 e.at, writer_label(e.writer),
                                 run_url(tl.server_url, tl.repository, e.writer),
                                 e.reason or ""))
        for e in lane.attempt_events:
            rows.append(_row("record", _short(a.digest), str(e.seq), "(attempt)", e.status,
                             e.at, writer_label(e.writer),
                             run_url(tl.server_url, tl.repository, e.writer), e.reason or ""))
        for m in lane.marks:
            rows.append(_row(m.kind, _short(a.digest), "-", m.node, m.kind,
                             _clock(m.at, True), "-", None, m.why))
    for m in tl.marks:
        rows.append(_row(m.kind, "-", "-", m.node, m.kind, _clock(m.at, True), "-", None,
                         m.why))
    legend = "".join(f'<span><i style="background:{c}"></i>{_esc(s)}</span>'
                     for s, c in COLORS.items())
    if tampered:
        legend += f'<span><i style="background:{TAMPERED_COLOR}"></i>tampered</span>'
    if ignored:
        legend += f'<span><i style="background:{IGNORED_COLOR}"></i>ignored</span>'

    banner = (f'<p class="banner tampered-banner">Journal invalid, failing closed: '
              f'{_esc(tl.problem)}</p>') if tl.problem else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{_esc(tl.title)}: journal timeline</title><style>{_CSS}</style></head>"
        f"<body><h1>Journal timeline: {_esc(tl.title)}</h1>"
        f"<p class=\"verdict\">{_esc(verdict)}</p>{banner}"
        f"<p class=\"legend\">{legend}</p>{picture}"
        "<table class=\"records\"><thead><tr><th>attempt</th><th>seq</th><th>phase / node"
        "</th><th>status</th><th>at</th><th>writer</th><th>reason / why</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></body></html>\n")


def _row(kind: str, attempt: str, seq: str, phase: str, status: str, at: str, writer: str,
         url: str | None, text: str) -> str:
    who = f'<a class="run" href="{_esc(url)}">{_esc(writer)}</a>' if url else _esc(writer)
    return (f'<tr class="{_esc(kind)}"><td>{_esc(attempt)}</td><td>{_esc(seq)}</td>'
            f'<td>{_esc(phase)}</td><td>{_esc(status)}</td><td>{_esc(at)}</td><td>{who}</td>'
            f'<td>{_esc(text)}</td></tr>')
