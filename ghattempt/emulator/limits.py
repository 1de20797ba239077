# mypy: disable-error-code="misc"
# (each method types ``self`` as the Emulator it is mixed into: mypy cannot check a
# mixin's self type against the class that composes it)
"""GitHub's rate limits as the emulator counts them.

Primary: a budget an hour per token, separately for ``graphql`` and ``core`` (REST); under
the ``actions_budget`` fidelity switch every GITHUB_TOKEN of one repository shares 1,000.
Over it, GraphQL answers HTTP 200 ``errors[].type: RATE_LIMITED``, REST 403. Secondary:
points a minute per actor (GraphQL 2,000, a query 1 and a mutation 5; REST 900, a read 1
and a write 5) and content creation (80 a minute, 500 an hour) shared by both; over any,
403 with ``retry-after``. Source: GitHub docs, "Rate limits and query limits for the
GraphQL API" and "Rate limits for the REST API"."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import errors as gh
from .exchange import Reply, Request
from .fidelity import ACTIONS_BUDGET

if TYPE_CHECKING:
    from .app import Emulator


CONTENT_CREATING = frozenset({"createDiscussion", "addDiscussionComment", "createCommitOnBranch",
                              "createRef"})
"""GraphQL root fields that create content (a ref counts like REST's ``git/create-ref``)."""


GITHUB_LIMITS = {
    "content_per_minute": 80,
    "content_per_hour": 500,
    "points_per_minute": 2000,
    "rest_points_per_minute": 900,
    "discussion_comments": 2500,
    "time_scale": 1,
}
"""GitHub's figures: the secondary limits (GitHub docs, "Rate limits for the REST API" and
"... for the GraphQL API") and the comments one discussion takes (the stricter reading of
"Commenting is disabled on issues with more than 2500 comments", docs/emulator.md).
``time_scale`` is no GitHub figure: a benchmark's (``[limits] time_scale = k``), under which
the secondary limits' windows pass k times faster than the clock (a minute's budget in
60/k seconds, an hour's in 3600/k), so that an hour of GitHub's pacing runs in minutes;
``retry-after`` is divided by k too. 1: GitHub's windows."""


REST_CONTENT_CREATING = frozenset({"git/create-commit", "git/create-ref", "repos/create-release",
                                   "repos/upload-release-asset"})


@dataclass
class _Budget:
    window_start: float
    used: int = 0
    refused: bool = False


class Limits:
    """GitHub's primary and secondary rate limits, per token, actor and repository."""

    def _shares_actions_budget(self: Emulator, token: Any) -> bool:
        """Whether ``token`` is a GITHUB_TOKEN under the per-repository budget."""
        if not self.fidelity.actions_budget:
            return False
        actor = self.state.actor(int(token["actor_id"]))
        return actor is not None and actor["kind"] == "Bot" and actor["login"] == "github-actions"

    def _limit(self: Emulator, token: Any) -> int:
        """The primary limit an hour of ``token`` (GitHub's for GITHUB_TOKEN under
        ``actions_budget``: 1,000 per repository)."""
        return ACTIONS_BUDGET if self._shares_actions_budget(token) else int(token["rate_limit"])

    def _budget(self: Emulator, token: Any, resource: str = "graphql") -> _Budget:
        """The token's hourly window for ``resource`` (``graphql`` or ``core``); every
        GITHUB_TOKEN of one repository shares one under ``actions_budget`` (a token
        without ``repository`` belongs to the one repository the emulator assumes)."""
        if self._shares_actions_budget(token):
            key = f"{resource}:actions:{token['repository'] or '*'}"
        else:
            key = f"{resource}:{token['token']}"
        now = self.clock.now()
        with self._budget_lock:
            budget = self._budgets.get(key)
            if budget is None or now >= budget.window_start + 3600:
                budget = _Budget(now)
                self._budgets[key] = budget
            return budget

    def _rate_limited(self: Emulator, req: Request, remaining: int,
                      error_type: str = "RATE_LIMITED") -> Reply:
        """GitHub's primary-limit answer for GraphQL: HTTP 200, ``errors[].type``
        ``RATE_LIMITED`` (or, as GitHub has also answered, ``RATE_LIMIT`` with ``code:
        graphql_rate_limit``: yanyongyu/githubkit#271); the first refusal in a window
        says "exceeded", later ones "already exceeded"."""
        budget = self._budget(req.token)
        again = "already " if budget.refused else ""
        budget.refused = True
        who = (
            f"installation ID {req.token['installation_id'] or req.viewer['id']}"
            if req.viewer["kind"] == "Bot"
            else f"user ID {req.viewer['id']}"
        )
        message = f"API rate limit {again}exceeded for {who}."
        error: dict[str, str] = {"type": error_type}
        if error_type == "RATE_LIMIT":
            error["code"] = "graphql_rate_limit"
        error["message"] = message
        body = {"errors": [error]}
        return self._json(
            req,
            200,
            body,
            {"x-ratelimit-remaining": str(remaining)},
            resource="graphql",
        )

    def _secondary_limit(
        self: Emulator, req: Request, points: int, creating: int, resource: str = "graphql"
    ) -> Reply | None:
        """GitHub's secondary limits, per actor: points a minute (GraphQL: a query 1,
        a mutation 5, ``points_per_minute``; REST: a read 1, a write 5,
        ``rest_points_per_minute``) and content creation shared by both
        (``content_per_minute``, ``content_per_hour``). Over any: HTTP 403 with
        ``retry-after``; nothing runs. Source: GitHub docs, "Rate limits for the REST
        API" and "... for the GraphQL API", secondary rate limits. The key is the actor
        (its databaseId): every token of one account, and every installation token of
        one App (one bot), share one window. Nothing is counted while the
        ``secondary_limits`` fidelity switch is off."""
        if not self.fidelity.secondary_limits:
            return None
        limit = self.points_per_minute if resource == "graphql" else self.rest_points_per_minute
        key = str(req.viewer["id"])
        scale = self.time_scale
        now = self.clock.now() * scale
        with self.state.lock:
            spent = self._points.setdefault(f"{resource}:{key}", deque())
            while spent and spent[0][0] <= now - 60:
                spent.popleft()
            stamps = self._content.setdefault(key, deque())
            while stamps and stamps[0] <= now - 3600:
                stamps.popleft()
            last_minute = [t for t in stamps if t > now - 60]
            wait = 0.0
            if sum(p for _, p in spent) + points > limit:
                wait = spent[0][0] + 60 - now
            elif creating and len(last_minute) + creating > self.content_per_minute:
                wait = last_minute[0] + 60 - now
            elif creating and len(stamps) + creating > self.content_per_hour:
                wait = stamps[0] + 3600 - now
            else:
                spent.append((now, points))
                stamps.extend([now] * creating)
                return None
        return self._json(
            req,
            403,
            gh.secondary_limit_body(req.request_id),
            {"retry-after": str(max(1, int(wait / scale + 0.999)))},
            resource=resource,
        )

    def _rest_rate_limited(self: Emulator, req: Request, status: int = 403,
                           remaining: int = 0) -> Reply:
        """GitHub's primary-limit answer for REST: 403 (GitHub documents 403 or 429)
        with ``x-ratelimit-remaining`` (0 unless a fault says otherwise)."""
        return self._json(
            req,
            status,
            gh.rest_body(f"API rate limit exceeded for user ID {req.viewer['id']}.", status),
            {"x-ratelimit-remaining": str(remaining)},
            resource="core",
        )

    def _rate_limit_rest(self: Emulator, req: Request) -> Reply:
        """``GET /rate_limit``: both windows; the request itself costs nothing."""
        limit = self._limit(req.token)
        resources = {}
        for resource in ("core", "graphql"):
            budget = self._budget(req.token, resource)
            resources[resource] = {
                "limit": limit,
                "used": budget.used,
                "remaining": max(0, limit - budget.used),
                "reset": int(budget.window_start + 3600),
                "resource": resource,
            }
        body = {"resources": resources, "rate": resources["core"]}
        return self._json(req, 200, body, resource="core")
