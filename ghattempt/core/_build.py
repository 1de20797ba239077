"""Builders: the records and comment bodies writers post, made by the reader's own code.

Every builder assembles the wire form, computes the digest, renders the canonical line
and parses it back with the same ``parse_line`` the reader uses, so what a writer
posts is exactly what the reader accepts (docs/journal-format.md sections 2-4).
``next_event`` fills ``seq``/``prev`` from an attempt's state; ``check_event`` and
``check_attempt`` replay a candidate onto the journal and return the failure code it
would cause, so a writer refuses an illegal record before writing it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from hashlib import sha256
from typing import Any, TypeVar

from ._c14n import canonical_text, digest_text
from ._codes import Failure, JournalInvalid
from ._errors import Fault, GhattemptError
from ._journal import AttemptState, JournalState, _across, _attempt_state, _Context, chain
from ._records import (
    KEY_CHARS,
    MAX_BODY_CHARS,
    Attempt,
    Event,
    Generation,
    Intent,
    Material,
    Record,
    Writer,
    find_block,
    markers,
    parse_line,
)
from ._rules import ReplayState

R = TypeVar("R", Intent, Attempt, Event)

_NOT_KEY = re.compile(f"[^{KEY_CHARS}]+")
_KEY_MAX = 128


def key_from(text: str) -> str:
    """An idempotency key derived from free text: every run of characters outside the
    *key* alphabet (docs/journal-format.md section 3: ``[A-Za-z0-9._:/@+=-]``) becomes one
    ``-``. A result longer than the pattern's 128 characters keeps its first 111, then
    ``-`` and the first 16 hex digits of the SHA-256 of the whole ``text`` (UTF-8), so two
    long texts that differ only after the cut (a job id of 108 characters, then the phase)
    still give two keys. The same text always gives the same key, so a re-run of the same
    step reuses it. An empty ``text`` gives ``""``, which is not a key."""
    key = _NOT_KEY.sub("-", text)
    if len(key) <= _KEY_MAX:
        return key
    whole = sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{key[:_KEY_MAX - 17]}-{whole[:16]}"


class RecordValueError(GhattemptError, ValueError):
    """A record the builders refuse to make (the reader would say ``bad_record``): the
    writer's input is wrong (``fault``: bad input).

    Attributes:
        problem: which rule broke where the writer can act on it (``reason_required``:
            the status needs a reason; ``reason_forbidden``: it takes none); else None.
    """

    fault = Fault.BAD_INPUT

    def __init__(self, message: str, problem: str | None = None) -> None:
        super().__init__(message)
        self.problem = problem


def _seal(wire: dict[str, Any], kind: type[R]) -> R:
    """Digest ``wire`` (without ``digest``), parse it back as the reader would."""
    wire["digest"] = digest_text(canonical_text(wire))
    line = canonical_text(wire)
    if markers(line):
        raise ValueError("a value of the record holds a record marker <!-- ghattempt:vN -->")
    try:
        record = parse_line(line)
    except JournalInvalid as exc:
        raise RecordValueError(f"the record would be refused: {exc.code}: {exc.detail}",
                               exc.problem) from None
    if not isinstance(record, kind):
        raise ValueError(f"built a {record.type} record, wanted {kind.type}")
    return record


def build_intent(*, repository_id: str, repository_name: str, pull_request: int,
                 base_ref: str) -> Intent:
    """The journal body's record (section 4, intent). Its digest is the intent id.

    Raises:
        ValueError: a value has the wrong shape (the reader would say ``bad_record``).
    """
    return _seal({"v": 1, "type": "intent",
                  "repository": {"id": repository_id, "name": repository_name},
                  "pull_request": pull_request, "base_ref": base_ref}, Intent)


def build_generation(*, source_commit: str, tree: str, config_path: str, config_blob: str,
                     config_digest: str, base_ref: str, base_commit: str) -> Generation:
    """A generation (section 4): exact source, config and observed protected base."""
    return Generation(source_commit, tree, config_path, config_blob, config_digest, base_ref,
                      base_commit)


def build_attempt(*, intent: Intent | str, request_key: str, generation: Generation,
                  plan: Sequence[str], channel: str, expires_at: str, writer: Writer,
                  reader: str, at: str, predecessor: str | None = None,
                  authorization: str | None = None) -> Attempt:
    """An attempt root's record (section 4, attempt). Its digest is the attempt id.

    ``intent`` is the journal's intent (or its id); ``expires_at``/``at`` are UTC times
    ``YYYY-MM-DDTHH:MM:SSZ``; ``reader`` the reader digest (``ghattempt.readers``).

    Raises:
        ValueError: a value has the wrong shape (the reader would say ``bad_record``).
    """
    return _seal({"v": 1, "type": "attempt",
                  "intent": intent.digest if isinstance(intent, Intent) else intent,
                  "request_key": request_key, "generation": generation.to_dict(),
                  "predecessor": predecessor, "plan": list(plan), "channel": channel,
                  "authorization": authorization, "expires_at": expires_at,
                  "writer": writer.to_dict(), "reader": reader, "at": at}, Attempt)


def build_event(*, intent: str, attempt: str, generation: str, seq: int, prev: str, key: str,
                phase: str | None, status: str, writer: Writer, reader: str, at: str,
                reason: str | None = None, materials: Iterable[Material] = ()) -> Event:
    """An event record (section 4, event); the digest is computed here.

    Raises:
        ValueError: a value has the wrong shape (the reader would say ``bad_record``),
            e.g. a missing ``reason`` for waiting/failed/cancelled/superseded/expired/unknown.
    """
    return _seal({"v": 1, "type": "event", "intent": intent, "attempt": attempt,
                  "generation": generation, "seq": seq, "prev": prev, "key": key,
                  "phase": phase, "status": status, "reason": reason,
                  "materials": [m.to_dict() for m in materials], "writer": writer.to_dict(),
                  "reader": reader, "at": at}, Event)


def next_event(state: AttemptState, *, key: str, phase: str | None, status: str,
               writer: Writer, reader: str, at: str, reason: str | None = None,
               materials: Iterable[Material] = ()) -> Event:
    """The next event of an attempt: ``seq`` = head + 1, ``prev`` = head digest.

    Build it once and keep its bytes across retries (writer protocol step 3).

    Raises:
        ValueError: as ``build_event``.
    """
    return build_event(intent=state.attempt.intent, attempt=state.id,
                       generation=state.generation_id, seq=state.head_seq + 1,
                       prev=state.head_digest, key=key, phase=phase, status=status,
                       writer=writer, reader=reader, at=at, reason=reason,
                       materials=materials)


def build_material(*, attempt: Attempt | AttemptState, id: str, kind: str, size: int,
                   digest: str, url: str) -> Material:
    """A material produced by ``attempt`` (section 4, material); ``size`` in bytes."""
    record = attempt.attempt if isinstance(attempt, AttemptState) else attempt
    return Material(id, kind, size, digest, record.digest, record.generation_id, url)


def _context(journal: JournalState) -> _Context:
    return _Context(journal.options, journal.intent,
                    {s.id: s.attempt for s in journal.attempts}, journal.repository_name)


def check_event(journal: JournalState, event: Event) -> Failure | None:
    """The failure code appending ``event`` would cause, or None when it is accepted.

    Runs the reader's checks on the journal plus the candidate: record shape and
    digest, identity, sections 7.5 c-h (bound, duplicates, fork, gap, link, replay and
    materials) and section 9. An identical repeat of a present event is accepted.
    """
    failure = _check_event(journal, event)
    return None if failure is None else failure.code


def _check_event(journal: JournalState, event: Event) -> JournalInvalid | None:
    try:
        _seal({k: v for k, v in event.to_dict().items() if k != "digest"}, Event)
    except ValueError as exc:
        return JournalInvalid("bad_record", str(exc))
    if _digest_of(event) != event.digest:
        return JournalInvalid("digest_mismatch", "the event's digest is not its content's")
    state = journal.attempt(event.attempt)
    if state is None:
        return JournalInvalid("identity_drift", f"the event names attempt {event.attempt}, "
                              "no attempt of this journal")
    events = {e.digest: e for e in state.events}
    events.setdefault(event.digest, event)
    ctx = _context(journal)
    try:
        ctx.check_identity(state.attempt, event, "the event")
        ordered, replay = chain(ctx, state.attempt, events.values(), dict(journal.materials))
        after = _attempt_state(state.attempt, state.root_ids, ordered, (), replay)
        _across(tuple(after if s.id == state.id else s for s in journal.attempts))
    except JournalInvalid as exc:
        return exc
    return None


def _digest_of(record: Record) -> str:
    wire = record.to_dict()
    del wire["digest"]
    return digest_text(canonical_text(wire))


def check_attempt(journal: JournalState, attempt: Attempt) -> Failure | None:
    """The failure code adding the attempt root ``attempt`` would cause, or None.

    Runs the record checks, ``identity_drift`` against the journal's intent,
    ``history_bound`` and section 9 (predecessor, fork, ``blocked_successor``,
    ``authorization_reused``). An identical repeat of a present root is accepted.
    """
    try:
        _seal({k: v for k, v in attempt.to_dict().items() if k != "digest"}, Attempt)
    except ValueError:
        return "bad_record"
    if _digest_of(attempt) != attempt.digest:
        return "digest_mismatch"
    if attempt.intent != journal.intent.digest:
        return "identity_drift"
    if journal.attempt(attempt.digest) is not None:
        return None
    if len(journal.attempts) + 1 > journal.options.max_attempts:
        return "history_bound"
    fresh = _attempt_state(attempt, (), (), (),
                           ReplayState.start(attempt.plan, attempt.expires_at))
    try:
        _across((*journal.attempts, fresh))
    except JournalInvalid as exc:
        return exc.code
    return None


# ----------------------------------------------------------------------------- bodies

_STATUS_ICON = {"started": "\u25b6\ufe0f", "waiting": "\u23f3", "succeeded": "\u2705",
                "failed": "\u274c", "cancelled": "\U0001f6d1", "superseded": "\u23ed\ufe0f",
                "unknown": "\u2753", "expired": "\u231b"}


def _human(text: str) -> str:
    """Neutralize a value for the human part: no marker, no fence, one line."""
    text = " ".join(text.split())
    return text.replace("<!--", "&lt;!--").replace("```", "`\u200b``")


def _summary(record: Record) -> str:
    if isinstance(record, Intent):
        return (f"### Release journal for #{record.pull_request}\n\n"
                f"Tracks every business attempt to land **#{record.pull_request}** into "
                f"`{_human(record.base_ref)}` of `{record.repository_name}`. Entries below "
                "are written by automation: one comment per attempt, one reply per event.")
    if isinstance(record, Attempt):
        plan = " \u2192 ".join(f"`{p}`" for p in record.plan)
        after = f"  \nSucceeds `{record.predecessor[7:19]}`." if record.predecessor else ""
        return (f"#### Attempt `{record.request_key}` \u00b7 channel "
                f"**{_human(record.channel)}**\n\nPlan: {plan}  \n"
                f"Generation `{record.generation.source_commit[:7]}` on "
                f"`{_human(record.generation.base_ref)}`, expires {record.expires_at}.{after}")
    icon = _STATUS_ICON.get(record.status, "")
    what = "attempt" if record.phase is None else _human(record.phase)
    lines = [f"{icon} **{what}** {record.status} (seq {record.seq})"]
    if record.reason is not None:
        lines.append(f"> {_human(record.reason)}")
    for m in record.materials:
        lines.append(f"- {m.kind} `{m.id}`: {m.bytes} bytes, `{m.digest[:19]}`")
    return "\n\n".join(lines[:2]) + ("\n\n" + "\n".join(lines[2:]) if lines[2:] else "")


def record_block(record: Record) -> str:
    """The machine part of a body: marker, fence, canonical line, fence (section 2)."""
    return "<!-- ghattempt:v1 -->\n```json\n" + canonical_text(record.to_dict()) + "\n```\n"


def render_body(record: Record, summary: str | None = None) -> str:
    """A comment body: Markdown for humans, then exactly one record block (section 2).

    ``summary`` replaces the generated human part.

    Raises:
        ValueError: ``summary`` holds a record marker, or the body would exceed
            GitHub's 65,536 characters, or would not read back as ``record``.
    """
    human = _summary(record) if summary is None else summary
    if markers(human):
        raise ValueError("the summary holds a record marker <!-- ghattempt:vN -->")
    body = human.rstrip("\n") + "\n\n" + record_block(record)
    if len(body) > MAX_BODY_CHARS:
        raise ValueError(f"the body has {len(body)} characters; GitHub takes at most "
                         f"{MAX_BODY_CHARS} (cite fewer materials per event)")
    if find_block(body) != canonical_text(record.to_dict()):
        raise ValueError("the body does not read back as its record")
    return body


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    RecordValueError, build_attempt, build_event, build_generation, build_intent,
    build_material, check_attempt, check_event, key_from, next_event, record_block,
    render_body,
):
    _exported.__module__ = "ghattempt.core"
del _exported
