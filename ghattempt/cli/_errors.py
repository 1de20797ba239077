"""One clear line per error, the exit status for it, and no secret in either.

Shape::

    CliError(fault: Fault, message: str)     # raised by commands: BAD_INPUT (exit 2) ...
    EXIT_BY_FAULT: dict[Fault, int]          # the one table from fault kind to exit status
    guarded(run: Callable[[], int], token_env: str | None) -> int

``guarded`` runs a command and turns every error into ``ghattempt: error: <message>`` on
stderr and an exit status: every ghattempt error carries its kind of fault
(:class:`ghattempt.errors.Fault`), and ``EXIT_BY_FAULT`` gives the status (the list is in
``ghattempt.cli.EXIT_CODES``, docs/errors.md). Messages pass through the provider's
redaction (token-shaped strings and the token's value are replaced) before printing. A
traceback is printed only for an unexpected exception and only when
``GHATTEMPT_DEBUG=1``; otherwise its one line says so (exit 70).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from ghattempt.errors import Fault, GhattemptError

__all__ = ["EXIT_BY_FAULT", "EXIT_INTERNAL", "CliError", "classify", "guarded",
           "install_notes", "notice_printer", "scrub"]

EXIT_INTERNAL = 70
"""An unexpected exception: a defect of ghattempt (BSD sysexits ``EX_SOFTWARE``)."""

EXIT_BY_FAULT: dict[Fault, int] = {
    Fault.REFUSED: 1,
    Fault.BAD_INPUT: 2,
    Fault.JOURNAL_INVALID: 3,
    Fault.GITHUB_UNAVAILABLE: 4,
    Fault.GITHUB_REFUSED: 4,
    Fault.OUTCOME_UNKNOWN: 4,
    Fault.SCOPE_BUSY: 4,
    Fault.OWNERSHIP_LOST: 4,
}
"""The exit status of each kind of fault: the command line's and the Action's one table."""

# What the command line adds to the message, by kind, in its own words (its options).
_CLI_HINTS: dict[Fault, str] = {
    Fault.OUTCOME_UNKNOWN: "the outcome is unknown: run the same command again with the "
                           "same --key to read it back and reconcile",
    Fault.SCOPE_BUSY: "another writer holds the journal; try again later",
}

# The layers' words for a setting, and the command line's option for it.
_CLI_WORDS = (
    ("check base_url", "check --api-url (env GITHUB_API_URL)"),
    ("check the repository, the discussion or pull request number,",
     "check --repository or GITHUB_REPOSITORY, --discussion or --pull-request,"),
)


class CliError(GhattemptError):
    """An error a command reports as one line with its exit status.

    Attributes:
        fault: the kind of fault; its exit status is ``EXIT_BY_FAULT[fault]``.
        code: that exit status.
        message: what was wrong and what to do, one line, no secret.
    """

    def __init__(self, fault: Fault, message: str) -> None:
        super().__init__(message)
        self.fault = fault
        self.message = message

    @property
    def code(self) -> int:
        return EXIT_BY_FAULT[self.fault]


def scrub(text: str, token_env: str | None = None) -> str:
    """``text`` with token-shaped strings, and the token's own value, replaced."""
    secrets = []
    for name in {token_env or "GITHUB_TOKEN", "GITHUB_TOKEN", "GHATTEMPT_TOKEN"}:
        value = os.environ.get(name, "")
        if value:
            secrets.append(value)
    from ghattempt.github import redact

    return " ".join(redact(text, secrets).split())


def classify(exc: BaseException) -> tuple[int, str] | None:
    """The exit status and message for a known error, or None for an unexpected one."""
    if isinstance(exc, GhattemptError):
        return EXIT_BY_FAULT[exc.fault], cli_message(exc)
    if isinstance(exc, OSError):
        if exc.filename:
            return 2, (f"{exc.filename}: {exc.strerror or exc}; check the path and its "
                       "permissions")
        return 2, str(exc)
    return None


# What to do next, by the refusal's spec code (journal-v1 section 8): the store's message
# says what was refused; the command line adds the option or command that helps.
_CODE_HINTS = {
    "missing_predecessor": "an earlier phase of the plan has not succeeded yet; record it "
                           "succeeded first (`ghattempt status` lists the missing phases)",
    "undeclared_phase": "the phase is not in this attempt's plan; use a phase that "
                        "`ghattempt status` lists as missing, 'attempt' or 'rollback'",
    "out_of_order_phase": "a later phase of the plan already has a record; phases run in "
                          "plan order",
    "illegal_transition": "`ghattempt status` shows the attempt's state and its recovery",
}


def cli_message(exc: GhattemptError) -> str:
    """The error's message with what the command line adds: the hint for its spec code,
    the wait for a retry, its kind's hint or its own, in the command line's words."""
    message = str(exc)
    code = getattr(exc, "code", None)
    if isinstance(code, str) and code in _CODE_HINTS:
        message = (f"{message} [{code}]; {_CODE_HINTS[code]}" if f"[{code}]" not in message
                   else f"{message}; {_CODE_HINTS[code]}")
    elif getattr(exc, "problem", None) == "reason_required":
        message = f"{message}; pass --reason TEXT"
    elif getattr(exc, "problem", None) == "reason_forbidden":
        message = f"{message}; leave out --reason"
    if exc.retry_after is not None and exc.fault is Fault.GITHUB_UNAVAILABLE \
            and not isinstance(exc, CliError):
        message = f"{message} (rate limited: retry after {exc.retry_after} s)"
    elif exc.fault in _CLI_HINTS:
        message = f"{message} ({_CLI_HINTS[exc.fault]})"
    elif exc.hint and not isinstance(exc, CliError):
        message = f"{message} ({exc.hint})"
    for said, option in _CLI_WORDS:
        message = message.replace(said, option)
    return message


def notice_printer(token_env: str | None = None):  # type: ignore[no-untyped-def]
    """The one notice hook of a command: each line (a reconciled lost answer, a wait of
    more than 2 s: what and how long) as ``ghattempt: notice: <line>`` on stderr,
    scrubbed like errors. The Action entry maps the same lines to its own output."""

    def notice(line: str) -> None:
        print(f"ghattempt: notice: {scrub(line, token_env)}", file=sys.stderr, flush=True)

    return notice


class _Scrubbed:
    def __init__(self, token_env: str | None) -> None:
        self.token_env = token_env

    def filter(self, record: object) -> bool:
        import logging

        assert isinstance(record, logging.LogRecord)
        record.msg = scrub(record.getMessage(), self.token_env)
        record.args = None
        return True


def install_notes(token_env: str | None) -> None:
    """Print warnings of ``ghattempt.*`` loggers as scrubbed ``ghattempt: note:`` lines."""
    import logging

    root = logging.getLogger("ghattempt")
    for old in [h for h in root.handlers if getattr(h, "ghattempt_notes", False)]:
        root.removeHandler(old)
    handler = logging.StreamHandler(sys.stderr)
    handler.ghattempt_notes = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter("ghattempt: note: %(message)s"))
    handler.addFilter(_Scrubbed(token_env))
    level = logging.WARNING if os.environ.get("GHATTEMPT_DEBUG") != "1" else logging.DEBUG
    # the handler's own level too: a child logger set to DEBUG for the Action's ::debug::
    # lines must not also print them here
    handler.setLevel(level)
    root.addHandler(handler)
    root.setLevel(level)


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


# Public as ghattempt.cli.shared (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    CliError, classify, install_notes, scrub,
):
    _exported.__module__ = "ghattempt.cli.shared"
del _exported
