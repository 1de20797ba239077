"""Records of the journal: their shapes, parsing and wire form (docs/journal-format.md
sections 2-4).

A comment body holds Markdown for humans and at most one *record block*::

    <!-- ghattempt:v1 -->
    ```json
    {canonical JSON of the record, on one line}
    ```

``parse_body`` finds the block and turns it into a record (``Intent``, ``Attempt`` or
``Event``) or raises ``JournalInvalid`` with the code of the first failed check, in the
order of section 3: marker and fence, JSON syntax, canonical form, allowed values,
``v``, shapes (keys, types, patterns), ``digest``, and last the expected ``type``.

Every shape is one field table below (``INTENT``, ``ATTEMPT``, ``EVENT`` and the tables
they nest): a key's rule is written once, in its table, and ``check_shape`` is the one
function that applies a table. The lease record (``_lease.py``) uses the same tables.
"""

from __future__ import annotations

import re

from ._c14n import MAX_SAFE_INTEGER, canonical_text, digest_text, read_canonical
from ._codes import JournalInvalid
from ._errors import Fault, GhattemptError
from ._rules import PHASES, statuses_for
from ._value import value

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, Literal, TypeAlias

    RecordType = Literal["intent", "attempt", "event"]
    Check = Callable[[Any, str], None]
    Rule = tuple[Callable[[Any], bool], str]
    Table = Mapping[str, Rule | Check | "Table"]

MAX_BODY_CHARS = 65536
"""GitHub's limit on a comment or discussion body, in characters."""

# ------------------------------------------------------------------ value shapes (3)
# Each pattern matches the whole string (``fullmatch``); the classes are ASCII only.

_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
KEY_CHARS = "A-Za-z0-9._:/@+=-"
"""The characters of a *key*, as a regular-expression class body (section 3)."""
_KEY = re.compile(f"[{KEY_CHARS}]{{1,128}}")
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_REPO = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
_MARKER = re.compile(r"<!-- ghattempt:v([0-9]+) -->")
_BLOCK = "<!-- ghattempt:v1 -->\n```json\n"


def is_oid(value: object) -> bool:
    """True for a Git object id: 40 or 64 lowercase hex digits (section 3, *oid*)."""
    return type(value) is str and _OID.fullmatch(value) is not None


def is_digest(value: object) -> bool:
    """True for ``sha256:`` + 64 lowercase hex digits (section 3, *digest*)."""
    return type(value) is str and _DIGEST.fullmatch(value) is not None


def is_key(value: object) -> bool:
    """True for ``[A-Za-z0-9._:/@+=-]{1,128}`` (section 3, *key*)."""
    return type(value) is str and _KEY.fullmatch(value) is not None


def is_time(value: object) -> bool:
    """True for a UTC time ``YYYY-MM-DDTHH:MM:SSZ`` (section 3, *time*)."""
    return type(value) is str and _TIME.fullmatch(value) is not None


def is_repo(value: object) -> bool:
    """True for ``owner/name`` (section 3, *repo*)."""
    return type(value) is str and _REPO.fullmatch(value) is not None


def is_name(value: object) -> bool:
    """True for a string of 1..256 characters (section 3, *name*)."""
    return type(value) is str and 1 <= len(value) <= 256


def is_reason(value: object) -> bool:
    """True for a string of 1..1024 characters (section 3, *reason*)."""
    return type(value) is str and 1 <= len(value) <= 1024


def is_count(value: object) -> bool:
    """True for an integer >= 1 that is not a boolean (section 3, *count*), at most
    2**53-1 (section 3, allowed values)."""
    return type(value) is int and 1 <= value <= MAX_SAFE_INTEGER


def is_size(value: object) -> bool:
    """True for an integer >= 0 that is not a boolean, at most 2**53-1 (a material's
    ``bytes``, a witness's ``head.records``)."""
    return type(value) is int and 0 <= value <= MAX_SAFE_INTEGER


def markers(body: str) -> list[str]:
    """The version digit strings N of every marker ``<!-- ghattempt:vN -->`` in ``body``."""
    return _MARKER.findall(body)


MATERIAL_KINDS = ("artifact", "checkpoint", "receipt", "passport", "readback")
"""Kinds of material (section 4, material)."""

REASON_REQUIRED = frozenset({"waiting", "failed", "cancelled", "superseded", "expired", "unknown"})
"""Statuses whose event must carry a ``reason`` (section 4, event)."""

_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}

# ------------------------------------------------------------------- field tables


