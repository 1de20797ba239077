"""Records of the journal: their shapes, parsing and wire form (spec journal-v1, 2-4).

A comment body holds Markdown for humans and at most one *record block*::

    <!-- ghattempt:v1 -->
    ```json
    {canonical JSON of the record, on one line}
    ```

``parse_body`` finds the block and turns it into a record (``Intent``, ``Attempt`` or
``Event``) or raises ``JournalInvalid`` with the code of the first failed check, in the
order of section 3: marker and fence, JSON syntax, canonical form, allowed values,
``v``, shapes (keys, types, patterns), ``digest``, and last the expected ``type``.
"""

from __future__ import annotations

from ._c14n import (
    MAX_SAFE_INTEGER,
    allowed_problem,
    decode_record,
    digest,
    digest_text,
    split_canonical,
)
from ._codes import JournalInvalid
from ._rules import PHASES, statuses_for
from ._slots import frozen, slot_setters

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, Literal, TypeAlias

    RecordType = Literal["intent", "attempt", "event"]

MAX_BODY_CHARS = 65536
"""GitHub's limit on a comment or discussion body, in characters."""

# Value shapes, section 3: each pattern matches the whole string, ASCII only. Checked
# without regular expressions (nothing to compile at start-up): deleting the allowed
# bytes from the string's UTF-8 must leave nothing ("surrogatepass" keeps a lone
# surrogate as bytes that are never allowed).
_HEX = b"0123456789abcdef"
_DIGITS = "0123456789"
_ALNUM = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_KEY_CHARS = _ALNUM + b"._:/@+=-"
_REPO_CHARS = _ALNUM + b"_.-"
# A time's digits -> "d"; a "d" of the text itself -> "x", so it never passes for a digit.
_TIME_FORM = bytes.maketrans(b"0123456789d", b"ddddddddddx")
# "sha256:<hex>" -> "shxxxx:xxx...": hex digits -> "x", and an "x" of the text itself
# -> "X", so that no character but a hex digit passes for one. The prefix's "a256" are
# hex digits too, so the form also takes "sh" + any four hex digits + ":"; whoever
# compares with it checks the prefixes as well (only a prefix holds an "s": counting
# "sha256:" counts good prefixes).
_DIGEST_FORM = bytes.maketrans(_HEX + b"x", b"x" * 16 + b"X")
_ONE_DIGEST = (b"sha256:" + _HEX * 4).translate(_DIGEST_FORM)
_FIVE_DIGESTS = _ONE_DIGEST * 5
_THREE_DIGESTS = _ONE_DIGEST * 3
MARKER_PREFIX = "<!-- ghattempt:v"
_BLOCK = "<!-- ghattempt:v1 -->\n```json\n"


def _only(s: str, allowed: bytes) -> bool:
    return not s.encode("utf-8", "surrogatepass").translate(None, allowed)


def _digest_shape(s: str) -> bool:
    # sha256:[0-9a-f]{64}
    return len(s) == 71 and s.startswith("sha256:") and _only(s[7:], _HEX)


def _key_shape(s: str) -> bool:
    # [A-Za-z0-9._:/@+=-]{1,128}
    return 0 < len(s) <= 128 and _only(s, _KEY_CHARS)


def _time_shape(s: str) -> bool:
    # [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z
    return (len(s) == 20
            and s.encode("utf-8", "surrogatepass").translate(_TIME_FORM)
            == b"dddd-dd-ddTdd:dd:ddZ")


def markers(body: str) -> list[str]:
    """The version digit strings N of every marker ``<!-- ghattempt:vN -->`` in ``body``."""
    found = []
    at = body.find(MARKER_PREFIX)
    while at >= 0:
        start = end = at + len(MARKER_PREFIX)
        while end < len(body) and body[end] in _DIGITS:
            end += 1
        if end > start and body.startswith(" -->", end):
            found.append(body[start:end])
        at = body.find(MARKER_PREFIX, end)
    return found


MATERIAL_KINDS = ("artifact", "checkpoint", "receipt", "passport", "readback")
"""Kinds of material (section 4, material)."""

