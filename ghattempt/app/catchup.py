"""Catching up after downtime: redelivering what GitHub could not deliver.

GitHub does not redeliver a failed delivery on its own; it keeps each App's deliveries
for 3 days and lets the App list them and ask for a redelivery (GitHub docs, "Handling
failed webhook deliveries", "Redelivering webhooks", and "Automatically redelivering
failed deliveries for a GitHub App webhook", whose script this follows). On start and
every ``GHATTEMPT_APP_CATCHUP_INTERVAL`` seconds (default 300) the server:

1. lists its deliveries, newest first (``GET /app/hook/deliveries``, ``per_page=100``,
   following the ``Link`` header's ``next`` cursor), back to the previous catch-up less
   :data:`OVERLAP` (deliveries can take a few minutes to appear in the log), at most
   :data:`REDELIVERY_WINDOW` back (GitHub redelivers nothing older);
2. groups them by ``guid`` (the ``X-GitHub-Delivery`` id, kept by redeliveries) and asks
   for a redelivery (``POST /app/hook/deliveries/{id}/attempts``) of each guid whose
   deliveries all failed, unless the inbox has it (GitHub gave up waiting for an answer
   the server did commit), the event is one the server ignores, the last answer was a
   refusal that would be given again (400, 401, 409, 413: a redelivery carries the same
   headers and body), or :data:`MAX_REQUESTS` redeliveries were asked for already.

The redelivered deliveries come through the webhook like any other, so the inbox's
deduplication makes each one count once. Both calls authenticate as the App (its JWT);
each has the server's GitHub timeout. With PostgreSQL, one replica at a time catches up
(an advisory lock); the horizon is kept in the inbox, so replicas share it.
"""

from __future__ import annotations

import logging
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
from githubkit import AppAuthStrategy, GitHub

from ghattempt.app.inbox import Inbox
from ghattempt.app.routing import is_routed
from ghattempt.app.settings import AppSettings
from ghattempt.app.worker import redact

__all__ = [
    "MAX_PAGES",
    "MAX_REQUESTS",
    "OVERLAP",
    "REDELIVERY_WINDOW",
    "CatchUp",
    "Sweep",
]

log = logging.getLogger("ghattempt.app")

REDELIVERY_WINDOW = 3 * 24 * 3600.0
"""GitHub redelivers deliveries of the past 3 days (GitHub docs, "Redelivering
webhooks"; GitHub Enterprise Server keeps 7: the shorter window is kept)."""
OVERLAP = 600.0
"""Seconds each catch-up reaches back before the previous one began ("Webhook
deliveries can take a few minutes to be delivered and to appear in the recent
deliveries log", GitHub docs, "Troubleshooting webhooks")."""
MAX_PAGES = 100
"""Most pages of 100 deliveries one catch-up reads."""
MAX_REQUESTS = 5
"""Most redeliveries the server asks for one guid."""
REFUSED_AGAIN = frozenset({400, 401, 409, 413})
"""Answers this server gives a delivery whatever the moment: a redelivery, with the
same headers and body, would get them again."""

_SINCE = "catchup_since"
_LAST = "catchup_at"


@dataclass
class Sweep:
    """What one catch-up did.

    Attributes:
        listed: deliveries read from the log.
        pages: pages read.
        redelivered: guids GitHub was asked to redeliver.
        skipped: guids left alone, by reason.
        led: whether this replica did the catch-up (another one may hold it).
    """

    listed: int = 0
    pages: int = 0
    redelivered: list[str] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    led: bool = True

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def _cursor(response: Any) -> str | None:
    """The ``cursor`` of the ``Link`` header's ``next`` page (GitHub docs, "Using
    pagination in the REST API"); only that parameter is taken from the URL."""
    link = response.raw_response.links.get("next")
    if not link or "url" not in link:
        return None
    values = urllib.parse.parse_qs(urllib.parse.urlsplit(link["url"]).query).get("cursor")
    return values[0] if values else None


