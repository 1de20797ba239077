"""The ``status`` table shows record text inert: no terminal escapes, no extra lines."""

from __future__ import annotations

from ghattempt.core.testing import Scenario
from ghattempt.render._summary import text_report


def test_control_characters_in_a_reason_are_escaped_in_the_table() -> None:
    s = Scenario()
    a = s.attempt()
    a.event("admission", "started")
    a.event("admission", "waiting", "\x1b]0;owned\x07\x1b[2J line one\nline two\r")
    verdict = s.read()
    assert verdict.valid
    report = text_report(verdict, "https://github.com/octo-org/widgets/discussions/7")
    assert "\x1b" not in report and "\x07" not in report and "\r" not in report
    rows = [line for line in report.splitlines() if "waiting" in line and "admission" in line]
    assert len(rows) == 1  # the newline inside the reason did not split the row
    assert "\\x1b" in rows[0] or "\\u001b" in rows[0]
    assert "\nintent " in report  # ordinary lines keep their newlines
