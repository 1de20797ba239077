"""The lease record and the scope key (docs/journal-format.md sections 1 and 4).

A writer scope (one repository and one intent) has one *lease ref*,
``refs/heads/ghattempt/lease/<scope key>``, moved only by compare-and-set. Its target
commit's message holds the lease record::

    ghattempt lease [skip ci]

    {"expires_at":time,"head":{"last":digest|null,"records":int},"holder":name,
     "journal":count|null,"scope":{"intent":digest,"repository":name},
     "state":"held"|"released","token":count,"type":"lease","v":1}

(the JSON on one line, canonical). ``head`` is the *witness*: how many distinct records
the journal held after the last confirmed write, and the digest of that write. The
reader checks it (section 7.7); the lease layer writes it. Both use this module, so
there is one definition of the format.
"""

from __future__ import annotations

from hashlib import sha256

from ._c14n import canonical_text, read_canonical
from ._codes import JournalInvalid
from ._records import (
    COUNT,
    DIGEST,
    NAME,
    SIZE,
    TIME,
    ShapeProblem,
    check_shape,
    nullable,
    shape,
)
from ._value import value

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

LEASE_HEADLINE = "ghattempt lease [skip ci]"
"""First line of every lease commit message. ``[skip ci]`` keeps GitHub Actions from
starting push workflows for lease commits."""

LEASE_REF_PREFIX = "refs/heads/"
"""The ``prefix`` of a lease ref as GraphQL's ``Ref`` reports it (section 7.7a)."""

LEASE_NAME_PREFIX = "ghattempt/lease/"
"""The ``name`` of a lease ref is this + the scope key (section 1)."""

LEASE_STATES = ("held", "released")

LEASE: Mapping[str, Any] = {
    "v": shape(lambda v: type(v) is int and v == 1, "the integer 1"),
    "type": shape(lambda v: v == "lease", "'lease'"),
    "scope": {"intent": DIGEST, "repository": NAME},
    "holder": NAME, "token": COUNT,
    "state": shape(lambda v: type(v) is str and v in LEASE_STATES, "'held' or 'released'"),
    "expires_at": TIME, "journal": nullable(COUNT),
    "head": {"records": SIZE, "last": nullable(DIGEST)},
}
"""The lease record's field table (section 4, lease), applied by ``check_shape``."""


def scope_key(intent: str, repository: str) -> str:
    """The scope key: the first 40 hex digits of the SHA-256 of the canonical form of
    ``{"intent": intent, "repository": repository}`` (section 1).

    Args:
        intent: the intent id (the intent record's digest).
        repository: the repository's GraphQL node id, as captured.

    Returns:
        40 lowercase hex digits.
    """
    text = canonical_text({"intent": intent, "repository": repository})
    return sha256(text.encode("utf-8")).hexdigest()[:40]


def lease_ref_name(intent: str, repository: str) -> str:
    """The fully qualified lease ref of a scope: ``refs/heads/ghattempt/lease/<key>``."""
    return LEASE_REF_PREFIX + LEASE_NAME_PREFIX + scope_key(intent, repository)