class CatchUp:
    """Lists the App's webhook deliveries and asks GitHub to redeliver the lost ones.

    Args:
        inbox: the inbox (what was accepted; the horizon; the requests made).
        settings: the App id, key, API URL and timeout; ``catchup_interval``.
        transport: an httpx transport, for tests.
        clock: ``time.time``-like.
    """

    def __init__(self, inbox: Inbox, settings: AppSettings, *,
                 transport: httpx.BaseTransport | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.inbox = inbox
        self.settings = settings
        self.interval = settings.catchup_interval
        self._clock = clock
        self._secrets = (settings.private_key.reveal(), settings.webhook_secret.reveal())
        self._github: GitHub[AppAuthStrategy] = GitHub(
            AppAuthStrategy(settings.app_id, settings.private_key.reveal()),
            base_url=settings.api_url, timeout=settings.http_timeout, http_cache=False,
            auto_retry=False, transport=transport)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"CatchUp(app_id={self.settings.app_id}, every={self.interval:g} s)"

    # -- the thread ------------------------------------------------------------------

    def start(self) -> None:
        """Catch up now (in a thread of its own), then every ``interval`` seconds."""
        if self._thread is not None or not self.interval:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="ghattempt-catchup",
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread after the request in hand."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        first = True
        try:
            while not self._stop.is_set():
                try:
                    self.sweep(force=first)
                except Exception as exc:  # GitHub down, the inbox unreachable: next time
                    log.warning("catch-up failed (%s: %s); trying again in %g s",
                                type(exc).__name__, redact(str(exc), self._secrets),
                                self.interval)
                first = False
                self._stop.wait(self.interval)
        finally:
            self.inbox.close_connection()

    # -- one catch-up ----------------------------------------------------------------

    def sweep(self, *, force: bool = True) -> Sweep:
        """One catch-up (module docstring).

        Args:
            force: catch up even when another replica did less than ``interval`` ago.

        Raises:
            githubkit.exception.GitHubException, httpx.HTTPError: GitHub refused or did
                not answer the listing (nothing is recorded; the next catch-up starts
                from the same horizon).
        """
        with self.inbox.leading("catch-up") as lead:
            if not lead:
                return Sweep(led=False)
            now = self._clock()
            last = self.inbox.meta(_LAST)
            if not force and last is not None and now - float(last) < 0.9 * self.interval:
                return Sweep(led=False)
            since = self.inbox.meta(_SINCE)
            horizon = now - REDELIVERY_WINDOW
            if since is not None:
                horizon = max(horizon, float(since) - OVERLAP)
            result = self._sweep(now, horizon)
            self.inbox.set_meta(_SINCE, repr(now))
            self.inbox.set_meta(_LAST, repr(now))
        log.info("catch-up: %d deliveries listed (%d pages), %d redeliveries asked, left "
                 "alone: %s", result.listed, result.pages, len(result.redelivered),
                 ", ".join(f"{n} {why}" for why, n in sorted(result.skipped.items())) or "none")
        return result

    def _sweep(self, now: float, horizon: float) -> Sweep:
        result = Sweep()
        by_guid: dict[str, list[Any]] = {}
        cursor: str | None = None
        while result.pages < MAX_PAGES:
            if cursor is None:
                response = self._github.rest.apps.list_webhook_deliveries(per_page=100)
            else:
                response = self._github.rest.apps.list_webhook_deliveries(per_page=100,
                                                                          cursor=cursor)
            result.pages += 1
            page = response.parsed_data
            for delivery in page:
                if _epoch(delivery.delivered_at) >= horizon:
                    result.listed += 1
                    by_guid.setdefault(delivery.guid, []).append(delivery)
            if not page or _epoch(page[-1].delivered_at) < horizon:
                break
            cursor = _cursor(response)
            if cursor is None:
                break
        else:
            log.warning("catch-up read %d pages and stopped: deliveries older than that are "
                        "not looked at", MAX_PAGES)
        for guid, deliveries in by_guid.items():
            reason = self._reason_to_skip(guid, deliveries, now)
            if reason is not None:
                result.skip(reason)
                continue
            newest = max(deliveries, key=lambda d: (_epoch(d.delivered_at), d.id))
            self._github.rest.apps.redeliver_webhook_delivery(newest.id)
            self.inbox.record_redelivery(guid, self._clock())
            result.redelivered.append(guid)
            log.info("catch-up asked GitHub to redeliver %s %s/%s (its last answer: %s %s)",
                     guid, newest.event, newest.action, newest.status_code, newest.status)
        return result

    def _reason_to_skip(self, guid: str, deliveries: list[Any], now: float) -> str | None:
        if any(200 <= d.status_code < 300 for d in deliveries):
            return "delivered"
        newest = max(deliveries, key=lambda d: (_epoch(d.delivered_at), d.id))
        if not is_routed(newest.event, newest.action):
            return "ignored event"
        if newest.status_code in REFUSED_AGAIN:
            return "refused by this server"
        if min(_epoch(d.delivered_at) for d in deliveries) < now - REDELIVERY_WINDOW:
            return "past the redelivery window"
        if self.inbox.knows(guid):
            return "in the inbox"
        if self.inbox.redelivery_requests(guid) >= MAX_REQUESTS:
            return "asked too often"
        return None


def _epoch(value: datetime | str) -> float:
    if isinstance(value, datetime):
        return value.timestamp()
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
