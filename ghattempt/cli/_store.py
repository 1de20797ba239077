"""The seam between the command line and the business attempt store for reading.

``reading_store`` builds a store that only reads; ``locate_journal`` finds an intent's
journal the way the store does (the scope's lease names it; else the category scan by
repository node id, pull request and base branch; never search).
"""

from __future__ import annotations

from typing import Any

__all__ = ["locate_journal", "reading_store"]


def reading_store(gh: Any, args: Any, repo: Any, cfg: Any) -> Any:
    """A store that only reads (``ghattempt.compose.reading_store``: no lease, no writer)
    with the reading options."""
    from ghattempt.cli._context import notice_hook, reader_identity
    from ghattempt.compose import reading_store as compose_reading_store

    # `capture` has no reading options: the configuration's [writer] finds the journal.
    writer, writer_id = reader_identity(args, cfg, repo.viewer)
    return compose_reading_store(gh, cfg, repository=repo.name_with_owner,
                                 repository_id=repo.id, known=repo, writer_login=writer,
                                 writer_id=writer_id, notice=notice_hook(args))


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
