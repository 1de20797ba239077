"""The JSON Schema of .github/ghattempt.toml and the parser agree.

Over a generated corpus of files (hypothesis: good files built from ``KEYS``, and each
turned bad in one place: a wrong type, a value out of bounds, a pattern broken, an
unknown key, a required key missing, a plan out of order), the schema (checked with
``jsonschema``, draft 2020-12) accepts exactly the files ``parse_config`` accepts.

Two kinds of file are left out of the corpus, each for a stated reason:

- the rules that tie keys together (``CROSS_KEY_RULES``): JSON Schema cannot state
  them; the corpus keeps them satisfied, and ``test_cross_key_rules_are_the_parsers``
  shows each is refused by the parser and passed by the schema;
- values JSON cannot hold as TOML does: datetimes (JSON has only strings), NaN and
  infinity, and an integer key written as a float with no fraction (``1.0``: JSON
  Schema's ``integer`` accepts it; the parser refuses it).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ghattempt.config import (
    CROSS_KEY_RULES,
    KEYS,
    PHASES,
    ConfigError,
    LeaseSettings,
    json_schema,
    parse_config,
)

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = jsonschema.Draft202012Validator(json_schema())


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string takes JSON's escapes
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def to_toml(doc: dict[str, Any]) -> str:
    lines = []
    for key, value in doc.items():
        lines.append(f"{json.dumps(key)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def both(doc: dict[str, Any]) -> tuple[bool, bool]:
    text = to_toml(doc)
    try:
        parse_config(text.encode(), path=".github/ghattempt.toml")
        parser = True
    except ConfigError:
        parser = False
    schema = VALIDATOR.is_valid(json.loads(json.dumps(doc)))
    return parser, schema


# ------------------------------------------------------------------ the corpus

names = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)
plans = st.sets(st.sampled_from(PHASES), min_size=1).map(
    lambda s: [p for p in PHASES if p in s])
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1,
                max_size=30)


@st.composite
def good(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    channels = draw(st.dictionaries(names, plans, min_size=1, max_size=3))
    if draw(st.booleans()):
        doc["channels"] = {n: {"plan": p} for n, p in channels.items()}
    else:
        channels = {"release": list(PHASES)}
    if draw(st.booleans()):
        doc["journal"] = {"category": draw(st.sampled_from(["General", "release-journals",
                                                             "Release journals"])),
                          "title": draw(st.sampled_from(["{repository} #{pull_request}",
                                                         "Journal {{x}} {base_ref}"]))}
    if draw(st.booleans()):
        login = draw(st.sampled_from(["github-actions", "my-app", "octocat"]))
        doc["writer"] = {"login": login} | (
            {"database_id": draw(st.integers(1, 2**40))}
            if login != "github-actions" or draw(st.booleans()) else {})
    attempt: dict[str, Any] = {}
    if len(channels) > 1 or draw(st.booleans()):
        attempt["default_channel"] = draw(st.sampled_from(sorted(channels)))
    if draw(st.booleans()):
        attempt["expires_after"] = draw(st.integers(1, 10 * 365 * 86400))
    if draw(st.booleans()):
        attempt["request_key"] = draw(st.sampled_from(["pr-{pull_request}:{channel}",
                                                       "{repository_id}/{pull_request}"]))
    if attempt:
        doc["attempt"] = attempt
    if draw(st.booleans()):
        timeout = draw(st.floats(0.5, 60))
        skew = draw(st.floats(0, 30))
        # the parser's own minimum: summing in another order rounds differently (3 x
        # 31.999999999999993 + 10 + 23 + 1 is 129.99999999999997 one way, 130.0 the other)
        minimum = LeaseSettings.minimum_for(timeout, skew)
        doc["lease"] = {"request_timeout": timeout, "clock_skew": skew,
                        "length": math.floor(minimum) + draw(st.integers(1, 500)),
                        "acquire_timeout": draw(st.floats(0, 1000))}
    if draw(st.booleans()):
        doc["pacing"] = {"write_interval": draw(st.floats(0, 10))}
    if draw(st.booleans()):
        planned = sorted({p for plan in channels.values() for p in plan})
        jobs = [{"workflow": f"w{i}.yml", "job": f"j{i}",
                 "phase": draw(st.sampled_from(planned))}
                for i in range(draw(st.integers(0, 3)))]
        doc["app"] = {"jobs": jobs}
    return doc


BAD_VALUES: dict[str, list[Any]] = {
    "string": [7, True, [], {}, ""],
    "integer": [0, -5, "12", 1.5, True, 10 * 365 * 86400 + 1],
    "seconds": [-1, "3", True, [], 10.0 * 365 * 86400 + 1],
    "plan": [[], ["deploy"], ["build", "admission"], ["build", "build"], "build", [1]],
    "phase": ["deploy", 3, ""],
    "template": [3, "", "{nope}", "{pull_request:>5}", "{", "}"],
}


@st.composite
def one_bad(draw: st.DrawFn) -> dict[str, Any]:
    doc = draw(good())
    kind = draw(st.sampled_from(["value", "unknown", "missing", "table"]))
    if kind == "unknown":
        table = draw(st.sampled_from(["", "journal", "writer", "attempt", "lease", "pacing"]))
        if table:
            doc.setdefault(table, {})["no_such_key"] = 1
        else:
            doc["no_such_table"] = {}
        return doc
    if kind == "table":
        doc[draw(st.sampled_from(["journal", "lease", "channels", "app"]))] = 5
        return doc
    if kind == "missing":
        doc["channels"] = {"x": {}}
        doc.setdefault("attempt", {})["default_channel"] = "x"
        return doc
    key = draw(st.sampled_from([k for k in KEYS if k.kind in BAD_VALUES]))
    value = draw(st.sampled_from(BAD_VALUES[key.kind]))
    if key.kind == "template" and key.path == "attempt.request_key" and value == "{nope}":
        value = "{nope}"
    table, name = key.table, key.name
    if table == "channels.*":
        doc["channels"] = {"x": {"plan": value}}
        doc.setdefault("attempt", {})["default_channel"] = "x"
    elif table == "app.jobs[]":
        job = {"workflow": "w.yml", "job": "j", "phase": "admission"} | {name: value}
        doc["app"] = {"jobs": [job]}
        doc.pop("channels", None)
        doc.get("attempt", {}).pop("default_channel", None)
    else:
        doc.setdefault(table, {})[name] = value
        if table == "writer" and name == "login" and "database_id" not in doc[table]:
            doc[table]["database_id"] = 5
        if table == "lease":  # keep the arithmetic rule satisfied for the other keys
            doc[table].setdefault("length", 10 * 365 * 86400)
    return doc


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(good())
@example({"lease": {"request_timeout": 31.999999999999993, "clock_skew": 23.0, "length": 131,
                    "acquire_timeout": 0.0}})  # the shortest length above a rounded minimum
def test_good_files_pass_both(doc: dict[str, Any]) -> None:
    assert both(doc) == (True, True), to_toml(doc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(one_bad())
def test_the_schema_and_the_parser_refuse_the_same_files(doc: dict[str, Any]) -> None:
    parser, schema = both(doc)
    assert parser == schema, to_toml(doc)


@pytest.mark.parametrize("text, key", [
    ("[writer]\nlogin = \"my-app\"\n", "writer.database_id"),   # required for another login
    ("[channels.a]\nplan=[\"build\"]\n[channels.b]\nplan=[\"build\"]\n",
     "attempt.default_channel"),                                # several channels
    ("[journal]\ncategory = \" General\"\n", "journal.category"),
    ("[writer]\nlogin = \"app[bot]\"\ndatabase_id = 3\n", "writer.login"),
    ("[channels.\"bad name!\"]\nplan=[\"build\"]\n", "channels"),
    ("[attempt]\nrequest_key = \"a b {channel}\"\n", "attempt.request_key"),
    ("[[app.jobs]]\nworkflow = \"dir/x.yml\"\njob = \"j\"\nphase = \"build\"\n", "app.jobs"),
])
def test_conditional_and_pattern_rules_agree(text: str, key: str) -> None:
    import tomllib

    with pytest.raises(ConfigError) as e:
        parse_config(text.encode(), path=".github/ghattempt.toml")
    assert (e.value.key or "").startswith(key)
    assert not VALIDATOR.is_valid(tomllib.loads(text))


CROSS_KEY_FILES = [
    "[lease]\nlength = 50\n",
    "[attempt]\ndefault_channel = \"nightly\"\n",
    "[channels.c]\nplan=[\"build\"]\n[attempt]\nrequest_key = \"" + "k" * 128 + "{channel}\"\n",
    "[journal]\ntitle = \"" + "t" * 240 + "{repository}\"\n",
    "[channels.c]\nplan=[\"build\"]\n[[app.jobs]]\nworkflow=\"w.yml\"\njob=\"j\"\nphase=\"merge\"\n",
    "[[app.jobs]]\nworkflow=\"w.yml\"\njob=\"j\"\nphase=\"build\"\n"
    "[[app.jobs]]\nworkflow=\"w.yml\"\njob=\"j\"\nphase=\"merge\"\n",
]


@pytest.mark.parametrize("text", CROSS_KEY_FILES)
def test_cross_key_rules_are_the_parsers(text: str) -> None:
    import tomllib

    assert len(CROSS_KEY_FILES) == len(CROSS_KEY_RULES)  # one file per documented rule
    with pytest.raises(ConfigError):
        parse_config(text.encode(), path=".github/ghattempt.toml")
    assert VALIDATOR.is_valid(tomllib.loads(text))


def test_values_json_cannot_hold_are_refused_by_the_parser() -> None:
    for text in ("[lease]\nclock_skew = nan\n", "[pacing]\nwrite_interval = inf\n",
                 "[attempt]\nexpires_after = 10.0\n", "[journal]\ncategory = 1979-05-27\n"):
        with pytest.raises(ConfigError):
            parse_config(text.encode(), path=".github/ghattempt.toml")
    assert not math.isfinite(float("nan"))


def test_the_committed_schema_is_the_generated_one() -> None:
    committed = json.loads((ROOT / "docs" / "ghattempt.schema.json").read_text())
    assert committed == json.loads(json.dumps(json_schema()))
    jsonschema.Draft202012Validator.check_schema(committed)


def test_the_example_files_pass_the_schema() -> None:
    import tomllib

    for path in (ROOT / "examples" / "ghattempt.toml", ROOT / ".github" / "ghattempt.toml"):
        doc = tomllib.loads(path.read_text())
        assert VALIDATOR.is_valid(doc), list(VALIDATOR.iter_errors(doc))
        first = path.read_text().splitlines()[0]
        if path.parent.name == "examples":
            assert first.startswith("#:schema "), first  # taplo picks the schema up
