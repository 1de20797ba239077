"""The reader's fast paths give the verdicts of the rules they shortcut (spec journal-v1,
sections 2 and 3): the record scanner, the marker and CR LF searches, the digest shape
check skipped for a matching digest, and the cache of Actions writers."""

from __future__ import annotations

import pytest

from ghattempt.core import ActionsWriter, CliWriter
from ghattempt.core._c14n import decode_record
from ghattempt.core._records import find_block, parse_line
from ghattempt.core.testing import Scenario, block_body, forge


@pytest.mark.parametrize("text", [" {}", "{} ", "{}x", "{}{}", "", "\n{}", "{}\n", "nul"])
def test_record_scanner_takes_exactly_one_value(text: str) -> None:
    with pytest.raises(ValueError):
        decode_record(text)


@pytest.mark.parametrize("text,value", [("{}", {}), ('{"a":[1,"b",null,true]}',
                                                     {"a": [1, "b", None, True]}), ("-0", 0)])
def test_record_scanner_parses(text: str, value: object) -> None:
    assert decode_record(text) == value


@pytest.mark.parametrize("text", ["1.0", '{"a":1e3}', "NaN", '[-Infinity]'])
def test_record_scanner_refuses_floats_and_constants(text: str) -> None:
    with pytest.raises(ValueError):
        decode_record(text)


def _started() -> tuple[Scenario, object]:
    s = Scenario()
    a = s.attempt(plan=("admission", "build"))
    a.event("admission", "started")
    return s, a


def test_angle_brackets_in_a_record_are_not_a_second_marker() -> None:
    s = Scenario()
    a = s.attempt(plan=("admission",))
    a.event("admission", "waiting", "<b>waiting</b> for <!-- a person -->")
    assert s.read().status == "waiting"


def test_a_second_marker_after_the_block_is_bad_record() -> None:
    s, a = _started()
    body = block_body(forge(a.build("admission", "succeeded")))  # type: ignore[attr-defined]
    a.post(body + "\n<!-- ghattempt:v1 -->\n")  # type: ignore[attr-defined]
    assert s.read().reason == "bad_record"
    assert find_block(body) is not None


def test_carriage_returns_alone_are_kept_and_crlf_reads_as_lf() -> None:
    line = '{"a":1}'
    assert find_block("note\r\n\r\n<!-- ghattempt:v1 -->\r\n```json\r\n" + line
                      + "\r\n```\r\n") == line
    assert find_block("a\rb\n<!-- ghattempt:v1 -->\n```json\n" + line + "\n```\n") == line
    with pytest.raises(Exception, match="exactly"):
        find_block("<!-- ghattempt:v1 -->\n```json\n" + line + "\r\n```\r")


def test_wrong_digest_shapes_are_bad_record_and_wrong_values_digest_mismatch() -> None:
    s, a = _started()
    event = a.build("admission", "succeeded")  # type: ignore[attr-defined]
    for value, code in (("sha256:" + "0" * 64, "digest_mismatch"),
                        ("sha256:" + "0" * 63, "bad_record"), ("SHA256:" + "0" * 64,
                                                               "bad_record"),
                        (7, "bad_record"), (None, "bad_record")):
        with pytest.raises(Exception) as caught:
            parse_line(forge(event, digest=value))
        assert getattr(caught.value, "code", None) == code, value
    assert parse_line(forge(event)) == event


def test_cached_writers_are_equal_to_fresh_ones_and_never_shared_across_values() -> None:
    s = Scenario()
    a = s.attempt(plan=("admission",))
    one = a.build("admission", "started")
    other = a.build("admission", "started",
                    writer=ActionsWriter(run_id=1, run_attempt=2, job="j", workflow="w"))
    cli = a.build("admission", "started", writer=CliWriter(actor="octocat"))
    for event in (one, other, cli, one, other, cli):
        assert parse_line(forge(event)).writer == event.writer
    wire = other.writer.to_dict()
    for bad in ({**wire, "run_id": True}, {**wire, "run_attempt": 2.0}, {**wire, "job": ""},
                {**wire, "run_id": [1]}):
        with pytest.raises(Exception) as caught:
            parse_line(forge(other, writer=bad))
        assert getattr(caught.value, "code", None) == "bad_record", bad


def test_the_hot_path_event_constructor_makes_the_same_frozen_event() -> None:
    import dataclasses

    from ghattempt.core._records import Event, _make_event

    s = Scenario()
    a = s.attempt(plan=("admission",))
    built = a.build("admission", "waiting", "queued", materials=[a.material("m")])
    values = [getattr(built, f.name) for f in dataclasses.fields(Event)]
    made = _make_event(*values)
    assert type(made) is Event and made == built and hash(made) == hash(built)
    assert repr(made) == repr(built) and made.to_dict() == built.to_dict()
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.seq = 2  # type: ignore[misc]
    assert dataclasses.replace(made, seq=2).seq == 2
    assert parse_line(forge(built)) == built