REASON_REQUIRED = frozenset({"waiting", "failed", "cancelled", "superseded", "expired", "unknown"})
"""Statuses whose event must carry a ``reason`` (section 4, event)."""


def is_oid(value: object) -> bool:
    """True for a Git object id: 40 or 64 lowercase hex digits (section 3, *oid*)."""
    return type(value) is str and len(value) in (40, 64) and _only(value, _HEX)


def is_digest(value: object) -> bool:
    """True for ``sha256:`` + 64 lowercase hex digits (section 3, *digest*)."""
    return type(value) is str and _digest_shape(value)


def is_key(value: object) -> bool:
    """True for ``[A-Za-z0-9._:/@+=-]{1,128}`` (section 3, *key*)."""
    return type(value) is str and _key_shape(value)


def is_time(value: object) -> bool:
    """True for a UTC time ``YYYY-MM-DDTHH:MM:SSZ`` (section 3, *time*)."""
    return type(value) is str and _time_shape(value)


def is_repo(value: object) -> bool:
    """True for ``owner/name`` (section 3, *repo*)."""
    if type(value) is not str:
        return False
    owner, slash, name = value.partition("/")
    return (bool(slash) and 0 < len(owner) <= 100 and 0 < len(name) <= 100
            and _only(owner, _REPO_CHARS) and _only(name, _REPO_CHARS))


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


# --------------------------------------------------------------------------- writers


@frozen
class ActionsWriter:
    """A GitHub Actions job: ``{"kind":"actions","run_id","run_attempt","job","workflow"}``."""

    run_id: int
    run_attempt: int
    job: str
    workflow: str
    kind: ClassVar[str] = "actions"

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, writer)."""
        return {"kind": "actions", "run_id": self.run_id, "run_attempt": self.run_attempt,
                "job": self.job, "workflow": self.workflow}


@frozen
class AppWriter:
    """A GitHub App webhook delivery: ``{"kind":"app","app_id","delivery"}``."""

    app_id: int
    delivery: str
    kind: ClassVar[str] = "app"

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, writer)."""
        return {"kind": "app", "app_id": self.app_id, "delivery": self.delivery}


@frozen
class CliWriter:
    """A person running the CLI: ``{"kind":"cli","actor"}``."""

    actor: str
    kind: ClassVar[str] = "cli"

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, writer)."""
        return {"kind": "cli", "actor": self.actor}


Writer: TypeAlias = ActionsWriter | AppWriter | CliWriter


# --------------------------------------------------------------------------- records


@frozen
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


@frozen
class Generation:
    """Exact inputs of an attempt (section 4, attempt ``generation``; ADR 0006).

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
        return digest(self.to_dict())


@frozen
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
    type: ClassVar[RecordType] = "intent"

    def to_dict(self) -> dict[str, Any]:
        """Wire form, ``digest`` included (section 4, intent)."""
        return {"v": 1, "type": "intent",
                "repository": {"id": self.repository_id, "name": self.repository_name},
                "pull_request": self.pull_request, "base_ref": self.base_ref,
                "digest": self.digest}


@frozen
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
    type: ClassVar[RecordType] = "attempt"

    def to_dict(self) -> dict[str, Any]:
        """Wire form, ``digest`` included (section 4, attempt)."""
        return {"v": 1, "type": "attempt", "intent": self.intent,
                "request_key": self.request_key, "generation": self.generation.to_dict(),
                "predecessor": self.predecessor, "plan": list(self.plan),
                "channel": self.channel, "authorization": self.authorization,
                "expires_at": self.expires_at, "writer": self.writer.to_dict(),
                "reader": self.reader, "at": self.at, "digest": self.digest}


@frozen
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
    type: ClassVar[RecordType] = "event"

    def to_dict(self) -> dict[str, Any]:
        """Wire form, ``digest`` included (section 4, event)."""
        return {"v": 1, "type": "event", "intent": self.intent, "attempt": self.attempt,
                "generation": self.generation, "seq": self.seq, "prev": self.prev,
                "key": self.key, "phase": self.phase, "status": self.status,
                "reason": self.reason, "materials": [m.to_dict() for m in self.materials],
                "writer": self.writer.to_dict(), "reader": self.reader, "at": self.at,
                "digest": self.digest}


