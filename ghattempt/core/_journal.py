"""Reading a journal: validation in the contract's order, verdict and writer state.

``read_journal`` runs docs/journal-format.md section 7 top to bottom (capture, trust,
records, each attempt's chain and replay, the rules across attempts of section 9, then
the witness) and returns a ``Verdict`` (section 10). When the journal is valid, the
verdict also holds a ``JournalState``: what a writer needs to append the next record or
admit an attempt.
"""

from __future__ import annotations

from ._args import Options, make_options, shown
from ._capture import Capture, Comment, LeaseRef, node_order, parse_capture
from ._codes import CALLER_FAULTS, JournalInvalid
from ._lease import LEASE_NAME_PREFIX, LEASE_REF_PREFIX, Lease, parse_lease, scope_key
from ._records import Attempt, Event, Intent, Material, is_key, parse_body
from ._rules import (
    ReplayState,
    apply,
    blocks_fresh_attempt,
    derive_status,
    missing_phases,
    recovery_for,
    refusal,
)
from ._value import value

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from ._codes import Failure
    from ._rules import AttemptStatus


@value
class PhaseState:
    """The last status of one plan phase, with that record's reason."""

    status: str
    reason: str | None


@value
class AttemptState:
    """One valid attempt after replay (sections 7.5, 8, 10).

    ``root_ids`` are the node ids of the comment(s) holding the attempt record (a
    retried root write leaves identical copies); ``events`` are the distinct event
    records in seq order; ``last`` maps each plan phase that has a record to
    ``(status, reason)`` of its last record; ``event_replies`` are
    ``(event digest, reply node id)`` for every contributing reply holding an event,
    in node order. ``phases`` and ``event_nodes`` are read from these when asked.
    """

    attempt: Attempt
    root_ids: tuple[str, ...]
    status: AttemptStatus
    reason: str | None
    recovery: str
    missing_phases: tuple[str, ...]
    last: Mapping[str, tuple[str, str | None]]
    events: tuple[Event, ...]
    event_replies: tuple[tuple[str, str], ...]

    @property
    def phases(self) -> dict[str, PhaseState]:
        """The last status (with its reason) of each plan phase that has a record."""
        last = self.last
        return {p: PhaseState(*last[p]) for p in self.attempt.plan if p in last}

    @property
    def event_nodes(self) -> dict[str, tuple[str, ...]]:
        """Each event digest with the node ids of the replies holding it, in node order."""
        nodes: dict[str, list[str]] = {}
        for dg, reply_id in self.event_replies:
            nodes.setdefault(dg, []).append(reply_id)
        return {dg: tuple(ids) for dg, ids in nodes.items()}

    @property
    def id(self) -> str:
        """The attempt id (the attempt record's digest)."""
        return self.attempt.digest

    @property
    def request_key(self) -> str:
        """The attempt's request key."""
        return self.attempt.request_key

    @property
    def generation_id(self) -> str:
        """``digest(generation)`` of the attempt."""
        return self.attempt.generation_id

    @property
    def predecessor(self) -> str | None:
        """The attempt this one succeeds, or None."""
        return self.attempt.predecessor

    @property
    def head_seq(self) -> int:
        """The seq of the last event (0 when there is none)."""
        return len(self.events)

    @property
    def head_digest(self) -> str:
        """The digest the next event's ``prev`` must name (the root's when no event)."""
        return self.events[-1].digest if self.events else self.attempt.digest

    @property
    def blocks(self) -> bool:
        """Whether this attempt blocks a fresh attempt at its key (section 9)."""
        return blocks_fresh_attempt(self.status)

    @property
    def materials(self) -> tuple[Material, ...]:
        """Every material the attempt's events cite, in seq and array order."""
        return tuple(m for e in self.events for m in e.materials)

    def event_by_key(self, key: str) -> Event | None:
        """The event with idempotency ``key``, or None."""
        for event in self.events:
            if event.key == key:
                return event
        return None

    def summary(self) -> dict[str, Any]:
        """The entry of the verdict's ``attempts`` list (section 10)."""
        return {"attempt": self.id, "request_key": self.request_key,
                "generation": self.generation_id, "predecessor": self.predecessor,
                "status": self.status}


