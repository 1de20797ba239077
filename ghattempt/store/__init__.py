"""The business attempt store: journals in GitHub Discussions, written under an exclusive
writer scope by the writer protocol. See docs/store.md.

Example (``ghattempt.compose`` builds both from the configuration)::

    lease = RefLease(GitHubRefBackend(provider, "octo", "app", repo_id), LeaseSettings())
    journals = JournalOptions(repository="octo/app", repository_id=repo_id,
                              category="release-journal", writer_login="github-actions")
    store = BusinessAttemptStore(provider, journals, exclusive=lease, writer=writer,
                                 reader=reader_digest())
    store.initialise()                           # who the token is; the category
    with store.open(7, "main") as s:             # find or create the journal, hold it
        s.preflight("merge/pr-7@main")           # before consuming an authorization
        attempt = s.admit(request_key="merge/pr-7@main", generation=gen, plan=plan,
                          channel="stable", expires_at="2026-12-01T00:00:00Z")
    journal = store.locate(7, "main")            # one LeaseRef read names the journal
    with store.session(journal) as s:
        s.append(attempt.id, key="admission/started", phase="admission", status="started")

Errors: see ``ghattempt.store._errors`` (``StoreError`` and its subclasses).
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from ._errors import (
        AuthorizationReused,
        Blocked,
        ConflictingKey,
        GitHubAnomaly,
        IllegalTransition,
        JournalFull,
        JournalInvalidError,
        JournalLocked,
        JournalMissing,
        MaterialRefused,
        RefusedByRules,
        RepositoryMismatch,
        StoreError,
        StoreInputError,
        TerminalAttempt,
        WitnessMissing,
        WitnessNotMet,
        WrongWriter,
    )
    from ._github import GitHubRefBackend
    from ._protocol import MAX_SENDS, Captured, capture_until_witnessed, witness_in
    from ._store import (
        SCAN_MARGIN,
        AppendResult,
        BusinessAttemptStore,
        Journal,
        JournalOptions,
        JournalReader,
        Known,
        MaterialCheck,
        Planned,
        Restored,
        Session,
        Successor,
        default_journal_title,
    )

_ERRORS = ("AuthorizationReused", "Blocked", "ConflictingKey", "GitHubAnomaly",
           "IllegalTransition", "JournalFull", "JournalInvalidError", "JournalLocked",
           "JournalMissing", "MaterialRefused", "RefusedByRules", "RepositoryMismatch",
           "StoreError", "StoreInputError", "TerminalAttempt", "WitnessMissing",
           "WitnessNotMet", "WrongWriter")
_SUBMODULE = {**dict.fromkeys(_ERRORS, "._errors"),
              **dict.fromkeys(("MAX_SENDS", "Captured", "capture_until_witnessed",
                               "witness_in"), "._protocol"),
              "GitHubRefBackend": "._github",
              **dict.fromkeys(("AppendResult", "BusinessAttemptStore", "Journal",
                               "JournalOptions", "JournalReader", "Known", "MaterialCheck",
                               "Planned", "Restored", "SCAN_MARGIN", "Session", "Successor",
                               "default_journal_title"), "._store")}
"""Exported name -> the module defining it (imported on first use, PEP 562: a reader
that only re-reads a capture against its witness, ``_protocol``, loads no provider)."""


def __getattr__(name: str) -> _typing.Any:
    """Import the module defining ``name`` (one of ``__all__``) and return the name.

    Raises:
        AttributeError: ``name`` is not exported here.
    """
    module = _SUBMODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "MAX_SENDS",
    "AppendResult",
    "AuthorizationReused",
    "Blocked",
    "BusinessAttemptStore",
    "Captured",
    "ConflictingKey",
    "GitHubAnomaly",
    "GitHubRefBackend",
    "IllegalTransition",
    "Journal",
    "JournalFull",
    "JournalInvalidError",
    "JournalLocked",
    "JournalMissing",
    "JournalOptions",
    "JournalReader",
    "Known",
    "MaterialCheck",
    "MaterialRefused",
    "Planned",
    "RefusedByRules",
    "RepositoryMismatch",
    "Restored",
    "SCAN_MARGIN",
    "Session",
    "StoreError",
    "StoreInputError",
    "Successor",
    "TerminalAttempt",
    "WitnessMissing",
    "WitnessNotMet",
    "WrongWriter",
    "capture_until_witnessed",
    "default_journal_title",
    "witness_in",
]
