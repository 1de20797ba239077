"""Canonical JSON and digests, c14n v1 (spec journal-v1, section 3).

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
    from collections.abc import Callable
    from typing import Any

MAX_SAFE_INTEGER = 2**53 - 1
"""Largest integer magnitude an allowed value may have (section 3)."""

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                            allow_nan=True, check_circular=False)
# The C accelerator behind json.dumps, called without its Python wrappers (same output).
_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_c_encode_basestring = getattr(json.encoder, "c_encode_basestring", None)
_encode: Callable[[Any], str]
_string: Callable[[str], str] = _c_encode_basestring or _ENCODER.encode
if _c_make_encoder is not None and _c_encode_basestring is not None:
    _chunks = _c_make_encoder(None, _ENCODER.default, _c_encode_basestring, None, ":", ",",
                              True, False, True)

    def _encode(value: Any) -> str:
        return "".join(_chunks(value, 0))
else:  # pragma: no cover -- interpreters without _json
    _encode = _ENCODER.encode


def canonical_text(value: Any) -> str:
    """Return the canonical form of ``value`` as text (not yet UTF-8 encoded).

    Raises:
        TypeError: ``value`` holds something JSON cannot express.
    """
    return _encode(value)


def canonical(value: Any) -> bytes:
    """Return the canonical bytes of ``value`` (section 3).

    Raises:
        ValueError: ``value`` is outside the allowed subset (see ``check_allowed``)
            or holds a string that is not valid Unicode (a lone surrogate).
        TypeError: ``value`` holds something JSON cannot express.
    """
    problem = allowed_problem(value)
    if problem is not None:
        raise ValueError(f"not an allowed c14n v1 value: {problem}")
    try:
        return _encode(value).encode("utf-8")
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
    pop = stack.pop
    push = stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                return f"integer {item} is beyond 2**53-1"
        elif kind is dict:
            for key in item:
                if type(key) is not str or not key.isascii():
                    return f"object key {key!r} is not ASCII"
            push(item.values())
        elif kind is list:
            push(item)
        elif kind is float:
            return f"number {item!r} is not an integer"
        else:
            return f"{kind.__name__} is not a JSON value"
    return None


def _reject_float(text: str) -> Any:
    raise ValueError(f"number {text} is not an integer")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


decode_json = json.JSONDecoder(parse_constant=_reject_constant).decode
"""Parse JSON text (stdin): like ``json.loads`` but ``NaN``/``Infinity`` are not JSON."""

_scan_record: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder(
    parse_float=_reject_float, parse_constant=_reject_constant).scan_once  # type: ignore[attr-defined]


def decode_record(line: str) -> Any:
    """Parse a record line: JSON syntax, and no number with a fraction or exponent, no
    NaN/Infinity. Integer range and object keys are left to ``allowed_problem`` (or to
    the record shapes, which bound every integer).

    The line must be exactly one JSON value: no whitespace around it either (a record
    line never has any; its canonical form has none). This calls the parser's scanner
    directly, without the whitespace handling of ``json.loads``.

    Raises:
        ValueError: not exactly one JSON value, or a float or NaN/Infinity in it.
        RecursionError: nesting deeper than the parser allows.
    """
    try:
        value, end = _scan_record(line, 0)
    except StopIteration as exc:
        raise ValueError(f"Expecting value: char {exc.value}") from None
    if end != len(line):
        raise ValueError(f"Extra data: char {end}")
    return value


def split_canonical(obj: dict[str, Any], text: str) -> str | None:
    """Check that ``text`` is the canonical form of ``obj``; return the canonical text of
    ``obj`` without its top-level ``"digest"`` member (what the digest covers), or None.

    ``obj`` must be what ``text`` parses to. One encoding of ``obj`` serves both checks:
    it must equal ``text`` (section 3), and the covered text is cut out of it. The cut
    is the first ``"digest":<value>`` when no ``{`` comes before it but the opening
    brace: a ``"`` inside a canonical string is escaped and a closing ``"`` is never
    followed by a letter, so the match is a key, and with no object opened before it, a
    key of the top-level object: the one ``digest`` member. Otherwise (an object, or a
    string holding ``{``, sorts before ``digest``) the rest is encoded again.
    """
    try:
        full = _encode(obj)
    except (ValueError, RecursionError):
        return None
    if full != text:
        return None
    if "digest" not in obj:
        return full
    value = obj["digest"]
    member = '"digest":' + (_string(value) if type(value) is str else _encode(value))
    start = full.find(member)
    if start > 0 and full.find("{", 1, start) < 0:
        end = start + len(member)
        if full[start - 1] == ",":  # a member before it
            return full[:start - 1] + full[end:]
        return "{" + full[end + 1:] if full[end] == "," else "{}"
    rest = dict(obj)
    del rest["digest"]
    return _encode(rest)
