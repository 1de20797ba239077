"""Errors of the business attempt store.

Each error says whose side the problem is on (``fault`` in brackets, ghattempt.errors)::

    GhattemptError                 the root of every ghattempt error (ghattempt.errors)
    ├── JournalInvalid             (ghattempt.core) a failure of the wire contract
    │   └── JournalInvalidError    the captured journal is invalid: fail closed (``code``
    │       │                      is the reader's failure code, spec journal-v1 section 7)
    │       │                      [journal_invalid]; also a StoreError
    │       ├── WitnessNotMet      the journal holds fewer records than the lease's witness
    │       │                      names after bounded re-reads (``rolled_back``): a newest
    │       │                      record was deleted or edited, or the replicas lag on
    │       └── JournalMissing     the lease names a journal that is gone, transferred or
    │                              moved to another category (``journal_missing``); a
    │                              fresh journal would lose its history
    └── StoreError                 base of everything the store raises on purpose
        ├── StoreInputError        your input is wrong (unknown attempt, bad value, a call
        │   │                      that makes no sense for this attempt); nothing was
        │   │                      written [bad_input]
        │   ├── RepositoryMismatch the repository's node id is not the configured one (a
        │   │                      repository replaced under the same name, or a wrong id)
        │   └── WrongWriter        the token is not the configured writer on this host: its
        │                          records would not count; refused before any write
        ├── GitHubAnomaly          GitHub answered oddly: no such category, no write
        │                          permission, a write whose outcome stayed unknown after
        │                          read-back, a journal body that is not ours
        │                          [github_refused]
        ├── JournalInvalidError    (above)
        └── RefusedByRules         the rules refuse the request (``code``: spec code or a
            │                      store code); nothing was written [refused]
            ├── Blocked            a blocking attempt exists for the request key (ADR-038)
            ├── AuthorizationReused the authorization id was recorded by an earlier attempt
            ├── TerminalAttempt    the attempt is terminal: recovery opens a successor
            ├── IllegalTransition  the record would break the replay rules (section 8)
            ├── ConflictingKey     the idempotency key names a record with other content
            └── MaterialRefused    a material would be rejected, conflicts, or its bytes
                                   do not verify

Errors from the layers below pass through unchanged: ``ghattempt.github`` errors
(``GitHubError`` and subclasses) and ``ghattempt.exclusive`` errors (``ScopeBusy``,
``OwnershipLost``, ``LeaseCorrupt``, ...); all of them subclass the same root, so a store
caller catches ``GhattemptError`` and decides by ``fault``. No message holds a credential.
"""

from __future__ import annotations

from typing import Any

from ghattempt.core import JournalInvalid
from ghattempt.errors import Fault, GhattemptError

__all__ = [
    "AuthorizationReused",
    "Blocked",
    "ConflictingKey",
    "GitHubAnomaly",
    "IllegalTransition",
    "JournalInvalidError",
    "JournalMissing",
    "MaterialRefused",
    "RefusedByRules",
    "RepositoryMismatch",
    "StoreError",
    "StoreInputError",
    "TerminalAttempt",
    "WitnessNotMet",
    "WrongWriter",
]


class StoreError(GhattemptError):
    """Base of every error the store raises on purpose."""

    fault = Fault.GITHUB_REFUSED


class StoreInputError(StoreError, ValueError):
    """The caller's input is wrong; nothing was written.

    Attributes:
        problem: the core's name for the record rule the input broke, where the caller
            can act on it (``reason_required``, ``reason_forbidden``:
            ``ghattempt.core.RecordValueError``); None otherwise.
    """

    def __init__(self, message: str = "", problem: str | None = None) -> None:
        super().__init__(message)
        self.problem = problem

    fault = Fault.BAD_INPUT


class RepositoryMismatch(StoreInputError):
    """The repository GitHub returns under this name has another node id than configured.

    Attributes:
        expected: the configured node id.
        found: the node id GitHub returned.
    """

    def __init__(self, name: str, expected: str, found: str) -> None:
        self.expected = expected
        self.found = found
        super().__init__(
            f"repository {name} has node id {found}, not the configured {expected}: it was "
            "replaced or renamed onto another repository, or the configuration names the "
            "wrong id. Nothing was written; check the repository before writing.")


class WrongWriter(StoreInputError):
    """The token is not the configured writer on the configured host (its records would
    be ignored by every reader of that writer); raised before anything is written."""


class GitHubAnomaly(StoreError):
    """GitHub answered in a way the store cannot act on (see the message)."""

    fault = Fault.GITHUB_REFUSED


