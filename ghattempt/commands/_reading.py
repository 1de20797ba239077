"""The reading use cases: a journal as the reader sees it.

Shape::

    read(request: Status | Show, config, connection) -> Reading
    capture(request: Capture, config, connection) -> JournalPages
    Reading(verdict, url, pages, cfg, writer, writer_id)
    reader_identity(writer, writer_id, cfg, viewer) -> tuple[str, int | None]
    verdict_for(pages, request, cfg, repository_id, viewer, *, request_key) -> Verdict

``read`` reads exactly as the reader does (``ghattempt.core.read_journal``, spec
journal-v1 sections 5-10), so a verdict is the one ``ghattempt read`` prints for the
same capture and arguments. The request key a reading reads is the one its writers
write under (``ghattempt.commands._keys.request_key`` with the journal's own intent).
The pages are handed on as they are (opaque here): to the reader, and to the renderers.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ghattempt.commands._connection import Connection, connect, journal_url
from ghattempt.commands._errors import CommandError, NoJournal
from ghattempt.commands._requests import Capture, Show, Status, _Read, split_repository
from ghattempt.errors import Fault

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.core import Intent, Verdict
    from ghattempt.github import GitHubProvider, Identity, Repository

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
    """A journal's pages as the reader takes them, and where they are: the repository
    (``owner/name``) and the Discussion's number, and who the token is (``viewer``)."""

    pages: Any
    repository: str
    number: int
    viewer: Identity | None


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
                first = gh.capture_journal(owner, name, number)
                intent = _intent_of(first)
                if intent is None or intent.repository_id != repo.id:
                    pages = first  # not a journal of this repository: the reader says so
                else:
                    pages = _witnessed(gh, request, cfg, repo, number, intent, connection)
        elif known is not None:
            # where an earlier step of the job found the journal: read in one request,
            # every part checked (ghattempt.store.Known), else located afresh
            from ghattempt.core import lease_ref_name

            start = gh.writer_read(owner, name, lease=lease_ref_name(
                known.intent, known.repository_id), number=known.number)
            repo = start.repository
            store = _reading_store(gh, request, repo, cfg, connection)
            journal = store.prime(start, known)
            first_page = start.page
            if journal is None or (request.base_ref and request.base_ref != known.base_ref):
                journal, store = _locate(gh, request, owner, name, cfg, connection)
                first_page = None
            if journal is None:
                raise NoJournal(f"no journal for pull request #{request.pull_request} in "
                                f"{owner}/{name} yet (admit opens it)")
            number = journal.number
            pages = store.capture_witnessed(journal, first_page=first_page)
        else:
            journal, store = _locate(gh, request, owner, name, cfg, connection)
            if journal is None:
                raise NoJournal(f"no journal for pull request #{request.pull_request} in "
                                f"{owner}/{name} yet (admit opens it)")
            number = journal.number
            with _progress(connection, gh, f"capturing {owner}/{name}#{number}"):
                pages = store.capture_witnessed(journal)
    assert repo is not None
    return JournalPages(pages, f"{owner}/{name}", number, repo.viewer)


def _witnessed(gh: GitHubProvider, request: _Read, cfg: LoadedConfig | None,
               repo: Repository, number: int, intent: Intent,
               connection: Connection) -> Any:
    """The journal with its lease member, read again (a few times, with backoff) while
    the pages hold fewer records than the witness names (replicas lag): the store's rule
    (``ghattempt.store.capture_until_witnessed``), without loading its writer side."""
    from ghattempt.core import lease_ref_name
    from ghattempt.store import Captured as Read
    from ghattempt.store import capture_until_witnessed, witness_in

    lease = lease_ref_name(intent.digest, repo.id)
    notice = _notice(connection)
    reading = request if isinstance(request, Status) else None

    def read() -> Read:
        pages = list(gh.capture_with_lease(repo.owner, repo.name, number, lease).pages)
        return Read(verdict_for(pages, reading, cfg, repo.id, repo.viewer), pages,
                    witness_in(pages))

    def sleep(action: Any) -> None:
        if action.notice is not None:
            notice(action.notice)
        gh.config.sleep(action.seconds)

    policy = gh.config.retry
    got, _ = capture_until_witnessed(read, sleep, attempts=policy.lag_attempts,
                                     base=policy.lag_base, cap=policy.lag_cap)
    return got.pages


