"""End to end: the App reacts to none of its own writes (issue 11, section 2).

The running App server (store sink) writes a journal on the HTTP emulator: the journal
Discussion, the attempt and a recorded event, its lease refs. The emulator then delivers,
signed as GitHub signs them, the webhook deliveries those writes cause (real
@octokit/webhooks-examples payloads with the App's bot as sender and author, carrying
the journal's real bodies and ids), and an edit of a record sent by the App's own bot.
The App writes nothing to GitHub for any of them. The control: the same edit by alice
gets the failing check run, and the delivery that check run causes changes nothing
either."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import httpx

from ghattempt.app.inbox import open_inbox

from .conftest import APP_ID, REPO, SECRET, Emu, Server
from .test_store_sink_e2e import CONFIG, _accepted, _adjust, _job, _pull_request, app  # noqa: F401

BOT = {"login": "ghattempt-app[bot]", "id": 5550001, "node_id": "BOT_kgDOAFSjMQ", "type": "Bot"}
"""The App's bot as REST and webhook payloads name it (GraphQL: ``ghattempt-app``)."""
ALICE = {"login": "alice", "id": 2, "node_id": "U_alice", "type": "User"}
WRITES = ("POST", "PATCH", "PUT", "DELETE")


def _writes(emu: Emu) -> list[tuple[str, str, tuple[str, ...]]]:
    """Every GitHub write the emulator has answered: mutations and REST writes (the
    installation token exchange is no write to the repository)."""
    log = httpx.get(f"{emu.url}/_emulator/requests", timeout=30).json()["requests"]
    return [(e["method"], e["path"], tuple(e["root_fields"])) for e in log
            if (e["kind"] == "mutation"
                or (e["kind"] == "rest" and e["method"] in WRITES
                    and not e["path"].endswith("/access_tokens")))]


def _deliver(emu: Emu, event: str, payload: dict[str, Any]) -> tuple[str, int]:
    """GitHub delivers ``payload`` to the App's webhook now; its guid and the App's
    answer code."""
    guid = str(uuid.uuid4())
    entry = emu.admin("hooks/deliveries", {"app_id": APP_ID, "event": event,
                                           "payload": payload, "guid": guid})
    return guid, int(entry["status_code"])


def _own_deliveries(example: Callable[..., dict[str, Any]], emu: Emu,
                    discussion: dict[str, Any], number: int) -> list[tuple[str, dict[str, Any]]]:
    """What GitHub sends for the journal the App wrote: ``discussion`` created, a
    ``discussion_comment`` created for each of its comments and replies, ``create`` and
    ``push`` for its lease refs, all sent by the App's bot."""
    out: list[tuple[str, dict[str, Any]]] = []
    created = _adjust(example("discussion", "created"), emu)
    created["discussion"].update(node_id=discussion["id"], number=number,
                                 body=discussion["body"], user=BOT)
    created["sender"] = BOT
    out.append(("discussion", created))
    for comment in discussion["comments"]["nodes"]:
        for node, parent in [(comment, None), *((r, comment) for r in comment["replies"]["nodes"])]:
            payload = _adjust(example("discussion_comment", "created"), emu)
            payload["discussion"].update(node_id=discussion["id"], number=number,
                                         body=discussion["body"], user=BOT)
            payload["comment"].update(node_id=node["id"], body=node["body"], user=BOT,
                                      parent_id=None if parent is None else 1)
            payload["sender"] = BOT
            out.append(("discussion_comment", payload))
    (repo,) = [r for r in emu.state()["repositories"] if r["id"] == emu.repository_id]
    (lease,) = [name for name in repo["refs"] if "ghattempt/lease/" in name]
    for event in ("create", "push"):
        payload = _adjust(example(event, None), emu)
        payload["ref"] = lease if event == "push" else lease.removeprefix("refs/heads/")
        if event == "push":
            payload["after"] = repo["refs"][lease]
        payload["sender"] = BOT
        out.append((event, payload))
    return out


