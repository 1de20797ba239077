"""Moves bytes to GitHub and back through githubkit, under the one retry policy.

githubkit is built with ``auto_retry=False`` (its default re-sends any 5xx, mutations
included), ``http_cache=False`` and an explicit timeout. Each request body is serialised
here once, so a mutation's bytes are known exactly and reported in
:class:`~ghattempt.github.errors.AmbiguousOutcome`. Decisions come from
:func:`ghattempt.github.retry.decide`; tenacity runs the loop with the injected sleep.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any

import httpx
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
from .config import AppAuth, ProviderConfig, TokenAuth
from .documents import Document
from .errors import GitHubError, InputError
from .retry import NOT_JSON, Answer, Decision, Request, decide, server_time
from .usage import Usage, UsageMeter

__all__ = ["Transport"]

log = logging.getLogger("ghattempt.github")

EXCHANGE = "POST /app/installations/{id}/access_tokens"
"""The App installation-token exchange, as counted in usage."""

_SEGMENT = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


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
        # Keep the GitHub object: githubkit's namespaces hold only weak references to it.
        self._github: GitHub[Any] = GitHub(
            strategy,
            base_url=config.base_url,
            user_agent=config.user_agent,
            timeout=httpx.Timeout(config.timeout, connect=config.connect_timeout),
            transport=config.transport,
            http_cache=False,
            auto_retry=False,
            # a cache of our own: the App JWT and installation token live here, not in
            # githubkit's process-wide default
            cache_strategy=MemCacheStrategy(),
            event_hooks={"response": [self._remember]},
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
        body_obj = {"query": document.text, "variables": dict(variables),
                    "operationName": document.name}
        body = json.dumps(body_obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        request = Request(document.name, document.is_mutation, dict(variables), body)
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
        body = json.dumps(dict(json_body), separators=(",", ":"), ensure_ascii=False).encode()
        request = Request(route, method.upper() != "GET", dict(json_body), body, graphql=False)
        return self._run(request, method.upper(), path)

    # -- the loop ---------------------------------------------------------------------

    def _run(self, request: Request, method: str, url: str) -> Any:
        policy = self._config.retry
        state = {"secondary": 0}

        def attempt_once(retry_state_attempt: list[int]) -> Any:
            retry_state_attempt[0] += 1
            attempt = retry_state_attempt[0]
            if request.mutation:
                self._pace()
            answer = self._send_once(request, method, url)
            decision = decide(answer, request, attempt=attempt,
                              secondary_count=state["secondary"], policy=policy,
                              wall_now=self._config.wall_clock())
            if decision.action == "ok":
                return answer.payload
            if decision.action == "raise":
                assert decision.error is not None
                raise self._scrub(decision.error)
            if getattr(decision.error, "kind", None) == "secondary":
                state["secondary"] += 1
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
                log.warning("%s: retrying in %.1f s after attempt %d: %s", request.operation,
                            exc.decision.wait, rs.attempt_number,
                            self._text(str(exc.decision.error)))

        counter = [0]
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Retry),
            stop=stop,
            wait=wait,
            sleep=self._config.sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            return retrying(attempt_once, counter)
        except _Retry as spent:
            error = spent.decision.error
            assert error is not None
            raise self._scrub(error) from None

    def _pace(self) -> None:
        interval = self._config.mutation_interval
        now = self._config.clock()
        if self._last_mutation is not None and interval > 0:
            gap = self._last_mutation + interval - now
            if gap > 0:
                self._config.sleep(gap)
                now = self._config.clock()
        self._last_mutation = now

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
        log.debug("%s: no answer (%s)", request.operation, failure)
        return Answer(None, failure=failure)  # type: ignore[arg-type]

    def _answer(self, request: Request, raw: httpx.Response) -> Answer:
        headers = {k.lower(): v for k, v in raw.headers.items()}
        if "date" in headers:
            self._last_date = server_time(headers, self._config.wall_clock())
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
        self._meter.record(request.operation, headers=headers, mutation=request.mutation,
                           cost=cost)
        log.debug("%s: HTTP %d", request.operation, raw.status_code)
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