class ShapeProblem(GhattemptError):
    """A value outside its field table; the message names the field and the shape.
    ``parse_line`` reports it as ``bad_record``, ``parse_lease`` as ``bad_witness``.

    ``problem`` names, where a writer can act on it, which rule it broke:
    ``reason_required`` (the status needs a reason) or ``reason_forbidden`` (it takes
    none); None otherwise."""

    def __init__(self, message: str, problem: str | None = None) -> None:
        super().__init__(message)
        self.problem = problem

    fault = Fault.JOURNAL_INVALID


def shape(test: Callable[[Any], bool], what: str) -> Rule:
    """A field rule: ``test(value)`` must hold; else the value is not ``what``."""
    return (test, what)


def nullable(rule: Rule) -> Rule:
    """A field rule that also takes ``null``."""
    test, what = rule
    return (lambda v: v is None or test(v), what + " or null")


def array_of(table: Table) -> Check:
    """A field rule: an array whose every item is an object of ``table``."""
    def check(value: Any, where: str) -> None:
        if type(value) is not list:
            raise ShapeProblem(f"{where} is not an array")
        for i, item in enumerate(value):
            check_shape(item, table, f"{where}[{i}]")
    return check


def check_shape(obj: object, table: Table, where: str) -> dict[str, Any]:
    """Check ``obj`` against a field table: exactly the table's keys, then each value
    by its rule in table order. A rule is ``(test, what)`` (``test(value)`` must
    hold), a nested table (a nested object), or a function ``(value, where)`` that
    raises ``ShapeProblem`` (arrays, the writer, the plan).

    Raises:
        ShapeProblem: naming the first key set or value that is wrong.
    """
    if type(obj) is not dict:
        raise ShapeProblem(f"{where} is not an object")
    if obj.keys() != table.keys():
        missing = sorted(table.keys() - obj.keys())
        unknown = sorted(obj.keys() - table.keys())
        raise ShapeProblem(f"{where}: missing keys {missing}, unknown keys {unknown}")
    for key, rule in table.items():
        value = obj[key]
        if type(rule) is tuple:
            if not rule[0](value):
                raise ShapeProblem(f"{where}.{key} is not {rule[1]}")
        elif type(rule) is dict:
            check_shape(value, rule, f"{where}.{key}")
        else:
            rule(value, f"{where}.{key}")  # type: ignore[operator]
    return obj


def check_plan(plan: object, where: str = "attempt.plan") -> tuple[str, ...]:
    """Check a plan: non-empty, no repeats, a subsequence of ``PHASES`` (section 4).

    Raises:
        JournalInvalid: ``bad_record``.
    """
    try:
        _plan(plan, where)
    except ShapeProblem as exc:
        raise _bad(str(exc)) from None
    return tuple(plan)  # type: ignore[arg-type]


def _plan(plan: Any, where: str) -> None:
    if type(plan) is not list or not plan:
        raise ShapeProblem(f"{where} is not a non-empty array")
    indexes = [_PHASE_INDEX.get(p) if type(p) is str else None for p in plan]
    if None in indexes:
        raise ShapeProblem(f"{where} holds {plan[indexes.index(None)]!r}, not a phase")
    if indexes != sorted(set(indexes)):  # type: ignore[type-var]
        raise ShapeProblem(f"{where} repeats a phase or leaves the admitted order")


def _writer(value: Any, where: str) -> None:
    kind = value.get("kind") if type(value) is dict else None
    table = WRITERS.get(kind) if type(kind) is str else None
    if table is None:
        raise ShapeProblem(f"{where} is not a writer of kind actions, app or cli")
    check_shape(value, table, where)


ANY: Rule = shape(lambda v: True, "anything")
"""``v`` and ``type``: checked before the shapes (section 3 order), listed for the keys."""
OID = shape(is_oid, "an oid")
DIGEST = shape(is_digest, "a digest")
KEY = shape(is_key, "a key")
TIME = shape(is_time, "a time")
NAME = shape(is_name, "a name (1..256 characters)")
REASON = shape(is_reason, "a reason (1..1024 characters)")
COUNT = shape(is_count, "a count (an integer >= 1)")
SIZE = shape(is_size, "an integer >= 0")
STRING = shape(lambda v: type(v) is str, "a string")

