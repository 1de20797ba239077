"""``ghattempt.action`` with hostile step environments: one ``::error::`` line, exit 2."""

from __future__ import annotations

import pytest

from ghattempt.action import run

TOKEN = "ghs_hostileActionToken0123456789"


def base_env(**changes: str) -> dict[str, str]:
    env = {"GHATTEMPT_COMMAND": "status", "GHATTEMPT_TOKEN": TOKEN,
           "GHATTEMPT_PULL_REQUEST": "1", "GITHUB_RUN_ID": "7", "GITHUB_RUN_ATTEMPT": "1",
           "GITHUB_REPOSITORY": "octo-org/widgets", "GITHUB_API_URL": "http://127.0.0.1:9/"}
    env.update(changes)
    return env


@pytest.mark.parametrize("name", ["GHATTEMPT_PULL_REQUEST", "GITHUB_RUN_ID",
                                  "GITHUB_RUN_ATTEMPT"])
@pytest.mark.parametrize("value", ["\u00b2", "\u0663", "9" * 5000, "9007199254740992", "0"])
def test_a_number_input_that_is_not_plain_decimal_is_an_input_error(
        name: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    # the run variables are read by the writing commands only
    command = "status" if name == "GHATTEMPT_PULL_REQUEST" else "admit"
    rc = run(base_env(GHATTEMPT_COMMAND=command, **{name: value}))
    out, err = capsys.readouterr()
    assert rc == 2
    lines = out.splitlines()
    assert lines[0] == f"::add-mask::{TOKEN}"
    assert len(lines) == 2 and lines[1].startswith("::error title=ghattempt::")
    assert "Traceback" not in err
    assert TOKEN not in out[len(lines[0]):] + err


@pytest.mark.parametrize("event", [
    '{"pull_request": {"number": 1, "base": "main"}}',
    '{"pull_request": {"number": 1, "base": {"ref": ["main"]}}}',
    '{"pull_request": "1"}',
    '[1, 2]',
    '{"pull_request": {"number": true}}',
    "\u00ff\u00fe",
    "[" * 100_000,
])
def test_a_malformed_event_file_is_an_input_error_not_a_traceback(
        event: str, tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "event.json"
    path.write_text(event, encoding="utf-8")
    env = base_env(GITHUB_EVENT_PATH=str(path), GHATTEMPT_COMMAND="admit",
                   GITHUB_WORKSPACE=str(tmp_path))
    del env["GHATTEMPT_PULL_REQUEST"]
    if event.startswith('{"pull_request": {"number": 1'):
        env["GHATTEMPT_CONFIG"] = "missing.toml"  # stops before any request
    rc = run(env)
    out, err = capsys.readouterr()
    assert rc == 2, out + err
    line = out.splitlines()[1]
    assert line.startswith("::error ") and "title=ghattempt::" in line
    assert "Traceback" not in err
