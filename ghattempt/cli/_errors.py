"""One clear line per error, the exit status for it, and no secret in either.

Shape::

    EXIT_BY_FAULT: dict[Fault, int]          # the one table from fault kind to exit status
    classify(exc) -> tuple[int, str] | None  # its exit status and line, None: a defect
    guarded(run: Callable[[], int], token_env: str | None) -> int

``guarded`` runs a command and turns every error into ``ghattempt: error: <message>`` on
stderr and an exit status: every ghattempt error carries its kind of fault
(:class:`ghattempt.errors.Fault`), and ``EXIT_BY_FAULT`` gives the status (the list is in
``ghattempt.cli.EXIT_CODES``, docs/errors.md). The line is the error's message with what
to do (``ghattempt.render.error_message``), through the provider's redaction
(token-shaped strings and the token's value are replaced) before printing. A
traceback is printed only for an unexpected exception and only when
``GHATTEMPT_DEBUG=1``; otherwise its one line says so (exit 70).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from ghattempt.commands import CommandError
from ghattempt.errors import Fault, GhattemptError
from ghattempt.render import error_message, install_notes, scrub

__all__ = ["EXIT_BY_FAULT", "EXIT_INTERNAL", "CliError", "classify", "guarded",
           "notice_printer"]

EXIT_INTERNAL = 70
"""An unexpected exception: a defect of ghattempt (BSD sysexits ``EX_SOFTWARE``)."""

EXIT_BY_FAULT: dict[Fault, int] = {
    Fault.REFUSED: 1,
    Fault.BAD_INPUT: 2,
    Fault.JOURNAL_INVALID: 3,
    Fault.GITHUB_UNAVAILABLE: 4,
    Fault.GITHUB_REFUSED: 5,
    Fault.OUTCOME_UNKNOWN: 4,
    Fault.SCOPE_BUSY: 4,
    Fault.OWNERSHIP_LOST: 4,
}
"""The exit status of each kind of fault: the command line's one table (the Action has
its own, ``ghattempt.action.EXIT_BY_FAULT``). 4 says trying again later can help (GitHub
unavailable or rate limited, an unknown outcome, a busy scope, lost ownership); 5 says
it cannot until a person acts (GitHub refused: credentials, a permission, a name not
found, a ruleset or branch protection, a locked journal)."""


CliError = CommandError
"""The command line's older name of :class:`ghattempt.commands.CommandError`, a command's
one-line error whose kind is given per error."""


def classify(exc: BaseException) -> tuple[int, str] | None:
    """The exit status and message for a known error, or None for an unexpected one."""
    if isinstance(exc, GhattemptError):
        return EXIT_BY_FAULT[exc.fault], error_message(exc)
    if isinstance(exc, OSError):
        if exc.filename:
            return 2, (f"{exc.filename}: {exc.strerror or exc}; check the path and its "
                       "permissions")
        return 2, str(exc)
    return None


def notice_printer(token_env: str | None = None):  # type: ignore[no-untyped-def]
    """The one notice hook of a command: each line (a reconciled lost answer, a wait of
    more than 2 s: what and how long) as ``ghattempt: notice: <line>`` on stderr,
    scrubbed like errors. The Action entry maps the same lines to its own output."""

    def notice(line: str) -> None:
        print(f"ghattempt: notice: {scrub(line, token_env)}", file=sys.stderr, flush=True)

    return notice


def guarded(run: Callable[[], int], token_env: str | None = None) -> int:
    """Run a command; print one ``ghattempt: error: ...`` line for any error.

    Warnings of the layers below (a retry, a wait for a rate limit) are printed as
    ``ghattempt: note: ...`` lines, scrubbed like errors.
    """
    install_notes(token_env)
    try:
        return run()
    except KeyboardInterrupt:
        print("ghattempt: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 -- every error ends in one line
        known = classify(exc)
        if known is None:
            if os.environ.get("GHATTEMPT_DEBUG") == "1":
                import traceback

                traceback.print_exc()
            code, message = EXIT_INTERNAL, (f"internal error {type(exc).__name__}: {exc} "
                                            "(set GHATTEMPT_DEBUG=1 for a traceback)")
        else:
            code, message = known
        print(f"ghattempt: error: {scrub(message, token_env)}", file=sys.stderr)
        return code
