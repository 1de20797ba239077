"""The configuration agrees with ghattempt.core on the contract rules it checks early.

The config refuses a bad plan or a bad request key at load time with a precise message;
the core is the authority on the wire shapes. These tests pin the two together.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import ghattempt.core as core
from ghattempt.config import PHASES, ConfigError, parse_config
from ghattempt.core._records import check_plan, is_key

PATH = ".github/ghattempt.toml"


def test_phase_order_is_the_core_one():
    assert PHASES is core.PHASES


def core_accepts_plan(plan: list[str]) -> bool:
    try:
        check_plan(plan)
    except core.JournalInvalid:
        return False
    return True


@given(st.lists(st.sampled_from([*PHASES, "deploy", "rollback", "Build"]), max_size=10))
def test_a_plan_loads_exactly_when_the_core_accepts_it(plan):
    text = "[channels.c]\nplan = [" + ", ".join(f'"{p}"' for p in plan) + "]\n"
    try:
        cfg = parse_config(text.encode(), path=PATH)
    except ConfigError as e:
        assert e.key == "channels.c.plan"
        assert not core_accepts_plan(plan)
    else:
        assert core_accepts_plan(plan)
        assert cfg.channel("c").plan == check_plan(plan)


@given(st.text(max_size=140))
def test_a_rendered_request_key_is_returned_exactly_when_the_core_calls_it_a_key(base_ref):
    cfg = parse_config(b'[attempt]\nrequest_key = "{base_ref}"\n', path=PATH)
    try:
        key = cfg.request_key(repository_id="R_x", pull_request=1, base_ref=base_ref)
    except ConfigError as e:
        assert e.key == "attempt.request_key"
        assert not is_key(base_ref)
    else:
        assert key == base_ref and is_key(key)


def test_generation_config_builds_a_core_generation(tmp_path):
    cfg = parse_config(b"[pacing]\nwrite_interval = 2\n", path=PATH)
    generation = core.build_generation(
        source_commit="a" * 40,
        tree="b" * 40,
        config_path=cfg.path,
        config_blob=cfg.blob,
        config_digest=cfg.digest,
        base_ref="main",
        base_commit="c" * 40,
    )
    assert (generation.config_path, generation.config_blob, generation.config_digest) == (
        cfg.path,
        cfg.blob,
        cfg.digest,
    )


@pytest.mark.parametrize("channel", ["release", "v1.x", "a-b_c.d"])
def test_default_request_key_renders_a_core_key_for_valid_channel_names(channel):
    text = f'[channels."{channel}"]\nplan = ["build"]\n'
    cfg = parse_config(text.encode(), path=PATH)
    key = cfg.request_key(repository_id="R_kgDOx", pull_request=12, base_ref="release/2.x")
    assert is_key(key)


@given(
    st.integers(min_value=1, max_value=400),
    st.floats(min_value=0.5, max_value=120, allow_nan=False),
    st.floats(min_value=0, max_value=60, allow_nan=False),
)
def test_a_lease_loads_exactly_when_the_exclusive_layer_accepts_it(length, timeout, skew):
    from ghattempt.exclusive import LeaseSettings as Rule
    from ghattempt.exclusive import LeaseSettingsError

    text = f"[lease]\nlength = {length}\nrequest_timeout = {timeout!r}\nclock_skew = {skew!r}\n"
    try:
        Rule(lease_seconds=length, request_timeout=timeout, clock_skew=skew)
        accepted = True
    except LeaseSettingsError:
        accepted = False
    try:
        lease = parse_config(text.encode(), path=PATH).settings.lease
    except ConfigError as e:
        assert e.key == "lease.length" and not accepted
    else:
        assert accepted and lease.lease_seconds == length
