"""The root of every error ghattempt raises on purpose, and the kinds of fault.

Every exception class of the package (core, github, exclusive, store, config, materials,
cli, action, app, demo; not the emulator, GitHub's stand-in, which imports no ghattempt
layer) subclasses :class:`GhattemptError`; ``fault`` says what kind of fault it is, so a
caller decides by kind, never by class or module name (docs/errors.md lists the tree).
It lives in the core because the core's own errors (:class:`~ghattempt.core.JournalInvalid`)
subclass it and the core, the reader bundle's only source, imports nothing outside
itself; ``ghattempt.errors`` is its public name.
"""

from __future__ import annotations

from enum import Enum


class Fault(str, Enum):  # noqa: UP042 - the reader bundle runs on 3.10 (no StrEnum)
    """What kind of fault an error is; each face maps a kind to an exit code or outcome."""

    BAD_INPUT = "bad_input"
    """The caller's input or configuration is wrong; nothing was sent or written."""
    REFUSED = "refused"
    """The journal's rules refuse the request; nothing was written."""
    JOURNAL_INVALID = "journal_invalid"
    """The captured journal is invalid: fail closed; a person must inspect it."""
    GITHUB_UNAVAILABLE = "github_unavailable"
    """GitHub could not be reached or kept failing; nothing was committed; retry later."""
    GITHUB_REFUSED = "github_refused"
    """GitHub refused definitely (access, not found, a ruleset) or holds what no writer can
    act on (a corrupt lease ref); retrying does not help, an operator must look."""
    OUTCOME_UNKNOWN = "outcome_unknown"
    """A write was sent and whether it landed is unknown; read back before deciding."""
    SCOPE_BUSY = "scope_busy"
    """Another writer holds the writer scope; retry later."""
    OWNERSHIP_LOST = "ownership_lost"
    """This writer can no longer prove it owns the writer scope; start no further write."""

    @property
    def hint(self) -> str:
        """What to do about a fault of this kind, when the error says nothing more."""
        return _HINTS[self]


_HINTS = {
    Fault.BAD_INPUT: "correct the input or configuration named in the message",
    Fault.REFUSED: "the journal's rules refuse this; read its status for what is allowed",
    Fault.JOURNAL_INVALID: "a person must inspect the journal; every reader fails closed",
    Fault.GITHUB_UNAVAILABLE: "retry later; nothing was committed",
    Fault.GITHUB_REFUSED: "check the access, names and rulesets the message names",
    Fault.OUTCOME_UNKNOWN: "repeat the same request with the same key to read it back",
    Fault.SCOPE_BUSY: "retry later, once the other writer has finished",
    Fault.OWNERSHIP_LOST: "start no further write; re-enter the writer scope to continue",
}


class GhattemptError(Exception):
    """Base of every error ghattempt raises on purpose (never raised itself).

    Attributes:
        fault: the kind of fault (:class:`Fault`); set by each class, or per error.
        retry_after: seconds to wait before retrying, when the fault says so; else None.
        hint: what to do, in the words of the layer that raised it; "" when the kind's
            own hint (``fault.hint``) is all there is to say.
    """

    fault: Fault
    retry_after: float | None = None
    hint: str = ""

    def diagnostics(self) -> str:
        """The error as a few lines for a person: message, kind, wait, what to do."""
        lines = [f"{type(self).__name__}: {self}", f"kind: {self.fault.value}"]
        if self.retry_after is not None:
            lines.append(f"retry after: {self.retry_after:g} s")
        lines.append(f"what to do: {self.hint or self.fault.hint}")
        return "\n".join(lines)


# Public as ghattempt.core (README.md, "Layout"), which the reader bundle holds (the
# documented home, ghattempt.errors, is not in the bundle): tracebacks and reprs show a
# module a user imports these from, as httpx's names do.
for _exported in (
    Fault, GhattemptError,
):
    _exported.__module__ = "ghattempt.core"
del _exported
