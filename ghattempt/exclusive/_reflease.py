"""RefLease: the production adapter, a lease per scope on a Git ref with compare-and-set.

Theory of operation
-------------------
Discussions have no compare-and-set, so a stale writer cannot be refused there; the lease
keeps one from existing (docs/exclusion.md). Each scope has one ref
whose target commit's message is a lease record (journal-v1 section 4, built by the core):
holder, fencing token, expiry (GitHub's clock), state, the journal's Discussion number
and the witness ``head``. Every change of the record is a compare-and-set on the ref, so
two writers can never both move it from the same head.

Protocols. Acquiring, renewing and releasing are the pure table machines of
``_machine``, driven by the one loop of :mod:`ghattempt.protocol`; this module performs
their requests on the backend and does the holder's clock arithmetic.

Witness. The holder carries the journal's number and the witness of its confirmed
journal writes (:meth:`RefOwner.carry`); its next lease write (a renewal or the
release) puts them into the record, and a new holder starts from the record it took
over, so the witness never goes back.

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
response never arrived; a definite refusal is an answer) the release keeps the scope
closed until that window ends:
``expires_at = ceil(upper(gate) + margin)``; otherwise it hands over at once.

Lost answers. A write whose answer was lost is reconciled by reading the ref back: the
holder recognises its own commit by the whole record (holder id with its random nonce,
token, expiry, state, journal, witness). If the head is still the expected one, the same
bytes are sent again with the same expected head, so at most one of the copies can land.
A reconciled acquisition, and each wait for another holder expected to last more than
2 s, is told in one line to the ``notice`` hook.
"""

from __future__ import annotations

import logging
import math
import random
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ghattempt.protocol import (
    Answered,
    Conflict,
    Failed,
    Lost,
    Machine,
    Read,
    Result,
    Send,
    Sleep,
    drive,
)

from ..core import Lease, Witness
from ._errors import (
    AmbiguousOutcome,
    BackendError,
    ExclusionError,
    OwnershipLost,
    RefConflict,
)
from ._machine import (
    Acquire,
    Acquired,
    Outcome,
    Release,
    Renew,
    Written,
    expiry,
    release_record,
    settles,
)
from ._protocol import LocalClock, RefBackend, RefSnapshot, SystemClock
from ._scope import Scope, carried, expiry_of, read_lease, renewed
from ._settings import HTTP_DATE_RESOLUTION, LeaseSettings

__all__ = ["RefLease", "RefOwner"]

T = TypeVar("T")

_log = logging.getLogger("ghattempt.exclusive")

Notice = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class _Wiring:
    """What a :class:`RefLease` and its owners share: the ref backend, the settings, the
    local clock and the notice hook, and the one way they run a lease machine."""

    backend: RefBackend
    settings: LeaseSettings
    clock: LocalClock
    notice: Notice | None

    def tell(self, line: str) -> None:
        """One line for the user (the ``notice`` hook), when there is one."""
        if self.notice is not None:
            self.notice(line)

    def run(self, machine: Machine) -> Any:
        """Drive a lease machine to its end (:func:`~ghattempt.protocol.drive`): its
        reads and sends on the backend, its sleeps on the clock (telling ``notice`` what
        a long wait is for)."""
        return drive(machine, self._perform, self._sleep, self.clock.monotonic)

    def _perform(self, step: Send | Read) -> Result:
        sent = self.clock.monotonic()
        if isinstance(step, Read):
            try:
                return Answered(self.backend.read_ref(step.request), sent)
            except BackendError as exc:
                return Failed(exc)
        put = step.request
        try:
            if put.expected is None:
                write = self.backend.create_ref(put.name, put.message)
            else:
                write = self.backend.advance_ref(put.name, put.expected, put.message)
        except RefConflict:
            return Conflict()
        except AmbiguousOutcome as exc:
            return Lost(exc, float(getattr(exc, "retry_after", 0.0) or 0.0))
        except BackendError as exc:
            return Failed(exc)
        return Answered(write, sent)

    def _sleep(self, step: Sleep) -> None:
        if step.notice is not None:
            self.tell(step.notice)
        self.clock.sleep(step.seconds)