def _edited(example: Callable[..., dict[str, Any]], emu: Emu, discussion: dict[str, Any],
            number: int, record: dict[str, Any], sender: dict[str, Any]) -> dict[str, Any]:
    payload = _adjust(example("discussion_comment", "edited"), emu)
    payload["discussion"].update(node_id=discussion["id"], number=number,
                                 body=discussion["body"])
    payload["comment"].update(node_id=record["id"], body="rewritten", user=sender)
    payload["changes"] = {"body": {"from": record["body"]}}
    payload["sender"] = sender
    return payload


def test_the_app_reacts_to_none_of_its_own_writes_over_http(
        app: Server, emu: Emu, example: Callable[..., dict[str, Any]]) -> None:  # noqa: F811
    emu.commit(".github/ghattempt.toml", CONFIG)
    app.start()
    emu.admin("hooks", {"app_id": APP_ID, "url": app.url + "/webhook", "secret": SECRET})
    # the App's real writes: the journal, the attempt, one recorded event
    _accepted(app.post("pull_request", _pull_request(example, "opened", emu)))
    emu.admin("runs", {"repository": REPO, "run_id": 9001, "path": ".github/workflows/ci.yml",
                       "name": "CI", "head_sha": emu.pull().head_oid})
    _accepted(app.post("workflow_job", _job(example, emu, run_id=9001, job_id=500,
                                            name="compile", workflow="CI")))
    assert app.wait_idle() == {"pending": 0, "done": 2, "failed": 0}, app.log_text()
    verdict, pages = emu.verdict()
    assert verdict.valid and len(verdict.current.events) == 1, verdict.to_json()
    discussion = pages[0]["data"]["repository"]["discussion"]
    number = emu.journal_number()
    replies = [r for c in discussion["comments"]["nodes"] for r in c["replies"]["nodes"]]
    (record,) = [r for r in replies if "run:9001" in r["body"]]
    head = emu.pull().head_oid
    writes = _writes(emu)
    assert any("addDiscussionComment" in roots for _, _, roots in writes), writes

    # what GitHub sends for those writes: acknowledged, nothing stored, nothing written
    own = _own_deliveries(example, emu, discussion, number)
    assert [event for event, _ in own] == [
        "discussion", "discussion_comment", "discussion_comment", "create", "push"]
    for event, payload in own:
        guid, status = _deliver(emu, event, payload)
        assert status == 200, (event, status)
    # an edit of a record sent by the App's own bot: accepted, then ignored
    guid, status = _deliver(emu, "discussion_comment",
                            _edited(example, emu, discussion, number, record, BOT))
    assert status == 202, status
    counts = app.wait_idle()
    assert counts == {"pending": 0, "done": 3, "failed": 0}, app.log_text()
    inbox = open_inbox(app.state)
    try:
        state, outcome = inbox.state_of(guid)  # type: ignore[misc]
    finally:
        inbox.close()
    assert state == "done", outcome
    assert outcome == {"results": [], "note": "event discussion_comment/edited was sent by "
                                              "this App itself"}, outcome
    assert _writes(emu) == writes, app.log_text()
    assert emu.check_runs(head) == []

    # the control: the same edit by alice is tampering, a failing check run
    _, status = _deliver(emu, "discussion_comment",
                         _edited(example, emu, discussion, number, record, ALICE))
    assert status == 202, status
    assert app.wait_idle() == {"pending": 0, "done": 4, "failed": 0}, app.log_text()
    runs = emu.check_runs(head)
    assert [(r["name"], r["conclusion"]) for r in runs] == [("ghattempt journal", "failure")]
    assert "by alice" in runs[0]["output"]["summary"]
    after = _writes(emu)
    assert [w for w in after if w not in writes] == [
        ("POST", f"/repos/{REPO}/check-runs", ())], after

    # the check run is the App's write too: its delivery changes nothing
    check = _adjust(example("check_run", "created"), emu)
    check["check_run"].update(id=runs[0]["id"], head_sha=head, name="ghattempt journal",
                              conclusion="failure", status="completed")
    check["check_run"]["app"].update(id=APP_ID, slug="ghattempt-app")
    check["sender"] = BOT
    _, status = _deliver(emu, "check_run", check)
    assert status == 200, status
    assert app.wait_idle()["done"] == 4
    assert _writes(emu) == after
    assert len(emu.check_runs(head)) == 1
