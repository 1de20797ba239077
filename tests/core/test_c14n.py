"""c14n v1 against RFC 8785 (JCS) on the allowed subset, and its refusals (section 3)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from ghattempt.core import canonical, digest
from ghattempt.core._c14n import MAX_SAFE_INTEGER, allowed_problem, canonical_text, decode_record

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


@pytest.mark.parametrize("text", ["1", "1.5", "1e3", "NaN", "-Infinity", '"x"', " {}",
                                  "{} ", "{}{}", "[1,]", '{"a":1.0}'])
def test_a_record_line_is_one_json_value_without_floats_or_constants(text: str) -> None:
    """decode_record refuses floats and NaN/Infinity; whitespace it leaves to the
    canonical-form check."""
    try:
        value = decode_record(text)
    except ValueError:
        assert text in ("1.5", "1e3", "NaN", "-Infinity", "{}{}", "[1,]", '{"a":1.0}')
    else:
        assert canonical_text(value) != text or text in ("1", '"x"')


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
