"""The seam between the command line and the business attempt store for reading.

``classify_store_error`` maps the store's errors (docs/store.md) to exit statuses;
``find_journal_number`` finds an intent's journal the way the store does (the oldest
discussion of the configured category whose unedited body by the writer holds exactly
the intent record; never search).
"""

from __future__ import annotations

from typing import Any

__all__ = ["classify_store_error", "find_journal_number"]


def classify_store_error(exc: BaseException) -> tuple[int, str] | None:
    """Exit status and message for a store error: input 2, refused by the rules 1,
    invalid journal 3, GitHub anomaly 4."""
    from ghattempt import store

    table = (("StoreInputError", 2), ("JournalInvalidError", 3), ("RefusedByRules", 1),
             ("GitHubAnomaly", 4), ("StoreError", 4))
    for name, code in table:
        cls = getattr(store, name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return code, str(exc)
    return None


def find_journal_number(gh: Any, args: Any, repository: tuple[str, str],
                        cfg: Any) -> int | None:
    """The Discussion number of the journal of ``--pull-request``/``--base-ref``."""
    from ghattempt.config import Settings
    from ghattempt.core import CliWriter
    from ghattempt.exclusive import LeaseSettings, RefLease
    from ghattempt.store import BusinessAttemptStore, GitHubRefBackend

    settings = cfg.settings if cfg is not None else Settings()
    owner, name = repository
    repo = gh.repository(owner, name)
    base_ref = args.base_ref or gh.pull_request(owner, name, args.pull_request).base_ref_name
    # Reading only: the store never enters the writer scope here; the lease is never taken.
    lease = RefLease(GitHubRefBackend(gh, owner, name, repo.id),
                     LeaseSettings(request_timeout=max(gh.config.timeout, 20.0)))
    store = BusinessAttemptStore(
        gh, exclusive=lease, repository=repo.name_with_owner,
        repository_id=repo.id, category=settings.journal.category,
        writer_login=args.writer or settings.writer.login,
        writer_id=args.writer_id if args.writer else settings.writer.database_id,
        writer=CliWriter("reader"), reader="sha256:" + "0" * 64)
    journal = store.find_journal(store.intent(args.pull_request, base_ref))
    return None if journal is None else journal.number