Record: TypeAlias = Intent | Attempt | Event


# Constructors for the reader's hot path: each makes the same object as ``Cls(...)``
# (same class, fields, equality, hash, frozenness), built with one slot setter per field
# instead of the generic ``__init__`` (a loop over the fields), which costs about half
# as much. Arguments in field order, all checked by the caller.


def _event_maker() -> Callable[..., Event]:
    """``Event(...)`` for the hot path (see above)."""
    new = object.__new__
    (s_intent, s_attempt, s_generation, s_seq, s_prev, s_key, s_phase, s_status, s_reason,
     s_materials, s_writer, s_reader, s_at, s_digest) = slot_setters(
        Event, ("intent", "attempt", "generation", "seq", "prev", "key", "phase", "status",
                "reason", "materials", "writer", "reader", "at", "digest"))

    def make(intent: str, attempt: str, generation: str, seq: int, prev: str, key: str,
             phase: str | None, status: str, reason: str | None,
             materials: tuple[Material, ...], writer: Writer, reader: str, at: str,
             digest: str) -> Event:
        event: Event = new(Event)
        s_intent(event, intent)
        s_attempt(event, attempt)
        s_generation(event, generation)
        s_seq(event, seq)
        s_prev(event, prev)
        s_key(event, key)
        s_phase(event, phase)
        s_status(event, status)
        s_reason(event, reason)
        s_materials(event, materials)
        s_writer(event, writer)
        s_reader(event, reader)
        s_at(event, at)
        s_digest(event, digest)
        return event

    return make


def _attempt_maker() -> Callable[..., Attempt]:
    """``Attempt(...)`` for the hot path (see above)."""
    new = object.__new__
    (s_intent, s_request_key, s_generation, s_predecessor, s_plan, s_channel,
     s_authorization, s_expires_at, s_writer, s_reader, s_at, s_digest,
     s_generation_id) = slot_setters(
        Attempt, ("intent", "request_key", "generation", "predecessor", "plan", "channel",
                  "authorization", "expires_at", "writer", "reader", "at", "digest",
                  "generation_id"))

    def make(intent: str, request_key: str, generation: Generation, predecessor: str | None,
             plan: tuple[str, ...], channel: str, authorization: str | None,
             expires_at: str, writer: Writer, reader: str, at: str, digest: str,
             generation_id: str) -> Attempt:
        attempt: Attempt = new(Attempt)
        s_intent(attempt, intent)
        s_request_key(attempt, request_key)
        s_generation(attempt, generation)
        s_predecessor(attempt, predecessor)
        s_plan(attempt, plan)
        s_channel(attempt, channel)
        s_authorization(attempt, authorization)
        s_expires_at(attempt, expires_at)
        s_writer(attempt, writer)
        s_reader(attempt, reader)
        s_at(attempt, at)
        s_digest(attempt, digest)
        s_generation_id(attempt, generation_id)
        return attempt

    return make


def _generation_maker() -> Callable[..., Generation]:
    """``Generation(...)`` for the hot path (see above)."""
    new = object.__new__
    (s_source, s_tree, s_path, s_blob, s_digest, s_ref, s_commit) = slot_setters(
        Generation, ("source_commit", "tree", "config_path", "config_blob", "config_digest",
                     "base_ref", "base_commit"))

    def make(source_commit: str, tree: str, config_path: str, config_blob: str,
             config_digest: str, base_ref: str, base_commit: str) -> Generation:
        generation: Generation = new(Generation)
        s_source(generation, source_commit)
        s_tree(generation, tree)
        s_path(generation, config_path)
        s_blob(generation, config_blob)
        s_digest(generation, config_digest)
        s_ref(generation, base_ref)
        s_commit(generation, base_commit)
        return generation

    return make


