"""Requests and rate-limit points spent, in total and by operation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["OperationUsage", "RateLimitState", "Usage", "UsageMeter"]


@dataclass(frozen=True, slots=True)
class OperationUsage:
    """``requests`` HTTP requests sent; ``points`` primary rate-limit points they cost;
    ``secondary_points`` their cost against the secondary limit (GitHub docs: GraphQL
    query 1, mutation 5; REST GET 1, other methods 5)."""

    requests: int = 0
    points: int = 0
    secondary_points: int = 0


@dataclass(frozen=True, slots=True)
class RateLimitState:
    """The last ``x-ratelimit-*`` headers seen (None when never seen)."""

    limit: int | None = None
    remaining: int | None = None
    used: int | None = None
    reset: int | None = None
    resource: str | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    """A snapshot: totals, the breakdown by operation, and the last rate-limit headers
    (of whichever resource answered last)."""

    requests: int
    points: int
    secondary_points: int
    by_operation: Mapping[str, OperationUsage]
    rate_limit: RateLimitState


@dataclass(slots=True)
class UsageMeter:
    """Accumulates usage as responses arrive.

    Points of one response: ``data.rateLimit.cost`` when the document asked for it; else
    the rise of ``x-ratelimit-used`` since the previous response of the same resource
    (``x-ratelimit-resource``: graphql, core) and window (same ``x-ratelimit-reset``);
    else 1, GitHub's least cost of a request
    (GitHub docs, "Calculating a rate limit score": a query of at most 100 nodes per
    connection, and every mutation, costs 1).
    """

    _ops: dict[str, OperationUsage] = field(default_factory=dict)
    _state: RateLimitState = field(default_factory=RateLimitState)
    _by_resource: dict[str | None, RateLimitState] = field(default_factory=dict)

    def record(
        self,
        operation: str,
        *,
        headers: Mapping[str, str] | None,
        mutation: bool,
        cost: int | None = None,
    ) -> int:
        """Count one request; ``headers`` None when no response arrived (no points).
        Returns the primary rate-limit points it cost."""
        points = 0
        if headers is not None:
            new = _parse_state(headers)
            last = self._by_resource.get(new.resource)
            if cost is not None:
                points = cost
            elif (
                last is not None
                and new.used is not None
                and last.used is not None
                and new.reset == last.reset
                and new.used >= last.used
            ):
                points = new.used - last.used
            else:
                points = 1
            if new.remaining is not None:
                self._state = new
                self._by_resource[new.resource] = new
        old = self._ops.get(operation, OperationUsage())
        self._ops[operation] = OperationUsage(
            requests=old.requests + 1,
            points=old.points + points,
            secondary_points=old.secondary_points + (5 if mutation else 1),
        )
        return points

    def snapshot(self) -> Usage:
        ops = dict(self._ops)
        return Usage(
            requests=sum(o.requests for o in ops.values()),
            points=sum(o.points for o in ops.values()),
            secondary_points=sum(o.secondary_points for o in ops.values()),
            by_operation=MappingProxyType(ops),
            rate_limit=self._state,
        )


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _parse_state(headers: Mapping[str, str]) -> RateLimitState:
    return RateLimitState(
        limit=_int(headers.get("x-ratelimit-limit")),
        remaining=_int(headers.get("x-ratelimit-remaining")),
        used=_int(headers.get("x-ratelimit-used")),
        reset=_int(headers.get("x-ratelimit-reset")),
        resource=headers.get("x-ratelimit-resource"),
    )
