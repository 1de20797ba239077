"""The one retry policy: what one answer from GitHub means, and whether to try again.

:func:`decide` is pure (no I/O, no clock of its own): the transport feeds it what came
back for one attempt and it returns a :class:`Decision`. The table (also in
``docs/provider.md``):

=============================================  ===========================  ==================
answer                                          read                         mutation
=============================================  ===========================  ==================
200, ``errors[].type`` RATE_LIMITED/RATE_LIMIT  wait until reset, retry      RateLimited
200, an error saying "secondary rate limit"     wait >= 60 s, doubling       RateLimited
403/429 with ``retry-after``                    wait retry-after, retry      RateLimited
403/429 "secondary rate limit"                  wait >= 60 s, doubling       RateLimited
403/429, ``x-ratelimit-remaining: 0``           wait until reset, retry      RateLimited
200/422, "was submitted too quickly"            wait >= 60 s, retry          SubmittedTooQuickly
502, 503, 504                                   backoff, retry               AmbiguousOutcome
other 5xx                                       GitHubUnavailable            AmbiguousOutcome
connect error / connect timeout (not sent)      backoff, retry               backoff, retry
read/write timeout, reset, protocol error       backoff, retry               AmbiguousOutcome
200 not JSON, or neither data nor errors        backoff, retry               AmbiguousOutcome
200, mutation result null without errors        -                            AmbiguousOutcome
200, "Something went wrong ... timeout"         backoff, retry               AmbiguousOutcome
200, NOT_FOUND "Could not resolve to a node"    lag backoff, retry           lag backoff, retry
200, other NOT_FOUND / 404                      NotFound                     NotFound
200, ``type: INTERNAL``                          backoff, retry               AmbiguousOutcome
200, STALE_DATA on a ref write                  RefConflict                  RefConflict
401; 403 otherwise; FORBIDDEN                   AuthFailed                   AuthFailed
200 other errors, 400, 422                      GraphQLRefused               GraphQLRefused
=============================================  ===========================  ==================

Sources: GitHub docs "Rate limits for the GraphQL API" and "Rate limits for the REST API"
(exceeding the rate limit; secondary limits: ``retry-after``, else ``x-ratelimit-reset``
when remaining is 0, else at least one minute, then exponentially longer), "Timeouts"
(a request GitHub stops at 10 s answers 502/504 and may still have committed), and
architecture "Storage facts". A rate-limited request was not executed (GitHub returns
the limit error instead of running it), so a rate-limited mutation is a definite refusal.
"Was submitted too quickly" is GitHub's undocumented anti-spam limit on content creation
(cli/cli#4801: intentional, dynamic, retry after minutes up to an hour): unlike the
documented limits nothing says the write was not executed, so a mutation answered so is
an unknown outcome (``SubmittedTooQuickly``, an ``AmbiguousOutcome`` that carries the
wait: at least ``secondary_min_wait``); the store waits, reads back, and sends the same
bytes again only when the write is absent. A NOT_FOUND for a node id is answered before
anything executes, so retrying it is not a blind re-send; it covers GitHub's replica lag
right after a create.

Only an error's ``type`` and the HTTP status decide, never its wording (but for "was
submitted too quickly", which has no type of its own): a ref write is
a lost compare-and-set here only with ``STALE_DATA`` (the type GitHub answers a stale
``expectedHeadOid`` with); any other refusal of a ref write (a ref that exists already,
an ``updateRefs`` precondition, a ruleset) is a ``GraphQLRefused``, and the lease's
backend tells a lost compare-and-set from a refusal by reading the ref back
(``ghattempt/store/_github.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal

from .config import RetryPolicy
from .documents import described, permission_for
from .errors import (
    AmbiguousOutcome,
    AuthFailed,
    GitHubError,
    GitHubUnavailable,
    GraphQLRefused,
    NotFound,
    RateLimited,
    RefConflict,
    SubmittedTooQuickly,
)

__all__ = ["Answer", "Decision", "Failure", "decide", "rate_limit_wait"]

Failure = Literal["connect", "after_send", "auth_exchange"]
"""Why no usable HTTP answer came back: ``connect`` (the request never left: connection
refused, connect timeout, pool timeout, App token exchange unreachable), ``after_send``
(the request may have reached GitHub: read/write timeout, reset, protocol error),
``auth_exchange`` (the App installation-token exchange answered an HTTP error)."""

NOT_JSON: Any = object()
"""``Answer.payload`` when the body was not JSON."""

RETRYABLE_STATUS = frozenset({502, 503, 504})
_SECONDARY = re.compile(r"secondary rate limit|abuse", re.IGNORECASE)
_PRIMARY_403 = re.compile(r"rate limit", re.IGNORECASE)
_SERVER_TROUBLE = re.compile(r"something went wrong|timeout|timed out", re.IGNORECASE)
_NODE_LAG = re.compile(r"could not resolve to a node", re.IGNORECASE)
_TOO_QUICKLY = re.compile(r"was submitted too quickly", re.IGNORECASE)
REF_OPERATIONS = frozenset({"CreateRef", "UpdateRefs", "CreateCommitOnBranch", "DeleteRef"})


@dataclass(frozen=True, slots=True)
class Answer:
    """What one attempt produced.

    Attributes:
        status: the HTTP status, or None when no answer arrived.
        headers: response headers (lower-case names), empty when none.
        payload: the parsed JSON body, :data:`NOT_JSON`, or None when no answer.
        failure: set when no usable answer arrived (see :data:`Failure`).
        exchange_status: the HTTP status of a failed App token exchange.
    """

    status: int | None
    headers: Mapping[str, str] = field(default_factory=dict)
    payload: Any = None
    failure: Failure | None = None
    exchange_status: int | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """``ok``: use the answer. ``retry``: wait ``wait`` seconds and send again (``lag``:
    counted against ``RetryPolicy.lag_attempts``); ``error`` is what to raise when the
    budget is spent. ``raise``: raise ``error`` now."""

    action: Literal["ok", "retry", "raise"]
    wait: float = 0.0
    error: GitHubError | None = None
    lag: bool = False


@dataclass(frozen=True, slots=True)
class Request:
    """What was sent (for messages and :class:`AmbiguousOutcome`)."""

    operation: str
    mutation: bool
    variables: Mapping[str, Any]
    body: bytes
    graphql: bool = True
    method: str = "POST"
    url: str = ""


def _header_int(headers: Mapping[str, str], name: str) -> int | None:
    value = headers.get(name)
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


def server_time(headers: Mapping[str, str], wall_now: float) -> float:
    """GitHub's clock from the ``Date`` header (POSIX seconds), else ``wall_now``."""
    date = headers.get("date")
    if date:
        try:
            return float(parsedate_to_datetime(date).timestamp())
        except (TypeError, ValueError, IndexError):
            pass
    return wall_now


