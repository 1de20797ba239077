# mypy: disable-error-code="misc"
# (each method types ``self`` as the Emulator it is mixed into: mypy cannot check a
# mixin's self type against the class that composes it)
"""``POST /graphql`` (and ``/api/graphql``): GraphQL over the schema subset.

Order of checks: authentication (401), JSON body, parse and validation (cached per
document text), variable coercion, fault rules that act before running, pagination
bounds and node limit, secondary limits (403), primary budget (``RATE_LIMITED``),
execution, fault rules that act after committing. Errors carry GitHub's shapes
(:mod:`.errors`, :mod:`.graphql_errors`)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphql import (
    DocumentNode,
    ExecutionResult,
    FieldNode,
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

from . import errors as gh
from . import hooks
from .cost import analyze
from .exchange import Reply, Request
from .graph import Ctx, RateInfo
from .graphql_errors import empty_selection, github_validation_errors, parse_error
from .limits import CONTENT_CREATING
from .resolvers import MutationRoot, QueryRoot

if TYPE_CHECKING:
    from .app import Emulator


SCHEMA_PATH = Path(__file__).with_name("schema.graphql")


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
            if isinstance(original, gh.ResolverError):
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


TOO_QUICKLY = "was submitted too quickly"
"""GitHub's anti-spam refusal of content creation (cli/cli#4801 quotes the whole error:
``{"type": "UNPROCESSABLE", "path": ["createIssue"], "locations": [...], "message": "was
submitted too quickly"}``)."""


def _too_quickly(operation: OperationDefinitionNode, creating: set[str],
                 data: Any) -> dict[str, Any]:
    """The answer to content-creating fields refused as "submitted too quickly": each
    such root field null, one ``UNPROCESSABLE`` error for it; other fields' data kept."""
    out = dict(data) if isinstance(data, dict) else {}
    errors = []
    for sel in operation.selection_set.selections:
        if isinstance(sel, FieldNode) and sel.name.value in creating:
            key = sel.alias.value if sel.alias else sel.name.value
            out[key] = None
            loc = sel.loc.source.get_location(sel.loc.start) if sel.loc else None
            errors.append({"type": "UNPROCESSABLE", "path": [key],
                           "locations": [{"line": loc.line, "column": loc.column}] if loc
                           else [], "message": TOO_QUICKLY})
    return {"data": out, "errors": errors}


class GraphQLEndpoint:
    """``POST /graphql``: parse, validate, cost, limit, execute, answer."""

    def _graphql(self: Emulator, req: Request) -> Reply:
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
        limit = self._limit(req.token)
        refused = self._pre_faults(req, names, max(0, limit - budget.used))
        if refused is not None:
            return self._log_request(req, refused, name, kind, analysis.root_fields)
        if analysis.errors:
            reply = self._json(req, 200, {"errors": list(analysis.errors)}, resource="graphql")
            return self._log_request(req, reply, name, kind, analysis.root_fields)
        creating = {r for r in analysis.root_fields if r in CONTENT_CREATING} \
            if kind == "mutation" else set()
        refused = self._secondary_limit(
            req,
            5 if kind == "mutation" else 1,
            sum(1 for r in analysis.root_fields if r in CONTENT_CREATING),
        )
        if refused is not None:
            return self._log_request(req, refused, name, kind, analysis.root_fields)
        too_quickly = self._submitted_too_quickly(req, names, bool(creating))
        if too_quickly is False:  # refused before anything runs
            reply = self._json(req, 200, _too_quickly(operation, creating, None),
                               resource="graphql")
            return self._log_request(req, reply, name, kind, analysis.root_fields)
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
                fidelity=self.fidelity,
                next_ids=req.headers.get("x-github-next-global-id", "").strip() == "1",
                passing=self._passing_checks,
                comment_cap=self.discussion_comments,
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
        if too_quickly:  # the write landed, the answer says it was refused
            body = _too_quickly(operation, creating, body.get("data"))
        req.refs_changed.extend(ctx.refs_changed)
        hooks.ref_events(self, req.refs_changed, req.viewer)
        lost = self._post_faults(req)
        reply = lost if lost is not None else self._json(req, 200, body, resource="graphql")
        return self._log_request(req, reply, name, kind, analysis.root_fields, analysis.cost)


def route(emu: Emulator, req: Request, path: str) -> Reply | None:
    """``POST /graphql`` (``/api/graphql`` arrives here as ``/graphql``); None otherwise."""
    if path != "/graphql":
        return None
    if req.method != "POST":
        return emu._json(req, 404, gh.rest_body("Not Found", 404))
    return emu._graphql(req)
