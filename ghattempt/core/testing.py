"""Capture fixtures for tests: GraphQL ``JournalPage``/``RepliesPage``/``LeaseRef``
responses built from records, with control over authors, edits, deletes, minimizing,
node ids, ``createdAt``, page sizes and splitting (docs/journal-format.md section 5).

Not part of the reader bundle. Typical use::

    s = Scenario()
    a = s.attempt(plan=("build", "merge"))
    a.event("build", "started")
    verdict = s.read()           # read_journal over s.pages()

``JournalFixture`` is the low-level part: a discussion with top-level comments and
replies, each a ``Node`` whose fields are those of the ``RecordComment`` fragment.
``forge`` builds deliberately wrong records (for tests of refusals).
"""

from __future__ import annotations

import base64
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._build import (
    build_attempt,
    build_event,
    build_generation,
    build_intent,
    build_material,
    record_block,
    render_body,
)
from ._c14n import canonical_text, digest_text
from ._journal import Verdict, read_journal
from ._lease import LEASE_NAME_PREFIX, LEASE_REF_PREFIX, Lease, Witness, scope_key
from ._records import ActionsWriter, Attempt, Event, Generation, Material, Record, Writer
from ._rules import PHASES


@dataclass(frozen=True, slots=True)
class Author:
    """A comment author: ``login`` and, for a Bot, its ``databaseId``."""

    login: str
    database_id: int | None = None

    def to_graphql(self) -> dict[str, Any]:
        """The ``author`` object as GraphQL returns it."""
        out: dict[str, Any] = {"login": self.login}
        if self.database_id is not None:
            out["databaseId"] = self.database_id
        return out


ACTIONS_BOT = Author("github-actions", 41898282)
"""The Actions bot as GraphQL names it (login without ``[bot]``)."""
OCTOCAT = Author("octocat")
READER = "sha256:" + "ad" * 32
"""A placeholder reader digest for test records."""
WRITER = ActionsWriter(run_id=9916539722, run_attempt=1, job="attempt", workflow="release.yml")


def time_at(minutes: int, base: str = "2026-03-01T00:00:00Z") -> str:
    """``base`` + ``minutes`` as ``YYYY-MM-DDTHH:MM:SSZ`` (no calendar beyond 28 days)."""
    total = (int(base[8:10]) - 1) * 1440 + int(base[11:13]) * 60 + int(base[14:16]) + minutes
    day, rest = divmod(total, 1440)
    if not 0 <= day < 28:
        raise ValueError("time_at stays within the first 28 days of the base month")
    return f"{base[:8]}{day + 1:02d}T{rest // 60:02d}:{rest % 60:02d}:{base[17:19]}Z"


@dataclass(slots=True)
class Node:
    """One comment node (fields of the ``RecordComment`` fragment) and its replies."""

    id: str
    body: str
    created_at: str
    author: Author | None = ACTIONS_BOT
    last_edited_at: str | None = None
    includes_created_edit: bool = False
    is_minimized: bool = False
    deleted_at: str | None = None
    omit_deleted_at: bool = False
    replies: list[Node] = field(default_factory=list)

    def to_graphql(self) -> dict[str, Any]:
        """The node as the fragment ``RecordComment`` returns it."""
        out: dict[str, Any] = {
            "id": self.id, "body": self.body, "createdAt": self.created_at,
            "lastEditedAt": self.last_edited_at,
            "includesCreatedEdit": self.includes_created_edit,
            "isMinimized": self.is_minimized, "deletedAt": self.deleted_at,
            "author": None if self.author is None else self.author.to_graphql()}
        if self.omit_deleted_at:
            del out["deletedAt"]
        return out


def _cursor(n: int) -> str:
    return base64.b64encode(f"cursor:v2:{n}".encode()).decode()


def _connection(nodes: list[dict[str, Any]], total: int, end: int) -> dict[str, Any]:
    return {"totalCount": total,
            "pageInfo": {"hasNextPage": end < total, "endCursor": _cursor(end) if nodes else None},
            "nodes": nodes}


