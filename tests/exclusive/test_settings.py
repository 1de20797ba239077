from __future__ import annotations

import math

import pytest

from ghattempt.exclusive import LeaseSettings, LeaseSettingsError


def test_defaults_are_valid_and_margin_follows_the_formula():
    s = LeaseSettings(request_timeout=20.0, acquire_timeout=60.0)
    assert s.margin == s.request_timeout + s.server_bound + s.clock_skew == 35.0
    assert s.server_bound == 10.0  # GitHub's bound
    assert s.minimum_lease == 35.0 + 2 * 20.0 + 1.0
    assert s.lease_seconds > s.minimum_lease
    assert s.effective_renew_window == (120 - 76) / 2


def test_too_short_a_lease_is_refused_with_the_numbers():
    with pytest.raises(LeaseSettingsError) as info:
        LeaseSettings(lease_seconds=60, request_timeout=20.0)
    text = str(info.value)
    assert "lease_seconds=60 is too short" in text
    assert "76 s" in text and "request_timeout (20)" in text and "server_bound (10)" in text
    # exactly the minimum is still too short (strictly greater needed)
    with pytest.raises(LeaseSettingsError):
        LeaseSettings(lease_seconds=76, request_timeout=20.0)
    LeaseSettings(lease_seconds=77, request_timeout=20.0)


def test_a_longer_request_timeout_needs_a_longer_lease():
    # T = 35: margin 50, minimum 50 + 70 + 1 = 121 > 120
    with pytest.raises(LeaseSettingsError):
        LeaseSettings(request_timeout=35.0)
    # T = 34: margin 49, minimum 49 + 68 + 1 = 118 < 120
    LeaseSettings(request_timeout=34.0)
    LeaseSettings(request_timeout=35.0, lease_seconds=122)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lease_seconds": 120.5},
        {"lease_seconds": True},
        {"request_timeout": 0},
        {"request_timeout": math.nan},
        {"request_timeout": math.inf},
        {"server_bound": -1},
        {"clock_skew": -0.5},
        {"acquire_timeout": -1},
        {"backoff_initial": 0},
        {"backoff_initial": 5, "backoff_max": 2},
        {"backoff_factor": 0.5},
        {"renew_window": -1},
        {"renew_window": 1000},
        {"ref_prefix": "heads/ghattempt/"},
        {"ref_prefix": "refs/heads/ghattempt"},
        {"ref_prefix": "refs/heads/../x/"},
        {"holder_label": ""},
        {"holder_label": "has space"},
        {"holder_label": "x" * 97},
    ],
)
def test_bad_values_are_refused(kwargs):
    with pytest.raises(LeaseSettingsError):
        LeaseSettings(**kwargs)


def test_settings_error_is_also_a_value_error():
    with pytest.raises(ValueError):
        LeaseSettings(lease_seconds=10)