def rate_limit_wait(
    headers: Mapping[str, str],
    *,
    wall_now: float,
    secondary: bool,
    secondary_count: int,
    policy: RetryPolicy,
) -> float:
    """Seconds to wait after a rate-limit answer (GitHub docs, "Exceeding the rate limit").

    ``retry-after`` first; else, when ``x-ratelimit-remaining`` is 0 (or the limit is a
    primary one), until ``x-ratelimit-reset`` by GitHub's clock plus one second; else
    ``secondary_min_wait`` doubled for each secondary limit already met on this request.
    """
    retry_after = _header_int(headers, "retry-after")
    if retry_after is not None:
        return float(max(retry_after, 0))
    reset = _header_int(headers, "x-ratelimit-reset")
    remaining = _header_int(headers, "x-ratelimit-remaining")
    if reset is not None and (remaining == 0 or not secondary):
        return max(reset - server_time(headers, wall_now), 0.0) + 1.0
    if secondary:
        return float(policy.secondary_min_wait * (2 ** max(secondary_count, 0)))
    return 60.0


def _errors(payload: Any) -> list[Mapping[str, Any]]:
    if isinstance(payload, dict) and isinstance(payload.get("errors"), list):
        return [e for e in payload["errors"] if isinstance(e, dict)] or [{"message": "?"}]
    return []


def _messages(errors: list[Mapping[str, Any]], limit: int = 3) -> str:
    parts = []
    for error in errors[:limit]:
        kind = error.get("type")
        message = str(error.get("message", ""))[:300]
        parts.append(f"{kind}: {message}" if kind else message)
    more = f" (+{len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(parts) + more


def _backoff(policy: RetryPolicy, attempt: int, *, lag: bool = False) -> float:
    if lag:
        base, cap = policy.lag_base, policy.lag_cap
    else:
        base, cap = policy.backoff_base, policy.backoff_cap
    return float(min(cap, base * (2 ** max(attempt - 1, 0))))


