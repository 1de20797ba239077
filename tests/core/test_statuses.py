"""Every attempt status and every recovery selector (docs/journal-format.md sections 8 and 10)."""

from __future__ import annotations

import pytest

from ghattempt.core import ATTEMPT_STATUSES, blocks_fresh_attempt, recovery_for
from ghattempt.core.testing import Scenario

PLAN = ("admission", "build", "merge")


def fresh() -> tuple[Scenario, object]:
    s = Scenario()
    return s, s.attempt(plan=PLAN)


def test_pending_continues_at_first_phase() -> None:
    s, _ = fresh()
    v = s.read()
    assert (v.status, v.recovery, v.reason) == ("pending", "continue:admission", None)
    assert v.missing_phases == PLAN
    assert v.exit_code == 0 and v.valid


def test_running_continues_at_first_open_phase() -> None:
    s, a = fresh()
    a.succeed("admission")
    a.event("build", "started")
    v = s.read()
    assert (v.status, v.recovery) == ("running", "continue:build")
    assert v.missing_phases == ("build", "merge")


def test_running_after_a_phase_succeeded_without_next_started() -> None:
    s, a = fresh()
    a.succeed("admission")
    v = s.read()
    assert (v.status, v.recovery) == ("running", "continue:build")


def test_waiting_reports_the_waiting_reason() -> None:
    s, a = fresh()
    a.succeed("admission")
    a.event("build", "waiting", "Waiting for a runner")
    v = s.read()
    assert (v.status, v.recovery, v.reason) == ("waiting", "wait:build", "Waiting for a runner")


def test_waiting_then_started_is_running_again() -> None:
    s, a = fresh()
    a.event("admission", "waiting", "queued")
    a.event("admission", "started")
    assert s.read().status == "running"


def test_reconciling_names_the_unknown_phase() -> None:
    s, a = fresh()
    a.succeed("admission", "build")
    a.event("merge", "unknown", "Merge API timed out")
    v = s.read()
    assert (v.status, v.recovery, v.reason) == ("reconciling", "reconcile:merge",
                                                "Merge API timed out")


@pytest.mark.parametrize("outcome", ["succeeded", "failed", "unknown"])
def test_unknown_resolves_to_succeeded_failed_or_unknown(outcome: str) -> None:
    s, a = fresh()
    a.event("admission", "unknown", "lost response")
    a.event("admission", outcome)
    expected = {"succeeded": "running", "failed": "failed", "unknown": "reconciling"}
    assert s.read().status == expected[outcome]


def test_succeeded_needs_every_plan_phase() -> None:
    s, a = fresh()
    a.succeed()
    v = s.read()
    assert (v.status, v.recovery, v.reason, v.missing_phases) == ("succeeded", "none", None, ())


@pytest.mark.parametrize("status,recovery", [("failed", "successor"),
                                             ("cancelled", "successor"),
                                             ("superseded", "new-generation")])
def test_phase_terminal_outcomes(status: str, recovery: str) -> None:
    s, a = fresh()
    a.succeed("admission")
    a.event("build", "started")
    a.event("build", status, f"build {status} for a reason")
    v = s.read()
    assert (v.status, v.recovery, v.reason) == (status, recovery, f"build {status} for a reason")
    assert v.missing_phases == ("build", "merge")


@pytest.mark.parametrize("status,recovery", [("cancelled", "successor"),
                                             ("superseded", "new-generation")])
def test_attempt_level_outcomes(status: str, recovery: str) -> None:
    s, a = fresh()
    a.event("admission", "started")
    a.event(None, status, "by a person")
    v = s.read()
    assert (v.status, v.recovery, v.reason) == (status, recovery, "by a person")


def test_expired_before_admission() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN, expires_at="2026-03-01T00:30:00Z")
    a.event(None, "expired", "nobody picked it up", at="2026-03-01T00:30:00Z")
    v = s.read()
    assert (v.status, v.recovery, v.reason) == ("expired", "successor", "nobody picked it up")


def test_rollback_cycle() -> None:
    s, a = fresh()
    a.succeed()
    a.event("rollback", "started")
    v = s.read()
    assert (v.status, v.recovery, v.reason, v.missing_phases) == (
        "rolling-back", "continue:rollback", None, ())
    a.event("rollback", "succeeded")
    v = s.read()
    assert (v.status, v.recovery, v.reason) == ("rolled-back", "successor", None)


def test_rollback_failed_is_manual_with_its_reason() -> None:
    s, a = fresh()
    a.succeed()
    a.event("rollback", "started")
    a.event("rollback", "failed", "Revert conflicts")
    v = s.read()
    assert (v.status, v.recovery, v.reason) == ("rollback-failed", "manual", "Revert conflicts")


def test_empty_journal_admits_with_null_key() -> None:
    s = Scenario()
    s.fixture.root("A human note", author=None)
    v = s.read()
    assert (v.status, v.recovery, v.request_key, v.attempt, v.ignored) == (
        "empty", "admit", None, None, 1)
    assert v.intent == s.intent.digest


def test_empty_for_an_unknown_request_key_keeps_the_key() -> None:
    s, a = fresh()
    v = s.read(request_key="release/v9")
    assert (v.status, v.recovery, v.request_key) == ("empty", "admit", "release/v9")
    assert [x["status"] for x in v.to_json()["attempts"]] == ["pending"]


def test_several_keys_need_a_request_key() -> None:
    s = Scenario()
    s.attempt(request_key="a")
    s.attempt(request_key="b").event("admission", "started")
    v = s.read()
    assert (v.status, v.reason, v.exit_code, v.recovery) == ("invalid", "bad_input", 2,
                                                             "fail-closed")
    assert v.journal is not None  # the journal itself is valid
    v = s.read(request_key="b")
    assert (v.status, v.request_key) == ("running", "b")


def test_the_current_attempt_is_the_chain_tip() -> None:
    s = Scenario()
    first = s.attempt(plan=PLAN)
    first.event("admission", "failed", "no")
    second = s.attempt(plan=PLAN, predecessor=first)
    v = s.read()
    assert v.attempt == second.id
    assert [a["status"] for a in v.to_json()["attempts"]] == ["failed", "pending"]
    assert v.to_json()["attempts"][1]["predecessor"] == first.id


def test_every_status_has_a_selector_and_a_blocking_class() -> None:
    blocking = {s for s in ATTEMPT_STATUSES if blocks_fresh_attempt(s)}
    assert blocking == {"pending", "running", "waiting", "reconciling", "succeeded",
                        "rolling-back", "rollback-failed"}
    for status in ATTEMPT_STATUSES:
        selector = recovery_for(status, "build")
        assert selector in {"continue:build", "continue:rollback", "wait:build",
                            "reconcile:build", "none", "successor", "new-generation",
                            "manual"}
    assert recovery_for("empty") == "admit"
    assert recovery_for("invalid") == "fail-closed"
    with pytest.raises(ValueError):
        recovery_for("waiting")
