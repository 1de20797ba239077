"""Hostile configuration files: every one is a ConfigError of one printable line."""

from __future__ import annotations

import pytest

from ghattempt.config import DEFAULT_CONFIG_PATH, ConfigError, parse_config

PATH = DEFAULT_CONFIG_PATH


def error(data: bytes) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        parse_config(data, path=PATH)
    return info.value


def test_integer_beyond_the_conversion_limit_is_a_config_error():
    e = error(b"[lease]\nlength = " + b"9" * 5000 + b"\n")
    assert str(e).startswith(f"{PATH}: ")
    assert "invalid TOML" in e.problem
    assert "fix the TOML" in e.fix


@pytest.mark.parametrize(
    "data",
    [
        b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
        b"a = " + b"{b=" * 5000 + b"1" + b"}" * 5000 + b"\n",
    ],
    ids=["arrays", "inline-tables"],
)
def test_deep_nesting_is_a_config_error(data):
    e = error(data)
    assert "nested too deeply" in e.problem
    assert str(e).startswith(f"{PATH}: ")


@pytest.mark.parametrize(
    "text, shown",
    [
        ('["a\\nb"]\nx = 1\n', r'"a\nb": unknown key'),
        ('[journal]\n"ca\\ntegory" = 1\n', r'journal."ca\ntegory": unknown key'),
        ('[channels.stable]\nplan = ["de\\nploy"]\n', r'"de\nploy" is not a phase'),
        ('[channels."x\\u001b[31m"]\nplan = ["build"]\n', r'"x\u001b[31m" is not a valid'),
        ('[journal]\n"a\\u2028b" = 1\n', r'journal."a\u2028b": unknown key'),
    ],
)
def test_control_characters_are_escaped_so_the_error_stays_one_line(text, shown):
    message = str(error(text.encode()))
    assert message.isprintable(), repr(message)
    assert len(message.splitlines()) == 1
    assert shown in message


@pytest.mark.parametrize(
    "text, key",
    [
        ("[attempt]\nexpires_after = 9223372036854775807\n", "attempt.expires_after"),
        ("[attempt]\nexpires_after = 1000000000000\n", "attempt.expires_after"),
        ("[pacing]\nwrite_interval = 1e308\n", "pacing.write_interval"),
        ("[lease]\nlength = 9223372036854775807\n", "lease.length"),
        ("[lease]\nacquire_timeout = 1e300\n", "lease.acquire_timeout"),
        ("[lease]\nclock_skew = 1e300\n", "lease.clock_skew"),
        ("[lease]\nrequest_timeout = 1e300\nlength = 200\n",
         "lease.request_timeout"),
    ],
)
def test_durations_beyond_ten_years_are_refused(text, key):
    # Unbounded durations overflow later: a timestamp past year 9999 (the record's *time*
    # has four digits) or time.sleep's range, as an internal error at write time.
    e = error(text.encode())
    assert e.key == key
    assert "at most 315360000" in str(e)
