"""The summary's and the warning's words for what was ignored, and the next phase."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ghattempt.render._summary import (
    event_rows,
    ignored_reasons,
    ignored_text,
    markdown_summary,
    next_phase,
)


def verdict(**kw: object) -> SimpleNamespace:
    base = dict(status="running", reason=None, recovery="continue:build", request_key="k",
                attempt=None, generation=None, missing_phases=("build",), ignored=0,
                detail=None, journal=None, current=None)
    return SimpleNamespace(**(base | kw))


def test_reasons_are_the_cores_counts_by_kind() -> None:
    journal = SimpleNamespace(ignored_kinds=(
        ("deleted", 1), ("edited", 2), ("no record", 1), ("other author", 2),
        ("reply of an ignored comment", 1)))
    v = verdict(ignored=7, journal=journal)
    assert ignored_reasons(v) == {"edited": 2, "deleted": 1, "other author": 2,
                                  "no record": 1, "reply of an ignored comment": 1}
    assert ignored_text(v) == ("7 comments of the journal ignored (deleted: 1, edited: 2, "
                               "no record: 1, other author: 2, reply of an ignored comment: 1)")


def test_without_reasons_the_count_alone() -> None:
    v = verdict(ignored=1, journal=SimpleNamespace())
    assert ignored_text(v) == ("1 comment of the journal ignored (edited, deleted, or not by "
                               "the configured writer)")


@pytest.mark.parametrize("recovery, phase", [
    ("continue:build", "build"), ("wait:review", "review"), ("reconcile:publication",
                                                              "publication"),
    ("continue:rollback", "rollback"), ("none", ""), ("successor", ""), ("admit", ""),
    ("fail-closed", ""), ("new-generation", ""), ("manual", "")])
def test_next_phase(recovery: str, phase: str) -> None:
    assert next_phase(verdict(recovery=recovery)) == phase


@pytest.mark.parametrize("plan, words", [
    (("publication",), "channel hotfix, 1 phase"),
    (("build", "publication"), "channel hotfix, 2 phases")])
def test_an_attempts_row_counts_its_phases_in_words(plan: tuple[str, ...], words: str) -> None:
    # the demo's one-phase hotfix attempt read "channel hotfix, 1 phases"
    attempt = SimpleNamespace(channel="hotfix", plan=plan, predecessor=None,
                              request_key="pr-1:main:hotfix", at="2026-12-07T22:27:19Z",
                              writer=SimpleNamespace(kind="cli", actor="root"))
    state = SimpleNamespace(id="sha256:" + "9a" * 32, status="pending", attempt=attempt,
                            events=())
    [row] = event_rows(SimpleNamespace(attempts=[state]))  # type: ignore[arg-type]
    assert row.reason == words


def test_brief_and_none() -> None:
    v = verdict()
    assert markdown_summary(v, None, mode="none") == ""
    brief = markdown_summary(v, "https://x/d/1", mode="brief", command="record",
                             message="recorded build started")
    assert brief == ("**ghattempt record**: recorded build started: status `running`, "
                     "recovery `continue:build`, next phase `build` \u00b7 "
                     "[journal](https://x/d/1)\n")


def test_token_shaped_record_text_is_never_shown() -> None:
    """A record written before such values were refused (or by hand) may hold one: the
    terminal table, the Markdown summary and the timeline page redact it."""
    from ghattempt.render._summary import _inert, _md
    from ghattempt.render._timeline import _esc

    secret = "ghp_" + "a1" * 18
    for shown in (_inert(f"key {secret}"), _md(f"reason {secret}"), _esc(f"by {secret}")):
        assert secret not in shown and "[redacted]" in shown
