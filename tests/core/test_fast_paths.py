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
    from ghattempt.core._records import Event, _make_event
    from ghattempt.core._slots import FrozenInstanceError, replace

    s = Scenario()
    a = s.attempt(plan=("admission",))
    built = a.build("admission", "waiting", "queued", materials=[a.material("m")])
    values = [getattr(built, name) for name in Event.__match_args__]
    made = _make_event(*values)
    assert type(made) is Event and made == built and hash(made) == hash(built)
    assert repr(made) == repr(built) and made.to_dict() == built.to_dict()
    with pytest.raises(FrozenInstanceError):
        made.seq = 2  # type: ignore[misc]
    assert replace(made, seq=2).seq == 2
    assert parse_line(forge(built)) == built


_HOSTILE = ['x","generation":{}', ',"generation":{"a":1},"intent":"', 'a\\",\\"intent\\":',
            'quote " and backslash \\', ',"intent":', "\u00e9\u2028,\"generation\":", "}"]


@pytest.mark.parametrize("text", _HOSTILE)
def test_the_generation_id_cut_from_the_line_is_the_digest_of_the_generation(text: str) -> None:
    from ghattempt.core import canonical, digest
    from ghattempt.core._records import generation_text
    from ghattempt.core._slots import replace
    from ghattempt.core.testing import sample_generation

    generation = replace(sample_generation(3), config_path=text, base_ref=text)
    s = Scenario()
    a = s.attempt(channel=text[:256], generation=generation,
                  authorization="auth-1")
    record = a.record  # type: ignore[attr-defined]
    parsed = parse_line(forge(record))
    assert parsed.generation_id == digest(generation.to_dict())  # type: ignore[union-attr]
    wire = record.to_dict()
    del wire["digest"]
    assert generation_text(canonical(wire).decode()) == canonical(
        generation.to_dict()).decode()
    assert s.read().attempts[0]["generation"] == digest(generation.to_dict())


def _attempt_and_event() -> tuple[object, object]:
    s = Scenario()
    a = s.attempt(plan=("admission",))
    event = a.build("admission", "succeeded", materials=[a.material("m")])  # type: ignore[attr-defined]
    return a.record, event  # type: ignore[attr-defined]


_GENERATION_CHANGES: list[tuple[str, object]] = [
    ("source_commit", "A" * 40), ("source_commit", "a" * 41), ("source_commit", 7),
    ("tree", "a" * 39), ("tree", None), ("tree", "g" * 64), ("config", []),
    ("config", {"path": "p", "blob": "c" * 40}), ("base", {"ref": "main"}),
    ("config.path", ""), ("config.path", "p" * 257), ("config.blob", "c" * 63),
    ("config.digest", "sha256:" + "E" * 64), ("config.digest", 1), ("base.ref", ""),
    ("base.ref", ["main"]), ("base.commit", "b" * 40 + "\u00e9"), ("extra", 1)]


@pytest.mark.parametrize("where,value", _GENERATION_CHANGES)
def test_the_one_pass_generation_check_refuses_what_the_shapes_refuse(where: str,
                                                                       value: object) -> None:
    from ghattempt.core._records import parse_generation

    attempt, _ = _attempt_and_event()
    wire = attempt.to_dict()["generation"]  # type: ignore[attr-defined]
    assert parse_generation(wire) == attempt.generation  # type: ignore[attr-defined]
    outer, _, inner = where.partition(".")
    if inner:
        wire[outer] = {**wire[outer], inner: value}
    else:
        wire[outer] = value
    with pytest.raises(Exception) as caught:
        parse_generation(wire)
    assert getattr(caught.value, "code", None) == "bad_record"
    with pytest.raises(Exception) as caught:
        parse_line(forge(attempt, generation=wire))  # type: ignore[arg-type]
    assert getattr(caught.value, "code", None) == "bad_record"


_MATERIAL_CHANGES: list[tuple[str, object]] = [
    ("id", ""), ("id", "a b"), ("kind", "other"), ("kind", ["artifact"]), ("bytes", -1),
    ("bytes", True), ("bytes", 2**53), ("digest", "sha256:" + "F" * 64), ("attempt", 5),
    ("generation", "sha256:" + "0" * 63), ("url", None), ("extra", 1)]


