"""The App's content-creation budget: one per GitHub actor, shared by every worker and
replica through the inbox database.

GitHub allows an actor at most 80 content-creating requests a minute and 500 an hour
(GitHub docs, "Rate limits for the REST API", secondary rate limits; comments,
discussions, commits and refs count), and an App is one bot for all its installations:
every worker thread of every replica writes as the same actor. So the budget is kept
where they all meet, in the inbox (``content_budget``, :meth:`Inbox.take_content`): a
content-creating request takes a place before it is sent (waiting until both windows
allow one more) and is settled when its answer came, in one transaction serialized
across replicas (PostgreSQL: an advisory lock per actor; SQLite: its one writer).

A request counts in a window until ``window`` seconds after its answer (GitHub counts it
when it arrives, which is before the answer); one never answered (its process died)
counts until ``window + grace`` seconds after it was taken. Nothing is estimated: a
request whose place is not free is not sent.

Two uses:

- :meth:`ContentBudget.creating` wraps each content-creating request (the providers'
  :class:`~ghattempt.github.ContentPacer`); a wait longer than ``max_wait`` raises
  :class:`~ghattempt.github.RateLimited` with nothing sent (the delivery is tried
  again after it, with the same keys);
- :meth:`ContentBudget.wait_for_room` is the worker's gate before it claims a lane and
  between the deliveries of a burst: it waits, holding nothing (no lane, no writer
  scope), until a delivery's worth of places (:data:`DELIVERY_PLACES`) is free, so that
  the waits fall outside the writer scopes' leases.

``time_scale`` (``GHATTEMPT_APP_BUDGET_TIME_SCALE``, default 1) is for benchmarks only:
the budget's clock runs that many times faster than the real one, so an hour of
GitHub's windows passes in 3600 / scale seconds (``benchmarks/app_scale.py`` runs the
emulator with the same scale); every replica sharing an inbox must use the same one.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence

from ghattempt.app.inbox import Inbox
from ghattempt.github import RateLimited

__all__ = ["CONTENT_WINDOWS", "DELIVERY_PLACES", "ContentBudget"]

log = logging.getLogger("ghattempt.app")

CONTENT_WINDOWS: tuple[tuple[float, int], ...] = ((60.0, 80), (3600.0, 500))
"""GitHub's content limits per actor: ``(seconds, most requests)``."""

DELIVERY_PLACES = 4
"""Places the worker's gate waits for before a delivery: the most one delivery usually
creates (an admission: the lease's commit and ref, the discussion, the records and the
release; a result: the acquiring commit, the record and the release)."""


class ContentBudget:
    """One actor's content-creation budget in ``inbox`` (module docstring).

    Args:
        inbox: the inbox every worker and replica shares.
        actor: whose budget (the App's: ``app:<id>``, its one bot).
        windows: ``(seconds, most requests)``; GitHub's by default.
        grace: real seconds a request can be on its way (the HTTP timeout).
        max_wait: real seconds a request may wait for its place before
            :class:`~ghattempt.github.RateLimited` is raised instead.
        time_scale: the budget's clock runs this many times faster (benchmarks).
        clock: real seconds since the epoch; sleep: waits real seconds (tests).
    """

    def __init__(self, inbox: Inbox, actor: str, *,
                 windows: Sequence[tuple[float, int]] = CONTENT_WINDOWS,
                 grace: float = 30.0, max_wait: float = 60.0, time_scale: float = 1.0,
                 clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if time_scale <= 0:
            raise ValueError("time_scale must be > 0")
        self.inbox = inbox
        self.actor = actor
        self.windows = tuple((float(s), int(n)) for s, n in windows)
        self.grace = grace
        self.max_wait = max_wait
        self.time_scale = time_scale
        self._clock = clock
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"ContentBudget({self.actor!r}, windows={self.windows})"

    def now(self) -> float:
        """The budget's clock: real time times ``time_scale``."""
        return self._clock() * self.time_scale

    @contextlib.contextmanager
    def creating(self, operation: str) -> Iterator[None]:
        """Around one content-creating request: take its place (waiting), send, settle.

        Raises:
            RateLimited: no place within ``max_wait``; nothing was sent.
        """
        row = self._take(operation)
        try:
            yield
        finally:
            self.inbox.settle_content(row, self.now())

    def _take(self, operation: str) -> int:
        waited = 0.0
        while True:
            row, wait = self.inbox.take_content(self.actor, self.now(), self.windows,
                                                self.grace * self.time_scale)
            if row is not None:
                return row
            real = wait / self.time_scale
            if waited + real > self.max_wait:
                raise RateLimited(
                    f"{operation}: GitHub's content limits for {self.actor} ("
                    + ", ".join(f"{n} in {s:g} s" for s, n in self.windows)
                    + f") are spent for {real:.0f} s more; nothing was sent",
                    operation=operation, kind="secondary", retry_after=real)
            log.debug("%s: waiting %.1f s for the content budget", operation, real)
            self._sleep(real)
            waited += real

    def wait_for_room(self, places: int = DELIVERY_PLACES,
                      stop: Callable[[float], bool] | None = None) -> float:
        """Wait until ``places`` content-creating requests would fit; returns the real
        seconds waited. ``stop(seconds)`` waits instead of sleeping and returns True to
        give up (the worker stopping)."""
        places = max(1, min(places, min(n for _, n in self.windows)))
        waited = 0.0
        while True:
            _, wait = self.inbox.take_content(self.actor, self.now(), self.windows,
                                              self.grace * self.time_scale, count=places,
                                              take=False)
            if wait <= 0:
                return waited
            real = wait / self.time_scale
            if stop is not None:
                if stop(real):
                    return waited
            else:
                self._sleep(real)
            waited += real

    def has_room(self, places: int = DELIVERY_PLACES) -> bool:
        """Whether ``places`` content-creating requests would fit now."""
        places = max(1, min(places, min(n for _, n in self.windows)))
        _, wait = self.inbox.take_content(self.actor, self.now(), self.windows,
                                          self.grace * self.time_scale, count=places,
                                          take=False)
        return wait <= 0
