"""The seams: the clock, the ref backend a RefLease needs, and what every adapter offers."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ..core import Witness
from ._scope import Scope

__all__ = [
    "ExclusiveAdapter",
    "LocalClock",
    "Owner",
    "RefBackend",
    "RefSnapshot",
    "RefWrite",
    "SystemClock",
]

T = TypeVar("T")


class LocalClock(Protocol):
    """Local time as the lease arithmetic needs it: a monotonic counter and a sleep.

    The local wall clock is never consulted; GitHub's clock comes from ``Date`` headers.
    """

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back and keeps counting while suspended."""
        ...

    def sleep(self, seconds: float) -> None:
        """Block for ``seconds`` (>= 0)."""
        ...


class SystemClock:
    """The process's clocks.

    ``monotonic()`` reads ``CLOCK_BOOTTIME`` where the platform has it (Linux): unlike
    ``CLOCK_MONOTONIC`` it keeps counting while the machine is suspended, and a holder
    that slept through its lease must see that time as elapsed. Elsewhere it falls back to
    :func:`time.monotonic`.
    """

    __slots__ = ("_clock_id",)

    def __init__(self) -> None:
        self._clock_id: int | None = getattr(time, "CLOCK_BOOTTIME", None)

    def monotonic(self) -> float:
        if self._clock_id is not None:
            return time.clock_gettime(self._clock_id)
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))


@dataclass(frozen=True, slots=True)
class RefSnapshot:
    """One read of a lease ref.

    Attributes:
        name: the fully qualified ref name that was read.
        oid: the ref's target commit oid, or ``None`` when the ref does not exist.
        message: the target commit's full message (headline, empty line, body), or
            ``None`` when the ref does not exist or does not point to a commit.
        server_time: the server's clock as epoch seconds, from the response's ``Date``.
    """

    name: str
    oid: str | None
    message: str | None
    server_time: int


@dataclass(frozen=True, slots=True)
class RefWrite:
    """The answer to a successful create or advance.

    Attributes:
        oid: the new target commit's oid (the ref now points to it).
        server_time: epoch seconds from the response's ``Date`` header.
    """

    oid: str
    server_time: int


class RefBackend(Protocol):
    """A place holding named refs with compare-and-set, with a server clock.

    On GitHub (the provider glue): ``read_ref`` is GraphQL
    ``repository(...){ref(qualifiedName:$name){target{oid ... on Commit{message}}}}`` plus
    the response ``Date``; ``create_ref`` writes an unreferenced commit carrying the message
    (REST ``POST /git/commits``) then ``createRef`` on it, so the ref never exists without a
    lease commit; ``advance_ref`` is ``createCommitOnBranch`` with ``expectedHeadOid``
    (an empty commit whose parent is the current head, written and moved in one request).

    Outcomes, for every method:
        * success: returns as typed;
        * ``RefConflict``: the precondition failed and nothing was written;
        * ``AmbiguousOutcome``: a write was sent and may have landed (timeout, 502/504,
          connection reset after sending);
        * ``BackendError``: nothing was written (``retryable`` says whether to try again).
    Implementations must bound every request by the settings' ``request_timeout``.
    """

    def read_ref(self, name: str) -> RefSnapshot:
        """Read ``name``: its target oid and message, and the server time."""
        ...

    def create_ref(self, name: str, message: str) -> RefWrite:
        """Create ``name`` pointing to a new commit with ``message``.

        Raises ``RefConflict`` if ``name`` already exists.
        """
        ...

    def advance_ref(self, name: str, expected_oid: str, message: str) -> RefWrite:
        """Point ``name`` to a new child of ``expected_oid`` carrying ``message``, only if
        ``name`` still points to ``expected_oid``.

        Raises ``RefConflict`` if the ref is missing or points elsewhere.
        """
        ...


