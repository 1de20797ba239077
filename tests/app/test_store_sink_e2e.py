"""End to end: the running App server (uvicorn subprocess) with the store sink, against
the HTTP emulator (subprocess) with App auth (the JWT is signed by githubkit and
verified by the emulator), driven by @octokit/webhooks-examples payloads adjusted to
the emulator's repository and pull request and signed again. Every check reads the
journal back by capturing it and running the reader."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from .conftest import APP_DB_ID, APP_ID, INSTALLATION, REPO, Emu, Server, encode

CONFIG = f"""
[journal]
category = "release-journal"

[writer]
login = "ghattempt-app"
database_id = {APP_DB_ID}

[channels.release]
plan = ["build", "review"]

[pacing]
write_interval = 0

[lease]
length = 30
request_timeout = 5
clock_skew = 1
acquire_timeout = 20

[[app.jobs]]
workflow = "ci.yml"
job = "compile"
phase = "build"
""".encode()
REQUEST_KEY = "pr-1:main:release"


def _store_server(emu: Emu, server_factory: Callable[..., Server], **env: str) -> Server:
    """A server (not started) writing through the store to the emulator."""
    return server_factory(GHATTEMPT_APP_SINK="ghattempt.app.store_sink:store_sink",
                          GHATTEMPT_GITHUB_API_URL=emu.url + "/",
                          GHATTEMPT_HTTP_TIMEOUT="5", **env)


@pytest.fixture
def app(emu: Emu, server_factory: Callable[..., Server]) -> Server:
    return _store_server(emu, server_factory)


def _opened(emu: Emu, server_factory: Callable[..., Server],
            example: Callable[..., dict[str, Any]], **env: str) -> Server:
    """A started store server (``env`` added) whose pull request was opened: its journal
    and first attempt are written."""
    app = _store_server(emu, server_factory, **env)
    emu.commit(".github/ghattempt.toml", CONFIG)
    app.start()
    _accepted(app.post("pull_request", _pull_request(example, "opened", emu)))
    assert app.wait_idle()["done"] == 1, app.log_text()
    return app


def _adjust(payload: dict[str, Any], emu: Emu) -> dict[str, Any]:
    payload["repository"]["node_id"] = emu.repository_id
    payload["repository"]["full_name"] = REPO
    payload["repository"]["name"] = "widgets"
    payload["installation"] = {"id": INSTALLATION}
    return payload


def _pull_request(example: Callable[..., dict[str, Any]], action: str, emu: Emu,
                  **extra: Any) -> bytes:
    payload = _adjust(example("pull_request", action), emu)
    pr = emu.pull()
    payload["number"] = 1
    payload["pull_request"].update(number=1)
    payload["pull_request"]["head"].update(sha=pr.head_oid, ref=pr.head_ref_name)
    payload["pull_request"]["base"].update(sha=pr.base_oid, ref=pr.base_ref_name)
    payload.update(extra)
    return encode(payload)


def _job(example: Callable[..., dict[str, Any]], emu: Emu, *, run_id: int, job_id: int,
         name: str, workflow: str, conclusion: str = "success") -> bytes:
    payload = _adjust(example("workflow_job", "completed"), emu)
    job = payload["workflow_job"]
    job.update(id=job_id, run_id=run_id, run_attempt=1, name=name, workflow_name=workflow,
               head_sha=emu.pull().head_oid, conclusion=conclusion, status="completed")
    return encode(payload)


def _accepted(r: httpx.Response) -> None:
    assert r.status_code == 202, (r.status_code, r.text)


def _events(verdict_pages: tuple[Any, list[Any]], attempt_index: int) -> list[Any]:
    verdict, _ = verdict_pages
    assert verdict.journal is not None, verdict.to_json()
    return list(verdict.journal.attempts[attempt_index].events)


def test_pull_request_lifecycle_through_the_store(app: Server, emu: Emu,
                                                  example: Callable[..., dict[str, Any]]) -> None:
    emu.commit(".github/ghattempt.toml", CONFIG)
    app.start()
    # opened -> the journal and one pending attempt at the head
    _accepted(app.post("pull_request", _pull_request(example, "opened", emu)))
    assert app.wait_idle() == {"pending": 0, "done": 1, "failed": 0}, app.log_text()
    verdict, _ = emu.verdict()
    assert verdict.valid, verdict.to_json()
    assert [a["status"] for a in verdict.attempts] == ["pending"]
    first = verdict.current
    assert first.attempt.generation.source_commit == emu.pull().head_oid
    assert first.attempt.generation.config_path == ".github/ghattempt.toml"

    # synchronize -> superseded + a new attempt, its successor
    before = emu.pull().head_oid
    after = emu.commit("src/widget.py", b"print('widget')\n")
    _accepted(app.post("pull_request", _pull_request(example, "synchronize", emu,
                                                     before=before, after=after)))
    assert app.wait_idle()["failed"] == 0, app.log_text()
    verdict, _ = emu.verdict()
    assert [a["status"] for a in verdict.attempts] == ["superseded", "pending"]
    assert verdict.current.predecessor == first.id
    assert verdict.current.attempt.generation.source_commit == after

    # workflow_job completed, mapped by the repository's [[app.jobs]] (ci.yml/compile)
    emu.admin("runs", {"repository": REPO, "run_id": 9001, "path": ".github/workflows/ci.yml",
                       "name": "CI", "head_sha": after})
    job = _job(example, emu, run_id=9001, job_id=500, name="compile", workflow="CI")
    delivery = str(uuid.uuid4())
    _accepted(app.post("workflow_job", job, delivery=delivery))
    assert app.wait_idle()["failed"] == 0, app.log_text()
    verdict, _ = emu.verdict()
    (event,) = verdict.current.events
    assert (event.phase, event.status, event.key) == ("build", "succeeded",
                                                      "run:9001:1:job:500:cfg:succeeded")
    assert event.writer.to_dict() == {"kind": "app", "app_id": APP_ID, "delivery": delivery}

    # a replayed delivery (same id; and the same body under a new id) writes nothing
    assert app.post("workflow_job", job, delivery=delivery).status_code == 200
    assert app.post("workflow_job", job).status_code == 200
    app.wait_idle()
    verdict, _ = emu.verdict()
    assert len(verdict.current.events) == 1

    # an edited record -> a failing check run on the pull request's head
    _, pages = emu.verdict()
    number = emu.journal_number()
    discussion = pages[0]["data"]["repository"]["discussion"]
    replies = [r for c in discussion["comments"]["nodes"] for r in c["replies"]["nodes"]]
    record = [r for r in replies if "run:9001" in r["body"]][0]
    emu.admin("tamper", {"action": "edit", "node": record["id"], "body": "rewritten"})
    payload = _adjust(example("discussion_comment", "edited"), emu)
    payload["discussion"].update(node_id=discussion["id"], number=number,
                                 body=discussion["body"])
    payload["comment"].update(node_id=record["id"], body="rewritten")
    payload["changes"] = {"body": {"from": record["body"]}}
    _accepted(app.post("discussion_comment", encode(payload)))
    assert app.wait_idle()["failed"] == 0, app.log_text()
    runs = emu.check_runs(after)
    assert [(r["name"], r["conclusion"]) for r in runs] == [("ghattempt journal", "failure")]
    assert runs[0]["app"] == {"slug": "ghattempt-app"}
    assert runs[0]["output"]["title"] == "journal record changed: a record was edited"
    assert "without the changed record" in runs[0]["output"]["summary"]


def test_killed_after_answering_the_event_appears_once(app: Server, emu: Emu,
                                                       example: Callable[..., dict[str, Any]]
                                                       ) -> None:
    emu.commit(".github/ghattempt.toml", CONFIG)
    app.start()
    _accepted(app.post("pull_request", _pull_request(example, "opened", emu)))
    app.wait_idle()
    # the review job (mapped by the server's phase file: CodeQL/linters) first needs build
    emu.admin("runs", {"repository": REPO, "run_id": 7, "path": ".github/workflows/ci.yml",
                       "name": "CI", "head_sha": emu.pull().head_oid})
    _accepted(app.post("workflow_job", _job(example, emu, run_id=7, job_id=70,
                                            name="compile", workflow="CI")))
    app.wait_idle()
    # the comment's answer is held back 3 s after it committed; the server, which has
    # answered 202, is killed meanwhile: the comment landed, the done mark did not
    emu.admin("faults", {"kind": "latency", "operation": "addDiscussionComment",
                         "latency_ms": 3000, "after_commit": True, "count": 1})
    emu.admin("runs", {"repository": REPO, "run_id": 8, "name": "CodeQL",
                       "path": ".github/workflows/codeql.yml", "head_sha": emu.pull().head_oid})
    job = _job(example, emu, run_id=8, job_id=80, name="linters", workflow="CodeQL")
    _accepted(app.post("workflow_job", job))
    deadline = time.monotonic() + 10
    while "run:8:1:job:80" not in json.dumps(emu.state()):
        assert time.monotonic() < deadline, app.log_text()
        time.sleep(0.01)
    app.kill()
    time.sleep(3)  # the emulator answers (to nobody)
    emu.admin("clock", {"advance": 120})  # the dead writer's lease runs out on GitHub's clock
    app.start()
    counts = app.wait_idle(30)
    assert counts == {"pending": 0, "done": 3, "failed": 0}, app.log_text()
    restarted = app.logs[-1].read_text()
    assert "workflow_job/completed done: PhaseResult already-applied" in restarted, restarted
    verdict, _ = emu.verdict()
    assert verdict.valid, verdict.to_json()
    keys = [e.key for e in verdict.current.events]
    assert keys == ["run:7:1:job:70:cfg:succeeded", "run:8:1:job:80:review:succeeded"]


def _discussion_payload(example: Callable[..., dict[str, Any]], action: str, emu: Emu,
                        discussion: dict[str, Any], number: int) -> bytes:
    """A real ``discussion`` payload for ``action`` on the journal. The examples have
    none for ``deleted``: it is the ``created`` one with that action (GitHub sends the
    Discussion as it was)."""
    if action == "deleted":
        payload = _adjust(example("discussion", "created"), emu)
        payload["action"] = "deleted"
    else:
        payload = _adjust(example("discussion", action), emu)
    payload["discussion"].update(node_id=discussion["id"], number=number,
                                 body=discussion["body"])
    payload["sender"] = {"login": "alice", "id": 2, "type": "User"}
    return encode(payload)


@pytest.mark.parametrize("action,admin,title", [
    ("deleted", {"action": "delete"}, "the journal was deleted"),
    ("transferred", {"action": "transfer", "repository": "octo-org/widgets-archive"},
     "the journal was transferred to another repository"),
    ("category_changed", {"action": "move", "category": "general"},
     "the journal was moved to another category"),
])
def test_a_journal_deleted_transferred_or_moved_fails_a_check_run(
        app: Server, emu: Emu, example: Callable[..., dict[str, Any]], action: str,
        admin: dict[str, Any], title: str) -> None:
    emu.commit(".github/ghattempt.toml", CONFIG)
    app.start()
    _accepted(app.post("pull_request", _pull_request(example, "opened", emu)))
    assert app.wait_idle()["failed"] == 0, app.log_text()
    _, pages = emu.verdict()
    discussion = pages[0]["data"]["repository"]["discussion"]
    number = emu.journal_number()
    emu.admin("discussion", {**admin, "node": discussion["id"]})
    _accepted(app.post("discussion", _discussion_payload(example, action, emu, discussion,
                                                         number)))
    assert app.wait_idle()["failed"] == 0, app.log_text()
    runs = emu.check_runs(emu.pull().head_oid)
    assert [(r["name"], r["conclusion"]) for r in runs] == [("ghattempt journal", "failure")]
    assert runs[0]["output"]["title"] == title
    assert "fail closed" in runs[0]["output"]["summary"]


def test_a_result_before_its_synchronize_waits_for_it_and_one_for_an_old_head_is_refused(
        app: Server, emu: Emu, example: Callable[..., dict[str, Any]]) -> None:
    from ghattempt.app.inbox import open_inbox

    emu.commit(".github/ghattempt.toml", CONFIG)
    app.start()
    _accepted(app.post("pull_request", _pull_request(example, "opened", emu)))
    assert app.wait_idle()["done"] == 1, app.log_text()
    before = emu.pull().head_oid
    after = emu.commit("src/widget.py", b"print('widget')\n")  # pushed; no synchronize yet
    emu.admin("runs", {"repository": REPO, "run_id": 77, "path": ".github/workflows/ci.yml",
                       "name": "CI", "head_sha": after})
    early = str(uuid.uuid4())
    _accepted(app.post("workflow_job", _job(example, emu, run_id=77, job_id=7,
                                            name="compile", workflow="CI"), delivery=early))
    inbox = open_inbox(app.state)
    deadline = time.monotonic() + 30
    while "waiting" not in json.dumps(inbox.state_of(early)):
        assert time.monotonic() < deadline, app.log_text()
        time.sleep(0.05)
    # the synchronize comes after its job's result; the result was set aside, not refused
    _accepted(app.post("pull_request", _pull_request(example, "synchronize", emu,
                                                     before=before, after=after)))
    assert app.wait_idle(60) == {"pending": 0, "done": 3, "failed": 0}, app.log_text()
    verdict, _ = emu.verdict()
    assert [a["status"] for a in verdict.attempts] == ["superseded", "running"]
    assert verdict.current.attempt.generation.source_commit == after
    assert [e.key for e in verdict.current.events] == ["run:77:1:job:7:cfg:succeeded"]
    state, outcome = inbox.state_of(early)
    assert state == "done" and outcome["results"][0]["outcome"] == "applied"

    # a result for the old head is refused at once: no waiting, the store's reason
    emu.admin("runs", {"repository": REPO, "run_id": 78, "path": ".github/workflows/ci.yml",
                       "name": "CI", "head_sha": before})
    old = json.loads(_job(example, emu, run_id=78, job_id=8, name="compile", workflow="CI"))
    old["workflow_job"]["head_sha"] = before
    late = str(uuid.uuid4())
    _accepted(app.post("workflow_job", encode(old), delivery=late))
    assert app.wait_idle(30)["pending"] == 0
    state, outcome = inbox.state_of(late)
    (result,) = outcome["results"]
    assert state == "done" and result["outcome"] == "refused"
    assert "an earlier attempt's head" in result["detail"]
    tries = inbox._conn().execute("SELECT tries FROM deliveries WHERE delivery = ?",
                                  (late,)).fetchone()[0]
    assert tries == 0
    inbox.close()


def _lease_writes(emu: Emu, at_least: int) -> int:
    """Writes of lease refs (acquire, renew, release) in the emulator's request log, once
    there are ``at_least`` (a burst lets its scope go after its last done mark)."""
    deadline = time.monotonic() + 30
    while True:
        log = httpx.get(f"{emu.url}/_emulator/requests", timeout=30).json()["requests"]
        writes = sum(1 for e in log
                     if {"createCommitOnBranch", "updateRefs", "createRef"} & set(e["root_fields"])
                     or e["operation"] in ("git/create-ref", "git/update-ref"))
        if writes >= at_least or time.monotonic() > deadline:
            return writes
        time.sleep(0.05)


def test_results_accepted_while_their_pull_request_is_written_join_its_hold(
        emu: Emu, server_factory: Callable[..., Server],
        example: Callable[..., dict[str, Any]]) -> None:
    """One worker; the results that arrive while the first one is written join its burst,
    and the four are written under one lease hold."""
    app = _opened(emu, server_factory, example, GHATTEMPT_APP_WORKERS="1")
    head = emu.pull().head_oid
    jobs = [(10, "action_required"), (11, "action_required"), (12, "action_required"),
            (13, "success")]
    for run_id in (9, 10, 11, 12, 13):
        emu.admin("runs", {"repository": REPO, "run_id": run_id,
                           "path": ".github/workflows/ci.yml", "name": "CI", "head_sha": head})
    # one result alone: what one hold of the writer scope costs
    httpx.delete(f"{emu.url}/_emulator/requests", timeout=10)
    _accepted(app.post("workflow_job", _job(example, emu, run_id=9, job_id=9, name="compile",
                                            workflow="CI", conclusion="action_required")))
    assert app.wait_idle()["failed"] == 0, app.log_text()
    alone = _lease_writes(emu, 2)
    assert alone == 2  # an acquisition and a release
    httpx.delete(f"{emu.url}/_emulator/requests", timeout=10)
    bodies = [_job(example, emu, run_id=run_id, job_id=run_id, name="compile",
                   workflow="CI", conclusion=conclusion) for run_id, conclusion in jobs]
    # the first result's first request takes 1.5 s: the next three arrive meanwhile
    emu.admin("faults", {"kind": "latency", "latency_ms": 1500, "count": 1})
    for body in bodies:
        _accepted(app.post("workflow_job", body))
    assert app.wait_idle(60) == {"pending": 0, "done": 6, "failed": 0}, app.log_text()
    assert _lease_writes(emu, alone) == alone  # four results, one acquisition and release
    verdict, _ = emu.verdict()
    assert verdict.valid, verdict.to_json()
    assert [e.key for e in verdict.current.events] == [
        f"run:{n}:1:job:{n}:cfg:{status}" for n, status in (
            (9, "waiting"), (10, "waiting"), (11, "waiting"), (12, "waiting"),
            (13, "succeeded"))]


def test_a_result_whose_attempt_never_comes_is_refused_at_the_windows_end(
        emu: Emu, server_factory: Callable[..., Server],
        example: Callable[..., dict[str, Any]]) -> None:
    """A run of a head pushed to the pull request whose ``synchronize`` never arrives: the
    store answers "not yet" (the current attempt is at the old head), the delivery is
    tried again until ``GHATTEMPT_APP_RETRY_WINDOW`` (here 3 s) after its acceptance, then
    refused with the store's reason."""
    from ghattempt.app.inbox import open_inbox

    app = _opened(emu, server_factory, example, GHATTEMPT_APP_RETRY_WINDOW="3")
    pull = emu.pull()
    before = pull.head_oid
    after = emu.commit("src/widget.py", b"print('widget')\n")
    payload = _adjust(example("workflow_run", "completed"), emu)
    payload["workflow_run"].update(
        id=88, run_attempt=1, name="Tests", path=".github/workflows/test.yml",
        head_sha=after, conclusion="success", status="completed",
        pull_requests=[{"number": 1, "head": {"sha": after, "ref": pull.head_ref_name},
                        "base": {"sha": pull.base_oid, "ref": "main"}}])
    late = str(uuid.uuid4())
    _accepted(app.post("workflow_run", encode(payload), delivery=late))
    assert app.wait_idle(30) == {"pending": 0, "done": 2, "failed": 0}, app.log_text()
    inbox = open_inbox(app.state)
    state, outcome = inbox.state_of(late)
    (result,) = outcome["results"]
    assert state == "done" and result["outcome"] == "refused", outcome
    assert result["detail"].startswith("still not there 3 s after the delivery was accepted: ")
    assert f"is at head {before}, not {after}" in result["detail"]  # the store's reason
    tries, received, finished = inbox._conn().execute(
        "SELECT tries, received_at, finished_at FROM deliveries WHERE delivery = ?",
        (late,)).fetchone()
    assert tries >= 3 and 3.0 <= finished - received < 10.0
    inbox.close()
    verdict, _ = emu.verdict()
    assert verdict.current.events == ()
