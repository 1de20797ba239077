"""App settings from hostile environment values: a ConfigurationError, never a traceback."""

from __future__ import annotations

import pytest

from ghattempt.app.settings import ConfigurationError, load_settings

from .test_settings_installation import env_for


@pytest.mark.parametrize("name", ["GHATTEMPT_APP_ID", "GHATTEMPT_APP_MAX_BODY",
                                  "GHATTEMPT_APP_MAX_TRIES"])
def test_an_integer_setting_of_thousands_of_digits_is_a_configuration_error(
        tmp_path, rsa_pem, name):
    env = env_for(tmp_path, rsa_pem[0], **{name: "9" * 5000})
    with pytest.raises(ConfigurationError, match=name):
        load_settings(env)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "fast", "3601"])
def test_a_budget_time_scale_out_of_range_is_a_configuration_error(tmp_path, rsa_pem, value):
    env = env_for(tmp_path, rsa_pem[0], GHATTEMPT_APP_BUDGET_TIME_SCALE=value)
    with pytest.raises(ConfigurationError, match="GHATTEMPT_APP_BUDGET_TIME_SCALE"):
        load_settings(env)


def test_the_budget_time_scale_is_githubs_unless_a_benchmark_sets_it(tmp_path, rsa_pem):
    assert load_settings(env_for(tmp_path, rsa_pem[0])).budget_time_scale == 1.0
    env = env_for(tmp_path, rsa_pem[0], GHATTEMPT_APP_BUDGET_TIME_SCALE="20")
    assert load_settings(env).budget_time_scale == 20.0