class JournalFixture:
    """A discussion journal as GitHub would hold it; ``pages()`` captures it.

    Node ids look like GitHub's new format (``DC_kwDO…``); ``createdAt`` advances one
    minute per node unless given.
    """

    def __init__(self, body: str | Record, *, repository_id: str = "R_kgDOTest0001",
                 repository_name: str = "octo-org/widgets",
                 discussion_id: str = "D_kwDOTest0001", number: int = 7,
                 author: Author | None = ACTIONS_BOT, last_edited_at: str | None = None,
                 includes_created_edit: bool = False, start: str = "2026-03-01T00:00:00Z"
                 ) -> None:
        self.repository_id = repository_id
        self.repository_name = repository_name
        self.discussion_id = discussion_id
        self.number = number
        self.body = body if isinstance(body, str) else render_body(body)
        self.author = author
        self.last_edited_at = last_edited_at
        self.includes_created_edit = includes_created_edit
        self.start = start
        self.roots: list[Node] = []
        self._count = 0

    def _node(self, body: str | Record, **fields: Any) -> Node:
        self._count += 1
        fields.setdefault("id", f"DC_kwDOTest{self._count:06d}")
        fields.setdefault("created_at", time_at(self._count, self.start))
        text = body if isinstance(body, str) else render_body(body)
        return Node(body=text, **fields)

    def root(self, body: str | Record, **fields: Any) -> Node:
        """Add a top-level comment; ``fields`` set any ``Node`` field (author, id, …)."""
        node = self._node(body, **fields)
        self.roots.append(node)
        return node

    def reply(self, root: Node, body: str | Record, **fields: Any) -> Node:
        """Add a reply to ``root``; ``fields`` set any ``Node`` field."""
        node = self._node(body, **fields)
        root.replies.append(node)
        return node

    def discussion(self) -> dict[str, Any]:
        """The discussion fields of a JournalPage (without ``comments``)."""
        return {"id": self.discussion_id, "number": self.number, "body": self.body,
                "lastEditedAt": self.last_edited_at,
                "includesCreatedEdit": self.includes_created_edit,
                "author": None if self.author is None else self.author.to_graphql()}

    def pages(self, *, roots_per_page: int = 50, replies_per_page: int = 50,
              more_replies_per_page: int = 100, shuffle: random.Random | None = None
              ) -> list[dict[str, Any]]:
        """Capture the journal as the capture queries would, page by page.

        Each JournalPage holds ``roots_per_page`` top-level comments with their first
        ``replies_per_page`` replies; the rest of each root's replies come in
        RepliesPages of ``more_replies_per_page``. ``shuffle`` reorders the responses.
        """
        out: list[dict[str, Any]] = []
        total = len(self.roots)
        for start in range(0, max(total, 1), roots_per_page):
            chunk = self.roots[start:start + roots_per_page]
            nodes = []
            for root in chunk:
                first = root.replies[:replies_per_page]
                node = root.to_graphql()
                node["replies"] = _connection([r.to_graphql() for r in first],
                                              len(root.replies), len(first))
                nodes.append(node)
            disc = self.discussion()
            disc["comments"] = _connection(nodes, total, start + len(chunk))
            out.append({"data": {"repository": {"id": self.repository_id,
                                                "nameWithOwner": self.repository_name,
                                                "discussion": disc}}})
        for root in self.roots:
            for begin in range(replies_per_page, len(root.replies), more_replies_per_page):
                part = root.replies[begin:begin + more_replies_per_page]
                out.append({"data": {"node": {
                    "id": root.id, "discussion": {"id": self.discussion_id},
                    "replies": _connection([r.to_graphql() for r in part], len(root.replies),
                                           begin + len(part))}}})
        if shuffle is not None:
            shuffle.shuffle(out)
        return out


def forge(record: Record, *, redigest: bool = True, **changes: Any) -> str:
    """The canonical line of ``record`` with top-level ``changes`` (a wrong record).

    ``redigest`` recomputes the digest after the changes (so only the change is
    wrong); a change of ``digest`` itself is kept as given.
    """
    wire = record.to_dict()
    wire.update(changes)
    if redigest and "digest" not in changes:
        wire.pop("digest")
        wire["digest"] = digest_text(canonical_text(wire))
    return canonical_text(wire)


def block_body(line: str, *, version: str = "1", human: str = "forged") -> str:
    """A body holding ``line`` in a record block with marker ``v{version}``."""
    return f"{human}\n\n<!-- ghattempt:v{version} -->\n```json\n{line}\n```\n"


