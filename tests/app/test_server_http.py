"""The running server over HTTP on 127.0.0.1, fed re-signed @octokit/webhooks-examples.

Each test starts ``python -m ghattempt.app serve`` in a subprocess with the recording
sink (``ghattempt.app.recording``), whose SQLite file is read here.
"""

from __future__ import annotations

import copy
import json
import time
import uuid

import httpx
import pytest

from ghattempt.app.recording import read_calls, read_effects

from .conftest import SECRET, encode, headers, sign

pytestmark = pytest.mark.network

JOURNAL_BODY = '<!-- ghattempt:v1 -->\n```json\n{"type":"intent"}\n```\n'


def _delivery() -> str:
    return str(uuid.uuid4())


def test_each_handled_event_has_its_effect(server_factory, example, examples):
    server = server_factory().start()
    opened = example("pull_request", "opened", installation__id=1)
    head = opened["pull_request"]["head"]["sha"]
    repo = opened["repository"]["node_id"]

    job = example("workflow_job", "completed", workflow_job__conclusion="failure")
    job["workflow_job"]["head_sha"] = head  # the job ran on the opened pull request's head
    run = next(
        p
        for p in examples["workflow_run"]
        if p["action"] == "completed" and p["workflow_run"]["pull_requests"]
    )
    edited = example("pull_request", "opened")
    edited["action"] = "edited"
    edited["pull_request"]["base"]["ref"] = "release"
    edited["changes"] = {"base": {"ref": {"from": "master"}, "sha": {"from": "f" * 40}}}
    merged = example("pull_request", "closed")
    merged["pull_request"]["merged"] = True
    comment = example("discussion_comment", "edited")
    comment["discussion"]["body"] = JOURNAL_BODY
    comment["changes"]["body"]["from"] = JOURNAL_BODY
    journal = example("discussion", "edited")
    journal["discussion"]["body"] = JOURNAL_BODY

    sequence = [
        ("pull_request", opened, "open_intent"),
        ("workflow_job", job, "record_phase"),
        ("workflow_run", run, "record_phase"),
        ("pull_request", example("pull_request", "synchronize"), "supersede_and_admit"),
        ("pull_request", edited, "supersede_and_admit"),
        ("pull_request", example("pull_request", "closed"), "cancel"),
        ("pull_request", merged, "record_phase"),
        ("discussion_comment", comment, "report_tampering"),
        ("discussion", journal, "report_tampering"),
    ]
    deliveries = []
    for event, payload, _ in sequence:
        delivery = _delivery()
        started = time.monotonic()
        response = server.post(event, encode(payload), delivery=delivery)
        elapsed = time.monotonic() - started
        assert response.status_code == 202, response.text
        assert response.json() == {"status": "accepted", "delivery": delivery}
        assert elapsed < 2.0  # GitHub gives 10 s
        deliveries.append(delivery)
    for event, payload in [
        ("pull_request", example("pull_request", "labeled")),
        ("workflow_job", example("workflow_job", "queued")),
        ("ping", examples["ping"][0]),
    ]:
        response = server.post(event, encode(payload))
        assert response.status_code == 200
        assert response.json()["status"] in ("ignored", "pong")

    counts = server.wait_idle()
    assert counts == {"pending": 0, "done": len(sequence), "failed": 0}
    effects = read_effects(server.recording)
    assert [e["method"] for e in effects] == [m for _, _, m in sequence]
    by_delivery = {e["request"]["writer"]["delivery"]: e for e in effects}
    assert list(by_delivery) == deliveries
    for e in effects:
        assert e["request"]["writer"]["app_id"] == 12345

    open_req = effects[0]["request"]
    assert open_req["intent"] == {
        "repository_id": repo,
        "repository_name": "Codertocat/Hello-World",
        "pull_request": 2,
        "base_ref": "master",
    }
    assert open_req["generation"]["head_sha"] == head
    assert open_req["installation_id"] == 1

    job_req = effects[1]["request"]
    wj = job["workflow_job"]
    assert job_req["intent"] == open_req["intent"]  # found through the head index
    assert (job_req["phase"], job_req["status"]) == ("review", "failed")
    assert job_req["key"] == f"run:{wj['run_id']}:{wj['run_attempt']}:job:{wj['id']}:review:failed"

    run_req = effects[2]["request"]
    assert run_req["intent"]["repository_id"] == run["repository"]["node_id"]
    assert (run_req["phase"], run_req["status"]) == ("build", "succeeded")

    assert effects[4]["request"]["superseded"]["base_ref"] == "master"
    assert effects[4]["request"]["admit"]["base_ref"] == "release"
    assert "closed without merging" in effects[5]["request"]["reason"]
    assert (effects[6]["request"]["phase"], effects[6]["request"]["status"]) == (
        "merge",
        "succeeded",
    )
    assert effects[7]["request"]["change"] == "comment_edited"
    assert effects[8]["request"]["change"] == "journal_edited"

    log = server.log_text()
    assert SECRET not in log
    assert "PRIVATE KEY" not in log


