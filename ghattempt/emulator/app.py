"""The emulator: one request in, one GitHub-shaped response out.

:class:`Emulator` is transport-free: :meth:`Emulator.handle` takes a method, path,
headers and body and returns a :class:`Reply`. The httpx transports
(:mod:`.transport`) and the HTTP server (:mod:`.server`) only move bytes.

Routes (GitHub's, at ``/`` and under the GHES prefixes ``/api/v3/``, ``/api/``):

- ``POST /graphql`` (and ``/api/graphql``): GraphQL over the schema subset;
- ``POST /repos/{owner}/{repo}/git/commits``, ``GET .../git/commits/{sha}``,
  ``GET .../git/ref/{ref}``, ``POST .../git/refs``, ``PATCH``/``DELETE
  .../git/refs/{ref}``, ``GET /repos/{owner}/{repo}``, ``GET /rate_limit``;
- ``/_emulator/...``: faults, state, request log, clock, tokens, rename, tampering
  (admin; never on GitHub).

Order of checks for GraphQL: authentication (401), JSON body, parse and validation
(cached per document text), variable coercion, fault rules that act before running,
pagination bounds and node limit, secondary limits (403), primary budget
(``RATE_LIMITED``), execution, fault rules that act after committing.
"""

from __future__ import annotations

import email.utils
import itertools
import json
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLSchema,
    OperationDefinitionNode,
    build_schema,
    execute,
    parse,
    print_ast,
    validate,
)
from graphql.execution.values import get_variable_values

from . import apps, git, hooks
from . import errors as gh
from .cost import analyze
from .faults import FaultPlan, FaultRule
from .fixture import LIMITS, load_fixture, seed
from .graphql_errors import empty_selection, github_validation_errors, parse_error
from .ids import decode_node_id, node_id
from .resolvers import (
    Ctx,
    MutationRoot,
    QueryRoot,
    RateInfo,
    delete_comment,
    edit_comment,
    minimize_comment,
)
from .state import Clock, State, iso

logger = logging.getLogger(__name__)
SCHEMA_PATH = Path(__file__).with_name("schema.graphql")
CONTENT_CREATING = frozenset({"createDiscussion", "addDiscussionComment", "createCommitOnBranch"})
LOG_LIMIT = 100_000
GITHUB_LIMITS = {
    "content_per_minute": 80,
    "content_per_hour": 500,
    "points_per_minute": 2000,
    "rest_points_per_minute": 900,
}
REST_CONTENT_CREATING = frozenset({"git/create-commit", "git/create-ref"})


@lru_cache(maxsize=1)
def load_schema() -> GraphQLSchema:
    """The emulator's schema (the committed subset of GitHub's published schema)."""
    return build_schema(SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=512)
def _prepare(query: str) -> tuple[DocumentNode | None, list[dict[str, Any]]]:
    """Parse and validate a document once per distinct text (the schema is fixed, so
    the verdict is too): the document, or None and GitHub-shaped errors."""
    try:
        document = parse(query)
    except GraphQLError as exc:
        return None, [parse_error(exc)]
    empty = empty_selection(document)
    if empty is not None:
        return None, [empty]
    problems = validate(load_schema(), document)
    if problems:
        return None, github_validation_errors(list(problems), document)
    return document, []