def sample_generation(n: int = 1) -> Generation:
    """A distinct, well-formed generation per ``n``."""
    h = f"{n:040x}"
    return build_generation(source_commit=h, tree=h[::-1], config_path=".github/attempt.yml",
                            config_blob="c" * 40, config_digest="sha256:" + "e" * 64,
                            base_ref="main", base_commit="b" * 40)


class AttemptHandle:
    """An attempt of a ``Scenario``: its record, root node(s) and events so far."""

    def __init__(self, scenario: Scenario, record: Attempt, root: Node | None) -> None:
        self.scenario = scenario
        self.record = record
        self.root = root
        self.events: list[Event] = []

    @property
    def id(self) -> str:
        """The attempt id."""
        return self.record.digest

    @property
    def head(self) -> str:
        """Digest the next event links to."""
        return self.events[-1].digest if self.events else self.record.digest

    def build(self, phase: str | None, status: str, reason: str | None = None, *,
              materials: Iterable[Material] = (), key: str | None = None,
              at: str | None = None, seq: int | None = None, prev: str | None = None,
              writer: Writer | None = None) -> Event:
        """Build (not post) the next event; ``seq``/``prev``/``key``/``at`` default sanely."""
        seq = len(self.events) + 1 if seq is None else seq
        if reason is None and status in ("waiting", "failed", "cancelled", "superseded",
                                         "expired", "unknown"):
            reason = f"{phase or 'attempt'} {status}"
        return build_event(intent=self.record.intent, attempt=self.id,
                           generation=self.record.generation_id, seq=seq,
                           prev=self.head if prev is None else prev,
                           key=key or f"k:{self.id[7:15]}:{seq}:{phase}:{status}",
                           phase=phase, status=status, reason=reason, materials=materials,
                           writer=writer or self.scenario.writer, reader=self.scenario.reader,
                           at=at or self.scenario.clock())

    def event(self, phase: str | None, status: str, reason: str | None = None,
              **kwargs: Any) -> Event:
        """Build the next event, post it as a reply and count it in ``events``."""
        node_fields = kwargs.pop("node", {})
        event = self.build(phase, status, reason, **kwargs)
        self.post(event, **node_fields)
        self.events.append(event)
        self.scenario.written.append(event.digest)
        return event

    def run(self, *steps: tuple[str | None, str]) -> AttemptHandle:
        """Post ``(phase, status)`` events in order."""
        for phase, status in steps:
            self.event(phase, status)
        return self

    def succeed(self, *phases: str) -> AttemptHandle:
        """Post started then succeeded for each phase (all of the plan when none given)."""
        for phase in phases or self.record.plan:
            self.event(phase, "started")
            self.event(phase, "succeeded")
        return self

    def post(self, body: str | Record, **fields: Any) -> Node:
        """Post a reply to this attempt's root (any body or record, not counted)."""
        assert self.root is not None, "the attempt has no root node"
        return self.scenario.fixture.reply(self.root, body, **fields)

    def material(self, id: str, kind: str = "artifact", size: int = 1024,
                 url: str | None = None, digest: str | None = None) -> Material:
        """A material produced by this attempt, with a permanent repository URL."""
        name = self.scenario.fixture.repository_name
        return build_material(attempt=self.record, id=id, kind=kind, size=size,
                              digest=digest or "sha256:" + "f" * 64,
                              url=url or f"https://github.com/{name}/releases/download/{id}")


