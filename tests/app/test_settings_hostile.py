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
