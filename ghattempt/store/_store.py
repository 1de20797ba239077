"""BusinessAttemptStore: one journal per intent in GitHub Discussions, written under an
exclusive writer scope by the writer protocol (architecture notes; ADR 0006; ADR-038).

Theory of operation
-------------------
The store orchestrates; every rule of the wire contract is the core's. A write goes:

1. enter the writer scope (the named adapter; with a :class:`RefLease` the lease ref is
   read in the same GraphQL request as the journal's first page), ``assert_owner()`` at
   admission;
2. capture the journal and replay it with the core reader; an invalid journal fails
   closed (:class:`JournalInvalidError`);
3. build the record once (``seq``, ``prev``, ``key``, ``at``); the core's
   ``check_event``/``check_attempt`` refuse what the reader would refuse;
4. ``assert_owner()`` immediately before the mutation (``owner.mutation()``);
5. ``addDiscussionComment``; on :class:`AmbiguousOutcome` capture again and read back:
   the key with the same digest means it landed; the key with another digest is
   refused; absent, still owner and the same head: the same bytes are sent again.
   A new key is never made for the same operation.

After a confirmed write the session adds the comment to its captured pages and reads
them again (``_pages``), instead of capturing again: within a held scope nobody else
writes.

Discussions cannot refuse a stale write. The lease prevents one; the reader detects one
that slips through (a ``fork``) and fails closed.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from ..core import (
    Attempt,
    AttemptState,
    Event,
    Generation,
    Intent,
    JournalInvalid,
    JournalState,
    Material,
    Verdict,
    Writer,
    build_attempt,
    build_intent,
    check_attempt,
    check_event,
    find_blocking,
    find_history,
    next_event,
    parse_body,
    read_journal,
    render_body,
)
from ..exclusive import (
    ExclusiveAdapter,
    LeaseCorrupt,
    LeaseRecord,
    Owner,
    RefLease,
    RefSnapshot,
    Scope,
)
from ..exclusive._github import GitHubRefBackend
from ..github import (
    AmbiguousOutcome,
    Comment,
    DiscussionSummary,
    GitHubProvider,
    RateLimited,
    ReadLagExceeded,
    Ref,
)
from ._errors import (
    AuthorizationReused,
    Blocked,
    ConflictingKey,
    GitHubAnomaly,
    IllegalTransition,
    JournalInvalidError,
    MaterialRefused,
    RefusedByRules,
    RepositoryMismatch,
    StoreInputError,
    TerminalAttempt,
)
from ._pages import add_reply, add_root

__all__ = [
    "AppendResult",
    "BusinessAttemptStore",
    "Journal",
    "MaterialCheck",
    "Session",
    "Successor",
    "default_journal_title",
]

log = logging.getLogger("ghattempt.store")

MAX_SENDS = 3
"""How often one record's bytes are sent at most (the first send included)."""

MAX_RATE_WAITS = 3
"""How often one write waits out a rate limit (GitHub did not execute it) before giving up."""

MAX_RATE_WAIT = 120.0
"""The longest ``retry-after`` (seconds) a write waits out; a longer one is raised."""

_WRITE_PERMISSIONS = frozenset({"WRITE", "MAINTAIN", "ADMIN"})

# Failure codes a candidate record can cause, by the error class the store raises.
_TERMINAL = frozenset({"rewritten_terminal"})
_MATERIAL = frozenset({"material_rejected", "material_conflict"})
_TRANSITION = frozenset({"illegal_transition", "undeclared_phase", "out_of_order_phase",
                         "missing_predecessor", "blocked_successor", "fork",
                         "missing_predecessor_attempt", "identity_drift"})


def utc(seconds: float) -> str:
    """POSIX seconds -> ``YYYY-MM-DDTHH:MM:SSZ`` (spec section 3, *time*)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(math.floor(seconds)))


def _refusal(code: str, what: str) -> RefusedByRules:
    if code in _TERMINAL:
        return TerminalAttempt(code, f"{what}: the attempt is terminal; terminal results are "
                               "never rewritten, recovery opens a successor")
    if code in _MATERIAL:
        return MaterialRefused(code, f"{what}: a material would be refused by the reader")
    if code == "authorization_reused":
        return AuthorizationReused(code, f"{what}: the authorization is already recorded")
    if code == "conflicting_duplicate":
        return RefusedByRules(code, f"{what}: the key already holds another record")
    if code in _TRANSITION:
        return IllegalTransition(code, f"{what}: the replay rules refuse it")
    return RefusedByRules(code, f"{what}: the reader would refuse the journal")


class MaterialCheck(Protocol):
    """What the store needs from a material verifier (``ghattempt.materials``)."""

    def verify(self, material: Material) -> None:
        """Fetch the material's bytes and check count and digest; raise on a mismatch."""
        ...


