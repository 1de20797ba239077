"""Exceptions of the exclusive writer scope.

Hierarchy (``fault`` of each, ghattempt.errors)::

    GhattemptError                  the root of every ghattempt error (ghattempt.errors)
    └── ExclusionError              anything this package raises on purpose (bad_input: a
        │                           misuse such as entering a held scope again)
        ├── LeaseSettingsError      (also ValueError) the settings cannot give the guarantee
        │                           (bad_input)
        ├── ScopeBusy               another writer holds the scope; acquire gave up
        │                           (scope_busy)
        ├── OwnershipLost           this writer can no longer prove it owns the scope
        │                           (ownership_lost)
        ├── LeaseCorrupt            the lease ref holds something that is not a lease of this
        │                           scope (github_refused)
        └── BackendError            backend: the request failed (github_unavailable)
            └── AcquireAmbiguous    acquiring gave up with a write of ours unresolved; also
                                    an AmbiguousOutcome (outcome_unknown)

The first four are what a caller of an adapter meets. ``BackendError`` and, from
``ghattempt.github``, ``RefConflict`` (a compare-and-set precondition failed; nothing
written) and ``AmbiguousOutcome`` (a write was sent and may or may not have landed) are
the vocabulary a :class:`~ghattempt.exclusive.RefBackend` uses to report outcomes; the
provider's own classes, so an adapter over GitHub passes them on as they are.
``BackendError`` escapes an adapter only when acquiring fails for a reason other than
contention. No message carries a credential: backends must not put tokens or headers into
the text they pass on.
"""

from __future__ import annotations

import datetime as _dt

from ghattempt.errors import Fault, GhattemptError
from ghattempt.github.errors import AmbiguousOutcome, RefConflict

__all__ = [
    "AmbiguousOutcome",
    "BackendError",
    "ExclusionError",
    "LeaseCorrupt",
    "LeaseSettingsError",
    "OwnershipLost",
    "RefConflict",
    "ScopeBusy",
]


def _fmt_time(epoch_seconds: int | None) -> str:
    if epoch_seconds is None:
        return "an unknown time"
    moment = _dt.datetime.fromtimestamp(epoch_seconds, tz=_dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class ExclusionError(GhattemptError):
    """Base class of every error raised on purpose by ``ghattempt.exclusive``."""

    fault = Fault.BAD_INPUT


class LeaseSettingsError(ExclusionError, ValueError):
    """The lease settings cannot uphold the safety rule (ADR 0006); raised at construction."""

    fault = Fault.BAD_INPUT


class ScopeBusy(ExclusionError):
    """Another writer holds the scope and the acquire timeout ran out.

    Attributes:
        scope_key: the scope's 40-hex key (see :attr:`Scope.key`).
        holder: the holder id recorded by the current owner.
        token: the current owner's fencing token, or ``None`` when unknown.
        expires_at: the lease expiry in epoch seconds by GitHub's clock, or ``None``
            when the adapter has no expiry (the in-memory test adapter).
        state: ``"held"`` or ``"released"`` (a released lease whose last mutation window
            is still open stays closed until ``expires_at``).
        waited: seconds (local monotonic clock) spent trying before giving up.
    """

    fault = Fault.SCOPE_BUSY

    def __init__(
        self,
        *,
        scope_key: str,
        holder: str,
        token: int | None,
        expires_at: int | None,
        state: str,
        waited: float,
    ) -> None:
        self.scope_key = scope_key
        self.holder = holder
        self.token = token
        self.expires_at = expires_at
        self.state = state
        self.waited = waited
        token_text = "" if token is None else f" (fencing token {token})"
        if expires_at is None:
            until = ""
        elif state == "released":
            until = f", released but quiet until {_fmt_time(expires_at)} by GitHub's clock"
        else:
            until = f" until {_fmt_time(expires_at)} by GitHub's clock"
        super().__init__(
            f"writer scope {scope_key} is held by {holder!r}{token_text}{until}; "
            f"gave up after {waited:.1f} s. Retry later, or raise acquire_timeout if "
            "writers of this intent are expected to queue."
        )


class OwnershipLost(ExclusionError):
    """This writer can no longer be sure it owns the scope with room for one more mutation.

    Raised by ``assert_owner()``. Start no mutation after it; the scope's journal must be
    re-captured by whoever writes next.

    Attributes:
        scope_key: the scope's 40-hex key.
        holder: this writer's holder id.
        token: this writer's fencing token.
        reason: what was observed (expired margin, ref moved to another holder, released).
    """

    fault = Fault.OWNERSHIP_LOST

    def __init__(self, *, scope_key: str, holder: str, token: int, reason: str) -> None:
        self.scope_key = scope_key
        self.holder = holder
        self.token = token
        self.reason = reason
        super().__init__(
            f"writer {holder!r} (fencing token {token}) no longer owns scope {scope_key}: "
            f"{reason}. Start no further mutation; re-enter the scope to continue."
        )


class LeaseCorrupt(ExclusionError):
    """The lease ref exists but its target is not a readable lease of this scope.

    Nobody can prove ownership then, so every adapter fails closed.

    Attributes:
        ref: the fully qualified ref name.
        detail: what was wrong with the target commit.
    """

    fault = Fault.GITHUB_REFUSED

    def __init__(self, *, ref: str, detail: str) -> None:
        self.ref = ref
        self.detail = detail
        super().__init__(
            f"lease ref {ref} does not hold a valid lease: {detail}. Nothing was written. "
            "Inspect the ref; delete it only when no writer of this scope can be running "
            "(deleting it resets the fencing token)."
        )


class BackendError(ExclusionError):
    """The backend request failed and, for writes, nothing was written.

    Attributes:
        retryable: whether repeating the request later may succeed (rate limits, 5xx on a
            read, connection failures before sending).
        fault: ``github_unavailable`` when retryable; ``github_refused`` when not (a
            ruleset, branch protection or a missing permission refuses the lease ref's
            writes: a person must act before any retry can succeed).
    """

    fault = Fault.GITHUB_UNAVAILABLE

    def __init__(self, message: str, *, retryable: bool) -> None:
        self.retryable = retryable
        if not retryable:
            self.fault = Fault.GITHUB_REFUSED
        super().__init__(message)


class AcquireAmbiguous(BackendError, AmbiguousOutcome):
    """Acquiring gave up while a write of ours may have landed (an answer was lost and no
    read since showed whether it did). Both a :class:`BackendError` (acquiring failed)
    and an :class:`AmbiguousOutcome` (the outcome is unknown); if the write landed, the
    lease expires by itself at the time the message names."""

    fault = Fault.OUTCOME_UNKNOWN

    def __init__(self, message: str) -> None:
        AmbiguousOutcome.__init__(self, message)
        self.retryable = True


# Public as ghattempt.exclusive (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    BackendError, ExclusionError, LeaseCorrupt, LeaseSettingsError, OwnershipLost,
    ScopeBusy,
):
    _exported.__module__ = "ghattempt.exclusive"
del _exported