def _material_maker() -> Callable[..., Material]:
    """``Material(...)`` for the hot path (see above)."""
    new = object.__new__
    (s_id, s_kind, s_bytes, s_digest, s_attempt, s_generation, s_url) = slot_setters(
        Material, ("id", "kind", "bytes", "digest", "attempt", "generation", "url"))

    def make(id: str, kind: str, bytes: int, digest: str, attempt: str, generation: str,
             url: str) -> Material:
        material: Material = new(Material)
        s_id(material, id)
        s_kind(material, kind)
        s_bytes(material, bytes)
        s_digest(material, digest)
        s_attempt(material, attempt)
        s_generation(material, generation)
        s_url(material, url)
        return material

    return make


_make_event = _event_maker()
_make_attempt = _attempt_maker()
_make_generation = _generation_maker()
_make_material = _material_maker()


# --------------------------------------------------------------------------- parsing


def _bad(what: str) -> JournalInvalid:
    return JournalInvalid("bad_record", what)


_INTENT_KEYS = frozenset({"v", "type", "repository", "pull_request", "base_ref", "digest"})
_ATTEMPT_KEYS = frozenset({"v", "type", "intent", "request_key", "generation", "predecessor",
                           "plan", "channel", "authorization", "expires_at", "writer",
                           "reader", "at", "digest"})
_EVENT_KEYS = frozenset({"v", "type", "intent", "attempt", "generation", "seq", "prev", "key",
                         "phase", "status", "reason", "materials", "writer", "reader", "at",
                         "digest"})
_GEN_KEYS = frozenset({"source_commit", "tree", "config", "base"})
_CONFIG_KEYS = frozenset({"path", "blob", "digest"})
_BASE_KEYS = frozenset({"ref", "commit"})
_REPOSITORY_KEYS = frozenset({"id", "name"})
_MATERIAL_KEYS = frozenset({"id", "kind", "bytes", "digest", "attempt", "generation", "url"})
_ACTIONS_KEYS = frozenset({"kind", "run_id", "run_attempt", "job", "workflow"})
_APP_KEYS = frozenset({"kind", "app_id", "delivery"})
_CLI_KEYS = frozenset({"kind", "actor"})
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}


def _keys(obj: object, expected: frozenset[str], what: str) -> dict[str, Any]:
    if type(obj) is not dict or obj.keys() != expected:  # dict_keys == frozenset: as sets
        raise _keys_problem(obj, expected, what)
    return obj


def _keys_problem(obj: object, expected: frozenset[str], what: str) -> JournalInvalid:
    """The ``bad_record`` naming why ``obj`` is not an object with keys ``expected``."""
    if type(obj) is not dict:
        return _bad(f"{what} is not an object")
    missing = sorted(expected - obj.keys())
    unknown = sorted(obj.keys() - expected)
    return _bad(f"{what}: missing keys {missing}, unknown keys {unknown}")


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise _bad(what)


_ACTIONS_SEEN: dict[tuple[object, ...], ActionsWriter] = {}
"""Actions writers already checked, by their values (one job writes many records; a
writer is immutable, so one instance serves them all). Bounded, see ``parse_writer``."""


def parse_writer(obj: object) -> Writer:
    """Check and build a writer (section 4, writer). Raises ``JournalInvalid(bad_record)``."""
    if type(obj) is not dict:
        raise _bad("writer kind is not actions, app or cli")
    kind = obj.get("kind")
    if kind == "actions":
        if obj.keys() == _ACTIONS_KEYS:
            run_id, run_attempt, job, workflow = (
                obj["run_id"], obj["run_attempt"], obj["job"], obj["workflow"])
            if (type(run_id) is int and type(run_attempt) is int and type(job) is str
                    and type(workflow) is str):
                # Values equal to a checked writer's, with the same types, pass its checks.
                known = _ACTIONS_SEEN.get((run_id, run_attempt, job, workflow))
                if known is not None:
                    return known
        w = _keys(obj, _ACTIONS_KEYS, "writer")
        run_id, run_attempt, job, workflow = (w["run_id"], w["run_attempt"], w["job"],
                                              w["workflow"])
        if not (type(run_id) is int and 1 <= run_id <= MAX_SAFE_INTEGER
                and type(run_attempt) is int and 1 <= run_attempt <= MAX_SAFE_INTEGER):
            raise _bad("writer run_id/run_attempt is not a count")
        if not (type(job) is str and 1 <= len(job) <= 256 and type(workflow) is str
                and 1 <= len(workflow) <= 256):
            raise _bad("writer job/workflow is not a name")
        seen_key = (run_id, run_attempt, job, workflow)  # checked: int, int, str, str
        known = _ACTIONS_SEEN.get(seen_key)
        if known is not None:
            return known
        writer = ActionsWriter(run_id, run_attempt, job, workflow)
        if len(_ACTIONS_SEEN) >= 64:
            _ACTIONS_SEEN.clear()
        _ACTIONS_SEEN[seen_key] = writer
        return writer
    if kind == "app":
        w = _keys(obj, _APP_KEYS, "writer")
        _need(is_count(w["app_id"]), "writer app_id is not a count")
        _need(is_name(w["delivery"]), "writer delivery is not a name")
        return AppWriter(w["app_id"], w["delivery"])
    if kind == "cli":
        w = _keys(obj, _CLI_KEYS, "writer")
        _need(is_name(w["actor"]), "writer actor is not a name")
        return CliWriter(w["actor"])
    raise _bad("writer kind is not actions, app or cli")