def _not_permitted(op: str, detail: str) -> str:
    """A refusal for want of permission, naming the ``permissions:`` key to add."""
    needed = permission_for(op)
    if needed is None:
        return (f"{described(op)}: GitHub refused it ({detail}); check that the token can "
                "read the repository")
    return (f"{described(op)}: GitHub refused it ({detail}): the token needs {needed}; add "
            f"it to the workflow's or job's permissions: (a GitHub App: to its repository "
            "permissions, then accept them on the installation; a fine-grained personal "
            "token: to its repository permissions)")


def _ambiguous(request: Request, reason: str, status: int | None) -> AmbiguousOutcome:
    return AmbiguousOutcome(
        f"{described(request.operation)}: outcome unknown ({reason}); it may have committed. "
        "Read back before sending the same bytes again; never send a new key.",
        operation=request.operation,
        status=status,
        variables=request.variables,
        body=request.body,
        reason=reason,
        method=request.method,
        url=request.url,
    )


def decide(
    answer: Answer,
    request: Request,
    *,
    attempt: int,
    secondary_count: int,
    policy: RetryPolicy,
    wall_now: float,
) -> Decision:
    """Classify one attempt's answer (see the module's table).

    Args:
        answer: what came back.
        request: what was sent.
        attempt: 1 for the first attempt of this request.
        secondary_count: secondary rate limits already met by this request.
        policy: the retry bounds (waits only; the transport applies the budget).
        wall_now: local POSIX seconds, used only when GitHub sent no ``Date``.
    """
    op = request.operation
    what = described(op)
    mutation = request.mutation
    status = answer.status

    def transient(reason: str) -> Decision:
        if mutation:
            return Decision("raise", error=_ambiguous(request, reason, status))
        return Decision(
            "retry",
            wait=_backoff(policy, attempt),
            error=GitHubUnavailable(f"{what}: GitHub kept failing ({reason})", operation=op,
                                    status=status),
        )

    # -- no usable answer ------------------------------------------------------------
    if answer.failure == "connect":
        return Decision(
            "retry",
            wait=_backoff(policy, attempt),
            error=GitHubUnavailable(
                f"{what}: could not connect to GitHub (nothing was sent); check base_url "
                "and the network", operation=op),
        )
    if answer.failure == "after_send":
        return transient("no answer after the request was sent: timeout or connection lost")
    if answer.failure == "auth_exchange":
        ex = answer.exchange_status or 0
        if ex >= 500:
            return Decision(
                "retry",
                wait=_backoff(policy, attempt),
                error=GitHubUnavailable(
                    f"{what}: the App installation-token exchange kept failing (HTTP {ex}); "
                    "nothing was sent", operation=op, status=ex),
            )
        return Decision("raise", error=AuthFailed(
            f"{what}: the App installation-token exchange was refused (HTTP {ex}); check the "
            "App id, private key and installation id", operation=op, status=ex))
    if status is None:
        return transient("no answer")

    headers = answer.headers
    payload = answer.payload
    errors = _errors(payload)

    # -- "was submitted too quickly": a secondary limit that may have let it land ---------
    said = [str(e.get("message", "")) for e in errors]
    if isinstance(payload, dict):
        said.append(str(payload.get("message", "")))
    if status in (200, 422) and any(_TOO_QUICKLY.search(m) for m in said):
        wait = rate_limit_wait(headers, wall_now=wall_now, secondary=True,
                               secondary_count=secondary_count, policy=policy)
        wait = max(wait, policy.secondary_min_wait)
        if mutation:
            return Decision("raise", error=SubmittedTooQuickly(
                f"{what}: GitHub answered \"was submitted too quickly\" (its limit on "
                "creating content); the write may or may not have landed: read back "
                f"after {wait:.0f} s before sending the same bytes again",
                retry_after=wait, operation=op, status=status, variables=request.variables,
                body=request.body, reason="was submitted too quickly",
                method=request.method, url=request.url))
        return Decision("retry", wait=wait, error=RateLimited(
            f"{what}: GitHub answered \"was submitted too quickly\"; retry after "
            f"{wait:.0f} s", operation=op, status=status, kind="secondary",
            retry_after=wait))

    # -- rate limits (GitHub: the request was not executed) ---------------------------
    primary_typed = any(e.get("type") in ("RATE_LIMITED", "RATE_LIMIT") for e in errors)
    secondary_said = any(_SECONDARY.search(str(e.get("message", ""))) for e in errors)
    if status in (403, 429) or primary_typed or secondary_said:
        message = _messages(errors) if errors else (
            str(payload.get("message", "")) if isinstance(payload, dict) else "")
        remaining = _header_int(headers, "x-ratelimit-remaining")
        secondary = (not primary_typed) and (
            "retry-after" in headers or bool(_SECONDARY.search(message)) or
            (status == 429 and remaining != 0)
        )
        primary = primary_typed or (not secondary and (
            remaining == 0 or bool(_PRIMARY_403.search(message))))
        if secondary or primary:
            kind: Literal["primary", "secondary"] = "secondary" if secondary else "primary"
            wait = rate_limit_wait(headers, wall_now=wall_now, secondary=secondary,
                                   secondary_count=secondary_count, policy=policy)
            error = RateLimited(
                f"{what}: {kind} rate limit; GitHub did not execute the request; "
                f"retry after {wait:.0f} s" + (f" ({message})" if message else ""),
                operation=op, status=status, kind=kind, retry_after=wait,
            )
            if mutation:
                return Decision("raise", error=error)
            return Decision("retry", wait=wait, error=error)

    # -- HTTP errors -----------------------------------------------------------------
    if status >= 500:
        if status in RETRYABLE_STATUS or mutation:
            return transient(f"http {status}")
        return Decision("raise", error=GitHubUnavailable(
            f"{what}: GitHub answered HTTP {status}", operation=op, status=status))
    detail = _messages(errors) if errors else (
        str(payload.get("message", ""))[:300] if isinstance(payload, dict) else "")
    if status == 401:
        return Decision("raise", error=AuthFailed(
            f"{what}: GitHub refused the credentials (HTTP 401: {detail or 'no detail'}); "
            "the token is wrong, expired or revoked: check the token (or the GitHub App's "
            "installation) that the step uses", operation=op, status=status))
    if status == 403:
        return Decision("raise", error=AuthFailed(
            _not_permitted(op, f"HTTP 403: {detail or 'no detail'}"), operation=op,
            status=status))
    if status == 404:
        return Decision("raise", error=NotFound(
            f"{what}: GitHub answered 404 ({detail or 'not found'}); check the owner, name and "
            "base_url (GHES: https://HOST/api/v3/)", operation=op, status=status))
    if 300 <= status < 400 or status >= 400 and not errors:
        return Decision("raise", error=GraphQLRefused(
            f"{what}: GitHub refused the request (HTTP {status}: {detail or 'no detail'})",
            operation=op, status=status, errors=errors))

    # -- 2xx (or 4xx with a GraphQL errors list) -------------------------------------
    if not request.graphql and 200 <= status < 300:
        if payload is NOT_JSON:
            return transient(f"unreadable answer (HTTP {status})")
        return Decision("ok")
    if payload is NOT_JSON or not isinstance(payload, dict) or (
        payload.get("data") is None and not errors
    ):
        return transient(f"unreadable answer (HTTP {status})")
    if not errors:
        data = payload.get("data")
        if mutation and (not isinstance(data, dict) or all(v is None for v in data.values())):
            return transient(f"the mutation answered without its result (HTTP {status})")
        return Decision("ok")
    types = {e.get("type") for e in errors}
    text = _messages(errors)
    if any(_NODE_LAG.search(str(e.get("message", ""))) for e in errors):
        return Decision("retry", wait=_backoff(policy, attempt, lag=True), lag=True,
                        error=NotFound(f"{what}: {text}", operation=op, status=status))
    if "NOT_FOUND" in types:
        return Decision("raise", error=NotFound(f"{what}: {text}", operation=op, status=status))
    if op in REF_OPERATIONS and "STALE_DATA" in types:
        return Decision("raise", error=RefConflict(
            f"{what}: the ref compare-and-set lost: {text}", operation=op, status=status))
    if "INTERNAL" in types:
        # GitHub reports a failure inside GitHub as 200 ``type: INTERNAL``; a mutation
        # may have committed before it (probot/probot#921): an unknown outcome.
        return transient(f"GitHub reported an internal error: {text}")
    if "FORBIDDEN" in types or "INSUFFICIENT_SCOPES" in types:
        return Decision("raise", error=AuthFailed(
            _not_permitted(op, text), operation=op, status=status))
    untyped = all(e.get("type") is None and "extensions" not in e and "locations" not in e
                  for e in errors)
    if untyped and _SERVER_TROUBLE.search(text):
        return transient(f"GitHub reported a server failure: {text}")
    return Decision("raise", error=GraphQLRefused(
        f"{what}: GitHub refused: {text}", operation=op, status=status, errors=errors))

