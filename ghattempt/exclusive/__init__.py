"""The exclusive writer scope: one writer per (repository, intent) at a time.

The store has no default lock (ADR 0006): every writer names an adapter and calls
``assert_owner()`` at admission and immediately before each create/append::

    lease = RefLease(backend, LeaseSettings(request_timeout=20.0))
    with lease.hold(Scope(repository_id, intent_id)) as owner:
        ...capture and replay...
        with owner.mutation():          # assert_owner(), then the mutation
            add_discussion_comment(...)

Adapters:

* :class:`RefLease` - production: a lease on a Git ref with compare-and-set, judged on
  GitHub's clock, never handed over while a mutation of the old holder can still commit.
* :class:`InMemoryExclusive` - tests only: a thread lock, NO exclusion across processes.

Discussions cannot refuse a stale write; the lease keeps stale writers from existing and
the reader detects any that slip through (a fork) and fails closed. The lease record is
the core's (journal-v1 section 4): besides holder, fencing token and expiry it carries the
journal's number and the witness of the journal's head (``RefOwner.carry``). See
docs/exclusion.md.

Errors (see ``_errors``; each subclasses ``ghattempt.errors.GhattemptError``):
``ExclusionError`` > ``LeaseSettingsError``, ``ScopeBusy``, ``OwnershipLost``,
``LeaseCorrupt``, ``BackendError``; ``RefConflict`` and ``AmbiguousOutcome`` are
``ghattempt.github``'s, re-exported (the backend vocabulary).
"""

from ._errors import (
    AmbiguousOutcome,
    BackendError,
    ExclusionError,
    LeaseCorrupt,
    LeaseSettingsError,
    OwnershipLost,
    RefConflict,
    ScopeBusy,
)
from ._memory import InMemoryExclusive, InMemoryOwner
from ._protocol import (
    ExclusiveAdapter,
    LocalClock,
    Owner,
    RefBackend,
    RefSnapshot,
    RefWrite,
    SystemClock,
)
from ._reflease import RefLease, RefOwner
from ._scope import DEFAULT_REF_PREFIX, LEASE_HEADLINE, Scope, parse_time, read_lease
from ._settings import GITHUB_SERVER_BOUND, HTTP_DATE_RESOLUTION, LeaseSettings

__all__ = [
    "DEFAULT_REF_PREFIX",
    "GITHUB_SERVER_BOUND",
    "HTTP_DATE_RESOLUTION",
    "LEASE_HEADLINE",
    "AmbiguousOutcome",
    "BackendError",
    "ExclusionError",
    "ExclusiveAdapter",
    "InMemoryExclusive",
    "InMemoryOwner",
    "LeaseCorrupt",
    "LeaseSettings",
    "LeaseSettingsError",
    "LocalClock",
    "Owner",
    "OwnershipLost",
    "RefBackend",
    "RefConflict",
    "RefLease",
    "RefOwner",
    "RefSnapshot",
    "RefWrite",
    "Scope",
    "ScopeBusy",
    "SystemClock",
    "parse_time",
    "read_lease",
]