def _intent_of(pages: Any) -> Intent | None:
    """The intent record in the journal body of a first page, if it holds one."""
    from ghattempt.core import Intent, JournalInvalid, parse_body

    try:
        body = pages[0]["data"]["repository"]["discussion"]["body"]
        record = parse_body(body, "intent")
    except (LookupError, TypeError, JournalInvalid):
        return None
    return record if isinstance(record, Intent) else None


def capture(request: Capture, config: LoadedConfig | None,
            connection: Connection) -> JournalPages:
    """``capture``: the journal's pages as the reader takes them (module docstring)."""
    return _capture(request, config, connection)


def _channel_request_key(request: Status, cfg: LoadedConfig | None, pages: Any) -> str | None:
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
    intent = _intent_of(pages) if isinstance(pages, list) and pages else None
    if intent is None:
        return None
    from ghattempt.commands._keys import request_key

    return request_key(cfg, given=None, repository_id=intent.repository_id,
                       pull_request=intent.pull_request, base_ref=intent.base_ref,
                       channel=request.channel)


def verdict_for(pages: object, request: Status | None, cfg: LoadedConfig | None,
                repository_id: str, viewer: Identity | None = None, *,
                request_key: str | None = None) -> Verdict:
    """The reader's verdict for ``pages`` with the reading options of ``request`` (None:
    the reader's defaults, as ``capture`` reads; ``viewer``: who the token is, whose
    databaseId stands in for a writer id nobody gave when the token is that writer;
    ``request_key``: the chain to read, default the request's)."""
    from ghattempt.core import read_journal

    if request is None:
        request = Status()
    writer, writer_id = reader_identity(request.writer, request.writer_id, cfg, viewer)
    key = request_key if request_key is not None else request.request_key
    return read_journal(pages, writer=writer, repository_id=repository_id,
                        writer_id=writer_id, request_key=key, server_url=request.server_url,
                        max_records=request.max_records, max_attempts=request.max_attempts,
                        reader=reader_digest())


def _captured_repository_id(pages: object) -> str | None:
    items = pages if isinstance(pages, list) else [pages]
    for page in items:
        repo = ((page or {}).get("data") or {}).get("repository") if isinstance(page, dict) \
            else None
        if isinstance(repo, dict) and isinstance(repo.get("id"), str):
            return str(repo["id"])
    return None


@dataclass(frozen=True, slots=True)
class Reading:
    """What one read of a journal gives: the verdict, the journal's URL (None when
    unknown), the captured pages (None when there is no journal yet; opaque), the
    configuration the reading options came from (None when there was no file), and
    whose records counted (``writer``, ``writer_id``)."""

    verdict: Verdict
    url: str | None
    pages: Any
    cfg: LoadedConfig | None
    writer: str
    writer_id: int | None


def read(request: Status | Show, config: LoadedConfig | None,
         connection: Connection) -> Reading:
    """Capture the journal the request names (or read its capture file) and judge it;
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
    if status.capture:
        raw = sys.stdin.buffer.read() if status.capture == "-" \
            else Path(status.capture).read_bytes()
        try:
            pages: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise CommandError(Fault.BAD_INPUT,
                               f"{status.capture}: not UTF-8 JSON ({exc})") from None
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
        pages, viewer = target.pages, target.viewer
    repository_id = status.repository_id or _captured_repository_id(pages) or ""
    verdict = verdict_for(pages, status, config, repository_id, viewer,
                          request_key=_channel_request_key(status, config, pages))
    url = None
    if target is not None:
        url = journal_url(status.server_url, target.repository, target.number)
    elif verdict.journal is not None:
        url = journal_url(status.server_url, verdict.journal.repository_name,
                          verdict.journal.discussion_number)
    return Reading(verdict, url, pages, config, writer, writer_id)


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
