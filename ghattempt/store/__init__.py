"""The business attempt store: journals in GitHub Discussions, written under an exclusive
writer scope by the writer protocol. See docs/store.md.

Example::

    lease = RefLease(GitHubRefBackend(provider, "octo", "app", repo_id), LeaseSettings())
    store = BusinessAttemptStore(provider, exclusive=lease, repository="octo/app",
                                 repository_id=repo_id, category="release-journal",
                                 writer_login="github-actions", writer=writer,
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

from ..exclusive._github import GitHubRefBackend
from ._errors import (
    AuthorizationReused,
    Blocked,
    ConflictingKey,
    GitHubAnomaly,
    IllegalTransition,
    JournalInvalidError,
    JournalMissing,
    MaterialRefused,
    RefusedByRules,
    RepositoryMismatch,
    StoreError,
    StoreInputError,
    TerminalAttempt,
    WitnessNotMet,
    WrongWriter,
)
from ._protocol import MAX_SENDS
from ._store import (
    AppendResult,
    BusinessAttemptStore,
    Journal,
    Known,
    MaterialCheck,
    Session,
    Successor,
    default_journal_title,
)

__all__ = [
    "MAX_SENDS",
    "AppendResult",
    "AuthorizationReused",
    "Blocked",
    "BusinessAttemptStore",
    "ConflictingKey",
    "GitHubAnomaly",
    "GitHubRefBackend",
    "IllegalTransition",
    "Journal",
    "JournalInvalidError",
    "JournalMissing",
    "Known",
    "MaterialCheck",
    "MaterialRefused",
    "RefusedByRules",
    "RepositoryMismatch",
    "Session",
    "StoreError",
    "StoreInputError",
    "Successor",
    "TerminalAttempt",
    "WitnessNotMet",
    "WrongWriter",
    "default_journal_title",
]
