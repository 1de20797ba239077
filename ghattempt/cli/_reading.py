"""``read``, ``capture`` and ``status``: the journal as the reader sees it.

Shape::

    read(argv: list[str]) -> int                 # the reader CLI, reporting the bundle digest
    capture(args) -> int                         # pages -> file or stdout
    status(args) -> int                          # table or --json verdict
    show(args) -> int                            # the timeline page, --html FILE
    current_reading(args) -> Reading             # verdict, URL, pages, configuration
    fetch_pages(args, cfg) -> tuple[list[dict], Target, Identity | None]
    verdict_for(pages, args, cfg, repository_id, viewer) -> Verdict

``status`` reads exactly as the reader does (``ghattempt.core.read_journal``, spec
journal-v1 sections 5-10), so its ``--json`` output is the line ``read`` would print for
the same capture and arguments, and its exit status is the reader's (0 valid, 3 invalid,
2 bad input or arguments) or 4 when GitHub could not be read.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ghattempt.cli._context import (
    Progress,
    connect,
    journal_url,
    load_settings,
    reader_identity,
    split_repository,
)
from ghattempt.cli._errors import CliError
from ghattempt.errors import Fault

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.core import Intent, Verdict
    from ghattempt.github import Identity

__all__ = ["Reading", "Target", "capture", "current_reading", "current_verdict", "fetch_pages",
           "read", "show", "status", "timeline_page", "verdict_for", "write_page"]


class NoJournal(CliError):
    """The pull request has no journal yet (exit 1; ``status`` reports ``empty``)."""

    fault = Fault.REFUSED

    def __init__(self, message: str) -> None:
        super().__init__(Fault.REFUSED, message)


@dataclass(frozen=True, slots=True)
class Target:
    """The journal a command works on: repository ``owner/name`` and Discussion number."""

    owner: str
    name: str
    number: int

    @property
    def repository(self) -> str:
        return f"{self.owner}/{self.name}"


def _reader_digest() -> str | None:
    from ghattempt.readers import reader_digest

    try:
        return reader_digest()
    except (OSError, ValueError):
        return None


def read(argv: list[str]) -> int:
    """The reader (spec journal-v1 sections 6 and 10) on stdin, from the installed core.

    Same arguments, stdout and exit status as ``readers/business-attempt.pyz``; the
    ``reader`` field names the committed bundle's digest (the bundle is built from this
    core).
    """
    from ghattempt.core import run_reader as run

    reader = _reader_digest()
    refused = _secret_request_key(argv)
    if refused is not None and "--help" not in argv:
        from ghattempt.core import invalid_verdict

        # the reader echoes the request key in its verdict: never a token (docs/cli.md)
        _print_verdict(invalid_verdict("bad_arguments", refused, None, reader))
        return 2
    try:
        verdict, usage = run(argv, sys.stdin.buffer, reader)
    except Exception as exc:  # noqa: BLE001 -- any input ends in one verdict, as the bundle
        from ghattempt.core import invalid_verdict

        verdict = invalid_verdict("bad_input", f"the reader could not read stdin "
                                  f"({type(exc).__name__})", None, reader)
        usage = ""
    if verdict is None:
        sys.stdout.write(usage.replace("business-attempt.pyz", "ghattempt read", 1))
        sys.stdout.flush()
        return 0
    _print_verdict(verdict)
    return verdict.exit_code


_READING_VERBATIM = {"request_key": "--request-key"}
"""The reading options a verdict echoes: refused when they hold a token
(``ghattempt.cli._secrets``)."""
_ECHOED = "printed in the verdict"


def _secret_request_key(argv: list[str]) -> str | None:
    """The refusal of a reader's ``--request-key`` value (any token after that flag: at
    least what the verdict could echo) that holds a token or is shaped like one (the
    message names the option, never the value), else None."""
    from types import SimpleNamespace

    from ghattempt.cli._secrets import refuse_secrets

    for flag, value in zip(argv, argv[1:], strict=False):
        if flag != "--request-key":
            continue
        try:
            refuse_secrets(SimpleNamespace(request_key=value), _READING_VERBATIM, _ECHOED)
        except CliError as exc:
            return exc.message
    return None


def _print_verdict(verdict: Verdict) -> None:
    out = json.dumps(verdict.to_json(), ensure_ascii=True, separators=(",", ":"))
    sys.stdout.buffer.write(out.encode("ascii") + b"\n")
    sys.stdout.buffer.flush()


def fetch_pages(args: Any, cfg: LoadedConfig | None) -> tuple[list[dict[str, Any]], Target,
                                                            Identity | None]:
    """Capture the journal ``args`` names with its lease ref (spec journal-v1 section 5:
    the reader checks the journal against the lease's witness), with a progress ticker
    on stderr; also who the token is (``viewer``).

    ``--pull-request``: the journal is located as a writer finds it (the scope's lease
    names it; else the category scan), then captured with the lease member.
    ``--discussion N``: its first page names the intent, whose lease ref is then read
    with the capture (one page more). Pages holding fewer records than the lease's
    witness are read again a few times (replicas lag) before they are handed over.

    Raises:
        CliError: (2) no repository / journal named; NoJournal (the pull request has none
            yet); JournalMissing (exit 3: the lease names a journal that is gone or
            moved); GitHubError (exit 4).
    """
    owner, name = split_repository(args.repository)
    if args.discussion is None and args.pull_request is None:
        raise CliError(Fault.BAD_INPUT, "which journal? pass --discussion N (or --pull-request N)")
    if args.discussion is not None and args.discussion < 1:
        raise CliError(Fault.BAD_INPUT, "--discussion must be a number >= 1")
    with connect(args) as gh:
        known = getattr(args, "known", None)
        repo = gh.repository(owner, name) if known is None or args.discussion else None
        if args.discussion is not None:
            assert repo is not None
            number = int(args.discussion)
            with Progress(gh, f"capturing {owner}/{name}#{number}"):
                first = gh.capture_journal(owner, name, number)
                intent = _intent_of(first)
                if intent is None or intent.repository_id != repo.id:
                    pages = first  # not a journal of this repository: the reader says so
                else:
                    pages = _witnessed(gh, args, cfg, repo, number, intent)
        elif args.pull_request is not None and known is not None:
            # where an earlier step of the job found the journal: read in one request,
            # every part checked (ghattempt.store.Known), else located afresh
            from ghattempt.cli._store import locate_journal, reading_store
            from ghattempt.core import lease_ref_name

            start = gh.writer_read(owner, name, lease=lease_ref_name(
                known.intent, known.repository_id), number=known.number)
            repo = start.repository
            store = reading_store(gh, args, repo, cfg)
            journal = store.prime(start, known)
            first_page = start.page
            if journal is None or (args.base_ref and args.base_ref != known.base_ref):
                journal, store = locate_journal(gh, args, (owner, name), cfg)
                first_page = None
            if journal is None:
                raise NoJournal(f"no journal for pull request #{args.pull_request} in "
                                f"{owner}/{name} yet (admit opens it)")
            number = journal.number
            pages = store.capture_witnessed(journal, first_page=first_page)
        elif args.pull_request is not None:
            from ghattempt.cli._store import locate_journal

            journal, store = locate_journal(gh, args, (owner, name), cfg)
            if journal is None:
                raise NoJournal(f"no journal for pull request #{args.pull_request} in "
                                f"{owner}/{name} yet (admit opens it)")
            number = journal.number
            with Progress(gh, f"capturing {owner}/{name}#{number}"):
                pages = store.capture_witnessed(journal)
        else:
            raise CliError(Fault.BAD_INPUT,
                           "which journal? pass --discussion N (or --pull-request N)")
    assert repo is not None
    return pages, Target(owner, name, number), repo.viewer


def _witnessed(gh: Any, args: Any, cfg: LoadedConfig | None, repo: Any, number: int,
               intent: Intent) -> list[dict[str, Any]]:
    """The journal with its lease member, read again (a few times, with backoff) while
    the pages hold fewer records than the witness names (replicas lag): the rule of
    ``ghattempt.store._protocol.Capture``, without loading the store's writer side."""
    from ghattempt.cli._context import notice_hook
    from ghattempt.core import lease_ref_name
    from ghattempt.store import Captured, capture_until_witnessed, witness_in

    lease = lease_ref_name(intent.digest, repo.id)
    notice = notice_hook(args)

    def read() -> Captured:
        pages = list(gh.capture_with_lease(repo.owner, repo.name, number, lease).pages)
        return Captured(verdict_for(pages, args, cfg, repo.id, repo.viewer), pages,
                        witness_in(pages))

    def sleep(action: Any) -> None:
        if action.notice is not None:
            notice(action.notice)
        gh.config.sleep(action.seconds)

    policy = gh.config.retry
    got, _ = capture_until_witnessed(read, sleep, attempts=policy.lag_attempts,
                                     base=policy.lag_base, cap=policy.lag_cap)
    pages: list[dict[str, Any]] = got.pages
    return pages


def _intent_of(pages: list[dict[str, Any]]) -> Intent | None:
    """The intent record in the journal body of a first page, if it holds one."""
    from ghattempt.core import Intent, JournalInvalid, parse_body

    try:
        body = pages[0]["data"]["repository"]["discussion"]["body"]
        record = parse_body(body, "intent")
    except (LookupError, TypeError, JournalInvalid):
        return None
    return record if isinstance(record, Intent) else None


def capture(args: Any) -> int:
    """``ghattempt capture``: the pages as one JSON array (UTF-8, then a newline)."""
    cfg = load_settings(args.config, required=False)
    pages, _target, _viewer = fetch_pages(args, cfg)
    text = json.dumps(pages, ensure_ascii=False, separators=(",", ":")) + "\n"
    if args.output in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        tmp = args.output + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.output)
        print(f"wrote {len(pages)} page{'s' if len(pages) != 1 else ''} to {args.output}",
              file=sys.stderr)
    return 0