def parse_material(obj: object) -> Material:
    """Check and build a material (section 4). Raises ``JournalInvalid(bad_record)``."""
    # The common case in one pass (its three digests checked as one string), then the
    # shapes one by one to name the first problem.
    if type(obj) is dict and obj.keys() == _MATERIAL_KEYS:
        mid, kind, size, dg, attempt, generation, url = (
            obj["id"], obj["kind"], obj["bytes"], obj["digest"], obj["attempt"],
            obj["generation"], obj["url"])
        if (type(mid) is str and _key_shape(mid) and kind in MATERIAL_KINDS
                and type(size) is int and 0 <= size <= MAX_SAFE_INTEGER
                and type(dg) is str and type(attempt) is str and type(generation) is str
                and len(dg) == len(attempt) == len(generation) == 71
                and (three := dg + attempt + generation).encode(
                    "utf-8", "surrogatepass").translate(_DIGEST_FORM) == _THREE_DIGESTS
                and three.count("sha256:") == 3
                and type(url) is str):
            return _make_material(mid, kind, size, dg, attempt, generation, url)
    m = _keys(obj, _MATERIAL_KEYS, "material")
    _need(is_key(m["id"]), "material id is not a key")
    _need(m["kind"] in MATERIAL_KINDS, f"material kind {m['kind']!r} is not one of "
          + " ".join(MATERIAL_KINDS))
    size = m["bytes"]
    _need(type(size) is int and 0 <= size <= MAX_SAFE_INTEGER,
          "material bytes is not an integer >= 0")
    _need(is_digest(m["digest"]) and is_digest(m["attempt"]) and is_digest(m["generation"]),
          "material digest/attempt/generation is not a digest")
    _need(type(m["url"]) is str, "material url is not a string")
    return Material(m["id"], m["kind"], size, m["digest"], m["attempt"], m["generation"],
                    m["url"])


def _parse_intent(r: dict[str, Any], dg: str, covered: str) -> Intent:
    _keys(r, _INTENT_FIELDS, "intent record")
    repo = _keys(r["repository"], _REPOSITORY_KEYS, "intent repository")
    _need(is_name(repo["id"]), "intent repository.id is not a name")
    _need(is_repo(repo["name"]), "intent repository.name is not owner/name")
    _need(is_count(r["pull_request"]), "intent pull_request is not a count")
    _need(is_name(r["base_ref"]), "intent base_ref is not a name")
    return Intent(repo["id"], repo["name"], r["pull_request"], r["base_ref"], dg)