@dataclass(frozen=True, slots=True)
class Reply:
    """An HTTP response, or ``drop`` (close the connection without answering)."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    drop: bool = False

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class _Budget:
    window_start: float
    used: int = 0
    refused: bool = False


@dataclass
class LogEntry:
    """One request as the emulator saw it (for tests and benchmarks)."""

    at: float
    method: str
    path: str
    operation: str | None
    kind: str
    root_fields: tuple[str, ...]
    cost: int
    status: int
    actor: str | None
    faults: tuple[str, ...] = ()
    duration_ms: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "at": iso(self.at),
            "method": self.method,
            "path": self.path,
            "operation": self.operation,
            "kind": self.kind,
            "root_fields": list(self.root_fields),
            "cost": self.cost,
            "status": self.status,
            "actor": self.actor,
            "faults": list(self.faults),
            "duration_ms": round(self.duration_ms, 3),
        }


@dataclass
class _Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    started: float
    request_id: str
    query: str = ""
    token: Any = None
    viewer: Any = None
    faults: list[FaultRule] = field(default_factory=list)


class Emulator:
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
        clock: a shared :class:`Clock` (tests move it forward).
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
        clock: Clock | None = None,
    ) -> None:
        self.clock = clock or Clock()
        self.state = State(db, self.clock)
        apps.setup(self.state)
        self.server_url = server_url.rstrip("/")
        self.api_url = api_url.rstrip("/")
        self.faults = FaultPlan()
        explicit = {
            "content_per_minute": content_per_minute,
            "content_per_hour": content_per_hour,
            "points_per_minute": points_per_minute,
            "rest_points_per_minute": rest_points_per_minute,
        }
        self.content_per_minute = GITHUB_LIMITS["content_per_minute"]
        self.content_per_hour = GITHUB_LIMITS["content_per_hour"]
        self.points_per_minute = GITHUB_LIMITS["points_per_minute"]
        self.rest_points_per_minute = GITHUB_LIMITS["rest_points_per_minute"]
        self._points: dict[str, deque[tuple[float, int]]] = {}
        self.schema = load_schema()
        self._budgets: dict[str, _Budget] = {}
        self._budget_lock = threading.Lock()
        self._content: dict[str, deque[float]] = {}
        self._log: deque[LogEntry] = deque(maxlen=LOG_LIMIT)  # newest kept
        self._log_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._check_runs: list[dict[str, Any]] = []
        self._runs: dict[tuple[int, int], dict[str, Any]] = {}
        if fixture is not None and not self.state.seeded:
            data = load_fixture(fixture) if isinstance(fixture, (str, Path)) else fixture
            seed(self.state, data)
        for key in LIMITS:  # an argument wins over the fixture, which wins over GitHub's
            stored = self.state.meta(f"limit:{key}")
            if explicit[key] is not None:
                setattr(self, key, explicit[key])
            elif stored is not None:
                setattr(self, key, int(stored))

    # ------------------------------------------------------------ python API
    def add_fault(self, rule: FaultRule | dict[str, Any]) -> int:
        """Arm a fault rule (a :class:`FaultRule` or its JSON form); returns its id."""
        if isinstance(rule, dict):
            rule = FaultRule.from_dict(rule)
        return self.faults.add(rule)

    def remove_fault(self, ident: int) -> None:
        """Disarm the rule :meth:`add_fault` numbered ``ident`` (unknown ids: no-op)."""
        self.faults.remove(ident)

    def clear_faults(self) -> None:
        self.faults.clear()

    def request_log(self) -> list[dict[str, Any]]:
        with self._log_lock:
            return [e.as_dict() for e in self._log]

    def clear_request_log(self) -> None:
        with self._log_lock:
            self._log.clear()

    def tamper(self, action: str, node: str, actor: str = "ghost", body: str | None = None) -> None:
        """Another actor edits, deletes or minimizes a comment, or edits a discussion's
        body (by node id). The effect is what readers see after a moderator or the
        author acted on GitHub; ``actor`` is informational.

        Raises:
            ValueError: unknown action, an action a discussion does not take, or
                ``node`` is not an existing comment or discussion.
        """
        decoded = decode_node_id(node)
        if decoded is None or decoded.typename not in ("DiscussionComment", "Discussion"):
            raise ValueError(f"{node!r} is not a DiscussionComment or Discussion id")
        table = "comments" if decoded.typename == "DiscussionComment" else "discussions"
        ident = int(decoded.payload[-1])
        with self.state.transaction():
            if self.state.one(f"SELECT id FROM {table} WHERE id = ?", ident) is None:  # noqa: S608
                raise ValueError(f"{decoded.typename} {node!r} does not exist")
            self._tamper_row(action, decoded.typename, ident, body)

    def _tamper_row(self, action: str, typename: str, ident: int, body: str | None) -> None:
        now = self.clock.now()
        text = body or "edited by another actor"
        if typename == "Discussion":
            if action != "edit":
                raise ValueError(f"a discussion can only be edited, not {action!r}")
            with self.state.transaction() as db:
                db.execute(
                    "UPDATE discussions SET body = ?, last_edited_at = ?, updated_at = ?, "
                    "includes_created_edit = 1 WHERE id = ?",
                    (text, now, now, ident),
                )
        elif action == "edit":
            edit_comment(self.state, ident, text, now)
        elif action == "delete":
            delete_comment(self.state, ident, now)
        elif action == "minimize":
            minimize_comment(self.state, ident, "outdated", True)
        else:
            raise ValueError(f"unknown tamper action {action!r}; use edit, delete or minimize")

    def add_token(
        self,
        token: str,
        actor: str,
        role: str = "write",
        *,
        discussions: str = "write",
        contents: str = "write",
        rate_limit: int = 5000,
        kind: str = "User",
    ) -> None:
        """Add (or replace) a token for ``actor``, creating the actor (of ``kind``) if
        new. Raises ValueError for an unknown role or access level."""
        with self.state.transaction():
            row = self.state.actor_by_login(actor)
            actor_id = (
                int(row["id"]) if row is not None else self.state.add_actor(actor, kind, None, None)
            )
            self.state.add_token(token, actor_id, role, discussions, contents, rate_limit, None)

    def rename_repository(self, name_with_owner: str, new_name: str) -> None:
        """Rename a repository: its node id stays, the old name keeps resolving.
        Raises ValueError when the repository does not exist."""
        owner, _, name = name_with_owner.partition("/")
        row = self.state.repository_by_name(owner, name, follow_renames=False)
        if row is None:
            raise ValueError(f"no repository {name_with_owner!r}")
        self.state.rename_repository(int(row["id"]), new_name)

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (ids in GitHub's node-id format)."""
        st = self.state
        with st.lock:
            repos = []
            for r in st.all("SELECT * FROM repositories ORDER BY id"):
                rid = int(r["id"])
                owner = st.actor(int(r["owner_id"]))
                discussions = []
                for d in st.all("SELECT * FROM discussions WHERE repo_id = ? ORDER BY id", rid):
                    comments = [
                        {
                            "id": node_id("DiscussionComment", rid, int(c["id"])),
                            "reply_to": None
                            if c["reply_to"] is None
                            else node_id("DiscussionComment", rid, int(c["reply_to"])),
                            "author": (st.actor(c["author_id"]) or {"login": None})["login"],
                            "body": c["body"],
                            "created_at": iso(c["created_at"]),
                            "last_edited_at": iso(c["last_edited_at"]),
                            "deleted_at": iso(c["deleted_at"]),
                            "is_minimized": bool(c["is_minimized"]),
                            "visible_at": iso(c["visible_at"]),
                        }
                        for c in st.all(
                            "SELECT * FROM comments WHERE discussion_id = ? ORDER BY id", d["id"]
                        )
                    ]
                    discussions.append(
                        {
                            "id": node_id("Discussion", rid, int(d["id"])),
                            "number": d["number"],
                            "title": d["title"],
                            "locked": bool(d["locked"]),
                            "comments": comments,
                        }
                    )
                repos.append(
                    {
                        "id": node_id("Repository", rid),
                        "databaseId": rid,
                        "nameWithOwner": f"{owner['login'] if owner else '?'}/{r['name']}",
                        "categories": [
                            {
                                "id": node_id("DiscussionCategory", rid, int(c["id"])),
                                "slug": c["slug"],
                            }
                            for c in st.all("SELECT * FROM categories WHERE repo_id = ?", rid)
                        ],
                        "pull_requests": [
                            {"id": node_id("PullRequest", rid, int(p["id"])), "number": p["number"]}
                            for p in st.all("SELECT * FROM pull_requests WHERE repo_id = ?", rid)
                        ],
                        "refs": {
                            f["name"]: f["oid"]
                            for f in st.all(
                                "SELECT * FROM refs WHERE repo_id = ? ORDER BY name", rid
                            )
                        },
                        "discussions": discussions,
                    }
                )
            return {"now": iso(self.clock.now()), "repositories": repos}

    # ----------------------------------------------------------------- entry
    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """Answer one HTTP request. Never raises for client mistakes."""
        req = _Request(
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
            hooked: Reply | None = hooks.route(self, req, route)  # webhook deliveries
            if hooked is not None:
                return hooked
            if route.startswith("/_emulator/"):
                return self._admin(req, route)
            if route == "/graphql":
                if req.method != "POST":
                    return self._json(req, 404, gh.rest_body("Not Found", 404))
                return self._graphql(req)
            return self._rest(req, route)
        except Exception as exc:  # a defect in the emulator: answer like GitHub's 500
            logger.exception("emulator defect while answering %s %s", req.method, req.path)
            defect = {"message": "Server Error", "emulator": f"{type(exc).__name__}: {exc}"}
            return self._log_request(req, self._json(req, 500, defect), None, "error")

    # ---------------------------------------------------------------- helpers
    def _request_id(self) -> str:
        n = next(self._ids)
        return f"EMU0:{n:04X}:{n * 7919 % 0xFFFFFF:06X}:{n * 104729 % 0xFFFFFF:06X}:{n:08X}"

    def _headers(
        self, req: _Request, extra: Mapping[str, str] | None = None, resource: str | None = None
    ) -> tuple[tuple[str, str], ...]:
        out = [
            ("content-type", "application/json; charset=utf-8"),
            ("date", email.utils.formatdate(self.clock.now(), usegmt=True)),
            ("x-github-request-id", req.request_id),
            ("x-github-media-type", "github.v4; format=json"),
        ]
        if req.token is not None and resource is not None:
            budget = self._budget(req.token, resource)
            limit = int(req.token["rate_limit"])
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
        req: _Request,
        status: int,
        body: bytes | Any,
        extra: Mapping[str, str] | None = None,
        resource: str | None = None,
    ) -> Reply:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return Reply(status, self._headers(req, extra, resource), raw)

    def _budget(self, token: Any, resource: str = "graphql") -> _Budget:
        """The token's hourly window for ``resource`` (``graphql`` or ``core``)."""
        key = f"{resource}:{token['token']}"
        now = self.clock.now()
        with self._budget_lock:
            budget = self._budgets.get(key)
            if budget is None or now >= budget.window_start + 3600:
                budget = _Budget(now)
                self._budgets[key] = budget
            return budget

    def _authenticate(self, req: _Request) -> Reply | None:
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
        req: _Request,
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
        )
        with self._log_lock:
            self._log.append(entry)
        return reply

    def _failure(self, req: _Request, rule: FaultRule) -> Reply:
        if rule.drop:
            return Reply(0, (), b"", drop=True)
        if rule.status == 504:
            return self._json(req, 504, gh.gateway_timeout_body())
        return self._json(req, 502, gh.bad_gateway_body(req.request_id))

    def _pre_faults(self, req: _Request, names: frozenset[str], remaining: int) -> Reply | None:
        """Faults that act before anything runs; None when the request proceeds."""
        req.faults = self.faults.fire(names, tuple(KIND_ORDER))
        for rule in req.faults:
            if rule.kind == "latency" and not rule.after_commit:
                time.sleep(rule.latency_ms / 1000)
        for rule in req.faults:
            if rule.kind == "fail":
                return self._failure(req, rule)
            if rule.kind == "secondary_rate_limit":
                return self._json(
                    req,
                    403,
                    gh.secondary_limit_body(req.request_id),
                    {"retry-after": str(rule.retry_after)},
                    resource="graphql" if "graphql" in names else "core",
                )
            if rule.kind == "primary_rate_limit":
                left = remaining if rule.remaining is None else rule.remaining
                return self._rate_limited(req, left)
        return None

    def _rate_limited(self, req: _Request, remaining: int) -> Reply:
        """GitHub's primary-limit answer for GraphQL: HTTP 200, ``RATE_LIMITED``; the
        first refusal in a window says "exceeded", later ones "already exceeded"."""
        budget = self._budget(req.token)
        again = "already " if budget.refused else ""
        budget.refused = True
        who = (
            f"installation ID {req.token['installation_id'] or req.viewer['id']}"
            if req.viewer["kind"] == "Bot"
            else f"user ID {req.viewer['id']}"
        )
        message = f"API rate limit {again}exceeded for {who}."
        body = {"errors": [{"type": "RATE_LIMITED", "message": message}]}
        return self._json(
            req,
            200,
            body,
            {"x-ratelimit-remaining": str(remaining)},
            resource="graphql",
        )

    def _after_commit(self, req: _Request, ctx: Ctx) -> None:
        """Read lag and another actor's edit/delete/minimize of what the request made."""
        if not ctx.created:
            return
        for rule in req.faults:
            if rule.kind == "read_lag":
                self._lag(ctx.created, rule.lag_ms)
            elif rule.kind in ("edit", "delete", "minimize"):
                typename, ident = ctx.created[-1]
                if typename == "Discussion" and rule.kind != "edit":
                    continue
                self._tamper_row(rule.kind, typename, ident, rule.body)

    def _post_faults(self, req: _Request) -> Reply | None:
        """Latency after commit, then a lost response; None to answer normally."""
        for rule in req.faults:
            if rule.kind == "latency" and rule.after_commit:
                time.sleep(rule.latency_ms / 1000)
        for rule in req.faults:
            if rule.kind == "lose_response":
                return self._failure(req, rule)
        return None

    def _lag(self, created: list[tuple[str, int]], lag_ms: int) -> None:
        table = {"DiscussionComment": "comments", "Discussion": "discussions"}
        with self.state.transaction() as db:
            for typename, ident in created:
                if typename in table:
                    db.execute(
                        f"UPDATE {table[typename]} SET visible_at = visible_at + ? WHERE id = ?",  # noqa: S608
                        (lag_ms / 1000, ident),
                    )

    # ---------------------------------------------------------------- graphql
    def _graphql(self, req: _Request) -> Reply:
        denied = self._authenticate(req)
        if denied is not None:
            return self._log_request(req, denied, None, "graphql")
        try:
            payload = json.loads(req.body or b"null")
        except (ValueError, UnicodeDecodeError):
            payload = None
        if not isinstance(payload, dict) or not isinstance(payload.get("query"), str):
            reply = self._json(
                req, 400, gh.rest_body("Problems parsing JSON", 400), resource="graphql"
            )
            return self._log_request(req, reply, None, "graphql")
        variables = payload.get("variables") or {}
        op_name = payload.get("operationName")
        if not isinstance(variables, dict):
            reply = self._json(
                req,
                200,
                {"errors": [{"message": "Variables must be an object"}]},
                resource="graphql",
            )
            return self._log_request(req, reply, None, "graphql")
        document, refusal = _prepare(payload["query"])
        if document is None:
            reply = self._json(req, 200, {"errors": refusal}, resource="graphql")
            return self._log_request(req, reply, None, "graphql")
        operation, fragments, error = _operation(document, op_name)
        if operation is None:
            reply = self._json(req, 200, {"errors": [{"message": error}]}, resource="graphql")
            return self._log_request(req, reply, None, "graphql")
        name = operation.name.value if operation.name else None
        kind = operation.operation.value
        coerced = get_variable_values(self.schema, operation.variable_definitions or (), variables)
        if isinstance(coerced, list):
            types = {
                d.variable.name.value: print_ast(d.type)
                for d in operation.variable_definitions or ()
            }
            errs = [_variable_error(e, types) for e in coerced]
            reply = self._json(req, 200, {"errors": errs}, resource="graphql")
            return self._log_request(req, reply, name, kind)
        analysis = analyze(self.schema, operation, fragments, coerced.coerced)
        names = frozenset({"graphql", kind, *analysis.root_fields, *([name] if name else [])})
        budget = self._budget(req.token)
        limit = int(req.token["rate_limit"])
        refused = self._pre_faults(req, names, max(0, limit - budget.used))
        if refused is not None:
            return self._log_request(req, refused, name, kind, analysis.root_fields)
        if analysis.errors:
            reply = self._json(req, 200, {"errors": list(analysis.errors)}, resource="graphql")
            return self._log_request(req, reply, name, kind, analysis.root_fields)
        refused = self._secondary_limit(
            req,
            5 if kind == "mutation" else 1,
            sum(1 for r in analysis.root_fields if r in CONTENT_CREATING),
        )
        if refused is not None:
            return self._log_request(req, refused, name, kind, analysis.root_fields)
        with self.state.lock:
            budget = self._budget(req.token)
            if budget.used + analysis.cost > limit:
                reply = self._rate_limited(req, max(0, limit - budget.used))
                return self._log_request(req, reply, name, kind, analysis.root_fields)
            budget.used += analysis.cost
            ctx = Ctx(
                state=self.state,
                now=self.clock.now(),
                token=req.token,
                viewer=req.viewer,
                server_url=self.server_url,
                rate=RateInfo(
                    limit=limit,
                    remaining=limit - budget.used,
                    used=budget.used,
                    reset_at=budget.window_start + 3600,
                    cost=analysis.cost,
                    node_count=analysis.node_count,
                ),
            )
            root = MutationRoot() if kind == "mutation" else QueryRoot()
            runs = 2 if kind == "mutation" and any(r.kind == "duplicate" for r in req.faults) else 1
            body: dict[str, Any] = {}
            for _ in range(runs):
                result = execute(
                    self.schema,
                    document,
                    root_value=root,
                    context_value=ctx,
                    variable_values=variables,
                    operation_name=op_name,
                )
                assert isinstance(result, ExecutionResult)
                body = _format_result(result)
            self._after_commit(req, ctx)  # still under the lock: no reader sees a gap
        lost = self._post_faults(req)
        reply = lost if lost is not None else self._json(req, 200, body, resource="graphql")
        return self._log_request(req, reply, name, kind, analysis.root_fields, analysis.cost)

    def _secondary_limit(
        self, req: _Request, points: int, creating: int, resource: str = "graphql"
    ) -> Reply | None:
        """GitHub's secondary limits, per actor: points a minute (GraphQL: a query 1,
        a mutation 5, ``points_per_minute``; REST: a read 1, a write 5,
        ``rest_points_per_minute``) and content creation shared by both
        (``content_per_minute``, ``content_per_hour``). Over any: HTTP 403 with
        ``retry-after``; nothing runs. Source: GitHub docs, "Rate limits for the REST
        API" and "... for the GraphQL API", secondary rate limits."""
        limit = self.points_per_minute if resource == "graphql" else self.rest_points_per_minute
        key = str(req.viewer["id"])
        now = self.clock.now()
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
            {"retry-after": str(max(1, int(wait + 0.999)))},
            resource=resource,
        )

    # ------------------------------------------------------------------- REST
    def _app_route(self, req: _Request, parts: list[str]) -> Reply | None:
        """Routes that take an App's JWT instead of a token; None for other routes."""
        is_app = parts[:1] == ["app"] and (
            (parts == ["app"] and req.method == "GET")
            or (
                len(parts) == 4
                and parts[1] == "installations"
                and parts[3] == "access_tokens"
                and req.method == "POST"
            )
        )
        is_repo_installation = (
            len(parts) == 4 and parts[0] == "repos" and parts[3] == "installation"
        )
        if not (is_app or is_repo_installation):
            return None
        scheme, _, credential = req.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not credential.strip():
            reply = self._json(req, 401, gh.REQUIRES_AUTH)
            return self._log_request(req, reply, None, "rest")
        app, refusal = apps.verify_jwt(self.state, credential.strip(), self.clock.now())
        if app is None:
            return self._log_request(req, self._json(req, *refusal), None, "rest")
        if parts == ["app"]:
            status, body = 200, apps.app_json(self.state, app, self.server_url)
            name = "apps/get-authenticated"
        elif is_repo_installation:
            found = apps.installation_for(self.state, app)
            repo = self.state.repository_by_name(parts[1], parts[2])
            if found is None or repo is None:
                status, body = 404, json.loads(gh.rest_body("Not Found", 404))
            else:
                status, body = 200, found
            name = "apps/get-repo-installation"
        else:
            try:
                installation_id = int(parts[2])
            except ValueError:
                installation_id = -1
            status, body = apps.create_installation_token(
                self.state, app, installation_id, req.body, self.clock.now()
            )
            name = "apps/create-installation-access-token"
        return self._log_request(req, self._json(req, status, body), name, "rest")

    def _rest(self, req: _Request, route: str) -> Reply:
        parts = [p for p in route.split("/") if p]
        answered = self._app_route(req, parts)
        if answered is not None:
            return answered
        denied = self._authenticate(req)
        if denied is not None:
            return self._log_request(req, denied, None, "rest")
        if parts == ["rate_limit"] and req.method == "GET":
            return self._log_request(req, self._rate_limit_rest(req), "rate-limit/get", "rest")
        if len(parts) >= 3 and parts[0] == "repos":
            repo = self.state.repository_by_name(parts[1], parts[2])
            if repo is None or (repo["private"] and req.token["role"] == "none"):
                return self._log_request(
                    req,
                    self._json(req, 404, gh.rest_body("Not Found", 404), resource="core"),
                    None,
                    "rest",
                )
            rest = parts[3:]
            if rest == [] and req.method == "GET":
                return self._rest_op(req, "repos/get", lambda: self._repo_json(repo))
            if rest == ["git", "commits"] and req.method == "POST":
                return self._rest_op(
                    req, "git/create-commit", lambda: self._create_commit(req, repo)
                )
            if len(rest) == 3 and rest[:2] == ["git", "commits"] and req.method == "GET":
                return self._rest_op(req, "git/get-commit", lambda: self._get_commit(repo, rest[2]))
            if len(rest) >= 2 and rest[0] == "contents" and req.method == "GET":
                path = "/".join(rest[1:])
                return self._rest_op(
                    req, "repos/get-content", lambda: self._contents(req, repo, path)
                )
            if len(rest) == 3 and rest[:2] == ["actions", "runs"] and req.method == "GET":
                return self._rest_op(
                    req, "actions/get-workflow-run", lambda: self._workflow_run(repo, rest[2])
                )
            if rest == ["check-runs"] and req.method == "POST":
                return self._rest_op(
                    req, "checks/create", lambda: self._create_check_run(req, repo)
                )
            if (
                len(rest) == 3
                and rest[0] == "commits"
                and rest[2] == "check-runs"
                and req.method == "GET"
            ):
                return self._rest_op(
                    req, "checks/list-for-ref", lambda: self._list_check_runs(repo, rest[1])
                )
            if len(rest) >= 3 and rest[:2] == ["git", "ref"] and req.method == "GET":
                name = "refs/" + "/".join(rest[2:])
                return self._rest_op(req, "git/get-ref", lambda: self._get_ref(repo, name))
            if rest == ["git", "refs"] and req.method == "POST":
                return self._rest_op(
                    req, "git/create-ref", lambda: self._write_ref(req, repo, None)
                )
            if len(rest) >= 3 and rest[:2] == ["git", "refs"] and req.method in ("PATCH", "DELETE"):
                name = "refs/" + "/".join(rest[2:])
                op = "git/update-ref" if req.method == "PATCH" else "git/delete-ref"
                return self._rest_op(req, op, lambda: self._write_ref(req, repo, name))
        reply = self._json(req, 404, gh.rest_body("Not Found", 404), resource="core")
        return self._log_request(req, reply, None, "rest")

    def _rest_op(self, req: _Request, name: str, run: Any) -> Reply:
        names = frozenset({"rest", name})
        budget = self._budget(req.token, "core")
        refused = self._pre_faults(req, names, max(0, int(req.token["rate_limit"]) - budget.used))
        if refused is not None:
            if refused.status == 200:  # a primary limit on REST is a 403
                refused = self._json(
                    req,
                    403,
                    gh.rest_body(f"API rate limit exceeded for user ID {req.viewer['id']}.", 403),
                    {"x-ratelimit-remaining": "0"},
                    resource="core",
                )
            return self._log_request(req, refused, name, "rest")
        writing = req.method != "GET"
        refused = self._secondary_limit(
            req, 5 if writing else 1, int(name in REST_CONTENT_CREATING), "core"
        )
        if refused is not None:
            return self._log_request(req, refused, name, "rest")
        with self.state.lock:
            if budget.used + 1 > int(req.token["rate_limit"]):
                refused = self._json(
                    req,
                    403,
                    gh.rest_body(f"API rate limit exceeded for user ID {req.viewer['id']}.", 403),
                    resource="core",
                )
                return self._log_request(req, refused, name, "rest")
            budget.used += 1
            status, body = run()
        lost = self._post_faults(req)
        reply = lost if lost is not None else self._json(req, status, body, resource="core")
        return self._log_request(req, reply, name, "rest", cost=1)

    def _repo_json(self, repo: Any) -> tuple[int, Any]:
        owner = self.state.actor(int(repo["owner_id"]))
        assert owner is not None
        full = f"{owner['login']}/{repo['name']}"
        return 200, {
            "id": repo["id"],
            "node_id": node_id("Repository", int(repo["id"])),
            "name": repo["name"],
            "full_name": full,
            "private": bool(repo["private"]),
            "owner": {
                "login": owner["login"],
                "id": owner["id"],
                "node_id": node_id(str(owner["kind"]), int(owner["id"])),
                "type": owner["kind"],
            },
            "html_url": f"{self.server_url}/{full}",
            "url": f"{self.api_url}/repos/{full}",
            "default_branch": repo["default_branch"],
            "has_discussions": bool(repo["has_discussions"]),
        }

    def _commit_json(self, repo: Any, row: Any) -> dict[str, Any]:
        owner = self.state.actor(int(repo["owner_id"]))
        assert owner is not None
        full = f"{owner['login']}/{repo['name']}"
        api = f"{self.api_url}/repos/{full}/git/commits"

        def person(sig: list[Any]) -> dict[str, Any]:
            return {"name": sig[0], "email": sig[1], "date": iso(float(sig[2]))}

        return {
            "sha": row["oid"],
            "node_id": node_id("Commit", int(repo["id"]), bytes.fromhex(row["oid"])),
            "url": f"{api}/{row['oid']}",
            "html_url": f"{self.server_url}/{full}/commit/{row['oid']}",
            "author": person(json.loads(row["author"])),
            "committer": person(json.loads(row["committer"])),
            "tree": {
                "sha": row["tree"],
                "url": f"{self.api_url}/repos/{full}/git/trees/{row['tree']}",
            },
            "message": row["message"],
            "parents": [
                {"sha": p, "url": f"{api}/{p}", "html_url": f"{self.server_url}/{full}/commit/{p}"}
                for p in json.loads(row["parents"])
            ],
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            },
        }

    def _get_commit(self, repo: Any, sha: str) -> tuple[int, Any]:
        row = self.state.commit(int(repo["id"]), sha.lower())
        if row is None:
            return 404, json.loads(gh.rest_body("Not Found", 404))
        return 200, self._commit_json(repo, row)

    def _create_commit(self, req: _Request, repo: Any) -> tuple[int, Any]:
        """``POST /repos/{o}/{r}/git/commits``: message, tree, parents (and optional
        author/committer); answers 201 with the commit, or 422/403 as GitHub does."""
        if req.token["contents"] != "write" or req.token["role"] not in (
            "write",
            "maintain",
            "admin",
        ):
            kind = "integration" if req.viewer["kind"] == "Bot" else "personal access token"
            return 403, json.loads(gh.rest_body(f"Resource not accessible by {kind}", 403))
        try:
            data = json.loads(req.body or b"null")
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict):
            return 400, json.loads(gh.rest_body("Problems parsing JSON", 400))
        for key in ("message", "tree"):
            if not isinstance(data.get(key), str):
                return 422, json.loads(
                    gh.rest_body(f'Invalid request.\n\n"{key}" wasn\'t supplied.', 422)
                )
        parents = data.get("parents", [])
        if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
            return 422, json.loads(
                gh.rest_body(
                    "Invalid request.\n\nFor 'properties/parents', not an array of strings.", 422
                )
            )
        rid = int(repo["id"])
        if self.state.tree(rid, data["tree"]) is None:
            return 422, json.loads(gh.rest_body("Tree SHA does not exist", 422))
        for p in parents:
            if self.state.commit(rid, p) is None:
                return 422, json.loads(
                    gh.rest_body("Parent SHA does not exist or is not a commit object", 422)
                )
        login = str(req.viewer["login"]) + ("[bot]" if req.viewer["kind"] == "Bot" else "")
        now = int(self.clock.now())
        default = (login, f"{req.viewer['id']}+{login}@users.noreply.github.com", now)

        def sig(value: Any) -> tuple[str, str, int]:
            if not isinstance(value, dict):
                return default
            when = value.get("date")
            ts = now
            if isinstance(when, str):
                try:
                    ts = int(email.utils.parsedate_to_datetime(when).timestamp())
                except (TypeError, ValueError):
                    try:
                        from datetime import datetime

                        ts = int(datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp())
                    except ValueError:
                        ts = now
            return (str(value.get("name", default[0])), str(value.get("email", default[1])), ts)

        author = sig(data.get("author"))
        committer = sig(data.get("committer")) if data.get("committer") else author
        oid = self.state.add_commit(rid, data["tree"], parents, data["message"], author, committer)
        row = self.state.commit(rid, oid)
        return 201, self._commit_json(repo, row)

    def _ref_json(self, repo: Any, name: str, oid: str) -> dict[str, Any]:
        owner = self.state.actor(int(repo["owner_id"]))
        assert owner is not None
        base = f"{self.api_url}/repos/{owner['login']}/{repo['name']}/git"
        return {
            "ref": name,
            "node_id": node_id("Ref", int(repo["id"]), name),
            "url": f"{base}/{name}",
            "object": {"sha": oid, "type": "commit", "url": f"{base}/commits/{oid}"},
        }

    def _get_ref(self, repo: Any, name: str) -> tuple[int, Any]:
        """``GET /repos/{o}/{r}/git/ref/{ref}``: one ref by its full name."""
        row = self.state.ref(int(repo["id"]), name)
        if row is None:
            return 404, json.loads(gh.rest_body("Not Found", 404))
        return 200, self._ref_json(repo, name, str(row["oid"]))

    def _write_ref(self, req: _Request, repo: Any, name: str | None) -> tuple[int, Any]:
        """``POST .../git/refs`` (``ref``, ``sha``), ``PATCH .../git/refs/{ref}``
        (``sha``, ``force``: a non-fast-forward needs it) and ``DELETE``. REST has no
        compare-and-set; use GraphQL ``updateRefs`` with ``beforeOid`` for that."""
        if req.token["contents"] != "write" or req.token["role"] not in (
            "write",
            "maintain",
            "admin",
        ):
            kind = "integration" if req.viewer["kind"] == "Bot" else "personal access token"
            return 403, json.loads(gh.rest_body(f"Resource not accessible by {kind}", 403))
        rid = int(repo["id"])
        if req.method == "DELETE":
            assert name is not None
            if self.state.ref(rid, name) is None:
                return 422, json.loads(gh.rest_body("Reference does not exist", 422))
            self.state.set_ref(rid, name, None)
            return 204, b""
        try:
            data = json.loads(req.body or b"null")
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("sha"), str):
            return 422, json.loads(gh.rest_body('Invalid request.\n\n"sha" wasn\'t supplied.', 422))
        sha = str(data["sha"])
        if self.state.commit(rid, sha) is None:
            return 422, json.loads(gh.rest_body("Object does not exist", 422))
        if name is None:
            ref = data.get("ref")
            if not isinstance(ref, str) or not ref.startswith("refs/") or ref.count("/") < 2:
                return 422, json.loads(gh.rest_body("Reference name must start with 'refs/'", 422))
            if self.state.ref(rid, ref) is not None:
                return 422, json.loads(gh.rest_body("Reference already exists", 422))
            self.state.set_ref(rid, ref, sha)
            return 201, self._ref_json(repo, ref, sha)
        current = self.state.ref(rid, name)
        if current is None:
            return 422, json.loads(gh.rest_body("Reference does not exist", 422))
        if not data.get("force") and not self.state.is_ancestor(rid, str(current["oid"]), sha):
            return 422, json.loads(gh.rest_body("Update is not a fast forward", 422))
        self.state.set_ref(rid, name, sha)
        return 200, self._ref_json(repo, name, sha)

    # ------------------------------------------------------- apps and checks
    def add_workflow_run(self, repository: str, run_id: int, path: str, name: str,
                         head_sha: str) -> None:
        """Register a workflow run (``GET /repos/{o}/{r}/actions/runs/{id}`` answers it;
        the emulator runs no workflows). ``repository`` is ``owner/name``."""
        owner, _, repo_name = repository.partition("/")
        repo = self.state.repository_by_name(owner, repo_name)
        if repo is None:
            raise ValueError(f"unknown repository {repository!r}")
        self._runs[(int(repo["id"]), int(run_id))] = {
            "id": int(run_id), "name": name, "path": path, "head_sha": head_sha,
            "status": "completed"}

    def _workflow_run(self, repo: Any, run_id: str) -> tuple[int, Any]:
        run = self._runs.get((int(repo["id"]), int(run_id))) if run_id.isdigit() else None
        if run is None:
            return 404, json.loads(gh.rest_body("Not Found", 404))
        return 200, dict(run)

    def _commit_for(self, repo: Any, ref: str) -> Any:
        rid = int(repo["id"])
        if re.fullmatch(r"[0-9a-f]{40}", ref):
            return self.state.commit(rid, ref)
        for name in (ref, f"refs/heads/{ref}", f"refs/tags/{ref}"):
            row = self.state.ref(rid, name) if name.startswith("refs/") else None
            if row is not None:
                return self.state.commit(rid, str(row["oid"]))
        return None

    def _contents(self, req: _Request, repo: Any, path: str) -> tuple[int, Any]:
        """``GET /repos/{o}/{r}/contents/{path}?ref=``: one file of a commit's tree
        (base64 ``content``, ``sha`` = the git blob oid); 404 when absent."""
        from urllib.parse import parse_qs

        ref = (parse_qs(req.query).get("ref") or [str(repo["default_branch"])])[0]
        commit = self._commit_for(repo, ref)
        tree = self.state.tree(int(repo["id"]), str(commit["tree"])) if commit else None
        files = json.loads(tree["files"]) if tree is not None else {}
        if path not in files:
            return 404, json.loads(gh.rest_body("Not Found", 404))
        import base64

        data = base64.b64decode(files[path])
        return 200, {
            "type": "file", "encoding": "base64", "size": len(data),
            "name": path.rsplit("/", 1)[-1], "path": path,
            "content": base64.encodebytes(data).decode("ascii"),
            "sha": git.blob_id(data),
        }

    def _create_check_run(self, req: _Request, repo: Any) -> tuple[int, Any]:
        """``POST /repos/{o}/{r}/check-runs`` (``name``, ``head_sha``, ``status``,
        ``conclusion``, ``output``); kept in memory, listed per commit."""
        try:
            data = json.loads(req.body or b"null")
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict) or not all(
            isinstance(data.get(k), str) for k in ("name", "head_sha")
        ):
            return 422, json.loads(gh.rest_body("Invalid request.", 422))
        if self.state.commit(int(repo["id"]), data["head_sha"]) is None:
            return 422, json.loads(gh.rest_body("No commit found for SHA", 422))
        with self.state.lock:
            run = {"id": len(self._check_runs) + 1, "repo_id": int(repo["id"]),
                   "name": data["name"], "head_sha": data["head_sha"],
                   "status": data.get("status", "queued"),
                   "conclusion": data.get("conclusion"),
                   "output": data.get("output") or {},
                   "external_id": data.get("external_id") or "",
                   "app": {"slug": str(req.viewer["login"])}}
            self._check_runs.append(run)
        return 201, {k: v for k, v in run.items() if k != "repo_id"}

    def _list_check_runs(self, repo: Any, ref: str) -> tuple[int, Any]:
        commit = self._commit_for(repo, ref)
        sha = str(commit["oid"]) if commit is not None else ref
        with self.state.lock:
            runs = [{k: v for k, v in r.items() if k != "repo_id"} for r in self._check_runs
                    if r["repo_id"] == int(repo["id"]) and r["head_sha"] == sha]
        return 200, {"total_count": len(runs), "check_runs": runs}

    def _rate_limit_rest(self, req: _Request) -> Reply:
        """``GET /rate_limit``: both windows; the request itself costs nothing."""
        limit = int(req.token["rate_limit"])
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

    # ------------------------------------------------------------------ admin
    def _admin(self, req: _Request, route: str) -> Reply:
        try:
            data = json.loads(req.body) if req.body else {}
        except ValueError:
            return self._json(req, 400, {"message": "body is not JSON"})
        try:
            if route == "/_emulator/faults":
                if req.method == "GET":
                    return self._json(req, 200, {"rules": self.faults.describe()})
                if req.method == "DELETE":
                    self.clear_faults()
                    return self._json(req, 200, {"rules": []})
                if req.method == "POST":
                    rules = data.get("rules", [data]) if isinstance(data, dict) else data
                    ids = [self.add_fault(dict(r)) for r in rules]
                    return self._json(req, 201, {"ids": ids})
            if route.startswith("/_emulator/faults/") and req.method == "DELETE":
                self.remove_fault(int(route.rsplit("/", 1)[1]))
                return self._json(req, 200, {"rules": self.faults.describe()})
            if route == "/_emulator/state" and req.method == "GET":
                return self._json(req, 200, self.snapshot())
            if route == "/_emulator/requests":
                if req.method == "DELETE":
                    self.clear_request_log()
                    return self._json(req, 200, {"requests": []})
                return self._json(req, 200, {"requests": self.request_log()})
            if route == "/_emulator/clock" and req.method == "POST":
                self.clock.advance(float(data.get("advance", 0)))
                return self._json(req, 200, {"now": iso(self.clock.now())})
            if route == "/_emulator/tokens" and req.method == "POST":
                self.add_token(
                    str(data["token"]),
                    str(data["actor"]),
                    str(data.get("role", "write")),
                    discussions=str(data.get("discussions", "write")),
                    contents=str(data.get("contents", "write")),
                    rate_limit=int(data.get("rate_limit", 5000)),
                    kind=str(data.get("kind", "User")),
                )
                return self._json(req, 201, {"ok": True})
            if route == "/_emulator/runs" and req.method == "POST":
                self.add_workflow_run(str(data["repository"]), int(data["run_id"]),
                                      str(data["path"]), str(data.get("name", "")),
                                      str(data.get("head_sha", "")))
                return self._json(req, 201, {"ok": True})
            if route == "/_emulator/rename" and req.method == "POST":
                self.rename_repository(str(data["repository"]), str(data["name"]))
                return self._json(req, 200, {"ok": True})
            if route == "/_emulator/tamper" and req.method == "POST":
                self.tamper(
                    str(data["action"]),
                    str(data["node"]),
                    str(data.get("actor", "ghost")),
                    data.get("body"),
                )
                return self._json(req, 200, {"ok": True})
        except (ValueError, TypeError, KeyError) as exc:
            return self._json(req, 400, {"message": f"bad admin request: {exc}"})
        return self._json(req, 404, {"message": f"no admin route {req.method} {route}"})