def test_signature_headers_and_body_are_checked_before_anything(server_factory, example):
    server = server_factory().start()
    body = encode(example("pull_request", "opened"))
    url = server.url + "/webhook"

    def post(content: bytes, hdrs: dict[str, str]) -> httpx.Response:
        return httpx.post(url, content=content, headers=hdrs, timeout=10)

    good = headers("pull_request", body)
    cases = [
        ({k: v for k, v in good.items() if k != "X-Hub-Signature-256"}, body, 401),
        ({**good, "X-Hub-Signature-256": sign(body, "wrong-secret")}, body, 401),
        ({**good, "X-Hub-Signature-256": sign(body)[:-1] + "0"}, body, 401),
        ({**good, "X-Hub-Signature-256": "sha1=" + sign(body)[7:47]}, body, 401),
        ({**good}, body + b" ", 401),  # body changed after signing
        ({k: v for k, v in good.items() if k != "X-GitHub-Event"}, body, 400),
        ({k: v for k, v in good.items() if k != "X-GitHub-Delivery"}, body, 400),
        ({**good, "X-GitHub-Delivery": "../../etc"}, body, 400),
        (headers("pull_request", b"not json"), b"not json", 400),
        (headers("pull_request", b"[1,2]"), b"[1,2]", 400),
        (headers("pull_request", b"\xff\xfe"), b"\xff\xfe", 400),
    ]
    for hdrs, content, status in cases:
        response = post(content, hdrs)
        assert response.status_code == status, (hdrs, content[:20], response.text)
        assert SECRET not in response.text
    assert server.health()["inbox"] == {"pending": 0, "done": 0, "failed": 0}
    log = server.log_text()
    assert log.count("refused a delivery from 127.0.0.1: 401") == 5
    assert log.count("refused a delivery from 127.0.0.1: 400") == 6
    assert sign(body) not in log and SECRET not in log
    assert post(body, good).status_code == 202  # the untampered delivery is accepted
    server.wait_idle()
    assert len(read_effects(server.recording)) == 1


def test_bodies_over_the_bound_are_refused_while_reading(server_factory, example):
    bound = 64 * 1024
    server = server_factory(GHATTEMPT_APP_MAX_BODY=str(bound)).start()
    payload = example("pull_request", "opened")
    exact = encode(payload)
    exact += b" " * (bound - len(exact))  # JSON allows trailing whitespace
    assert len(exact) == bound
    assert server.post("pull_request", exact).status_code == 202

    over = exact + b" "
    assert server.post("pull_request", over).status_code == 413  # declared length

    def chunks():  # no Content-Length: the server must count while reading
        yield exact
        for _ in range(64):
            yield b" " * 4096

    response = httpx.post(
        server.url + "/webhook", content=chunks(), headers=headers("pull_request", over), timeout=10
    )
    assert response.status_code == 413
    server.wait_idle()
    assert len(read_effects(server.recording)) == 1


def test_default_bound_is_25_mib(server_factory, example):
    server = server_factory().start()
    big = encode(example("pull_request", "opened"))
    big += b" " * (3 * 1024 * 1024)  # verified and parsed off the event loop
    assert server.post("pull_request", big).status_code == 202
    size = 25 * 1024 * 1024 + 1
    started = time.monotonic()
    response = httpx.post(
        server.url + "/webhook",
        content=b"x" * size,
        headers={
            "X-GitHub-Event": "push",
            "X-GitHub-Delivery": "d",
            "X-Hub-Signature-256": "sha256=0",
        },
        timeout=30,
    )
    assert response.status_code == 413
    assert time.monotonic() - started < 10


def test_a_replayed_delivery_has_no_second_effect(server_factory, example):
    server = server_factory().start()
    body = encode(example("pull_request", "opened"))
    delivery = _delivery()
    assert server.post("pull_request", body, delivery=delivery).status_code == 202
    server.wait_idle()
    again = server.post("pull_request", body, delivery=delivery)  # GitHub's redelivery
    assert again.status_code == 200
    assert again.json()["status"] == "duplicate" and again.json()["state"] == "done"
    replay = server.post("pull_request", body)  # same signed body, forged delivery id
    assert replay.status_code == 200 and replay.json()["status"] == "replay"
    assert replay.json()["first_delivery"] == delivery
    other = encode(example("pull_request", "closed"))
    assert server.post("pull_request", other, delivery=delivery).status_code == 409
    server.wait_idle()
    assert len(read_effects(server.recording)) == 1
    assert len(read_calls(server.recording)) == 1


