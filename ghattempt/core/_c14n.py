"""Canonical JSON and digests, c14n v1 (docs/journal-format.md section 3).

The canonical form of a value is the UTF-8 of
``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``.
Allowed values are objects with ASCII keys, strings, integers in
[-(2**53-1), 2**53-1], ``true``, ``false``, ``null`` and arrays; on that subset the form
equals RFC 8785 (JCS). ``digest(x)`` is ``"sha256:"`` + lowercase hex SHA-256 of it.
"""

from __future__ import annotations

import json
from hashlib import sha256

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_SAFE_INTEGER = 2**53 - 1
"""Largest integer magnitude an allowed value may have (section 3)."""

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_text(value: Any) -> str:
    """Return the canonical form of ``value`` as text (not yet UTF-8 encoded).

    Raises:
        TypeError: ``value`` holds something JSON cannot express.
        ValueError: ``value`` holds a float NaN or infinity.
    """
    return _ENCODER.encode(value)


def canonical(value: Any) -> bytes:
    """Return the canonical bytes of ``value`` (section 3).

    Raises:
        ValueError: ``value`` is outside the allowed subset (see ``allowed_problem``)
            or holds a string that is not valid Unicode (a lone surrogate).
        TypeError: ``value`` holds something JSON cannot express.
    """
    problem = allowed_problem(value)
    if problem is not None:
        raise ValueError(f"not an allowed c14n v1 value: {problem}")
    try:
        return canonical_text(value).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("a string holds a lone surrogate; it has no UTF-8 form") from exc


def digest_text(text: str) -> str:
    """Return ``"sha256:"`` + hex SHA-256 of the UTF-8 of an already canonical text.

    Raises:
        UnicodeEncodeError: ``text`` holds a lone surrogate.
    """
    return "sha256:" + sha256(text.encode("utf-8")).hexdigest()


def digest(value: Any) -> str:
    """Return the digest of ``value``: ``"sha256:"`` + 64 lowercase hex digits (section 3).

    Raises:
        ValueError: ``value`` is outside the allowed subset.
    """
    return "sha256:" + sha256(canonical(value)).hexdigest()


def allowed_problem(value: Any) -> str | None:
    """Return why ``value`` is outside the allowed c14n v1 subset, or None when inside.

    Floats (``1.0``, ``1e3``), non-ASCII object keys, integers beyond 2**53-1 in
    magnitude, and any type other than dict/list/str/int/bool/None are refused
    (section 3).
    """
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                return "an integer is beyond 2**53-1 in magnitude"
        elif kind is dict:
            for key in item:
                if type(key) is not str or not key.isascii():
                    return f"object key {str(key)[:40]!r} is not ASCII"
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            return f"number {item!r} is not an integer"
        else:
            return f"{kind.__name__} is not a JSON value"
    return None


def _reject_float(text: str) -> Any:
    raise ValueError(f"number {text[:40]} is not an integer")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


decode_json = json.JSONDecoder(parse_constant=_reject_constant).decode
"""Parse JSON text (stdin): like ``json.loads`` but ``NaN``/``Infinity`` are not JSON."""

decode_record = json.JSONDecoder(parse_float=_reject_float,
                                 parse_constant=_reject_constant).decode
"""Parse a record line: JSON syntax, and no number with a fraction or exponent, no
NaN/Infinity (section 3). Integer range and object keys are ``allowed_problem``'s;
whitespace around the value is left to the canonical-form check, which refuses it.

Raises ``ValueError`` (not JSON, a float) or ``RecursionError`` (nesting too deep)."""


def read_canonical(line: str) -> Any:
    """The value a line of canonical JSON holds, checked in section 3's order: JSON
    syntax (no floats, no NaN/Infinity), canonical form (the line is byte-equal to the
    canonical form of what it parses to), a UTF-8 form (no lone surrogate), allowed
    values. Records (``parse_line``) and lease records (``parse_lease``) are read so.

    Raises:
        ValueError: naming the first check that fails.
    """
    try:
        value = decode_record(line)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"the line is not JSON ({str(exc)[:80]})") from None
    try:
        canonical = canonical_text(value)
    except (ValueError, RecursionError):
        canonical = None
    if canonical != line:
        raise ValueError("the line is not in canonical form (c14n v1)")
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("the line holds a lone surrogate; it has no UTF-8 form") from None
    problem = allowed_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    canonical, digest,
):
    _exported.__module__ = "ghattempt.core"
del _exported