class Owner(Protocol):
    """The handle a writer gets while it holds a scope.

    Not thread-safe: one writer, one thread.
    """

    @property
    def scope(self) -> Scope:
        """The scope held."""
        ...

    @property
    def holder(self) -> str:
        """This acquisition's holder id (label + random nonce)."""
        ...

    @property
    def fencing_token(self) -> int:
        """The fencing token, >= 1, strictly greater than every earlier holder's."""
        ...

    def assert_owner(self, *, mutating: bool = True) -> None:
        """Prove ownership with enough margin for one more mutation, renewing if due.

        Call it immediately before each mutation (ADR 0006: at scope admission and right
        before create/append). With ``mutating=True`` the call opens a mutation window
        that stays open until :meth:`mutation` closes it or it times out (T + S).

        Raises:
            OwnershipLost: start no mutation.
        """
        ...

    def mutation(self) -> AbstractContextManager[None]:
        """``with owner.mutation(): send()``: ``assert_owner()`` on entry; a normal exit
        (a response arrived) closes the mutation window so the scope can be handed over at
        once, and so does a definite refusal (GitHub answered, or nothing was sent: a rate
        limit, a refused request); any other exception leaves it open (the mutation may
        still land)."""
        ...

    def remaining(self) -> float:
        """Seconds of lease left by a conservative reading of GitHub's clock (may be
        negative; ``math.inf`` for adapters without expiry)."""
        ...

    @property
    def journal(self) -> int | None:
        """The journal's Discussion number the lease names (None: not known yet)."""
        ...

    @property
    def head(self) -> Witness:
        """The witness the next lease write carries (journal-v1 section 4, ``head``)."""
        ...

    def carry(self, head: Witness, journal: int | None = None) -> None:
        """Carry the witness of a confirmed journal write (and the journal's number) into
        the next lease write.

        Raises:
            ValueError: ``head`` would lower ``records``, or ``journal`` changes.
        """
        ...

    @property
    def taken_from(self) -> str | None:
        """The lease head this acquisition moved from (None: it created the lease, or
        the adapter has no lease ref). Equal to a head read before the hold, it proves
        nobody held the scope in between."""
        ...

    @property
    def created(self) -> bool:
        """True when this acquisition created the scope's lease: nobody ever held the
        scope before it. False when it took one over, or the adapter cannot tell."""
        ...


class ExclusiveAdapter(Protocol):
    """What the store needs: hold a scope for the duration of a block or a call, the
    scope's lease ref, what a hold would write, and how long a request may take."""

    def hold(self, scope: Scope, *,
             observed: RefSnapshot | None = None) -> AbstractContextManager[Owner]:
        """Acquire ``scope`` (waiting up to the adapter's acquire timeout) and release it
        when the block exits. ``observed``: a read of the scope's lease ref the caller
        made, which the adapter may take as its first read (adapters without a ref
        ignore it).

        Raises:
            ScopeBusy: another writer held it for the whole acquire timeout.
        """
        ...

    def run(self, scope: Scope, fn: Callable[[Owner], T]) -> T:
        """``with hold(scope) as owner: return fn(owner)``."""
        ...

    def ref_name(self, scope: Scope) -> str:
        """The fully qualified lease ref of ``scope``: the one a capture reads beside
        the journal (journal-v1 section 5), and the one that names the journal."""
        ...

    def preview(self, scope: Scope, *, observed: RefSnapshot | None = None) -> str:
        """What holding ``scope`` would write, in one line, writing nothing (``plan``).

        Raises:
            BackendError: the writes would be refused, or reading failed.
        """
        ...

    @property
    def request_timeout(self) -> float:
        """The longest a request made while holding may take for the adapter's guarantee
        to hold (seconds; ``math.inf``: no bound). A writer's client timeout must not
        exceed it."""
        ...


# Public as ghattempt.exclusive (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    ExclusiveAdapter, LocalClock, Owner, RefBackend, RefSnapshot, RefWrite,
    SystemClock,
):
    _exported.__module__ = "ghattempt.exclusive"
del _exported
