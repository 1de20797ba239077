"""Helper of the App quickstart (docs/app.md, "Quickstart"): everything the emulator and
the App server need, so the quickstart itself is a handful of commands.

    prepare.py DIR                      App key, emulator fixture, consumer config, App env
    prepare.py DIR --emulator URL --app URL
                                        wait for both servers, push the config to the pull
                                        request's branch, register the CI run, write the
                                        two webhook payloads for the current head
    prepare.py DIR --app URL --drain    wait until the App's inbox has no pending delivery

Talks only to the loopback emulator and App server. The key it makes is for the emulator
only (it opens nothing on GitHub).
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

APP_ID = 12345
INSTALLATION = 777
APP_DB_ID = 5550001
REPO = "octo-org/widgets"
PUSHER = "ghp_alice"  # the emulator fixture's pull request author
CONFIG = f"""\
[journal]
category = "release-journal"

[writer]
login = "ghattempt-app"
database_id = {APP_DB_ID}

[channels.release]
plan = ["build", "review"]

[lease]
length = 30
request_timeout = 5
clock_skew = 1
acquire_timeout = 20

[pacing]
write_interval = 0

[[app.jobs]]
workflow = "ci.yml"
job = "compile"
phase = "build"
"""


def setup(folder: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from ghattempt.emulator import DEFAULT_FIXTURE

    folder.mkdir(parents=True, exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    (folder / "app.pem").write_bytes(pem)
    (folder / "app.pem").chmod(0o600)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    fixture = copy.deepcopy(DEFAULT_FIXTURE)
    for actor in fixture["actors"]:
        if actor["login"] == "ghattempt-app":
            actor["database_id"] = APP_DB_ID
    fixture["apps"] = [{"app_id": APP_ID, "slug": "ghattempt-app", "public_key": public,
                        "installations": [{"id": INSTALLATION, "role": "write"}]}]
    (folder / "fixture.json").write_text(json.dumps(fixture, indent=1))
    (folder / "ghattempt.toml").write_text(CONFIG)
    import secrets

    (folder / "webhook-secret").write_text(secrets.token_hex(16) + "\n")
    (folder / "webhook-secret").chmod(0o600)
    home = folder.resolve()
    (folder / "app.env").write_text("\n".join([
        f"GHATTEMPT_APP_ID={APP_ID}",
        f"GHATTEMPT_APP_PRIVATE_KEY_FILE={home / 'app.pem'}",
        f"GHATTEMPT_WEBHOOK_SECRET_FILE={home / 'webhook-secret'}",
        f"GHATTEMPT_APP_STATE={home / 'inbox.sqlite3'}",
        "GHATTEMPT_GITHUB_API_URL=http://127.0.0.1:8001/",
        "GHATTEMPT_HTTP_TIMEOUT=5", ""]))
    print(f"prepared {folder}: app.pem, fixture.json, ghattempt.toml, app.env")


def call(url: str, body: Any = None, token: str | None = None) -> Any:
    if not url.startswith("http://127.0.0.1:"):
        raise SystemExit(f"prepare.py talks to loopback servers only, not {url}")
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"bearer {token}"
    req = urllib.request.Request(  # noqa: S310 -- loopback, checked above
        url, data=None if body is None else json.dumps(body).encode(), headers=headers,
        method="GET" if body is None else "POST")
    with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 -- loopback
        return json.loads(resp.read() or b"null")


def wait(url: str, what: str, ready: Any = lambda answer: True, seconds: float = 60) -> Any:
    end = time.monotonic() + seconds
    while True:
        try:
            answer = call(url)
            if ready(answer):
                return answer
        except OSError:
            pass
        if time.monotonic() > end:
            raise SystemExit(f"prepare.py: {what} at {url} is not ready after {seconds:.0f} s")
        time.sleep(0.3)


def graphql(api: str, query: str, variables: dict[str, Any]) -> Any:
    answer = call(api + "graphql", {"query": query, "variables": variables}, PUSHER)
    if answer.get("errors"):
        raise SystemExit(f"prepare.py: the emulator refused: {answer['errors'][0]}")
    return answer["data"]


def push(folder: Path, api: str, app: str) -> None:
    wait(api + "_emulator/state", "the emulator")
    wait(app.rstrip("/") + "/healthz", "the App server")
    owner, name = REPO.split("/")
    pr = graphql(api, "query($o:String!,$n:String!){repository(owner:$o,name:$n){id "
                 "pullRequest(number:1){headRefName headRefOid baseRefName baseRefOid}}}",
                 {"o": owner, "n": name})["repository"]
    commit = graphql(api, "mutation($i:CreateCommitOnBranchInput!){createCommitOnBranch("
                     "input:$i){commit{oid}}}", {"i": {
                         "branch": {"repositoryNameWithOwner": REPO,
                                    "branchName": pr["pullRequest"]["headRefName"]},
                         "expectedHeadOid": pr["pullRequest"]["headRefOid"],
                         "message": {"headline": "Add the release journal configuration"},
                         "fileChanges": {"additions": [{
                             "path": ".github/ghattempt.toml",
                             "contents": base64.b64encode(CONFIG.encode()).decode()}]}}})
    head = commit["createCommitOnBranch"]["commit"]["oid"]
    call(api + "_emulator/runs", {"repository": REPO, "run_id": 9001, "name": "CI",
                                  "path": ".github/workflows/ci.yml", "head_sha": head})
    repository = {"node_id": pr["id"], "full_name": REPO, "name": name}
    opened = {"action": "opened", "number": 1, "installation": {"id": INSTALLATION},
              "repository": repository, "sender": {"login": "alice"},
              "pull_request": {"number": 1, "head": {"sha": head, "ref": "feature"},
                               "base": {"sha": pr["pullRequest"]["baseRefOid"],
                                        "ref": pr["pullRequest"]["baseRefName"]}}}
    job = {"action": "completed", "installation": {"id": INSTALLATION},
           "repository": repository, "sender": {"login": "alice"},
           "workflow_job": {"id": 500, "run_id": 9001, "run_attempt": 1, "name": "compile",
                            "workflow_name": "CI", "head_sha": head, "status": "completed",
                            "conclusion": "success",
                            "html_url": f"https://github.com/{REPO}/actions/runs/9001/job/500"}}
    (folder / "pull_request.opened.json").write_text(json.dumps(opened, indent=1))
    (folder / "workflow_job.completed.json").write_text(json.dumps(job, indent=1))
    print(f"pushed .github/ghattempt.toml (head {head[:12]}); wrote the webhook payloads")


def drain(app: str) -> None:
    def idle(answer: Any) -> bool:
        inbox = answer.get("inbox", {}) if isinstance(answer, dict) else {}
        return inbox.get("pending", 1) == 0

    answer = wait(app.rstrip("/") + "/healthz", "the App's inbox", idle, seconds=120)
    print(f"the App's inbox: {answer['inbox']}")
    if answer["inbox"].get("failed"):
        raise SystemExit("prepare.py: a delivery failed; see the App server's log")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--emulator", metavar="URL")
    parser.add_argument("--app", metavar="URL")
    parser.add_argument("--drain", action="store_true")
    args = parser.parse_args()
    if args.drain:
        drain(args.app or "http://127.0.0.1:8000/")
    elif args.emulator:
        push(args.folder, args.emulator.rstrip("/") + "/", args.app or "http://127.0.0.1:8000/")
    else:
        setup(args.folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