GENERATION: Table = {
    "source_commit": OID, "tree": OID,
    "config": {"path": NAME, "blob": OID, "digest": DIGEST},
    "base": {"ref": NAME, "commit": OID},
}
MATERIAL: Table = {
    "id": KEY, "kind": shape(lambda v: v in MATERIAL_KINDS and type(v) is str,
                             "one of " + " ".join(MATERIAL_KINDS)),
    "bytes": SIZE, "digest": DIGEST, "attempt": DIGEST, "generation": DIGEST, "url": STRING,
}
WRITERS: Mapping[str, Table] = {
    "actions": {"kind": ANY, "run_id": COUNT, "run_attempt": COUNT, "job": NAME,
                "workflow": NAME},
    "app": {"kind": ANY, "app_id": COUNT, "delivery": NAME},
    "cli": {"kind": ANY, "actor": NAME},
}
INTENT: Table = {
    "v": ANY, "type": ANY, "repository": {"id": NAME, "name": shape(is_repo, "owner/name")},
    "pull_request": COUNT, "base_ref": NAME, "digest": DIGEST,
}
ATTEMPT: Table = {
    "v": ANY, "type": ANY, "intent": DIGEST, "request_key": KEY, "generation": GENERATION,
    "predecessor": nullable(DIGEST), "plan": _plan, "channel": NAME,
    "authorization": nullable(KEY), "expires_at": TIME, "writer": _writer, "reader": DIGEST,
    "at": TIME, "digest": DIGEST,
}
EVENT: Table = {
    "v": ANY, "type": ANY, "intent": DIGEST, "attempt": DIGEST, "generation": DIGEST,
    "seq": COUNT, "prev": DIGEST, "key": KEY, "phase": nullable(STRING), "status": STRING,
    "reason": nullable(REASON), "materials": array_of(MATERIAL), "writer": _writer,
    "reader": DIGEST, "at": TIME, "digest": DIGEST,
}


def _event_rules(r: dict[str, Any]) -> None:
    """Section 4 (event), across fields: the status fits the kind of phase, and the
    reason is given exactly for the statuses that need one."""
    phase, status = r["phase"], r["status"]
    if status not in statuses_for(phase):
        raise ShapeProblem(f"event.status {status[:40]!r} is not allowed for phase "
                           f"{str(phase)[:40]!r}")
    if status in REASON_REQUIRED and r["reason"] is None:
        raise ShapeProblem(f"status {status} needs a reason of 1..1024 characters "
                           "(event.reason is null)", "reason_required")
    if status not in REASON_REQUIRED and r["reason"] is not None:
        raise ShapeProblem(f"event.reason is given; status {status} takes null",
                           "reason_forbidden")


# ------------------------------------------------------------------------ writers


@value
class ActionsWriter:
    """A GitHub Actions job: ``{"kind":"actions","run_id","run_attempt","job","workflow"}``."""

    run_id: int
    run_attempt: int
    job: str
    workflow: str
    kind = "actions"

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, writer)."""
        return {"kind": "actions", "run_id": self.run_id, "run_attempt": self.run_attempt,
                "job": self.job, "workflow": self.workflow}


@value
class AppWriter:
    """A GitHub App webhook delivery: ``{"kind":"app","app_id","delivery"}``."""

    app_id: int
    delivery: str
    kind = "app"

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, writer)."""
        return {"kind": "app", "app_id": self.app_id, "delivery": self.delivery}


@value
class CliWriter:
    """A person running the CLI: ``{"kind":"cli","actor"}``."""

    actor: str
    kind = "cli"

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, writer)."""
        return {"kind": "cli", "actor": self.actor}


Writer: TypeAlias = ActionsWriter | AppWriter | CliWriter


def writer_from(w: dict[str, Any]) -> Writer:
    """The writer of a checked wire form (``WRITERS``)."""
    if w["kind"] == "actions":
        return ActionsWriter(w["run_id"], w["run_attempt"], w["job"], w["workflow"])
    if w["kind"] == "app":
        return AppWriter(w["app_id"], w["delivery"])
    return CliWriter(w["actor"])


# ------------------------------------------------------------------------ records


@value
class Material:
    """A reference to retained bytes (section 4, material).

    ``bytes`` is the byte count (>= 0), ``digest`` their ``sha256:`` digest,
    ``attempt``/``generation`` the producing attempt and its generation id, ``url``
    a permanent URL inside the intent's repository.
    """

    id: str
    kind: str
    bytes: int
    digest: str
    attempt: str
    generation: str
    url: str

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, material)."""
        return {"id": self.id, "kind": self.kind, "bytes": self.bytes, "digest": self.digest,
                "attempt": self.attempt, "generation": self.generation, "url": self.url}