@pytest.mark.parametrize("key,value", _MATERIAL_CHANGES)
def test_the_one_pass_material_check_refuses_what_the_shapes_refuse(key: str,
                                                                     value: object) -> None:
    from ghattempt.core._records import parse_material

    _, event = _attempt_and_event()
    material = event.materials[0]  # type: ignore[attr-defined]
    assert parse_material(material.to_dict()) == material
    wire = {**material.to_dict(), key: value}
    with pytest.raises(Exception) as caught:
        parse_material(wire)
    assert getattr(caught.value, "code", None) == "bad_record"
    with pytest.raises(Exception) as caught:
        parse_line(forge(event, materials=[wire]))  # type: ignore[arg-type]
    assert getattr(caught.value, "code", None) == "bad_record"


def test_phases_and_event_nodes_are_read_from_the_replay_when_asked() -> None:
    s = Scenario()
    a = s.attempt(plan=("admission", "build", "merge"))
    a.event("admission", "succeeded")
    a.event("build", "waiting", "queued")
    state = s.read().current
    assert state is not None
    assert {p: (v.status, v.reason) for p, v in state.phases.items()} == {
        "admission": ("succeeded", None), "build": ("waiting", "queued")}
    assert list(state.event_nodes) == [e.digest for e in state.events]
    assert all(len(ids) == 1 for ids in state.event_nodes.values())


def test_the_hot_path_makers_build_the_same_frozen_values() -> None:
    from ghattempt.core._records import (
        Attempt,
        Generation,
        Material,
        _make_attempt,
        _make_generation,
        _make_material,
        parse_generation,
    )
    from ghattempt.core._slots import FrozenInstanceError, replace

    attempt, event = _attempt_and_event()
    material = event.materials[0]  # type: ignore[attr-defined]
    generation = attempt.generation  # type: ignore[attr-defined]
    for cls, maker, built in ((Attempt, _make_attempt, attempt),
                              (Generation, _make_generation, generation),
                              (Material, _make_material, material)):
        made = maker(*(getattr(built, name) for name in cls.__match_args__))
        assert type(made) is cls and made == built and hash(made) == hash(built)
        assert repr(made) == repr(built) and made.to_dict() == built.to_dict()
        with pytest.raises(FrozenInstanceError):
            made.digest = "x"
        first = cls.__match_args__[0]
        assert getattr(replace(made, **{first: "other"}), first) == "other"
    assert parse_line(forge(attempt)) == attempt  # type: ignore[arg-type]
    assert parse_generation(generation.to_dict()) == generation
    assert parse_line(forge(event)) == event  # type: ignore[arg-type]


# Texts whose canonical form has something before the top-level digest that could hold
# a "digest" key or look like one: the cut must equal the second encoding.
_SPLIT_TEXTS = [
    '{"a":"{\\"digest\\":\\"d\\"}","digest":"d","z":1}',
    '{"a":"[","digest":"d"}',
    '{"a":[{"digest":"d"}],"digest":"d"}',
    '{"a":{"digest":"e"},"digest":"d"}',
    '{"a":{"b":"x","digest":"d"},"digest":"d","z":{"digest":"d"}}',
    '{"a":"\\",\\"digest\\":\\"d","digest":"d"}',
    '{"a":",\\"digest\\":","digest":"d"}',
    '{"digest":"d\\"","e":"{"}',
    '{"digest":{"digest":"d"},"e":1}',
    '{"a":1,"digest":["d",{"x":"}"}],"z":"]"}',
    '{"a":"\\u00e9{","digest":"\\u00e9","b":2}',
    '{"a":1,"digest":null}',
    '{"a":"x"}',
]


@pytest.mark.parametrize("text", _SPLIT_TEXTS)
def test_the_covered_text_cut_from_the_encoding_equals_a_second_encoding(text: str) -> None:
    import json

    from ghattempt.core import canonical
    from ghattempt.core._c14n import split_canonical

    parsed = json.loads(text)
    line = canonical(parsed).decode()
    rest = {k: v for k, v in json.loads(line).items() if k != "digest"}
    assert split_canonical(json.loads(line), line) == canonical(rest).decode()
    if line != text:
        assert split_canonical(json.loads(text), text) is None


