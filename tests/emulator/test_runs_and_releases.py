"""Over HTTP on 127.0.0.1: the Actions REST API a liveness check reads (a run, its
attempts and their jobs, a job) with its documented shapes and the ``actions: read`` it
needs, runs a test starts and ends; releases and their assets with GitHub's ``digest``
(docs/emulator.md, the Actions and releases rows)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer

pytestmark = pytest.mark.network
REPO = "octo-org/widgets"


@pytest.fixture
def served() -> Iterator[tuple[Emulator, httpx.Client]]:
    emu = Emulator(fixture=DEFAULT_FIXTURE)
    with EmulatorServer(emu) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        yield emu, http


def get(http: httpx.Client, path: str, token: str = "ghs_actions", **kw: Any) -> httpx.Response:
    return http.get(f"/repos/{REPO}/{path}", headers={"Authorization": f"bearer {token}"}, **kw)


def test_a_run_its_attempts_and_jobs_as_a_liveness_check_reads_them(served: Any) -> None:
    emu, http = served
    started = http.post("/_emulator/runs", json={
        "repository": REPO, "run_id": 4711, "path": ".github/workflows/release.yml",
        "name": "Release", "head_sha": "a" * 40, "status": "in_progress",
        "jobs": ["build", "publish"]})
    assert started.status_code == 201, started.text
    build, publish = started.json()["jobs"]
    run = get(http, "actions/runs/4711").json()
    assert (run["id"], run["status"], run["conclusion"], run["run_attempt"]) == (
        4711, "in_progress", None, 1)
    assert run["path"] == ".github/workflows/release.yml" and run["head_sha"] == "a" * 40
    jobs = get(http, "actions/runs/4711/attempts/1/jobs").json()
    assert jobs["total_count"] == 2
    assert [(j["name"], j["status"], j["run_attempt"]) for j in jobs["jobs"]] == [
        ("build", "in_progress", 1), ("publish", "in_progress", 1)]
    # one job ends, the run goes on
    http.post(f"/_emulator/jobs/{build['id']}", json={"status": "completed",
                                                      "conclusion": "success"})
    job = get(http, f"actions/jobs/{build['id']}").json()
    assert (job["status"], job["conclusion"], job["run_id"]) == ("completed", "success", 4711)
    assert get(http, f"actions/jobs/{publish['id']}").json()["completed_at"] is None
    # the run is cancelled: its unfinished job is too
    http.post("/_emulator/runs/4711/end", json={"repository": REPO, "conclusion": "cancelled"})
    run = get(http, "actions/runs/4711").json()
    assert (run["status"], run["conclusion"]) == ("completed", "cancelled")
    assert get(http, f"actions/jobs/{publish['id']}").json()["conclusion"] == "cancelled"
    # a re-run is attempt 2; attempt 1 stays as it ended
    rerun = http.post("/_emulator/runs/4711/attempts",
                      json={"repository": REPO, "jobs": ["publish"]}).json()
    assert rerun["run_attempt"] == 2
    assert get(http, "actions/runs/4711").json()["run_attempt"] == 2
    assert get(http, "actions/runs/4711").json()["status"] == "in_progress"
    assert get(http, "actions/runs/4711/attempts/1").json()["conclusion"] == "cancelled"
    assert get(http, "actions/runs/4711/attempts/2/jobs").json()["jobs"][0]["status"] == (
        "in_progress")
    emu.end_workflow_run(REPO, 4711, "failure")
    assert get(http, "actions/runs/4711/attempts/2").json()["conclusion"] == "failure"
    for missing in ("actions/runs/9", "actions/runs/4711/attempts/3",
                    "actions/runs/4711/attempts/3/jobs", "actions/jobs/1"):
        assert get(http, missing).status_code == 404, missing


def test_a_token_without_actions_read_is_refused(served: Any) -> None:
    emu, http = served
    emu.add_workflow_run(REPO, 5, ".github/workflows/ci.yml", "CI", "b" * 40)
    assert get(http, "actions/runs/5").json()["conclusion"] == "success"
    emu.add_token("ghs_noactions", "github-actions", "write", actions="none", kind="Bot")
    refused = get(http, "actions/runs/5", "ghs_noactions")
    assert refused.status_code == 403
    assert refused.json()["message"] == "Resource not accessible by integration"
    assert get(http, "actions/runs/5/attempts/1/jobs", "ghs_noactions").status_code == 403


def test_releases_and_assets_with_their_digests(served: Any) -> None:
    emu, http = served
    emu.add_release(REPO, "v1.0.0", assets=[
        {"name": "widget.tar.gz", "content": "bytes of the widget"},
        {"name": "old.zip", "content": "before digests", "digest": None}])
    found = get(http, "releases/tags/v1.0.0").json()
    assert found["tag_name"] == "v1.0.0" and found["draft"] is False
    assets = {a["name"]: a for a in found["assets"]}
    want = "sha256:" + hashlib.sha256(b"bytes of the widget").hexdigest()
    assert (assets["widget.tar.gz"]["size"], assets["widget.tar.gz"]["digest"]) == (19, want)
    assert assets["old.zip"]["digest"] is None
    listed = get(http, f"releases/{found['id']}/assets").json()
    assert [a["name"] for a in listed] == ["widget.tar.gz", "old.zip"]
    assert get(http, "releases/tags/v9").status_code == 404
    # a draft is not found by its tag
    http.post("/_emulator/releases", json={"repository": REPO, "tag": "v2", "draft": True})
    assert get(http, "releases/tags/v2").status_code == 404
    # REST: create and upload with contents: write
    auth = {"Authorization": "bearer ghs_actions"}
    made = http.post(f"/repos/{REPO}/releases", json={"tag_name": "v3.0.0"}, headers=auth)
    assert made.status_code == 201, made.text
    up = http.post(f"/repos/{REPO}/releases/{made.json()['id']}/assets?name=a.bin",
                   content=b"\x00\x01", headers={**auth, "content-type": "application/zip"})
    assert up.status_code == 201, up.text
    assert up.json()["digest"] == "sha256:" + hashlib.sha256(b"\x00\x01").hexdigest()
    again = http.post(f"/repos/{REPO}/releases/{made.json()['id']}/assets?name=a.bin",
                      content=b"x", headers=auth)
    assert again.status_code == 422
    assert again.json()["errors"][0]["code"] == "already_exists"
    taken = http.post(f"/repos/{REPO}/releases", json={"tag_name": "v3.0.0"}, headers=auth)
    assert taken.status_code == 422
    refused = http.post(f"/repos/{REPO}/releases", json={"tag_name": "v4"},
                        headers={"Authorization": "bearer ghp_mallory"})
    assert refused.status_code == 403
    assert get(http, "git/ref/tags/v3.0.0").status_code == 200  # its tag was created