@value
class JournalState:
    """A valid journal: the intent, its attempts in node order, and reading context.

    ``materials`` maps each material id to the first reference seen (section 4: an id
    always has the same bytes and digest); ``options`` are the arguments it was read
    with (a writer's checks must use the same).

    ``record_digests`` are the distinct contributing attempt and event records (the
    intent not counted) and ``record_count`` their number: what a writer puts in the
    witness's ``head.records`` (section 4, lease). ``lease`` is the captured lease
    record and ``lease_oid`` its commit's oid (both None when no lease ref was
    captured, or it was null). ``ignored_comments`` holds ``(node id, why)`` for every
    comment not read as a record, in reading order (``len`` is ``ignored``), and
    ``ignored_kinds`` how many of them are of each kind, sorted by kind: ``other author``
    (another login or databaseId), ``edited``, ``deleted``, ``no record`` (no record
    block) and ``reply of an ignored comment``.
    """

    intent: Intent
    discussion_id: str
    discussion_number: int
    repository_id: str
    repository_name: str
    attempts: tuple[AttemptState, ...]
    materials: Mapping[str, Material]
    ignored: int
    options: Options
    record_digests: frozenset[str] = frozenset()
    lease: Lease | None = None
    lease_oid: str | None = None
    ignored_comments: tuple[tuple[str, str], ...] = ()
    ignored_kinds: tuple[tuple[str, int], ...] = ()

    @property
    def record_count(self) -> int:
        """Distinct contributing attempt and event records, each digest once, the intent
        not counted: the exact number a writer puts in the witness ``head.records``."""
        return len(self.record_digests)

    def attempt(self, attempt_id: str) -> AttemptState | None:
        """The attempt with this id, or None."""
        for state in self.attempts:
            if state.id == attempt_id:
                return state
        return None

    @property
    def request_keys(self) -> tuple[str, ...]:
        """Distinct request keys, in node order."""
        return tuple(dict.fromkeys(a.request_key for a in self.attempts))

    def tip(self, request_key: str) -> AttemptState | None:
        """The chain tip for ``request_key``: its attempt no other attempt succeeds."""
        named = {a.predecessor for a in self.attempts}
        tips = [a for a in self.attempts if a.request_key == request_key and a.id not in named]
        return tips[-1] if tips else None


@value(eq_excludes=("journal", "current"))
class Verdict:
    """The reader's verdict (section 10) and, when valid, the journal state.

    ``exit_code`` is 0 (valid), 3 (invalid) or 2 (``bad_input``/``bad_arguments``).
    ``journal`` is set whenever section 7 passed (also when the only problem is a
    missing ``--request-key`` with several keys); ``current`` is the selected attempt.
    Two verdicts are equal when their verdict fields are (``journal`` and ``current``
    are not compared).
    """

    status: str
    reason: str | None
    intent: str | None
    request_key: str | None
    attempt: str | None
    generation: str | None
    missing_phases: tuple[str, ...]
    recovery: str
    attempts: tuple[dict[str, Any], ...]
    ignored: int
    detail: str | None
    exit_code: int
    reader: str | None = None
    journal: JournalState | None = None
    current: AttemptState | None = None

    @property
    def valid(self) -> bool:
        """True when the journal is valid and a request key was selected (exit 0)."""
        return self.exit_code == 0

    def to_json(self) -> dict[str, Any]:
        """The reader's stdout object, key for key (section 10)."""
        return {"reader": self.reader, "status": self.status, "reason": self.reason,
                "intent": self.intent, "request_key": self.request_key,
                "attempt": self.attempt, "generation": self.generation,
                "missing_phases": list(self.missing_phases), "recovery": self.recovery,
                "attempts": [dict(a) for a in self.attempts], "ignored": self.ignored,
                "detail": self.detail}


def invalid_verdict(code: Failure, detail: str, request_key: str | None,
                    reader: str | None = None) -> Verdict:
    """The ``invalid`` verdict for a failure (section 10)."""
    return Verdict("invalid", code, None, request_key, None, None, (), "fail-closed", (), 0,
                   detail, 2 if code in CALLER_FAULTS else 3, reader)


# ----------------------------------------------------------------------------- reading


def _lower_ascii(text: str) -> str:
    """Lower-case A-Z only (section 4, material url)."""
    return text.lower() if text.isascii() else text.translate(_LOWER)


_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