def _table_refusal(state: object, step: object) -> object:
    """``refusal`` without its one-pass acceptance: the table alone (section 8)."""
    from ghattempt.core._rules import _ROWS, _kind, derive_status

    status = derive_status(state)[0]  # type: ignore[arg-type]
    for rule, code, guard in _ROWS[_kind(step), status]:  # type: ignore[arg-type]
        if guard(status, step, state):  # type: ignore[arg-type]
            return code, f"{rule} (attempt {status}, record {step.phase} {step.status})"  # type: ignore[attr-defined]
    return None


class _Step:
    def __init__(self, phase: str | None, status: str, at: str) -> None:
        self.phase, self.status, self.at = phase, status, at


def test_the_one_pass_plan_acceptance_agrees_with_the_table() -> None:
    """Every plan of up to three phases, every last-status map over it (with statuses a
    journal could not reach too), every record: ``refusal`` equals the table alone."""
    from itertools import combinations, product

    from ghattempt.core._rules import (
        PHASE_STATUSES,
        PHASES,
        ROLLBACK,
        ROLLBACK_STATUSES,
        ReplayState,
        refusal,
    )

    phases = PHASES[:4]
    statuses = sorted(PHASE_STATUSES)
    records = ([_Step(p, st, "2030-01-01T00:00:00Z") for p in phases for st in statuses]
               + [_Step(ROLLBACK, st, "2030-01-01T00:00:00Z") for st in ROLLBACK_STATUSES]
               + [_Step(None, st, "2030-01-01T00:00:00Z")
                  for st in ("expired", "cancelled", "superseded")])
    checked = accepted = 0
    for size in (1, 2, 3):
        for plan in combinations(phases, size):
            for lasts in product([None, *statuses], repeat=size):
                last = {p: (st, "r") for p, st in zip(plan, lasts, strict=True) if st}
                for overall in (None, ("rolling-back", None), ("rolled-back", None),
                                ("rollback-failed", "r"), ("expired", "r"),
                                ("cancelled", "r")):
                    state = ReplayState(plan, "2029-01-01T00:00:00Z", last, overall,
                                        len(last))
                    for step in records:
                        got = refusal(state, step)  # type: ignore[arg-type]
                        assert got == _table_refusal(state, step), (plan, last, step.phase,
                                                                    step.status)
                        checked += 1
                        accepted += got is None
    assert checked > 60000 and 0 < accepted < checked


def _renamed(wire: dict[str, object], old: str) -> dict[str, object]:
    """``wire`` with key ``old`` renamed (same count of keys, one unknown)."""
    return {(old + "_" if k == old else k): v for k, v in wire.items()}


def _record_key_sets() -> list[tuple[str, str, dict[str, object]]]:
    attempt, event = _attempt_and_event()
    cases = []
    for what, record in (("attempt record", attempt), ("event record", event)):
        wire = record.to_dict()  # type: ignore[attr-defined]
        del wire["digest"]
        fields = [k for k in wire if k not in ("v", "type")]
        cases += [(what, f"rename {k}", _renamed(wire, k)) for k in fields]
        cases += [(what, f"drop {k}", {x: v for x, v in wire.items() if x != k})
                  for k in fields]
        cases.append((what, "extra", {**wire, "extra": None}))
    return cases


@pytest.mark.parametrize("what,name,wire", _record_key_sets())
def test_the_record_key_set_by_count_refuses_what_the_set_comparison_refuses(
        what: str, name: str, wire: dict[str, object]) -> None:
    """Section 4 (record keys): a missing, renamed or extra key of an attempt or event
    is ``bad_record`` naming the key sets, as the set comparison would, before any value
    is looked at."""
    from ghattempt.core import canonical
    from ghattempt.core._c14n import digest_text
    from ghattempt.core._records import _ATTEMPT_FIELDS, _EVENT_FIELDS

    fields = _ATTEMPT_FIELDS if what == "attempt record" else _EVENT_FIELDS
    expected = (f"{what}: missing keys {sorted(fields - wire.keys())}, "
                f"unknown keys {sorted(wire.keys() - fields)}")
    wrong_values = {k: v for k, v in (("intent", "x"), ("key", "a b"), ("seq", 0), ("at", 1))
                    if k in wire}
    for changed in (wire, {**wire, **wrong_values}):  # the key sets come before values
        line = canonical({**changed, "digest": digest_text(canonical(changed).decode())})
        with pytest.raises(Exception) as caught:
            parse_line(line.decode())
        assert getattr(caught.value, "code", None) == "bad_record"
        assert getattr(caught.value, "detail", None) == expected, name


