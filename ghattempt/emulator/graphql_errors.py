"""Validation errors in the shape GitHub (graphql-ruby) returns them.

GitHub answers a document that fails validation with HTTP 200 and only ``errors``:
each has ``path`` (starting ``"query Name"``; inline fragments as ``"... on Type"``),
``extensions.code`` (``undefinedField``, ``missingRequiredArguments``,
``argumentNotAccepted``, ``variableNotUsed``, ``variableNotDefined``,
``variableMismatch``, ``useAndDefineFragment``, ``selectionMismatch``),
``locations`` and ``message`` ("Field 'x' doesn't exist on type 'Y'"). Source: responses
quoted in refined-github#6946 and sapling#906.
Messages the emulator has no GitHub wording for keep graphql-core's text.
"""

from __future__ import annotations

import re
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    Node,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
)


def _paths(document: DocumentNode) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}

    def walk(selection_set: SelectionSetNode | None, path: list[str]) -> None:
        if selection_set is None:
            return
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                here = [*path, sel.name.value]
                out[id(sel)] = here
                for arg in sel.arguments or ():
                    out[id(arg)] = [*here, arg.name.value]
                    if isinstance(arg.value, VariableNode):
                        out[id(arg.value)] = [*here, arg.name.value]
                walk(sel.selection_set, here)
            elif isinstance(sel, InlineFragmentNode):
                label = f"... on {sel.type_condition.name.value}" if sel.type_condition else "..."
                here = [*path, label]
                out[id(sel)] = here
                walk(sel.selection_set, here)
            elif isinstance(sel, FragmentSpreadNode):
                out[id(sel)] = [*path, f"... {sel.name.value}"]

    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            op = definition.operation.value
            label = f"{op} {definition.name.value}" if definition.name else op
            out[id(definition)] = [label]
            for var in definition.variable_definitions or ():
                out[id(var)] = [label]
            walk(definition.selection_set, [label])
        elif isinstance(definition, FragmentDefinitionNode):
            label = f"fragment {definition.name.value}"
            out[id(definition)] = [label]
            walk(definition.selection_set, [label])
    return out


_RULES: list[tuple[re.Pattern[str], Any]] = [
    (
        re.compile(r"^Cannot query field '([^']+)' on type '([^']+)'\."),
        lambda m: (
            f"Field '{m[1]}' doesn't exist on type '{m[2]}'",
            {"code": "undefinedField", "typeName": m[2], "fieldName": m[1]},
        ),
    ),
    (
        re.compile(r"^Argument '[^.']+\.([^(']+)\(([^:']+):\)' of type '[^']+' is required"),
        lambda m: (
            f"Field '{m[1]}' is missing required arguments: {m[2]}",
            {
                "code": "missingRequiredArguments",
                "className": "Field",
                "name": m[1],
                "arguments": m[2],
            },
        ),
    ),
    (
        re.compile(r"^Unknown argument '([^']+)' on field '(?:[^'.]+\.)?([^']+)'\."),
        lambda m: (
            f"Field '{m[2]}' doesn't accept argument '{m[1]}'",
            {
                "code": "argumentNotAccepted",
                "name": m[2],
                "typeName": "Field",
                "argumentName": m[1],
            },
        ),
    ),
    (
        re.compile(r"^Variable '\$([^']+)' is never used(?: in operation '([^']+)')?\."),
        lambda m: (
            f"Variable ${m[1]} is declared by {m[2] or 'anonymous query'} but not used",
            {"code": "variableNotUsed", "variableName": m[1]},
        ),
    ),
    (
        re.compile(r"^Variable '\$([^']+)' is not defined(?: by operation '([^']+)')?\."),
        lambda m: (
            f"Variable ${m[1]} is used by {m[2] or 'anonymous query'} but not declared",
            {"code": "variableNotDefined", "variableName": m[1]},
        ),
    ),
    (
        re.compile(r"^Fragment '([^']+)' is never used\."),
        lambda m: (
            f"Fragment {m[1]} was defined, but not used",
            {"code": "useAndDefineFragment", "fragmentName": m[1]},
        ),
    ),
    (
        re.compile(r"^Unknown fragment '([^']+)'\."),
        lambda m: (
            f"Fragment {m[1]} was used, but not defined",
            {"code": "useAndDefineFragment", "fragmentName": m[1]},
        ),
    ),
    (
        re.compile(r"^Field '([^']+)' of type '([^']+)' must have a selection of subfields\."),
        lambda m: (
            f"Field must have selections (field '{m[1]}' returns {m[2].strip('!')} but has "
            f"no selections. Did you mean '{m[1]} {{ ... }}'?)",
            {"code": "selectionMismatch", "nodeName": f"field '{m[1]}'", "typeName": m[2]},
        ),
    ),
]


