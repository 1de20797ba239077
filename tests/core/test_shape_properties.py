"""Property: a sealed record whose patterned value breaks its spec pattern is refused.

docs/journal-format.md section 3 gives each value shape as a pattern that must match the whole
string (*digest* ``sha256:[0-9a-f]{64}``, *oid*, *key*, *time*); a record with another
value is ``bad_record``, checked before its digest. Here one character of one patterned
value of an attempt root, an event or a material is substituted, inserted or deleted,
the record is sealed again (so only the shape is wrong), and whenever the spec's own
pattern (Python ``re``, the independent oracle) no longer matches, the reader must say
``bad_record``. The replacement characters lean towards the ones that fool fast shape
checks (hex digits, the separators of the patterns, the letters of ``sha256``).
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ghattempt.core import canonical, digest
from ghattempt.core.testing import Scenario, block_body

DIGEST = r"sha256:[0-9a-f]{64}"
OID = r"[0-9a-f]{40}|[0-9a-f]{64}"
KEY = r"[A-Za-z0-9._:/@+=-]{1,128}"
TIME = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"

EVENT = {("intent",): DIGEST, ("attempt",): DIGEST, ("generation",): DIGEST,
         ("prev",): DIGEST, ("reader",): DIGEST, ("key",): KEY, ("at",): TIME,
         ("materials", 0, "id"): KEY, ("materials", 0, "digest"): DIGEST,
         ("materials", 0, "attempt"): DIGEST, ("materials", 0, "generation"): DIGEST}
REPO = r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}"
INTENT = {("repository", "name"): REPO}
ROOT = {("intent",): DIGEST, ("request_key",): KEY, ("authorization",): KEY,
        ("expires_at",): TIME, ("reader",): DIGEST, ("at",): TIME,
        ("generation", "source_commit"): OID, ("generation", "tree"): OID,
        ("generation", "config", "blob"): OID, ("generation", "config", "digest"): DIGEST,
        ("generation", "base", "commit"): OID}

TRICKY = "0123456789abcdefABCDEF:-TZ.sha256/@+= \t\n"
CHARS = st.one_of(st.sampled_from(TRICKY),
                  st.characters(blacklist_categories=("Cs",)))  # UTF-8 encodable


def _set(wire: dict[str, Any], path: tuple[Any, ...], value: str) -> None:
    node: Any = wire
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


def _get(wire: dict[str, Any], path: tuple[Any, ...]) -> Any:
    node: Any = wire
    for step in path:
        node = node[step]
    return node


def _sealed(wire: dict[str, Any]) -> str:
    wire.pop("digest")
    wire["digest"] = digest(wire)
    return canonical(wire).decode("utf-8")


@st.composite
def _mutation(draw: st.DrawFn, old: str, pattern: str) -> str:
    how = draw(st.sampled_from(("substitute", "insert", "delete")))
    at = draw(st.integers(0, len(old) - (0 if how == "insert" else 1)))
    if how == "delete":
        new = old[:at] + old[at + 1:]
    else:
        char = draw(CHARS)
        new = old[:at] + char + old[at + (1 if how == "substitute" else 0):]
    assume(re.fullmatch(pattern, new) is None)
    return new


SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.filter_too_much,
                                           HealthCheck.too_slow])


@SETTINGS
@given(st.sampled_from(sorted(EVENT, key=repr)), st.data())
def test_an_event_or_material_value_off_its_pattern_is_bad_record(
        path: tuple[Any, ...], data: st.DataObject) -> None:
    s = Scenario()
    a = s.attempt(plan=("admission", "build"))
    a.event("admission", "started")
    wire = a.build("admission", "succeeded", materials=[a.material("m")]).to_dict()
    old = _get(wire, path)
    _set(wire, path, data.draw(_mutation(old, EVENT[path])))
    a.post(block_body(_sealed(wire)))
    verdict = s.read()
    assert (verdict.status, verdict.reason) == ("invalid", "bad_record"), (
        path, _get(wire, path), verdict.detail)


@SETTINGS
@given(st.sampled_from(sorted(ROOT, key=repr)), st.data())
def test_an_attempt_root_value_off_its_pattern_is_bad_record(
        path: tuple[Any, ...], data: st.DataObject) -> None:
    s = Scenario()
    a = s.attempt(plan=("admission", "build"), authorization="auth-1", post=False)
    wire = a.record.to_dict()
    old = _get(wire, path)
    _set(wire, path, data.draw(_mutation(old, ROOT[path])))
    s.fixture.root(block_body(_sealed(wire)))
    verdict = s.read()
    assert (verdict.status, verdict.reason) == ("invalid", "bad_record"), (
        path, _get(wire, path), verdict.detail)


@SETTINGS
@given(st.sampled_from(sorted(INTENT, key=repr)), st.data())
def test_an_intent_value_off_its_pattern_is_bad_record(
        path: tuple[Any, ...], data: st.DataObject) -> None:
    s = Scenario()
    wire = s.intent.to_dict()
    old = _get(wire, path)
    _set(wire, path, data.draw(_mutation(old, INTENT[path])))
    s.fixture.body = block_body(_sealed(wire))
    verdict = s.read()
    assert (verdict.status, verdict.reason) == ("invalid", "bad_record"), (
        path, _get(wire, path), verdict.detail)


def test_the_two_shapes_released_readers_missed_are_among_the_cases() -> None:
    """The examples that first showed the gap, fixed as plain cases."""
    for path, value in ((("reader",), "sh0256:" + "a" * 64), (("at",), "2026-0d-01T00:00:00Z"),
                        (("materials", 0, "digest"), "sh1234:" + "f" * 64)):
        s = Scenario()
        a = s.attempt(plan=("admission",))
        a.event("admission", "started")
        wire = a.build("admission", "succeeded", materials=[a.material("m")]).to_dict()
        _set(wire, path, value)
        a.post(block_body(_sealed(wire)))
        verdict = s.read()
        assert (verdict.status, verdict.reason) == ("invalid", "bad_record"), path


@SETTINGS
@given(st.text(alphabet="ABCXYZabcxyz0189._:/@+=-", min_size=1, max_size=128),
       st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=1024))
def test_any_key_and_reason_within_their_patterns_are_accepted(key: str, reason: str) -> None:
    """The converse: the reader is no stricter than the spec's patterns."""
    s = Scenario()
    a = s.attempt(plan=("admission", "build"))
    a.event("admission", "started")
    a.event("admission", "waiting", reason, key=key)
    verdict = s.read()
    assert (verdict.status, verdict.reason) == ("waiting", reason), verdict.detail


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every scalar (string, number, null) inside a wire record, ``digest`` and
    ``v`` and ``type`` left out (their own checks come first and have their own tests)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() if path or k not in ("digest", "v", "type")
                for p in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))]
    return [path]