def parse_generation(obj: object) -> Generation:
    """Check and build a generation (section 4). Raises ``JournalInvalid(bad_record)``."""
    # One pass over the common case: each key set by its size and the lookups of its
    # keys (n keys, the n expected ones found), the four oids checked as one hex string
    # (each has its length checked); else the shapes one by one name the first problem.
    try:
        if not (type(obj) is dict and len(obj) == 4):
            raise KeyError
        config, base, source, tree = (obj["config"], obj["base"], obj["source_commit"],
                                      obj["tree"])
        if not (type(config) is dict and len(config) == 3 and type(base) is dict
                and len(base) == 2):
            raise KeyError
        blob, path, config_digest, commit, ref = (config["blob"], config["path"],
                                                  config["digest"], base["commit"],
                                                  base["ref"])
    except KeyError:
        pass
    else:
        if (type(source) is str and type(tree) is str and type(blob) is str
                and type(commit) is str and len(source) in _OID_LENGTHS
                and len(tree) in _OID_LENGTHS and len(blob) in _OID_LENGTHS
                and len(commit) in _OID_LENGTHS
                and _only(source + tree + blob + commit, _HEX)
                and type(path) is str and 1 <= len(path) <= 256
                and type(ref) is str and 1 <= len(ref) <= 256
                and type(config_digest) is str and _digest_shape(config_digest)):
            return _make_generation(source, tree, path, blob, config_digest, ref,
                                    commit)
    g = _keys(obj, _GEN_KEYS, "attempt generation")
    config = _keys(g["config"], _CONFIG_KEYS, "generation config")
    base = _keys(g["base"], _BASE_KEYS, "generation base")
    _need(is_oid(g["source_commit"]) and is_oid(g["tree"]), "generation commit/tree is not an oid")
    _need(is_name(config["path"]), "generation config.path is not a name")
    _need(is_oid(config["blob"]), "generation config.blob is not an oid")
    _need(is_digest(config["digest"]), "generation config.digest is not a digest")
    _need(is_name(base["ref"]), "generation base.ref is not a name")
    _need(is_oid(base["commit"]), "generation base.commit is not an oid")
    return Generation(g["source_commit"], g["tree"], config["path"], config["blob"],
                      config["digest"], base["ref"], base["commit"])


_OID_LENGTHS = (40, 64)


def check_plan(plan: object) -> tuple[str, ...]:
    """Check a plan: non-empty, no repeats, a subsequence of ``PHASES`` (section 4).

    Raises ``JournalInvalid(bad_record)``.
    """
    if type(plan) is not list or not plan:
        raise _bad("attempt plan is not a non-empty array")
    last = -1
    for phase in plan:  # (messages built only on failure)
        index = _PHASE_INDEX.get(phase) if type(phase) is str else None
        if index is None:
            raise _bad(f"plan entry {phase!r} is not a phase")
        if index <= last:
            raise _bad("plan repeats a phase or leaves the admitted order")
        last = index
    return tuple(plan)


def _parse_attempt(r: dict[str, Any], dg: str, covered: str) -> Attempt:
    # ``covered`` is the record's canonical text without its digest member. The keys:
    # 13 of them, and the 11 fields read here present (``v`` and ``type`` are there,
    # parse_line read them), is the key set, without comparing sets.
    try:
        if len(r) != 13:
            raise KeyError
        (intent, request_key, generation_obj, pred, plan_obj, channel, auth, expires_at,
         writer_obj, reader, at) = (r["intent"], r["request_key"], r["generation"],
                                    r["predecessor"], r["plan"], r["channel"],
                                    r["authorization"], r["expires_at"], r["writer"],
                                    r["reader"], r["at"])
    except KeyError:
        raise _keys_problem(r, _ATTEMPT_FIELDS, "attempt record") from None
    if type(intent) is not str or not _digest_shape(intent):
        raise _bad("attempt intent is not a digest")
    if type(request_key) is not str or not _key_shape(request_key):
        raise _bad("attempt request_key is not a key")
    generation = parse_generation(generation_obj)
    if pred is not None and (type(pred) is not str or not _digest_shape(pred)):
        raise _bad("attempt predecessor is not a digest or null")
    plan = check_plan(plan_obj)
    if type(channel) is not str or not 1 <= len(channel) <= 256:
        raise _bad("attempt channel is not a name")
    if auth is not None and (type(auth) is not str or not _key_shape(auth)):
        raise _bad("attempt authorization is not a key or null")
    if type(expires_at) is not str or not _time_shape(expires_at):
        raise _bad("attempt expires_at is not a time")
    writer = parse_writer(writer_obj)
    if type(reader) is not str or not _digest_shape(reader):
        raise _bad("attempt reader is not a digest")
    if type(at) is not str or not _time_shape(at):
        raise _bad("attempt at is not a time")
    return _make_attempt(intent, request_key, generation, pred, plan, channel, auth,
                         expires_at, writer, reader, at, dg,
                         digest_text(generation_text(covered)))


