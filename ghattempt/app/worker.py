"""The worker: takes accepted deliveries from the inbox and sends their plans to the sink.

One thread, deliveries in arrival order (a pull request's ``opened`` is handled before
the jobs that run on its head). A delivery that meets :class:`SinkUnavailable` is
retried with exponential backoff, holding back the ones behind it (order matters more
than latency: the journal's phases have an order too); after ``max_tries`` it is
marked ``failed``. Any other exception marks it ``failed`` at once. Every retry resends
the same requests with the same keys.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ghattempt.app.inbox import Inbox, InboxItem
from ghattempt.app.phases import PhaseMap
from ghattempt.app.routing import PayloadError, plan_delivery
from ghattempt.app.sink import (
    CancelAttempt,
    JournalSink,
    OpenIntent,
    PhaseResult,
    SinkRequest,
    SinkResult,
    SinkUnavailable,
    SupersedeAndAdmit,
    TamperingReport,
)

__all__ = ["Worker", "dispatch", "redact"]

log = logging.getLogger("ghattempt.app")

_PRUNE_EVERY = 3600.0
_STEP_RETRY = 1.0
_CHECKPOINT_EVERY = 128
_ERROR_MAX = 2000


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every occurrence of a secret replaced by ``***``, truncated."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text if len(text) <= _ERROR_MAX else text[:_ERROR_MAX] + "\u2026"


def dispatch(sink: JournalSink, request: SinkRequest) -> SinkResult:
    """Call the sink method that handles ``request``'s type."""
    if isinstance(request, OpenIntent):
        return sink.open_intent(request)
    if isinstance(request, SupersedeAndAdmit):
        return sink.supersede_and_admit(request)
    if isinstance(request, PhaseResult):
        return sink.record_phase(request)
    if isinstance(request, CancelAttempt):
        return sink.cancel(request)
    if isinstance(request, TamperingReport):
        return sink.report_tampering(request)
    raise TypeError(f"no sink method for {type(request).__name__}")


class Worker:
    """Processes the inbox in a background thread.

    Args:
        inbox: the inbox (the worker uses its own connection to it).
        sink: where plans go.
        app_id: this App's id (the records' writer).
        phase_map: the workflow/job -> phase mapping.
        secrets: values scrubbed from any error text kept or logged.
        max_tries: tries before a delivery meeting :class:`SinkUnavailable` is failed.
        retry_base: first backoff, seconds; doubled per try, capped at ``retry_cap``.
        clock: ``time.time``-like, for tests.
    """

    def __init__(
        self,
        inbox: Inbox,
        sink: JournalSink,
        *,
        app_id: int,
        phase_map: PhaseMap,
        secrets: Sequence[str] = (),
        max_tries: int = 10,
        retry_base: float = 2.0,
        retry_cap: float = 300.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.inbox = inbox
        self.sink = sink
        self.app_id = app_id
        self.phase_map = phase_map
        self._secrets = tuple(secrets)
        self.max_tries = max_tries
        self.retry_base = retry_base
        self.retry_cap = retry_cap
        self._clock = clock
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_prune = 0.0
        self._since_checkpoint = 0

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> None:
        """Start the thread; pending deliveries from an earlier run are taken first."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="ghattempt-worker", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Tell the worker a new delivery was accepted."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the thread to stop after the delivery in hand, and wait for it."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._wake.clear()
                try:
                    delay = self.run_once()
                except Exception:
                    # e.g. the inbox locked by another process for longer than the busy
                    # timeout: the delivery stays pending; try again shortly
                    log.exception("worker step failed; the delivery stays pending")
                    delay = _STEP_RETRY
                if delay is not None:
                    self._wake.wait(delay)
        finally:
            self.inbox.close_connection()

    # -- one step ----------------------------------------------------------------

    def run_once(self) -> float | None:
        """Handle the oldest pending delivery if it is due.

        Returns:
            ``None`` when a delivery was handled (call again at once), else the number
            of seconds to wait (until the held delivery is due, or 1 s when idle).
        """
        now = self._clock()
        if now - self._last_prune > _PRUNE_EVERY:
            self._last_prune = now
            pruned = self.inbox.prune()
            if pruned:
                log.info("pruned %d finished deliveries past the retention horizon", pruned)
        item = self.inbox.next_pending()
        if item is None or self._since_checkpoint >= _CHECKPOINT_EVERY:
            if self._since_checkpoint:
                self.inbox.checkpoint()
                self._since_checkpoint = 0
        if item is None:
            return 1.0
        if item.not_before > now:
            return min(item.not_before - now, 1.0)
        self._process(item)
        return None

    def _process(self, item: InboxItem) -> None:
        try:
            payload: Any = json.loads(item.body)
            if not isinstance(payload, dict):
                raise PayloadError("the body is not a JSON object")
            plan = plan_delivery(
                item.event,
                payload,
                delivery=item.delivery,
                app_id=self.app_id,
                phase_map=self.phase_map,
                lookup=self.inbox.lookup_heads,
            )
        except (PayloadError, ValueError) as exc:
            self._fail(item, f"cannot route {item.event}/{item.action}: {exc}")
            return
        results: list[dict[str, Any]] = []
        for request in plan.requests:
            try:
                result = dispatch(self.sink, request)
            except SinkUnavailable as exc:
                self._retry(item, exc)
                return
            except Exception as exc:
                self._fail(item, f"{type(request).__name__} {request.key}: "
                                 f"{type(exc).__name__}: {exc}")
                return
            if not isinstance(result, SinkResult):
                self._fail(item, f"the sink answered {type(result).__name__}, not SinkResult")
                return
            results.append(
                {"key": request.key, "request": type(request).__name__,
                 "outcome": result.outcome.value, "detail": result.detail}
            )
        self.inbox.finish(item.seq, {"results": results, "note": plan.note}, plan.index)
        self._since_checkpoint += 1
        log.info(
            "delivery %s %s/%s done: %s",
            item.delivery, item.event, item.action,
            ", ".join(f"{r['request']} {r['outcome']}" for r in results) or plan.note,
        )

    def _retry(self, item: InboxItem, exc: SinkUnavailable) -> None:
        note = redact(str(exc), self._secrets)
        tries = item.tries + 1
        if tries >= self.max_tries:
            self._fail(item, f"sink unavailable after {tries} tries: {note}")
            return
        delay = min(self.retry_cap, self.retry_base * 2 ** (tries - 1))
        if exc.retry_after is not None:
            delay = max(delay, min(exc.retry_after, self.retry_cap))
        self.inbox.postpone(item.seq, self._clock() + delay, note)
        log.warning(
            "delivery %s: sink unavailable (try %d of %d), retrying in %.1f s: %s",
            item.delivery, tries, self.max_tries, delay, note,
        )

    def _fail(self, item: InboxItem, error: str) -> None:
        error = redact(error, self._secrets)
        self.inbox.finish(item.seq, {"error": error}, failed=True)
        self._since_checkpoint += 1
        log.error("delivery %s %s/%s failed: %s", item.delivery, item.event, item.action, error)