@value
class Witness:
    """The lease record's ``head`` (section 4): ``records`` distinct attempt and event
    records (each digest once, the intent not counted) and ``last``, the digest of the
    record whose confirmed write the witness carries. ``records`` is 0 exactly when
    ``last`` is None; ``Witness(0, None)`` asks for nothing."""

    records: int
    last: str | None

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, lease ``head``)."""
        return {"records": self.records, "last": self.last}


NO_WITNESS = Witness(0, None)
"""The witness of a scope with no confirmed write yet."""


@value
class Lease:
    """A lease record (section 4, lease).

    Attributes:
        intent: the scope's intent id (``sha256:`` digest).
        repository: the scope's repository node id.
        holder: who holds (or last held) the lease, 1..256 characters.
        token: the fencing token, >= 1, strictly increasing across holders.
        state: ``"held"`` or ``"released"``.
        expires_at: a UTC time ``YYYY-MM-DDTHH:MM:SSZ`` by GitHub's clock.
        journal: the number of the intent's journal Discussion, or None before it exists.
        head: the witness.
    """

    intent: str
    repository: str
    holder: str
    token: int
    state: str
    expires_at: str
    journal: int | None
    head: Witness

    def to_dict(self) -> dict[str, Any]:
        """Wire form (section 4, lease): the object whose canonical JSON is the message's
        last line. A lease record has no ``digest``: the commit oid names it."""
        return {"v": 1, "type": "lease",
                "scope": {"intent": self.intent, "repository": self.repository},
                "holder": self.holder, "token": self.token, "state": self.state,
                "expires_at": self.expires_at, "journal": self.journal,
                "head": self.head.to_dict()}

    def message(self) -> str:
        """The commit message holding this record: the headline, an empty line and the
        canonical JSON (section 4), with no trailing newline."""
        return LEASE_HEADLINE + "\n\n" + canonical_text(self.to_dict())

    @property
    def scope_key(self) -> str:
        """The key of this record's scope (section 1)."""
        return scope_key(self.intent, self.repository)


def _bad(what: str) -> JournalInvalid:
    return JournalInvalid("bad_witness", what)


def _lease_from(obj: object) -> Lease:
    """Check a decoded lease object against ``LEASE`` and build the record."""
    try:
        fields = check_shape(obj, LEASE, "lease")
    except ShapeProblem as exc:
        raise _bad(f"the lease record: {exc}") from None
    head = fields["head"]
    if (head["records"] == 0) != (head["last"] is None):
        raise _bad(f"the lease record's head.records is {head['records']} while head.last "
                   f"is {'null' if head['last'] is None else 'a digest'}")
    scope = fields["scope"]
    return Lease(scope["intent"], scope["repository"], fields["holder"], fields["token"],
                 fields["state"], fields["expires_at"], fields["journal"],
                 Witness(head["records"], head["last"]))


def parse_lease(message: object) -> Lease:
    """Read a lease commit message (section 4, lease).

    The message is ``ghattempt lease [skip ci]``, an empty line, and one line of
    canonical JSON; one trailing newline, and ``\\r\\n`` line ends, are allowed.

    Args:
        message: the target commit's message, as GraphQL's ``Commit.message`` gives it.

    Returns:
        The lease record.

    Raises:
        JournalInvalid: code ``bad_witness``, with a detail naming the first problem
            (layout, JSON, canonical form, allowed values, keys and shapes, or a
            ``head`` whose ``records`` is 0 while ``last`` is not null, or the reverse).
    """
    if type(message) is not str:
        raise _bad("the lease ref's target has no commit message")
    text = message.replace("\r\n", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    lines = text.split("\n")
    if len(lines) != 3 or lines[0] != LEASE_HEADLINE or lines[1] != "":
        raise _bad(f"the lease commit message is not {LEASE_HEADLINE!r}, an empty line "
                   "and one line of JSON")
    line = lines[2]
    try:
        obj = read_canonical(line)
    except ValueError as exc:
        raise _bad(f"the lease record: {exc}") from None
    return _lease_from(obj)


def build_lease(*, intent: str, repository: str, holder: str, token: int, state: str,
                expires_at: str, journal: int | None, head: Witness) -> Lease:
    """Build a lease record, checked as the reader checks it.

    Raises:
        ValueError: a field is outside its shape (section 4, lease); the message says
            which.
    """
    lease = Lease(intent, repository, holder, token, state, expires_at, journal, head)
    try:
        return parse_lease(lease.message())
    except JournalInvalid as exc:
        raise ValueError(exc.detail) from None


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    Lease, Witness, build_lease, lease_ref_name, parse_lease, scope_key,
):
    _exported.__module__ = "ghattempt.core"
del _exported
