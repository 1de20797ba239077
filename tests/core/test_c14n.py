"""c14n v1 against RFC 8785 (JCS) on the allowed subset, and its refusals (section 3)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from ghattempt.core import canonical, digest
from ghattempt.core._c14n import MAX_SAFE_INTEGER, allowed_problem, split_canonical

values = st.recursive(
    st.none() | st.booleans() | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)
    | st.text(st.characters(blacklist_categories=("Cs",))),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(st.characters(max_codepoint=127), max_size=8), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(values)
def test_canonical_equals_jcs_on_allowed_values(value: Any) -> None:
    assert canonical(value) == rfc8785.dumps(value)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(st.characters(max_codepoint=127), max_size=8), values,
                       max_size=6), st.text(max_size=10))
def test_split_canonical_equals_two_encodings(obj: dict[str, Any], dg: str) -> None:
    text = canonical(dict(obj, digest=dg)).decode()
    parsed = json.loads(text)
    rest = {k: v for k, v in parsed.items() if k != "digest"}
    assert split_canonical(parsed, text) == canonical(rest).decode()
    assert parsed["digest"] == dg
    assert split_canonical(parsed, text + " ") is None
    moved = json.dumps(dict(rest, digest=dg), separators=(",", ":"), ensure_ascii=False)
    if moved != text:  # the digest member elsewhere: not canonical
        assert split_canonical(json.loads(moved), moved) is None


@pytest.mark.parametrize("text,expected", [
    ('{"a":1,"z":2,"digest":"d"}', None),
    ('{"digest":"d","a":1,"z":2}', None),
    ('{"a":1,"digest":"d","z":2}', '{"a":1,"z":2}'),
    ('{"digest":"d","z":2}', '{"z":2}'),
    ('{"a":1,"digest":"d"}', '{"a":1}'),
    ('{"digest":"d"}', "{}"),
    ('{"a":{"digest":"d"},"digest":"d"}', '{"a":{"digest":"d"}}'),
    ('{"a":{"digest":"d"},"digest":"d","z":{"digest":"d"}}',
     '{"a":{"digest":"d"},"z":{"digest":"d"}}'),
    ('{"a":{"digest":"d"},"z":1,"digest":"d"}', None),
    ('{"a":1,"digest":"d","z":2} ', None),
    ('{"a":1, "digest":"d","z":2}', None),
])
def test_split_canonical_on_parsed_text(text: str, expected: str | None) -> None:
    """``obj`` is always the parse of ``text`` (key order is text order)."""
    assert split_canonical(json.loads(text), text) == expected


def test_digest_is_sha256_of_the_canonical_bytes() -> None:
    value = {"b": [1, "\u00e9"], "a": None}
    assert canonical(value) == '{"a":null,"b":[1,"\u00e9"]}'.encode()
    assert digest(value) == "sha256:" + hashlib.sha256(canonical(value)).hexdigest()


@pytest.mark.parametrize("value", [1.0, [1e3], {"\u00e9": 1}, 2**53, -(2**53), {"a": {1, 2}}])
def test_values_outside_the_subset_are_refused(value: Any) -> None:
    assert allowed_problem(value) is not None
    with pytest.raises(ValueError):
        canonical(value)


def test_lone_surrogates_have_no_canonical_bytes() -> None:
    with pytest.raises(ValueError):
        canonical("\ud800")