def _generation_key_sets() -> list[tuple[str, dict[str, object]]]:
    attempt, _ = _attempt_and_event()
    wire = attempt.to_dict()["generation"]  # type: ignore[attr-defined]
    cases = []
    for k in wire:
        cases.append((f"rename {k}", _renamed(wire, k)))
        cases.append((f"drop {k}", {x: v for x, v in wire.items() if x != k}))
    for part in ("config", "base"):
        for k in wire[part]:
            cases.append((f"rename {part}.{k}", {**wire, part: _renamed(wire[part], k)}))
            cases.append((f"drop {part}.{k}",
                          {**wire, part: {x: v for x, v in wire[part].items() if x != k}}))
        cases.append((f"extra {part}", {**wire, part: {**wire[part], "extra": 1}}))
    cases.append(("extra", {**wire, "extra": 1}))
    return cases


@pytest.mark.parametrize("name,wire", _generation_key_sets())
def test_the_generation_key_sets_by_count_refuse_what_the_set_comparisons_refuse(
        name: str, wire: dict[str, object]) -> None:
    from ghattempt.core._records import _keys, parse_generation

    with pytest.raises(Exception) as caught:
        parse_generation(wire)
    with pytest.raises(Exception) as slow:  # what the key-set comparisons say
        _keys(wire, frozenset({"source_commit", "tree", "config", "base"}),
              "attempt generation")
        _keys(wire["config"], frozenset({"path", "blob", "digest"}), "generation config")
        _keys(wire["base"], frozenset({"ref", "commit"}), "generation base")
    assert getattr(caught.value, "code", None) == "bad_record"
    assert getattr(caught.value, "detail", None) == getattr(slow.value, "detail", None), name


def test_the_written_replay_state_and_attempt_state_makers_build_the_same_values() -> None:
    from ghattempt.core._journal import AttemptState, _make_attempt_state
    from ghattempt.core._rules import ReplayState
    from ghattempt.core._slots import FrozenInstanceError

    state = ReplayState(("admission",), "2030-01-01T00:00:00Z", {})
    assert (state.plan, state.expires_at, state.last, state.overall, state.events) == (
        ("admission",), "2030-01-01T00:00:00Z", {}, None, 0)
    assert state == ReplayState(("admission",), "2030-01-01T00:00:00Z", {}, None, 0)
    assert ReplayState.start(("admission",), "2030-01-01T00:00:00Z") == state
    s = Scenario()
    a = s.attempt(plan=("admission", "build"))
    a.event("admission", "waiting", "queued")
    current = s.read().current
    assert current is not None
    made = _make_attempt_state(*(getattr(current, n) for n in AttemptState.__match_args__))
    assert type(made) is AttemptState and made == current
    assert repr(made) == repr(current) and made.summary() == current.summary()
    with pytest.raises(FrozenInstanceError):
        made.status = "failed"  # type: ignore[misc]


# "sh" + four hex digits + ":" has the digest form under the one-pass translation (the
# prefix's "a256" are hex digits): the prefix must be checked too (section 3, digest).
_FALSE_PREFIXES = ["sh0000:", "shaaaa:", "sha255:", "sh256a:", "sh2560:"]


@pytest.mark.parametrize("prefix", _FALSE_PREFIXES)
@pytest.mark.parametrize("field", ["intent", "attempt", "generation", "prev", "reader"])
def test_the_one_pass_event_digests_need_the_sha256_prefix(field: str, prefix: str) -> None:
    from ghattempt.core._records import is_digest

    _, event = _attempt_and_event()
    value = prefix + getattr(event, field)[7:]
    assert len(value) == 71 and not is_digest(value)
    with pytest.raises(Exception) as caught:
        parse_line(forge(event, **{field: value}))  # type: ignore[arg-type]
    assert getattr(caught.value, "code", None) == "bad_record"
    assert getattr(caught.value, "detail", None) == f"event {field} is not a digest"


