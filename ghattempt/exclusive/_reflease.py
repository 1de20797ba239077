"""RefLease: the production adapter, a lease per scope on a Git ref with compare-and-set.

Theory of operation
-------------------
Discussions have no compare-and-set, so a stale writer cannot be refused there; the lease
keeps one from existing (ADR 0006, architecture notes "Exclusion"). Each scope has one ref
whose target commit's message is a :class:`LeaseRecord`: holder, fencing token, expiry
(GitHub's clock) and state. Every change of the record is a compare-and-set on the ref, so
two writers can never both move it from the same head.

Clocks. Expiry is judged on GitHub's clock only, read from the ``Date`` header of each
response (whole seconds). A contender may take over once a ``Date`` it receives is at or
past ``expires_at``. The holder bounds GitHub's current time from above with the last
response it got: ``upper(now) = Date + 1 s + (monotonic_now - monotonic_when_sent)`` (the
response was produced after the request was sent, and the ``Date`` truncates). It never
reads the local wall clock.

Safety rule. ``remaining = expires_at - upper(now)``. The holder starts a mutation only if
``remaining > margin = T + S + K`` (request timeout, GitHub's 10 s server bound, clock
skew allowance), so every mutation it starts has committed or been abandoned by GitHub
before any contender's ``Date`` can reach ``expires_at``. ``assert_owner()`` renews (a
compare-and-set from the holder's own head) when the remaining time falls under
``margin + renew_window``; a renewal that loses the compare-and-set proves another holder
took over, and ownership is lost for good.

Release writes ``state: released``. If the last mutation window may still be open (its
response never arrived) the release keeps the scope closed until that window ends:
``expires_at = ceil(upper(gate) + margin)``; otherwise it hands over at once.

Lost answers. A write whose answer was lost is reconciled by reading the ref back: the
holder recognises its own commit by the whole record (holder id with its random nonce,
token, expiry, state). If the head is still the expected one, the same bytes are sent
again with the same expected head, so at most one of the copies can land.
"""

from __future__ import annotations

import logging
import math
import random
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TypeVar

from ._errors import (
    AmbiguousOutcome,
    BackendError,
    ExclusionError,
    LeaseCorrupt,
    OwnershipLost,
    RefConflict,
    ScopeBusy,
)
from ._protocol import Clock, RefBackend, RefSnapshot, SystemClock
from ._scope import LeaseRecord, Scope, format_time
from ._settings import HTTP_DATE_RESOLUTION, LeaseSettings

__all__ = ["RefLease", "RefOwner"]

T = TypeVar("T")

_log = logging.getLogger("ghattempt.exclusive")


@dataclass(frozen=True, slots=True)
class _Pending:
    """A write whose outcome is unknown: the head it expected (``None``: create) and the
    record it carried."""

    expected: str | None
    record: LeaseRecord