def generation_text(covered: str) -> str:
    """The canonical text of an attempt's ``generation``, cut from ``covered``: the
    canonical text of an attempt record whose shapes passed (section 4, attempt; its
    digest member may be present or not).

    The members sort ``at authorization channel [digest] expires_at generation intent``:
    ``generation`` is the first member written ``,"generation":`` and ends where
    ``,"intent":`` follows. Neither can occur earlier inside a value: in canonical text
    a ``"`` inside a string is escaped, and the ``"`` that closes a string is followed
    by ``,`` ``:`` ``]`` or ``}``, never by a letter; no key inside a generation is
    ``intent``. So the cut is ``canonical_text(generation)`` itself, without encoding
    it again.
    """
    start = covered.index(',"generation":') + 14
    return covered[start:covered.index(',"intent":', start)]


_EVENT_FIELDS = _EVENT_KEYS - {"digest"}
_ATTEMPT_FIELDS = _ATTEMPT_KEYS - {"digest"}
_INTENT_FIELDS = _INTENT_KEYS - {"digest"}


def _parse_event(r: dict[str, Any], dg: str, covered: str) -> Event:
    # The hot path of a long journal: checks written inline, same rules as is_*().
    # The keys: 15 of them, and the 13 fields read here present (``v`` and ``type`` are
    # there, parse_line read them), is the key set, without comparing sets.
    try:
        if len(r) != 15:
            raise KeyError
        (intent, attempt, generation, seq, prev, key, phase, status, reason, raw, writer_obj,
         reader, at) = (r["intent"], r["attempt"], r["generation"], r["seq"], r["prev"],
                        r["key"], r["phase"], r["status"], r["reason"], r["materials"],
                        r["writer"], r["reader"], r["at"])
    except KeyError:
        raise _keys_problem(r, _EVENT_FIELDS, "event record") from None
    # Five digests checked in one pass: each 71 characters, together the digest form,
    # and five "sha256:" prefixes.
    if not (type(intent) is str and type(attempt) is str and type(generation) is str
            and type(prev) is str and type(reader) is str
            and len(intent) == len(attempt) == len(generation) == len(prev) == len(reader) == 71
            and (five := intent + attempt + generation + prev + reader).encode(
                "utf-8", "surrogatepass").translate(_DIGEST_FORM) == _FIVE_DIGESTS
            and five.count("sha256:") == 5):
        names = ("intent", "attempt", "generation", "prev", "reader")
        wrong = [n for n in names if not is_digest(r[n])]
        raise _bad(f"event {'/'.join(wrong)} is not a digest")
    if type(seq) is not int or not 1 <= seq <= MAX_SAFE_INTEGER:
        raise _bad("event seq is not a count")
    if type(key) is not str or not _key_shape(key):
        raise _bad("event key is not a key")
    if phase is not None and type(phase) is not str:
        raise _bad("event phase is not a string or null")
    if type(status) is not str or status not in statuses_for(phase):
        raise _bad(f"event status {str(status)[:40]!r} is not allowed for phase "
                   f"{str(phase)[:40]!r}")
    if status in REASON_REQUIRED:
        if type(reason) is not str or not 1 <= len(reason) <= 1024:
            raise _bad(f"status {status} needs a reason of 1..1024 characters")
    elif reason is not None:
        raise _bad(f"status {status} takes reason null")
    if type(raw) is not list:
        raise _bad("event materials is not an array")
    materials = tuple([parse_material(m) for m in raw]) if raw else ()
    writer = parse_writer(writer_obj)
    if type(at) is not str or not _time_shape(at):
        raise _bad("event at is not a time")
    return _make_event(intent, attempt, generation, seq, prev, key, phase, status, reason,
                       materials, writer, reader, at, dg)


