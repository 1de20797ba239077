"""The webhook endpoint: verify, record durably, answer; the workers do the rest.

``POST /webhook``, in this order (GitHub's "Validating webhook deliveries" and "Best
practices for using webhooks": verify the signature, answer within 10 s, use the
delivery id against replays, do the work asynchronously):

1. a ``Content-Length`` above the bound, or a body that grows past it while read
   chunk by chunk: **413** (reading stops at the bound); a body not complete within
   :data:`BODY_TIMEOUT` (a client that trickles it): **408**;
2. ``X-Hub-Signature-256`` missing, not ``sha256=`` and ASCII, or not the HMAC of the raw
   body with the webhook secret (``githubkit.webhooks.verify``, constant time):
   **401**; nothing is parsed before this check;
3. ``X-GitHub-Event`` or ``X-GitHub-Delivery`` missing or malformed, or the body is
   not a JSON object: **400**;
4. ``ping``: **200**; an (event, action) the server does not handle: **200**,
   ignored, nothing stored;
5. otherwise the delivery is committed to the inbox (fsynced) and the answer is
   **202**; a redelivery or replay of an accepted body: **200**, no new work; the same
   delivery id with another body: **409**; an inbox that cannot commit within
   :data:`ACCEPT_TIMEOUT`: **503**.

Request headers not complete within :data:`~ghattempt.app.protocol.HEADER_TIMEOUT`
(10 s) of the connection opening, or of the previous response, close the connection
(:mod:`ghattempt.app.protocol`).

``GET /healthz`` answers ``{"status":"ok","inbox":{pending,done,failed}}``.

The lifespan runs the worker pool (:mod:`ghattempt.app.worker`) and the catch-up
(:mod:`ghattempt.app.catchup`). With a SQLite inbox one process works it (an ``flock``);
with PostgreSQL, any number of replicas do.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import fcntl
import functools
import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from githubkit.webhooks import verify
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ghattempt.app.budget import ContentBudget
from ghattempt.app.catchup import CatchUp
from ghattempt.app.inbox import Admission, InboxUnavailable, open_inbox
from ghattempt.app.installation import BotLogin
from ghattempt.app.routing import is_routed
from ghattempt.app.settings import AppSettings, ConfigurationError
from ghattempt.app.sink import JournalSink
from ghattempt.app.worker import Worker

__all__ = ["WEBHOOK_PATH", "create_app", "serve"]

WEBHOOK_PATH = "/webhook"
ACCEPT_TIMEOUT = 5.0
"""Seconds an acceptance may wait for the inbox before the answer is 503 (GitHub ends a
delivery at 10 s; a 503 shows in its delivery log and can be redelivered)."""

BODY_TIMEOUT = 10.0
"""Seconds a client has to send the whole body (GitHub sends it at once and gives up on
a delivery after 10 s); a slower body is cut off with 408 so it cannot hold the server."""

log = logging.getLogger("ghattempt.app")

_PARSE_INLINE = 1024 * 1024
_T = TypeVar("_T")
_EVENT = re.compile(r"[a-z_]{1,64}")
_DELIVERY = re.compile(r"[A-Za-z0-9-]{1,64}")


def _answer(code: int, /, **fields: Any) -> JSONResponse:
    return JSONResponse(fields, status_code=code)


@contextlib.contextmanager
def _exclusive(state: Path) -> Iterator[None]:
    """Hold ``<state>.lock`` so that one server process works one inbox.

    Two workers on one inbox would send one delivery twice and out of order. The lock
    is an ``flock``: the kernel drops it when the process dies, even by SIGKILL.

    Raises:
        ConfigurationError: another process holds the lock.
    """
    path = state.with_name(state.name + ".lock")
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigurationError(
                f"another server is already working the inbox {str(state)!r}: run one "
                "server per GHATTEMPT_APP_STATE"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


async def _off_loop(size: int, func: Callable[..., _T], *args: Any) -> _T:
    """``func(*args)``, in a worker thread when ``size`` bytes would hold the event loop
    (HMAC and JSON of a body of several MiB take tens of milliseconds)."""
    if size > _PARSE_INLINE:
        return await run_in_threadpool(func, *args)
    return func(*args)


def _refuse(request: Request, code: int, error: str) -> JSONResponse:
    """Answer a refused delivery and log it (peer and reason only; no header values)."""
    peer = request.client.host if request.client else "?"
    log.warning("refused a delivery from %s: %d %s", peer, code, error)
    return _answer(code, error=error)


def create_app(settings: AppSettings, sink: JournalSink) -> Starlette:
    """The Starlette application: the webhook route, health, and the lifespan that runs
    the worker pool and the catch-up.

    Args:
        settings: server configuration (secret, inbox, bounds, mapping, workers).
        sink: where the workers send plans.

    Raises:
        InboxUnavailable: the inbox cannot be opened or migrated.
    """
    inbox = open_inbox(settings.inbox_location)
    secrets = [settings.webhook_secret.reveal(), settings.private_key.reveal()]
    if settings.database is not None:
        secrets.append(settings.database.reveal())
    # one content-creation budget for the App's bot, shared through the inbox by every
    # worker and replica; a sink that writes to GitHub paces its requests to it
    budget = ContentBudget(inbox, f"app:{settings.app_id}", grace=settings.http_timeout,
                           time_scale=settings.budget_time_scale)
    pace = getattr(sink, "pace_content", None)
    if callable(pace):
        pace(budget)
    worker = Worker(
        inbox,
        sink,
        app_id=settings.app_id,
        phase_map=settings.phase_map,
        secrets=secrets,
        workers=settings.workers,
        max_tries=settings.max_tries,
        retry_base=settings.retry_base,
        retry_window=settings.retry_window,
        bot_login=BotLogin(settings),
        budget=budget if callable(pace) else None,
    )
    catchup = CatchUp(inbox, settings)
    secret = settings.webhook_secret
    bound = settings.max_body
    unrecorded: tuple[type[BaseException], ...] = (TimeoutError, *inbox.errors)

    async def read_bounded(request: Request) -> bytes | None:
        declared = request.headers.get("content-length")
        if (declared is not None and declared.isascii() and declared.isdigit()
                and int(declared) > bound):
            return None
        body = bytearray()
        async with asyncio.timeout(BODY_TIMEOUT):
            async for chunk in request.stream():
                body += chunk
                if len(body) > bound:
                    return None
        return bytes(body)

    async def webhook(request: Request) -> Response:
        try:
            body = await read_bounded(request)
        except ClientDisconnect:
            return Response(status_code=400)
        except TimeoutError:
            return _refuse(request, 408, f"body not received within {BODY_TIMEOUT:g} s")
        if body is None:
            return _refuse(request, 413, f"body larger than {bound} bytes")
        signature = request.headers.get("x-hub-signature-256", "")
        # hmac.compare_digest raises TypeError on a str with non-ASCII characters.
        if not (signature.startswith("sha256=") and signature.isascii()) or not await _off_loop(
            len(body), verify, secret.reveal(), body, signature
        ):
            return _refuse(request, 401, "missing or invalid X-Hub-Signature-256")
        event = request.headers.get("x-github-event", "")
        delivery = request.headers.get("x-github-delivery", "")
        if not _EVENT.fullmatch(event) or not _DELIVERY.fullmatch(delivery):
            return _refuse(request, 400, "missing or malformed X-GitHub-Event or X-GitHub-Delivery")
        try:
            payload = await _off_loop(len(body), json.loads, body)
        except (ValueError, RecursionError):
            return _refuse(request, 400, "body is not JSON")
        if not isinstance(payload, dict):
            return _refuse(request, 400, "body is not a JSON object")
        raw_action = payload.get("action")
        action = raw_action if isinstance(raw_action, str) else None
        if event == "ping":
            return _answer(200, status="pong", delivery=delivery)
        if not is_routed(event, action):
            return _answer(200, status="ignored", delivery=delivery)
        try:
            accepted = await run_in_threadpool(
                functools.partial(inbox.accept, payload=payload, timeout=ACCEPT_TIMEOUT),
                delivery, event, action, body,
            )
        except unrecorded as exc:
            log.error("delivery %s %s/%s not recorded: %s", delivery, event, action, exc)
            return _answer(
                503, error="the inbox could not record the delivery; redeliver it later",
                delivery=delivery,
            )
        if accepted.admission is Admission.NEW:
            worker.wake()
            log.info("delivery %s %s/%s accepted", delivery, event, action)
            return _answer(202, status="accepted", delivery=delivery)
        if accepted.admission is Admission.CONFLICT:
            log.warning("delivery %s: same id, different body: refused", delivery)
            return _answer(
                409, error="this delivery id was accepted with a different body", delivery=delivery
            )
        log.info(
            "delivery %s %s/%s: %s of %s (%s), no new work",
            delivery, event, action, accepted.admission.value, accepted.delivery, accepted.state,
        )
        return _answer(
            200,
            status=accepted.admission.value,
            delivery=delivery,
            first_delivery=accepted.delivery,
            state=accepted.state,
        )

    # health reads the inbox from one thread of its own: one connection, however many
    # requests the web server's thread pool runs at once (PostgreSQL counts connections)
    reads = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="ghattempt-health")

    async def healthz(request: Request) -> Response:
        counts = await asyncio.get_running_loop().run_in_executor(reads, inbox.counts)
        return _answer(200, status="ok", inbox=counts)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        one_process = (_exclusive(settings.state_path) if settings.state_path is not None
                       else contextlib.nullcontext())
        with one_process:
            # every connection to the inbox opened now: a flood of client connections
            # later may leave no file descriptor for a new one
            await run_in_threadpool(inbox.start)
            await asyncio.get_running_loop().run_in_executor(reads, inbox.counts)
            worker.start()
            catchup.start()
            try:
                yield
            finally:
                await run_in_threadpool(catchup.stop)
                await run_in_threadpool(worker.stop)
                reads.shutdown(wait=True)
                await run_in_threadpool(inbox.close)
                close = getattr(sink, "close", None)  # e.g. the store sink's connections
                if callable(close):
                    await run_in_threadpool(close)

    app = Starlette(
        routes=[
            Route(WEBHOOK_PATH, webhook, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
    app.state.inbox = inbox
    app.state.worker = worker
    app.state.catchup = catchup
    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    settings: AppSettings | None = None,
    log_level: str = "info",
) -> None:
    """Run the server with uvicorn until interrupted (``ghattempt app serve``).

    Args:
        host: address to bind.
        port: TCP port to bind.
        settings: configuration; read from the environment when ``None``.
        log_level: uvicorn and ``ghattempt.app`` log level.

    Raises:
        ConfigurationError: the environment is incomplete, the sink cannot be built, or
            the inbox cannot be opened.
    """
    import uvicorn

    from ghattempt.app.protocol import protocol_class
    from ghattempt.app.settings import load_settings
    from ghattempt.app.sink_factory import load_sink

    settings = load_settings() if settings is None else settings
    logging.basicConfig(
        level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        app = create_app(settings, load_sink(settings))
    except InboxUnavailable as exc:
        raise ConfigurationError(str(exc)) from None
    # uvicorn's access log is off: the server logs each accepted and refused delivery
    uvicorn.run(app, host=host, port=port, log_level=log_level, lifespan="on", access_log=False,
                http=protocol_class())