class RefLease:
    """Exclusive writer scopes on Git refs with compare-and-set (the production adapter).

    Args:
        backend: the ref store (GitHub through the provider, or a test backend).
        settings: timing and naming; validated at construction.
        clock: local monotonic clock and sleep (tests inject a fake one).
        rng: source of backoff jitter (tests inject a seeded one).
        notice: called with one line when a wait for another holder expected to last
            more than 2 s starts, and when a lost answer of an acquisition is
            reconciled (the CLI prints it to stderr).

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
        clock: LocalClock | None = None,
        rng: random.Random | None = None,
        notice: Notice | None = None,
    ) -> None:
        self._wiring = _Wiring(backend, settings if settings is not None else LeaseSettings(),
                               clock if clock is not None else SystemClock(), notice)
        # Jitter only spreads polls; it protects nothing, so a seeded PRNG is fine.
        self._rng = rng if rng is not None else random.Random()  # noqa: S311
        self._held_lock = threading.Lock()
        self._held: set[tuple[int, Scope]] = set()

    @property
    def settings(self) -> LeaseSettings:
        """The validated settings in use."""
        return self._wiring.settings

    @property
    def backend(self) -> RefBackend:
        """The ref backend in use."""
        return self._wiring.backend

    @property
    def request_timeout(self) -> float:
        """The settings' ``request_timeout``: the lease margin covers requests this long,
        and no longer (seconds)."""
        return self._wiring.settings.request_timeout

    def ref_name(self, scope: Scope) -> str:
        """The lease ref of ``scope`` (under the settings' ``ref_prefix``)."""
        return scope.ref_name(self._wiring.settings.ref_prefix)

    @contextmanager
    def hold(self, scope: Scope, *, observed: RefSnapshot | None = None) -> Iterator[RefOwner]:
        """Hold ``scope`` for the block; release on exit, also on exceptions.

        Args:
            scope: the writer scope.
            observed: a read of the lease ref made by the caller (for instance to learn
                the journal's number), used instead of a first read when its ``name`` is
                this scope's ref.
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
                owner.release()
        finally:
            with self._held_lock:
                self._held.discard(key)

    def run(
        self, scope: Scope, fn: Callable[[RefOwner], T], *, observed: RefSnapshot | None = None
    ) -> T:
        """``with self.hold(scope) as owner: return fn(owner)``."""
        with self.hold(scope, observed=observed) as owner:
            return fn(owner)

    def preview(self, scope: Scope, *, observed: RefSnapshot | None = None) -> str:
        """What holding ``scope`` would write, in one line, writing nothing: the lease ref
        created (none there yet) or advanced from its head, then advanced again by the
        release; and whom a hold would wait for first.

        The backend's ``check_writable(name, exists=...)``, when it has one, is asked
        whether those writes may be made (a repository ruleset may refuse them), and its
        ``deletion_note(name)``, when it has one, whether a rule keeps the ref from being
        deleted (the line ends with it).

        Raises:
            BackendError: the backend says the writes would be refused (non-retryable:
                the same refusal the hold would meet), or reading the ref failed.
            LeaseCorrupt: the ref holds something that is not a lease of this scope.
        """
        name = self.ref_name(scope)
        snap = observed if observed is not None and observed.name == name \
            else self.backend.read_ref(name)
        check = getattr(self.backend, "check_writable", None)
        if check is not None:
            check(name, exists=snap.oid is not None)
        noted = getattr(self.backend, "deletion_note", None)
        note = f"; {noted(name)}" if noted is not None else ""
        if snap.oid is None:
            return (f"create lease ref {name} (a commit holding the lease record of writer "
                    f"scope {scope.key}), then move it once more to release the scope{note}")
        current = read_lease(snap.message, ref=name, scope=scope)
        busy = ""
        if expiry_of(current) > snap.server_time:
            what = "keeps it quiet" if current.state == "released" else "holds it"
            busy = (f"; {current.holder} (fencing token {current.token}) {what} until "
                    f"{current.expires_at}: a real run waits for that, up to "
                    f"{self.settings.acquire_timeout:g} s")
        return (f"move lease ref {name} from {snap.oid[:12]} (fencing token "
                f"{current.token}, {current.state}) to a new lease record of writer scope "
                f"{scope.key}, and once more to release it{busy}{note}")

    def _acquire(self, scope: Scope, observed: RefSnapshot | None) -> RefOwner:
        wiring = self._wiring
        s = wiring.settings
        name = self.ref_name(scope)
        start = wiring.clock.monotonic()
        first = None
        if observed is not None and observed.name == name:
            first = Answered(observed, start)
        machine = Acquire(scope, name, s, holder=f"{s.holder_label}/{secrets.token_hex(8)}",
                          start=start, rng=self._rng, observed=first)
        got: Acquired = wiring.run(machine)
        record = got.record
        if got.reconciled:
            wiring.tell(f"the answer to acquiring writer scope {scope.key} was lost; reading "
                        f"the lease ref back showed it landed (fencing token {record.token})")
        _log.info("acquired writer scope %s (token %d, expires %s)", scope.key, record.token,
                  record.expires_at)
        return RefOwner(wiring, scope, name, got)


class RefOwner:
    """The holder's handle for one acquisition of a :class:`RefLease` (see :class:`Owner`).

    Not thread-safe: one writer, one thread.
    """

    __slots__ = (
        "_anchor_sent",
        "_anchor_time",
        "_head",
        "_journal",
        "_lost_reason",
        "_moved",
        "_name",
        "_oid",
        "_pending",
        "_record",
        "_scope",
        "_status",
        "_taken",
        "_taken_from",
        "_unsettled",
        "_wiring",
    )

    def __init__(self, wiring: _Wiring, scope: Scope, name: str, acquired: Acquired) -> None:
        self._wiring = wiring
        self._scope = scope
        self._name = name
        self._record = acquired.record
        self._taken = acquired.record  # the record as acquired: the witness built on
        self._taken_from = acquired.taken_from
        self._oid = acquired.oid
        self._anchor_time = acquired.server_time
        self._anchor_sent = acquired.sent
        self._pending: list[Lease] = []
        self._status = "held"  # held | lost | released
        self._lost_reason = ""
        self._moved = False  # another holder's commit was seen on the ref
        self._unsettled: float | None = None  # latest gate whose window may be open
        self._head: Witness = acquired.record.head
        self._journal: int | None = acquired.record.journal

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
        return expiry_of(self._record)

    @property
    def record(self) -> Lease:
        """The lease record on the ref now (as this holder last wrote or adopted it)."""
        return self._record

    @property
    def acquired(self) -> Lease:
        """The record as acquired: its ``journal`` and witness ``head`` were carried
        over from the previous holder's last record (journal-v1 section 4)."""
        return self._taken

    @property
    def taken_from(self) -> str | None:
        """The head the acquiring compare-and-set moved the ref from (None: it created
        the ref). Equal to a head read before: nobody held the scope in between."""
        return self._taken_from

    @property
    def created(self) -> bool:
        """True when the acquisition created the lease ref: nobody held the scope
        before."""
        return self._taken_from is None

    @property
    def journal(self) -> int | None:
        """The journal's Discussion number the next lease write carries."""
        return self._journal

    @property
    def head(self) -> Witness:
        """The witness the next lease write carries."""
        return self._head

    def carry(self, head: Witness, journal: int | None = None) -> None:
        """Carry the witness of a confirmed journal write (and the journal's number) into
        the next lease write (journal-v1 section 4: the renewal or the release).

        Raises:
            ValueError: ``head`` lowers ``records`` (a writer never lowers it), or
                ``journal`` differs from the journal already carried.
        """
        self._head, self._journal = carried(self._head, self._journal, head, journal)

    def _upper_now(self, mono: float) -> float:
        """Upper bound of GitHub's current time (epoch seconds) at local ``mono``."""
        return self._anchor_time + HTTP_DATE_RESOLUTION + (mono - self._anchor_sent)

    def remaining(self) -> float:
        """``expires_at - upper(now)``: seconds of lease surely left (may be negative)."""
        return self.expires_at - self._upper_now(self._wiring.clock.monotonic())

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
        """``assert_owner()``, then run the block. A normal exit (the answer arrived) or
        a definite refusal (:func:`~ghattempt.exclusive._machine.settles`: GitHub answered,
        or nothing was sent) closes this mutation's window; any other exception (an
        unknown outcome) leaves it open until time closes it."""
        gate = self._check()
        try:
            yield
        except BaseException as exc:
            if not settles(exc):
                self._unsettled = gate if self._unsettled is None \
                    else max(self._unsettled, gate)
            raise

    def _check(self) -> float:
        """The gate: renew if due, raise if the margin is gone; returns the local time."""
        if self._status != "held":
            raise self._lost_error()
        s = self._wiring.settings
        clock = self._wiring.clock
        if self.remaining() <= s.margin + s.effective_renew_window:
            self._renew()
            if self._status != "held":
                raise self._lost_error()
        mono = clock.monotonic()
        left = self.expires_at - self._upper_now(mono)
        if left <= s.margin:
            self._lose(
                f"only {left:.1f} s of the lease are surely left, not more than the "
                f"margin of {s.margin:g} s, and renewing did not succeed",
                moved=False,
            )
            raise self._lost_error()
        return mono

    # -- renewing ------------------------------------------------------------------------

    def _adopt(self, written: Written) -> None:
        assert written.record is not None and written.oid is not None
        assert written.server_time is not None and written.sent is not None
        self._oid = written.oid
        self._record = written.record
        self._anchor_time = written.server_time
        self._anchor_sent = written.sent
        self._pending.clear()

    def _lose(self, reason: str, *, moved: bool) -> None:
        self._status = "lost"
        self._lost_reason = reason
        self._moved = self._moved or moved
        _log.warning("lost writer scope %s: %s", self._scope.key, reason)

    def _drive(self, machine: Renew | Release) -> Written:
        written: Written = self._wiring.run(machine)
        return written

    def _renew(self) -> None:
        wiring = self._wiring
        new_expiry = expiry(wiring.settings, self._anchor_time, self._anchor_sent,
                            wiring.clock.monotonic())
        if new_expiry <= self.expires_at:
            return
        record = renewed(self._record, expires_at=new_expiry, head=self._head,
                         journal=self._journal)
        written = self._drive(Renew(self._scope, self._name, self._oid, record, self._pending))
        if written.outcome in (Outcome.WROTE, Outcome.ADOPTED):
            if written.outcome is Outcome.ADOPTED:
                wiring.tell(f"the answer to renewing writer scope {self._scope.key} was "
                            "lost; reading the lease ref back showed it landed")
            self._adopt(written)
        elif written.outcome is Outcome.LOST:
            self._lose(written.reason, moved=True)
        elif written.outcome is Outcome.FAILED:
            _log.info("renewing writer scope %s failed (%s); keeping the current lease",
                      self._scope.key, written.reason)

    # -- releasing -----------------------------------------------------------------------

    def release(self) -> None:
        """Write ``state: released`` (best effort), carrying the witness: the adapter
        calls it when the hold ends. Later calls do nothing; once called, every
        :meth:`assert_owner` raises."""
        if self._status == "released":
            return
        if self._status == "held":
            self._lost_reason = "the scope was released"
        self._status = "released"
        if self._moved:
            return  # another holder owns the ref now: nothing of ours to release
        s = self._wiring.settings
        for _ in range(2):
            quiet = self._anchor_time  # a lower bound of GitHub's time now: hand over at once
            if self._unsettled is not None:
                # A mutation's answer never came: it may commit until its window ends.
                quiet = max(quiet, math.ceil(self._upper_now(self._unsettled) + s.margin))
            record = release_record(self._record, quiet_until=quiet, head=self._head,
                                    journal=self._journal)
            written = self._drive(Release(self._scope, self._name, self._oid, record,
                                          self._pending))
            if written.outcome is Outcome.ADOPTED:
                self._adopt(written)
                if self._record.state == "released":
                    break  # the release whose answer was lost had landed
                continue  # a renewal whose answer was lost had landed: release from it
            if written.outcome is Outcome.FAILED:
                _log.warning(
                    "releasing writer scope %s failed (%s); the lease expires by itself at %s",
                    self._scope.key, written.reason, self._record.expires_at)
                return
            if written.outcome is not Outcome.WROTE:
                return
            break
        _log.info("released writer scope %s (token %d)", self._scope.key, self._record.token)


# Public as ghattempt.exclusive (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    RefLease, RefOwner,
):
    _exported.__module__ = "ghattempt.exclusive"
del _exported