class _Context:
    """What the checks of one journal share: options, intent, attempts, materials."""

    def __init__(self, options: Options, intent: Intent, roots: Mapping[str, Attempt],
                 repository_name: str | None = None) -> None:
        self.options = options
        self.intent = intent
        self.roots = roots
        # Section 4 (material url): the intent's repository name, or the captured
        # nameWithOwner (the name now, after a rename).
        names = [intent.repository_name]
        if repository_name is not None and repository_name != intent.repository_name:
            names.append(repository_name)
        self.url_prefixes = tuple(_lower_ascii(f"{options.server_url}/{name}/")
                                  for name in names)
        self.materials: dict[str, Material] = {}

    def lineage(self, attempt: Attempt) -> Iterable[Attempt]:
        """The attempt and its predecessors found in the journal, nearest first."""
        seen: set[str] = set()
        current: Attempt | None = attempt
        while current is not None and current.digest not in seen:
            seen.add(current.digest)
            yield current
            current = self.roots.get(current.predecessor) if current.predecessor else None

    def check_identity(self, attempt: Attempt, event: Event, reply_id: str) -> None:
        """Section 4 (event): intent, attempt and generation are those of its root.

        ``reply_id`` names the reply in the failure's detail (or "the event").
        """
        if (event.intent != self.intent.digest or event.attempt != attempt.digest
                or event.generation != attempt.generation_id):
            where = reply_id if reply_id == "the event" else f"reply {reply_id}"
            raise JournalInvalid("identity_drift", f"{where} names another intent, attempt or "
                                 f"generation than its root {attempt.digest}")

    def check_materials(self, attempt: Attempt, event: Event,
                        registry: dict[str, Material]) -> None:
        """Section 8 (last rule) with section 4 (material): rejected first, then conflict."""
        if not event.materials:
            return
        prefixes = self.url_prefixes
        for m in event.materials:
            url = m.url
            if "?" in url or "#" in url or "@" in url:
                raise JournalInvalid("material_rejected",
                                     f"material {m.id} url holds ?, # or @ (seq {event.seq})")
            if not _lower_ascii(url).startswith(prefixes):
                raise JournalInvalid("material_rejected",
                                     f"material {m.id} url is not under "
                                     f"{' or '.join(prefixes)} (seq {event.seq})")
            producer: Attempt | None = attempt
            if attempt.digest != m.attempt:
                producer = None
                for a in self.lineage(attempt):
                    if a.digest == m.attempt:
                        producer = a
                        break
            if producer is None:
                raise JournalInvalid("material_rejected",
                                     f"material {m.id} names attempt {m.attempt}, neither this "
                                     f"attempt nor a predecessor (seq {event.seq})")
            if m.generation != producer.generation_id:
                raise JournalInvalid("material_rejected",
                                     f"material {m.id} names generation {m.generation}, not "
                                     f"that of its attempt (seq {event.seq})")
        for m in event.materials:
            known = registry.get(m.id)
            if known is None:
                registry[m.id] = m
            elif known.bytes != m.bytes or known.digest != m.digest:
                raise JournalInvalid("material_conflict",
                                     f"material {m.id} has other bytes/digest than before "
                                     f"(seq {event.seq})")


def _events_of(ctx: _Context, attempt: Attempt, replies: Iterable[Comment],
               ignored: list[tuple[str, str, str]]
               ) -> tuple[dict[str, Event], list[tuple[str, str]]]:
    """Section 7.5 a-b: contributing event records, deduplicated by digest, with
    ``(digest, reply id)`` of every reply holding one; each ignored reply is appended
    to ``ignored`` as ``(node id, kind, why)``."""
    opts = ctx.options
    writer, writer_id = opts.writer, opts.writer_id
    by_digest: dict[str, Event] = {}
    held: list[tuple[str, str]] = []
    for reply in replies:
        refused = reply.refusal(writer, writer_id)
        if refused is not None:
            ignored.append((reply.id, *refused))
            continue
        try:
            event = parse_body(reply.body, "event")
        except JournalInvalid as exc:
            raise JournalInvalid(exc.code, f"reply {reply.id}: {exc.detail}") from None
        if event is None:
            ignored.append((reply.id, NO_RECORD, NO_MARKER))
            continue
        assert isinstance(event, Event)
        ctx.check_identity(attempt, event, reply.id)
        by_digest.setdefault(event.digest, event)
        held.append((event.digest, reply.id))
    return by_digest, held