_MISMATCH = re.compile(
    r"^Variable '\$([^']+)' of type '([^']+)' used in position expecting type '([^']+)'\."
)


def github_validation_errors(
    errors: list[GraphQLError], document: DocumentNode
) -> list[dict[str, Any]]:
    """graphql-core validation errors rewritten as GitHub's ``errors`` entries."""
    paths = _paths(document)
    out = []
    for error in errors:
        message = error.message
        extensions: dict[str, Any] | None = None
        for pattern, make in _RULES:
            m = pattern.match(message)
            if m:
                message, extensions = make(m)
                break
        entry: dict[str, Any] = {}
        nodes: list[Node] = list(error.nodes or ())
        path = paths.get(id(nodes[0])) if nodes else None
        mismatch = _MISMATCH.match(error.message)
        if mismatch and len(nodes) > 1 and id(nodes[1]) in paths:
            path = paths[id(nodes[1])]
            argument = path[-1]
            message = (
                f"Type mismatch on variable ${mismatch[1]} and argument {argument} "
                f"({mismatch[2]} / {mismatch[3]})"
            )
            extensions = {
                "code": "variableMismatch",
                "variableName": mismatch[1],
                "typeName": mismatch[2],
                "argumentName": argument,
                "errorMessage": "Type mismatch",
            }
        if path is not None:
            entry["path"] = path
        if extensions is not None:
            entry["extensions"] = extensions
        entry["locations"] = [
            {"line": loc.line, "column": loc.column} for loc in error.locations or ()
        ]
        entry["message"] = message
        out.append(entry)
    return out


_PUNCTUATORS = {
    "{": "LCURLY",
    "}": "RCURLY",
    "(": "LPAREN",
    ")": "RPAREN",
    "[": "LBRACKET",
    "]": "RBRACKET",
    ":": "COLON",
    "=": "EQUALS",
    "$": "VAR_SIGN",
    "!": "BANG",
    "@": "DIR_SIGN",
    "...": "ELLIPSIS",
    "|": "PIPE",
    "&": "AMP",
}
_KINDS = {"Name": "IDENTIFIER", "Int": "INT", "Float": "FLOAT", "String": "STRING"}
_TOKEN = re.compile(r"(?:found|Unexpected) (<EOF>|(Name|Int|Float|String) '(.*)'|'(.+)')\.$")


def parse_error(error: GraphQLError) -> dict[str, Any]:
    """A syntax error as graphql-ruby words it: ``Parse error on "}" (RCURLY) at
    [1, 18]``; a document that ends too early: ``Unexpected end of document``."""
    loc = error.locations[0] if error.locations else None
    m = _TOKEN.search(error.message)
    if m and m[1] == "<EOF>":
        return {"message": "Unexpected end of document", "locations": []}
    if m and m[2]:
        found = f'"{m[3]}" ({_KINDS[m[2]]})'
    elif m and m[4]:
        found = f'"{m[4]}" ({_PUNCTUATORS.get(m[4], "UNKNOWN_CHAR")})'
    else:
        found = error.message.removeprefix("Syntax Error: ").rstrip(".")
    where = f" at [{loc.line}, {loc.column}]" if loc else ""
    return {
        "message": f"Parse error on {found}{where}",
        "locations": [{"line": loc.line, "column": loc.column}] if loc else [],
    }


def empty_selection(document: DocumentNode) -> dict[str, Any] | None:
    """GitHub's parser refuses ``{ }``; graphql-core 3.3 parses it. The parse error
    for the first empty selection set, or None."""
    found: list[SelectionSetNode] = []

    def walk(selection_set: SelectionSetNode | None) -> None:
        if selection_set is None or found:
            return
        if not selection_set.selections:
            found.append(selection_set)
            return
        for sel in selection_set.selections:
            walk(getattr(sel, "selection_set", None))

    for definition in document.definitions:
        walk(getattr(definition, "selection_set", None))
    if not found or found[0].loc is None:
        return None
    loc = found[0].loc.source.get_location(found[0].loc.end - 1)
    return {
        "message": f'Parse error on "}}" (RCURLY) at [{loc.line}, {loc.column}]',
        "locations": [{"line": loc.line, "column": loc.column}],
    }