_PARSERS: dict[str, Callable[[dict[str, Any], str, str], Record]] = {
    "intent": _parse_intent, "attempt": _parse_attempt, "event": _parse_event}


def find_block(body: str) -> str | None:
    """Return the record's JSON line from a comment body, or None when it has no marker.

    Section 2: ``\\r\\n`` reads as ``\\n``; more than one marker is ``bad_record``;
    a version other than the digit string ``1`` is ``unknown_version``; a marker not
    alone on its line or without the exact fence is ``bad_record``.

    Raises:
        JournalInvalid: ``bad_record`` or ``unknown_version``.
    """
    at = body.find(MARKER_PREFIX)
    if at < 0:
        return None
    # One-character searches (memchr) first: a second marker needs a "<" after the
    # first, and a "\r\n" needs a "\r"; longer patterns are searched only then.
    if ((body.find("<", at + 16) >= 0 and body.find(MARKER_PREFIX, at + 16) >= 0)
            or not body.startswith(_BLOCK, at)):
        found = markers(body)  # not the common case of one v1 marker: count them
        if not found:
            return None
        if len(found) > 1:
            raise _bad(f"the body holds {len(found)} record markers; exactly one is allowed")
        if found[0] != "1":
            raise JournalInvalid("unknown_version", f"marker version v{found[0][:20]} is not v1")
        at = body.find(_BLOCK)  # the one marker, where a text like "<!-- ghattempt:vx" came first
    if "\r" in body and "\r\n" in body:
        body = body.replace("\r\n", "\n")
        at = body.find(_BLOCK)
    if at < 0 or not body.startswith(_BLOCK, at) or (at > 0 and body[at - 1] != "\n"):
        raise _bad("the marker is not followed by a line ```json, or is not alone on its line")
    start = at + len(_BLOCK)
    end = body.find("\n", start)
    if end < 0:
        raise _bad("the record block ends after its JSON line without a closing ```")
    if not (body.startswith("```", end + 1) and body[end + 4:end + 5] in ("", "\n")):
        raise _bad("the record's JSON line is not followed by a line that is exactly ```")
    return body[start:end]


def parse_line(line: str) -> Record:
    """Parse one record line into a record, whatever its type (section 3 order).

    Raises:
        JournalInvalid: ``bad_record``, ``unknown_version`` or ``digest_mismatch``.
    """
    try:
        obj = decode_record(line)
    except (ValueError, RecursionError) as exc:
        # JSON syntax, or a value outside the allowed subset (float, unsafe integer).
        raise _bad(f"the record line is not allowed JSON ({str(exc)[:80]})") from None
    if type(obj) is not dict:
        raise _bad("the record is not a JSON object")
    covered = split_canonical(obj, line)
    if covered is None:
        raise _bad("the record line is not in canonical form (c14n v1)")
    if not line.isascii():
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            raise _bad("the record holds a lone surrogate; it has no UTF-8 form") from None
        problem = allowed_problem(obj)
        if problem is not None:
            raise _bad(problem)
    v = obj.get("v")
    if type(v) is not int:
        raise _bad("v is not the integer 1")
    if v != 1:
        # Allowed values come before v (section 3): an unsafe integer is bad_record.
        # (For v 1 the shapes bound every integer, so the walk is needed only here.)
        problem = allowed_problem(obj)
        if problem is not None:
            raise _bad(problem)
        raise JournalInvalid("unknown_version", f"record version v={v} is not 1")
    kind = obj.get("type")
    parser = _PARSERS.get(kind) if type(kind) is str else None
    if parser is None:
        raise _bad(f"record type {kind!r} is not intent, attempt or event")
    dg = obj.pop("digest", None)
    # A digest equal to the content's has the digest shape: its shape check is needed
    # only when it differs (both failures of the shape check are bad_record, which
    # still comes before digest_mismatch).
    sealed = type(dg) is str and digest_text(covered) == dg
    if not sealed and (type(dg) is not str or not _digest_shape(dg)):
        raise _bad("the record's digest is missing or not a digest")
    record = parser(obj, dg, covered)
    if not sealed:
        raise JournalInvalid("digest_mismatch",
                             f"{kind} record digest {dg} is not the digest of its content")
    return record


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
