"""Moves bytes to GitHub and back through githubkit, under the one retry policy.

githubkit is built with ``auto_retry=False`` (its default re-sends any 5xx, mutations
included), ``http_cache=False`` and an explicit timeout. Each request body is serialised
here once, so a mutation's bytes are known exactly and reported in
:class:`~ghattempt.github.errors.AmbiguousOutcome`. Decisions come from
:func:`ghattempt.github.retry.decide`; tenacity runs the loop with the injected sleep.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import Mapping
from typing import Any

from ._httpx import httpx  # first: httpx without its command-line client (see _httpx)

# isort: split
import tenacity
from githubkit import GitHub
from githubkit.auth import AppInstallationAuthStrategy, TokenAuthStrategy
from githubkit.cache import MemCacheStrategy
from githubkit.exception import (
    AuthCredentialError,
    GitHubException,
    RequestError,
    RequestFailed,
    RequestTimeout,
)

from ._redact import redact
from .config import CONTENT_CREATING, AppAuth, ProviderConfig, TokenAuth
from .documents import Document, described
from .errors import AmbiguousOutcome, GitHubError, InputError, RateLimited
from .retry import NOT_JSON, Answer, Decision, Request, decide, server_time
from .usage import Usage, UsageMeter

__all__ = ["Credentials", "Transport", "bounded"]

log = logging.getLogger("ghattempt.github")

EXCHANGE = "POST /app/installations/{id}/access_tokens"
"""The App installation-token exchange, as counted in usage."""

_SEGMENT = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")

NOTICE_AFTER = 2.0
"""Waits longer than this (seconds) are told to the ``notice`` hook."""

NEXT_GLOBAL_ID = "X-Github-Next-Global-ID"
"""The header asking GitHub for node ids in the new format; sent on every request."""


def bounded(timeout: httpx.Timeout) -> Any:
    """An httpx request hook giving ``timeout`` to every request that has none.

    githubkit's App auth flow builds the installation-token exchange
    (``POST /app/installations/{id}/access_tokens``) as a bare ``httpx.Request``, without
    the client's timeout, and httpx then waits for ever; request hooks run for the
    requests an auth flow sends too, so this one bounds the exchange.
    """

    def hook(request: httpx.Request) -> None:
        request.extensions.setdefault("timeout", timeout.as_dict())

    return hook


class Credentials:
    """Where App JWTs and installation tokens are kept (githubkit's cache), for every
    provider whose :class:`~ghattempt.github.ProviderConfig` names this one.

    githubkit keeps an App's JWT (8 minutes) and each installation's token (until a
    minute before it expires) in its client's cache; with a cache per client, each new
    client of an installation signs a JWT (pyjwt parses the RSA key again for each) and
    exchanges it for a token of its own. Clients sharing one ``Credentials`` sign one JWT
    per App and exchange one token per installation between them. The cache is a dict:
    its reads and writes are safe from several threads (two threads missing the same
    token at once both exchange, and the later answer is kept).
    """

    def __init__(self) -> None:
        self.strategy = MemCacheStrategy()
        self.strategy.get_cache_storage()  # made now, not by the first of two threads

    def __repr__(self) -> str:
        return "Credentials()"


class _Retry(Exception):
    def __init__(self, decision: Decision) -> None:
        super().__init__()
        self.decision = decision


def check_segment(value: str, what: str) -> str:
    """Return ``value`` if it is a safe owner or repository name, else raise InputError."""
    if not isinstance(value, str) or not _SEGMENT.match(value) or value in (".", ".."):
        raise InputError(f"{what} {value!r} is not a GitHub owner or repository name")
    return value


class Transport:
    """Sends GraphQL documents and the few REST calls, retrying reads only.

    Not thread-safe: one transport per thread (the store is sync).
    """

    def __init__(self, config: ProviderConfig) -> None:
        self._config = config
        auth = config.auth
        self._secrets: tuple[str, ...]
        strategy: TokenAuthStrategy | AppInstallationAuthStrategy
        if isinstance(auth, TokenAuth):
            strategy = TokenAuthStrategy(auth.token)
            self._secrets = (auth.token,)
        elif isinstance(auth, AppAuth):
            strategy = AppInstallationAuthStrategy(
                auth.app_id, auth.private_key, auth.installation_id
            )
            self._secrets = (auth.private_key,)
        else:  # pragma: no cover - ProviderConfig checks the type
            raise InputError("unsupported auth")
        timeout = httpx.Timeout(config.timeout, connect=config.connect_timeout)
        # Keep the GitHub object: githubkit's namespaces hold only weak references to it.
        self._github: GitHub[Any] = GitHub(
            strategy,
            base_url=config.base_url,
            user_agent=config.user_agent,
            timeout=timeout,
            transport=config.transport,
            http_cache=False,
            auto_retry=False,
            # the App JWT and installation token live here: the providers' shared
            # Credentials, else a cache of this provider's own (never githubkit's
            # process-wide default)
            cache_strategy=(MemCacheStrategy() if config.credentials is None
                            else config.credentials.strategy),
            event_hooks={"request": [bounded(timeout), self._tag],
                         "response": [self._remember]},
        )
        self._client_open = False
        try:
            self._github.__enter__()  # type: ignore[no-untyped-call]
            self._client_open = True
        except RuntimeError:  # pragma: no cover - entered in another context already
            pass
        self._meter = UsageMeter()
        self._last_mutation: float | None = None
        self._last_raw: httpx.Response | None = None
        self._last_date: float | None = None
        # resource ("graphql", "core") -> our clock() at which its exhausted budget resets
        self._exhausted: dict[str, float] = {}

    def __repr__(self) -> str:
        return f"Transport(base_url={self._config.base_url!r})"

    def close(self) -> None:
        if self._client_open:
            self._client_open = False
            self._github.__exit__(None, None, None)

    @property
    def usage(self) -> Usage:
        return self._meter.snapshot()

    @property
    def last_date(self) -> float | None:
        """GitHub's clock (POSIX seconds, from ``Date``) at the last answer; None before."""
        return self._last_date

    @staticmethod
    def _tag(request: httpx.Request) -> None:
        # httpx request hook, on every request (the App token exchange too): GitHub then
        # answers node ids in the new format also for objects made before its migration
        # of global node ids (GitHub docs, "Migrating GraphQL global node IDs"); journals
        # and scope keys name repositories by the id in the format captured.
        request.headers[NEXT_GLOBAL_ID] = "1"

    def _remember(self, response: httpx.Response) -> None:
        # httpx response hook: keeps our own request's raw answer, in case githubkit's
        # check of it fails (e.g. a retry-after it cannot parse)
        if response.request.url.path.endswith("/access_tokens"):
            self._meter.record(EXCHANGE, headers=dict(response.headers), mutation=True)
        else:
            self._last_raw = response

    # -- public calls -----------------------------------------------------------------

    def graphql(self, document: Document, variables: Mapping[str, Any]) -> dict[str, Any]:
        """Send ``document``; return GitHub's whole response object (``{"data": ...}``).

        Raises:
            GitHubError: a subclass, per the retry table in :mod:`ghattempt.github.retry`.
        """
        body = self.encode({"query": document.text, "variables": dict(variables),
                            "operationName": document.name})
        request = Request(document.name, document.is_mutation, dict(variables), body,
                          url=self._config.graphql_url)
        payload = self._run(request, "POST", self._config.graphql_url)
        assert isinstance(payload, dict)
        return payload

    def rest(self, method: str, route: str, path: str, json_body: Mapping[str, Any]) -> Any:
        """Send one REST call (a mutation unless ``method`` is GET); return its JSON.

        Args:
            method: HTTP method.
            route: the documented route, for messages and usage (``POST /repos/{o}/{r}/...``).
            path: the path relative to ``base_url`` (no leading slash).
            json_body: the JSON body.
        """
        body = self.encode(dict(json_body))
        request = Request(route, method.upper() != "GET", dict(json_body), body, graphql=False,
                          method=method.upper(), url=path)
        return self._run(request, method.upper(), path)

    @staticmethod
    def encode(obj: Mapping[str, Any]) -> bytes:
        """The request body for ``obj``: compact UTF-8 JSON, keys in the order given, so
        the same call always yields the same bytes."""
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    def resend(self, outcome: AmbiguousOutcome) -> Any:
        """Send ``outcome.body`` again, byte for byte, to where it went; return the JSON.

        Raises:
            InputError: ``outcome`` came from another base URL.
            GitHubError: as for the first send (a new ambiguity raises a new
                :class:`AmbiguousOutcome` with the same bytes).
        """
        is_graphql = outcome.url == self._config.graphql_url
        if not is_graphql and (not outcome.url or "://" in outcome.url):
            raise InputError("resend: this outcome was not sent by this provider's base_url",
                             operation=outcome.document)
        request = Request(outcome.document, True, dict(outcome.variables), outcome.body,
                          graphql=is_graphql, method=outcome.method, url=outcome.url)
        return self._run(request, outcome.method, outcome.url)

    # -- the loop ---------------------------------------------------------------------

    def _run(self, request: Request, method: str, url: str) -> Any:
        """Send ``request`` until :func:`decide` says ok or raise, within ``RetryPolicy``."""
        policy = self._config.retry
        attempt = 0
        secondary = 0

        def attempt_once() -> Any:
            nonlocal attempt, secondary
            attempt += 1
            if request.mutation:
                # GitHub docs, "Best practices for using the REST API" / secondary limits:
                # at least one second between mutative requests; a mutation costs 5 of
                # the 2,000 points a minute, and content creation is limited too
                self._pace()
            self._await_budget(request)
            with self._creating(request):
                answer = self._send_once(request, method, url)
            decision = decide(answer, request, attempt=attempt, secondary_count=secondary,
                              policy=policy, wall_now=self._config.wall_clock())
            if decision.action == "ok":
                return answer.payload
            if decision.action == "raise":
                assert decision.error is not None
                raise self._scrub(decision.error)
            if getattr(decision.error, "kind", None) == "secondary":
                secondary += 1
            raise _Retry(decision)

        def stop(rs: tenacity.RetryCallState) -> bool:
            exc = rs.outcome.exception() if rs.outcome else None
            if not isinstance(exc, _Retry):
                return True
            d = exc.decision
            limit = policy.lag_attempts if d.lag else policy.max_attempts
            return rs.attempt_number >= limit or rs.idle_for + d.wait > policy.max_wait

        def wait(rs: tenacity.RetryCallState) -> float:
            exc = rs.outcome.exception() if rs.outcome else None
            return exc.decision.wait if isinstance(exc, _Retry) else 0.0

        def before_sleep(rs: tenacity.RetryCallState) -> None:
            exc = rs.outcome.exception() if rs.outcome else None
            if isinstance(exc, _Retry) and exc.decision.error is not None:
                self._wait_notice(exc.decision.wait, f"{described(request.operation)}: "
                                  f"retrying after attempt {rs.attempt_number}: "
                                  f"{self._text(str(exc.decision.error))}")

        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Retry),
            stop=stop,
            wait=wait,
            sleep=self._config.sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            return retrying(attempt_once)
        except _Retry as spent:
            error = spent.decision.error
            assert error is not None
            raise self._scrub(error) from None

    def _creating(self, request: Request) -> contextlib.AbstractContextManager[None]:
        """The content pacer's hold around a content-creating request (a
        :data:`~ghattempt.github.config.CONTENT_CREATING` document, a REST ``POST``)."""
        pacer = self._config.content_pacer
        creating = (request.operation in CONTENT_CREATING if request.graphql
                    else request.method == "POST")
        if pacer is None or not creating:
            return contextlib.nullcontext()
        return pacer.creating(request.operation)

    def _await_budget(self, request: Request) -> None:
        """Do not send what GitHub would refuse: after an answer said
        ``x-ratelimit-remaining: 0``, wait for ``x-ratelimit-reset`` first (GitHub docs:
        "you should not retry your request until after the time specified by
        x-ratelimit-reset"). A read waits when the wait fits ``RetryPolicy.max_wait``; a
        mutation, or a longer wait, raises :class:`RateLimited` with nothing sent."""
        resource = "graphql" if request.graphql else "core"
        until = self._exhausted.get(resource)
        if until is None:
            return
        wait = until - self._config.clock()
        if wait <= 0:
            del self._exhausted[resource]
            return
        if request.mutation or wait > self._config.retry.max_wait:
            raise RateLimited(
                f"{described(request.operation)}: the {resource} rate limit is spent until its "
                f"reset; nothing was sent; retry after {wait:.0f} s",
                operation=request.operation, kind="primary", retry_after=wait)
        self._wait_notice(wait, f"{described(request.operation)}: GitHub's {resource} rate "
                          "limit is spent until its reset")
        self._config.sleep(wait)
        self._exhausted.pop(resource, None)

    def _note_budget(self, headers: Mapping[str, str], resource_hint: str) -> None:
        remaining, reset = headers.get("x-ratelimit-remaining"), headers.get("x-ratelimit-reset")
        resource = headers.get("x-ratelimit-resource", resource_hint)
        if remaining is None or reset is None:
            return
        try:
            spent, reset_at = int(remaining) == 0, int(reset)
        except ValueError:
            return
        if not spent:
            self._exhausted.pop(resource, None)
            return
        now_server = server_time(headers, self._config.wall_clock())
        self._exhausted[resource] = self._config.clock() + max(reset_at - now_server, 0.0) + 1.0

    def pace(self) -> float:
        """Wait until the next mutation may be sent; return the seconds
        waited. A writer calls this before its last ownership check, so the wait does not
        eat into the lease between that check and the send."""
        interval = self._config.mutation_interval
        if self._last_mutation is None or interval <= 0:
            return 0.0
        gap = self._last_mutation + interval - self._config.clock()
        if gap <= 0:
            return 0.0
        self._wait_notice(gap, "pacing mutations (GitHub asks for a pause between writes)")
        self._config.sleep(gap)
        return gap

    def _wait_notice(self, seconds: float, why: str) -> None:
        """Tell a wait longer than :data:`NOTICE_AFTER` seconds, in one line (what and how
        long), to the configured ``notice`` hook; shorter waits go to the debug log."""
        line = f"waiting {seconds:.0f} s: {why}"
        if seconds <= NOTICE_AFTER:
            log.debug("%s", line)
        elif self._config.notice is not None:
            self._config.notice(line)
        else:
            log.warning("%s", line)

    def _pace(self) -> None:
        self.pace()
        self._last_mutation = self._config.clock()

    def _send_once(self, request: Request, method: str, url: str) -> Answer:
        raw: httpx.Response | None = None
        self._last_raw = None
        try:
            response = self._github.request(
                method, url, content=request.body,
                headers={"Content-Type": "application/json; charset=utf-8"},
            )
            raw = response.raw_response
        except RequestFailed as exc:  # 4xx/5xx of our own request (rate limits included)
            raw = exc.response.raw_response
        except RequestTimeout as exc:
            inner = exc.exc
            if isinstance(inner, httpx.ConnectTimeout | httpx.PoolTimeout) or self._is_exchange(
                inner
            ):
                return self._no_answer(request, "connect")
            return self._no_answer(request, "after_send")
        except RequestError as exc:
            return self._classify_request_error(request, exc.exc)
        except AuthCredentialError:
            raise InputError(f"{request.operation}: the auth configuration is incomplete",
                             operation=request.operation) from None
        except (GitHubException, ValueError) as exc:
            # githubkit could not read an answer it got (e.g. a retry-after HTTP date)
            log.debug("%s: githubkit could not check the answer (%s)", request.operation,
                      type(exc).__name__)
            if self._last_raw is None:
                return self._no_answer(request, "after_send")
            raw = self._last_raw
        return self._answer(request, raw)

    def _classify_request_error(self, request: Request, inner: BaseException) -> Answer:
        if isinstance(inner, RequestFailed):  # raised inside the App auth flow
            return Answer(None, failure="auth_exchange",
                          exchange_status=inner.response.status_code)
        if isinstance(inner, AuthCredentialError):
            raise InputError(f"{request.operation}: the auth configuration is incomplete",
                             operation=request.operation) from None
        if isinstance(inner, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
            return self._no_answer(request, "connect")
        if self._is_exchange(inner):
            return self._no_answer(request, "connect")
        if isinstance(inner, httpx.UnsupportedProtocol | httpx.InvalidURL):
            raise InputError(f"{request.operation}: base_url cannot be used: "
                             f"{type(inner).__name__}", operation=request.operation) from None
        if isinstance(inner, ValueError | TypeError):
            # githubkit could not read rate-limit headers, or JWT signing failed
            raise InputError(
                f"{request.operation}: request could not be built or read "
                f"({type(inner).__name__}); check the App private key", operation=request.operation
            ) from None
        return self._no_answer(request, "after_send")

    @staticmethod
    def _is_exchange(inner: BaseException) -> bool:
        req = getattr(inner, "_request", None)
        return req is not None and req.url.path.endswith("/access_tokens")

    def _no_answer(self, request: Request, failure: str) -> Answer:
        self._meter.record(request.operation, headers=None, mutation=request.mutation)
        log.debug("%s: no answer (%s), cost 0", request.operation, failure)
        return Answer(None, failure=failure)  # type: ignore[arg-type]

    def _answer(self, request: Request, raw: httpx.Response) -> Answer:
        headers = {k.lower(): v for k, v in raw.headers.items()}
        if "date" in headers:
            self._last_date = server_time(headers, self._config.wall_clock())
        self._note_budget(headers, "graphql" if request.graphql else "core")
        try:
            payload = json.loads(raw.content)
        except (ValueError, UnicodeDecodeError):
            payload = NOT_JSON
        cost = None
        if isinstance(payload, dict):
            data = payload.get("data")
            if isinstance(data, dict) and isinstance(data.get("rateLimit"), dict):
                c = data["rateLimit"].get("cost")
                cost = c if isinstance(c, int) else None
        points = self._meter.record(request.operation, headers=headers,
                                    mutation=request.mutation, cost=cost)
        log.debug("%s: HTTP %d, cost %d", request.operation, raw.status_code, points)
        return Answer(raw.status_code, headers, payload)

    def _text(self, text: str) -> str:
        return redact(text, self._secrets)

    def _scrub(self, error: GitHubError) -> GitHubError:
        """Return ``error`` with its message passed through the redactor."""
        message = str(error)
        clean = self._text(message)
        if clean != message:
            error.args = (clean,)
        return error