def _wrong_type(old: Any) -> list[Any]:
    """Values of a JSON type no record field of ``old``'s type accepts instead."""
    wrong: list[Any] = [True, False, [], {}, [old], {"x": old}]
    wrong += [1] if isinstance(old, str) else ["1"] if isinstance(old, int) else []
    return wrong


def _typed_cases() -> list[tuple[str, tuple[Any, ...], Any]]:
    s = Scenario()
    a = s.attempt(plan=("admission", "build"), authorization="auth-1",
                  predecessor="sha256:" + "5" * 64, post=False)
    event = a.build("admission", "waiting", "queued", materials=[a.material("m")])
    cases = []
    for kind, wire in (("intent", s.intent.to_dict()), ("attempt", a.record.to_dict()),
                       ("event", event.to_dict())):
        for path in _leaves(wire):
            old = _get(wire, path)
            if old is None:  # a nullable field: any other JSON type but its own is wrong
                cases += [(kind, path, v) for v in (True, [], {}, 0)]
            else:
                cases += [(kind, path, v) for v in _wrong_type(old)]
    return cases


def test_a_value_of_another_json_type_is_bad_record() -> None:
    """Every scalar of a sealed intent, attempt root and event (with a material and a
    writer), replaced by a value of a JSON type the spec does not allow there, then
    resealed: ``bad_record`` (section 3, shapes: keys, types, patterns), never a crash or
    a pass.
    Nullable fields (``predecessor``, ``authorization``, ``reason``, ``phase``) get a
    non-null wrong value; a count never takes a boolean."""
    problems = []
    for kind, path, value in _typed_cases():
        s = Scenario()
        a = s.attempt(plan=("admission", "build"), authorization="auth-1", post=kind == "event")
        if kind == "event":
            a.event("admission", "started")
            wire = a.build("admission", "waiting", "queued", materials=[a.material("m")]).to_dict()
        else:
            wire = s.intent.to_dict() if kind == "intent" else a.record.to_dict()
        _set(wire, path, value)
        body = block_body(_sealed(wire))
        if kind == "event":
            a.post(body)
        elif kind == "intent":
            s.fixture.body = body
        else:
            s.fixture.root(body)
        verdict = s.read()
        if (verdict.status, verdict.reason) != ("invalid", "bad_record"):
            problems.append((kind, path, value, verdict.reason, verdict.detail))
    assert problems == []
