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
        │   │                      permission, a write whose outcome stayed unknown after
        │   │                      read-back, a journal body that is not ours
        │   │                      [github_refused]
        │   ├── JournalLocked      the journal is locked (a lock bot): GitHub refuses the
        │   │                      writer's comments; unlock it, or exclude the journal
        │   │                      category from the lock bot; nothing was written
        │   ├── JournalFull        the journal holds as many comments and replies as one
        │   │                      discussion takes ([journal] max_comments, GitHub's
        │   │                      2,500); nothing was written
        │   └── WitnessMissing     the journal holds records but its lease ref (the
        │                          witness of its head) is gone: a person checks the
        │                          history and restores it (``restore-lease``); nothing
        │                          was written [github_refused]
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
    "JournalFull",
    "JournalInvalidError",
    "JournalLocked",
    "JournalMissing",
    "MaterialRefused",
    "RefusedByRules",
    "RepositoryMismatch",
    "StoreError",
    "StoreInputError",
    "TerminalAttempt",
    "WitnessMissing",
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


class JournalLocked(GitHubAnomaly):
    """The journal's Discussion is locked (lock bots lock old discussions:
    dessant/lock-threads after 365 days by default). GitHub refuses comments by Apps
    and the Actions bot in a locked conversation, so the store refuses before writing
    anything: when the first read shows it, before the lease is taken too.

    Attributes:
        number: the journal's Discussion number.
        reason: GitHub's ``activeLockReason`` (None: none given, as lock bots do).
    """

    def __init__(self, number: int, repository: str, reason: str | None) -> None:
        self.number = number
        self.reason = reason
        why = f" ({reason.lower().replace('_', ' ')})" if isinstance(reason, str) else ""
        super().__init__(
            f"journal #{number} of {repository} is locked{why}: GitHub refuses comments by Apps "
            "and the Actions bot in a locked discussion, so nothing was written. A person "
            "must unlock it (the discussion's 'Unlock conversation'), and keep lock bots "
            "off the journal category (dessant/lock-threads locks discussions after 365 "
            "days by default: exclude the category, or set discussion-lock-inactive-days "
            "beyond a release's life)")


class JournalFull(GitHubAnomaly):
    """The journal holds as many comments and replies as one discussion takes: GitHub
    refuses comments on an issue past 2,500, and nothing public says discussions differ
    (docs/emulator.md), so the store refuses a write that would meet the cap, before
    sending it (``[journal] max_comments``).

    Attributes:
        number: the journal's Discussion number.
        held: the comments and replies it holds.
        cap: the cap (``max_comments``).
    """

    def __init__(self, number: int, held: int, cap: int, pull_request: int) -> None:
        self.number = number
        self.held = held
        self.cap = cap
        super().__init__(
            f"journal #{number} holds {held} comments and replies, and one discussion "
            f"takes at most {cap} ([journal] max_comments; GitHub refuses comments past "
            f"2,500): this write would not fit, so nothing was written. Pull request "
            f"#{pull_request} has recorded more than a journal holds: finish its release "
            "on a new pull request (a new intent has a new journal), and keep a step's "
            "retries from writing an event each")


class WitnessMissing(GitHubAnomaly):
    """The journal holds records, and the lease ref that witnesses its head is gone
    (deleted: a branch deletion needs only ``contents: write``). Nothing can prove the
    journal's head now: a newest record deleted before the ref would read as a shorter
    history, and a writer starting a fresh witness on it could write a step a second
    time. Every writer refuses it before writing anything (no comment, no lease ref); a
    person checks the history and restores the lease ref with ``ghattempt restore-lease``
    (docs/exclusion.md, "A deleted lease ref").

    Attributes:
        ref: the missing lease ref.
        number: the journal's Discussion number.
        records: the distinct records the journal holds now.
        last: the digest of its newest record (by ``createdAt``).
    """

    def __init__(self, ref: str, number: int, pull_request: int, base_ref: str,
                 records: int, last: str | None) -> None:
        self.ref = ref
        self.number = number
        self.records = records
        self.last = last
        super().__init__(
            f"journal #{number} of pull request #{pull_request} into {base_ref} holds "
            f"{records} records, and its lease ref {ref}, the witness of its head, was "
            "deleted: nothing can prove that no newer record was deleted before it, so "
            "nothing was written. A person must check the journal against what really "
            "happened (the workflow runs that wrote it) and then restore the lease ref: "
            f"`ghattempt restore-lease --pull-request {pull_request} --base-ref {base_ref} "
            f"--records {records} --last {last} --reason TEXT`; protect "
            "refs/heads/ghattempt/lease/** with a ruleset that restricts deletions")


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
    JournalFull, JournalInvalidError, JournalLocked, JournalMissing, MaterialRefused,
    RefusedByRules,
    RepositoryMismatch, StoreError, StoreInputError, TerminalAttempt, WitnessMissing,
    WitnessNotMet, WrongWriter,
):
    _exported.__module__ = "ghattempt.store"
del _exported
