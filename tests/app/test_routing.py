"""Routing decisions on the real @octokit/webhooks-examples payloads (no I/O)."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ghattempt.app.phases import PhaseMap, parse_phase_map
from ghattempt.app.routing import (
    Forget,
    PayloadError,
    Remember,
    is_routed,
    make_key,
    plan_delivery,
)
from ghattempt.app.sink import (
    CancelAttempt,
    IntentRef,
    OpenIntent,
    PhaseResult,
    SupersedeAndAdmit,
    TamperingReport,
)
from ghattempt.config import JobPhase

KEY = re.compile(r"[A-Za-z0-9._:/@+=-]{1,128}")
REPO = "MDEwOlJlcG9zaXRvcnkxODY4NTMwMDI="
HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
BASE_SHA = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
INTENT = IntentRef(REPO, "Codertocat/Hello-World", 2, "master")
DELIVERY = "72d3162e-cc78-11e3-81ab-4c9367dc0958"
MAP = PhaseMap(
    jobs=(
        JobPhase(workflow=".github/workflows/test.yml", job=None, phase="build"),
        JobPhase(workflow="CodeQL", job="linters", phase="review"),
    )
)


def no_heads(repository_id: str, head_sha: str) -> list[IntentRef]:
    return []


def plan(
    event: str,
    payload: dict[str, Any],
    lookup: Any = no_heads,
    phase_map: PhaseMap = MAP,
    delivery: str = DELIVERY,
):
    return plan_delivery(
        event, payload, delivery=delivery, app_id=7, phase_map=phase_map, lookup=lookup
    )


def test_opened_admits_the_generation(example):
    p = plan("pull_request", example("pull_request", "opened", installation__id=1))
    (req,) = p.requests
    assert isinstance(req, OpenIntent)
    assert req.intent == INTENT
    assert (req.generation.head_sha, req.generation.base_ref, req.generation.base_sha) == (
        HEAD,
        "master",
        BASE_SHA,
    )
    assert req.installation_id == 1
    assert req.writer.as_record() == {"kind": "app", "app_id": 7, "delivery": DELIVERY}
    assert p.index == (Remember(INTENT, HEAD),)


def test_opened_carries_when_the_pull_request_was_opened(example):
    """The category scan's bound (docs/store.md, "Finding a journal") is the payload's
    ``pull_request.created_at``, as GitHub sent it."""
    payload = example("pull_request", "opened", installation__id=1)
    (req,) = plan("pull_request", payload).requests
    assert req.opened_at == payload["pull_request"]["created_at"]
    assert req.opened_at.endswith("Z")
    del payload["pull_request"]["created_at"]
    (req,) = plan("pull_request", payload).requests
    assert req.opened_at is None


def test_pull_request_keys_follow_the_delivery(example):
    """A redelivery (same id) repeats the key; a later reopen (new id) gets its own."""
    opened = plan("pull_request", example("pull_request", "opened")).requests[0]
    again = plan("pull_request", example("pull_request", "opened")).requests[0]
    reopened = plan(
        "pull_request", example("pull_request", "reopened"), delivery="0f0e-reopen"
    ).requests[0]
    assert isinstance(reopened, OpenIntent)
    assert again.key == opened.key == f"gh:{DELIVERY}:open"
    assert reopened.key == "gh:0f0e-reopen:open"


def test_synchronize_supersedes_and_admits_the_new_head(example):
    payload = example("pull_request", "synchronize")
    (req,) = plan("pull_request", payload).requests
    assert isinstance(req, SupersedeAndAdmit)
    assert req.superseded == req.admit == INTENT
    assert req.generation.head_sha == payload["after"] == HEAD
    assert payload["before"] in req.reason and HEAD in req.reason


def test_edited_with_a_new_base_moves_to_the_new_intent(example):
    payload = example("pull_request", "opened")
    payload["action"] = "edited"
    payload["pull_request"]["base"]["ref"] = "release"
    payload["changes"] = {"base": {"ref": {"from": "master"}, "sha": {"from": BASE_SHA}}}
    p = plan("pull_request", payload)
    (req,) = p.requests
    assert isinstance(req, SupersedeAndAdmit)
    assert req.superseded == INTENT
    assert req.admit == IntentRef(REPO, "Codertocat/Hello-World", 2, "release")
    assert "master" in req.reason and "release" in req.reason
    assert p.index == (Forget(REPO, 2, "master"), Remember(req.admit, HEAD))


def test_edited_title_only_is_nothing(example):
    payload = example("pull_request", "opened")
    payload["action"] = "edited"
    payload["changes"] = {"title": {"from": "old"}}
    p = plan("pull_request", payload)
    assert p.requests == () and p.index == () and "base" in (p.note or "")


def test_closed_unmerged_cancels_with_the_reason(example):
    payload = example("pull_request", "closed")
    assert payload["pull_request"]["merged"] is False
    p = plan("pull_request", payload)
    (req,) = p.requests
    assert isinstance(req, CancelAttempt)
    assert req.intent == INTENT and req.head_sha == HEAD
    assert "closed without merging" in req.reason and payload["sender"]["login"] in req.reason
    assert p.index == (Forget(REPO, 2),)


def test_closed_merged_records_the_mapped_phase(example):
    payload = example("pull_request", "closed")
    payload["pull_request"]["merged"] = True
    (req,) = plan("pull_request", payload).requests
    assert isinstance(req, PhaseResult)
    assert (req.phase, req.status, req.reason, req.head_sha) == ("merge", "succeeded", None, HEAD)
    unmapped = plan("pull_request", payload, phase_map=PhaseMap(merged_phase=None))
    assert unmapped.requests == () and unmapped.index == (Forget(REPO, 2),)


def _run(examples, *, listed: bool) -> dict[str, Any]:
    """A completed, concluded workflow_run example with (or without) listed PRs."""
    for p in examples["workflow_run"]:
        run = p["workflow_run"]
        if (
            p["action"] == "completed"
            and run["conclusion"]
            and bool(run["pull_requests"]) == listed
        ):
            return copy.deepcopy(p)
    raise LookupError("no such workflow_run example")


def test_workflow_run_completed_reports_on_the_listed_pull_request(examples):
    payload = _run(examples, listed=True)
    (req,) = plan("workflow_run", payload).requests
    run = payload["workflow_run"]
    assert isinstance(req, PhaseResult)
    assert req.intent.pull_request == 2 and req.intent.base_ref == "master"
    assert req.intent.repository_id == payload["repository"]["node_id"]
    assert (req.phase, req.status, req.reason) == ("build", "succeeded", None)
    assert req.head_sha == run["head_sha"]
    assert req.key == f"run:{run['id']}:{run['run_attempt']}:build:succeeded"


def test_a_rerun_is_a_new_key_in_the_same_attempt(examples):
    run = _run(examples, listed=True)
    first = plan("workflow_run", run).requests[0]
    run["workflow_run"]["run_attempt"] = 2
    run["workflow_run"]["conclusion"] = "failure"
    second = plan("workflow_run", run).requests[0]
    assert isinstance(second, PhaseResult)
    assert second.intent == first.intent  # same intent: no new attempt is asked for
    assert second.key == f"run:{run['workflow_run']['id']}:2:build:failed"
    assert second.status == "failed" and "attempt 2" in (second.reason or "")


def test_workflow_run_without_listed_pr_uses_the_head_index(examples):
    run = _run(examples, listed=False)
    head = run["workflow_run"]["head_sha"]
    repo = run["repository"]["node_id"]
    intent = IntentRef(repo, run["repository"]["full_name"], 9, "main")
    asked: list[tuple[str, str]] = []

    def lookup(repository_id: str, head_sha: str) -> list[IntentRef]:
        asked.append((repository_id, head_sha))
        return [intent]

    (req,) = plan("workflow_run", run, lookup=lookup).requests
    assert asked == [(repo, head)]
    assert isinstance(req, PhaseResult) and req.intent == intent
    assert "no open pull request" in (plan("workflow_run", run).note or "")


def test_unmapped_workflow_and_unconcluded_runs_record_nothing(example, examples):
    manual = example("workflow_run", "completed", workflow_run__id=1589141559)
    assert plan("workflow_run", manual).requests == ()
    run = _run(examples, listed=True)
    assert plan("workflow_run", run, phase_map=PhaseMap()).requests == ()
    for conclusion in ("skipped", "neutral", "stale", None):
        run["workflow_run"]["conclusion"] = conclusion
        p = plan("workflow_run", run)
        assert p.requests == () and "records nothing" in (p.note or "")


@pytest.mark.parametrize(
    ("conclusion", "status"),
    [
        ("success", "succeeded"),
        ("failure", "failed"),
        ("cancelled", "cancelled"),
        ("timed_out", "failed"),
        ("action_required", "waiting"),
    ],
)
def test_job_conclusions_map_to_statuses(example, conclusion, status):
    job = example("workflow_job", "completed", workflow_job__conclusion="failure")
    job["workflow_job"]["conclusion"] = conclusion
    wj = job["workflow_job"]

    def lookup(repository_id: str, head_sha: str) -> list[IntentRef]:
        return [INTENT] if (repository_id, head_sha) == (REPO, wj["head_sha"]) else []

    (req,) = plan("workflow_job", job, lookup=lookup).requests
    assert isinstance(req, PhaseResult)
    assert (req.phase, req.status) == ("review", status)
    assert req.key == f"run:{wj['run_id']}:{wj['run_attempt']}:job:{wj['id']}:review:{status}"
    if status == "succeeded":
        assert req.reason is None
    else:
        assert req.reason and "linters" in req.reason and conclusion in req.reason


def _journal_body() -> str:
    return '<!-- ghattempt:v1 -->\n```json\n{"type":"intent"}\n```\n'


def test_edit_of_a_journal_record_is_reported(example):
    payload = example("discussion_comment", "edited")
    payload["discussion"]["body"] = _journal_body()
    payload["changes"]["body"]["from"] = _journal_body().replace("intent", "event")
    (req,) = plan("discussion_comment", payload).requests
    assert isinstance(req, TamperingReport)
    assert req.change == "comment_edited"
    assert req.comment_id == payload["comment"]["node_id"]
    assert req.discussion_number == payload["discussion"]["number"]
    assert req.actor == payload["sender"]["login"]


def test_delete_of_a_journal_record_is_reported(example):
    payload = example("discussion_comment", "deleted")
    payload["discussion"]["body"] = _journal_body()
    payload["comment"]["body"] = _journal_body()
    (req,) = plan("discussion_comment", payload).requests
    assert isinstance(req, TamperingReport) and req.change == "comment_deleted"


def test_edits_outside_a_journal_are_ignored(example):
    as_shipped = example("discussion_comment", "edited")
    assert plan("discussion_comment", as_shipped).requests == ()
    payload = example("discussion_comment", "edited")
    payload["discussion"]["body"] = _journal_body()  # a journal, but a human comment
    assert plan("discussion_comment", payload).requests == ()
    assert plan("discussion", example("discussion", "edited")).requests == ()


def test_journal_edit_is_reported(example):
    payload = example("discussion", "edited")
    payload["discussion"]["body"] = _journal_body()
    (req,) = plan("discussion", payload).requests
    assert isinstance(req, TamperingReport)
    assert req.change == "journal_edited" and req.comment_id is None


@pytest.mark.parametrize("action,change", [("deleted", "journal_deleted"),
                                           ("transferred", "journal_transferred"),
                                           ("category_changed", "journal_moved")])
def test_a_journal_that_leaves_its_repository_or_category_is_reported(example, action,
                                                                       change):
    # the examples have no `deleted` payload: the `created` one with that action
    shipped = "created" if action == "deleted" else action
    payload = example("discussion", shipped)
    payload["action"] = action
    payload["discussion"]["body"] = _journal_body()
    (req,) = plan("discussion", payload).requests
    assert isinstance(req, TamperingReport)
    assert req.change == change and req.comment_id is None
    assert req.previous_body == _journal_body()  # the sink reads the intent from it
    assert req.discussion_number == payload["discussion"]["number"]
    # the same change on a Discussion that is no journal is nothing
    assert plan("discussion", example("discussion", shipped) | {"action": action}
                ).requests == ()


# The deliveries the App's own writes cause: a journal Discussion and its comments
# created, lease commits pushed (a branch created, then pushed), check runs created.
OWN_WRITES = [("discussion", "created"), ("discussion_comment", "created"),
              ("create", None), ("push", None), ("check_run", "created"),
              ("check_run", "completed"), ("check_suite", "completed")]


@pytest.mark.parametrize("event,action", OWN_WRITES)
def test_the_app_reacts_to_none_of_its_own_writes(examples, event, action):
    for payload in examples[event]:
        if payload.get("action") != action:
            continue
        payload = copy.deepcopy(payload)
        payload["sender"] = {"login": "ghattempt-app[bot]", "type": "Bot", "id": 9}
        if "discussion" in payload:
            payload["discussion"]["body"] = _journal_body()
        assert plan(event, payload).requests == ()


def test_a_delivery_sent_by_the_app_itself_plans_nothing(example):
    payload = example("discussion", "edited")
    payload["discussion"]["body"] = _journal_body()
    payload["sender"] = {"login": "ghattempt-app[bot]", "type": "Bot", "id": 9}
    own = plan_delivery("discussion", payload, delivery=DELIVERY, app_id=7, phase_map=MAP,
                        lookup=no_heads, bot_login="ghattempt-app[bot]")
    assert own.requests == () and "this App itself" in (own.note or "")
    others = plan_delivery("discussion", payload, delivery=DELIVERY, app_id=7,
                           phase_map=MAP, lookup=no_heads, bot_login="other-app[bot]")
    assert len(others.requests) == 1


def test_every_example_routes_without_error_and_keys_are_journal_keys(examples):
    """Every shipped payload: unrouted ones plan nothing; routed ones make valid keys."""
    lookup_all = lambda repo, head: [INTENT]  # noqa: E731
    seen = 0
    for event, payloads in examples.items():
        for payload in payloads:
            p = plan(event, payload, lookup=lookup_all)
            if not is_routed(event, payload.get("action")):
                assert p.requests == ()
            for req in p.requests:
                seen += 1
                assert KEY.fullmatch(req.key), req.key
                assert req.writer.delivery == DELIVERY
                assert plan(event, payload, lookup=lookup_all).requests == p.requests
    assert seen >= 8


def test_payload_without_needed_fields_is_a_payload_error(example):
    payload = example("pull_request", "opened")
    del payload["pull_request"]["head"]
    with pytest.raises(PayloadError, match="pull_request.head.sha"):
        plan("pull_request", payload)
    payload = example("pull_request", "opened")
    payload["pull_request"]["head"]["sha"] = "not-a-sha"
    with pytest.raises(PayloadError, match="commit id"):
        plan("pull_request", payload)


def test_make_key_refuses_what_the_spec_refuses():
    assert make_key("run", 1, 2, "build", "succeeded") == "run:1:2:build:succeeded"
    with pytest.raises(ValueError, match="journal key"):
        make_key("x" * 129)
    with pytest.raises(ValueError, match="journal key"):
        make_key("has space")


def test_phase_map_file_is_checked():
    m = parse_phase_map(
        {
            "merged_phase": "",
            "workflows": [
                {"workflow": "release", "phase": "build"},
                {"workflow": "release", "job": "sign", "phase": "warrant"},
            ],
        }
    )
    assert m.merged_phase is None
    assert m.phase_for_run("release", None) == "build"
    assert m.phase_for_run(None, "release") == "build"
    assert m.phase_for_job("release", "sign") == "warrant"
    assert m.phase_for_job("other", "sign") is None
    from ghattempt.app.phases import PhaseMapError

    for bad, msg in [
        ({"workflows": [{"workflow": "w", "phase": "deploy"}]}, "phase must be one of"),
        ({"workflows": [{"workflow": "w", "phase": "build"}] * 2}, "second rule"),
        (
            {
                "workflows": [
                    {"workflow": "w", "phase": "build"},
                    {"workflow": "w", "job": "j", "phase": "build"},
                ]
            },
            "already reported",
        ),
        ({"workflows": [{"workflow": "w", "phase": "merge"}]}, "already reported"),
        ({"extra": 1}, "unknown keys"),
        ({"workflows": [{"workflow": "", "phase": "build"}]}, "non-empty"),
    ]:
        with pytest.raises(PhaseMapError, match=msg):
            parse_phase_map(bad)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**40) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    return out


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_odd_payloads_give_a_plan_or_a_payload_error(examples, data):
    """Fail closed: a routed payload with any field replaced by any JSON value is either
    planned or refused with PayloadError, never another exception."""
    routed = [
        (event, p)
        for event, ps in examples.items()
        for p in ps
        if is_routed(event, p.get("action"))
    ]
    event, payload = data.draw(st.sampled_from(routed))
    payload = copy.deepcopy(payload)
    if event.startswith("discussion"):
        payload["discussion"]["body"] = "<!-- ghattempt:v1 -->"
    path = data.draw(st.sampled_from(_paths(payload)))
    target = payload
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = data.draw(JSON)
    try:
        plan(event, payload, lookup=lambda repo, head: [INTENT])
    except PayloadError:
        pass


def test_a_job_the_server_does_not_map_goes_to_the_sink_for_the_repository_mapping(example):
    job = example("workflow_job", "completed", workflow_job__conclusion="failure")
    wj = job["workflow_job"]
    wj["name"] = "compile"

    def lookup(repository_id: str, head_sha: str) -> list[IntentRef]:
        return [INTENT] if (repository_id, head_sha) == (REPO, wj["head_sha"]) else []

    p = plan("workflow_job", job, lookup=lookup)
    (req,) = p.requests
    assert isinstance(req, PhaseResult)
    assert req.phase is None and req.status == "failed"
    assert (req.run_id, req.job_name, req.workflow_name) == (wj["run_id"], "compile",
                                                             wj["workflow_name"])
    assert req.key == f"run:{wj['run_id']}:{wj['run_attempt']}:job:{wj['id']}:cfg:failed"
    assert p.note and "not mapped by the server" in p.note
    # without an open pull request at that head nothing goes anywhere
    assert plan("workflow_job", job).requests == ()


def test_long_reasons_are_cut_to_what_the_core_accepts(example):
    from ghattempt.core._records import is_reason

    payload = example("pull_request", "closed")
    payload["pull_request"]["merged"] = False
    payload["sender"]["login"] = "x" * 2000
    (req,) = plan("pull_request", payload).requests
    assert isinstance(req, CancelAttempt)
    assert is_reason(req.reason) and req.reason.endswith("\u2026")
    assert not is_reason(req.reason + "y")