NO_MARKER = "no marker"
"""Why a contributing comment holding no record block is ignored (section 2)."""
NO_RECORD = "no record"
"""Kind of a comment ignored for holding no record block."""
IGNORED_PARENT = "reply of an ignored comment"
"""Why (and kind) a reply of an ignored top-level comment is ignored (section 6)."""


def chain(ctx: _Context, attempt: Attempt, events: Iterable[Event],
          registry: dict[str, Material]) -> tuple[tuple[Event, ...], ReplayState]:
    """Section 7.5 c-h for distinct event records of one attempt (any order).

    Returns the events in seq order and the replay state; raises ``JournalInvalid``.
    """
    records = list(events)
    aid = attempt.digest
    if len(records) > ctx.options.max_records:
        raise JournalInvalid("history_bound", f"attempt {aid} has {len(records)} records, "
                             f"more than --max-records {shown(ctx.options.max_records)}")
    keys: dict[str, str] = {}
    seqs: dict[int, Event] = {}
    forked: Event | None = None
    for event in records:  # one pass; a duplicate key (7.5d) outranks a fork (7.5e)
        if keys.setdefault(event.key, event.digest) != event.digest:
            raise JournalInvalid("conflicting_duplicate",
                                 f"key {event.key} holds two different records in {aid}")
        if seqs.setdefault(event.seq, event) is not event and forked is None:
            forked = event
    if forked is not None:
        raise JournalInvalid("fork", f"seq {forked.seq} holds two different records in {aid}")
    n = len(records)
    if n and (max(seqs) != n):
        missing = sorted(set(range(1, n + 1)) - seqs.keys())[:5]
        raise JournalInvalid("gap", f"attempt {aid}: seqs are not exactly 1..{n} "
                             f"(missing {missing}; a reply not by --writer, edited or "
                             "deleted does not count)")
    ordered = tuple([seqs[i] for i in range(1, n + 1)])
    prev = aid
    for event in ordered:
        if event.prev != prev:
            before = "the root" if event.seq == 1 else f"seq {event.seq - 1}"
            raise JournalInvalid("broken_link", f"attempt {aid}: seq {event.seq} prev is not "
                                 f"the digest of {before}")
        prev = event.digest
    state = ReplayState.start(attempt.plan, attempt.expires_at)
    for event in ordered:
        refused = refusal(state, event)
        if refused is not None:
            raise JournalInvalid(refused[0], f"attempt {aid} seq {event.seq}: {refused[1]}")
        apply(state, event, event.reason)
        if event.materials:
            ctx.check_materials(attempt, event, registry)
    return ordered, state


def _attempt_state(attempt: Attempt, root_ids: tuple[str, ...], events: tuple[Event, ...],
                   held: Iterable[tuple[str, str]], state: ReplayState) -> AttemptState:
    status, reason, phase = derive_status(state)
    return AttemptState(attempt, root_ids, status, reason, recovery_for(status, phase),
                        missing_phases(state), state.last, events, tuple(held))


def _across(states: tuple[AttemptState, ...]) -> None:
    """Section 9, rule by rule over the attempts in node order."""
    by_id = {s.id: s for s in states}
    for s in states:
        if s.predecessor is not None and s.predecessor not in by_id:
            raise JournalInvalid("missing_predecessor_attempt",
                                 f"attempt {s.id} names predecessor {s.predecessor}, "
                                 "no attempt of this journal")
    for s in states:
        if s.predecessor is not None and by_id[s.predecessor].request_key != s.request_key:
            raise JournalInvalid("identity_drift", f"attempt {s.id} has another request key "
                                 "than its predecessor")
    successors: dict[str, str] = {}
    first_of_key: dict[str, str] = {}
    for s in states:
        if s.predecessor is not None:
            if successors.setdefault(s.predecessor, s.id) != s.id:
                raise JournalInvalid("fork", f"two attempts succeed {s.predecessor}")
        elif first_of_key.setdefault(s.request_key, s.id) != s.id:
            raise JournalInvalid("fork", f"two attempts of key {s.request_key} have no "
                                 "predecessor")
    for s in states:
        if s.predecessor is not None and by_id[s.predecessor].blocks:
            raise JournalInvalid("blocked_successor",
                                 f"attempt {s.id} succeeds {s.predecessor}, which is "
                                 f"{by_id[s.predecessor].status} and blocks")
    authorizations: dict[str, str] = {}
    for s in states:
        auth = s.attempt.authorization
        if auth is not None and authorizations.setdefault(auth, s.id) != s.id:
            raise JournalInvalid("authorization_reused",
                                 f"authorization {auth} is used by two attempts")