class JournalInvalidError(JournalInvalid, StoreError):
    """The captured journal is invalid: the store fails closed and writes nothing.

    The core's :class:`~ghattempt.core.JournalInvalid` as the store raises it (one
    family: ``except JournalInvalid`` catches both), with the store's message.

    Attributes:
        code: the reader's failure code (spec journal-v1 section 7), e.g. ``fork``.
        detail: the reader's detail text.
    """

    fault = Fault.JOURNAL_INVALID

    def __init__(self, code: str, detail: str | None) -> None:
        self.code = code  # type: ignore[assignment]
        self.detail = detail  # type: ignore[assignment]
        self.problem = None
        GhattemptError.__init__(
            self, f"the journal is invalid ({code}): {detail}. Nothing was written; "
                  "it needs a person to inspect it (the reader fails closed too).")


class WitnessNotMet(JournalInvalidError):
    """The journal still holds fewer records than the lease's witness names after
    bounded re-reads (journal-v1 section 4: a writer builds on a capture only once it
    holds every record the witness names). A deleted or edited newest record, or a
    record whose author no longer counts, reads exactly like this; so does replica lag
    that outlasted the re-reads. ``code`` is ``rolled_back``; nothing was written.

    Attributes:
        reads: how many captures were read.
        missing: the digest of the newest record the witness names (``head.last``), when
            known.
    """

    def __init__(self, detail: str | None, reads: int, witness: Any = None) -> None:
        self.reads = reads
        self.missing = getattr(witness, "last", None)
        named = ""
        if witness is not None and witness.last is not None:
            named = (f"the lease's witness names {witness.records} records, the newest "
                     f"{witness.last}; ")
        super().__init__("rolled_back", f"{named}{detail} (after {reads} reads)")


class JournalMissing(JournalInvalidError):
    """The writer scope's lease names journal ``number``, and that Discussion is gone
    (deleted, or transferred to another repository) or was moved to another category.
    The store never opens a fresh journal then: the history would be lost (fail
    closed). ``code`` is ``journal_missing``.

    Attributes:
        number: the journal number the lease names.
        why: ``"gone"`` or ``"moved"``.
    """

    def __init__(self, number: int, why: str, detail: str) -> None:
        self.number = number
        self.why = why
        JournalInvalidError.__init__(self, "journal_missing", detail)

    def __str__(self) -> str:
        fix = ("a person must restore the Discussion or move it back" if self.why == "gone"
               else "if the configuration names the wrong category (a command run outside "
               "the checkout reads no .github/ghattempt.toml: pass --config, or set "
               "[journal] category), correct that; else a person moved the Discussion: "
               "move it back")
        return (f"the journal is missing (journal_missing): {self.detail}. Nothing was "
                f"written, and no new journal is opened (its history would be lost); {fix}.")


class RefusedByRules(StoreError):
    """The journal's rules refuse the request; nothing was written.

    Attributes:
        code: the spec failure code the write would cause (e.g. ``rewritten_terminal``)
            or a store code (``blocked``, ``not_expired``, ``head_moved`` ...).
    """

    fault = Fault.REFUSED

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(f"{message} [{code}]")


class Blocked(RefusedByRules):
    """A blocking attempt exists for the request key (ADR-038 preflight).

    Attributes:
        attempt: the blocking attempt's id.
        status: its status.
    """

    def __init__(self, request_key: str, attempt: str, status: str) -> None:
        self.attempt = attempt
        self.status = status
        super().__init__("blocked", f"request key {request_key} is blocked by attempt "
                         f"{attempt} ({status}); continue or resolve it, or open a successor "
                         "once it no longer blocks")


class AuthorizationReused(RefusedByRules):
    """The presented authorization id was recorded by an earlier attempt (ADR-038 case 2)."""


class TerminalAttempt(RefusedByRules):
    """The attempt is terminal; terminal results are never rewritten (ADR 0006)."""


class IllegalTransition(RefusedByRules):
    """The record would break the replay rules (spec section 8)."""


class ConflictingKey(RefusedByRules):
    """The idempotency key already names a record with other content.

    Attributes:
        existing: the digest of the record already holding the key.
    """

    def __init__(self, key: str, existing: str) -> None:
        self.existing = existing
        super().__init__("conflicting_duplicate",
                         f"idempotency key {key} already holds record {existing} with other "
                         "content; a key names one operation forever, use a new key for a "
                         "new operation")


class MaterialRefused(RefusedByRules):
    """A material would be rejected or conflicts, or its bytes do not verify."""


# Public as ghattempt.store (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    AuthorizationReused, Blocked, ConflictingKey, GitHubAnomaly, IllegalTransition,
    JournalInvalidError, JournalMissing, MaterialRefused, RefusedByRules,
    RepositoryMismatch, StoreError, StoreInputError, TerminalAttempt, WitnessNotMet,
    WrongWriter,
):
    _exported.__module__ = "ghattempt.store"
del _exported