class Scenario:
    """A journal built with the writers' builders, for tests (see module docstring)."""

    def __init__(self, *, pull_request: int = 42, base_ref: str = "main",
                 writer: Writer = WRITER, reader: str = READER,
                 author: Author = ACTIONS_BOT, **fixture: Any) -> None:
        fixture.setdefault("repository_id", "R_kgDOTest0001")
        fixture.setdefault("repository_name", "octo-org/widgets")
        self.intent = build_intent(repository_id=fixture["repository_id"],
                                   repository_name=fixture["repository_name"],
                                   pull_request=pull_request, base_ref=base_ref)
        self.fixture = JournalFixture(self.intent, author=author, **fixture)
        self.writer = writer
        self.reader = reader
        self.login = author.login
        self._minutes = 0
        self.attempts: list[AttemptHandle] = []
        self.written: list[str] = []
        """Digests of the records posted by ``attempt`` and ``event``, in order."""

    def clock(self) -> str:
        """The next record time (one minute later each call)."""
        self._minutes += 1
        return time_at(self._minutes)

    def attempt(self, *, request_key: str = "merge/pr-42@main",
                plan: Sequence[str] = PHASES, channel: str = "stable",
                predecessor: AttemptHandle | str | None = None,
                authorization: str | None = None, expires_at: str = "2026-03-20T00:00:00Z",
                generation: Generation | None = None, post: bool = True,
                **node: Any) -> AttemptHandle:
        """Build an attempt root (and post it unless ``post`` is False)."""
        pred = predecessor.id if isinstance(predecessor, AttemptHandle) else predecessor
        record = build_attempt(intent=self.intent, request_key=request_key,
                               generation=generation or sample_generation(len(self.attempts) + 1),
                               plan=plan, channel=channel, expires_at=expires_at,
                               writer=self.writer, reader=self.reader, at=self.clock(),
                               predecessor=pred, authorization=authorization)
        root = self.fixture.root(record, **node) if post else None
        if post:
            self.written.append(record.digest)
        handle = AttemptHandle(self, record, root)
        self.attempts.append(handle)
        return handle

    def pages(self, **kwargs: Any) -> list[dict[str, Any]]:
        """``JournalFixture.pages`` of this journal."""
        return self.fixture.pages(**kwargs)

    def witness(self) -> Witness:
        """The witness a writer would write now: the distinct records posted so far
        (``attempt``/``event``) and the digest of the last one."""
        if not self.written:
            return Witness(0, None)
        return Witness(len(set(self.written)), self.written[-1])

    def lease(self, *, head: Witness | None = None, holder: str = "actions:run/1",
              token: int = 1, state: str = "held", expires_at: str = "2026-03-20T00:00:00Z",
              journal: int | None | str = "number") -> Lease:
        """A lease record of this journal's writer scope; ``head`` defaults to
        ``witness()``, ``journal`` to the discussion's number."""
        number = self.fixture.number if isinstance(journal, str) else journal
        return Lease(self.intent.digest, self.fixture.repository_id, holder, token, state,
                     expires_at, number, self.witness() if head is None else head)

    def lease_ref(self, lease: Lease | None | str = "default", *, name: str | None = None,
                  prefix: str = LEASE_REF_PREFIX, oid: str = "1e" * 20,
                  message: str | None = None, target: bool = True) -> dict[str, Any]:
        """A ``LeaseRef`` response (section 5) holding ``lease`` (default ``lease()``)
        in its target commit's message; ``lease=None`` gives a null ``lease`` member.
        ``name``, ``prefix``, ``oid`` and ``message`` override what is captured;
        ``target=False`` gives a null target."""
        repository: dict[str, Any] = {"id": self.fixture.repository_id,
                                      "lease": self.lease_member(lease, name=name,
                                                                 prefix=prefix, oid=oid,
                                                                 message=message,
                                                                 target=target)}
        return {"data": {"repository": repository}}

    def lease_member(self, lease: Lease | None | str = "default", *, name: str | None = None,
                     prefix: str = LEASE_REF_PREFIX, oid: str = "1e" * 20,
                     message: str | None = None, target: bool = True) -> Any:
        """The ``lease`` member of a LeaseRef or JournalPage (see ``lease_ref``)."""
        if lease is None:
            return None
        record = self.lease() if lease == "default" else lease
        assert isinstance(record, Lease)
        if name is None:
            name = LEASE_NAME_PREFIX + scope_key(record.intent, record.repository)
        text = record.message() if message is None else message
        return {"name": name, "prefix": prefix,
                "target": {"oid": oid, "message": text} if target else None}

    def read(self, *, pages: Any = None, **kwargs: Any) -> Verdict:
        """``read_journal`` over ``pages`` (default ``self.pages()``) as this writer."""
        kwargs.setdefault("writer", self.login)
        kwargs.setdefault("repository_id", self.fixture.repository_id)
        return read_journal(self.pages() if pages is None else pages, **kwargs)




# ----------------------------------------------------------------------- sample corpus

