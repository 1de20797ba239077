"""The application layer's errors: one line each, with the kind of fault it is.

Shape::

    CommandError(fault: Fault, message: str)    # a command's one-line error, its kind per error
    RequestError(message)                       # a request that cannot be: bad input (exit 2)
    NotYet(message)                             # what the request builds on is not there yet
    NoJournal(message)                          # the pull request has no journal yet

Messages name a request's fields by the command line's options (``--phase``,
``--materials``): those are the fields' public names (docs/cli.md); the Action says
its input's name instead (``ghattempt.action.in_action_words``), the App keeps the
message as a delivery's detail.
"""

from __future__ import annotations

from ghattempt.errors import Fault, GhattemptError

__all__ = ["CommandError", "NoJournal", "NotYet", "PartWritten", "RequestError"]


class CommandError(GhattemptError):
    """An error a command reports as one line, whose kind is given per error.

    Attributes:
        fault: the kind of fault (each face maps it to an exit status or an outcome).
        message: what was wrong and what to do, one line, no secret.
    """

    fault = Fault.BAD_INPUT

    def __init__(self, fault: Fault, message: str) -> None:
        super().__init__(message)
        self.fault = fault
        self.message = message


class RequestError(CommandError):
    """A request that cannot be made as given (a field of the wrong shape, a status the
    phase does not take, a material, a value that would write a secret): refused when the
    request is built or checked, before any request to GitHub.

    Attributes:
        problem: which rule broke where the caller can act on it (``reason_required``,
            ``reason_forbidden``), as the core's builders name it; else None.
    """

    fault = Fault.BAD_INPUT

    def __init__(self, message: str, problem: str | None = None) -> None:
        super().__init__(Fault.BAD_INPUT, message)
        self.problem = problem


class NotYet(CommandError):
    """What the request builds on is not in the journal yet (no journal, no attempt, no
    attempt at its head): refused now; a request that may arrive out of order (a webhook
    delivery, ``RecordEvent.out_of_order``) is tried again later."""

    fault = Fault.REFUSED

    def __init__(self, message: str) -> None:
        super().__init__(Fault.REFUSED, message)


class NoJournal(CommandError):
    """The pull request has no journal yet (refused; ``status`` reports ``empty``)."""

    fault = Fault.REFUSED

    def __init__(self, message: str) -> None:
        super().__init__(Fault.REFUSED, message)


class PartWritten(CommandError):
    """A write that landed, then one in the same hold of the writer scope that did not
    (``admit``'s ``start``, ``record``'s ``then_start``): the second's error, said after
    what stands. Its kind is the second error's.

    Attributes:
        cause: the second write's error, as raised (a face says it in its own words).
        done: what was written and stands, and what was asked next.
        after: what the face adds after the cause's message.
    """

    def __init__(self, cause: GhattemptError, done: str, after: str = "") -> None:
        super().__init__(cause.fault, f"{done}: {cause}{after}")
        self.cause = cause
        self.done = done
        self.after = after


# Public as ghattempt.commands (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    CommandError, NoJournal, NotYet, PartWritten, RequestError,
):
    _exported.__module__ = "ghattempt.commands"
del _exported