def _read(capture: Capture, opts: Options) -> JournalState:
    """Sections 7.2-7.7 over a capture parsed by section 5 (:func:`parse_capture`)."""
    if capture.repository_id != opts.repository_id:
        raise JournalInvalid("repository_mismatch", "the capture is of repository "
                             f"{capture.repository_id}, not --repository-id")
    writer, writer_id = opts.writer, opts.writer_id
    if len(capture.comments) < capture.comments_total:
        raise JournalInvalid("incomplete", f"{len(capture.comments)} of "
                             f"{capture.comments_total} top-level comments captured")
    for comment in capture.comments:
        got, total = len(capture.replies[comment.id]), capture.replies_total[comment.id]
        if got < total and comment.contributes(writer, writer_id):
            raise JournalInvalid("incomplete", f"{got} of {total} replies of {comment.id} "
                                 "captured")
    # 7.3: the journal body.
    refused = capture.body.refused_because(writer, writer_id)
    if refused is not None:
        raise JournalInvalid("untrusted_journal",
                             f"the discussion body does not count: {refused}")
    intent = parse_body(capture.body.body, "intent")
    if intent is None:
        raise JournalInvalid("bad_record", "the discussion body holds no record")
    assert isinstance(intent, Intent)
    if intent.repository_id != capture.repository_id:
        raise JournalInvalid("repository_mismatch", "the intent names another repository")
    # 7.4: attempt roots, in node order.
    ignored: list[tuple[str, str, str]] = []  # (node id, kind, why)
    roots: dict[str, Attempt] = {}
    root_nodes: dict[str, list[str]] = {}
    for comment in capture.comments:
        record = None
        why = comment.refusal(writer, writer_id)
        if why is None:
            try:
                record = parse_body(comment.body, "attempt")
            except JournalInvalid as exc:
                raise JournalInvalid(exc.code, f"comment {comment.id}: {exc.detail}") from None
        if record is None:
            ignored.append((comment.id, *(why or (NO_RECORD, NO_MARKER))))
            ignored.extend((r.id, IGNORED_PARENT, IGNORED_PARENT)
                           for r in capture.replies[comment.id])
            continue
        assert isinstance(record, Attempt)
        if record.intent != intent.digest:
            raise JournalInvalid("identity_drift", f"comment {comment.id}: the attempt names "
                                 "another intent than the journal")
        if record.digest in roots:
            root_nodes[record.digest].append(comment.id)
        else:
            roots[record.digest] = record
            root_nodes[record.digest] = [comment.id]
    if len(roots) > opts.max_attempts:
        raise JournalInvalid("history_bound", f"{len(roots)} attempts, more than "
                             f"--max-attempts {shown(opts.max_attempts)}")
    # 7.5: each attempt.
    ctx = _Context(opts, intent, roots, capture.repository_name)
    states: list[AttemptState] = []
    for aid, attempt in roots.items():
        ids = root_nodes[aid]
        replies: Iterable[Comment] = capture.replies[ids[0]]
        if len(ids) > 1:
            replies = sorted((r for i in ids for r in capture.replies[i]),
                             key=node_order)
        by_digest, held = _events_of(ctx, attempt, replies, ignored)
        ordered, state = chain(ctx, attempt, by_digest.values(), ctx.materials)
        states.append(_attempt_state(attempt, tuple(ids), ordered, held, state))
    result = tuple(states)
    _across(result)  # section 9
    digests = frozenset([*roots, *(e.digest for s in result for e in s.events)])
    lease = _witness(capture, intent, digests, opts)  # 7.7
    return JournalState(intent, capture.discussion_id, capture.discussion_number,
                        capture.repository_id, capture.repository_name, result,
                        dict(ctx.materials), len(ignored), opts, digests, lease,
                        None if lease is None or capture.lease is None else capture.lease.oid,
                        tuple((node, why) for node, _, why in ignored),
                        _counted(kind for _, kind, _ in ignored))


