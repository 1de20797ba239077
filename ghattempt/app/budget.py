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

A place counts in a window until ``window`` seconds after its request's answer (GitHub
counts a request when it arrives, which is before the answer); one never answered (its
process died), or reserved and not used, until ``window + grace`` seconds after it was
taken. Nothing is estimated: a request without a place is not sent.

No wait falls between a writer's last ownership check of its lease and the send (it
would eat into the lease; docs/exclusion.md): the waiting is done before a delivery,
holding nothing.

- :meth:`ContentBudget.reserve` is the worker's gate before it claims a lane: it waits,
  holding nothing (no lane, no writer scope), until a delivery's worth of places
  (:data:`DELIVERY_PLACES`) is free, and reserves them for the thread
  (:meth:`ContentBudget.using`); :meth:`ContentBudget.top_up` reserves a delivery's worth
  again, without waiting, before the next delivery of a burst (the burst ends when it
  cannot), and :meth:`ContentBudget.release` frees what the burst did not use;
- :meth:`ContentBudget.creating` wraps each content-creating request (the providers'
  :class:`~ghattempt.github.ContentPacer`): it takes one of the thread's reserved places,
  or else a free place, waiting at most ``max_wait`` (0 for the App); without one it
  raises :class:`~ghattempt.github.RateLimited` with nothing sent (the delivery is tried
  again after the wait, with the same keys).

``time_scale`` (``GHATTEMPT_APP_BUDGET_TIME_SCALE``, default 1) is for benchmarks only:
the budget's clock runs that many times faster than the real one, so an hour of
GitHub's windows passes in 3600 / scale seconds (``benchmarks/app_scale.py`` runs the
emulator with the same scale); every replica sharing an inbox must use the same one.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence

from ghattempt.app.inbox import Inbox
from ghattempt.github import RateLimited

__all__ = ["CONTENT_WINDOWS", "DELIVERY_PLACES", "ContentBudget"]

log = logging.getLogger("ghattempt.app")

CONTENT_WINDOWS: tuple[tuple[float, int], ...] = ((60.0, 80), (3600.0, 500))
"""GitHub's content limits per actor: ``(seconds, most requests)``."""

DELIVERY_PLACES = 6
"""Places the worker's gate reserves for a delivery: the most one delivery usually
creates (an admission that opens a journal: the lease's commit and ref, the discussion,
two records and the release; a result: the acquiring commit, the record and the
release)."""


class ContentBudget:
    """One actor's content-creation budget in ``inbox`` (module docstring).

    Args:
        inbox: the inbox every worker and replica shares.
        actor: whose budget (the App's: ``app:<id>``, its one bot).
        windows: ``(seconds, most requests)``; GitHub's by default.
        grace: real seconds a request can be on its way (the HTTP timeout); also how long
            a reserved place stays usable.
        max_wait: real seconds a request without a reserved place may wait for a free
            one at its send before :class:`~ghattempt.github.RateLimited` is raised
            instead (0, the default: a lease may guard the send).
        time_scale: the budget's clock runs this many times faster (benchmarks).
        clock: real seconds since the epoch; sleep: waits real seconds (tests).
    """

    def __init__(self, inbox: Inbox, actor: str, *,
                 windows: Sequence[tuple[float, int]] = CONTENT_WINDOWS,
                 grace: float = 30.0, max_wait: float = 0.0, time_scale: float = 1.0,
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
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"ContentBudget({self.actor!r}, windows={self.windows})"

    def now(self) -> float:
        """The budget's clock: real time times ``time_scale``."""
        return self._clock() * self.time_scale

    @contextlib.contextmanager
    def creating(self, operation: str) -> Iterator[None]:
        """Around one content-creating request: take its place (one the thread reserved,
        else a free one, waiting at most ``max_wait``), send, settle.

        Raises:
            RateLimited: no place within ``max_wait``; nothing was sent.
        """
        row = self._take(operation)
        try:
            yield
        finally:
            self.inbox.settle_content(row, self.now())

    def _fresh_after(self, now: float) -> float:
        return now - self.grace * self.time_scale

    def _take(self, operation: str) -> int:
        reservation: str | None = getattr(self._local, "reservation", None)
        if reservation is not None:
            now = self.now()
            row = self.inbox.use_reserved(reservation, now, self._fresh_after(now))
            if row is not None:
                return row
        waited = 0.0
        while True:
            taken, wait = self.inbox.take_content(self.actor, self.now(), self.windows,
                                                  self.grace * self.time_scale)
            if taken is not None:
                return taken
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

    def _places(self, places: int) -> int:
        return max(1, min(places, min(n for _, n in self.windows)))

    def reserve(self, places: int = DELIVERY_PLACES,
                stop: Callable[[float], bool] | None = None) -> str | None:
        """Wait until ``places`` content-creating requests fit and reserve them; returns
        the reservation (for :meth:`using`, :meth:`top_up`, :meth:`release`), or None
        when ``stop(seconds)``, which waits instead of sleeping, returns True (the
        worker stopping)."""
        places = self._places(places)
        reservation = uuid.uuid4().hex
        while True:
            _, wait = self.inbox.take_content(self.actor, self.now(), self.windows,
                                              self.grace * self.time_scale, count=places,
                                              reserve=reservation)
            if wait <= 0:
                return reservation
            real = wait / self.time_scale
            if stop is not None:
                if stop(real):
                    return None
            else:
                self._sleep(real)

    def top_up(self, reservation: str, places: int = DELIVERY_PLACES) -> bool:
        """Reserve for ``reservation`` what it lacks of ``places`` unused places, without
        waiting; whether it has them now."""
        places = self._places(places)
        now = self.now()
        lacking = places - self.inbox.reserved_left(reservation, self._fresh_after(now))
        if lacking <= 0:
            return True
        _, wait = self.inbox.take_content(self.actor, now, self.windows,
                                          self.grace * self.time_scale, count=lacking,
                                          reserve=reservation)
        return wait <= 0

    def release(self, reservation: str) -> None:
        """Free the places ``reservation`` did not use."""
        self.inbox.release_reserved(reservation)

    @contextlib.contextmanager
    def using(self, reservation: str | None) -> Iterator[None]:
        """The calling thread's content-creating requests take ``reservation``'s places
        first for the block."""
        before = getattr(self._local, "reservation", None)
        self._local.reservation = reservation
        try:
            yield
        finally:
            self._local.reservation = before

    def has_room(self, places: int = DELIVERY_PLACES) -> bool:
        """Whether ``places`` more content-creating requests would fit now."""
        _, wait = self.inbox.take_content(self.actor, self.now(), self.windows,
                                          self.grace * self.time_scale,
                                          count=self._places(places), take=False)
        return wait <= 0
