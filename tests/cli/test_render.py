"""The human views (table, Markdown summary, Mermaid) and the progress ticker."""

from __future__ import annotations

import io
import json
import sys
import time
from types import SimpleNamespace

import pytest

from ghattempt.core import read_journal
from ghattempt.render import Progress
from ghattempt.render._summary import markdown_summary, mermaid_phases, text_report

from .conftest import CONFORMANCE, require_cases


def _verdict(case: str):  # type: ignore[no-untyped-def]
    require_cases()
    root = CONFORMANCE / "public" / case
    args = json.loads((root / "args.json").read_text())
    opts = dict(zip(args[::2], args[1::2], strict=True))
    pages = json.loads((root / "input.json").read_text())
    return read_journal(pages, writer=opts["--writer"], repository_id=opts["--repository-id"],
                        request_key=opts.get("--request-key"))


def test_mermaid_follows_the_plan_and_last_statuses() -> None:
    verdict = _verdict("valid-waiting-review-approval")
    assert verdict.current is not None
    plan = verdict.current.attempt.plan
    diagram = mermaid_phases(verdict.current)
    lines = diagram.splitlines()
    assert lines[0] == "flowchart LR"
    labels = [line.split('["', 1)[1].split("<br/>")[0] for line in lines if '["' in line]
    assert labels == list(plan)
    assert '["review<br/>waiting"]' in diagram
    assert sum("-->" in line for line in lines) == len(plan) - 1
    for phase in plan:
        last = verdict.current.phases.get(phase)
        assert f'["{phase}<br/>{last.status if last else "none"}"]' in diagram


def test_text_report_and_summary() -> None:
    verdict = _verdict("valid-waiting-review-approval")
    text = text_report(verdict, "https://github.com/o/r/discussions/3")
    assert text.splitlines()[0].split() == ["journal", "https://github.com/o/r/discussions/3"]
    assert "wait:review" in text and "merge/pr-1280@main" in text
    assert "Waiting for 2 approving reviews" in text
    md = markdown_summary(verdict, "https://github.com/o/r/discussions/3")
    assert md.startswith("### ghattempt: waiting\n")
    assert "| missing phases | `review` `warrant` `merge` `distribution` |" in md
    assert "```mermaid\nflowchart LR" in md
    assert md.count("| `sha256:") >= 2  # the root and its events


def test_invalid_verdict_renders_without_journal() -> None:
    verdict = _verdict("fork-same-seq")
    assert verdict.status == "invalid"
    text = text_report(verdict, None)
    assert "status            invalid (fork)" in text
    assert "fail-closed" in text and "detail" in text
    md = markdown_summary(verdict, None)
    assert md.startswith("### ghattempt: journal invalid (fail closed)")
    assert "mermaid" not in md


def test_markdown_cells_cannot_break_the_table() -> None:
    from ghattempt.render._summary import _md

    assert _md("a|b\nc<!-- x") == "a\\|b c&lt;!-- x"


class _FakeProvider:
    def __init__(self) -> None:
        self.usage = SimpleNamespace(requests=3)


def test_progress_is_silent_for_quick_work(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with Progress(_FakeProvider(), "capturing o/r#1", delay=1.0):  # type: ignore[arg-type]
        time.sleep(0.05)
    assert err.getvalue() == ""


def test_progress_reports_slow_work(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with Progress(_FakeProvider(), "capturing o/r#1", delay=0.05):  # type: ignore[arg-type]
        time.sleep(0.3)
    out = err.getvalue()
    assert out.startswith("capturing o/r#1: 3 requests, ")
    assert out.rstrip().endswith("done")


def test_progress_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setenv("GHATTEMPT_PROGRESS", "0")
    with Progress(_FakeProvider(), "x", delay=0.0):  # type: ignore[arg-type]
        time.sleep(0.1)
    assert err.getvalue() == ""
