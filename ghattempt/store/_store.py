"""BusinessAttemptStore: one journal per intent in GitHub Discussions, written under an
exclusive writer scope by the writer protocol (docs/store.md; ADR 0006; ADR-038;
journal-v1 revision 2).

Theory of operation
-------------------
The store orchestrates; every rule of the wire contract is the core's, and the two
protocols with retries are the pure machines of ``_protocol`` (the append of one record;
the capture that must meet the witness) driven by the thin loops here. A write goes:

1. learn who the token is on the configured host (``initialise``: ``viewer`` in the
   repository lookup) and refuse a configured writer that is not that identity
   (:class:`WrongWriter`), before anything is written;
2. find the journal in one read: the scope's lease ref names it (``journal``); the
   category is scanned only when the scope has no lease ref naming a journal yet, and
   then by repository node id, pull request and base branch (a renamed repository keeps
   its journals, whose own intent record is used from then on);
3. enter the writer scope (the lease read in step 2 is the first read of the
   acquisition), capture the journal with its lease member and replay it with the core
   reader. The capture must hold every record the lease's witness names: it is read
   again a few times (comments lag refs), then the store fails closed
   (:class:`WitnessNotMet`). A lease naming a journal that is gone, transferred or moved
   fails closed (:class:`JournalMissing`): no fresh journal is ever opened over it;
4. build the record once; the core's ``check_event``/``check_attempt`` refuse what the
   reader would refuse;
5. ``assert_owner()`` immediately before the mutation (``owner.mutation()``);
6. ``addDiscussionComment``; a lost answer is read back and judged by the core's
   ``read_back``; absent, the same bytes are sent again. A new key is never made;
7. the confirmed write's witness (the journal's distinct record count and the digest
   written) is carried into the lease by its next write (a renewal or the release).

After a confirmed write the session extends its capture with the comment (the core's
``Capture.with_comment``/``with_reply``) and reads it again, instead of capturing again:
within a held scope nobody else writes.
Journals are never locked by the store: GitHub refuses comments by Apps and the Actions
bot in locked conversations, so a journal a lock bot locked is refused before any write
(:class:`JournalLocked`), as is a write past ``max_comments`` (:class:`JournalFull`) and
a journal holding records whose lease ref was deleted (:class:`WitnessMissing`: its head
cannot be proven; a person restores the ref with :meth:`BusinessAttemptStore.restore_lease`).

Discussions cannot refuse a stale write. The lease prevents one; the reader detects one
that slips through (a ``fork``) and fails closed; the witness makes a deleted or edited
newest record fail closed instead of reading as a shorter history.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core import (
    Attempt,
    AttemptState,
    Capture,
    Event,
    Generation,
    Intent,
    JournalInvalid,
    JournalState,
    Material,
    Verdict,
    Witness,
    Writer,
    build_attempt,
    build_intent,
    build_lease,
    check_attempt,
    check_event,
    find_blocking,
    find_history,
    lease_ref_name,
    next_event,
    parse_body,
    parse_lease,
    read_capture,
    render_body,
)
from ..errors import Fault
from ..exclusive import ExclusiveAdapter, Owner, RefSnapshot, Scope, parse_time
from ..github import (
    EMPTY_TREE,
    AmbiguousOutcome,
    CaptureResult,
    DiscussionSummary,
    GitHubProvider,
    Identity,
    NotFound,
    RateLimited,
    Repository,
    WriterStart,
)
from ..github.identity import login_problem, writer_mismatch
from ..protocol import Answered, Limited, Lost, Read, Result, Send, Sleep, drive, wait
from ._errors import (
    AuthorizationReused,
    Blocked,
    ConflictingKey,
    GitHubAnomaly,
    IllegalTransition,
    JournalFull,
    JournalInvalidError,
    JournalLocked,
    JournalMissing,
    MaterialRefused,
    RefusedByRules,
    RepositoryMismatch,
    StoreInputError,
    TerminalAttempt,
    WitnessMissing,
    WitnessNotMet,
    WrongWriter,
)
from ._protocol import (
    MAX_SENDS,
    Append,
    Appended,
    Captured,
    capture_until_witnessed,
    witness_in,
)

__all__ = [
    "AppendResult",
    "BusinessAttemptStore",
    "Journal",
    "JournalOptions",
    "JournalReader",
    "Known",
    "MaterialCheck",
    "Planned",
    "Restored",
    "Session",
    "Successor",
    "default_journal_title",
]

log = logging.getLogger("ghattempt.store")

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


def _seconds(text: str | None) -> float | None:
    """GitHub's DateTime (``YYYY-MM-DDTHH:MM:SSZ``) -> POSIX seconds; None for anything
    else (then no scan stops on it)."""
    if not isinstance(text, str):
        return None
    try:
        return float(parse_time(text))
    except ValueError:
        return None


SCAN_MARGIN = 300
"""Seconds before a pull request's ``createdAt`` the category scan still reads: GitHub
stamps the pull request and the discussion on different hosts, whose clocks may differ
(docs/store.md, "Finding a journal")."""


def _refusal(code: str, what: str) -> RefusedByRules:
    if code in _TERMINAL:
        return TerminalAttempt(code, f"{what}: the attempt, or this phase of it, already has "
                               "a terminal result; terminal results are never rewritten "
                               "(a finished attempt's recovery opens a successor; a finished "
                               "phase's is the plan's next phase)")
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
    """Where the journal of one intent is: its intent record and its Discussion.

    ``number`` is the Discussion number in the repository, ``discussion_id`` its node id
    ("" when it was found through the lease ref and not read yet; a journal is the intent
    and the number, so it takes no part in equality). ``intent`` is the
    record the journal holds (after a rename, the one made under the old name).
    ``observed`` is the read of the scope's lease ref that found it, if any: the lease's
    first read when the scope is entered. ``locked`` is True when the read that found it
    (the category scan, or the first page read at start) showed it locked: the store
    refuses it then before taking the lease (:class:`JournalLocked`).
    """

    intent: Intent
    discussion_id: str = field(compare=False)
    number: int
    observed: RefSnapshot | None = field(default=None, compare=False, repr=False)
    locked: bool = field(default=False, compare=False)

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
class Restored:
    """A restored lease ref (:meth:`BusinessAttemptStore.restore_lease`): the
    ``journal``, the ``ref``, its new target ``oid`` and the ``note`` commit (the lease
    commit's parent) that records the restoration."""

    journal: Journal
    ref: str
    oid: str
    note: str


@dataclass(frozen=True, slots=True)
class Successor:
    """A successor attempt and the retained materials re-verified for it."""

    attempt: AttemptState
    materials: tuple[Material, ...]


@dataclass(frozen=True, slots=True)
class Planned:
    """One write a planning session (:meth:`BusinessAttemptStore.plan`) would make:
    ``kind`` (``lease``, ``discussion``, ``attempt``, ``event``), ``what`` it is in one
    line in the journal's words, and for the records their ``record`` (``Intent``,
    ``Attempt``, ``Event``) and the ``body`` it would be sent as (the comment's text)."""

    kind: str
    what: str
    record: Intent | Attempt | Event | None = None
    body: str | None = None


@dataclass(frozen=True, slots=True)
class Known:
    """Where a writer already knows the journal of one intent is, from an earlier step
    of the same job (the Action keeps it for the job; docs/store.md, "Known journals").
    Nothing here is believed: :meth:`BusinessAttemptStore.prime` checks every part
    against what GitHub answered, and a part that does not hold is read as if nothing
    were known.

    Attributes:
        repository_id: the repository's node id.
        pull_request, base_ref: the intent's pull request and base branch.
        intent: the intent id (the journal's intent record's digest).
        number: the journal's Discussion number.
    """

    repository_id: str
    pull_request: int
    base_ref: str
    intent: str
    number: int


@dataclass(frozen=True, slots=True)
class _Primed:
    """A journal read at start (``WriterRead``) before its scope was entered: ``start``
    holds its first page."""

    journal: Journal
    start: WriterStart


@dataclass(frozen=True, slots=True)
class _Found:
    """What finding a journal read: the intent as computed from the repository's name
    now, the lease read of its scope, and the journal (None: none yet)."""

    intent: Intent
    observed: RefSnapshot | None
    journal: Journal | None


def default_journal_title(intent: Intent) -> str:
    """The default title of a new journal (informational):
    ``Release journal: #7 into main [12 hex of the intent id]``."""
    return (f"Release journal: #{intent.pull_request} into {intent.base_ref} "
            f"[{intent.digest[7:19]}]")


@dataclass(frozen=True, slots=True)
class JournalOptions:
    """Which journals a store finds and how it reads them: the repository, the journal
    category, whose records count, the reader's bounds and the title of a new journal
    (built by the composition root, ``ghattempt.compose``, from ``[journal]`` and
    ``[writer]``).

    Attributes:
        repository: ``owner/name`` as GitHub names it now.
        repository_id: the repository's GraphQL node id (its identity; names change).
        category: the discussion category's slug (or name) holding journals.
        writer_login: the GraphQL login whose unedited comments contribute (the reader's
            ``--writer``; ``github-actions`` for the Actions token, an App's bare slug,
            never with REST's ``[bot]``).
        writer_id: the author's ``databaseId`` (``--writer-id``); None: learned from the
            host at start (the token's ``viewer``), when the token is that writer.
        server_url: the server material URLs must start with (``--server-url``).
        max_records, max_attempts: the reader's history bounds.
        title: the title of a new journal, from its intent (informational: the intent
            record in the body identifies a journal; ``journal.title`` of
            docs/configuration.md renders one). None: :func:`default_journal_title`. An
            edited journal bearing this title or the default one fails closed.
        max_comments: the comments and replies one journal takes (GitHub refuses
            comments on an issue past 2,500; docs/emulator.md): a write that would pass
            it is refused before it is sent (:class:`JournalFull`).

    Raises:
        StoreInputError: ``repository`` is not ``owner/name``, or ``writer_login`` is no
            login (REST's ``[bot]`` among them, with the configuration's own message).
    """

    repository: str
    repository_id: str
    category: str
    writer_login: str
    writer_id: int | None = None
    server_url: str | None = None
    max_records: int = 1000
    max_attempts: int = 100
    title: Callable[[Intent], str] | None = None
    max_comments: int = 2500

    def __post_init__(self) -> None:
        owner, sep, name = self.repository.partition("/")
        if not sep or not owner or not name or "/" in name:
            raise StoreInputError(f"repository must be owner/name, got {self.repository!r}")
        login = self.writer_login
        problem = login_problem(login) if isinstance(login, str) else (
            f"{login!r} is not a login", "pass the writer's GraphQL login")
        if problem is not None:
            raise StoreInputError(f"writer_login: {problem[0]}; {problem[1]}")

    @property
    def owner(self) -> str:
        """The repository's owner."""
        return self.repository.partition("/")[0]

    @property
    def name(self) -> str:
        """The repository's name."""
        return self.repository.partition("/")[2]

    def journal_title(self, intent: Intent) -> str:
        """The title of ``intent``'s new journal (``title``, or the default)."""
        return (self.title or default_journal_title)(intent)


@dataclass(frozen=True, slots=True)
class JournalReader:
    """The core reader with one store's arguments (spec sections 5-10), as they stand
    once the store learned its writer's ``databaseId``; a session reads its capture with
    it, and the comments it adds carry its author (``login``, ``writer_id``).

    ``digest``: the reader digest a writer puts into every record (None: a store that
    only reads)."""

    login: str
    repository_id: str
    writer_id: int | None
    server_url: str | None
    max_records: int
    max_attempts: int
    digest: str | None

    def verdict(self, capture: Capture | JournalInvalid,
                request_key: str | None = None) -> Verdict:
        """Read a capture (``read_capture``; a ``JournalInvalid``: the capture's
        responses did not parse, and the verdict says why)."""
        return read_capture(capture, writer=self.login, repository_id=self.repository_id,
                            writer_id=self.writer_id, request_key=request_key,
                            server_url=self.server_url, max_records=self.max_records,
                            max_attempts=self.max_attempts, reader=self.digest)

    def state(self, capture: Capture) -> JournalState:
        """The replayed journal of ``capture``.

        Raises:
            JournalInvalidError: the capture does not read as a valid journal.
        """
        verdict = self.verdict(capture)
        if verdict.journal is None:
            raise JournalInvalidError(verdict.reason or "invalid", verdict.detail)
        return verdict.journal


@dataclass(frozen=True, slots=True)
class Recording:
    """What a :class:`Session` builds and reads records with, handed over by its store:
    the journal ``reader``, the ``writer`` identity put into every record, GitHub's
    clock (``now``: its time at the last answer), and the store's hooks (``step`` for
    the observer, ``tell`` for one line to the user, ``sleep`` for a protocol's wait),
    and ``max_comments``, the comments and replies one journal takes."""

    reader: JournalReader
    writer: Writer
    now: Callable[[], str]
    step: Callable[[str], None]
    tell: Callable[[str], None]
    sleep: Callable[[Sleep], None]
    max_comments: int = 2500

    @property
    def digest(self) -> str:
        """The reader digest put into every record."""
        assert self.reader.digest is not None  # a store that only reads holds no session
        return self.reader.digest


class BusinessAttemptStore:
    """The business attempt store of one repository (ADR 0006 ``businessAttemptStore``).

    A writing store has all of ``exclusive``, ``writer`` and ``reader``; a store without
    any of them only reads: ``initialise``, ``locate``, ``prime``, ``capture``,
    ``capture_witnessed``, ``verdict`` and ``read`` work as on a writing store (the same
    journals read the same), the scope's lease ref is read at the default prefix
    (``refs/heads/ghattempt/lease/``), and anything that would enter the writer scope or
    write (``open``, ``session``, ``append``, ``plan``, ``check_writer``) raises
    ``StoreInputError``. ``ghattempt.compose`` builds both from the configuration.

    Args:
        provider: the authenticated GitHub provider.
        journals: which journals, and how they are read (:class:`JournalOptions`).
        exclusive: the writer-scope adapter; a writer must name one, there is no default
            lock. Use :class:`~ghattempt.exclusive.RefLease` over
            :class:`~ghattempt.store.GitHubRefBackend` in production.
        writer: the writer identity put into every record.
        reader: the reader digest put into every record (``ghattempt.readers``).
        observer: called with a step name at each step of a write (``captured``,
            ``acquired``, ``built``, ``sending``, ``sent``, ``ambiguous``, ``read-back``,
            ``rate-limited``, ``released``); for logging and tests.
        notice: called with one line for what a user should hear about: a lost answer
            reconciled by reading back, and each wait longer than 2 s (rate limits,
            re-reads while comments lag). The CLI prints it to stderr.

    Raises:
        StoreInputError: a writer without ``exclusive`` (no default lock), or without
            ``writer`` or ``reader``; or the provider's timeout exceeds the adapter's
            ``request_timeout`` (the lease margin would not cover a request).
    """

    def __init__(self, provider: GitHubProvider, journals: JournalOptions, *,
                 exclusive: ExclusiveAdapter | None = None, writer: Writer | None = None,
                 reader: str | None = None,
                 observer: Callable[[str], None] | None = None,
                 notice: Callable[[str], None] | None = None) -> None:
        if exclusive is None and (writer is not None or reader is not None):
            raise StoreInputError("the store has no default lock: pass exclusive=<adapter> "
                                  "(RefLease in production)")
        if exclusive is not None and (writer is None or reader is None):
            raise StoreInputError("a store that writes needs the writer and the reader "
                                  "digest it puts into every record")
        if exclusive is not None and provider.config.timeout > exclusive.request_timeout:
            raise StoreInputError(
                f"the provider timeout ({provider.config.timeout:g} s) exceeds the lease's "
                f"request_timeout ({exclusive.request_timeout:g} s): a mutation could outlive "
                "the lease margin; lower the provider timeout or raise request_timeout")
        self._provider = provider
        self._journals = journals
        self._exclusive = exclusive
        self._writer = writer
        self._reader = reader
        self._observer = observer
        self._notice = notice
        # learned from GitHub (initialise), and kept between calls
        self._category_id: str | None = None
        self._writer_id = journals.writer_id
        self._identity: Identity | None = None
        self._primed: _Primed | None = None
        self._opened_at: dict[int, float] = {}

    def __repr__(self) -> str:
        return f"BusinessAttemptStore({self._journals.repository})"

    # -- plumbing ---------------------------------------------------------------------

    @property
    def provider(self) -> GitHubProvider:
        return self._provider

    @property
    def repository_id(self) -> str:
        return self._journals.repository_id

    @property
    def journals(self) -> JournalOptions:
        """Which journals this store finds and how it reads them."""
        return self._journals

    @property
    def writer(self) -> Writer:
        """The writer identity put into every record.

        Raises:
            StoreInputError: the store only reads.
        """
        if self._writer is None:
            raise StoreInputError("this store only reads (it has no writer): build a "
                                  "writing store to write")
        return self._writer

    @property
    def writer_id(self) -> int | None:
        """The writer's ``databaseId`` in use (configured, or learned at start)."""
        return self._writer_id

    @property
    def identity(self) -> Identity | None:
        """Who the token is on the configured host (known after :meth:`initialise`)."""
        return self._identity

    def _step(self, name: str) -> None:
        if self._observer is not None:
            self._observer(name)

    def tell(self, line: str) -> None:
        """One line for the user (the ``notice`` hook; the log when there is none)."""
        if self._notice is not None:
            self._notice(line)
        else:
            log.warning("%s", line)

    def _sleep(self, action: Sleep) -> None:
        """Take a protocol's :class:`~ghattempt.protocol.Sleep`, telling it when it says
        so."""
        if action.notice is not None:
            self.tell(action.notice)
        self._provider.config.sleep(action.seconds)

    def _now(self) -> str:
        """GitHub's clock at the last answer (a lower bound of its time now)."""
        t = self._provider.last_server_time
        return utc(t if t is not None else time.time())

    def reader(self) -> JournalReader:
        """The journal reader with this store's arguments as they stand now (the
        writer's ``databaseId`` is learned by :meth:`initialise`)."""
        j = self._journals
        return JournalReader(j.writer_login, j.repository_id, self._writer_id, j.server_url,
                             j.max_records, j.max_attempts, self._reader)

    def read(self, capture: Capture | JournalInvalid,
             request_key: str | None = None) -> Verdict:
        """Read a capture with this store's reader arguments (spec sections 5-10); a
        ``JournalInvalid`` (responses that did not parse) reads as the verdict naming it."""
        return self.reader().verdict(capture, request_key)

    # -- initialisation ---------------------------------------------------------------

    def initialise(self, repository: Repository | None = None) -> None:
        """Check the repository and the category, and learn who the token is on this
        host: one ``RepositoryLookup`` request (none when ``repository`` is that
        lookup's answer, made by the caller).

        A configured ``writer_id`` of None becomes the token's ``databaseId`` when the
        token is the configured writer (a reader with another token reads by login).

        Raises:
            RepositoryMismatch: the repository's node id is not ``repository_id``.
            GitHubAnomaly: Discussions are off, the category is missing, or GitHub says
                the token cannot write (``viewerPermission`` below WRITE).
            NotFound: the repository is not visible to these credentials.
        """
        repo = repository or self._provider.repository(self._journals.owner, self._journals.name)
        if repo.id != self._journals.repository_id:
            raise RepositoryMismatch(repo.name_with_owner, self._journals.repository_id, repo.id)
        if not repo.has_discussions:
            raise GitHubAnomaly(f"{repo.name_with_owner} has Discussions turned off; enable "
                                "them and create the journal category")
        perm = repo.viewer_permission
        # GitHub answers null for an App and the Actions bot: their access shows at the
        # first write.
        if perm is not None and perm not in _WRITE_PERMISSIONS:
            raise GitHubAnomaly(f"the token has {perm} access to {repo.name_with_owner}; "
                                "writing journals needs WRITE or more")
        category = self._journals.category
        for cat in repo.categories:
            if cat.slug == category or cat.name.casefold() == category.casefold():
                self._category_id = cat.id
                break
        else:
            known = ", ".join(c.slug for c in repo.categories) or "none"
            raise GitHubAnomaly(f"{repo.name_with_owner} has no discussion category "
                                f"{category!r} (slugs: {known}); create it first")
        self._identity = repo.viewer
        ident = repo.viewer
        if (self._journals.writer_id is None and ident is not None
                and ident.author_login == self._journals.writer_login):
            self._writer_id = ident.database_id

    def _host(self) -> str:
        return self._provider.config.base_url

    def check_writer(self) -> None:
        """Refuse, before any write, a configured writer that is not the token's account
        on the configured host (its records would not count).

        Raises:
            WrongWriter: the token is another account.
            GitHubAnomaly: GitHub did not say who the token is.
            StoreInputError: the store only reads.
        """
        if self._exclusive is None:
            raise StoreInputError("this store only reads (it has no writer scope adapter): "
                                  "build a writing store to enter the writer scope")
        if self._category_id is None:
            self.initialise()
        ident = self._identity
        if ident is None:
            raise GitHubAnomaly(f"{self._host()} did not say who the token is (viewer); "
                                "a writer must know it before writing")
        problem = writer_mismatch(self._journals.writer_login, self._journals.writer_id,
                                  ident, self._host())
        if problem is not None:
            raise WrongWriter(problem)

    def _require_category(self) -> str:
        if self._category_id is None:
            self.initialise()
        assert self._category_id is not None
        return self._category_id

    # -- finding journals -------------------------------------------------------------

    def intent(self, pull_request: int, base_ref: str) -> Intent:
        """The intent record of (this repository, ``pull_request``, ``base_ref``) made
        under the repository's name now.

        Raises:
            StoreInputError: a value has the wrong shape.
        """
        try:
            return build_intent(repository_id=self._journals.repository_id,
                                repository_name=self._journals.repository,
                                pull_request=pull_request, base_ref=base_ref)
        except ValueError as exc:
            raise StoreInputError(f"intent: {exc}") from None

    def _lease_name(self, intent: Intent) -> str:
        if self._exclusive is not None:
            return self._exclusive.ref_name(Scope(self._journals.repository_id, intent.digest))
        return lease_ref_name(intent.digest, self._journals.repository_id)

    def _read_lease(self, intent: Intent) -> tuple[RefSnapshot, int | None]:
        """The scope's lease ref (``LeaseRef``) and the journal number its record names
        (None: no ref, no number yet, or not a readable lease: entering the scope says
        why)."""
        name = self._lease_name(intent)
        ref, _ = self._provider.lease_ref(self._journals.owner, self._journals.name, name)
        seen = self._provider.last_server_time or 0.0
        message = ref.commit.message if ref is not None and ref.commit is not None else None
        snap = RefSnapshot(name, ref.target_oid if ref is not None else None, message,
                           math.floor(seen))
        number = None
        if message is not None:
            try:
                number = parse_lease(message).journal
            except JournalInvalid:
                number = None
        return snap, number

    def _writes_journals(self, login: str | None, database_id: int | None) -> bool:
        if login != self._journals.writer_login:
            return False
        return self._writer_id is None or database_id in (None, self._writer_id)

    def _intent_of(self, d: DiscussionSummary) -> Intent | None:
        try:
            record = parse_body(d.body, "intent")
        except JournalInvalid:
            return None
        return record if isinstance(record, Intent) else None

    def _same_intent(self, record: Intent | None, pull_request: int, base_ref: str) -> bool:
        # journal-v1 section 4: repository node id, pull request and base branch; the
        # repository's name in the record is the name when the journal was made
        return (record is not None and record.repository_id == self._journals.repository_id
                and record.pull_request == pull_request and record.base_ref == base_ref)

    def pull_request_opened(self, pull_request: int, created_at: str | None) -> None:
        """When ``pull_request`` was opened (its ``createdAt``, as GitHub answered it):
        the category scan for its journal stops at the first discussion made more than
        :data:`SCAN_MARGIN` seconds before it (no journal of an intent can predate its
        pull request). Without it, or with an unreadable time, the scan reads the whole
        category."""
        seconds = _seconds(created_at)
        if seconds is None:
            self._opened_at.pop(pull_request, None)
        else:
            self._opened_at[pull_request] = seconds

    def _scan(self, pull_request: int, base_ref: str) -> Journal | None:
        """The category scan: the oldest discussion whose unedited body, by the writer,
        holds an intent record of this repository node id, pull request and base branch.
        Never uses search. Reads newest first and stops at the first discussion made more
        than :data:`SCAN_MARGIN` before the pull request, when
        :meth:`pull_request_opened` said when that was (else at the category's end).
        Cost: one request per 100 discussions read.

        Raises:
            JournalInvalidError: ``untrusted_journal``: the intent's journal has an
                edited body (a new journal would lose its history).
        """
        opened = self._opened_at.get(pull_request)
        found: Journal | None = None
        untrusted: JournalInvalidError | None = None
        for d in self._provider.category_discussions(self._journals.owner, self._journals.name,
                                                     self._require_category()):
            made = _seconds(d.created_at)
            if opened is not None and made is not None and made < opened - SCAN_MARGIN:
                break  # this one and every later one predate the pull request
            if not self._writes_journals(d.author_login, d.author_id):
                continue
            record = self._intent_of(d)
            if not d.edited and self._same_intent(record, pull_request, base_ref):
                assert record is not None
                found, untrusted = Journal(record, d.id, d.number, locked=d.locked), None
            elif d.edited and (self._same_intent(record, pull_request, base_ref) or d.title in (
                    self._journals.journal_title(self.intent(pull_request, base_ref)),
                    default_journal_title(self.intent(pull_request, base_ref)))):
                # older than every match so far: it is the intent's journal
                untrusted = JournalInvalidError(
                    "untrusted_journal", f"discussion #{d.number}, the journal of this intent, "
                    "has an edited body; a new journal would lose its history")
        if untrusted is not None:
            raise untrusted
        return found

    def _find(self, pull_request: int, base_ref: str) -> _Found:
        primed = self._primed
        if primed is not None and (primed.journal.intent.pull_request,
                                   primed.journal.intent.base_ref) == (pull_request, base_ref):
            return _Found(primed.journal.intent, primed.journal.observed, primed.journal)
        intent = self.intent(pull_request, base_ref)
        observed, number = self._read_lease(intent)
        if number is not None:
            return _Found(intent, observed, Journal(intent, "", number, observed))
        found = self._scan(pull_request, base_ref)
        if found is None or found.intent == intent:
            journal = None if found is None else Journal(found.intent, found.discussion_id,
                                                         found.number, observed, found.locked)
            return _Found(intent, observed, journal)
        # made under another name (a rename): the scope is that of its own intent record
        theirs, number = self._read_lease(found.intent)
        return _Found(intent, observed, Journal(
            found.intent, "" if number not in (None, found.number) else found.discussion_id,
            found.number if number is None else number, theirs,
            found.locked and number in (None, found.number)))

    def known_lease(self, known: Known) -> str:
        """The lease ref to read with a :class:`Known` journal (``WriterRead``)."""
        return lease_ref_name(known.intent, known.repository_id)

    def prime(self, start: WriterStart, known: Known) -> Journal | None:
        """Take a journal read at start with what was :class:`Known`
        (``GitHubProvider.writer_read``), when every part holds: the repository's node
        id, the lease ref at the known intent's scope naming the known journal, and the
        journal's body holding that intent record of this pull request and base branch.
        Then :meth:`locate` answers it without a request, and :meth:`session` starts from
        the page read (re-read under the scope unless the lease was taken straight from
        the head read with it, a released one: then nobody can have written since).

        Returns:
            The journal, or None when something did not hold (nothing is primed).
        """
        self._primed = None
        first = start.journal
        if not isinstance(first, Capture) or start.repository.id != self._journals.repository_id:
            return None
        if known.repository_id != self._journals.repository_id:
            return None
        lease = start.lease
        message = lease.commit.message if lease is not None and lease.commit else None
        try:
            record = parse_lease(message) if message is not None else None
        except JournalInvalid:
            record = None
        if record is None or record.journal != known.number or record.intent != known.intent:
            return None
        try:
            intent = parse_body(first.body.body, "intent")
        except JournalInvalid:
            return None
        if (not isinstance(intent, Intent) or intent.digest != known.intent
                or not self._same_intent(intent, known.pull_request, known.base_ref)):
            return None
        assert lease is not None
        observed = RefSnapshot(self._lease_name(intent), lease.target_oid, message,
                               math.floor(start.server_time or 0))
        journal = Journal(intent, first.discussion_id, known.number, observed, first.locked)
        self._primed = _Primed(journal, start)
        return journal

    def locate(self, pull_request: int, base_ref: str) -> Journal | None:
        """Where the journal of (this repository, ``pull_request``, ``base_ref``) is, or
        None when it has none yet.

        One ``LeaseRef`` read when the scope's lease names its journal (journal-v1
        section 4, ``journal``); otherwise the category scan (:meth:`_scan`, one request
        per 100 discussions) by repository node id, pull request and base branch, so a
        renamed repository's journal is found under its old intent record (and that
        intent's lease is read too). Whether the journal is still there is checked when
        its scope is entered (:class:`JournalMissing`).

        Raises:
            JournalInvalidError: ``untrusted_journal`` (the scan found the intent's journal
                with an edited body).
        """
        return self._find(pull_request, base_ref).journal

    def find_journal(self, intent: Intent) -> Journal | None:
        """:meth:`locate` for ``intent``'s pull request and base branch."""
        return self.locate(intent.pull_request, intent.base_ref)

    def open_journal(self, pull_request: int, base_ref: str) -> Journal:
        """Find the journal of one intent (:meth:`locate`), or create it inside the
        intent's writer scope (see :meth:`open`, which also keeps the scope for writing).
        """
        found = self._find(pull_request, base_ref)
        if found.journal is not None:
            return found.journal
        with self._held(found.intent, None, found.observed, create=True,
                        enter=self._hold) as s:
            return s.journal

    # -- captures ---------------------------------------------------------------------

    def capture(self, journal: Journal, *, start: WriterStart | None = None) -> CaptureResult:
        """Capture the journal with its lease member (spec section 5): the responses
        (kept for saving) and the :class:`~ghattempt.core.Capture` parsed from them
        (``CaptureResult.capture``; ``start``: a ``WriterRead`` answer holding the first
        page, already read).

        Raises:
            JournalMissing: the Discussion is gone (deleted or transferred) or was moved
                out of the journal category.
        """
        name = self._lease_name(journal.intent)
        try:
            result = self._provider.capture_with_lease(
                self._journals.owner, self._journals.name, journal.number, name, start=start)
        except NotFound:
            raise JournalMissing(journal.number, "gone", self._missing(journal, "gone")) from None
        captured = result.capture
        category = captured.category if isinstance(captured, Capture) else None
        if isinstance(captured, Capture) and (category is None
                                              or category.id != self._require_category()):
            slug = category.slug if category is not None else None
            raise JournalMissing(journal.number, "moved", self._missing(
                journal, f"in category {slug!r}, not {self._journals.category!r}"))
        return result

    def _missing(self, journal: Journal, what: str) -> str:
        where = self._journals.repository
        if what == "gone":
            what = "no longer in the repository (deleted, or transferred to another one)"
        return (f"the writer scope of pull request #{journal.intent.pull_request} into "
                f"{journal.intent.base_ref} names journal #{journal.number} of {where}, "
                f"which is {what}")

    def settled(self, journal: Journal, *, start: WriterStart | None = None
                ) -> tuple[Capture, JournalState]:
        """Capture until the journal holds every record its lease's witness names
        (:class:`~ghattempt.store._protocol.Capture`), and replay it (``start``: a
        ``WriterRead`` answer holding the first read's first page, already read).

        Raises:
            WitnessNotMet: still short of the witness after the re-reads.
            JournalInvalidError: the journal is invalid otherwise.
            JournalMissing: see :meth:`capture`.
        """
        result, error = self._capture_witnessed(journal, start)
        if error is not None:
            raise error
        capture = result.capture
        if not isinstance(capture, Capture):  # pragma: no cover - an invalid verdict above
            raise JournalInvalidError(capture.code, capture.detail)
        return capture, self.reader().state(capture)

    def capture_witnessed(self, journal: Journal, *,
                          start: WriterStart | None = None) -> CaptureResult:
        """:meth:`capture`, read again (a few times, with backoff) while the capture holds
        fewer records than the lease's witness names (spec journal-v1 section 5: a
        capture tool reads lagging pages again before handing them over). Returns the
        last read whatever the reader says of it: for reading, not for writing.

        Raises:
            JournalMissing: see :meth:`capture`.
        """
        return self._capture_witnessed(journal, start)[0]

    def _capture_witnessed(self, journal: Journal, start: WriterStart | None = None
                           ) -> tuple[CaptureResult, JournalInvalidError | None]:
        policy = self._provider.config.retry
        first = [start] if start is not None else []
        reads: list[CaptureResult] = []

        def read() -> Captured:
            reads.append(self.capture(journal, start=first.pop() if first else None))
            capture = reads[-1].capture
            return Captured(self.read(capture), _parsed(capture), witness_in(capture))

        _, error = capture_until_witnessed(read, self._sleep, attempts=policy.lag_attempts,
                                           base=policy.lag_base, cap=policy.lag_cap)
        return reads[-1], error

    def verdict(self, journal: Journal, request_key: str | None = None) -> Verdict:
        """Capture (:meth:`capture_witnessed`) and read the journal without entering the
        writer scope."""
        return self.read(self.capture_witnessed(journal).capture, request_key)

    # -- sessions ---------------------------------------------------------------------

    @contextmanager
    def session(self, journal: Journal) -> Iterator[Session]:
        """Hold the journal's writer scope, capture and replay it; yield a
        :class:`Session`.

        Raises:
            WrongWriter: the token is not the configured writer (nothing was written).
            JournalMissing: the lease names a journal that is gone or moved.
            WitnessNotMet, JournalInvalidError: the captured journal is short of its
                witness, or invalid (fail closed).
            ScopeBusy, OwnershipLost, LeaseCorrupt: from the adapter.
        """
        with self._held(journal.intent, journal, journal.observed, create=False,
                        enter=self._hold) as s:
            yield s

    @contextmanager
    def open(self, pull_request: int, base_ref: str) -> Iterator[Session]:
        """Find the journal of one intent, or create it, and hold its writer scope: a
        :class:`Session` for the admission that opens it.

        Creation happens inside the writer scope, after finding again (the scan, when
        the scope's lease names no journal), so two writers that respect the scope never
        create two journals; a lease that names a journal never gets a fresh one (it
        fails closed when that journal is missing). A ``createDiscussion`` whose outcome
        is unknown is reconciled by scanning again (with the read-lag backoff) before the
        same title and body are sent again.

        Raises:
            as :meth:`session`; GitHubAnomaly: a creation's outcome stayed unknown after
            ``MAX_SENDS`` sends.
        """
        with self._entered(pull_request, base_ref, create=True, enter=self._hold) as s:
            yield s

    @contextmanager
    def plan(self, pull_request: int, base_ref: str, *,
             create: bool = False) -> Iterator[Session]:
        """A :class:`Session` that writes nothing, entered by the same path as
        :meth:`open` (``create``) or :meth:`session`, with one part replaced: instead of
        holding the writer scope it asks the adapter what a hold would write
        (:meth:`~ghattempt.exclusive.ExclusiveAdapter.preview`: for a ``RefLease``,
        whether the repository's rulesets let the token create and move the lease ref),
        and instead of sending, every write it is asked for (a journal not there yet,
        with ``create``; each record) is built and checked as for a real one, then
        recorded in ``Session.planned`` and added to its capture, so the next step sees it.
        Reads only: the writer check, the lease ref, the journal (not under the scope;
        the category scan once).

        Raises:
            as :meth:`open`, without ScopeBusy and OwnershipLost; ``BackendError`` when a
            ruleset would refuse the lease ref's writes; StoreInputError: no journal and
            not ``create``.
        """
        with self._entered(pull_request, base_ref, create=create, enter=self._preview) as s:
            yield s

    @contextmanager
    def _entered(self, pull_request: int, base_ref: str, *, create: bool,
                 enter: _Enter) -> Iterator[Session]:
        """Find the journal of one intent and enter its scope (``enter``): the journal,
        or with ``create`` a new one."""
        self.check_writer()
        found = self._find(pull_request, base_ref)
        journal = found.journal
        if journal is not None:
            with self._held(journal.intent, journal, journal.observed, create=False,
                            enter=enter) as s:
                yield s
        else:
            with self._held(found.intent, None, found.observed, create=create,
                            enter=enter) as s:
                yield s

    @contextmanager
    def _hold(self, scope: Scope, observed: RefSnapshot | None,
              recording: Recording) -> Iterator[Writes]:
        """Enter ``scope`` for writing: hold it with the adapter; the writes go by the
        append protocol under its owner (:class:`Sender`)."""
        adapter = self._exclusive
        assert adapter is not None  # check_writer refused a store that only reads
        with adapter.hold(scope, observed=observed) as owner:
            self._step("acquired")
            owner.assert_owner(mutating=False)
            yield Sender(owner, self._provider, recording, self.settled,
                         functools.partial(self._provider.create_discussion,
                                           self._journals.repository_id,
                                           self._require_category()))
        self._step("released")

    @contextmanager
    def _preview(self, scope: Scope, observed: RefSnapshot | None,
                 recording: Recording) -> Iterator[Writes]:
        """Enter ``scope`` for a plan: hold nothing; the adapter says what a hold would
        write, and the writes are recorded (:class:`Planner`)."""
        adapter = self._exclusive
        assert adapter is not None  # check_writer refused a store that only reads
        yield Planner(Planned("lease", adapter.preview(scope, observed=observed)), recording)

    def journal_head(self, journal: Journal) -> tuple[Capture, JournalState, Witness]:
        """Capture and replay ``journal`` (not under its scope) and the head it holds
        now: its distinct records and the newest one's digest (:func:`head_of`).

        Raises:
            JournalInvalidError: the journal does not read as valid.
            JournalMissing: see :meth:`capture`.
        """
        capture = self.capture(journal).capture
        if not isinstance(capture, Capture):
            raise JournalInvalidError(capture.code, capture.detail)
        state = self.reader().state(capture)
        return capture, state, head_of(capture, state)

    def _refuse_unwitnessed(self, journal: Journal, observed: RefSnapshot) -> RefSnapshot:
        """Before entering the scope of a journal found while its lease ref is absent:
        a journal that holds records has lost the witness of its head (the ref was
        deleted), and a fresh lease would witness whatever the journal holds now, a
        deleted newest record included. Refused (:class:`WitnessMissing`) before any
        write; a journal with no record yet has nothing to prove.

        The ref is read again after the journal: a writer creates the lease ref before
        it writes a record, and refs read current while comments may lag, so a ref still
        absent once records show was deleted; one there now was made by a writer that
        opened the journal meanwhile (that read is returned: the scope is entered with
        it)."""
        _, state, head = self.journal_head(journal)
        if head.records == 0:
            return observed
        again, _ = self._read_lease(journal.intent)
        if again.oid is not None:
            return again
        intent = journal.intent
        raise WitnessMissing(observed.name, state.discussion_number, intent.pull_request,
                             intent.base_ref, head.records, head.last)

    def restore_lease(self, pull_request: int, base_ref: str, *, head: Witness,
                      reason: str, restorer: str) -> Restored:
        """A person's restoration of a deleted lease ref (docs/exclusion.md, "A deleted
        lease ref"), after checking the journal's history: the lease ref is created again
        witnessing exactly ``head``, the head the journal holds now (its distinct records
        and the newest one's digest, :func:`head_of`), released, naming the journal.

        Recorded: the lease commit's parent is a commit whose message says who restored
        it, why (``reason``) and which head, so the lease branch's history shows the
        restoration (``git log`` of the ref). The fencing token starts again at 1 (the
        earlier tokens went with the ref; nothing compares them across a restoration).

        Raises:
            StoreInputError: no journal, or its lease ref is there (nothing to restore).
            RefusedByRules: ``head_differs``: the journal's head is not ``head`` (nothing
                written: look again).
            GitHubAnomaly: the ref's creation stayed unknown.

        The token need not be the writer's (a person's token with ``contents: write``
        will do): no record is written.
        """
        if self._category_id is None:
            self.initialise()
        found = self._find(pull_request, base_ref)
        journal = found.journal
        if journal is None:
            raise StoreInputError(f"pull request #{pull_request} into {base_ref} has no "
                                  "journal: there is no lease to restore")
        observed = journal.observed
        if observed is None:
            observed, _ = self._read_lease(journal.intent)
        if observed.oid is not None:
            raise StoreInputError(f"lease ref {observed.name} is there (at "
                                  f"{observed.oid[:12]}): there is nothing to restore, and "
                                  "nothing was written")
        _, state, now = self.journal_head(journal)
        if now.records == 0:
            raise StoreInputError(f"journal #{state.discussion_number} holds no record: "
                                  "the next writer starts its lease afresh; nothing to "
                                  "restore, and nothing was written")
        if now != head:
            raise RefusedByRules("head_differs", (
                f"journal #{state.discussion_number} holds {now.records} records, the "
                f"newest {now.last}, not the {head.records} records with the newest "
                f"{head.last} the restoration was to witness: nothing was written; check "
                "the journal again"))
        try:
            lease = build_lease(intent=journal.intent.digest,
                                repository=self._journals.repository_id,
                                holder=f"restore-lease/{restorer}"[:256], token=1,
                                state="released", expires_at=self._now(),
                                journal=state.discussion_number, head=head)
        except ValueError as exc:
            raise StoreInputError(f"restore-lease: {exc}") from None
        note = (f"ghattempt lease restored [skip ci]\n\n{reason}\n\nRestored by {restorer} "
                f"after the lease ref was deleted: journal #{state.discussion_number} of "
                f"pull request #{pull_request} into {base_ref} holds {head.records} "
                f"records, the newest {head.last}.")
        owner, name = self._journals.owner, self._journals.name
        parent = self._provider.create_commit(owner, name, message=note, parents=(),
                                              tree=EMPTY_TREE)
        commit = self._provider.create_commit(owner, name, message=lease.message(),
                                              parents=(parent.oid,), tree=EMPTY_TREE)
        try:
            self._provider.create_ref(self._journals.repository_id, observed.name,
                                      commit.oid)
        except AmbiguousOutcome:
            seen, _ = self._read_lease(journal.intent)
            if seen.oid != commit.oid:
                raise GitHubAnomaly(f"the answer to creating lease ref {observed.name} was "
                                    f"lost and the ref is {seen.oid or 'absent'}, not "
                                    f"{commit.oid}: run restore-lease again") from None
        self._step("restored")
        return Restored(Journal(state.intent, state.discussion_id, state.discussion_number),
                        observed.name, commit.oid, parent.oid)

    @contextmanager
    def _held(self, intent: Intent, journal: Journal | None, observed: RefSnapshot | None,
              *, create: bool, enter: _Enter) -> Iterator[Session]:
        self.check_writer()
        if journal is not None and journal.locked:
            self._primed = None
            raise JournalLocked(journal.number, self._journals.repository, None)
        if journal is not None and observed is None:
            observed, _ = self._read_lease(journal.intent)
        if journal is not None and observed is not None and observed.oid is None:
            observed = self._refuse_unwitnessed(journal, observed)
        scope = Scope(self._journals.repository_id, intent.digest)
        recording = Recording(self.reader(), self.writer, self._now, self._step, self.tell,
                              self._sleep, self._journals.max_comments)
        with enter(scope, observed, recording) as writes:
            number = writes.journal if writes.journal is not None else (
                journal.number if journal is not None else None)
            if number is None:
                capture, state = self._opened(intent, writes, create)
            else:
                where = Journal(intent, "" if journal is None else journal.discussion_id,
                                number)
                capture, state = self.settled(where, start=self._read_before(journal, writes))
            if capture.locked:  # seen under the scope: the lease is released, nothing else
                raise JournalLocked(state.discussion_number, self._journals.repository,
                                    capture.lock_reason)
            if state.intent.digest != intent.digest:
                raise JournalInvalidError("identity_drift", f"discussion #{number} holds "
                                          f"intent {state.intent.digest}, not {intent.digest}")
            if journal is not None and journal.discussion_id and (
                    state.discussion_id != journal.discussion_id):
                raise GitHubAnomaly(f"discussion #{number} is now node {state.discussion_id}, "
                                    f"not {journal.discussion_id}")
            self._step("captured")
            writes.carry_journal(state.discussion_number)
            yield Session(Journal(state.intent, state.discussion_id, state.discussion_number),
                          capture, state, recording, writes)

    def _read_before(self, journal: Journal | None, writes: Writes) -> WriterStart | None:
        """The answer read at start (:meth:`prime`), when its page may be built on: the lease
        was taken by a compare-and-set straight from the head read with the page, and
        that head was a released lease whose quiet period was over. Nobody can have
        written since (the compare-and-set proves nobody held the scope in between), and
        the previous holder's confirmed writes are all in the witness the page is
        checked against. Otherwise the journal is read again under the scope."""
        primed, self._primed = self._primed, None
        if primed is None or journal is None or primed.journal != journal:
            return None
        observed = primed.journal.observed
        if observed is None or observed.message is None:
            return None
        if writes.taken_from != observed.oid:
            return None
        try:
            lease = parse_lease(observed.message)
        except JournalInvalid:
            return None
        if lease.state != "released" or utc(observed.server_time) < lease.expires_at:
            return None
        return primed.start

    def _opened(self, intent: Intent, writes: Writes,
                create: bool) -> tuple[Capture, JournalState]:
        """The journal of a scope whose lease names none: found by the scan (again,
        under the scope now), else created when ``create``. The scan that led here
        stands when nobody can have held the scope since (``Writes.scanned``: the
        acquisition created the lease ref, or a plan, which holds nothing)."""
        found = None
        if not writes.scanned:
            found = self._scan(intent.pull_request, intent.base_ref)
        if found is not None:
            if found.intent != intent:
                raise JournalInvalidError("identity_drift", f"discussion #{found.number} "
                                          f"holds intent {found.id}, not {intent.digest}")
            return self.settled(found)
        if not create:
            raise StoreInputError(f"pull request #{intent.pull_request} into "
                                  f"{intent.base_ref} has no journal yet; admit opens it")
        return self._create(intent, writes)

    def _create(self, intent: Intent,
                writes: Writes) -> tuple[Capture, JournalState]:
        title = self._journals.journal_title(intent)
        if not isinstance(title, str) or not title.strip():
            raise StoreInputError(f"the journal title of {intent.digest} is empty; "
                                  "pass a journal_title that renders some text")
        body = render_body(intent)
        what = (f"discussion {title!r} in category {self._journals.category!r}: the intent "
                f"record {intent.digest} (repository {intent.repository_id}, pull request "
                f"#{intent.pull_request}, base {intent.base_ref})")
        policy = self._provider.config.retry
        quick = 0.0  # the last wait after "was submitted too quickly"
        for _ in range(MAX_SENDS):
            try:
                discussion_id, number = writes.create(intent, title, body, what)
            except AmbiguousOutcome as exc:
                self._step("ambiguous")
                limit = float(getattr(exc, "retry_after", 0.0) or 0.0)
                if limit > 0:  # GitHub's content limit: wait (doubling), then read back
                    quick = max(limit, quick * 2)
                    self._sleep(wait(quick, "GitHub answered \"was submitted too quickly\" "
                                            "(its limit on creating content; the journal "
                                            "may have been made); listing the category "
                                            "again then"))
                for n in range(policy.lag_attempts):
                    found = self._scan(intent.pull_request, intent.base_ref)
                    if found is not None:
                        self.tell(f"the answer to creating the journal of pull request "
                                  f"#{intent.pull_request} was lost; listing the category "
                                  f"again showed it was made (#{found.number})")
                        writes.carry_journal(found.number)
                        return self.settled(found)
                    self._sleep(wait(min(policy.lag_cap, policy.lag_base * 2 ** n),
                                     "the journal may not be listed yet (read lag)"))
                continue
            writes.carry_journal(number)
            # Nothing is in a journal made a moment ago: its capture is known without a
            # read (which could lag behind the creation).
            capture = Capture.opened(
                repository_id=self._journals.repository_id,
                repository_name=self._journals.repository,
                discussion_id=discussion_id, number=number, body=body,
                login=self._journals.writer_login, database_id=self._writer_id)
            verdict = self.read(capture)
            if verdict.journal is None:  # pragma: no cover - the core built both
                raise JournalInvalidError(verdict.reason or "invalid", verdict.detail)
            return capture, verdict.journal
        unknown = GitHubAnomaly(f"could not learn whether the journal of "
                                f"#{intent.pull_request} into {intent.base_ref} was created "
                                f"after {MAX_SENDS} sends")
        unknown.fault = Fault.OUTCOME_UNKNOWN  # try again: the same request reads it back
        raise unknown

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

    Obtain one from :meth:`BusinessAttemptStore.session`,
    :meth:`BusinessAttemptStore.open` or :meth:`BusinessAttemptStore.plan`; valid inside
    that block only. Not thread-safe. The session owns its journal, capture and state; it
    builds records with ``recording`` and hands each to ``writes``, which either sends
    it (:class:`Sender`) or records it (:class:`Planner`).
    """

    def __init__(self, journal: Journal, capture: Capture, state: JournalState,
                 recording: Recording, writes: Writes) -> None:
        self._journal = journal
        self._capture = capture
        self._state = state
        self._recording = recording
        self._writes = writes

    @property
    def planned(self) -> tuple[Planned, ...] | None:
        """What a planning session would have written, in order; None for a session
        that writes."""
        return self._writes.planned

    # -- reading ----------------------------------------------------------------------

    @property
    def state(self) -> JournalState:
        """The replayed journal as of the last capture plus this session's writes."""
        return self._state

    @property
    def capture(self) -> Capture:
        """The captured journal (plus this session's writes)."""
        return self._capture

    @property
    def journal(self) -> Journal:
        """The journal this session writes."""
        return self._journal

    @property
    def owner(self) -> Owner:
        owner = self._writes.owner
        if owner is None:
            raise StoreInputError("a planning session holds no writer scope")
        return owner

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

    def _write(self, record: Attempt | Event, body: str,
               reply_to: str | None) -> tuple[Any, int]:
        """Hand ``record`` (``body``) to the writes; the session's capture and state
        include the record after it (and a read-back's, as soon as one was made).
        Returns the comment (None when a read-back found it, or nothing was sent) and the
        number of sends."""
        self._check_room()
        written = self._writes.write(self._journal, record, body, reply_to, self._capture,
                                     self._seen)
        self._seen(written.capture, written.state)
        return written.comment, written.sends

    def _check_room(self) -> None:
        """Refuse a write the journal has no room for (:class:`JournalFull`): GitHub
        refuses comments past its cap, so a release would stop half recorded; told (a
        notice) when a write leaves fewer than 100: every tenth, then each of the last 5."""
        capture, cap = self._capture, self._recording.max_comments
        held = capture.comments_total + sum(capture.replies_total.values())
        if held + 1 > cap:
            raise JournalFull(self._journal.number, held, cap,
                              self._journal.intent.pull_request)
        left = cap - held - 1
        if left < 100 and (left % 10 == 9 or left < 5):
            self._recording.tell(f"journal #{self._journal.number} holds {held} comments "
                                 f"and replies of the {cap} one discussion takes: {left} "
                                 "more after this write ([journal] max_comments)")

    def _seen(self, capture: Capture, state: JournalState) -> None:
        self._capture, self._state = capture, state

    def append(self, attempt_id: str, *, key: str, phase: str | None, status: str,
               reason: str | None = None, materials: Sequence[Material] = ()) -> AppendResult:
        """Append one event to an attempt (writer protocol steps 4-7).

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
        rec = self._recording
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
                               writer=rec.writer, reader=rec.digest, at=rec.now(),
                               reason=reason, materials=mats)
        except ValueError as exc:
            raise StoreInputError(f"event: {exc}", getattr(exc, "problem", None)) from None
        failure = check_event(self._state, event)
        if failure is not None:
            raise _refusal(failure, f"{phase or 'attempt'} {status} on attempt {attempt_id}")
        rec.step("built")
        _, sends = self._write(event, render_body(event), state.root_ids[0])
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
        rec = self._recording
        try:
            root: Attempt = build_attempt(
                intent=self._state.intent, request_key=request_key, generation=generation,
                plan=plan, channel=channel, expires_at=expires_at, writer=rec.writer,
                reader=rec.digest, at=rec.now(), predecessor=predecessor,
                authorization=authorization)
        except ValueError as exc:
            raise StoreInputError(f"attempt: {exc}") from None
        failure = check_attempt(self._state, root)
        if failure is not None:
            raise _refusal(failure, f"attempt for {request_key}")
        rec.step("built")
        self._write(root, render_body(root), None)
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
        now = self._recording.now()
        if now < state.attempt.expires_at:
            raise RefusedByRules("not_expired", f"attempt {attempt_id} expires at "
                                 f"{state.attempt.expires_at}; GitHub's clock says {now}")
        return self.append(attempt_id, key=key, phase=None, status="expired", reason=reason)

    def rollback(self, attempt_id: str, *, key: str, status: str,
                 reason: str | None = None) -> AppendResult:
        """Roll back a succeeded attempt: ``started``, then ``succeeded`` or ``failed``."""
        return self.append(attempt_id, key=key, phase="rollback", status=status,
                           reason=reason)


@dataclass(frozen=True, slots=True)
class Written:
    """What :meth:`Writes.write` gives back: the ``comment`` GitHub made (None when a
    read-back found the record, or nothing was sent), the ``sends``, and the session's
    ``capture`` and ``state`` with the record."""

    comment: Any
    sends: int
    capture: Capture
    state: JournalState


class Writes(Protocol):
    """The one part in which a session that writes and a session that plans differ:
    what entering the scope gave (an owner, or nothing), and what becomes of the
    writes (sent, or recorded as :class:`Planned`)."""

    @property
    def owner(self) -> Owner | None:
        """The writer scope's owner (None: a plan holds none)."""
        ...

    @property
    def planned(self) -> tuple[Planned, ...] | None:
        """The writes planned so far (None: the writes are sent)."""
        ...

    @property
    def journal(self) -> int | None:
        """The journal's number the lease names (None: none, or not held)."""
        ...

    @property
    def taken_from(self) -> str | None:
        """The lease head the hold was taken from (:attr:`Owner.taken_from`)."""
        ...

    @property
    def scanned(self) -> bool:
        """True when the category scan made before entering still stands: nobody can
        have held the scope since (the hold created the lease ref, or nothing was
        held)."""
        ...

    def carry_journal(self, number: int) -> None:
        """The journal's number, for the lease's next write."""
        ...

    def create(self, intent: Intent, title: str, body: str, what: str) -> tuple[str, int]:
        """Create the journal (``title``, ``body``; ``what`` in one line): its node id
        and number.

        Raises:
            AmbiguousOutcome: the answer was lost (the store reconciles by scanning).
        """
        ...

    def write(self, journal: Journal, record: Attempt | Event, body: str,
              reply_to: str | None, capture: Capture,
              seen: Callable[[Capture, JournalState], None]) -> Written:
        """Write ``record`` (``body``; a reply to ``reply_to``, else a root) to
        ``journal`` whose capture is ``capture``; ``seen`` is told each read-back at once
        (it stands even when the write then fails)."""
        ...


class Sender:
    """A writing session's writes: each under the owner's mutation gate, a record by
    the append protocol (:class:`~ghattempt.store._protocol.Append`), its witness
    carried into the lease.

    Args:
        owner: the writer scope's owner.
        provider: the GitHub provider the requests go through.
        recording: the session's reader and hooks.
        recapture: capture and replay the journal until it meets its witness
            (:meth:`BusinessAttemptStore.settled`): the append's read-back.
        create_discussion: ``(title, body) -> Discussion`` in the journal category.
    """

    def __init__(self, owner: Owner, provider: GitHubProvider, recording: Recording,
                 recapture: Callable[[Journal], tuple[Capture, JournalState]],
                 create_discussion: Callable[[str, str], Any]) -> None:
        self._owner = owner
        self._provider = provider
        self._recording = recording
        self._recapture = recapture
        self._create_discussion = create_discussion

    @property
    def owner(self) -> Owner:
        return self._owner

    @property
    def planned(self) -> None:
        return None

    @property
    def journal(self) -> int | None:
        return self._owner.journal

    @property
    def taken_from(self) -> str | None:
        return self._owner.taken_from

    @property
    def scanned(self) -> bool:
        return self._owner.created

    def carry_journal(self, number: int) -> None:
        self._owner.carry(self._owner.head, number)

    def create(self, intent: Intent, title: str, body: str, what: str) -> tuple[str, int]:
        with self._owner.mutation():
            created = self._create_discussion(title, body)
        return created.id, created.number

    def write(self, journal: Journal, record: Attempt | Event, body: str,
              reply_to: str | None, capture: Capture,
              seen: Callable[[Capture, JournalState], None]) -> Written:
        """Send ``record`` by the append protocol, then carry its witness into the
        lease."""
        rec, provider = self._recording, self._provider
        policy = provider.config.retry
        machine = Append(record, reads=policy.lag_attempts, base=policy.lag_base,
                         cap=policy.lag_cap)
        lost_at: float | None = None
        current = capture  # the capture the comment is added to: the latest read-back's

        def perform(step: Send | Read) -> Result:
            nonlocal lost_at, current
            if isinstance(step, Read):
                current, state = self._recapture(journal)
                rec.step("read-back")
                seen(current, state)
                return Answered(Captured(rec.reader.verdict(current), current))
            rec.step("sending")
            try:
                with self._owner.mutation():
                    comment = provider.add_comment(journal.discussion_id, body,
                                                   reply_to_id=reply_to)
            except RateLimited as exc:
                # GitHub refused it without executing it (a definite refusal)
                rec.step("rate-limited")
                return Limited(exc, float(exc.retry_after))
            except AmbiguousOutcome as exc:
                rec.step("ambiguous")
                lost_at = lost_at if lost_at is not None else provider.config.clock()
                # "was submitted too quickly" carries the wait before reading back
                return Lost(exc, float(getattr(exc, "retry_after", 0.0) or 0.0))
            rec.step("sent")
            return Answered(comment)

        done: Appended = drive(machine, perform, rec.sleep)
        if done.comment is None:
            assert done.state is not None
            waited = provider.config.clock() - (lost_at or provider.config.clock())
            rec.tell(f"the answer to writing {_what(record)} was lost; reading the journal "
                     f"back after {waited:.1f} s showed it landed ({done.sends} "
                     f"send{'s' if done.sends != 1 else ''})")
            assert done.capture is not None
            current, state = done.capture, done.state
        else:
            comment = done.comment
            current, state = _added(current, reply_to, comment.id, body, comment.created_at,
                                    rec.reader)
        seen(current, state)
        self._carry(record, state)
        return Written(done.comment, done.sends, current, state)

    def _carry(self, record: Attempt | Event, state: JournalState) -> None:
        """The witness of the confirmed write of ``record``: the journal's distinct
        record count now and its digest (journal-v1 section 4), for the next lease
        write. A journal that lost a record written in this session fails closed."""
        owner = self._owner
        before = owner.head
        if (state.record_count < before.records
                or (before.last is not None and before.last not in state.record_digests)):
            raise WitnessNotMet(
                f"the journal holds {state.record_count} records and lacks "
                f"{before.last}, which this writer wrote and the witness names", 1)
        owner.carry(Witness(state.record_count, record.digest), state.discussion_number)


class Planner:
    """A planning session's writes: nothing is held and nothing is sent; each write is
    recorded as :class:`Planned` (the first is the lease's, ``lease``), and a record is
    added to the session's capture as the comment it would be.

    Args:
        lease: what holding the writer scope would write (the adapter's ``preview``).
        recording: the session's reader and GitHub's clock.
    """

    def __init__(self, lease: Planned, recording: Recording) -> None:
        self._planned = [lease]
        self._recording = recording

    @property
    def owner(self) -> None:
        return None

    @property
    def planned(self) -> tuple[Planned, ...]:
        return tuple(self._planned)

    @property
    def journal(self) -> None:
        return None

    @property
    def taken_from(self) -> None:
        return None

    @property
    def scanned(self) -> bool:
        return True  # a plan holds nothing: the scan that led here is the one read

    def carry_journal(self, number: int) -> None:
        """Nothing: there is no lease to carry it."""

    def create(self, intent: Intent, title: str, body: str, what: str) -> tuple[str, int]:
        self._planned.append(Planned("discussion", what, intent, body))
        return "", 0

    def write(self, journal: Journal, record: Attempt | Event, body: str,
              reply_to: str | None, capture: Capture,
              seen: Callable[[Capture, JournalState], None]) -> Written:
        """Record ``record`` and add it to ``capture``; nothing is sent."""
        rec = self._recording
        capture, state = _added(capture, reply_to, f"planned-{len(self._planned)}", body,
                                rec.now(), rec.reader)
        kind = "event" if isinstance(record, Event) else "attempt"
        self._planned.append(Planned(kind, planned_line(record), record, body))
        return Written(None, 0, capture, state)


def _added(capture: Capture, reply_to: str | None, comment_id: str, body: str,
           created_at: str, reader: JournalReader) -> tuple[Capture, JournalState]:
    """The capture with the comment ``comment_id`` (a reply to ``reply_to``, else a root)
    by the writer (the core's ``Capture.with_reply``/``with_comment``), and the journal
    read from it."""
    try:
        if reply_to is None:
            added = capture.with_comment(comment_id, body, created_at, reader.login,
                                         reader.writer_id)
        else:
            added = capture.with_reply(reply_to, comment_id, body, created_at, reader.login,
                                       reader.writer_id)
    except JournalInvalid as exc:  # pragma: no cover - GitHub never reuses a node id
        raise JournalInvalidError(exc.code, exc.detail) from None
    return added, reader.state(added)


def head_of(capture: Capture, state: JournalState) -> Witness:
    """The head ``capture`` holds: its distinct contributing records (the intent not
    counted, :attr:`JournalState.record_count`) and the digest of the newest of them
    by the node order of its comments (``createdAt``, then id): the witness a lease
    ref restored over it must carry (``restore-lease``)."""
    digest_of: dict[str, str] = {}
    for attempt in state.attempts:
        for node in attempt.root_ids:
            digest_of[node] = attempt.id
        for dg, node in attempt.event_replies:
            digest_of[node] = dg
    newest: tuple[str, str] | None = None
    last: str | None = None
    for c in (*capture.comments, *(r for rs in capture.replies.values() for r in rs)):
        if c.id in digest_of and (newest is None or (c.created_at, c.id) > newest):
            newest, last = (c.created_at, c.id), digest_of[c.id]
    return Witness(state.record_count, last) if last is not None else Witness(0, None)


def _parsed(capture: Capture | JournalInvalid) -> Capture | None:
    return capture if isinstance(capture, Capture) else None


_Enter = Callable[[Scope, "RefSnapshot | None", Recording], AbstractContextManager[Writes]]
"""How a session enters its writer scope: :meth:`BusinessAttemptStore._hold` (write) or
:meth:`BusinessAttemptStore._preview` (plan)."""


def _what(record: Attempt | Event) -> str:
    if isinstance(record, Event):
        return f"event {record.key} (seq {record.seq})"
    return f"the attempt for request key {record.request_key}"


def planned_line(record: Attempt | Event) -> str:
    """One line naming a record by its own fields (journal-v1 section 4): what a plan
    says it would write."""
    if isinstance(record, Event):
        line = (f"event {record.key} (seq {record.seq}) of attempt {record.attempt}: "
                f"{record.phase or 'attempt'} {record.status}")
        if record.reason:
            line += f", reason {record.reason!r}"
        if record.materials:
            line += ", materials " + ", ".join(m.id for m in record.materials)
        return line
    line = (f"attempt {record.digest} for request key {record.request_key}: channel "
            f"{record.channel}, plan {' '.join(record.plan)}, generation "
            f"{record.generation_id}, expires_at {record.expires_at}")
    if record.predecessor:
        line += f", predecessor {record.predecessor}"
    return line


def _first(nodes: Any, digest: str) -> str | None:
    ids = nodes.get(digest) if nodes else None
    return ids[0] if ids else None


# Public as ghattempt.store (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    AppendResult, BusinessAttemptStore, Journal, JournalOptions, JournalReader, Known,
    MaterialCheck, Planned, Restored, Session, Successor, default_journal_title,
):
    _exported.__module__ = "ghattempt.store"
del _exported