def test_killed_after_answering_the_work_completes_once(server_factory, example):
    server = server_factory(GHATTEMPT_APP_RECORDING_DELAY="60").start()
    bodies = [encode(example("pull_request", "opened")), encode(example("pull_request", "closed"))]
    for body in bodies:
        assert server.post("pull_request", body).status_code == 202
    server.kill()  # SIGKILL while the first delivery is in the sink's hands
    assert read_effects(server.recording) == []
    server.env.pop("GHATTEMPT_APP_RECORDING_DELAY")
    server.start()
    assert server.wait_idle() == {"pending": 0, "done": 2, "failed": 0}
    assert [e["method"] for e in read_effects(server.recording)] == ["open_intent", "cancel"]
    assert len(read_calls(server.recording)) == 2


def test_killed_between_effect_and_done_mark_the_redo_is_a_no_op(server_factory, example):
    # the delay lets the 202 reach the client before the sink applies and the kill comes
    server = server_factory(
        GHATTEMPT_APP_RECORDING_CRASH="after-apply", GHATTEMPT_APP_RECORDING_DELAY="0.3"
    ).start()
    delivery = _delivery()
    assert (
        server.post(
            "pull_request", encode(example("pull_request", "opened")), delivery=delivery
        ).status_code
        == 202
    )
    assert server.wait_exit() == -9  # the sink applied, then the process was SIGKILLed
    assert len(read_effects(server.recording)) == 1
    server.env.pop("GHATTEMPT_APP_RECORDING_CRASH")
    server.env.pop("GHATTEMPT_APP_RECORDING_DELAY")
    server.start()
    server.wait_idle()
    assert len(read_effects(server.recording)) == 1
    assert [c["outcome"] for c in read_calls(server.recording)] == ["applied", "already-applied"]
    redelivered = server.post(
        "pull_request", encode(example("pull_request", "opened")), delivery=delivery
    )
    assert redelivered.status_code == 200 and redelivered.json()["state"] == "done"


def test_an_unavailable_sink_is_retried(server_factory, example):
    server = server_factory(GHATTEMPT_APP_RECORDING_UNAVAILABLE="2").start()
    assert server.post("pull_request", encode(example("pull_request", "opened"))).status_code == 202
    server.wait_idle()
    outcomes = [c["outcome"] for c in read_calls(server.recording)]
    assert outcomes == ["unavailable", "unavailable", "applied"]
    assert "retrying" in server.log_text()


def test_startup_errors_name_the_problem_and_not_the_secret(server_factory, tmp_path):
    server = server_factory(GHATTEMPT_APP_SINK="")
    with pytest.raises(RuntimeError, match="server exited 2") as info:
        server.start()
    assert "GHATTEMPT_APP_SINK" in str(info.value)
    assert SECRET not in server.log_text()
    server.proc = None

    bogus = tmp_path / "bogus.pem"
    bogus.write_text(
        "-----BEGIN RSA PRIVATE KEY-----\nTOPSECRETMATERIAL\n-----END RSA PRIVATE KEY-----\n"
    )
    server2 = server_factory(GHATTEMPT_APP_PRIVATE_KEY_FILE=str(bogus))
    with pytest.raises(RuntimeError, match="not an unencrypted PEM"):
        server2.start()
    assert "TOPSECRETMATERIAL" not in server2.log_text()
    server2.proc = None


def test_inbox_command_reports_and_requeues(server_factory, example, tmp_path):
    import subprocess
    import sys

    server = server_factory()
    env = {**server.env}
    out = subprocess.run(
        [sys.executable, "-m", "ghattempt.app", "inbox"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == {
        "inbox": {"pending": 0, "done": 0, "failed": 0},
        "requeued": 0,
    }


def test_one_server_per_inbox(server_factory):
    first = server_factory().start()
    second = server_factory(GHATTEMPT_APP_STATE=str(first.state))
    with pytest.raises(RuntimeError, match="server exited") as info:
        second.start()
    second.proc = None
    assert "another server is already working the inbox" in str(info.value)
    assert first.health()["status"] == "ok"


def test_a_rerun_reports_into_the_same_attempt(server_factory, examples):
    server = server_factory().start()
    run = next(
        copy.deepcopy(p) for p in examples["workflow_run"]
        if p["action"] == "completed" and p["workflow_run"]["pull_requests"]
    )
    run["workflow_run"]["conclusion"] = "failure"
    assert server.post("workflow_run", encode(run)).status_code == 202
    rerun = copy.deepcopy(run)
    rerun["workflow_run"]["run_attempt"] = 2
    rerun["workflow_run"]["conclusion"] = "success"
    assert server.post("workflow_run", encode(rerun)).status_code == 202
    server.wait_idle()
    effects = read_effects(server.recording)
    assert [e["method"] for e in effects] == ["record_phase", "record_phase"]  # no admission
    first, second = (e["request"] for e in effects)
    assert first["intent"] == second["intent"]
    run_id = run["workflow_run"]["id"]
    assert (first["key"], second["key"]) == (
        f"run:{run_id}:1:build:failed", f"run:{run_id}:2:build:succeeded")
    assert "attempt 1" in first["reason"] and second["reason"] is None
