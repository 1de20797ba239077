"""Hypothesis strategies for attempt journals (spec journal-v1), built only with the
core's builders and ``ghattempt.core.testing`` (never hand-edited JSON).

``journals()`` draws a ``Drawn``: a ``Scenario`` with one to three attempts whose events
follow the replay rules of section 8 (started/waiting runs, succeeded phases, and an
end that is running, waiting, unknown, failed, cancelled, superseded, attempt-level
cancel or expiry, or a rollback), materials, successors of non-blocking attempts,
identical repeats of roots and events, minimized and human comments. With
``failures=True`` it may also add one deliberately wrong record (gap, fork, broken
link, digest mismatch, conflicting duplicate, rewritten terminal), so verdicts of both
kinds are drawn. ``Drawn.read()`` reads the capture with the drawn ``--request-key``.

``captures()`` re-captures a scenario with other page sizes, duplicated pages and a
shuffled order; ``untrusted_nodes()`` draws comments that never contribute (section 6).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from ghattempt.core import Verdict
from ghattempt.core._rules import PHASES
from ghattempt.core.testing import (
    ACTIONS_BOT,
    OCTOCAT,
    AttemptHandle,
    Author,
    Node,
    Scenario,
    block_body,
    forge,
    render_body,
    time_at,
)

NON_BLOCKING = ("failed", "cancelled", "superseded", "expired", "rolled-back")
"""Attempt statuses that admit a successor (section 9, blocking)."""

PHASE_ENDS = ("succeeded",) * 6 + ("running", "waiting", "unknown",
              "unknown-succeeded", "failed", "cancelled", "superseded", "attempt-cancel")
FAILURES = ("gap", "fork", "broken_link", "digest_mismatch", "conflicting_duplicate",
            "rewritten_terminal")


@dataclass
class Drawn:
    """A drawn journal: the scenario, the reader keyword arguments, what was drawn."""

    scenario: Scenario
    request_key: str | None
    statuses: list[str] = field(default_factory=list)
    failure: str | None = None

    def read_kwargs(self) -> dict[str, Any]:
        """``read_journal`` keyword arguments (writer, repository id, request key)."""
        kwargs: dict[str, Any] = {"writer": self.scenario.login,
                                  "repository_id": self.scenario.fixture.repository_id,
                                  "writer_id": ACTIONS_BOT.database_id}
        if self.request_key is not None:
            kwargs["request_key"] = self.request_key
        return kwargs

    def read(self, pages: Any = None) -> Verdict:
        """The verdict over ``pages`` (default: the scenario's own capture)."""
        return self.scenario.read(pages=pages, **self.read_kwargs())

    def argv(self) -> list[str]:
        """The same arguments as reader command-line tokens."""
        argv = ["--writer", self.scenario.login, "--repository-id",
                self.scenario.fixture.repository_id, "--writer-id",
                str(ACTIONS_BOT.database_id)]
        if self.request_key is not None:
            argv += ["--request-key", self.request_key]
        return argv


def _run_attempt(draw: Any, a: AttemptHandle, expires_at: str) -> str:
    """Post a legal run of events on ``a``; return the attempt's resulting status."""
    plan = a.record.plan
    if draw(st.integers(0, 9)) == 0:
        a.event(None, "expired", "window elapsed", at=expires_at)
        return "expired"
    if draw(st.integers(0, 7)) == 0:
        return "pending"
    for phase in plan:
        a.event(phase, "started")
        for _ in range(draw(st.integers(0, 2))):
            a.event(phase, draw(st.sampled_from(("waiting", "started"))))
        material = draw(st.sampled_from((None, "ckpt", "logs", f"own-{phase}")))
        end = draw(st.sampled_from(PHASE_ENDS))
        materials = [a.material(material)] if material else []
        if end == "succeeded":
            a.event(phase, "succeeded", materials=materials)
            continue
        if end == "running":
            a.event(phase, "started")
            return "running"
        if end == "attempt-cancel":
            a.event(None, "cancelled", "called off")
            return "cancelled"
        if end == "unknown-succeeded":
            a.event(phase, "unknown", "timed out")
            a.event(phase, "succeeded", materials=materials)
            continue
        a.event(phase, end, materials=materials)
        return "reconciling" if end == "unknown" else end
    rollback = draw(st.sampled_from((None, None, "started", "succeeded", "failed")))
    if rollback is None:
        return "succeeded"
    a.event("rollback", "started")
    if rollback == "started":
        return "rolling-back"
    a.event("rollback", rollback, None if rollback == "succeeded" else "revert conflicts")
    return "rolled-back" if rollback == "succeeded" else "rollback-failed"


def _inject(draw: Any, a: AttemptHandle) -> str:
    """Post one wrong record on ``a``; returns the failure drawn."""
    failure = draw(st.sampled_from(FAILURES))
    head = len(a.events)
    if failure == "gap":
        a.post(a.build("admission", "waiting", "queued", seq=head + 2))
    elif failure == "fork" and head:
        a.post(a.build(a.events[-1].phase, a.events[-1].status, a.events[-1].reason,
                       seq=head, prev=a.events[-2].digest if head > 1 else a.id,
                       key="forked"))
    elif failure == "broken_link":
        a.post(a.build("admission", "waiting", "queued", prev="sha256:" + "3" * 64))
    elif failure == "digest_mismatch":
        a.post(block_body(forge(a.build("admission", "waiting", "queued"), redigest=False,
                                reason="queued again")))
    elif failure == "conflicting_duplicate" and head:
        a.post(a.build("admission", "waiting", "queued", key=a.events[0].key))
    elif failure == "rewritten_terminal":
        a.event(None, "cancelled", "called off")
        a.event(None, "cancelled", "called off twice")
    else:
        a.post(a.build("admission", "waiting", "queued", seq=head + 2))
        failure = "gap"
    return failure


@st.composite
def journals(draw: Any, *, max_attempts: int = 3, failures: bool = False) -> Drawn:
    """A journal built with the builders (see module docstring)."""
    s = Scenario()
    statuses: list[str] = []
    if draw(st.booleans()):
        s.fixture.root("A human note before any attempt", author=OCTOCAT)
    last: AttemptHandle | None = None
    keys: list[str] = []
    for n in range(draw(st.integers(1, max_attempts))):
        plan = tuple(p for p in PHASES if draw(st.integers(0, 3)) == 0) or ("admission",)
        predecessor = None
        if last is not None and statuses[-1] in NON_BLOCKING and draw(st.booleans()):
            predecessor = last
            key = last.record.request_key
        else:
            key = f"merge/pr-42@main-{n}"
        expires_at = time_at(200 + n)
        a = s.attempt(plan=plan, request_key=key, predecessor=predecessor,
                      expires_at=expires_at, authorization=f"auth-{n}" if n % 2 else None,
                      is_minimized=draw(st.integers(0, 5)) == 0)
        if draw(st.integers(0, 5)) == 0:  # a retried root write: an identical copy
            s.fixture.root(a.record)
        statuses.append(_run_attempt(draw, a, expires_at))
        if a.events and draw(st.integers(0, 4)) == 0:  # a retried reply: identical repeat
            a.post(draw(st.sampled_from(a.events)))
        if (predecessor is not None and statuses[-1] in ("pending", "running", "waiting")
                and draw(st.booleans())):
            a.event(None, "cancelled", "cites its predecessor's checkpoint",
                    materials=[predecessor.material("ckpt")])
            statuses[-1] = "cancelled"
        last = a
        keys.append(key)
    failure = None
    if failures and draw(st.booleans()):
        failure = _inject(draw, draw(st.sampled_from(s.attempts)))
    request_key = draw(st.sampled_from(keys))
    return Drawn(s, request_key, statuses, failure)


@st.composite
def captures(draw: Any, scenario: Scenario) -> list[dict[str, Any]]:
    """``scenario`` captured with drawn page sizes, some pages twice, in a drawn order."""
    pages = scenario.pages(roots_per_page=draw(st.integers(1, 4)),
                           replies_per_page=draw(st.integers(0, 4)),
                           more_replies_per_page=draw(st.integers(1, 5)))
    extra = draw(st.lists(st.sampled_from(pages), max_size=3))
    order = draw(st.randoms(use_true_random=False))
    out = pages + extra
    order.shuffle(out)
    return out


UNTRUSTED_AUTHORS = (OCTOCAT, Author("github-actions", 1), Author("github-actions[bot]",
                                                                  41898282), None)
"""Authors that never contribute when read with ``--writer github-actions --writer-id
41898282``: another login, the writer's login with another databaseId, the bot's REST
login, and a deleted account (``author: null``)."""


def untrusted_fields(draw: Any) -> dict[str, Any]:
    """``Node`` fields making a comment non-contributing (section 6): another author,
    an edit (``lastEditedAt`` or ``includesCreatedEdit``) or a delete (``deletedAt``)."""
    how = draw(st.sampled_from(("author", "edited", "created-edit", "deleted")))
    if how == "author":
        return {"author": draw(st.sampled_from(UNTRUSTED_AUTHORS))}
    if how == "edited":
        return {"last_edited_at": time_at(draw(st.integers(0, 5000)))}
    if how == "created-edit":
        return {"includes_created_edit": True}
    return {"deleted_at": time_at(draw(st.integers(0, 5000)))}


def untrusted_body(draw: Any, s: Scenario) -> str:
    """A body for an untrusted comment: prose, a forged record, a broken block, or a
    valid record that would change the verdict if it were trusted."""
    kind = draw(st.integers(0, 5))
    if kind == 0 or not s.attempts:
        return "LGTM, ship it"
    a = draw(st.sampled_from(s.attempts))
    if kind == 1:
        return render_body(a.build(None, "cancelled", "hijacked"))
    if kind == 2:
        return render_body(a.build("admission", "failed", "nope", seq=1, prev=a.id))
    if kind == 3:
        stranger = s.attempt(request_key="evil", post=False)
        s.attempts.remove(stranger)
        return render_body(stranger.record)
    if kind == 4:
        return block_body("{not json", version=draw(st.sampled_from(("1", "2", "01"))))
    return render_body(a.record) + "\n\n<!-- ghattempt:v1 -->\n"


@st.composite
def untrusted_additions(draw: Any, s: Scenario) -> int:
    """Add untrusted comments anywhere in ``s`` (top-level, as replies to any root, and
    replies of any author under an untrusted top-level comment); return how many nodes
    were added. Node ids and ``createdAt`` are drawn, so they fall anywhere in order."""
    added = 0
    serial = draw(st.integers(0, 10**6))

    def fields() -> dict[str, Any]:
        nonlocal serial
        serial += 1
        out = untrusted_fields(draw)
        out["id"] = f"DC_kwDOEvil{serial:07d}"
        out["created_at"] = time_at(draw(st.integers(0, 5000)))
        return out

    for _ in range(draw(st.integers(1, 4))):
        roots = s.fixture.roots
        if roots and draw(st.booleans()):
            root = draw(st.sampled_from(roots))
            s.fixture.reply(root, untrusted_body(draw, s), **fields())
            added += 1
            continue
        top = s.fixture.root(untrusted_body(draw, s), **fields())
        added += 1
        for _ in range(draw(st.integers(0, 2))):
            # Under an untrusted top-level comment even the writer's valid records are
            # ignored, with any author.
            extra: dict[str, Any] = {"id": f"DC_kwDOEvil{serial:07d}r{added}",
                                     "created_at": time_at(draw(st.integers(0, 5000)))}
            if draw(st.booleans()):
                extra.update(untrusted_fields(draw))
            body = (render_body(s.attempts[0].build(None, "cancelled", "under a stranger"))
                    if s.attempts else "+1")
            s.fixture.reply(top, body, **extra)
            added += 1
    s.fixture.roots.sort(key=lambda n: (n.created_at, n.id))
    return added


def record_nodes(s: Scenario) -> list[Node | None]:
    """Every comment holding a contributing record (None stands for the journal body)."""
    trusted = [n for n in s.fixture.roots
               if n.author == ACTIONS_BOT and n.last_edited_at is None
               and not n.includes_created_edit and n.deleted_at is None
               and "<!-- ghattempt:v1 -->" in n.body]
    replies = [r for n in trusted for r in n.replies
               if r.author == ACTIONS_BOT and r.last_edited_at is None
               and not r.includes_created_edit and r.deleted_at is None
               and "<!-- ghattempt:v1 -->" in r.body]
    return [None, *trusted, *replies]


