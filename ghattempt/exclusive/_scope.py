"""The writer scope and the lease record of its lease ref (journal-v1 sections 1 and 4).

The lease record's format is the core's (:class:`ghattempt.core.Lease`,
:func:`~ghattempt.core.build_lease`, :func:`~ghattempt.core.parse_lease`): the reader
checks the same record as a witness, so there is one definition. This module adds what
the lease arithmetic needs: times as epoch seconds, and reading a record off a ref with
the error the lease layer raises (:class:`LeaseCorrupt`).
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from ..core import LEASE_HEADLINE, JournalInvalid, Lease, Witness, build_lease, parse_lease
from ..core import scope_key as _scope_key
from ._errors import LeaseCorrupt

__all__ = [
    "DEFAULT_REF_PREFIX",
    "LEASE_HEADLINE",
    "Scope",
    "format_time",
    "parse_time",
    "carried",
    "read_lease",
    "renewed",
]

#: Where lease refs live (journal-v1 section 1: ``refs/heads/ghattempt/lease/<scope key>``).
#: A branch, because GitHub's ``createCommitOnBranch`` (one request that writes the new
#: lease commit and moves the ref with compare-and-set) only takes branches.
DEFAULT_REF_PREFIX = "refs/heads/ghattempt/lease/"

_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_INTENT_ID = re.compile(r"sha256:[0-9a-f]{64}")
_NODE_ID = re.compile(r"[A-Za-z0-9_=+/-]{1,256}")


def format_time(epoch_seconds: int) -> str:
    """Epoch seconds -> ``YYYY-MM-DDTHH:MM:SSZ`` (the journal-v1 *time* shape, UTC)."""
    moment = _dt.datetime.fromtimestamp(epoch_seconds, tz=_dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> int:
    """``YYYY-MM-DDTHH:MM:SSZ`` -> epoch seconds.

    Raises:
        ValueError: the text is not exactly that shape or not a real date.
    """
    if not _TIME.fullmatch(text):
        raise ValueError(f"not a UTC time of the form YYYY-MM-DDTHH:MM:SSZ: {text!r}")
    moment = _dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.UTC)
    return int(moment.timestamp())


@dataclass(frozen=True, slots=True)
class Scope:
    """One writer scope: a repository (GraphQL node id) and an intent (its digest).

    Attributes:
        repository_id: the repository's GraphQL node id, opaque, in the format captured
            (``R_kgDO…``; GitHub answers it when asked with ``X-Github-Next-Global-ID:
            1``); never its name, which changes on rename (journal-v1 section 1).
        intent_id: the intent record's digest, ``sha256:`` + 64 lowercase hex
            (journal-v1 section 4, "The intent id is its digest").

    Raises:
        ValueError: either part is malformed (wrong shape, empty, too long).
    """

    repository_id: str
    intent_id: str

    def __post_init__(self) -> None:
        if not isinstance(self.repository_id, str) or not _NODE_ID.fullmatch(
            self.repository_id
        ):
            raise ValueError(
                "Scope.repository_id must be the repository's GraphQL node id "
                f"(1..256 characters of [A-Za-z0-9_=+/-]), got {self.repository_id!r}"
            )
        if not isinstance(self.intent_id, str) or not _INTENT_ID.fullmatch(self.intent_id):
            raise ValueError(
                "Scope.intent_id must be the intent digest 'sha256:' + 64 lowercase hex "
                f"(journal-v1 section 4), got {self.intent_id!r}"
            )

    @property
    def key(self) -> str:
        """The scope key (journal-v1 section 1): 40 lowercase hex of the SHA-256 of the
        canonical JSON ``{"intent", "repository"}`` (so distinct scopes stay distinct)."""
        return _scope_key(self.intent_id, self.repository_id)

    def ref_name(self, prefix: str = DEFAULT_REF_PREFIX) -> str:
        """The fully qualified lease ref, e.g. ``refs/heads/ghattempt/lease/<40 hex>``."""
        return prefix + self.key

    def lease(self, *, holder: str, token: int, state: str, expires_at: int,
              journal: int | None, head: Witness) -> Lease:
        """A lease record of this scope, checked as the reader checks it.

        Raises:
            ValueError: a field is outside its shape (journal-v1 section 4, lease).
        """
        return build_lease(intent=self.intent_id, repository=self.repository_id,
                           holder=holder, token=token, state=state,
                           expires_at=format_time(expires_at), journal=journal, head=head)


def read_lease(message: str | None, *, ref: str, scope: Scope) -> Lease:
    """The lease record in a lease commit's ``message`` read from ``ref``, checked to
    belong to ``scope`` (journal-v1 section 4).

    Raises:
        LeaseCorrupt: no message (the ref does not point to a commit), the message is
            not a lease record, or it names another scope (fail closed: nobody can prove
            ownership).
    """
    if message is None:
        raise LeaseCorrupt(ref=ref, detail="the ref does not point to a commit")
    try:
        lease = parse_lease(message)
    except JournalInvalid as exc:
        raise LeaseCorrupt(ref=ref, detail=exc.detail or "not a lease record") from None
    if lease.intent != scope.intent_id or lease.repository != scope.repository_id:
        raise LeaseCorrupt(
            ref=ref,
            detail=f"lease is for another scope ({lease.repository}, {lease.intent})",
        )
    return lease


def expiry_of(lease: Lease) -> int:
    """The lease's ``expires_at`` as epoch seconds."""
    return parse_time(lease.expires_at)


def renewed(lease: Lease, **changes: object) -> Lease:
    """``lease`` with some fields replaced (``expires_at`` in epoch seconds), checked.

    Raises:
        ValueError: a field is outside its shape.
    """
    fields = {"holder": lease.holder, "token": lease.token, "state": lease.state,
              "expires_at": parse_time(lease.expires_at), "journal": lease.journal,
              "head": lease.head}
    fields.update(changes)
    return Scope(lease.repository, lease.intent).lease(**fields)  # type: ignore[arg-type]


def carried(now: Witness, journal_now: int | None, head: Witness,
            journal: int | None) -> tuple[Witness, int | None]:
    """The witness and journal number a holder carries after a confirmed write
    (journal-v1 section 4: a writer never lowers ``records``; a scope has one journal).

    Raises:
        ValueError: ``head`` lowers ``records``, or ``journal`` differs from the one
            carried already.
    """
    if head.records < now.records:
        raise ValueError(f"the witness never goes back: {head.records} records after "
                         f"{now.records}")
    if journal is not None and journal_now is not None and journal != journal_now:
        raise ValueError(f"the writer scope carries journal #{journal_now}, not #{journal}")
    return head, journal if journal is not None else journal_now


# Public as ghattempt.exclusive (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    Scope, parse_time, read_lease,
):
    _exported.__module__ = "ghattempt.exclusive"
del _exported
