"""The reading use cases: a journal as the reader sees it.

Shape::

    read(request: Status | Show, config, connection) -> Reading
    capture(request: CaptureJournal, config, connection) -> JournalPages
    Reading(verdict, url, capture, cfg, writer, writer_id)
    reader_identity(writer, writer_id, cfg, viewer) -> tuple[str, int | None]
    verdict_for(capture, request, cfg, repository_id, viewer, *, request_key) -> Verdict

``read`` reads exactly as the reader does (``ghattempt.core.read_capture``, spec
journal-v1 sections 5-10), so a verdict is the one ``ghattempt read`` prints for the
same capture and arguments. The request key a reading reads is the one its writers
write under (``ghattempt.commands._keys.request_key`` with the journal's own intent).
What is read is the typed :class:`ghattempt.core.Capture` the core parses GitHub's
responses into (or the one a face parsed from a capture file, ``Status.capture``); the
responses themselves are only moved, to be saved as they came (``capture``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ghattempt.commands._connection import Connection, connect, journal_url
from ghattempt.commands._errors import CommandError, NoJournal
from ghattempt.commands._requests import CaptureJournal, Show, Status, _Read, split_repository
from ghattempt.errors import Fault

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.core import Capture, Intent, JournalInvalid, Verdict
    from ghattempt.github import (
        CaptureResult,
        GitHubProvider,
        Identity,
        Repository,
        WriterStart,
    )

__all__ = ["JournalPages", "Reading", "capture", "read", "reader_digest", "reader_identity",
           "verdict_for"]


def reader_digest() -> str | None:
    """The committed reader bundle's digest (the ``reader`` field of a verdict), or None
    when the bundle is not installed."""
    from ghattempt.readers import reader_digest as digest

    try:
        return digest()
    except (OSError, ValueError):
        return None


def reader_identity(writer: str | None, writer_id: int | None, cfg: LoadedConfig | None,
                    viewer: Identity | None = None) -> tuple[str, int | None]:
    """Whose records count: ``writer`` (with ``writer_id``), else the configuration's
    ``[writer]``, else ``github-actions`` (the configuration's own defaults). Without a
    databaseId, the token's own (``viewer``, learned from the configured host) when the
    token is that writer: the Actions bot's id differs per host, so none is assumed."""
    if not writer:
        if cfg is not None:
            writer, writer_id = cfg.settings.writer.login, cfg.settings.writer.database_id
        else:
            from ghattempt.config import WriterSettings

            default = WriterSettings()
            writer, writer_id = default.login, default.database_id
    if writer_id is None and viewer is not None and viewer.author_login == writer:
        writer_id = viewer.database_id
    return writer, writer_id


@dataclass(frozen=True, slots=True)
class JournalPages:
    """A captured journal and where it is: what the capture read (``captured``: the
    responses as GitHub sent them and the capture parsed from them), the repository
    (``owner/name``) and the Discussion's number, and who the token is (``viewer``)."""

    captured: CaptureResult
    repository: str
    number: int
    viewer: Identity | None

    @property
    def pages(self) -> tuple[Any, ...]:
        """The responses as GitHub sent them, in request order: what the reader takes on
        stdin, for saving byte for byte (``ghattempt capture``); read through
        :attr:`capture`."""
        return self.captured.pages

    @property
    def capture(self) -> Capture | JournalInvalid:
        """The capture the core parsed the responses into (or why they are none)."""
        return self.captured.capture


def _notice(connection: Connection) -> Any:
    return connection.notice if connection.notice is not None else (lambda line: None)


def _progress(connection: Connection, gh: GitHubProvider, what: str) -> Any:
    from contextlib import nullcontext

    return nullcontext() if connection.progress is None else connection.progress(gh, what)


def _reading_store(gh: GitHubProvider, request: _Read, repo: Repository,
                   cfg: LoadedConfig | None, connection: Connection) -> Any:
    """A store that only reads (``ghattempt.compose.reading_store``: no lease, no writer)
    with the reading options (``capture`` has none: the configuration's [writer] finds
    the journal)."""
    from ghattempt.compose import reading_store

    writer, writer_id = reader_identity(request.writer, request.writer_id, cfg, repo.viewer)
    return reading_store(gh, cfg, repository=repo.name_with_owner, repository_id=repo.id,
                         known=repo, writer_login=writer, writer_id=writer_id,
                         notice=_notice(connection))


def _locate(gh: GitHubProvider, request: _Read, owner: str, name: str,
            cfg: LoadedConfig | None, connection: Connection) -> tuple[Any, Any]:
    """The journal of the request's pull request into its base branch (or the pull
    request's own), or None when there is none yet, and the store that found it: one
    lease ref read when the scope's lease names it, else the category scan
    (docs/store.md)."""
    assert request.pull_request is not None
    repo = gh.repository(owner, name)
    base_ref = request.base_ref or gh.pull_request(owner, name,
                                                   request.pull_request).base_ref_name
    store = _reading_store(gh, request, repo, cfg, connection)
    return store.locate(request.pull_request, base_ref), store


def _capture(request: _Read, cfg: LoadedConfig | None, connection: Connection) -> JournalPages:
    """Capture the journal the request names with its lease ref (spec journal-v1
    section 5: the reader checks the journal against the lease's witness), with the
    connection's progress shown; also who the token is (``viewer``).

    A pull request's journal is located as a writer finds it (the scope's lease names
    it; else the category scan), then captured with the lease member. A Discussion's
    first page names the intent, whose lease ref is then read with the capture (one
    page more). Pages holding fewer records than the lease's witness are read again a
    few times (replicas lag) before they are handed over.

    Raises:
        CommandError: (bad input) no repository / journal named; NoJournal (the pull
            request has none yet); JournalMissing (the lease names a journal that is
            gone or moved); GitHubError.
    """
    owner, name = split_repository(request.repository)
    if request.discussion is None and request.pull_request is None:
        raise CommandError(Fault.BAD_INPUT,
                           "which journal? pass --discussion N (or --pull-request N)")
    if request.discussion is not None and request.discussion < 1:
        raise CommandError(Fault.BAD_INPUT, "--discussion must be a number >= 1")
    known = connection.known
    with connect(connection) as gh:
        repo = gh.repository(owner, name) if known is None or request.discussion else None
        if request.discussion is not None:
            assert repo is not None
            number = int(request.discussion)
            with _progress(connection, gh, f"capturing {owner}/{name}#{number}"):
                first = gh.capture(owner, name, number)
                intent = _intent_of(first.capture)
                if intent is None or intent.repository_id != repo.id:
                    captured = first  # not a journal of this repository: the reader says so
                else:
                    captured = _witnessed(gh, request, cfg, repo, number, intent, connection)
        elif known is not None:
            # where an earlier step of the job found the journal: read in one request,
            # every part checked (ghattempt.store.Known), else located afresh
            from ghattempt.core import lease_ref_name

            start = gh.writer_read(owner, name, lease=lease_ref_name(
                known.intent, known.repository_id), number=known.number)
            repo = start.repository
            store = _reading_store(gh, request, repo, cfg, connection)
            journal = store.prime(start, known)
            primed: WriterStart | None = start
            if journal is None or (request.base_ref and request.base_ref != known.base_ref):
                journal, store = _locate(gh, request, owner, name, cfg, connection)
                primed = None
            if journal is None:
                raise NoJournal(f"no journal for pull request #{request.pull_request} in "
                                f"{owner}/{name} yet (admit opens it)")
            number = journal.number
            captured = store.capture_witnessed(journal, start=primed)
        else:
            journal, store = _locate(gh, request, owner, name, cfg, connection)
            if journal is None:
                raise NoJournal(f"no journal for pull request #{request.pull_request} in "
                                f"{owner}/{name} yet (admit opens it)")
            number = journal.number
            with _progress(connection, gh, f"capturing {owner}/{name}#{number}"):
                captured = store.capture_witnessed(journal)
    assert repo is not None
    return JournalPages(captured, f"{owner}/{name}", number, repo.viewer)


def _witnessed(gh: GitHubProvider, request: _Read, cfg: LoadedConfig | None,
               repo: Repository, number: int, intent: Intent,
               connection: Connection) -> CaptureResult:
    """The journal with its lease member, read again (a few times, with backoff) while
    the capture holds fewer records than the witness names (replicas lag): the store's
    rule (``ghattempt.store.capture_until_witnessed``), without loading its writer side."""
    from ghattempt.core import Capture, lease_ref_name
    from ghattempt.store import Captured as Read
    from ghattempt.store import capture_until_witnessed, witness_in

    lease = lease_ref_name(intent.digest, repo.id)
    notice = _notice(connection)
    reading = request if isinstance(request, Status) else None
    reads: list[CaptureResult] = []

    def read() -> Read:
        reads.append(gh.capture_with_lease(repo.owner, repo.name, number, lease))
        capture = reads[-1].capture
        return Read(verdict_for(capture, reading, cfg, repo.id, repo.viewer),
                    capture if isinstance(capture, Capture) else None,
                    witness_in(capture))

    def sleep(action: Any) -> None:
        if action.notice is not None:
            notice(action.notice)
        gh.config.sleep(action.seconds)

    policy = gh.config.retry
    capture_until_witnessed(read, sleep, attempts=policy.lag_attempts,
                            base=policy.lag_base, cap=policy.lag_cap)
    return reads[-1]


def _intent_of(capture: Capture | JournalInvalid | None) -> Intent | None:
    """The intent record in the journal body of a capture, if it holds one."""
    from ghattempt.core import Capture, Intent, JournalInvalid, parse_body

    if not isinstance(capture, Capture):
        return None
    try:
        record = parse_body(capture.body.body, "intent")
    except JournalInvalid:
        return None
    return record if isinstance(record, Intent) else None


def capture(request: CaptureJournal, config: LoadedConfig | None,
            connection: Connection) -> JournalPages:
    """``capture``: the journal's pages as the reader takes them (module docstring)."""
    return _capture(request, config, connection)


def _channel_request_key(request: Status, cfg: LoadedConfig | None,
                         capture: Capture | JournalInvalid) -> str | None:
    """The request key a reading reads: the one given; else, with a configuration, its
    template rendered for the request's channel (default: ``attempt.default_channel``)
    and the journal's own intent record, the key the writers of that channel write under
    (docs/cli.md, "Reading"); else None (the reader then asks for one only when the
    journal holds several).

    Raises:
        ConfigError: (bad input) the channel names no channel of the configuration.
    """
    if request.request_key or cfg is None:
        return request.request_key
    intent = _intent_of(capture)
    if intent is None:
        return None
    from ghattempt.commands._keys import request_key

    return request_key(cfg, given=None, repository_id=intent.repository_id,
                       pull_request=intent.pull_request, base_ref=intent.base_ref,
                       channel=request.channel)


def verdict_for(capture: Capture | JournalInvalid, request: Status | None,
                cfg: LoadedConfig | None, repository_id: str, viewer: Identity | None = None,
                *, request_key: str | None = None) -> Verdict:
    """The reader's verdict for ``capture`` (or for the ``JournalInvalid`` its responses
    gave when parsed) with the reading options of ``request`` (None: the reader's
    defaults, as ``capture`` reads; ``viewer``: who the token is, whose databaseId
    stands in for a writer id nobody gave when the token is that writer;
    ``request_key``: the chain to read, default the request's)."""
    from ghattempt.core import read_capture

    if request is None:
        request = Status()
    writer, writer_id = reader_identity(request.writer, request.writer_id, cfg, viewer)
    key = request_key if request_key is not None else request.request_key
    return read_capture(capture, writer=writer, repository_id=repository_id,
                        writer_id=writer_id, request_key=key, server_url=request.server_url,
                        max_records=request.max_records, max_attempts=request.max_attempts,
                        reader=reader_digest())


@dataclass(frozen=True, slots=True)
class Reading:
    """What one read of a journal gives: the verdict, the journal's URL (None when
    unknown), the capture read (None when there is no journal yet; the
    ``JournalInvalid`` of responses that did not parse, which the verdict names), the
    configuration the reading options came from (None when there was no file), and
    whose records counted (``writer``, ``writer_id``)."""

    verdict: Verdict
    url: str | None
    capture: Capture | JournalInvalid | None
    cfg: LoadedConfig | None
    writer: str
    writer_id: int | None


def read(request: Status | Show, config: LoadedConfig | None,
         connection: Connection) -> Reading:
    """Capture the journal the request names (or take the capture it holds) and judge it;
    ``show`` also needs a journal to show.

    Raises:
        RequestError: (bad input) a request key holding a token or shaped like one (the
            verdict would echo it), under the connection's token variable.
        CommandError: (refused) ``show`` with no journal yet; as :func:`capture`.
    """
    status = request.reading if isinstance(request, Show) else request
    status.refuse_secrets(connection.token_env)
    writer, writer_id = reader_identity(status.writer, status.writer_id, config)
    target: JournalPages | None = None
    viewer: Identity | None = None
    capture: Capture | JournalInvalid
    if status.capture is not None:
        capture = status.capture
    else:
        try:
            target = _capture(status, config, connection)
        except NoJournal as missing:
            reading = Reading(_no_journal(status, missing.message), None, None, config,
                              writer, writer_id)
            if isinstance(request, Show):
                raise CommandError(Fault.REFUSED, f"{reading.verdict.detail}; there is no "
                                   "timeline to show yet") from None
            return reading
        capture, viewer = target.capture, target.viewer
    repository_id = status.repository_id or _captured_repository_id(capture) or ""
    verdict = verdict_for(capture, status, config, repository_id, viewer,
                          request_key=_channel_request_key(status, config, capture))
    url = None
    if target is not None:
        url = journal_url(status.server_url, target.repository, target.number)
    elif verdict.journal is not None:
        url = journal_url(status.server_url, verdict.journal.repository_name,
                          verdict.journal.discussion_number)
    return Reading(verdict, url, capture, config, writer, writer_id)


def _captured_repository_id(capture: Capture | JournalInvalid) -> str | None:
    """The repository node id the capture is of (None: the responses did not parse)."""
    from ghattempt.core import Capture

    return capture.repository_id if isinstance(capture, Capture) else None


def _no_journal(request: Status, detail: str) -> Verdict:
    """Section 10's ``empty`` verdict for a pull request whose journal does not exist
    yet: no attempt for the key, recovery ``admit``."""
    from ghattempt.core import Verdict, recovery_for

    return Verdict("empty", None, None, request.request_key, None, None, (),
                   recovery_for("empty"), (), 0, detail, 0, reader_digest())


# Public as ghattempt.commands (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    JournalPages, Reading, capture, read, reader_digest, reader_identity, verdict_for,
):
    _exported.__module__ = "ghattempt.commands"
del _exported
