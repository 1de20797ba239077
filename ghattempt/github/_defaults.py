"""The defaults more than one layer takes: where GitHub is, how long one request may take,
how far apart two writes of one writer are, and the bounds of the one retry policy.

One definition each: :class:`~ghattempt.github.ProviderConfig` (``base_url``, ``timeout``,
``mutation_interval``), :class:`~ghattempt.exclusive.LeaseSettings` (``request_timeout``,
``[lease]``), the configuration's ``[pacing] write_interval``, the App's
``GHATTEMPT_GITHUB_API_URL`` and ``GHATTEMPT_HTTP_TIMEOUT``, and the command line's
``--api-url`` and ``--timeout`` all default to these; :class:`RetryPolicy` is the type of
``ProviderConfig.retry`` and of the App's ``AppSettings.retry``. Standard library and
:mod:`ghattempt.github.errors` only: the lease layer, the configuration and the command
line's parser read them without loading httpx.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InputError

__all__ = ["DEFAULT_API_URL", "DEFAULT_CONNECT_TIMEOUT", "DEFAULT_TIMEOUT",
           "DEFAULT_WRITE_INTERVAL", "RetryPolicy"]

DEFAULT_API_URL = "https://api.github.com/"
"""GitHub's REST base on github.com (GitHub Enterprise Server: ``https://HOST/api/v3/``)."""

DEFAULT_TIMEOUT = 30.0
"""Client timeout of one GitHub request, seconds."""

DEFAULT_CONNECT_TIMEOUT = 10.0
"""Seconds to open a connection to GitHub (never more than the request timeout)."""

DEFAULT_WRITE_INTERVAL = 1.0
"""Minimum seconds between two content-creating writes of one writer (GitHub allows about
80 content-creating requests a minute)."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Bounds of the one retry policy (see ``docs/provider.md``, "Retry table").

    All durations are seconds.

    Attributes:
        max_attempts: attempts per read request, the first included.
        max_wait: total seconds one read may spend waiting between attempts; a rate-limit
            wait longer than what is left is not slept: ``RateLimited`` is raised instead.
        backoff_base: first wait after a 502/503/504 or connection error, doubled each time.
        backoff_cap: largest such wait.
        secondary_min_wait: least wait after a secondary rate limit without ``retry-after``
            (GitHub docs: "wait for at least one minute"), doubled on each further one.
        lag_attempts: attempts when GitHub cannot resolve a node just created, and re-reads
            of a journal whose expected comments are not visible yet (read lag).
        lag_base: first wait of those, doubled each time up to ``lag_cap``.
        lag_cap: largest read-lag wait.
    """

    max_attempts: int = 5
    max_wait: float = 900.0
    backoff_base: float = 1.0
    backoff_cap: float = 30.0
    secondary_min_wait: float = 60.0
    lag_attempts: int = 5
    lag_base: float = 0.5
    lag_cap: float = 8.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.lag_attempts < 1:
            raise InputError("RetryPolicy attempts must be >= 1")
        if min(self.max_wait, self.backoff_base, self.backoff_cap, self.secondary_min_wait,
               self.lag_base, self.lag_cap) < 0:
            raise InputError("RetryPolicy durations must be >= 0 seconds")


# Public as ghattempt.github (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
RetryPolicy.__module__ = "ghattempt.github"