@value
class Generation:
    """Exact inputs of an attempt (section 4, attempt ``generation``).

    Source commit and tree, the config file (path, blob oid, content digest) and the
    observed protected base (ref, commit). Its id is ``digest(generation)``.
    """

    source_commit: str
    tree: str
    config_path: str
    config_blob: str
    config_digest: str
    base_ref: str
    base_commit: str

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, attempt)."""
        return {"source_commit": self.source_commit, "tree": self.tree,
                "config": {"path": self.config_path, "blob": self.config_blob,
                           "digest": self.config_digest},
                "base": {"ref": self.base_ref, "commit": self.base_commit}}

    @property
    def id(self) -> str:
        """The generation id: ``digest`` of the wire form (section 4)."""
        return digest_text(canonical_text(self.to_dict()))


@value
class Intent:
    """The journal body: one pull request into one base branch of one repository.

    ``repository_id`` is the GraphQL node id; ``repository_name`` (``owner/name``) is
    informational. ``digest`` is the intent id (section 4, intent).
    """

    repository_id: str
    repository_name: str
    pull_request: int
    base_ref: str
    digest: str
    type = "intent"

    def to_dict(self) -> dict[str, Any]:
        """Wire form, ``digest`` included (section 4, intent)."""
        return {"v": 1, "type": "intent",
                "repository": {"id": self.repository_id, "name": self.repository_name},
                "pull_request": self.pull_request, "base_ref": self.base_ref,
                "digest": self.digest}


@value
class Attempt:
    """An attempt root (section 4, attempt). ``digest`` is the attempt id.

    ``plan`` is the ordered tuple of phases this channel runs; ``generation_id`` is
    ``digest(generation)``; ``predecessor`` the attempt this one succeeds, or None.
    """

    intent: str
    request_key: str
    generation: Generation
    predecessor: str | None
    plan: tuple[str, ...]
    channel: str
    authorization: str | None
    expires_at: str
    writer: Writer
    reader: str
    at: str
    digest: str
    generation_id: str
    type = "attempt"

    def to_dict(self) -> dict[str, Any]:
        """Wire form, ``digest`` included (section 4, attempt)."""
        return {"v": 1, "type": "attempt", "intent": self.intent,
                "request_key": self.request_key, "generation": self.generation.to_dict(),
                "predecessor": self.predecessor, "plan": list(self.plan),
                "channel": self.channel, "authorization": self.authorization,
                "expires_at": self.expires_at, "writer": self.writer.to_dict(),
                "reader": self.reader, "at": self.at, "digest": self.digest}


@value
class Event:
    """One event of an attempt (section 4, event); a reply to the attempt root.

    ``seq`` counts from 1; ``prev`` is the digest of seq-1 (the root's for seq 1);
    ``key`` is the idempotency key; ``phase`` a phase, ``"rollback"`` or None (an
    attempt-level event).
    """

    intent: str
    attempt: str
    generation: str
    seq: int
    prev: str
    key: str
    phase: str | None
    status: str
    reason: str | None
    materials: tuple[Material, ...]
    writer: Writer
    reader: str
    at: str
    digest: str
    type = "event"

    def to_dict(self) -> dict[str, Any]:
        """Wire form, ``digest`` included (section 4, event)."""
        return {"v": 1, "type": "event", "intent": self.intent, "attempt": self.attempt,
                "generation": self.generation, "seq": self.seq, "prev": self.prev,
                "key": self.key, "phase": self.phase, "status": self.status,
                "reason": self.reason, "materials": [m.to_dict() for m in self.materials],
                "writer": self.writer.to_dict(), "reader": self.reader, "at": self.at,
                "digest": self.digest}


Record: TypeAlias = Intent | Attempt | Event


def _intent_from(r: dict[str, Any]) -> Intent:
    return Intent(r["repository"]["id"], r["repository"]["name"], r["pull_request"],
                  r["base_ref"], r["digest"])


def generation_from(g: dict[str, Any]) -> Generation:
    """The generation of a checked wire form (``GENERATION``)."""
    return Generation(g["source_commit"], g["tree"], g["config"]["path"], g["config"]["blob"],
                      g["config"]["digest"], g["base"]["ref"], g["base"]["commit"])


def _attempt_from(r: dict[str, Any]) -> Attempt:
    return Attempt(r["intent"], r["request_key"], generation_from(r["generation"]),
                   r["predecessor"], tuple(r["plan"]), r["channel"], r["authorization"],
                   r["expires_at"], writer_from(r["writer"]), r["reader"], r["at"],
                   r["digest"], digest_text(canonical_text(r["generation"])))


def _material_from(m: dict[str, Any]) -> Material:
    return Material(m["id"], m["kind"], m["bytes"], m["digest"], m["attempt"],
                    m["generation"], m["url"])


def _event_from(r: dict[str, Any]) -> Event:
    return Event(r["intent"], r["attempt"], r["generation"], r["seq"], r["prev"], r["key"],
                 r["phase"], r["status"], r["reason"],
                 tuple(_material_from(m) for m in r["materials"]), writer_from(r["writer"]),
                 r["reader"], r["at"], r["digest"])


_RECORDS: Mapping[str, tuple[Table, Callable[[dict[str, Any]], Record]]] = {
    "intent": (INTENT, _intent_from),
    "attempt": (ATTEMPT, _attempt_from),
    "event": (EVENT, _event_from),
}


# ------------------------------------------------------------------------ parsing


def _bad(what: str) -> JournalInvalid:
    return JournalInvalid("bad_record", what)


def find_block(body: str) -> str | None:
    """Return the record's JSON line from a comment body, or None when it has no marker.

    Section 2: ``\\r\\n`` reads as ``\\n``; more than one marker is ``bad_record``;
    a version other than the digit string ``1`` is ``unknown_version``; a marker not
    alone on its line or without the exact fence is ``bad_record``.

    Raises:
        JournalInvalid: ``bad_record`` or ``unknown_version``.
    """
    body = body.replace("\r\n", "\n")
    found = markers(body)
    if not found:
        return None
    if len(found) > 1:
        raise _bad(f"the body holds {len(found)} record markers; exactly one is allowed")
    if found[0] != "1":
        raise JournalInvalid("unknown_version", f"marker version v{found[0][:20]} is not v1")
    at = body.find(_BLOCK)
    if at < 0 or (at > 0 and body[at - 1] != "\n"):
        raise _bad("the marker is not followed by a line ```json, or is not alone on its line")
    start = at + len(_BLOCK)
    end = body.find("\n", start)
    if end < 0:
        raise _bad("the record block ends after its JSON line without a closing ```")
    if body[end + 1:end + 5] not in ("```", "```\n"):
        raise _bad("the record's JSON line is not followed by a line that is exactly ```")
    return body[start:end]


def parse_line(line: str) -> Record:
    """Parse one record line into a record, whatever its type (section 3 order).

    Raises:
        JournalInvalid: ``bad_record``, ``unknown_version`` or ``digest_mismatch``.
    """
    try:
        obj = read_canonical(line)
    except ValueError as exc:
        raise _bad(f"the record line: {exc}") from None
    if type(obj) is not dict:
        raise _bad("the record is not a JSON object")
    v = obj.get("v")
    if type(v) is not int:
        raise _bad("v is not the integer 1")
    if v != 1:
        raise JournalInvalid("unknown_version", f"record version v={v} is not 1")
    kind = obj.get("type")
    if type(kind) is not str or kind not in _RECORDS:
        raise _bad(f"record type {str(kind)[:40]!r} is not intent, attempt or event")
    table, build = _RECORDS[kind]
    try:
        check_shape(obj, table, kind)
        if kind == "event":
            _event_rules(obj)
    except ShapeProblem as exc:
        raise JournalInvalid("bad_record", str(exc), exc.problem) from None
    covered = {k: v for k, v in obj.items() if k != "digest"}
    if digest_text(canonical_text(covered)) != obj["digest"]:
        raise JournalInvalid("digest_mismatch", f"{kind} record digest {obj['digest']} is "
                             "not the digest of its content")
    return build(obj)


def parse_body(body: str, expected: RecordType) -> Record | None:
    """Parse a comment body into a record of the ``expected`` type, or None without marker.

    Raises:
        JournalInvalid: the first failed check of section 3; a record of another type
            than ``expected`` is ``bad_record``.
    """
    line = find_block(body)
    if line is None:
        return None
    record = parse_line(line)
    if record.type != expected:
        raise _bad(f"a {record.type} record stands where an {expected} record belongs")
    return record


def parse_generation(obj: object) -> Generation:
    """Check and build a generation (section 4). Raises ``JournalInvalid(bad_record)``."""
    try:
        return generation_from(check_shape(obj, GENERATION, "generation"))
    except ShapeProblem as exc:
        raise _bad(str(exc)) from None


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    ActionsWriter, AppWriter, Attempt, CliWriter, Event, Generation, Intent,
    Material, is_digest, is_key, is_oid, is_reason, markers, parse_body,
):
    _exported.__module__ = "ghattempt.core"
del _exported
