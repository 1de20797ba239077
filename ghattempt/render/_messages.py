"""What a person reads of an error, a note or a notice: one line, and no secret in it.

Shape::

    scrub(text: str, token_env: str | None) -> str          # tokens out, one line
    error_message(exc: GhattemptError) -> str                # the message and what to do
    install_notes(token_env: str | None) -> None             # warnings as note lines

The messages name a request's fields by the command line's options (``--key``); the
Action says its inputs' names instead (``ghattempt.action.in_action_words``). Both print
them through :func:`scrub`: the token's value, and every token-shaped string, replaced.
"""

from __future__ import annotations

import os
import sys

from ghattempt.errors import Fault, GhattemptError

__all__ = ["error_message", "install_notes", "scrub"]


def scrub(text: str, token_env: str | None = None) -> str:
    """``text`` with token-shaped strings, and the token's own value, replaced; its
    whitespace folded to single spaces (one line)."""
    from ghattempt.commands import secret_values
    from ghattempt.github import redact

    return " ".join(redact(text, secret_values(token_env)).split())


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

# What a message adds, by kind, in the command line's words (its options).
_HINTS: dict[Fault, str] = {
    Fault.OUTCOME_UNKNOWN: "the outcome is unknown: run the same command again with the "
                           "same --key to read it back and reconcile",
    Fault.SCOPE_BUSY: "another writer holds the journal; try again later",
}

# The layers' words for a setting, and the command line's option for it.
_WORDS = (
    ("check base_url", "check --api-url (env GITHUB_API_URL)"),
    ("check the repository, the discussion or pull request number,",
     "check --repository or GITHUB_REPOSITORY, --discussion or --pull-request,"),
)


def error_message(exc: GhattemptError) -> str:
    """The error's message with what to do added: the hint for its spec code, the wait
    for a retry, its kind's hint or its own, in the command line's words. A write that
    stands before a failed one (``PartWritten``) says so, then its cause's message."""
    from ghattempt.commands import CommandError, PartWritten

    if isinstance(exc, PartWritten):
        return f"{exc.done}: {error_message(exc.cause)}{exc.after}"
    message = str(exc)
    code = getattr(exc, "code", None)
    problem = getattr(exc, "problem", None)
    if isinstance(code, str) and code in _CODE_HINTS:
        message = (f"{message} [{code}]; {_CODE_HINTS[code]}" if f"[{code}]" not in message
                   else f"{message}; {_CODE_HINTS[code]}")
    elif problem == "reason_required":
        message = f"{message}; pass --reason TEXT"
    elif problem == "reason_forbidden":
        message = f"{message}; leave out --reason"
    if exc.retry_after is not None and exc.fault is Fault.GITHUB_UNAVAILABLE \
            and not isinstance(exc, CommandError):
        message = f"{message} (rate limited: retry after {exc.retry_after} s)"
    elif exc.fault in _HINTS:
        message = f"{message} ({_HINTS[exc.fault]})"
    elif exc.hint and not isinstance(exc, CommandError):
        message = f"{message} ({exc.hint})"
    for said, option in _WORDS:
        message = message.replace(said, option)
    return message


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
    """Print warnings of ``ghattempt.*`` loggers as scrubbed ``ghattempt: note:`` lines
    on standard error (every debug line too with ``GHATTEMPT_DEBUG=1``)."""
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


# Public as ghattempt.render (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    error_message, install_notes, scrub,
):
    _exported.__module__ = "ghattempt.render"
del _exported