def _statuses() -> Iterator[tuple[str, str, Scenario, list[str]]]:
    plan = ("admission", "build", "merge")
    s = Scenario()
    s.fixture.root("A human note", author=OCTOCAT)
    yield "valid-empty", "no attempt, a human note", s, []
    s = Scenario()
    s.attempt(plan=plan)
    yield "valid-pending", "an attempt without events", s, []
    s = Scenario()
    s.attempt(plan=plan).succeed("admission").event("build", "started")
    yield "valid-running", "build started", s, []
    s = Scenario()
    s.attempt(plan=plan).event("admission", "waiting", "Waiting for approval")
    yield "valid-waiting", "admission waiting", s, []
    s = Scenario()
    s.attempt(plan=plan).succeed("admission", "build").event("merge", "unknown", "timeout")
    yield "valid-reconciling", "merge outcome unknown", s, []
    s = Scenario()
    s.attempt(plan=plan).succeed()
    yield "valid-succeeded", "every plan phase succeeded", s, []
    for status in ("failed", "cancelled", "superseded"):
        s = Scenario()
        s.attempt(plan=plan).succeed("admission").event("build", status, f"build {status}")
        yield f"valid-{status}", f"build {status}", s, []
    s = Scenario()
    s.attempt(plan=plan).event(None, "cancelled", "called off")
    yield "valid-cancelled-attempt-level", "attempt-level cancel", s, []
    s = Scenario()
    s.attempt(plan=plan, expires_at="2026-03-01T00:10:00Z").event(
        None, "expired", "window elapsed", at="2026-03-01T00:10:00Z")
    yield "valid-expired", "expired while pending", s, []
    for end in ("started", "succeeded", "failed"):
        s = Scenario()
        a = s.attempt(plan=plan).succeed()
        a.event("rollback", "started")
        if end != "started":
            a.event("rollback", end, None if end == "succeeded" else "revert conflicts")
        yield f"valid-rollback-{end}", f"rollback {end}", s, []
    s = Scenario()
    first = s.attempt(plan=plan)
    first.event("admission", "failed", "no", materials=[first.material("ckpt", "checkpoint")])
    second = s.attempt(plan=plan, predecessor=first)
    second.event("admission", "started", materials=[first.material("ckpt", "checkpoint")])
    yield "valid-successor", "a successor citing its predecessor's checkpoint", s, []
    s = Scenario()
    s.attempt(plan=plan, request_key="a").succeed()
    s.attempt(plan=plan, request_key="b").event("admission", "started")
    yield "valid-request-key", "two keys, --request-key selects one", s, ["--request-key", "b"]


