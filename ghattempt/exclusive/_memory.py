"""InMemoryExclusive: a per-scope thread lock. FOR TESTS ONLY.

    !!! This adapter gives NO exclusion across processes, hosts or GitHub Actions jobs. !!!

It is a local mutex, which ADR 0006 names as insufficient: two runners (two processes)
each get their own lock and both "own" the scope. Use it to test code that takes an
:class:`ExclusiveAdapter` inside one process; production writers use :class:`RefLease`.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from ..core import NO_WITNESS, Witness
from ._errors import ExclusionError, OwnershipLost, ScopeBusy
from ._protocol import RefSnapshot
from ._scope import DEFAULT_REF_PREFIX, Scope, carried

__all__ = ["InMemoryExclusive", "InMemoryOwner"]

T = TypeVar("T")


class InMemoryOwner:
    """Owner handle of :class:`InMemoryExclusive` (no expiry: ``remaining()`` is inf; no
    lease record: the carried witness and journal number live as long as the hold)."""

    __slots__ = ("_head", "_holder", "_journal", "_lost_reason", "_scope", "_token")

    def __init__(self, scope: Scope, holder: str, token: int) -> None:
        self._scope = scope
        self._holder = holder
        self._token = token
        self._lost_reason: str | None = None
        self._head: Witness = NO_WITNESS
        self._journal: int | None = None

    @property
    def journal(self) -> int | None:
        """The journal number carried in this hold (no record outlives it)."""
        return self._journal

    @property
    def head(self) -> Witness:
        """The witness carried in this hold."""
        return self._head

    def carry(self, head: Witness, journal: int | None = None) -> None:
        """Keep ``head`` and ``journal`` for this hold (there is no lease record)."""
        self._head, self._journal = carried(self._head, self._journal, head, journal)

    @property
    def taken_from(self) -> None:
        """None: there is no lease ref."""
        return None

    @property
    def created(self) -> bool:
        """False: this adapter cannot tell whether anybody held the scope before (other
        adapters, other processes)."""
        return False

    @property
    def scope(self) -> Scope:
        """The scope held."""
        return self._scope

    @property
    def holder(self) -> str:
        """``in-memory/<thread id>/<serial>``."""
        return self._holder

    @property
    def fencing_token(self) -> int:
        """1, 2, 3, ... per scope, in acquisition order."""
        return self._token

    def remaining(self) -> float:
        """``inf`` while held (no expiry), ``-inf`` once released or revoked."""
        return -math.inf if self._lost_reason is not None else math.inf

    def assert_owner(self, *, mutating: bool = True) -> None:
        """Raise :class:`OwnershipLost` once released or revoked."""
        if self._lost_reason is not None:
            raise OwnershipLost(
                scope_key=self._scope.key,
                holder=self._holder,
                token=self._token,
                reason=self._lost_reason,
            )

    @contextmanager
    def mutation(self) -> Iterator[None]:
        """``assert_owner()``, then the block."""
        self.assert_owner(mutating=True)
        yield

    def end(self, reason: str) -> None:
        """End this hold: every later :meth:`assert_owner` raises, naming ``reason``
        (the adapter calls it at release and at :meth:`InMemoryExclusive.revoke`)."""
        if self._lost_reason is None:
            self._lost_reason = reason


class InMemoryExclusive:
    """Per-scope ``threading.Lock`` adapter. TESTS ONLY: NO exclusion across processes.

    Args:
        acquire_timeout: seconds ``hold`` waits for the lock before raising ``ScopeBusy``
            (0: do not wait).

    Fencing tokens start at 1 per scope and grow by one per acquisition. ``revoke(scope)``
    makes the current owner's ``assert_owner()`` fail, to test how a writer reacts to
    losing its scope.
    """

    def __init__(self, *, acquire_timeout: float = 5.0) -> None:
        if not (acquire_timeout >= 0 and math.isfinite(acquire_timeout)):
            raise ValueError(f"acquire_timeout must be a finite number >= 0, got {acquire_timeout}")
        self._acquire_timeout = acquire_timeout
        self._guard = threading.Lock()
        self._locks: dict[Scope, threading.Lock] = {}
        self._tokens: dict[Scope, int] = {}
        self._owners: dict[Scope, InMemoryOwner] = {}
        self._threads: dict[Scope, int] = {}  # the thread of each current owner
        self._serial = itertools.count(1)

    def _lock_for(self, scope: Scope) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(scope)
            if lock is None:
                lock = self._locks[scope] = threading.Lock()
            return lock

    @property
    def request_timeout(self) -> float:
        """``inf``: nothing expires, so no request is too long."""
        return math.inf

    def ref_name(self, scope: Scope) -> str:
        """The scope's lease ref at the default prefix (nothing is written there; a
        capture reads it beside the journal)."""
        return scope.ref_name(DEFAULT_REF_PREFIX)

    def preview(self, scope: Scope, *, observed: RefSnapshot | None = None) -> str:
        """``hold writer scope <key>``: a hold writes nothing here."""
        return f"hold writer scope {scope.key}"

    @contextmanager
    def hold(self, scope: Scope, *,
             observed: RefSnapshot | None = None) -> Iterator[InMemoryOwner]:
        """Hold ``scope``'s lock for the block (see :meth:`ExclusiveAdapter.hold`;
        ``observed`` is ignored: there is no ref)."""
        lock = self._lock_for(scope)
        with self._guard:
            if self._threads.get(scope) == threading.get_ident():
                raise ExclusionError(
                    f"writer scope {scope.key} is already held by this thread; a nested "
                    "hold would wait for itself. Pass the owner down instead."
                )
        if not lock.acquire(timeout=self._acquire_timeout):
            with self._guard:
                current = self._owners.get(scope)
            raise ScopeBusy(
                scope_key=scope.key,
                holder=current.holder if current is not None else "another thread",
                token=current.fencing_token if current is not None else None,
                expires_at=None,
                state="held",
                waited=self._acquire_timeout,
            )
        try:
            with self._guard:
                token = self._tokens.get(scope, 0) + 1
                self._tokens[scope] = token
                owner = InMemoryOwner(
                    scope, f"in-memory/{threading.get_ident()}/{next(self._serial)}", token
                )
                self._owners[scope] = owner
                self._threads[scope] = threading.get_ident()
            try:
                yield owner
            finally:
                with self._guard:
                    owner.end("the scope was released")
                    if self._owners.get(scope) is owner:
                        del self._owners[scope]
                        del self._threads[scope]
        finally:
            lock.release()

    def run(self, scope: Scope, fn: Callable[[InMemoryOwner], T]) -> T:
        """``with self.hold(scope) as owner: return fn(owner)``."""
        with self.hold(scope) as owner:
            return fn(owner)

    def revoke(self, scope: Scope) -> None:
        """Make the current owner of ``scope`` (if any) fail ``assert_owner()`` from now on."""
        with self._guard:
            owner = self._owners.get(scope)
            if owner is not None:
                owner.end("the scope was revoked")


# Public as ghattempt.exclusive (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    InMemoryExclusive, InMemoryOwner,
):
    _exported.__module__ = "ghattempt.exclusive"
del _exported
