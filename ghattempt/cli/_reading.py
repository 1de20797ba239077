"""``read``, ``capture``, ``status`` and ``show``: the journal as the reader sees it.

Shape::

    read(argv: list[str]) -> int                 # the reader CLI, reporting the bundle digest
    capture(args) -> int                         # the responses -> file or stdout
    status(args) -> int                          # table or --json verdict
    show(args) -> int                            # the timeline page, --html FILE
    status_of(args) -> Status                    # the reading options as a request
    capture_file(path) -> Capture | JournalInvalid  # a --capture FILE, parsed here

``status`` reads exactly as the reader does (``ghattempt.commands.read``, with
``ghattempt.core.read_journal``, spec journal-v1 sections 5-10), so its ``--json``
output is the line ``read`` would print for the same capture and arguments, and its exit
status is the reader's (0 valid, 3 invalid, 2 bad input or arguments) or 4 when GitHub
could not be read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from ghattempt.cli._context import connection

if TYPE_CHECKING:
    from ghattempt.commands import Status
    from ghattempt.config import LoadedConfig
    from ghattempt.core import Capture, JournalInvalid, Verdict

__all__ = ["capture", "capture_file", "read", "show", "status", "status_of"]


def read(argv: list[str]) -> int:
    """The reader (spec journal-v1 sections 6 and 10) on stdin, from the installed core.

    Same arguments, stdout and exit status as ``readers/business-attempt.pyz``; the
    ``reader`` field names the committed bundle's digest (the bundle is built from this
    core).
    """
    from ghattempt.commands import reader_digest
    from ghattempt.core import run_reader as run

    reader = reader_digest()
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


def _secret_request_key(argv: list[str]) -> str | None:
    """The refusal of a reader's ``--request-key`` value (any token after that flag: at
    least what the verdict could echo) that holds a token or is shaped like one (the
    message names the option, never the value), else None."""
    from ghattempt.commands import RequestError, refuse_secrets

    for flag, value in zip(argv, argv[1:], strict=False):
        if flag != "--request-key":
            continue
        try:
            refuse_secrets({"--request-key": value}, None, "printed in the verdict")
        except RequestError as exc:
            return exc.message
    return None


def _print_verdict(verdict: Verdict) -> None:
    out = json.dumps(verdict.to_json(), ensure_ascii=True, separators=(",", ":"))
    sys.stdout.buffer.write(out.encode("ascii") + b"\n")
    sys.stdout.buffer.flush()


def status_of(args: argparse.Namespace) -> Status:
    """The reading request of ``status`` and ``show`` (its options), holding the journal
    of ``--capture FILE`` parsed (:func:`capture_file`) once the options are checked.

    Raises:
        RequestError: (bad input) a request key holding a token, a ``--writer`` that is
            no GraphQL login.
        CommandError: (bad input) the capture file is not UTF-8 JSON.
    """
    from dataclasses import replace

    from ghattempt.commands import Status

    request = Status(repository=args.repository, discussion=args.discussion,
                     pull_request=args.pull_request, base_ref=args.base_ref,
                     writer=args.writer, writer_id=args.writer_id,
                     repository_id=args.repository_id, request_key=args.request_key,
                     channel=args.channel, server_url=args.server_url,
                     max_records=args.max_records, max_attempts=args.max_attempts)
    if args.capture:
        request = replace(request, capture=capture_file(args.capture))
    return request


def capture_file(path: str) -> Capture | JournalInvalid:
    """A capture file (``-``: standard input), parsed where it is read: what the reader
    takes on stdin (a GraphQL response or an array of them) as the core parses it
    (``ghattempt.core.parse_capture``), or the ``JournalInvalid`` parsing raised, which
    the verdict names.

    Raises:
        CommandError: (bad input) the file is not UTF-8 JSON.
    """
    from pathlib import Path

    from ghattempt.commands import CommandError
    from ghattempt.core import JournalInvalid, parse_capture
    from ghattempt.errors import Fault

    raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CommandError(Fault.BAD_INPUT, f"{path}: not UTF-8 JSON ({exc})") from None
    try:
        return parse_capture(value)
    except JournalInvalid as exc:
        return exc


def _config(args: argparse.Namespace) -> LoadedConfig | None:
    from ghattempt.commands import find_config

    return find_config(args.config, required=False)


def capture(args: argparse.Namespace) -> int:
    """``ghattempt capture``: the responses as GitHub sent them, one JSON array (UTF-8,
    then a newline): what the reader takes on stdin."""
    from ghattempt.commands import CaptureJournal, execute

    request = CaptureJournal(repository=args.repository, discussion=args.discussion,
                      pull_request=args.pull_request, base_ref=args.base_ref)
    pages = execute(request, _config(args), connection(args)).pages
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


def show(args: argparse.Namespace) -> int:
    """``ghattempt show --html FILE``: the journal's timeline page; prints its path."""
    from ghattempt.commands import Show, execute
    from ghattempt.render import timeline_page, write_page

    request = Show(status_of(args))
    reading = execute(request, _config(args), connection(args))
    assert reading.capture is not None  # a show without a journal is refused
    page, lanes = timeline_page(reading.capture, reading.verdict, writer=reading.writer,
                                writer_id=reading.writer_id, server_url=args.server_url)
    write_page(args.html, page)
    if args.html != "-":
        print(f"wrote the timeline of {lanes} attempt(s) (journal {reading.verdict.status}) "
              f"to {args.html}")
    return reading.verdict.exit_code


def status(args: argparse.Namespace) -> int:
    """``ghattempt status``: capture (or ``--capture FILE``), read, print."""
    from ghattempt.commands import execute

    request = status_of(args)
    reading = execute(request, _config(args), connection(args))
    if args.json:
        _print_verdict(reading.verdict)
        return reading.verdict.exit_code
    from ghattempt.render import text_report

    sys.stdout.write(text_report(reading.verdict, reading.url))
    sys.stdout.flush()
    return reading.verdict.exit_code
