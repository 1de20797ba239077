"""The seam between the command line and the business attempt store for reading.

``classify_store_error`` maps the store's errors (docs/store.md) to exit statuses;
``locate_journal`` finds an intent's journal the way the store does (the scope's lease
names it; else the category scan by repository node id, pull request and base branch;
never search).
"""

from __future__ import annotations

from typing import Any

__all__ = ["classify_store_error", "locate_journal", "reading_store"]


def classify_store_error(exc: BaseException) -> tuple[int, str] | None:
    """Exit status and message for a store error: input 2, refused by the rules 1,
    invalid journal 3, GitHub anomaly 4."""
    from ghattempt import store

    table = (("StoreInputError", 2), ("JournalInvalidError", 3), ("RefusedByRules", 1),
             ("GitHubAnomaly", 4), ("StoreError", 4))
    for name, code in table:
        cls = getattr(store, name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return code, _with_hint(exc)
    return None


# What to do next, by the refusal's spec code (journal-v1 section 8): the store's message
# says what was refused; the command line adds the option or command that helps.
_HINTS = {
    "missing_predecessor": "an earlier phase of the plan has not succeeded yet; record it "
                           "succeeded first (`ghattempt status` lists the missing phases)",
    "undeclared_phase": "the phase is not in this attempt's plan; use a phase that "
                        "`ghattempt status` lists as missing, 'attempt' or 'rollback'",
    "out_of_order_phase": "a later phase of the plan already has a record; phases run in "
                          "plan order",
    "illegal_transition": "`ghattempt status` shows the attempt's state and its recovery",
}


def _with_hint(exc: BaseException) -> str:
    message = str(exc)
    code = getattr(exc, "code", None)
    if isinstance(code, str) and code in _HINTS:
        return f"{message} [{code}]; {_HINTS[code]}" if f"[{code}]" not in message \
            else f"{message}; {_HINTS[code]}"
    problem = getattr(exc, "problem", None)
    if problem == "reason_required":
        return f"{message}; pass --reason TEXT"
    if problem == "reason_forbidden":
        return f"{message}; leave out --reason"
    return message


def reading_store(gh: Any, args: Any, repo: Any, cfg: Any) -> Any:
    """A store for reading (never entering the writer scope) with the reading options."""
    from ghattempt.cli._context import notice_hook, reader_identity
    from ghattempt.config import Settings
    from ghattempt.core import CliWriter
    from ghattempt.exclusive import LeaseSettings, RefLease
    from ghattempt.store import BusinessAttemptStore, GitHubRefBackend

    settings = cfg.settings if cfg is not None else Settings()
    # `capture` has no reading options: the configuration's [writer] finds the journal.
    writer, writer_id = reader_identity(args, cfg, repo.viewer)
    owner, name = repo.owner, repo.name
    # Reading only: the store never enters the writer scope here; the lease is never taken.
    lease = RefLease(GitHubRefBackend(gh, owner, name, repo.id),
                     LeaseSettings(request_timeout=max(gh.config.timeout, 20.0)))
    store = BusinessAttemptStore(
        gh, exclusive=lease, repository=repo.name_with_owner, repository_id=repo.id,
        category=settings.journal.category, writer_login=writer, writer_id=writer_id,
        writer=CliWriter("reader"), reader="sha256:" + "0" * 64, notice=notice_hook(args),
        journal_title=None if cfg is None else cfg.journal_title_of)
    store.initialise(repo)
    return store


def locate_journal(gh: Any, args: Any, repository: tuple[str, str],
                   cfg: Any) -> tuple[Any, Any]:
    """The journal of ``--pull-request``/``--base-ref`` (``ghattempt.store.Journal``, or
    None when there is none yet) and the store that found it: one ``LeaseRef`` read when
    the scope's lease names it, else the category scan (docs/store.md)."""
    owner, name = repository
    repo = gh.repository(owner, name)
    base_ref = args.base_ref or gh.pull_request(owner, name, args.pull_request).base_ref_name
    store = reading_store(gh, args, repo, cfg)
    return store.locate(args.pull_request, base_ref), store