@pytest.mark.parametrize("prefix", _FALSE_PREFIXES)
@pytest.mark.parametrize("key", ["digest", "attempt", "generation"])
def test_the_one_pass_material_digests_need_the_sha256_prefix(key: str, prefix: str) -> None:
    from ghattempt.core._records import parse_material

    _, event = _attempt_and_event()
    material = event.materials[0]  # type: ignore[attr-defined]
    wire = {**material.to_dict(), key: prefix + getattr(material, key)[7:]}
    with pytest.raises(Exception) as caught:
        parse_material(wire)
    assert getattr(caught.value, "code", None) == "bad_record"
    with pytest.raises(Exception) as caught:
        parse_line(forge(event, materials=[wire]))  # type: ignore[arg-type]
    assert getattr(caught.value, "code", None) == "bad_record"


@pytest.mark.parametrize("prefix", _FALSE_PREFIXES)
def test_a_journal_with_a_false_digest_prefix_is_bad_record(prefix: str) -> None:
    """End to end: a reply whose reader digest has a false prefix fails the journal."""
    s, a = _started()
    a.post(block_body(forge(a.build("admission", "succeeded"),  # type: ignore[attr-defined]
                            reader=prefix + "ad" * 32)))
    assert s.read().reason == "bad_record"


_TIMES_WITH_A_LETTER_D = ["dddd-dd-ddTdd:dd:ddZ", "2026-0d-01T00:00:00Z", "2026-03-01T00:00:0dZ",
                          "d026-03-01T00:00:00Z"]


@pytest.mark.parametrize("text", _TIMES_WITH_A_LETTER_D)
def test_a_letter_d_is_not_a_digit_of_a_time(text: str) -> None:
    """Section 3, *time*: ``[0-9]{4}-...``; the translation table marks digits with "d",
    so a "d" in the text itself must not pass for one (event ``at``, attempt
    ``expires_at`` and ``at``)."""
    from ghattempt.core._records import is_time

    assert not is_time(text)
    attempt, event = _attempt_and_event()
    for record, field in ((event, "at"), (attempt, "expires_at"), (attempt, "at")):
        with pytest.raises(Exception) as caught:
            parse_line(forge(record, **{field: text}))  # type: ignore[arg-type]
        assert getattr(caught.value, "code", None) == "bad_record", field


# The one-pass translation marks hex digits with "x"; an "x", an "X" or the "h" that once
# marked them, in the text itself, must not pass for a hex digit.
_NOT_HEX = ["h", "x", "X", "H", "g", "A", "F"]


@pytest.mark.parametrize("char", _NOT_HEX)
@pytest.mark.parametrize("field", ["intent", "attempt", "generation", "prev", "reader"])
def test_a_letter_in_the_hex_of_an_event_digest_is_bad_record(field: str, char: str) -> None:
    from ghattempt.core._records import is_digest

    _, event = _attempt_and_event()
    for at in (7, 40, 70):
        value = getattr(event, field)
        value = value[:at] + char + value[at + 1:]
        assert not is_digest(value)
        with pytest.raises(Exception) as caught:
            parse_line(forge(event, **{field: value}))  # type: ignore[arg-type]
        assert getattr(caught.value, "code", None) == "bad_record", (field, at)
        assert getattr(caught.value, "detail", None) == f"event {field} is not a digest"


@pytest.mark.parametrize("char", _NOT_HEX)
@pytest.mark.parametrize("key", ["digest", "attempt", "generation"])
def test_a_letter_in_the_hex_of_a_material_digest_is_bad_record(key: str, char: str) -> None:
    from ghattempt.core._records import parse_material

    _, event = _attempt_and_event()
    material = event.materials[0]  # type: ignore[attr-defined]
    value = getattr(material, key)
    wire = {**material.to_dict(), key: value[:30] + char + value[31:]}
    with pytest.raises(Exception) as caught:
        parse_material(wire)
    assert getattr(caught.value, "code", None) == "bad_record"
