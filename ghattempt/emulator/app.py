"""The emulator: one request in, one GitHub-shaped response out.

:class:`Emulator` is transport-free: :meth:`Emulator.handle` takes a method, path,
headers and body and returns a :class:`Reply`. The httpx transports
(:mod:`.transport`) and the HTTP server (:mod:`.server`) only move bytes.

The routes live in route modules tried in order (:data:`ROUTE_MODULES`), each by GitHub
domain, at ``/`` and under the GHES prefixes ``/api/v3/``, ``/api/``:

- :mod:`.hooks`: the App's webhook deliveries (``GET /app/hook/deliveries``, redelivery,
  and the ``/_emulator/hooks`` that deliver events);
- :mod:`.admin`: ``/_emulator/...`` (faults, fidelity, state, request log, clock, tokens,
  rename and transfer, discussions, rulesets, tampering; never on GitHub);
- :mod:`.graphql_endpoint`: ``POST /graphql`` (and ``/api/graphql``), whose types are
  :mod:`.resolvers` (repositories, actors, pull requests), :mod:`.discussions` and
  :mod:`.refs` (refs and commits);
- :mod:`.rest` (repository, contents, runs, check runs, rate limit, Apps) and
  :mod:`.rest_git` (commits and refs).

Across them: :mod:`.limits` (GitHub's rate limits) and :mod:`.faulting` (the fault rules).
"""

from __future__ import annotations

import email.utils
import itertools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from . import actions, admin, apps, graphql_endpoint, hooks, releases, rest
from . import errors as gh
from .admin import Admin
from .exchange import LogEntry, Reply, Request
from .faulting import Faulting
from .faults import FaultPlan
from .fidelity import Fidelity
from .fixture import LIMITS, load_fixture, seed
from .graphql_endpoint import GraphQLEndpoint, load_schema
from .limits import GITHUB_LIMITS, Limits, _Budget
from .rest import Rest
from .rest_git import RestGit
from .state import Clock, State

logger = logging.getLogger(__name__)
LOG_LIMIT = 100_000
ROUTE_MODULES = (hooks, admin, graphql_endpoint, rest)
"""The route modules, tried in order: each has ``route(emulator, request, path)``
answering a :class:`Reply`, or None when the path is not one of its routes. REST comes
last: it answers every path (404 for those it does not serve, as GitHub does).
``Emulator(routes=...)`` takes another sequence, e.g. a module of further routes put
before REST; docs/emulator.md lists the routes."""


