"""Static analysis of a validated GraphQL document before it runs.

Implements GitHub's rules ("Rate limits and query limits for the GraphQL API"):

- the node limit is 500,000 (each connection's size times its parents' sizes);
- the primary cost of a query is the number of requests its connections need
  (each connection costs the product of its ancestor connections' sizes), divided
  by 100 and rounded to the nearest whole number, at least 1; a mutation costs 1.

Over the node limit the document is refused before it runs (``MAX_NODE_LIMIT_EXCEEDED``,
no ``data``). Page-size bounds are checked while executing (``resolvers.check_page_size``),
as GitHub does: the refused connection nulls its parent and the rest of the answer
stands. For cost, a missing or out-of-range size counts as 100.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    NullValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
    get_named_type,
)

MAX_PAGE = 100
MAX_NODES = 500_000


@dataclass(frozen=True, slots=True)
class Analysis:
    """Result of :func:`analyze`: ``errors`` is empty when the document may run."""

    cost: int
    node_count: int
    errors: tuple[dict[str, Any], ...]
    root_fields: tuple[str, ...]


def _value(node: Any, variables: dict[str, Any], defaults: dict[str, Any]) -> Any:
    if isinstance(node, IntValueNode):
        return int(node.value)
    if isinstance(node, NullValueNode) or node is None:
        return None
    if isinstance(node, VariableNode):
        name = node.name.value
        if name in variables:
            return variables[name]
        return defaults.get(name)
    return None


def analyze(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    fragments: dict[str, FragmentDefinitionNode],
    variables: dict[str, Any],
) -> Analysis:
    """Cost, node count and pagination errors of ``operation`` (already validated)."""
    defaults: dict[str, Any] = {}
    for definition in operation.variable_definitions or ():
        if definition.default_value is not None:
            defaults[definition.variable.name.value] = _value(definition.default_value, {}, {})
    errors: list[dict[str, Any]] = []
    requests = 0
    nodes = 0
    root_type = (
        schema.mutation_type if operation.operation.value == "mutation" else schema.query_type
    )
    assert root_type is not None
    roots: list[str] = []

    def walk(
        selection_set: SelectionSetNode | None,
        parent: GraphQLObjectType | GraphQLInterfaceType,
        multiplier: int,
        path: list[str],
        seen_fragments: frozenset[str],
    ) -> None:
        nonlocal requests, nodes
        if selection_set is None:
            return
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                name = sel.name.value
                if name.startswith("__"):
                    continue
                if parent is root_type:
                    roots.append(name)
                field = parent.fields.get(name)
                if field is None:  # validation already refused unknown fields
                    continue
                key = sel.alias.value if sel.alias else name
                ret = get_named_type(field.type)
                child_multiplier = multiplier
                if ret.name.endswith("Connection") and "first" in field.args:
                    args = {a.name.value: a.value for a in sel.arguments or ()}
                    first = _value(args.get("first"), variables, defaults)
                    last = _value(args.get("last"), variables, defaults)
                    # Bounds are enforced while executing (resolvers.check_page_size);
                    # here an out-of-range size only has to count plausibly.
                    size = first if first is not None else last
                    if not isinstance(size, int) or size < 1:
                        size = MAX_PAGE
                    size = min(size, MAX_PAGE)
                    requests += multiplier
                    child_multiplier = multiplier * size
                    nodes += child_multiplier
                if isinstance(ret, (GraphQLObjectType, GraphQLInterfaceType)):
                    walk(sel.selection_set, ret, child_multiplier, [*path, key], seen_fragments)
                elif sel.selection_set is not None:  # unions: walk each fragment
                    walk_abstract(sel.selection_set, child_multiplier, [*path, key], seen_fragments)
            elif isinstance(sel, InlineFragmentNode):
                cond = (
                    schema.get_type(sel.type_condition.name.value) if sel.type_condition else parent
                )
                if isinstance(cond, (GraphQLObjectType, GraphQLInterfaceType)):
                    walk(sel.selection_set, cond, multiplier, path, seen_fragments)
            elif isinstance(sel, FragmentSpreadNode):
                fname = sel.name.value
                fragment = fragments.get(fname)
                if fragment is None or fname in seen_fragments:
                    continue
                cond = schema.get_type(fragment.type_condition.name.value)
                if isinstance(cond, (GraphQLObjectType, GraphQLInterfaceType)):
                    walk(fragment.selection_set, cond, multiplier, path, seen_fragments | {fname})

    def walk_abstract(
        selection_set: SelectionSetNode, multiplier: int, path: list[str], seen: frozenset[str]
    ) -> None:
        for sel in selection_set.selections:
            if isinstance(sel, InlineFragmentNode) and sel.type_condition:
                cond = schema.get_type(sel.type_condition.name.value)
                if isinstance(cond, (GraphQLObjectType, GraphQLInterfaceType)):
                    walk(sel.selection_set, cond, multiplier, path, seen)
            elif isinstance(sel, FragmentSpreadNode):
                fragment = fragments.get(sel.name.value)
                if fragment is not None and sel.name.value not in seen:
                    cond = schema.get_type(fragment.type_condition.name.value)
                    if isinstance(cond, (GraphQLObjectType, GraphQLInterfaceType)):
                        walk(
                            fragment.selection_set, cond, multiplier, path, seen | {sel.name.value}
                        )

    walk(operation.selection_set, root_type, 1, [], frozenset())
    if nodes > MAX_NODES and not errors:
        errors.append(
            {
                "type": "MAX_NODE_LIMIT_EXCEEDED",
                "path": [],
                "locations": [],
                "message": (
                    f"This query requests up to {nodes:,} possible nodes which exceeds the "
                    f"maximum limit of {MAX_NODES:,}."
                ),
            }
        )
    if operation.operation.value == "mutation":
        cost = 1
    else:
        cost = max(1, math.floor(requests / 100 + 0.5))
    return Analysis(cost, nodes, tuple(errors), tuple(roots))
