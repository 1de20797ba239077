"""Lease settings, the safety margin and their validation (ADR 0006)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..github import DEFAULT_TIMEOUT
from ._errors import LeaseSettingsError
from ._scope import DEFAULT_REF_PREFIX

__all__ = ["GITHUB_SERVER_BOUND", "HTTP_DATE_RESOLUTION", "LeaseSettings"]

#: GitHub ends a request after 10 s and answers 502/504, and the mutation may still land
#: (docs/exclusion.md; GitHub docs, "Timeouts").
GITHUB_SERVER_BOUND = 10.0

#: The HTTP ``Date`` header counts whole seconds (RFC 9110 section 5.6.7), so a GitHub
#: time read from it may lag the real one by up to one second.
HTTP_DATE_RESOLUTION = 1.0

_LABEL = re.compile(r"[\x21-\x7e]{1,96}")


@dataclass(frozen=True, slots=True)
class LeaseSettings:
    """Timing and naming of a :class:`RefLease`. All durations are seconds.

    The one lease settings class: the configuration's ``[lease]`` table
    (docs/configuration.md) is read into it (``lease.length`` is ``lease_seconds``), so its
    defaults here are the file's defaults.

    Attributes:
        lease_seconds: how long one acquisition or renewal lasts on GitHub's clock (L).
        request_timeout: the client timeout of one provider request, mutations included
            (T). Every request made while holding the scope must use at most this.
        server_bound: how long after receiving it the server may still commit a request
            (S); GitHub's is 10 s. Lower it only for a backend that enforces less.
        clock_skew: allowance for disagreement between the clocks behind GitHub's ``Date``
            headers and for drift of the local monotonic clock over one lease (K).
        acquire_timeout: how long (local monotonic clock) ``hold`` keeps trying before
            raising ``ScopeBusy``; 0 means one attempt.
        renew_window: ``assert_owner()`` renews once the remaining lease is at most
            ``margin + renew_window``; ``None`` means half of what one lease leaves after
            the margin and one acquisition: ``(L - margin - 2T - 1) / 2``.
        backoff_initial, backoff_max, backoff_factor: waiting for a busy scope polls the
            ref with exponential backoff (jittered to 50..100 %), never faster than
            ``backoff_initial`` and never later than the holder's expiry plus one second.
        ref_prefix: fully qualified prefix of lease refs; must start with ``refs/`` and end
            with ``/``.
        holder_label: printable ASCII (no spaces, 1..96 characters) prefixed to each
            holder id so a busy scope names who holds it, e.g. ``actions/123/1``. Never
            put a secret here: it is written into the repository.

    Derived:
        margin = request_timeout + server_bound + clock_skew: the holder starts no
            mutation once the lease has no more than this left (ADR 0006).
        minimum_lease = margin + 2 * request_timeout + HTTP_DATE_RESOLUTION: one read and
            one compare-and-set to acquire, the ``Date`` resolution, then still room for a
            mutation. ``lease_seconds`` must exceed it.

    Raises:
        LeaseSettingsError: a value is out of range or the lease is too short.
    """

    lease_seconds: int = 120
    request_timeout: float = DEFAULT_TIMEOUT
    server_bound: float = GITHUB_SERVER_BOUND
    clock_skew: float = 5.0
    acquire_timeout: float = 300.0
    renew_window: float | None = None
    backoff_initial: float = 1.0
    backoff_max: float = 10.0
    backoff_factor: float = 2.0
    ref_prefix: str = DEFAULT_REF_PREFIX
    holder_label: str = "ghattempt"

    def __post_init__(self) -> None:
        def need(ok: bool, message: str) -> None:
            if not ok:
                raise LeaseSettingsError(message)

        need(
            isinstance(self.lease_seconds, int) and not isinstance(self.lease_seconds, bool),
            f"lease_seconds must be an integer number of seconds, got {self.lease_seconds!r}",
        )
        for name in (
            "request_timeout",
            "server_bound",
            "clock_skew",
            "acquire_timeout",
            "backoff_initial",
            "backoff_max",
            "backoff_factor",
        ):
            value = getattr(self, name)
            need(
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and math.isfinite(value),
                f"{name} must be a finite number, got {value!r}",
            )
        need(self.request_timeout > 0, f"request_timeout must be > 0, got {self.request_timeout}")
        need(self.server_bound >= 0, f"server_bound must be >= 0, got {self.server_bound}")
        need(self.clock_skew >= 0, f"clock_skew must be >= 0, got {self.clock_skew}")
        need(self.acquire_timeout >= 0, f"acquire_timeout must be >= 0, got {self.acquire_timeout}")
        need(self.backoff_initial > 0, f"backoff_initial must be > 0, got {self.backoff_initial}")
        need(
            self.backoff_max >= self.backoff_initial,
            f"backoff_max ({self.backoff_max}) must be >= backoff_initial "
            f"({self.backoff_initial})",
        )
        need(self.backoff_factor >= 1, f"backoff_factor must be >= 1, got {self.backoff_factor}")
        minimum = self.minimum_lease
        need(
            self.lease_seconds > minimum,
            f"lease_seconds={self.lease_seconds} is too short: it must exceed "
            f"request_timeout ({self.request_timeout:g}) + server_bound "
            f"({self.server_bound:g}) + clock_skew ({self.clock_skew:g}) [the margin] "
            f"+ 2 x request_timeout (one read and one compare-and-set to acquire) "
            f"+ {HTTP_DATE_RESOLUTION:g} s Date resolution = {minimum:g} s. Raise "
            "lease_seconds or lower request_timeout.",
        )
        if self.renew_window is not None:
            need(
                isinstance(self.renew_window, int | float)
                and not isinstance(self.renew_window, bool)
                and math.isfinite(self.renew_window)
                and 0 <= self.renew_window <= self.lease_seconds - self.margin,
                f"renew_window must be in 0..lease_seconds - margin "
                f"({self.lease_seconds - self.margin:g}), got {self.renew_window!r}",
            )
        need(
            isinstance(self.ref_prefix, str)
            and self.ref_prefix.startswith("refs/")
            and self.ref_prefix.endswith("/")
            and ".." not in self.ref_prefix
            and " " not in self.ref_prefix,
            f"ref_prefix must look like 'refs/.../' (got {self.ref_prefix!r})",
        )
        need(
            isinstance(self.holder_label, str) and bool(_LABEL.fullmatch(self.holder_label)),
            "holder_label must be 1..96 printable ASCII characters without spaces "
            f"(got {self.holder_label!r})",
        )

    @staticmethod
    def minimum_for(request_timeout: float, clock_skew: float,
                    server_bound: float = GITHUB_SERVER_BOUND) -> float:
        """The :attr:`minimum_lease` of these values, in seconds, without building settings
        (a configuration reports a too short ``lease.length`` with it)."""
        margin = request_timeout + server_bound + clock_skew
        return margin + 2 * request_timeout + HTTP_DATE_RESOLUTION

    @property
    def margin(self) -> float:
        """T + S + K: the least lease time a holder must have left to start a mutation."""
        return self.request_timeout + self.server_bound + self.clock_skew

    @property
    def minimum_lease(self) -> float:
        """margin + 2T + 1 s: ``lease_seconds`` must be strictly greater."""
        return self.minimum_for(self.request_timeout, self.clock_skew, self.server_bound)

    @property
    def effective_renew_window(self) -> float:
        """The renew window in use (see ``renew_window``)."""
        if self.renew_window is not None:
            return float(self.renew_window)
        return (self.lease_seconds - self.minimum_lease) / 2


# Public as ghattempt.exclusive (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
LeaseSettings.__module__ = "ghattempt.exclusive"
