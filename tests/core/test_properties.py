"""Properties of the reader over journals drawn with the builders (tests/strategies.py).

- The drawn journals are valid and their attempts have the statuses the strategy
  tracked (the generator and the replay of section 8 agree).
- Tampering: any one-character change (substitution, deletion or insertion) of the JSON
  line of any contributing record (journal body, attempt root, event) makes the verdict
  ``invalid`` with reason ``bad_record``, ``unknown_version`` or ``digest_mismatch``
  (section 3). Why always one of these: the changed line either stops being JSON, a
  record block or canonical (``bad_record``), or it is the canonical form of another
  value (the canonical form is unique), so the value differs from the sealed one. A
  different ``v`` integer is ``unknown_version``; a wrong shape is ``bad_record``;
  otherwise the content or the ``digest`` member changed and the digest no longer
  matches (short of a SHA-256 collision) - and the record checks of section 7 steps
  3, 4 and 5a run before any check that could report something else. The property
  covers every position of the line and any replacement character (ASCII, control,
  non-ASCII, ``\\``, ``"``, newline, carriage return).
- Capture shape: other page sizes, RepliesPage splits, duplicated pages and any page
  order give the same verdict (section 5: field names matter, page sizes do not).
- c14n: every record line of a drawn journal is RFC 8785 (JCS) and its digest is the
  SHA-256 of the JCS bytes of the record without ``digest`` (section 3).
- Trust: comments that do not contribute (other authors, edited, deleted), with or
  without markers, with valid or broken records, as top-level comments or replies
  anywhere, change nothing but ``ignored`` (section 6), which grows by exactly the
  number of comments added when the journal is valid.
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import Drawn, captures, journals, record_nodes, untrusted_additions

from ghattempt.core import canonical
from ghattempt.core.testing import Scenario

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BLOCK = "<!-- ghattempt:v1 -->\n```json\n"
TAMPER_CODES = {"bad_record", "unknown_version", "digest_mismatch"}
CHARS = st.sampled_from(list('0123456789abcdefxyz{}[]:,"\\ \n\r\t\x00\x7f') + ["\u00e9", "\u2028",
                                                                               "\U0001f600"]) \
    | st.characters()


def _contract(verdict: Any) -> dict[str, Any]:
    """The compared verdict fields (``detail`` is a note, not contract: docs/reader.md)."""
    out = verdict.to_json()
    del out["detail"]
    return out


@SETTINGS
@given(journals())
def test_drawn_journals_are_valid_with_the_tracked_statuses(drawn: Drawn) -> None:
    verdict = drawn.read()
    assert verdict.exit_code == 0, verdict.to_json()
    assert [a["status"] for a in verdict.to_json()["attempts"]] == drawn.statuses


def _tamper(body: str, op: str, at: int, char: str) -> str:
    start = body.index(BLOCK) + len(BLOCK)
    line = body[start:body.index("\n", start)]
    at %= len(line) + (op == "insert")
    if op == "substitute":
        new = line[:at] + char + line[at + 1:]
    elif op == "delete":
        new = line[:at] + line[at + 1:]
    else:
        new = line[:at] + char + line[at:]
    return body[:start] + new + body[start + len(line):]


@SETTINGS
@given(journals(), st.data(), st.sampled_from(("substitute", "delete", "insert")),
       st.integers(0, 10**6), CHARS)
def test_any_one_character_change_of_a_record_line_is_invalid(
        drawn: Drawn, data: st.DataObject, op: str, at: int, char: str) -> None:
    s = drawn.scenario
    node = data.draw(st.sampled_from(record_nodes(s)))
    body = s.fixture.body if node is None else node.body
    changed = _tamper(body, op, at, char)
    if changed == body:  # a substitution by the same character is no change
        return
    if node is None:
        s.fixture.body = changed
    else:
        node.body = changed
    out = drawn.read().to_json()
    assert out["status"] == "invalid", (op, at, char, out)
    assert out["reason"] in TAMPER_CODES, (op, at, char, out)


def test_tampering_reaches_every_code() -> None:
    """The tamper property is not vacuous: each of its codes is reached."""
    s = Scenario()
    a = s.attempt(plan=("admission",))
    a.event("admission", "started")
    reply = s.fixture.roots[0].replies[0]
    original = reply.body
    line_at = original.index(BLOCK) + len(BLOCK)
    v_at = original.index('"v":1') - line_at + 4
    digit_at = original.index('"digest":"sha256:') - line_at + 20
    reasons = {}
    for op, at, char in (("substitute", v_at, "2"), ("substitute", v_at, "x"),
                         ("delete", 0, ""), ("substitute", digit_at, "g"),
                         ("substitute", digit_at, "0" if original[line_at + digit_at] != "0"
                          else "1")):
        reply.body = _tamper(original, op, at, char)
        reasons[(op, char)] = s.read().reason
    assert set(reasons.values()) == TAMPER_CODES, reasons


@SETTINGS
@given(journals(failures=True), st.data())
def test_page_sizes_duplicates_and_order_never_change_the_verdict(
        drawn: Drawn, data: st.DataObject) -> None:
    expected = _contract(drawn.read())
    pages = data.draw(captures(drawn.scenario))
    assert _contract(drawn.read(pages)) == expected


@SETTINGS
@given(journals(failures=True), st.data())
def test_untrusted_comments_change_only_ignored(drawn: Drawn, data: st.DataObject) -> None:
    before = drawn.read().to_json()
    added = data.draw(untrusted_additions(drawn.scenario))
    after = drawn.read().to_json()
    if before["status"] == "invalid":
        assert after == before
    else:
        assert after["ignored"] == before["ignored"] + added
        assert {**after, "ignored": 0} == {**before, "ignored": 0}


@SETTINGS
@given(journals(failures=True))
def test_every_record_line_is_jcs_and_its_digest_is_sha256_of_jcs(drawn: Drawn) -> None:
    """Section 3 against an independent RFC 8785 implementation, on real records."""
    s = drawn.scenario
    records: list[Any] = [s.intent]
    for a in s.attempts:
        records += [a.record, *a.events]
    for record in records:
        wire = record.to_dict()
        assert canonical(wire) == rfc8785.dumps(wire)
        del wire["digest"]
        assert record.digest == "sha256:" + hashlib.sha256(rfc8785.dumps(wire)).hexdigest()
