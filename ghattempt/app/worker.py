"""The worker pool: takes accepted deliveries from the inbox and sends their plans to the
sink, in order within a lane and in parallel across lanes.

``workers`` threads (``GHATTEMPT_APP_WORKERS``, default 4) each hold one lane at a time
(:mod:`ghattempt.app.lanes`): a thread claims the lane whose due head is oldest, handles
that delivery and, while the lane has more due deliveries, the next ones (a *burst*, at
most :data:`BURST` deliveries or :data:`BURST_SECONDS`, so that one busy pull request
cannot keep a thread from the others), then lets the lane go. A sink that can keep a
writer scope across calls (a ``hold(lane)`` context manager) is asked to, for as long as
the thread holds the lane: deliveries accepted while the first one is handled join its
burst, and its hold.

What happens to a delivery:

- every request applied, already applied or refused: ``done``, with each request's
  outcome;
- :class:`~ghattempt.app.sink.SinkUnavailable` (GitHub down, rate limited, the writer
  scope busy): tried again with exponential backoff from ``retry_base`` (doubled per
  try, capped at ``retry_cap``, at least the sink's ``retry_after``), *holding back its
  lane*: the journal's phases have an order too. After ``max_tries`` tries: ``failed``;
- :attr:`~ghattempt.app.sink.Outcome.NOT_YET`, or a run whose head no pull request is
  known to have: what it needs may come in a later delivery (GitHub does not deliver in
  order), so the delivery is *set aside* in a lane of its own (``wait:<delivery id>``),
  letting its lane go on, and tried again with the same backoff (capped at
  :data:`WAIT_CAP`) until ``retry_window`` seconds after it was accepted (default 600,
  ``GHATTEMPT_APP_RETRY_WINDOW``); then it is ``done`` with the request ``refused`` and
  the store's reason;
- any other exception, or a payload routing cannot read: ``failed`` at once.

Every retry resends the same requests with the same keys.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ghattempt.app.budget import ContentBudget
from ghattempt.app.inbox import Inbox, InboxItem
from ghattempt.app.phases import PhaseMap
from ghattempt.app.routing import PayloadError, Plan, plan_delivery
from ghattempt.app.settings import DEFAULT_RETRY_WINDOW, DEFAULT_WORKERS
from ghattempt.app.sink import (
    CancelAttempt,
    IntentRef,
    JournalSink,
    OpenIntent,
    Outcome,
    PhaseResult,
    SinkRequest,
    SinkResult,
    SinkUnavailable,
    SupersedeAndAdmit,
    TamperingReport,
)

__all__ = [
    "BURST",
    "BURST_SECONDS",
    "WAIT_CAP",
    "Worker",
    "dispatch",
    "redact",
]

log = logging.getLogger("ghattempt.app")

BURST = 16
"""Most deliveries of one lane a thread handles before it lets the lane go."""
BURST_SECONDS = 30.0
"""Longest a thread keeps one lane while others may be waiting."""
WAIT_CAP = 60.0
"""Longest pause between two tries of a delivery waiting for its precondition."""

_PRUNE_EVERY = 3600.0
_STEP_RETRY = 1.0
_IDLE = 1.0
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


class _Lookup:
    """The head index as routing asks it, noting the heads it did not know."""

    def __init__(self, inbox: Inbox) -> None:
        self.inbox = inbox
        self.unknown: list[str] = []

    def __call__(self, repository_id: str, head_sha: str) -> Sequence[IntentRef]:
        found = self.inbox.lookup_heads(repository_id, head_sha)
        if not found:
            self.unknown.append(head_sha)
        return found


class _Wait(Exception):  # noqa: N818 - a state of the delivery, not a failure
    """The delivery waits for its precondition (internal)."""

    def __init__(self, detail: str, results: list[dict[str, Any]]) -> None:
        super().__init__(detail)
        self.detail = detail
        self.results = results


class Worker:
    """The pool of worker threads over one inbox (module docstring).

    Args:
        inbox: the inbox (each thread uses its own connection to it).
        sink: where plans go; called from several threads at once.
        app_id: this App's id (the records' writer).
        phase_map: the workflow/job -> phase mapping.
        secrets: values scrubbed from any error text kept or logged.
        workers: threads started by :meth:`start` (>= 1).
        max_tries: tries before a delivery meeting :class:`SinkUnavailable` is failed.
        retry_base: first backoff, seconds; doubled per try, capped at ``retry_cap``.
        retry_window: seconds after acceptance a delivery waiting for its precondition
            is tried again before it is refused.
        bot_login: the App's own bot login (``<slug>[bot]``; may raise
            :class:`SinkUnavailable`), asked only for a delivery whose sender is a bot;
            a delivery that account sent is the App's own write and plans nothing.
        budget: the App's content-creation budget (:mod:`ghattempt.app.budget`),
            which the sink paces its requests to: a thread reserves a delivery's worth of
            it before it claims a lane (waiting, holding nothing, until it can), reserves
            that much again before each next delivery of a burst (the burst ends when it
            cannot) and frees what is left at the burst's end. None: no gate.
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
        workers: int = DEFAULT_WORKERS,
        max_tries: int = 10,
        retry_base: float = 2.0,
        retry_cap: float = 300.0,
        retry_window: float = DEFAULT_RETRY_WINDOW,
        bot_login: Callable[[], str] | None = None,
        budget: ContentBudget | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be >= 1")
        self.inbox = inbox
        self.sink = sink
        self.app_id = app_id
        self.phase_map = phase_map
        self._secrets = tuple(secrets)
        self.workers = workers
        self.max_tries = max_tries
        self.retry_base = retry_base
        self.retry_cap = retry_cap
        self.retry_window = retry_window
        self._bot_login = bot_login
        self._budget = budget
        self._clock = clock
        self._stop = threading.Event()
        self._wakes: list[threading.Event] = []
        self._threads: list[threading.Thread] = []
        self._housekeeping = threading.Lock()
        self._last_prune = 0.0
        self._since_checkpoint = 0
        hold = getattr(sink, "hold", None)
        self._hold: Callable[[str], contextlib.AbstractContextManager[Any]] | None = (
            hold if callable(hold) else None)

    # -- lifecycle ---------------------------------------------------------------

    @property
    def _thread(self) -> threading.Thread | None:
        """The first worker thread, or ``None`` when stopped."""
        return self._threads[0] if self._threads else None

    def start(self) -> None:
        """Start the threads; pending deliveries from an earlier run are taken first."""
        if self._threads:
            return
        self._stop.clear()
        for n in range(self.workers):
            wake = threading.Event()
            self._wakes.append(wake)
            thread = threading.Thread(target=self._run, args=(wake,),
                                      name=f"ghattempt-worker-{n}", daemon=True)
            self._threads.append(thread)
        if self.inbox.kind == "postgresql":
            self._threads.append(threading.Thread(
                target=self.inbox.wait_for_work, args=(self._stop, self.wake),
                name="ghattempt-inbox-listen", daemon=True))
        for thread in self._threads:
            thread.start()

    def wake(self) -> None:
        """Tell the workers a new delivery was accepted (or a lane was let go)."""
        for wake in self._wakes:
            wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the threads to stop after the delivery in hand, and wait for them."""
        self._stop.set()
        self.wake()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._threads = []
        self._wakes = []

    def _run(self, wake: threading.Event) -> None:
        try:
            while not self._stop.is_set():
                wake.clear()
                try:
                    delay = self._step(BURST)
                except Exception:
                    # e.g. the inbox unreachable or locked by another process for longer
                    # than the busy timeout: the delivery stays pending; try again shortly
                    log.exception("worker step failed; the delivery stays pending")
                    delay = _STEP_RETRY
                if delay is not None:
                    wake.wait(delay)
        finally:
            self.inbox.close_connection()

    # -- one step ----------------------------------------------------------------

    def run_once(self) -> float | None:
        """Handle the oldest due delivery whose lane is free, in the calling thread.

        Returns:
            ``None`` when a delivery was handled (call again at once), else the number
            of seconds to wait (until a held-back delivery is due, or 1 s when idle).
        """
        return self._step(1)

    def _step(self, burst: int) -> float | None:
        now = self._clock()
        self._prune(now)
        budget, reservation = self._budget, None
        if budget is not None and self.inbox.due_in(now) == 0:
            # GitHub's content limits: reserve a delivery's worth first, holding no lane
            reservation = budget.reserve(stop=self._stop.wait)
            if reservation is None:  # stopping
                return None
            now = self._clock()
        try:
            claim = self.inbox.claim(now)
            if claim is None:
                self._checkpoint(idle=True)
                due = self.inbox.due_in(now)
                return _IDLE if due is None else min(max(due, 0.05), _IDLE)
            lane = claim.lane
            try:
                with self._using(reservation), self._keeping(lane, burst):
                    item: InboxItem | None = claim.item
                    started = time.monotonic()
                    handled = 0
                    while item is not None and not self._stop.is_set():
                        finished = self._process(item)
                        handled += 1
                        self._checkpoint(idle=False)
                        if (not finished or handled >= burst
                                or time.monotonic() - started > BURST_SECONDS):
                            break
                        item = self.inbox.head_of(lane)
                        if item is not None and item.not_before > self._clock():
                            break
                        if (item is not None and budget is not None
                                and reservation is not None
                                and not budget.top_up(reservation)):
                            break  # the budget is short: let the lane (and its lease) go
            finally:
                self.inbox.release(lane)
                self.wake()
            return None
        finally:
            if budget is not None and reservation is not None:
                budget.release(reservation)

    def _using(self, reservation: str | None) -> contextlib.AbstractContextManager[None]:
        """The budget's places reserved for this burst, for the sink's requests."""
        if self._budget is None:
            return contextlib.nullcontext()
        return self._budget.using(reservation)

    @contextlib.contextmanager
    def _keeping(self, lane: str, burst: int) -> Iterator[None]:
        """The sink's hold of ``lane`` while this thread holds the lane (a burst)."""
        if self._hold is None or burst < 2:
            yield
            return
        held = self._hold(lane)
        held.__enter__()
        try:
            yield
        except BaseException as exc:
            with contextlib.suppress(Exception):
                held.__exit__(type(exc), exc, exc.__traceback__)
            raise
        else:
            try:
                held.__exit__(None, None, None)
            except Exception as exc:  # the work is recorded; letting go is the sink's care
                log.warning("lane %s: the sink's hold ended with %s: %s", lane,
                            type(exc).__name__, redact(str(exc), self._secrets))

    def _prune(self, now: float) -> None:
        if now - self._last_prune <= _PRUNE_EVERY or not self._housekeeping.acquire(False):
            return
        try:
            self._last_prune = now
            pruned = self.inbox.prune()
            if pruned:
                log.info("pruned %d finished deliveries past the retention horizon", pruned)
        finally:
            self._housekeeping.release()

    def _checkpoint(self, *, idle: bool) -> None:
        with self._housekeeping:
            if not idle:
                self._since_checkpoint += 1
                if self._since_checkpoint < _CHECKPOINT_EVERY:
                    return
            elif not self._since_checkpoint:
                return
            self._since_checkpoint = 0
        self.inbox.checkpoint()

    def _plan(self, item: InboxItem) -> tuple[Plan, list[str]]:
        payload: Any = json.loads(item.body)
        if not isinstance(payload, dict):
            raise PayloadError("the body is not a JSON object")
        lookup = _Lookup(self.inbox)
        sender = payload.get("sender")
        # only a bot can be the App's own account: the App's slug is asked for then alone
        bot = (self._bot_login() if self._bot_login is not None and isinstance(sender, dict)
               and sender.get("type") == "Bot" else None)
        plan = plan_delivery(item.event, payload, delivery=item.delivery, app_id=self.app_id,
                             phase_map=self.phase_map, lookup=lookup, bot_login=bot)
        return plan, lookup.unknown

    def _process(self, item: InboxItem) -> bool:
        """Handle one delivery; whether it is finished (done or failed)."""
        try:
            plan, unknown = self._plan(item)
        except (PayloadError, ValueError) as exc:
            self._fail(item, f"cannot route {item.event}/{item.action}: {exc}")
            return True
        except SinkUnavailable as exc:
            return self._retry(item, exc)
        try:
            if not plan.requests and unknown:
                raise _Wait(f"no pull request is known to have head {unknown[0]}", [])
            results = self._send(item, plan)
        except _Wait as wait:
            return self._wait(item, plan, wait)
        except SinkUnavailable as exc:
            return self._retry(item, exc)
        except _Failed as exc:
            self._fail(item, str(exc))
            return True
        self.inbox.finish(item.seq, {"results": results, "note": plan.note}, plan.index)
        log.info(
            "delivery %s %s/%s done: %s",
            item.delivery, item.event, item.action,
            ", ".join(f"{r['request']} {r['outcome']}" for r in results) or plan.note,
        )
        return True

    def _send(self, item: InboxItem, plan: Plan) -> list[dict[str, Any]]:
        results: list[dict[str, Any]] = []
        for request in plan.requests:
            try:
                result = dispatch(self.sink, request)
            except SinkUnavailable:
                raise
            except Exception as exc:
                raise _Failed(f"{type(request).__name__} {request.key}: "
                              f"{type(exc).__name__}: {exc}") from None
            if not isinstance(result, SinkResult):
                raise _Failed(f"the sink answered {type(result).__name__}, not SinkResult")
            entry = {"key": request.key, "request": type(request).__name__,
                     "outcome": result.outcome.value, "detail": result.detail}
            results.append(entry)
            if result.outcome is Outcome.NOT_YET:
                raise _Wait(result.detail or "not in the journal yet", results)
        return results

    def _backoff(self, tries: int) -> float:
        return min(self.retry_cap, self.retry_base * 2.0 ** (tries - 1))

    def _retry(self, item: InboxItem, exc: SinkUnavailable) -> bool:
        note = redact(str(exc), self._secrets)
        tries = item.tries + 1
        if tries >= self.max_tries:
            self._fail(item, f"sink unavailable after {tries} tries: {note}")
            return True
        delay = self._backoff(tries)
        if exc.retry_after is not None:
            delay = max(delay, min(exc.retry_after, self.retry_cap))
        self.inbox.postpone(item.seq, self._clock() + delay, note)
        log.warning(
            "delivery %s: sink unavailable (try %d of %d), retrying in %.1f s: %s",
            item.delivery, tries, self.max_tries, delay, note,
        )
        return False

    def _wait(self, item: InboxItem, plan: Plan, wait: _Wait) -> bool:
        detail = redact(wait.detail, self._secrets)
        now = self._clock()
        deadline = item.received_at + self.retry_window
        if now >= deadline:
            results = wait.results
            if results:
                results[-1] = {**results[-1], "outcome": Outcome.REFUSED.value,
                               "detail": f"still not there {self.retry_window:g} s after "
                                         f"the delivery was accepted: {detail}"}
            note = None if results else (f"refused: still not there {self.retry_window:g} "
                                         f"s after the delivery was accepted: {detail}")
            self.inbox.finish(item.seq, {"results": results, "note": note or plan.note},
                              plan.index)
            log.info("delivery %s %s/%s done: refused after waiting %g s: %s",
                     item.delivery, item.event, item.action, self.retry_window, detail)
            return True
        tries = item.tries + 1
        not_before = min(now + min(WAIT_CAP, self._backoff(tries)), deadline)
        self.inbox.postpone(item.seq, not_before, detail, lane=f"wait:{item.delivery}")
        log.info("delivery %s %s/%s waits (try %d, again in %.1f s): %s", item.delivery,
                 item.event, item.action, tries, not_before - now, detail)
        return False

    def _fail(self, item: InboxItem, error: str) -> None:
        error = redact(error, self._secrets)
        self.inbox.finish(item.seq, {"error": error}, failed=True)
        log.error("delivery %s %s/%s failed: %s", item.delivery, item.event, item.action, error)


class _Failed(Exception):  # noqa: N818 - the delivery's state
    """The sink failed the request for good (internal)."""