def _failures() -> Iterator[tuple[str, str, Scenario, list[str]]]:
    plan = ("admission", "build", "merge")

    def started() -> tuple[Scenario, AttemptHandle]:
        s = Scenario()
        a = s.attempt(plan=plan)
        a.event("admission", "started")
        return s, a

    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded")).replace(",", ", ", 1)))
    yield "bad_record-spacing", "non-canonical JSON line", s, []
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded"), reader="sh0000:" + "a" * 64)))
    yield "bad_record-digest-prefix", "a digest field with another prefix than sha256:", s, []
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded"), reader="sha256:h" + "a" * 63)))
    yield "bad_record-digest-letter", "a letter h among a digest's hex digits", s, []
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded"), at="2026-0d-01T00:00:00Z")))
    yield "bad_record-time-letter", "a letter where a time has a digit", s, []
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded")), version="2"))
    yield "unknown_version-marker", "marker v2", s, []
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded"), redigest=False,
                            at="2026-03-09T00:00:00Z")))
    yield "digest_mismatch", "edited after sealing", s, []
    s, a = started()
    s.fixture.last_edited_at = "2026-03-02T00:00:00Z"
    yield "untrusted_journal", "edited discussion body", s, []
    s, a = started()
    a.post(block_body(forge(a.build("admission", "succeeded"), generation="sha256:" + "2" * 64)))
    yield "identity_drift", "event of another generation", s, []
    s, a = started()
    a.event("admission", "succeeded", key="k")
    a.post(a.build("build", "started", key="k"))
    yield "conflicting_duplicate", "one key, two records", s, []
    s, a = started()
    a.post(a.build("admission", "succeeded"))
    a.post(a.build("admission", "waiting", "queued"))
    yield "fork", "two records at seq 2", s, []
    s, a = started()
    a.post(a.build("admission", "succeeded", seq=3))
    yield "gap", "seq 2 missing", s, []
    s, a = started()
    a.post(a.build("admission", "succeeded", prev=a.id))
    yield "broken_link", "seq 2 links to the root", s, []
    s, a = started()
    a.event("admission", "failed", "no")
    a.event("admission", "started")
    yield "rewritten_terminal", "restart after failure", s, []
    s, a = started()
    a.event("admission", "unknown", "lost")
    a.event("admission", "started")
    yield "illegal_transition", "retry of an unknown outcome", s, []
    s, a = started()
    a.event("admission", "succeeded")
    a.event("review", "started")
    yield "undeclared_phase", "review is not in the plan", s, []
    s, a = started()
    a.event("admission", "succeeded")
    a.event("build", "started")
    a.event("admission", "started")
    yield "out_of_order_phase", "admission after build started", s, []
    s, a = started()
    a.event("build", "started")
    yield "missing_predecessor", "build before admission succeeded", s, []
    s, a = started()
    a.event("admission", "succeeded",
            materials=[a.material("m", url="https://github.com/octo-org/widgets/m?sig=1")])
    yield "material_rejected", "signed URL", s, []
    s = Scenario()
    first = s.attempt(plan=plan)
    first.event("admission", "failed", "no", materials=[first.material("m", size=1)])
    second = s.attempt(plan=plan, predecessor=first)
    second.event("admission", "started", materials=[second.material("m", size=2)])
    yield "material_conflict", "one material id, two sizes", s, []
    s = Scenario()
    s.attempt(plan=plan, predecessor="sha256:" + "5" * 64)
    yield "missing_predecessor_attempt", "predecessor not in the journal", s, []
    s = Scenario()
    first = s.attempt(plan=plan)
    first.event("admission", "started")
    s.attempt(plan=plan, predecessor=first)
    yield "blocked_successor", "successor of a running attempt", s, []
    s = Scenario()
    first = s.attempt(plan=plan, authorization="auth-1")
    first.event("admission", "failed", "no")
    s.attempt(plan=plan, predecessor=first, authorization="auth-1")
    yield "authorization_reused", "one authorization, two attempts", s, []
    s, a = started()
    a.event("admission", "succeeded")
    yield "history_bound", "more records than --max-records", s, ["--max-records", "0001"]
    s, a = started()
    yield "repository_mismatch", "another repository id", s, ["--repository-id", "R_other"]


def sample_cases() -> Iterator[tuple[str, str, list[str], list[dict[str, Any]]]]:
    """A deterministic corpus of ``(name, description, argv, pages)``: every status,
    every recovery selector and the failure codes, for regression and release checks.

    ``argv`` is complete reader arguments (``--writer``/``--repository-id`` included).
    """
    for name, about, s, extra in (*_statuses(), *_failures()):
        argv = ["--writer", s.login, "--repository-id", s.fixture.repository_id]
        if "--repository-id" in extra:
            argv = ["--writer", s.login]
        yield name, about, argv + extra, s.pages(replies_per_page=2, more_replies_per_page=3,
                                                  shuffle=random.Random(name))  # noqa: S311 -- fixed order
    s = Scenario()
    s.attempt().event("admission", "started")
    pages = s.pages()
    pages[0]["errors"] = [{"message": "partial"}]
    yield "capture_mismatch", "a response with errors", ["--writer", s.login,
                                                          "--repository-id",
                                                          s.fixture.repository_id], pages
    s = Scenario()
    a = s.attempt()
    for _ in range(3):
        a.event("admission", "waiting", "queued")
    yield "incomplete", "a replies page missing", ["--writer", s.login, "--repository-id",
                                                   s.fixture.repository_id], s.pages(
        replies_per_page=1, more_replies_per_page=1)[:-1]


__all__ = ["ACTIONS_BOT", "OCTOCAT", "READER", "WRITER", "AttemptHandle", "Author",
           "JournalFixture", "Node", "Scenario", "block_body", "forge", "record_block",
           "sample_cases", "sample_generation", "time_at"]
