"""``read``, ``capture`` and ``status``: the journal as the reader sees it.

Shape::

    read(argv: list[str]) -> int                 # the reader CLI, reporting the bundle digest
    capture(args) -> int                         # pages -> file or stdout
    status(args) -> int                          # table or --json verdict
    show(args) -> int                            # the timeline page, --html FILE
    current_reading(args) -> Reading             # verdict, URL, pages, configuration
    fetch_pages(args) -> tuple[list[dict], Target]
    verdict_for(pages, args, cfg, repository_id) -> Verdict

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

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.core import Verdict

__all__ = ["Reading", "Target", "capture", "current_reading", "current_verdict", "fetch_pages",
           "read", "show", "status", "timeline_page", "verdict_for", "write_page"]


class NoJournal(CliError):
    """The pull request has no journal yet (exit 1; ``status`` reports ``empty``)."""

    def __init__(self, message: str) -> None:
        super().__init__(1, message)


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
    from ghattempt.core._reader_main import run

    reader = _reader_digest()
    try:
        verdict, usage = run(argv, sys.stdin.buffer, reader)
    except Exception as exc:  # noqa: BLE001 -- any input ends in one verdict, as the bundle
        from ghattempt.core._journal import invalid_verdict

        verdict = invalid_verdict("bad_input", f"the reader could not read stdin "
                                  f"({type(exc).__name__})", None, reader)
        usage = ""
    if verdict is None:
        sys.stdout.write(usage.replace("business-attempt.pyz", "ghattempt read", 1))
        sys.stdout.flush()
        return 0
    _print_verdict(verdict)
    return verdict.exit_code


def _print_verdict(verdict: Verdict) -> None:
    out = json.dumps(verdict.to_json(), ensure_ascii=True, separators=(",", ":"))
    sys.stdout.buffer.write(out.encode("ascii") + b"\n")
    sys.stdout.buffer.flush()


def _number(gh: Any, args: Any, repository: tuple[str, str], cfg: LoadedConfig | None) -> int:
    if args.discussion is not None:
        if args.discussion < 1:
            raise CliError(2, "--discussion must be a number >= 1")
        return int(args.discussion)
    if args.pull_request is not None:
        from ghattempt.cli._store import find_journal_number

        found = find_journal_number(gh, args, repository, cfg)
        if found is None:
            raise NoJournal(f"no journal for pull request #{args.pull_request} in "
                            f"{repository[0]}/{repository[1]} yet (admit opens it)")
        return found
    raise CliError(2, "which journal? pass --discussion N (or --pull-request N)")


def fetch_pages(args: Any, cfg: LoadedConfig | None) -> tuple[list[dict[str, Any]], Target]:
    """Capture the journal ``args`` names, with a progress ticker on stderr.

    Raises:
        CliError: (2) no repository / journal named; GitHubError (exit 4).
    """
    owner, name = split_repository(args.repository)
    with connect(args) as gh:
        number = _number(gh, args, (owner, name), cfg)
        with Progress(gh, f"capturing {owner}/{name}#{number}"):
            pages = gh.capture_journal(owner, name, number)
    return pages, Target(owner, name, number)


def capture(args: Any) -> int:
    """``ghattempt capture``: the pages as one JSON array (UTF-8, then a newline)."""
    cfg = load_settings(args.config, required=False)
    pages, _target = fetch_pages(args, cfg)
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


def verdict_for(pages: object, args: Any, cfg: LoadedConfig | None,
                repository_id: str) -> Verdict:
    """The reader's verdict for ``pages`` with the reading options of ``args``."""
    from ghattempt.core import read_journal

    writer, writer_id = reader_identity(args, cfg)
    return read_journal(pages, writer=writer, repository_id=repository_id,
                        writer_id=writer_id, request_key=args.request_key,
                        server_url=args.server_url, max_records=args.max_records,
                        max_attempts=args.max_attempts, reader=_reader_digest())


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
    """Capture the journal ``args`` names (or read ``--capture``) and judge it."""
    cfg = load_settings(args.config, required=False, root=getattr(args, "config_root", None))
    target: Target | None = None
    if getattr(args, "capture", None):
        raw = sys.stdin.buffer.read() if args.capture == "-" else Path(args.capture).read_bytes()
        try:
            pages: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise CliError(2, f"{args.capture}: not UTF-8 JSON ({exc})") from None
    else:
        try:
            pages, target = fetch_pages(args, cfg)
        except NoJournal as missing:
            return Reading(_no_journal(args, missing.message), None, None, cfg)
    repository_id = (getattr(args, "repository_id", None) or _captured_repository_id(pages)
                     or "")
    verdict = verdict_for(pages, args, cfg, repository_id)
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
        raise CliError(1, f"{reading.verdict.detail}; there is no timeline to show yet")
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
