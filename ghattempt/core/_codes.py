"""Failure codes of the wire contract and the one exception that carries them.

Every way a journal can be refused has exactly one code here (docs/journal-format.md
sections 2-10). ``bad_arguments`` and ``bad_input`` are the caller's fault (exit 2);
every other code means the captured journal is invalid (exit 3).
"""

from __future__ import annotations

from ._errors import Fault, GhattemptError

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from typing import Literal

    # The same codes as FAILURE_CODES, in the same order (tests/core/test_api.py)
    Failure = Literal["bad_arguments", "bad_input", "capture_mismatch",
                      "repository_mismatch", "incomplete", "untrusted_journal",
                      "bad_record", "unknown_version", "digest_mismatch",
                      "identity_drift", "history_bound", "conflicting_duplicate", "fork",
                      "gap", "broken_link", "rewritten_terminal", "illegal_transition",
                      "undeclared_phase", "out_of_order_phase", "missing_predecessor",
                      "material_rejected", "material_conflict",
                      "missing_predecessor_attempt", "blocked_successor",
                      "authorization_reused", "bad_witness", "rolled_back"]

FAILURE_CODES: tuple[Failure, ...] = (
    "bad_arguments",  # section 6: the reader's arguments
    "bad_input",  # section 7.1 / 10: stdin, or several request keys and no --request-key
    "capture_mismatch",  # section 5: responses that cannot come from one capture
    "repository_mismatch",  # section 7.2 / 7.3: another repository than --repository-id
    "incomplete",  # section 5: fewer nodes than a totalCount
    "untrusted_journal",  # section 7.3: the discussion body does not contribute
    "bad_record",  # sections 2-4: block, JSON, canonical form, values, shapes, type
    "unknown_version",  # sections 2-3: marker vN or "v" other than 1
    "digest_mismatch",  # section 3: "digest" is not the digest of the record
    "identity_drift",  # sections 4, 9: intent / attempt / generation / request key
    "history_bound",  # section 7.4 / 7.5c: --max-attempts / --max-records
    "conflicting_duplicate",  # section 7.5d: one key, two digests
    "fork",  # sections 7.5e, 9: one seq (or one predecessor), two records
    "gap",  # section 7.5f: seqs not exactly 1..n
    "broken_link",  # section 7.5g: prev is not the previous digest
    "rewritten_terminal",  # section 8
    "illegal_transition",  # section 8
    "undeclared_phase",  # section 8
    "out_of_order_phase",  # section 8
    "missing_predecessor",  # section 8
    "material_rejected",  # section 4 (material)
    "material_conflict",  # section 4 (material)
    "missing_predecessor_attempt",  # section 9
    "blocked_successor",  # section 9
    "authorization_reused",  # section 9
    "bad_witness",  # section 7.7a: the lease ref is not this scope's lease record
    "rolled_back",  # section 7.7b: the journal holds less than its witness names
)
"""Every failure code of the contract, one per way a journal can be refused."""

CALLER_FAULTS: frozenset[Failure] = frozenset({"bad_arguments", "bad_input"})


class JournalInvalid(GhattemptError):
    """A failure of the contract: ``code`` is the verdict reason, ``detail`` says where.

    Raised inside the core while a journal is read or a record is built; the reader
    turns it into an ``invalid`` verdict. ``detail`` names the offending node or record
    and never holds secrets (records hold none). ``fault`` is ``BAD_INPUT`` for the
    caller's codes (``CALLER_FAULTS``), else ``JOURNAL_INVALID``.
    """

    __slots__ = ("code", "detail", "problem")
    fault = Fault.JOURNAL_INVALID

    def __init__(self, code: Failure, detail: str, problem: str | None = None) -> None:
        super().__init__(f"{code}: {detail}")
        self.code: Failure = code
        self.detail: str = detail
        if code in CALLER_FAULTS:
            self.fault = Fault.BAD_INPUT
        self.problem: str | None = problem
        """Which rule of a record's shape broke, where a writer can act on it
        (``reason_required``, ``reason_forbidden``); None otherwise."""


def __getattr__(name: str) -> object:
    """``Failure`` at run time (``Literal`` of ``FAILURE_CODES``), built on first use."""
    if name == "Failure":
        from typing import Literal

        return Literal[FAILURE_CODES]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
JournalInvalid.__module__ = "ghattempt.core"