class Emulator(Admin, Faulting, Limits, GraphQLEndpoint, Rest, RestGit):
    """An offline GitHub for the GraphQL and REST slice ghattempt uses.

    Args:
        db: SQLite file path (state survives restarts) or ``":memory:"``.
        fixture: a fixture dict or a path to a TOML/JSON fixture; applied once, when
            the database is new (see docs/emulator.md for the format).
        server_url: the web URL objects' ``url`` fields start with.
        api_url: the REST base URL put into REST ``url`` fields.
        content_per_minute / content_per_hour: the secondary content-creation limit
            (GitHub: about 80 a minute and 500 an hour). Each limit argument left at
            None takes the fixture's ``[limits]`` value, else GitHub's.
        points_per_minute: the secondary point limit (GitHub: 2,000 a minute for
            GraphQL; a query costs 1 point, a mutation 5).
        rest_points_per_minute: the same for REST (GitHub: 900; a GET costs 1, a
            write 5).
        discussion_comments: the comments and replies one discussion takes (GitHub
            refuses comments on issues with more than 2,500; the emulator refuses the
            2,501st in a discussion).
        clock: a shared :class:`Clock` (tests move it forward).
        fidelity: the fidelity switches (:class:`Fidelity` or its JSON form, applied
            over the fixture's ``[fidelity]``); default GitHub's behaviour.
        routes: the route modules tried in order (:data:`ROUTE_MODULES`).
    """

    def __init__(
        self,
        db: str = ":memory:",
        fixture: Mapping[str, Any] | str | Path | None = None,
        *,
        server_url: str = "https://github.com",
        api_url: str = "https://api.github.com",
        content_per_minute: int | None = None,
        content_per_hour: int | None = None,
        points_per_minute: int | None = None,
        rest_points_per_minute: int | None = None,
        discussion_comments: int | None = None,
        clock: Clock | None = None,
        fidelity: Fidelity | Mapping[str, Any] | None = None,
        routes: Sequence[Any] = ROUTE_MODULES,
    ) -> None:
        self.routes = tuple(routes)
        self.clock = clock or Clock()
        self.state = State(db, self.clock)
        apps.setup(self.state)
        actions.setup(self.state)
        releases.setup(self.state)
        self.server_url = server_url.rstrip("/")
        self.api_url = api_url.rstrip("/")
        self.faults = FaultPlan()
        explicit = {
            "content_per_minute": content_per_minute,
            "content_per_hour": content_per_hour,
            "points_per_minute": points_per_minute,
            "rest_points_per_minute": rest_points_per_minute,
            "discussion_comments": discussion_comments,
            "time_scale": None,
        }
        self.content_per_minute = GITHUB_LIMITS["content_per_minute"]
        self.content_per_hour = GITHUB_LIMITS["content_per_hour"]
        self.points_per_minute = GITHUB_LIMITS["points_per_minute"]
        self.rest_points_per_minute = GITHUB_LIMITS["rest_points_per_minute"]
        self.discussion_comments = GITHUB_LIMITS["discussion_comments"]
        self.time_scale = GITHUB_LIMITS["time_scale"]
        self._cooldown: dict[int, float] = {}  # actor id -> end of a "too quickly" cool-down
        self._points: dict[str, deque[tuple[float, int]]] = {}
        self.schema = load_schema()
        self._budgets: dict[str, _Budget] = {}
        self._budget_lock = threading.Lock()
        self._content: dict[str, deque[float]] = {}
        self._log: deque[LogEntry] = deque(maxlen=LOG_LIMIT)  # newest kept
        self._log_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._check_runs: list[dict[str, Any]] = []
        if fixture is not None and not self.state.seeded:
            data = load_fixture(fixture) if isinstance(fixture, (str, Path)) else fixture
            seed(self.state, data)
        for key in LIMITS:  # an argument wins over the fixture, which wins over GitHub's
            stored = self.state.meta(f"limit:{key}")
            if explicit[key] is not None:
                setattr(self, key, explicit[key])
            elif stored is not None:
                setattr(self, key, int(stored))
        stored_fidelity = self.state.meta("fidelity")
        self.fidelity = Fidelity().changed(json.loads(stored_fidelity) if stored_fidelity else {})
        if fidelity is not None:
            self.set_fidelity(fidelity if isinstance(fidelity, Mapping) else fidelity.as_dict())

    def set_fidelity(self, changes: Mapping[str, Any]) -> Fidelity:
        """Turn fidelity switches on or off (``{"locked_conversations": False}``);
        returns the switches now in force. Raises ValueError for an unknown switch or
        a value of the wrong type (nothing changes then)."""
        self.fidelity = self.fidelity.changed(dict(changes))
        return self.fidelity

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """Answer one HTTP request. Never raises for client mistakes."""
        req = Request(
            method=method.upper(),
            path=path.split("?", 1)[0],
            headers={k.lower(): v for k, v in headers.items()},
            body=body,
            started=time.monotonic(),
            request_id=self._request_id(),
            query=path.partition("?")[2],
        )
        route = req.path
        for prefix in ("/api/v3", "/api"):
            if route.startswith(prefix + "/"):
                route = route[len(prefix) :]
                break
        try:
            for module in self.routes:
                answer: Reply | None = module.route(self, req, route)
                if answer is not None:
                    return answer
            return self._json(req, 404, gh.rest_body("Not Found", 404))
        except Exception as exc:  # a defect in the emulator: answer like GitHub's 500
            logger.exception("emulator defect while answering %s %s", req.method, req.path)
            defect = {"message": "Server Error", "emulator": f"{type(exc).__name__}: {exc}"}
            return self._log_request(req, self._json(req, 500, defect), None, "error")

    def _request_id(self) -> str:
        n = next(self._ids)
        return f"EMU0:{n:04X}:{n * 7919 % 0xFFFFFF:06X}:{n * 104729 % 0xFFFFFF:06X}:{n:08X}"

    def _headers(
        self, req: Request, extra: Mapping[str, str] | None = None, resource: str | None = None
    ) -> tuple[tuple[str, str], ...]:
        out = [
            ("content-type", "application/json; charset=utf-8"),
            ("date", email.utils.formatdate(self.clock.now(), usegmt=True)),
            ("x-github-request-id", req.request_id),
            ("x-github-media-type", "github.v4; format=json"),
        ]
        if req.token is not None and resource is not None and self.fidelity.rate_limit_headers:
            budget = self._budget(req.token, resource)
            limit = self._limit(req.token)
            out += [
                ("x-ratelimit-limit", str(limit)),
                ("x-ratelimit-remaining", str(max(0, limit - budget.used))),
                ("x-ratelimit-used", str(budget.used)),
                ("x-ratelimit-reset", str(int(budget.window_start + 3600))),
                ("x-ratelimit-resource", resource),
            ]
        if extra:
            merged = dict(out)
            merged.update({k.lower(): v for k, v in extra.items()})
            out = list(merged.items())
        return tuple(out)

    def _json(
        self,
        req: Request,
        status: int,
        body: bytes | Any,
        extra: Mapping[str, str] | None = None,
        resource: str | None = None,
    ) -> Reply:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return Reply(status, self._headers(req, extra, resource), raw)

    def _authenticate(self, req: Request) -> Reply | None:
        auth = req.headers.get("authorization", "")
        scheme, _, credential = auth.partition(" ")
        if not auth:
            return self._json(req, 401, gh.REQUIRES_AUTH)
        if scheme.lower() not in ("bearer", "token") or not credential.strip():
            return self._json(req, 401, gh.BAD_CREDENTIALS)
        token = self.state.token(credential.strip())
        if token is None or (
            token["expires_at"] is not None and token["expires_at"] <= self.clock.now()
        ):
            return self._json(req, 401, gh.BAD_CREDENTIALS)
        req.token = token
        req.viewer = self.state.actor(int(token["actor_id"]))
        return None

    def _log_request(
        self,
        req: Request,
        reply: Reply,
        operation: str | None,
        kind: str,
        roots: tuple[str, ...] = (),
        cost: int = 0,
    ) -> Reply:
        entry = LogEntry(
            at=self.clock.now(),
            method=req.method,
            path=req.path,
            operation=operation,
            kind=kind,
            root_fields=roots,
            cost=cost,
            status=0 if reply.drop else reply.status,
            actor=None if req.viewer is None else str(req.viewer["login"]),
            faults=tuple(r.kind for r in req.faults),
            duration_ms=(time.monotonic() - req.started) * 1000,
            secondary_limited=not reply.drop and any(
                name.lower() == "retry-after" for name, _ in reply.headers),
        )
        with self._log_lock:
            self._log.append(entry)
        return reply


__all__ = ["LOG_LIMIT", "ROUTE_MODULES", "Emulator", "LogEntry", "Reply", "Request", "load_schema"]
