"""The lane of a delivery: decided from the payload, a run joins its pull request's lane
only through a head that pull request's delivery claimed when it was accepted."""

from __future__ import annotations

import copy

from ghattempt.app.inbox import open_inbox
from ghattempt.app.lanes import Claim, Decision, decide, pull_request_lane

from .conftest import encode


def test_each_event_has_its_lane(example):
    opened = example("pull_request", "opened")
    repo = opened["repository"]["node_id"]
    number = opened["pull_request"]["number"]
    head = opened["pull_request"]["head"]["sha"]
    assert decide("pull_request", opened, "d1") == Decision(
        pull_request_lane(repo, number), claims=(Claim(repo, head, f"pr:{repo}:{number}"),))
    job = example("workflow_job", "completed")
    job_head = job["workflow_job"]["head_sha"]
    job_repo = job["repository"]["node_id"]
    assert decide("workflow_job", job, "d2") == Decision(
        f"head:{job_repo}:{job_head}", head=(job_repo, job_head))
    run = example("workflow_run", "completed")
    decision = decide("workflow_run", run, "d3")
    assert decision.head == (run["repository"]["node_id"], run["workflow_run"]["head_sha"])
    comment = example("discussion_comment", "edited")
    assert decide("discussion_comment", comment, "d4").lane == (
        f"discussion:{comment['repository']['node_id']}:{comment['discussion']['number']}")


def test_a_payload_without_its_fields_is_a_lane_of_its_own(example):
    assert decide("pull_request", {}, "d1") == Decision("delivery:d1")
    broken = example("pull_request", "opened")
    broken["pull_request"]["number"] = "2"
    assert decide("pull_request", broken, "d2") == Decision("delivery:d2")
    job = example("workflow_job", "completed")
    del job["workflow_job"]["head_sha"]
    assert decide("workflow_job", job, "d3") == Decision("delivery:d3")
    assert decide("push", {"repository": {"node_id": "R_1"}}, "d4") == Decision("delivery:d4")


def test_a_run_joins_the_lane_of_the_pull_request_that_claimed_its_head(tmp_path, example):
    inbox = open_inbox(tmp_path / "inbox.sqlite")
    opened = example("pull_request", "opened")
    repo, head = opened["repository"]["node_id"], opened["pull_request"]["head"]["sha"]
    job = example("workflow_job", "completed")
    job["repository"]["node_id"] = repo
    job["workflow_job"]["head_sha"] = head
    early = copy.deepcopy(job)
    early["workflow_job"]["id"] += 1
    # before the pull request's delivery: a lane of its own; after: the pull request's
    inbox.accept("j0", "workflow_job", "completed", encode(early))
    inbox.accept("p1", "pull_request", "opened", encode(opened))
    inbox.accept("j1", "workflow_job", "completed", encode(job))
    lanes = dict(inbox._conn().execute("SELECT delivery, lane FROM deliveries").fetchall())
    pr_lane = pull_request_lane(repo, opened["pull_request"]["number"])
    assert lanes == {"j0": f"head:{repo}:{head}", "p1": pr_lane, "j1": pr_lane}
    inbox.close()
