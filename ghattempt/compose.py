"""The composition root: a store, and a generation, built from a loaded configuration.

Every use case of the application layer (``ghattempt.commands``, which the CLI, the
Action and the App's journal sink run) builds its store here, writers and readers alike,
so that what a writer reads from ``.github/ghattempt.toml`` reaches the store one way
(docs/store.md, "Building a store"); no face imports this module (docs/layout.md)::

    writing_store(provider, config, writer, *, repository, repository_id, known=None,
                  notice=None, server_url=None, adapt=None) -> BusinessAttemptStore
    reading_store(provider, config, *, repository, repository_id, known=None,
                  writer_login=None, writer_id=None, notice=None,
                  server_url=None) -> BusinessAttemptStore
    generation(config, *, source_commit, tree, base_ref, base_commit) -> Generation
    journal_options(config, *, repository, repository_id, writer_login=None,
                    writer_id=None, server_url=None) -> JournalOptions

``config`` is a :class:`~ghattempt.config.LoadedConfig`: ``[journal]`` gives the
category and the title of a new journal, ``[writer]`` whose records count, ``[lease]``
the :class:`~ghattempt.exclusive.LeaseSettings` of the writer scope (a
:class:`~ghattempt.exclusive.RefLease` over :class:`~ghattempt.store.GitHubRefBackend`),
and its path, blob and digest go into every generation (journal-v1 section 4).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable

from ghattempt.config import LoadedConfig, Settings
from ghattempt.core import Generation, Writer, build_generation
from ghattempt.exclusive import ExclusiveAdapter, RefLease
from ghattempt.github import GitHubProvider, Repository
from ghattempt.readers import reader_digest
from ghattempt.store import BusinessAttemptStore, GitHubRefBackend, JournalOptions

__all__ = ["generation", "holder_label", "journal_options", "reading_store", "writing_store"]

_LABEL = re.compile(r"[^A-Za-z0-9._/-]+")

# The committed bundle's digest does not change while a process runs: read it once.
_reader_digest = functools.cache(reader_digest)


def holder_label(writer: Writer) -> str:
    """The lease holder label naming ``writer`` in a busy scope's message: ``actions/<run
    id>/<run attempt>``, ``app-<app id>`` or ``cli/<actor>`` (1-96 characters of
    ``A-Z a-z 0-9 . _ / -``; never a secret: it is written into the repository)."""
    if writer.kind == "actions":
        label = f"actions/{getattr(writer, 'run_id', 0)}/{getattr(writer, 'run_attempt', 1)}"
    elif writer.kind == "app":
        label = f"app-{getattr(writer, 'app_id', 0)}"
    else:
        label = f"cli/{getattr(writer, 'actor', 'someone')}"
    return (_LABEL.sub("-", label) or "ghattempt")[:96]


def _split(repository: str) -> tuple[str, str]:
    owner, _, name = repository.partition("/")
    return owner, name


def journal_options(config: LoadedConfig | None, *, repository: str, repository_id: str,
                    writer_login: str | None = None, writer_id: int | None = None,
                    server_url: str | None = None) -> JournalOptions:
    """Which journals a store finds and how it reads them, from the configuration:
    ``[journal]``'s category, title and ``max_comments``, and ``[writer]``'s login and
    ``databaseId`` unless ``writer_login`` is given (then with ``writer_id``).

    Raises:
        StoreInputError: a malformed repository or writer login.
    """
    settings = config.settings if config is not None else Settings()
    return JournalOptions(
        repository=repository, repository_id=repository_id,
        category=settings.journal.category,
        writer_login=settings.writer.login if writer_login is None else writer_login,
        writer_id=settings.writer.database_id if writer_login is None else writer_id,
        server_url=server_url, title=None if config is None else config.journal_title_of,
        max_comments=settings.journal.max_comments)


def writing_store(provider: GitHubProvider, config: LoadedConfig, writer: Writer, *,
                  repository: str, repository_id: str, known: Repository | None = None,
                  notice: Callable[[str], None] | None = None, server_url: str | None = None,
                  adapt: Callable[[RefLease], ExclusiveAdapter] | None = None,
                  check_writer: bool = True) -> BusinessAttemptStore:
    """The store a writer writes through, initialised and with its writer checked.

    Args:
        provider: the authenticated provider; its timeout must not exceed
            ``lease.request_timeout`` (seconds).
        config: the loaded configuration (journal category and title, writer, lease).
        writer: the writer identity put into every record; it also names the lease
            holder (:func:`holder_label`).
        repository: ``owner/name`` as GitHub names it now.
        repository_id: the repository's GraphQL node id.
        known: the repository as already read with ``viewer`` (``GitHubProvider.writer_read``
            or ``repository``): ``initialise`` then sends no request; None: one
            ``RepositoryLookup``.
        notice: one line per lost answer reconciled and per wait over 2 s, for the store
            and the lease.
        server_url: the server material URLs must start with.
        adapt: wraps the lease in another adapter (the App keeps leases across a burst).
        check_writer: False only for a person's ``restore_lease``, which writes no
            record (any token with ``contents: write`` restores a lease ref).

    Returns:
        A :class:`~ghattempt.store.BusinessAttemptStore` under a ``RefLease`` whose
        settings are ``[lease]`` with the writer's holder label.

    Raises:
        StoreInputError: a malformed value, or the provider's timeout exceeds the lease's.
        WrongWriter: the token is not the configured writer on this host.
        RepositoryMismatch, GitHubAnomaly, GitHubError: from ``initialise``.
    """
    settings = config.settings
    owner, name = _split(repository)
    lease = RefLease(GitHubRefBackend(provider, owner, name, repository_id),
                     dataclasses.replace(settings.lease, holder_label=holder_label(writer)),
                     notice=notice)
    journals = journal_options(config, repository=repository, repository_id=repository_id,
                               server_url=server_url)
    store = BusinessAttemptStore(provider, journals,
                                 exclusive=lease if adapt is None else adapt(lease),
                                 writer=writer, reader=_reader_digest(), notice=notice)
    store.initialise(known)
    if check_writer:
        store.check_writer()  # a configured writer that is not this token: before any write
    return store


def reading_store(provider: GitHubProvider, config: LoadedConfig | None, *, repository: str,
                  repository_id: str, known: Repository | None = None,
                  writer_login: str | None = None, writer_id: int | None = None,
                  notice: Callable[[str], None] | None = None, server_url: str | None = None
                  ) -> BusinessAttemptStore:
    """A store that only reads (no lease, no writer, no reader digest), initialised.

    Args:
        config: the loaded configuration, or None for its defaults.
        writer_login, writer_id: whose records count, when not ``[writer]``'s (the
            reading commands' ``--writer``/``--writer-id``).
        Others: as :func:`writing_store`.

    Raises:
        StoreInputError, RepositoryMismatch, GitHubAnomaly, GitHubError: as
            :func:`writing_store`.
    """
    journals = journal_options(config, repository=repository, repository_id=repository_id,
                               writer_login=writer_login, writer_id=writer_id,
                               server_url=server_url)
    store = BusinessAttemptStore(provider, journals, notice=notice)
    store.initialise(known)
    return store


def generation(config: LoadedConfig, *, source_commit: str, tree: str, base_ref: str,
               base_commit: str) -> Generation:
    """The generation of a pull request at ``source_commit`` (ADR 0006: source commit and
    its tree, the configuration's path, blob and digest, the observed base branch and
    commit; journal-v1 section 4).

    Raises:
        ValueError: a value the core's ``build_generation`` refuses (an oid that is not
            one, an empty base).
    """
    return build_generation(source_commit=source_commit, tree=tree, config_path=config.path,
                            config_blob=config.blob, config_digest=config.digest,
                            base_ref=base_ref, base_commit=base_commit)