class RefLease:
    """Exclusive writer scopes on Git refs with compare-and-set (the production adapter).

    Args:
        backend: the ref store (GitHub through the provider, or a test backend).
        settings: timing and naming; validated at construction.
        clock: local monotonic clock and sleep (tests inject a fake one).
        rng: source of backoff jitter (tests inject a seeded one).

    Cost of one cold hold on GitHub: one read, one compare-and-set to acquire (two requests
    the very first time a scope is used: commit + createRef), one to release.

    Raises (from ``hold``/``run``):
        ScopeBusy: another holder kept the scope for the whole ``acquire_timeout``.
        LeaseCorrupt: the ref holds something that is not a lease of this scope.
        BackendError: the backend kept failing (``AmbiguousOutcome`` if an acquiring write
            may have landed; such a lease simply expires).
    """

    def __init__(
        self,
        backend: RefBackend,
        settings: LeaseSettings | None = None,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._backend = backend
        self._settings = settings if settings is not None else LeaseSettings()
        self._clock: Clock = clock if clock is not None else SystemClock()
        # Jitter only spreads polls; it protects nothing, so a seeded PRNG is fine.
        self._rng = rng if rng is not None else random.Random()  # noqa: S311
        self._held_lock = threading.Lock()
        self._held: set[tuple[int, Scope]] = set()

    @property
    def settings(self) -> LeaseSettings:
        """The validated settings in use."""
        return self._settings

    @property
    def backend(self) -> RefBackend:
        """The ref backend in use."""
        return self._backend

    @contextmanager
    def hold(self, scope: Scope, *, observed: RefSnapshot | None = None) -> Iterator[RefOwner]:
        """Hold ``scope`` for the block; release on exit, also on exceptions.

        Args:
            scope: the writer scope.
            observed: a read of the lease ref made by the caller (for instance merged into
                the store's capture query), used instead of a first read when its ``name``
                is this scope's ref.
        """
        key = (threading.get_ident(), scope)
        with self._held_lock:
            if key in self._held:
                raise ExclusionError(
                    f"writer scope {scope.key} is already held by this thread through this "
                    "RefLease; a nested hold would wait for itself. Pass the owner down "
                    "instead."
                )
            self._held.add(key)
        try:
            owner = self._acquire(scope, observed)
            try:
                yield owner
            finally:
                owner._release()
        finally:
            with self._held_lock:
                self._held.discard(key)

    def run(
        self, scope: Scope, fn: Callable[[RefOwner], T], *, observed: RefSnapshot | None = None
    ) -> T:
        """``with self.hold(scope) as owner: return fn(owner)``."""
        with self.hold(scope, observed=observed) as owner:
            return fn(owner)

    # -- acquiring ---------------------------------------------------------------------

    def _new_holder(self) -> str:
        return f"{self._settings.holder_label}/{secrets.token_hex(8)}"

    def _expiry(self, server_time: int, sent: float) -> int:
        """GitHub time now (estimated from a response) plus the lease length."""
        elapsed = max(0, math.floor(self._clock.monotonic() - sent))
        return server_time + elapsed + self._settings.lease_seconds

    def _acquire(self, scope: Scope, observed: RefSnapshot | None) -> RefOwner:
        s = self._settings
        clock, backend = self._clock, self._backend
        name = scope.ref_name(s.ref_prefix)
        holder = self._new_holder()
        start = clock.monotonic()
        deadline = start + s.acquire_timeout
        backoff = s.backoff_initial
        pending: list[_Pending] = []
        last_error: BackendError | None = None
        streak = 0  # consecutive conflicts/ambiguities: the first re-read is immediate

        snap: RefSnapshot | None = None
        snap_sent = start
        if observed is not None and observed.name == name:
            snap = observed

        def wait(seconds: float) -> bool:
            """Sleep up to ``seconds`` within the deadline; False when time is up."""
            left = deadline - clock.monotonic()
            if left <= 0:
                return False
            clock.sleep(min(seconds, left))
            return True

        def jittered() -> float:
            nonlocal backoff
            value = backoff * (0.5 + 0.5 * self._rng.random())
            backoff = min(backoff * s.backoff_factor, s.backoff_max)
            return max(value, min(s.backoff_initial, s.backoff_max))

        def give_up(current: LeaseRecord | None, *, failing: bool = False) -> Exception:
            """The error for running out of time: an unresolved write of ours, else the
            backend's failure (``failing``), else the holder seen last."""
            waited = clock.monotonic() - start
            if pending:
                latest = pending[-1].record
                return AmbiguousOutcome(
                    f"could not learn whether acquiring writer scope {scope.key} landed "
                    f"within {waited:.1f} s; if it did, the lease expires by itself at "
                    f"{format_time(latest.expires_at)} (GitHub's clock)"
                )
            if failing and last_error is not None:
                return last_error
            if current is not None:
                return ScopeBusy(
                    scope_key=scope.key,
                    holder=current.holder,
                    token=current.token,
                    expires_at=current.expires_at,
                    state=current.state,
                    waited=waited,
                )
            if last_error is not None:
                return last_error
            return BackendError(
                f"could not acquire writer scope {scope.key} within {waited:.1f} s: reads "
                "showed no lease ref but creating it kept conflicting (a lagging read "
                "replica?); retry later",
                retryable=True,
            )

        current: LeaseRecord | None = None
        while True:
            if snap is None:
                sent = clock.monotonic()
                try:
                    snap = backend.read_ref(name)
                except BackendError as exc:
                    if not exc.retryable:
                        raise
                    last_error = exc
                    if not wait(jittered()):
                        raise give_up(current, failing=True) from exc
                    continue
                snap_sent = sent

            current = None
            if snap.oid is not None:
                if snap.message is None:
                    raise LeaseCorrupt(ref=name, detail="the ref does not point to a commit")
                current = LeaseRecord.from_message(snap.message, ref=name, scope=scope)
                if any(p.record == current for p in pending):
                    _log.info("acquired writer scope %s (token %d) after reconciling a lost "
                              "answer", scope.key, current.token)
                    return RefOwner(self, scope, name, current, snap.oid,
                                    snap.server_time, snap_sent, [])

            # A write that expected another head can never land now (heads never return
            # to an old commit): forget it.
            pending = [p for p in pending if p.expected == snap.oid]

            if current is not None and snap.server_time < current.expires_at:
                # Held (or released but quiet) and not expired by GitHub's clock: wait.
                streak = 0
                until_expiry = current.expires_at - snap.server_time + HTTP_DATE_RESOLUTION
                if not wait(min(jittered(), until_expiry)):
                    raise give_up(current)
                snap = None
                continue

            expected = snap.oid
            reuse = next((p for p in pending if p.expected == expected), None)
            if reuse is not None:
                record = reuse.record  # the same bytes again: at most one copy can land
            else:
                record = LeaseRecord(
                    scope=scope,
                    holder=holder,
                    token=1 if current is None else current.token + 1,
                    expires_at=self._expiry(snap.server_time, snap_sent),
                    state="held",
                )
            sent = clock.monotonic()
            try:
                if expected is None:
                    write = backend.create_ref(name, record.to_message())
                else:
                    write = backend.advance_ref(name, expected, record.to_message())
            except RefConflict as exc:
                last_error = None
                streak += 1
                if streak > 1 and not wait(jittered()):
                    raise give_up(current) from exc
                snap = None
                continue
            except AmbiguousOutcome as exc:
                last_error = exc
                if reuse is None:
                    pending.append(_Pending(expected, record))
                streak += 1
                if streak > 1 and not wait(jittered()):
                    raise give_up(current) from exc
                snap = None
                continue
            except BackendError as exc:
                if not exc.retryable:
                    raise
                last_error = exc
                if not wait(jittered()):
                    raise give_up(current, failing=True) from exc
                snap = None
                continue
            _log.info("acquired writer scope %s (token %d, expires %s)", scope.key,
                      record.token, format_time(record.expires_at))
            return RefOwner(self, scope, name, record, write.oid, write.server_time, sent, [])


class RefOwner:
    """The holder's handle for one acquisition of a :class:`RefLease` (see :class:`Owner`).

    Not thread-safe: one writer, one thread.
    """

    __slots__ = (
        "_anchor_sent",
        "_anchor_time",
        "_lease",
        "_lost_reason",
        "_moved",
        "_name",
        "_oid",
        "_pending",
        "_record",
        "_scope",
        "_status",
        "_unsettled",
    )

    def __init__(
        self,
        lease: RefLease,
        scope: Scope,
        name: str,
        record: LeaseRecord,
        oid: str,
        anchor_time: int,
        anchor_sent: float,
        pending: list[LeaseRecord],
    ) -> None:
        self._lease = lease
        self._scope = scope
        self._name = name
        self._record = record
        self._oid = oid
        self._anchor_time = anchor_time
        self._anchor_sent = anchor_sent
        self._pending = pending
        self._status = "held"  # held | lost | released
        self._lost_reason = ""
        self._moved = False  # another holder's commit was seen on the ref
        self._unsettled: float | None = None  # latest gate whose window may be open

    # -- read-only facts -------------------------------------------------------------

    @property
    def scope(self) -> Scope:
        """The scope held."""
        return self._scope

    @property
    def holder(self) -> str:
        """This acquisition's holder id (``holder_label`` + ``/`` + 16 hex nonce)."""
        return self._record.holder

    @property
    def fencing_token(self) -> int:
        """The fencing token, >= 1, strictly greater than every earlier holder's."""
        return self._record.token

    @property
    def ref_name(self) -> str:
        """The fully qualified lease ref."""
        return self._name

    @property
    def expires_at(self) -> int:
        """The current lease expiry, epoch seconds by GitHub's clock."""
        return self._record.expires_at

    def _upper_now(self, mono: float) -> float:
        """Upper bound of GitHub's current time (epoch seconds) at local ``mono``."""
        return self._anchor_time + HTTP_DATE_RESOLUTION + (mono - self._anchor_sent)

    def remaining(self) -> float:
        """``expires_at - upper(now)``: seconds of lease surely left (may be negative)."""
        return self._record.expires_at - self._upper_now(self._lease._clock.monotonic())

    # -- the gate ----------------------------------------------------------------------

    def _lost_error(self) -> OwnershipLost:
        return OwnershipLost(
            scope_key=self._scope.key,
            holder=self._record.holder,
            token=self._record.token,
            reason=self._lost_reason,
        )

    def assert_owner(self, *, mutating: bool = True) -> None:
        """Raise :class:`OwnershipLost` unless more than ``margin`` of the lease is surely
        left; renew first when at most ``margin + renew_window`` is left.

        With ``mutating=True`` the call opens a mutation window that only time closes:
        the release then keeps the scope quiet until ``T + S + K`` after this call. Use
        :meth:`mutation` to close the window when the answer arrives. Once raised, every
        later call raises too.
        """
        gate = self._check()
        if mutating:
            self._unsettled = gate

    @contextmanager
    def mutation(self) -> Iterator[None]:
        """``assert_owner()``, then run the block. A normal exit (the answer arrived)
        closes this mutation's window; an exception leaves it open until time closes it."""
        gate = self._check()
        try:
            yield
        except BaseException:
            self._unsettled = gate if self._unsettled is None else max(self._unsettled, gate)
            raise

    def _check(self) -> float:
        """The gate: renew if due, raise if the margin is gone; returns the local time."""
        if self._status != "held":
            raise self._lost_error()
        s = self._lease._settings
        clock = self._lease._clock
        if self.remaining() <= s.margin + s.effective_renew_window:
            self._renew()
            if self._status != "held":
                raise self._lost_error()
        mono = clock.monotonic()
        left = self._record.expires_at - self._upper_now(mono)
        if left <= s.margin:
            self._lose(
                f"only {left:.1f} s of the lease are surely left, not more than the "
                f"margin of {s.margin:g} s, and renewing did not succeed",
                moved=False,
            )
            raise self._lost_error()
        return mono

    # -- renewing and reconciling --------------------------------------------------------

    def _adopt(self, oid: str, record: LeaseRecord, server_time: int, sent: float) -> None:
        self._oid = oid
        self._record = record
        self._anchor_time = server_time
        self._anchor_sent = sent
        self._pending.clear()

    def _lose(self, reason: str, *, moved: bool) -> None:
        self._status = "lost"
        self._lost_reason = reason
        self._moved = self._moved or moved
        _log.warning("lost writer scope %s: %s", self._scope.key, reason)

    def _renew(self) -> None:
        lease = self._lease
        clock = lease._clock
        new_expiry = lease._expiry(self._anchor_time, self._anchor_sent)
        if new_expiry <= self._record.expires_at:
            return
        record = replace(self._record, expires_at=new_expiry)
        sent = clock.monotonic()
        try:
            write = lease._backend.advance_ref(self._name, self._oid, record.to_message())
        except RefConflict:
            outcome = self._reconcile()
        except AmbiguousOutcome:
            self._pending.append(record)
            outcome = self._reconcile()
        except BackendError as exc:
            _log.info("renewing writer scope %s failed (%s); keeping the current lease",
                      self._scope.key, exc)
            return
        else:
            self._adopt(write.oid, record, write.server_time, sent)
            return
        if outcome is not None and outcome not in ("adopted", "unchanged"):
            self._lose(outcome, moved=True)

    def _reconcile(self) -> str | None:
        """Read the ref after a conflict or a lost answer.

        Returns ``"adopted"`` (a pending write of ours is the head: adopted), ``"unchanged"``
        (the head is still ours: a pending write may still land), ``None`` (the read
        failed: inconclusive) or the reason why another writer now owns the ref.
        """
        lease = self._lease
        sent = lease._clock.monotonic()
        try:
            snap = lease._backend.read_ref(self._name)
        except BackendError:
            return None  # inconclusive: keep the lease we can prove by time alone
        if snap.oid == self._oid:
            return "unchanged"  # or a lagging read
        if snap.oid is None:
            return "the lease ref was deleted"
        try:
            if snap.message is None:
                raise LeaseCorrupt(ref=self._name, detail="the ref does not point to a commit")
            current = LeaseRecord.from_message(snap.message, ref=self._name, scope=self._scope)
        except LeaseCorrupt as exc:
            return f"the lease ref was overwritten ({exc.detail})"
        if current in self._pending:
            self._adopt(snap.oid, current, snap.server_time, sent)
            return "adopted"
        return f"the lease ref moved to holder {current.holder!r} (token {current.token})"

    # -- releasing -----------------------------------------------------------------------

    def _release(self) -> None:
        """Write ``state: released`` (best effort); called once when the hold ends."""
        if self._status == "released":
            return
        if self._status == "held":
            self._lost_reason = "the scope was released"
        self._status = "released"
        if self._moved:
            return  # another holder owns the ref now: nothing of ours to release
        lease = self._lease
        s = lease._settings
        for _ in range(2):
            quiet = self._anchor_time  # a lower bound of GitHub's time now: hand over at once
            if self._unsettled is not None:
                # A mutation's answer never came: it may commit until its window ends.
                quiet = max(quiet, math.ceil(self._upper_now(self._unsettled) + s.margin))
            quiet = min(quiet, self._record.expires_at)
            record = replace(self._record, state="released", expires_at=quiet)
            try:
                lease._backend.advance_ref(self._name, self._oid, record.to_message())
            except RefConflict:
                if self._reconcile() == "adopted":
                    continue  # a renewal whose answer was lost had landed: release from it
                return
            except BackendError as exc:
                _log.warning(
                    "releasing writer scope %s failed (%s); the lease expires by itself at %s",
                    self._scope.key, exc, format_time(self._record.expires_at))
                return
            _log.info("released writer scope %s (token %d)", self._scope.key,
                      self._record.token)
            return