@dataclass(frozen=True, slots=True)
class Journal:
    """The journal of one intent: its intent record and its Discussion.

    ``number`` is the Discussion number in the repository, ``discussion_id`` its node id.
    """

    intent: Intent
    discussion_id: str
    number: int

    @property
    def id(self) -> str:
        """The intent id (the intent record's digest)."""
        return self.intent.digest

    @property
    def scope(self) -> Scope:
        """The writer scope: (repository node id, intent id)."""
        return Scope(self.intent.repository_id, self.intent.digest)


@dataclass(frozen=True, slots=True)
class AppendResult:
    """The outcome of an append.

    ``event`` is the record now in the journal; ``replayed`` is True when the key already
    held an identical operation (nothing was written); ``comment_id`` the node id holding
    it when known; ``sends`` how often the bytes were sent (0 for a replay).
    """

    event: Event
    replayed: bool
    comment_id: str | None
    sends: int


@dataclass(frozen=True, slots=True)
class Successor:
    """A successor attempt and the retained materials re-verified for it."""

    attempt: AttemptState
    materials: tuple[Material, ...]


class BusinessAttemptStore:
    """The business attempt store of one repository (ADR 0006 ``businessAttemptStore``).

    Args:
        provider: the authenticated GitHub provider.
        exclusive: the writer-scope adapter; REQUIRED, there is no default lock. Use
            :class:`~ghattempt.exclusive.RefLease` over
            :class:`~ghattempt.exclusive.GitHubRefBackend` in production.
        repository: ``owner/name`` as GitHub names it now.
        repository_id: the repository's GraphQL node id (its identity; names change).
        category: the discussion category's slug (or name) holding journals.
        writer_login: the GraphQL login whose unedited comments contribute (the reader's
            ``--writer``; ``github-actions`` for the Actions token, an App's bare slug).
        writer: the writer identity put into every record.
        reader: the reader digest put into every record (``ghattempt.readers``).
        writer_id: the author's ``databaseId`` (``--writer-id``), when known.
        server_url: the server material URLs must start with (``--server-url``).
        max_records, max_attempts: the reader's history bounds.
        observer: called with a step name at each step of a write (``captured``,
            ``acquired``, ``built``, ``sending``, ``sent``, ``ambiguous``, ``read-back``,
            ``rate-limited``, ``released``); for logging and tests.
        journal_title: the title of a new journal, from its intent (informational: the
            intent record in the body identifies a journal; ``journal.title`` of
            docs/configuration.md renders one). Default: :func:`default_journal_title`.
            An edited journal bearing this title or the default one fails closed.

    Raises:
        StoreInputError: a value is malformed, or the provider's timeout exceeds the
            lease's ``request_timeout`` (the lease margin would not cover a request).
    """

    def __init__(self, provider: GitHubProvider, *, exclusive: ExclusiveAdapter,
                 repository: str, repository_id: str, category: str, writer_login: str,
                 writer: Writer, reader: str, writer_id: int | None = None,
                 server_url: str | None = None, max_records: int = 1000,
                 max_attempts: int = 100,
                 observer: Callable[[str], None] | None = None,
                 journal_title: Callable[[Intent], str] | None = None) -> None:
        if exclusive is None:
            raise StoreInputError("the store has no default lock: pass exclusive=<adapter> "
                                  "(RefLease in production)")
        owner, sep, name = repository.partition("/")
        if not sep or not owner or not name or "/" in name:
            raise StoreInputError(f"repository must be owner/name, got {repository!r}")
        if isinstance(exclusive, RefLease):
            limit = exclusive.settings.request_timeout
            if provider.config.timeout > limit:
                raise StoreInputError(
                    f"the provider timeout ({provider.config.timeout:g} s) exceeds the lease's "
                    f"request_timeout ({limit:g} s): a mutation could outlive the lease "
                    "margin; lower the provider timeout or raise request_timeout")
        self._provider = provider
        self._exclusive = exclusive
        self._owner_name, self._repo_name = owner, name
        self._repository_id = repository_id
        self._category = category
        self._category_id: str | None = None
        self._writer_login = writer_login
        self._writer_id = writer_id
        self._writer = writer
        self._reader = reader
        self._server_url = server_url
        self._max_records = max_records
        self._max_attempts = max_attempts
        self._observer = observer
        self._journal_title = journal_title or default_journal_title

    def __repr__(self) -> str:
        return f"BusinessAttemptStore({self._owner_name}/{self._repo_name})"

    # -- plumbing ---------------------------------------------------------------------

    @property
    def provider(self) -> GitHubProvider:
        return self._provider

    @property
    def repository_id(self) -> str:
        return self._repository_id

    @property
    def writer(self) -> Writer:
        return self._writer

    def _step(self, name: str) -> None:
        if self._observer is not None:
            self._observer(name)

    def _now(self) -> str:
        """GitHub's clock at the last answer (a lower bound of its time now)."""
        t = self._provider.last_server_time
        return utc(t if t is not None else time.time())

    def read(self, pages: object, request_key: str | None = None) -> Verdict:
        """Read captured pages with this store's reader arguments (spec sections 5-10)."""
        return read_journal(pages, writer=self._writer_login, repository_id=self._repository_id,
                            writer_id=self._writer_id, request_key=request_key,
                            server_url=self._server_url, max_records=self._max_records,
                            max_attempts=self._max_attempts, reader=self._reader)

    def _journal_state(self, pages: list[dict[str, Any]]) -> JournalState:
        verdict = self.read(pages)
        if verdict.journal is None:
            raise JournalInvalidError(verdict.reason or "invalid", verdict.detail)
        return verdict.journal

    # -- initialisation ---------------------------------------------------------------

    def initialise(self) -> None:
        """Check the repository and the category; one ``RepositoryLookup`` request.

        Raises:
            RepositoryMismatch: the repository's node id is not ``repository_id``.
            GitHubAnomaly: Discussions are off, the category is missing, or GitHub says
                the token cannot write (``viewerPermission`` below WRITE).
            NotFound: the repository is not visible to these credentials.
        """
        repo = self._provider.repository(self._owner_name, self._repo_name)
        if repo.id != self._repository_id:
            raise RepositoryMismatch(repo.name_with_owner, self._repository_id, repo.id)
        if not repo.has_discussions:
            raise GitHubAnomaly(f"{repo.name_with_owner} has Discussions turned off; enable "
                                "them and create the journal category")
        perm = repo.viewer_permission
        # GitHub reports null for a GitHub App: its write access shows at the first write.
        if perm is not None and perm not in _WRITE_PERMISSIONS:
            raise GitHubAnomaly(f"the token has {perm} access to {repo.name_with_owner}; "
                                "writing and locking journals needs WRITE or more")
        for cat in repo.categories:
            if cat.slug == self._category or cat.name.casefold() == self._category.casefold():
                self._category_id = cat.id
                break
        else:
            known = ", ".join(c.slug for c in repo.categories) or "none"
            raise GitHubAnomaly(f"{repo.name_with_owner} has no discussion category "
                                f"{self._category!r} (slugs: {known}); create it first")

    # -- journals ---------------------------------------------------------------------

    def intent(self, pull_request: int, base_ref: str) -> Intent:
        """The intent record of (this repository, ``pull_request``, ``base_ref``).

        Raises:
            StoreInputError: a value has the wrong shape.
        """
        try:
            return build_intent(repository_id=self._repository_id,
                                repository_name=f"{self._owner_name}/{self._repo_name}",
                                pull_request=pull_request, base_ref=base_ref)
        except ValueError as exc:
            raise StoreInputError(f"intent: {exc}") from None

    def _matches(self, d: DiscussionSummary, intent: Intent) -> bool:
        if d.edited or d.author_login != self._writer_login:
            return False
        if self._writer_id is not None and d.author_id not in (None, self._writer_id):
            return False
        try:
            record = parse_body(d.body, "intent")
        except JournalInvalid:
            return False
        return record is not None and record.digest == intent.digest

    def find_journal(self, intent: Intent) -> Journal | None:
        """The journal of ``intent``: the oldest discussion of the category whose unedited
        body, by the writer, holds exactly this intent record. Never uses search.

        Cost: one request per 100 discussions of the category (oldest first).
        """
        for d in self._provider.category_discussions(self._owner_name, self._repo_name,
                                                     self._require_category()):
            if self._matches(d, intent):
                if not d.locked:
                    self._lock(d.id)
                return Journal(intent, d.id, d.number)
            if self._tampered(d, intent):
                raise JournalInvalidError(
                    "untrusted_journal", f"discussion #{d.number}, the journal of this intent, "
                    "has an edited body; a new journal would lose its history")
        return None

    def _tampered(self, d: DiscussionSummary, intent: Intent) -> bool:
        """Whether ``d`` is this intent's journal with an edited body: by the writer, edited,
        and still holding the intent record or bearing the journal's title. Used only to
        fail closed (the title is never trusted to accept a journal)."""
        if not d.edited or d.author_login != self._writer_login:
            return False
        if self._writer_id is not None and d.author_id not in (None, self._writer_id):
            return False
        if d.title in (self._journal_title(intent), default_journal_title(intent)):
            return True
        try:
            record = parse_body(d.body, "intent")
        except JournalInvalid:
            return False
        return record is not None and record.digest == intent.digest

    def _lock(self, discussion_id: str) -> None:
        """``lockLockable``; locking is idempotent, so an unclear outcome is sent again."""
        for attempt in range(MAX_SENDS):
            try:
                self._provider.lock(discussion_id)
                return
            except AmbiguousOutcome:
                if attempt == MAX_SENDS - 1:
                    raise

    def _require_category(self) -> str:
        if self._category_id is None:
            self.initialise()
        assert self._category_id is not None
        return self._category_id

    def open_journal(self, pull_request: int, base_ref: str) -> Journal:
        """Find or create (then lock) the journal of one intent.

        Creation runs inside the intent's writer scope, after finding again, so two
        writers that respect the scope never create two journals. A ``createDiscussion``
        whose outcome is unknown is reconciled by finding again (with the provider's
        read-lag backoff) before the same title and body are sent again.

        Raises:
            GitHubAnomaly: the outcome stayed unknown after ``MAX_SENDS`` sends.
        """
        intent = self.intent(pull_request, base_ref)
        found = self.find_journal(intent)
        if found is not None:
            return found
        journal = Journal(intent, "", 0)
        with self._exclusive.hold(journal.scope) as owner:
            owner.assert_owner(mutating=False)
            found = self.find_journal(intent)
            if found is not None:
                return found
            title = self._journal_title(intent)
            if not isinstance(title, str) or not title.strip():
                raise StoreInputError(f"the journal title of {intent.digest} is empty; "
                                      "pass a journal_title that renders some text")
            body = render_body(intent)
            for _ in range(MAX_SENDS):
                try:
                    with owner.mutation():
                        created = self._provider.create_discussion(
                            self._repository_id, self._require_category(), title, body)
                except AmbiguousOutcome:
                    self._step("ambiguous")
                    found = self._find_after_lag(intent)
                    if found is not None:
                        return found
                    continue
                self._lock(created.id)
                return Journal(intent, created.id, created.number)
        raise GitHubAnomaly(f"could not learn whether the journal of #{pull_request} into "
                            f"{base_ref} was created after {MAX_SENDS} sends")

    def _find_after_lag(self, intent: Intent) -> Journal | None:
        policy = self._provider.config.retry
        for n in range(policy.lag_attempts):
            found = self.find_journal(intent)
            if found is not None:
                return found
            self._provider.config.sleep(min(policy.lag_cap, policy.lag_base * 2 ** n))
        return None

    # -- reading and sessions ---------------------------------------------------------

    def capture(self, journal: Journal, *,
                expect_comment_ids: Iterable[str] = ()) -> list[dict[str, Any]]:
        """Capture the journal (spec section 5): the reader's stdin as a list of pages."""
        return list(self._provider.capture(self._owner_name, self._repo_name, journal.number,
                                           expect_comment_ids=expect_comment_ids).pages)

    def verdict(self, journal: Journal, request_key: str | None = None) -> Verdict:
        """Capture and read the journal without entering the writer scope."""
        return self.read(self.capture(journal), request_key)

    @contextmanager
    def session(self, journal: Journal) -> Iterator[Session]:
        """Hold the journal's writer scope, capture and replay it; yield a :class:`Session`.

        With a :class:`RefLease` over a :class:`GitHubRefBackend` the lease ref is read
        in the capture's first request and handed to the lease. The capture is kept only
        when the lease was acquired by a compare-and-set from exactly the head read with
        it (then no writer held the scope in between); otherwise the journal is captured
        again under the lease.

        Raises:
            JournalInvalidError: the captured journal is invalid (fail closed).
            ScopeBusy, OwnershipLost, LeaseCorrupt: from the adapter.
        """
        adapter = self._exclusive
        scope = journal.scope
        backend = adapter.backend if isinstance(adapter, RefLease) else None
        if isinstance(adapter, RefLease) and isinstance(backend, GitHubRefBackend):
            name = scope.ref_name(adapter.settings.ref_prefix)

            def busy(ref: Ref | None, server_time: float | None) -> bool:
                # another writer holds the lease (or its release is still quiet): the
                # capture would be stale once we hold the scope, so stop paging
                if ref is None or ref.commit is None or server_time is None:
                    return False
                try:
                    record = LeaseRecord.from_message(ref.commit.message, ref=name, scope=scope)
                except LeaseCorrupt:
                    return False  # hold() reports it
                return server_time < record.expires_at

            # GitHub's clock before the capture is sent: a lower bound of the time of the
            # snapshot it returns (its own Date is stamped later, when GitHub answers)
            sent_after = self._provider.last_server_time
            result, ref, seen_at = self._provider.capture_with_ref(
                self._owner_name, self._repo_name, journal.number, name, stop_if=busy)
            message = ref.commit.message if ref is not None and ref.commit is not None else None
            observed = ref.target_oid if ref is not None else None
            snap = RefSnapshot(name, observed, message,
                               math.floor(seen_at if seen_at is not None else 0))
            self._step("captured")
            with adapter.hold(scope, observed=snap) as owner:
                self._step("acquired")
                if (result is not None
                        and backend.acquired_from(name, owner.holder) == observed
                        and _settled_before(ref, name, scope, sent_after)):
                    pages = list(result.pages)
                else:
                    # the lease was not taken from the head read with the journal
                    # (someone may have written in between), or the snapshot may be
                    # older than the last write the previous holder could still make
                    pages = self.capture(journal)
                    self._step("captured")
                owner.assert_owner(mutating=False)
                yield Session(self, journal, owner, pages)
        else:
            with adapter.hold(scope) as held:
                self._step("acquired")
                held.assert_owner(mutating=False)
                pages = self.capture(journal)
                self._step("captured")
                yield Session(self, journal, held, pages)
        self._step("released")

    # -- one-shot conveniences --------------------------------------------------------

    def append(self, journal: Journal, attempt_id: str, *, key: str, phase: str | None,
               status: str, reason: str | None = None,
               materials: Sequence[Material] = ()) -> AppendResult:
        """Enter the scope, append one event (:meth:`Session.append`), release."""
        with self.session(journal) as s:
            return s.append(attempt_id, key=key, phase=phase, status=status, reason=reason,
                            materials=materials)