def channel_request_key(args: Any, cfg: LoadedConfig | None, pages: Any) -> str | None:
    """The request key a reading command reads: ``--request-key`` when given; else, with
    a configuration file, ``attempt.request_key`` rendered for ``--channel`` (default:
    ``attempt.default_channel``) and the journal's own intent record, the key the writers
    of that channel write under (docs/cli.md, "Reading"); else None (the reader then
    asks for one only when the journal holds several).

    Raises:
        ConfigError: (2) ``--channel`` names no channel of the configuration.
    """
    given = getattr(args, "request_key", None)
    if given or cfg is None:
        return given
    intent = _intent_of(pages) if isinstance(pages, list) and pages else None
    if intent is None:
        return None
    return cfg.request_key(repository_id=intent.repository_id,
                           pull_request=intent.pull_request, base_ref=intent.base_ref,
                           channel=getattr(args, "channel", None))


def verdict_for(pages: object, args: Any, cfg: LoadedConfig | None,
                repository_id: str, viewer: Identity | None = None, *,
                request_key: str | None = None) -> Verdict:
    """The reader's verdict for ``pages`` with the reading options of ``args``
    (``viewer``: who the token is, whose databaseId stands in for a writer id nobody
    gave when the token is that writer; ``request_key``: the chain to read, default
    ``args.request_key``)."""
    from ghattempt.core import read_journal

    writer, writer_id = reader_identity(args, cfg, viewer)
    key = request_key if request_key is not None else getattr(args, "request_key", None)
    # `capture` has no reading options: the reader's defaults
    return read_journal(pages, writer=writer, repository_id=repository_id,
                        writer_id=writer_id, request_key=key,
                        server_url=getattr(args, "server_url", None),
                        max_records=getattr(args, "max_records", 1000),
                        max_attempts=getattr(args, "max_attempts", 100),
                        reader=_reader_digest())


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
    unknown), the captured pages (None when there is no journal yet) and the
    configuration the reading options came from (None when there was no file)."""

    verdict: Verdict
    url: str | None
    pages: Any
    cfg: LoadedConfig | None


def current_reading(args: Any) -> Reading:
    """Capture the journal ``args`` names (or read ``--capture``) and judge it.

    Raises:
        CliError: (2) a ``--request-key`` holding a token or shaped like one (the
            verdict would echo it).
    """
    from ghattempt.cli._secrets import refuse_secrets

    refuse_secrets(args, _READING_VERBATIM, _ECHOED)
    cfg = load_settings(args.config, required=False, root=getattr(args, "config_root", None))
    reader_identity(args, cfg)  # a --writer that is no GraphQL login: exit 2 before reading
    target: Target | None = None
    viewer: Identity | None = None
    if getattr(args, "capture", None):
        raw = sys.stdin.buffer.read() if args.capture == "-" else Path(args.capture).read_bytes()
        try:
            pages: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise CliError(Fault.BAD_INPUT, f"{args.capture}: not UTF-8 JSON ({exc})") from None
    else:
        try:
            pages, target, viewer = fetch_pages(args, cfg)
        except NoJournal as missing:
            return Reading(_no_journal(args, missing.message), None, None, cfg)
    repository_id = (getattr(args, "repository_id", None) or _captured_repository_id(pages)
                     or "")
    verdict = verdict_for(pages, args, cfg, repository_id, viewer,
                          request_key=channel_request_key(args, cfg, pages))
    url = None
    if target is not None:
        url = journal_url(args.server_url, target.repository, target.number)
    elif verdict.journal is not None:
        url = journal_url(args.server_url, verdict.journal.repository_name,
                          verdict.journal.discussion_number)
    return Reading(verdict, url, pages, cfg)


def current_verdict(args: Any) -> tuple[Verdict, str | None]:
    """Capture the journal ``args`` names (or read ``--capture``) and judge it.

    Returns:
        The reader's verdict and the journal's web URL (None when unknown).
    """
    reading = current_reading(args)
    return reading.verdict, reading.url


def timeline_page(pages: Any, verdict: Verdict, args: Any,
                  cfg: LoadedConfig | None) -> tuple[str, int]:
    """The timeline page (``ghattempt.cli._timeline``) of captured ``pages``, read with
    the same writer identity as ``verdict``, and how many attempts it shows."""
    from ghattempt.cli._timeline import build_timeline, render_html

    writer, writer_id = reader_identity(args, cfg)
    timeline = build_timeline(pages, verdict, writer=writer, writer_id=writer_id,
                              server_url=getattr(args, "server_url", None))
    return render_html(timeline), len(timeline.lanes)


def write_page(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (``-``: stdout) through a temporary file beside it."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def show(args: Any) -> int:
    """``ghattempt show --html FILE``: the journal's timeline page; prints its path."""
    reading = current_reading(args)
    if reading.pages is None:
        raise CliError(Fault.REFUSED, f"{reading.verdict.detail}; there is no timeline to show yet")
    page, lanes = timeline_page(reading.pages, reading.verdict, args, reading.cfg)
    write_page(args.html, page)
    if args.html != "-":
        print(f"wrote the timeline of {lanes} attempt(s) (journal {reading.verdict.status}) "
              f"to {args.html}")
    return reading.verdict.exit_code


def _no_journal(args: Any, detail: str) -> Verdict:
    """Section 10's ``empty`` verdict for a pull request whose journal does not exist
    yet: no attempt for the key, recovery ``admit``."""
    from ghattempt.core import Verdict, recovery_for

    key = args.request_key
    return Verdict("empty", None, None, key, None, None, (), recovery_for("empty"), (), 0,
                   detail, 0, _reader_digest())


def status(args: Any) -> int:
    """``ghattempt status``: capture (or ``--capture FILE``), read, print."""
    verdict, url = current_verdict(args)
    if args.json:
        _print_verdict(verdict)
        return verdict.exit_code
    from ghattempt.cli._render import text_report

    sys.stdout.write(text_report(verdict, url))
    sys.stdout.flush()
    return verdict.exit_code


# Public as ghattempt.cli.shared (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    current_reading, timeline_page, write_page,
):
    _exported.__module__ = "ghattempt.cli.shared"
del _exported