KIND_ORDER = (
    "latency",
    "fail",
    "secondary_rate_limit",
    "primary_rate_limit",
    "read_lag",
    "duplicate",
    "edit",
    "delete",
    "minimize",
    "lose_response",
)


def _operation(
    document: DocumentNode, name: str | None
) -> tuple[OperationDefinitionNode | None, dict[str, FragmentDefinitionNode], str]:
    ops = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    if name:
        for op in ops:
            if op.name and op.name.value == name:
                return op, fragments, ""
        return None, fragments, f'No operation named "{name}"'
    if len(ops) == 1:
        return ops[0], fragments, ""
    return None, fragments, "An operation name is required"


def _variable_error(error: GraphQLError, types: Mapping[str, str]) -> dict[str, Any]:
    """A variable coercion failure as GitHub words it (``Variable $x of type T was
    provided invalid value``, the detail under ``extensions.problems``)."""
    m = re.match(r"Variable '\$([^']+)'", error.message)
    if not m:
        return {"message": error.message}
    explanation = error.message.split(": ", 1)[-1] if ": " in error.message else error.message
    return {
        "extensions": {"value": None, "problems": [{"path": [], "explanation": explanation}]},
        "locations": [{"line": loc.line, "column": loc.column} for loc in error.locations or ()],
        "message": f"Variable ${m[1]} of type {types.get(m[1], '?')} was provided invalid value",
    }


def _format_result(result: ExecutionResult) -> dict[str, Any]:
    body: dict[str, Any] = {"data": result.data}
    if result.errors:
        errs = []
        for error in result.errors:
            original = error.original_error
            entry: dict[str, Any] = {}
            if isinstance(original, gh.GitHubError):
                if original.type is not None:
                    entry["type"] = original.type
                message = original.message
            elif original is not None:
                message = "Something went wrong while executing your query."
                entry["extensions"] = {"emulator": f"{type(original).__name__}: {original}"}
            else:
                message = error.message
            if error.path is not None:
                entry["path"] = list(error.path)
            entry["locations"] = [
                {"line": loc.line, "column": loc.column} for loc in error.locations or ()
            ]
            entry["message"] = message
            errs.append(entry)
        body["errors"] = errs
    return body


__all__ = ["Emulator", "Reply", "load_schema"]