class Session:
    """The journal while its writer scope is held: replayed state and the writes.

    Obtain one from :meth:`BusinessAttemptStore.session`; valid inside that block only.
    Not thread-safe.
    """

    def __init__(self, store: BusinessAttemptStore, journal: Journal, owner: Owner,
                 pages: list[dict[str, Any]]) -> None:
        self._store = store
        self._journal = journal
        self._owner = owner
        self._pages = pages
        self._state = store._journal_state(pages)
        if self._state.discussion_id != journal.discussion_id and journal.discussion_id:
            raise GitHubAnomaly(f"discussion #{journal.number} is now node "
                                f"{self._state.discussion_id}, not {journal.discussion_id}")
        if self._state.intent.digest != journal.intent.digest:
            raise JournalInvalidError("identity_drift", f"discussion #{journal.number} holds "
                                      f"intent {self._state.intent.digest}, not {journal.id}")

    # -- reading ----------------------------------------------------------------------

    @property
    def state(self) -> JournalState:
        """The replayed journal as of the last capture plus this session's writes."""
        return self._state

    @property
    def pages(self) -> list[dict[str, Any]]:
        """The captured pages (plus this session's writes)."""
        return self._pages

    @property
    def owner(self) -> Owner:
        return self._owner

    def attempt(self, attempt_id: str) -> AttemptState:
        """The attempt with this id.

        Raises:
            StoreInputError: the journal has no such attempt.
        """
        state = self._state.attempt(attempt_id)
        if state is None:
            raise StoreInputError(f"the journal of {self._journal.id} has no attempt "
                                  f"{attempt_id}")
        return state

    def find_blocking(self, request_key: str) -> AttemptState | None:
        """The attempt of ``request_key`` that blocks a fresh attempt (ADR-038 preflight)."""
        return find_blocking(self._state, request_key)

    def find_history(self, request_key: str) -> tuple[AttemptState, ...]:
        """Every attempt of ``request_key``, whatever its state (ADR-038 lookup)."""
        return find_history(self._state, request_key)

    def preflight(self, request_key: str, authorization: str | None = None) -> None:
        """ADR-038 admission checks, to run BEFORE an authorization is consumed.

        Raises:
            Blocked: a blocking attempt exists for the key.
            AuthorizationReused: an attempt of the journal recorded ``authorization``.
        """
        blocking = self.find_blocking(request_key)
        if blocking is not None:
            raise Blocked(request_key, blocking.id, blocking.status)
        if authorization is not None:
            for past in self._state.attempts:
                if past.attempt.authorization == authorization:
                    raise AuthorizationReused(
                        "authorization_reused", f"authorization {authorization} was recorded "
                        f"by attempt {past.id} ({past.status}); present a fresh one")

    # -- writing ----------------------------------------------------------------------

    def _write(self, body: str, reply_to: str | None,
               landed: Callable[[JournalState], bool]) -> tuple[Comment | None, int]:
        """Send ``body`` under the writer protocol; returns the comment (None when a
        read-back found it) and the number of sends. Refreshes the state."""
        store = self._store
        provider = store._provider
        sends = waits = 0
        while sends < MAX_SENDS:
            store._step("sending")
            sends += 1
            try:
                with self._owner.mutation():
                    comment = provider.add_comment(self._journal.discussion_id, body,
                                                   reply_to_id=reply_to)
            except RateLimited as exc:
                # GitHub refused it without executing (a definite refusal): wait as told,
                # then send the same bytes again; ownership is asserted again first
                sends -= 1
                waits += 1
                if waits > MAX_RATE_WAITS or exc.retry_after > MAX_RATE_WAIT:
                    raise
                store._step("rate-limited")
                provider.config.sleep(exc.retry_after)
                continue
            except AmbiguousOutcome:
                store._step("ambiguous")
            else:
                store._step("sent")
                return comment, sends
            try:
                pages = store.capture(self._journal)
            except ReadLagExceeded as exc:
                pages = [dict(p) for p in exc.pages]
            state = store._journal_state(pages)
            store._step("read-back")
            self._pages, self._state = pages, state
            if landed(state):
                return None, sends
        raise GitHubAnomaly(f"the outcome of a write stayed unknown after {MAX_SENDS} sends "
                            "of the same bytes; the writer scope was kept throughout. Capture "
                            "the journal again before anything else")

    def _refresh_with_reply(self, root_id: str, comment: Comment, body: str) -> None:
        store = self._store
        add_reply(self._pages, root_id, comment.id, body, comment.created_at,
                  store._writer_login, store._writer_id)
        self._state = store._journal_state(self._pages)

    def append(self, attempt_id: str, *, key: str, phase: str | None, status: str,
               reason: str | None = None, materials: Sequence[Material] = ()) -> AppendResult:
        """Append one event to an attempt (writer protocol steps 2-5).

        Idempotent by ``key``: the same key with the same content (phase, status, reason,
        materials) returns the existing record with ``replayed=True``.

        Raises:
            StoreInputError: unknown attempt, or a value of the wrong shape.
            ConflictingKey: the key holds a record with other content.
            TerminalAttempt, IllegalTransition, MaterialRefused: the core refuses it.
            OwnershipLost: the scope was lost; nothing more was sent.
            GitHubAnomaly: the outcome stayed unknown after ``MAX_SENDS`` sends.
            RateLimited: GitHub kept refusing for rate limits (waited out up to
                ``MAX_RATE_WAITS`` times, each at most ``MAX_RATE_WAIT`` seconds).
        """
        store = self._store
        state = self.attempt(attempt_id)
        mats = tuple(materials)
        existing = state.event_by_key(key)
        if existing is not None:
            if (existing.phase, existing.status, existing.reason, existing.materials) == (
                    phase, status, reason, mats):
                return AppendResult(existing, True, _first(state.event_nodes, existing.digest),
                                    0)
            raise ConflictingKey(key, existing.digest)
        try:
            event = next_event(state, key=key, phase=phase, status=status,
                               writer=store._writer, reader=store._reader, at=store._now(),
                               reason=reason, materials=mats)
        except ValueError as exc:
            raise StoreInputError(f"event: {exc}") from None
        failure = check_event(self._state, event)
        if failure is not None:
            raise _refusal(failure, f"{phase or 'attempt'} {status} on attempt {attempt_id}")
        store._step("built")
        body = render_body(event)
        root_id = state.root_ids[0]
        head = state.head_digest

        def landed(after: JournalState) -> bool:
            now = after.attempt(attempt_id)
            if now is None:
                raise JournalInvalidError("identity_drift", f"attempt {attempt_id} vanished")
            found = now.event_by_key(key)
            if found is not None:
                if found.digest != event.digest:
                    raise ConflictingKey(key, found.digest)
                return True
            if now.head_digest != head:
                raise RefusedByRules("head_moved", f"the head of attempt {attempt_id} moved "
                                     "while the write's outcome was unknown; not re-sending")
            self._owner.assert_owner(mutating=False)
            return False

        comment, sends = self._write(body, root_id, landed)
        if comment is not None:
            self._refresh_with_reply(root_id, comment, body)
        now_state = self.attempt(attempt_id)
        got = now_state.event_by_key(key)
        if got is None or got.digest != event.digest:  # pragma: no cover - checked above
            raise GitHubAnomaly(f"event {key} is not in the journal after writing it")
        return AppendResult(got, False, _first(now_state.event_nodes, got.digest), sends)

    def admit(self, *, request_key: str, generation: Generation, plan: Sequence[str],
              channel: str, expires_at: str, authorization: str | None = None,
              predecessor: str | None = None) -> AttemptState:
        """Admit an attempt: preflight, then create its root (ADR-038 order).

        ``predecessor`` defaults to the key's chain tip when the key has history (a
        fresh attempt after a non-blocking one succeeds it; two roots without a
        predecessor for one key would be a ``fork``).

        Raises:
            Blocked, AuthorizationReused: the preflight refuses it.
            StoreInputError: a value has the wrong shape.
            IllegalTransition, RefusedByRules: the core refuses the root.
        """
        self.preflight(request_key, authorization)
        if predecessor is None:
            tip = self._state.tip(request_key)
            predecessor = tip.id if tip is not None else None
        return self._create_root(request_key=request_key, generation=generation, plan=plan,
                                 channel=channel, expires_at=expires_at,
                                 authorization=authorization, predecessor=predecessor)

    def _create_root(self, *, request_key: str, generation: Generation, plan: Sequence[str],
                     channel: str, expires_at: str, authorization: str | None,
                     predecessor: str | None) -> AttemptState:
        store = self._store
        try:
            root: Attempt = build_attempt(
                intent=self._state.intent, request_key=request_key, generation=generation,
                plan=plan, channel=channel, expires_at=expires_at, writer=store._writer,
                reader=store._reader, at=store._now(), predecessor=predecessor,
                authorization=authorization)
        except ValueError as exc:
            raise StoreInputError(f"attempt: {exc}") from None
        failure = check_attempt(self._state, root)
        if failure is not None:
            raise _refusal(failure, f"attempt for {request_key}")
        store._step("built")
        body = render_body(root)
        before = {a.id for a in self._state.attempts}

        def landed(after: JournalState) -> bool:
            if after.attempt(root.digest) is not None:
                return True
            for a in after.attempts:
                if (a.id not in before and a.request_key == request_key
                        and a.predecessor == predecessor):
                    raise RefusedByRules("fork", f"another attempt {a.id} for {request_key} "
                                         "appeared while the write's outcome was unknown")
            self._owner.assert_owner(mutating=False)
            return False

        comment, _ = self._write(body, None, landed)
        if comment is not None:
            add_root(self._pages, comment.id, body, comment.created_at, store._writer_login,
                     store._writer_id)
            self._state = store._journal_state(self._pages)
        return self.attempt(root.digest)

    def successor(self, predecessor: str, *, generation: Generation, plan: Sequence[str],
                  channel: str, expires_at: str, authorization: str | None = None,
                  retained: Sequence[Material] = (),
                  verifier: MaterialCheck | None = None) -> Successor:
        """Open a successor of a non-blocking attempt (recovery; ADR 0006).

        The successor inherits no success: it starts pending. Each ``retained`` material
        must be one the journal already holds (same id, bytes and digest) and is verified
        again with ``verifier`` (bytes fetched, count and digest checked) before the
        root is written; the verified materials are returned for citing in fresh events.

        Raises:
            Blocked: the predecessor still blocks.
            MaterialRefused: a retained material is unknown or does not verify.
            StoreInputError: retained materials without a verifier.
        """
        pred = self.attempt(predecessor)
        if pred.blocks:
            raise Blocked(pred.request_key, pred.id, pred.status)
        if retained and verifier is None:
            raise StoreInputError("retained materials need a verifier: recovery re-qualifies "
                                  "them before reuse")
        verified: list[Material] = []
        for m in retained:
            known = self._state.materials.get(m.id)
            if known is None or known != m:
                raise MaterialRefused("material_conflict", f"material {m.id} is not the one "
                                      "the journal holds under that id")
            assert verifier is not None
            try:
                verifier.verify(m)
            except MaterialRefused:
                raise
            except Exception as exc:
                raise MaterialRefused("material_unverified",
                                      f"material {m.id} did not verify: {exc}") from None
            verified.append(m)
        self.preflight(pred.request_key, authorization)
        state = self._create_root(request_key=pred.request_key, generation=generation,
                                  plan=plan, channel=channel, expires_at=expires_at,
                                  authorization=authorization, predecessor=pred.id)
        return Successor(state, tuple(verified))

    def supersede(self, attempt_id: str, *, generation: Generation, reason: str,
                  expires_at: str, plan: Sequence[str] | None = None,
                  channel: str | None = None, authorization: str | None = None,
                  key: str | None = None) -> AttemptState:
        """Supersede an attempt because its generation changed, and admit the next.

        Appends the attempt-level ``superseded`` event (key ``key`` or
        ``supersede:<new generation id>``), then admits an attempt for the new
        generation as its successor. Earlier records stay as they are.

        Raises:
            StoreInputError: the generation is unchanged.
            TerminalAttempt, IllegalTransition: the attempt cannot be superseded.
        """
        state = self.attempt(attempt_id)
        if generation.id == state.generation_id:
            raise StoreInputError("the generation is unchanged (same source commit, tree, "
                                  "config and base): nothing to supersede")
        self.append(attempt_id, key=key or f"supersede:{generation.id}", phase=None,
                    status="superseded", reason=reason)
        return self._create_root(
            request_key=state.request_key, generation=generation,
            plan=plan if plan is not None else state.attempt.plan,
            channel=channel if channel is not None else state.attempt.channel,
            expires_at=expires_at, authorization=authorization, predecessor=state.id)

    def expire(self, attempt_id: str, *, expected_head: str, reason: str,
               key: str = "expire") -> AppendResult:
        """Expire a pending attempt (ADR-038 ``expire_prepared``).

        Only a ``pending`` attempt, only at or after its ``expires_at`` by GitHub's clock,
        only at exactly ``expected_head``; no provider contact besides the capture and
        the one write.

        Raises:
            RefusedByRules: ``not_pending``, ``head_moved`` or ``not_expired``.
        """
        state = self.attempt(attempt_id)
        if state.status != "pending":
            raise RefusedByRules("not_pending", f"attempt {attempt_id} is {state.status}; "
                                 "only a pending attempt expires")
        if state.head_digest != expected_head:
            raise RefusedByRules("head_moved", f"attempt {attempt_id} head is "
                                 f"{state.head_digest}, not the expected {expected_head}")
        now = self._store._now()
        if now < state.attempt.expires_at:
            raise RefusedByRules("not_expired", f"attempt {attempt_id} expires at "
                                 f"{state.attempt.expires_at}; GitHub's clock says {now}")
        return self.append(attempt_id, key=key, phase=None, status="expired", reason=reason)

    def rollback(self, attempt_id: str, *, key: str, status: str,
                 reason: str | None = None) -> AppendResult:
        """Roll back a succeeded attempt: ``started``, then ``succeeded`` or ``failed``."""
        return self.append(attempt_id, key=key, phase="rollback", status=status,
                           reason=reason)