def _counted(kinds: Iterable[str]) -> tuple[tuple[str, int], ...]:
    counts: dict[str, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return tuple(sorted(counts.items()))


def _witness(capture: Capture, intent: Intent, digests: frozenset[str],
             opts: Options) -> Lease | None:
    """Step 7: the lease ref's witness. Returns the lease record (None when no lease
    ref was captured, or it was null).

    Raises:
        JournalInvalid: ``bad_witness`` (7a), then ``rolled_back`` (7b); ``rolled_back``
            also when ``--require-witness`` is given and no lease ref was captured.
    """
    ref: LeaseRef | None = capture.lease
    if ref is None:
        if opts.require_witness:
            raise JournalInvalid("rolled_back", "--require-witness, and the capture holds "
                                 "no lease ref (no LeaseRef response, no lease member, "
                                 "or a null one)")
        return None
    key = scope_key(intent.digest, capture.repository_id)
    if ref.prefix != LEASE_REF_PREFIX or ref.name != LEASE_NAME_PREFIX + key:
        raise JournalInvalid("bad_witness", f"the lease ref is {ref.prefix[:40]}"
                             f"{ref.name[:80]}, not {LEASE_REF_PREFIX}{LEASE_NAME_PREFIX}"
                             f"{key} (this journal's writer scope)")
    if ref.oid is None:
        raise JournalInvalid("bad_witness", "the lease ref's target is null")
    lease = parse_lease(ref.message)
    if lease.intent != intent.digest or lease.repository != capture.repository_id:
        raise JournalInvalid("bad_witness", "the lease record's scope is not this journal's "
                             "intent and repository")
    if lease.journal is not None and lease.journal != capture.discussion_number:
        raise JournalInvalid("bad_witness", f"the lease record names journal "
                             f"#{lease.journal}, not the captured #{capture.discussion_number}")
    head = lease.head
    if head.records > len(digests):
        raise JournalInvalid("rolled_back", f"the witness names {head.records} records; the "
                             f"journal holds {len(digests)} (a newest record deleted, "
                             "edited or not by --writer no longer counts)")
    if head.last is not None and head.last not in digests:
        raise JournalInvalid("rolled_back", f"the witness's head.last {head.last} is not a "
                             "record of the journal (deleted, edited or not by --writer)")
    return lease


def read_journal(pages: object, *, writer: str, repository_id: str,
                 writer_id: int | None = None, request_key: str | None = None,
                 server_url: str | None = None, max_records: int = 1000,
                 max_attempts: int = 100, reader: str | None = None,
                 require_witness: bool = False) -> Verdict:
    """Read a captured journal and return the verdict (docs/journal-format.md sections 5-10).

    Args:
        pages: the parsed stdin value: a GraphQL response dict or a list of them
            (``JournalPage``/``RepliesPage``/``LeaseRef``, any order; a JournalPage may
            carry a ``lease`` member), parsed here (:func:`parse_capture`).
        writer: the login whose unedited comments contribute (``--writer``).
        repository_id: the repository's GraphQL node id (``--repository-id``).
        writer_id: the author's ``databaseId`` that must also match (``--writer-id``).
        request_key: selects the current attempt's chain (``--request-key``).
        server_url: the GitHub server material URLs must start with (``--server-url``).
        max_records: most events per attempt (``--max-records``).
        max_attempts: most attempts per journal (``--max-attempts``).
        reader: the reader digest to report in ``Verdict.reader``.
        require_witness: a journal whose capture holds no lease ref is ``rolled_back``
            (``--require-witness``).

    Returns:
        A ``Verdict``; never raises for any input. Wrong arguments give a
        ``bad_arguments`` verdict (exit 2), as the CLI would.
    """
    opts = _options(writer, repository_id, writer_id, request_key, server_url,
                    max_records, max_attempts, require_witness)
    if isinstance(opts, JournalInvalid):
        key = request_key if is_key(request_key) else None
        return invalid_verdict(opts.code, opts.detail, key, reader)
    return read_with(pages, opts, reader)


def read_capture(capture: Capture | JournalInvalid, *, writer: str, repository_id: str,
                 writer_id: int | None = None, request_key: str | None = None,
                 server_url: str | None = None, max_records: int = 1000,
                 max_attempts: int = 100, reader: str | None = None,
                 require_witness: bool = False) -> Verdict:
    """:func:`read_journal` of a capture already parsed (:func:`parse_capture`), or of
    the ``JournalInvalid`` parsing raised (``bad_input``, ``capture_mismatch``): the same
    verdict ``read_journal`` gives for the responses, in the same order (the arguments
    are checked first). Never raises."""
    opts = _options(writer, repository_id, writer_id, request_key, server_url,
                    max_records, max_attempts, require_witness)
    if isinstance(opts, JournalInvalid):
        key = request_key if is_key(request_key) else None
        return invalid_verdict(opts.code, opts.detail, key, reader)
    if isinstance(capture, JournalInvalid):
        return invalid_verdict(capture.code, capture.detail, opts.request_key, reader)
    return _verdict(capture, opts, reader)


def _options(writer: str, repository_id: str, writer_id: int | None,
             request_key: str | None, server_url: str | None, max_records: int,
             max_attempts: int, require_witness: bool) -> Options | JournalInvalid:
    try:
        return make_options(writer, repository_id, writer_id=writer_id,
                            request_key=request_key, server_url=server_url,
                            max_records=max_records, max_attempts=max_attempts,
                            require_witness=require_witness)
    except JournalInvalid as exc:
        return exc


def read_with(pages: object, opts: Options, reader: str | None = None) -> Verdict:
    """``read_journal`` with already checked ``Options`` (used by the reader CLI)."""
    try:
        capture = parse_capture(pages)
    except JournalInvalid as exc:
        return invalid_verdict(exc.code, exc.detail, opts.request_key, reader)
    return _verdict(capture, opts, reader)


def _verdict(capture: Capture, opts: Options, reader: str | None) -> Verdict:
    try:
        journal = _read(capture, opts)
    except JournalInvalid as exc:
        return invalid_verdict(exc.code, exc.detail, opts.request_key, reader)
    except RecursionError:
        return invalid_verdict("bad_input", "stdin nests too deeply", opts.request_key, reader)
    return select(journal, opts.request_key, reader)


def select(journal: JournalState, request_key: str | None,
           reader: str | None = None) -> Verdict:
    """Section 10: the verdict for the current attempt of ``request_key``.

    Without ``request_key``, the only key of the journal is selected; several keys
    give a ``bad_input`` verdict (exit 2) that still carries ``journal``.
    """
    attempts = tuple(s.summary() for s in journal.attempts)
    if request_key is None:
        keys = journal.request_keys
        if len(keys) > 1:
            verdict = invalid_verdict("bad_input", f"the journal holds {len(keys)} request "
                                      "keys; pass --request-key", None, reader)
            return _with_journal(verdict, journal, None)
        request_key = keys[0] if keys else None
    current = journal.tip(request_key) if request_key is not None else None
    if current is None:
        return Verdict("empty", None, journal.intent.digest, request_key, None, None, (),
                       recovery_for("empty"), attempts, journal.ignored, None, 0, reader,
                       journal, None)
    return Verdict(current.status, current.reason, journal.intent.digest, request_key,
                   current.id, current.generation_id, current.missing_phases,
                   current.recovery, attempts, journal.ignored, None, 0, reader, journal,
                   current)


def _with_journal(verdict: Verdict, journal: JournalState,
                  current: AttemptState | None) -> Verdict:
    return Verdict(verdict.status, verdict.reason, verdict.intent, verdict.request_key,
                   verdict.attempt, verdict.generation, verdict.missing_phases,
                   verdict.recovery, verdict.attempts, verdict.ignored, verdict.detail,
                   verdict.exit_code, verdict.reader, journal, current)


def find_blocking(journal: JournalState, request_key: str) -> AttemptState | None:
    """The attempt of ``request_key`` that blocks a fresh attempt, if any (section 9).

    The preflight before admission: the attempt whose status blocks
    (``blocks_fresh_attempt``); in a valid journal only a chain tip can.
    """
    return next((s for s in find_history(journal, request_key) if s.blocks), None)


def find_history(journal: JournalState, request_key: str) -> tuple[AttemptState, ...]:
    """Every attempt of ``request_key``, blocking or not, in node order (section 9).

    For audit and for comparing a presented authorization with every past attempt.
    """
    return tuple(s for s in journal.attempts if s.request_key == request_key)


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    AttemptState, JournalState, PhaseState, Verdict, find_blocking, find_history,
    read_capture, read_journal,
):
    _exported.__module__ = "ghattempt.core"
del _exported
