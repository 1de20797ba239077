"""The narrow interface between the webhook server and the journal store.

The webhook server decides *what* a GitHub event means for the journal (which intent,
which generation, which phase result) and hands that decision to a :class:`JournalSink`
as one typed request. The sink (the business attempt store, wired in by the deployment)
decides *whether* it may be written: it enters the writer scope, captures and replays
the journal with the core, and appends or refuses. The server never writes to GitHub
Discussions itself.

Every request carries ``key``, a deterministic idempotency key (journal-v1 section 3
*key* shape) derived from the delivery or event identity, and ``writer``, the record's
writer (journal-v1 section 4, ``{"kind":"app","app_id":..,"delivery":..}``). A sink
MUST treat a second call with a key it has already applied for that intent as a no-op
and answer :attr:`Outcome.ALREADY_APPLIED` (the idempotency note: one key per logical
mutation, reused for every retry). The server relies on this: it processes a delivery
at least once and may repeat a call after a crash.

Errors a sink raises:

- :class:`SinkUnavailable`: a transient failure (GitHub unreachable, rate limited,
  writer scope held by another writer). The server retries the whole delivery later
  with the same keys.
- any other exception: a permanent failure. The server stops retrying that delivery
  and keeps it, with the error, in the inbox for an operator.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from ghattempt.errors import Fault, GhattemptError

__all__ = [
    "CancelAttempt",
    "DeliveryWriter",
    "GenerationRef",
    "IntentRef",
    "JournalSink",
    "OpenIntent",
    "Outcome",
    "PhaseResult",
    "PhaseStatus",
    "SinkRequest",
    "SinkResult",
    "SinkUnavailable",
    "SupersedeAndAdmit",
    "TamperingReport",
]

PhaseStatus = Literal["started", "waiting", "succeeded", "failed", "cancelled", "unknown"]
"""Phase statuses the server can report (journal-v1 section 4, phase events)."""


@dataclass(frozen=True, slots=True)
class IntentRef:
    """One intent: a pull request into one base branch of one repository (spec section 1).

    Attributes:
        repository_id: the repository's GraphQL node id (opaque; stable across renames).
        repository_name: ``owner/name``, informational only.
        pull_request: the pull request number (>= 1).
        base_ref: the base branch name, without ``refs/heads/``.
    """

    repository_id: str
    repository_name: str
    pull_request: int
    base_ref: str


@dataclass(frozen=True, slots=True)
class GenerationRef:
    """What the webhook payload tells about a generation (ADR 0006).

    The sink completes the generation (tree, configuration blob and digest) from GitHub
    before it admits an attempt; the payload does not carry them.

    Attributes:
        head_sha: the pull request's head commit (40 or 64 lowercase hex digits).
        base_ref: the base branch name.
        base_sha: the base branch commit the pull request was observed against.
    """

    head_sha: str
    base_ref: str
    base_sha: str


@dataclass(frozen=True, slots=True)
class DeliveryWriter:
    """The writer of every record made for one delivery (journal-v1 section 4): the
    request's side of the core's :class:`ghattempt.core.AppWriter` (the record's wire form),
    which the store sink builds from it. ``AppWriter`` here is its older name, kept as an
    alias.

    Attributes:
        app_id: the GitHub App id (>= 1).
        delivery: the ``X-GitHub-Delivery`` GUID of the delivery being processed.
    """

    app_id: int
    delivery: str

    def as_record(self) -> dict[str, object]:
        """The writer object as it appears in a record: ``{"kind":"app",...}``."""
        return {"kind": "app", "app_id": self.app_id, "delivery": self.delivery}


AppWriter = DeliveryWriter
"""The older name of :class:`DeliveryWriter`."""


@dataclass(frozen=True, slots=True)
class OpenIntent:
    """Ensure the intent's journal exists and admit an attempt for a generation.

    Sent for ``pull_request`` ``opened`` and ``reopened``. The sink follows ADR-038's
    admission table for the request key the repository's configuration renders for the
    intent (``attempt.request_key``, docs/configuration.md; the sink reads the
    configuration, the router does not): when a blocking attempt for that key already
    exists it admits nothing and answers :attr:`Outcome.ALREADY_APPLIED` (the same
    generation) or :attr:`Outcome.REFUSED` with the reason.
    """

    key: str
    installation_id: int | None
    writer: DeliveryWriter
    intent: IntentRef
    generation: GenerationRef
    opened_at: str | None = None
    """The payload's ``pull_request.created_at`` (GitHub's DateTime): the category scan
    for a first journal stops before it (docs/store.md, "Finding a journal"); None reads
    the whole category."""


@dataclass(frozen=True, slots=True)
class SupersedeAndAdmit:
    """Supersede the current attempt of one intent, then admit a new generation.

    Sent for ``pull_request`` ``synchronize`` (``superseded == admit``, new head) and for
    ``edited`` with a changed base (``superseded`` is the old base's intent, ``admit``
    the new one). ``reason`` goes into the ``superseded`` event. The sink derives the
    keys of the two records it writes from ``key``.
    """

    key: str
    installation_id: int | None
    writer: DeliveryWriter
    superseded: IntentRef
    reason: str
    admit: IntentRef
    generation: GenerationRef


@dataclass(frozen=True, slots=True)
class PhaseResult:
    """Record a phase result on the current attempt of ``intent``.

    ``head_sha`` fences the write: the sink records nothing (answers
    :attr:`Outcome.REFUSED`) when the current attempt's generation is not at that head,
    so a run for an old head cannot touch a newer generation. ``reason`` is ``None``
    for ``started`` and ``succeeded`` and required otherwise (spec section 4).

    ``phase`` is the server mapping's phase, or ``None`` when it maps nothing; the
    workflow fields name the run or job so that a sink can apply the consumer
    configuration's mapping (``[[app.jobs]]``) first and this phase as the fallback.

    Attributes:
        run_id: the workflow run id (``None`` for a merge).
        workflow_name: the workflow's name; ``workflow_path`` its file
            (``.github/workflows/x.yml``) when the payload names it (runs do, jobs don't).
        job_name: the job's name for a ``workflow_job`` result, else ``None``.
    """

    key: str
    installation_id: int | None
    writer: DeliveryWriter
    intent: IntentRef
    head_sha: str
    phase: str | None
    status: PhaseStatus
    reason: str | None
    run_id: int | None = None
    workflow_name: str | None = None
    workflow_path: str | None = None
    job_name: str | None = None


@dataclass(frozen=True, slots=True)
class CancelAttempt:
    """Cancel the current attempt of ``intent`` (attempt-level ``cancelled`` event)."""

    key: str
    installation_id: int | None
    writer: DeliveryWriter
    intent: IntentRef
    head_sha: str
    reason: str


@dataclass(frozen=True, slots=True)
class TamperingReport:
    """A journal or one of its records was edited or deleted on GitHub.

    The sink captures the journal, reads it with the reader (the verdict), and creates
    a failing check run on the pull request's head naming the verdict.

    Attributes:
        change: ``"comment_edited"``, ``"comment_deleted"`` or ``"journal_edited"``.
        discussion_id: the journal Discussion's node id.
        discussion_number: its number in the repository.
        comment_id: the edited or deleted comment's node id (``None`` for the journal).
        actor: the login of the account that made the change.
        previous_body: the body before the edit (``changes.body.from``), when given:
            for an edited journal it is the only place the intent record still is.
    """

    key: str
    installation_id: int | None
    writer: DeliveryWriter
    repository_id: str
    repository_name: str
    discussion_id: str
    discussion_number: int
    comment_id: str | None
    change: Literal["comment_edited", "comment_deleted", "journal_edited"]
    actor: str
    previous_body: str | None = None


SinkRequest = OpenIntent | SupersedeAndAdmit | PhaseResult | CancelAttempt | TamperingReport
"""Every request the server sends to a sink."""


class Outcome(enum.Enum):
    """What a sink did with one request."""

    APPLIED = "applied"
    """The records were written (or the check run created)."""
    ALREADY_APPLIED = "already-applied"
    """The key was applied before: nothing was written this time."""
    REFUSED = "refused"
    """Nothing was written because the journal does not allow it (e.g. a terminal or
    superseded attempt, a result for an older head); ``detail`` says why. Not retried."""
    NOT_YET = "not-yet"
    """Nothing was written because what the request needs is not in the journal yet (no
    journal, no attempt, no attempt at the request's head): GitHub does not deliver in
    order, so the delivery that brings it may still come. ``detail`` says what is
    missing. The worker tries the delivery again for a bounded time (the retry window,
    docs/app.md), then records it ``refused`` with this detail."""


@dataclass(frozen=True, slots=True)
class SinkResult:
    """A sink's answer to one request."""

    outcome: Outcome
    detail: str | None = None


class SinkUnavailable(GhattemptError):  # noqa: N818 - named for what the caller learns
    """A transient failure: retry the same request (same key) later.

    Attributes:
        retry_after: seconds the sink asks to wait, if it knows (rate limits).
    """

    fault = Fault.GITHUB_UNAVAILABLE

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@runtime_checkable
class JournalSink(Protocol):
    """What the webhook server needs from the journal store.

    Each method is synchronous, may block on GitHub, and must be idempotent by the
    request's ``key`` (module docstring). The server calls it from several worker
    threads at once (``GHATTEMPT_APP_WORKERS``), never with two requests of one lane at
    the same time (:mod:`ghattempt.app.lanes`): an implementation must be thread-safe.
    Raises :class:`SinkUnavailable` for transient failures.
    """

    def open_intent(self, request: OpenIntent) -> SinkResult:
        """Ensure the journal of ``request.intent`` and admit an attempt."""
        ...

    def supersede_and_admit(self, request: SupersedeAndAdmit) -> SinkResult:
        """Supersede the current attempt and admit the new generation."""
        ...

    def record_phase(self, request: PhaseResult) -> SinkResult:
        """Append one phase result to the current attempt."""
        ...

    def cancel(self, request: CancelAttempt) -> SinkResult:
        """Cancel the current attempt."""
        ...

    def report_tampering(self, request: TamperingReport) -> SinkResult:
        """Capture and read the journal, then create a failing check run."""
        ...