def _settled_before(ref: Ref | None, name: str, scope: Scope, sent_after: float | None) -> bool:
    """True when every journal write of the lease holder that ``ref`` names had landed
    before a capture sent once GitHub's clock showed ``sent_after``.

    Taking the lease from the head read with the journal proves nobody moved the lease
    in between, not that the journal snapshot is recent: GitHub stamps ``Date`` when it
    answers, so a snapshot can predate the ``Date`` that showed the lease expired
    (``expires_at``), and the previous holder may write until ``expires_at`` less the
    clock skew (docs/exclusion.md, "Why the margin is enough"). A ``Date`` received
    before the capture was sent that is at or past ``expires_at`` proves the snapshot
    came after that holder's last possible write. A missing ref: nobody ever held the
    scope.
    """
    if ref is None:
        return True
    if ref.commit is None or sent_after is None:
        return False
    try:
        record = LeaseRecord.from_message(ref.commit.message, ref=name, scope=scope)
    except LeaseCorrupt:
        return False
    return math.floor(sent_after) >= record.expires_at


def _first(nodes: Any, digest: str) -> str | None:
    ids = nodes.get(digest) if nodes else None
    return ids[0] if ids else None


def default_journal_title(intent: Intent) -> str:
    """The default title of a new journal (informational):
    ``Release journal: #7 into main [12 hex of the intent id]``."""
    return (f"Release journal: #{intent.pull_request} into {intent.base_ref} "
            f"[{intent.digest[7:19]}]")
