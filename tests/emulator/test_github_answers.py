"""Over HTTP on 127.0.0.1: the answers and limits github.com gives that a first contact
meets (docs/emulator.md, "What GitHub does, and where it is written"): "was submitted too
quickly", locked and full discussions, content limits per actor and the rate-limit
headers, branch events, and the switches that make the emulator misbehave as a
repository where a relied-on behaviour does not hold."""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer, FaultRule

from .conftest import ADD_COMMENT, CREATE_DISCUSSION, GQL, comment, new_discussion, repo_info

pytestmark = pytest.mark.network
REPO = "octo-org/widgets"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
LOCK_STATE = """query($n: Int!) { repository(owner: "octo-org", name: "widgets") {
  discussion(number: $n) { locked activeLockReason } } }"""
COMMENTS = """query($n: Int!) { repository(owner: "octo-org", name: "widgets") {
  discussion(number: $n) { comments(first: 100) { nodes { body lastEditedAt
    includesCreatedEdit replies(first: 100) { nodes { body } } } } } } }"""
EDIT = """mutation($id: ID!, $body: String!) {
  updateDiscussionComment(input: {commentId: $id, body: $body}) { comment { id } } }"""
COMMIT_ON_BRANCH = """mutation($head: GitObjectID!) {
  createCommitOnBranch(input: {branch: {repositoryNameWithOwner: "octo-org/widgets",
    branchName: "main"}, expectedHeadOid: $head, message: {headline: "x"},
    fileChanges: {additions: []}}) { commit { oid } } }"""


def serve(emu: Emulator) -> Iterator[tuple[Emulator, httpx.Client]]:
    with EmulatorServer(emu) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        yield emu, http


@pytest.fixture
def served() -> Iterator[tuple[Emulator, httpx.Client]]:
    yield from serve(Emulator(fixture=DEFAULT_FIXTURE))


def rest(http: httpx.Client, token: str, method: str, path: str, body: Any = None,
         **kw: Any) -> httpx.Response:
    return http.request(method, f"/repos/{REPO}/{path}", json=body,
                        headers={"Authorization": f"bearer {token}"}, **kw)


def count_comments(gql: GQL, number: int) -> int:
    nodes = gql.data(COMMENTS, n=number)["repository"]["discussion"]["comments"]["nodes"]
    return len(nodes)


# ------------------------------------------------- "was submitted too quickly"
def test_submitted_too_quickly_refuses_content_creation_in_githubs_shape(
        served: Any) -> None:
    emu, http = served
    actions = GQL(http, "ghs_actions")
    d = new_discussion(actions)
    emu.add_fault(FaultRule("submitted_too_quickly", count=1))
    actions.data('query { viewer { login } }')  # not content creation: the rule waits
    body = actions(ADD_COMMENT, d=d["id"], body="attempt", to=None)
    assert body["data"] == {"addDiscussionComment": None}
    (error,) = body["errors"]
    assert error["type"] == "UNPROCESSABLE" and error["path"] == ["addDiscussionComment"]
    assert error["message"] == "was submitted too quickly" and error["locations"]
    assert count_comments(actions, d["number"]) == 0  # nothing was written
    assert comment(actions, d["id"], "again")["body"] == "again"


def test_submitted_too_quickly_may_have_landed(served: Any) -> None:
    emu, http = served
    actions = GQL(http, "ghs_actions")
    d = new_discussion(actions)
    emu.add_fault({"kind": "submitted_too_quickly", "landed": True, "count": 1})
    body = actions(ADD_COMMENT, d=d["id"], body="attempt", to=None)
    assert body["errors"][0]["message"] == "was submitted too quickly"
    assert body["data"] == {"addDiscussionComment": None}
    assert count_comments(actions, d["number"]) == 1  # the write is there: read back


def test_a_cool_down_refuses_every_content_creation_of_that_actor(served: Any) -> None:
    emu, http = served
    actions, alice = GQL(http, "ghs_actions"), GQL(http, "ghp_alice")
    d = new_discussion(actions)
    http.post("/_emulator/faults", json={"kind": "submitted_too_quickly", "count": 1,
                                         "cooldown_s": 600})
    assert actions(ADD_COMMENT, d=d["id"], body="a", to=None)["errors"][0]["message"] == (
        "was submitted too quickly")
    repo = repo_info(actions)
    cat = repo["discussionCategories"]["nodes"][0]["id"]
    again = actions(CREATE_DISCUSSION, r=repo["id"], c=cat, title="t", body="b")
    assert again["errors"][0]["message"] == "was submitted too quickly"
    made = rest(http, "ghs_actions", "POST", "git/commits",
                {"message": "m", "tree": EMPTY_TREE, "parents": []})
    assert made.status_code == 422
    assert made.json()["message"] == "Validation Failed"
    assert made.json()["errors"][0]["message"] == "was submitted too quickly"
    assert comment(alice, d["id"], "another actor")["body"] == "another actor"
    http.post("/_emulator/clock", json={"advance": 601})
    assert comment(actions, d["id"], "after the cool-down")["body"] == "after the cool-down"


# ------------------------------------------------------------------ locked
def test_a_lock_bot_locks_the_journal_and_the_first_read_sees_it(served: Any) -> None:
    emu, http = served
    actions = GQL(http, "ghs_actions")
    d = new_discussion(actions)
    assert actions.data(LOCK_STATE, n=d["number"])["repository"]["discussion"] == {
        "locked": False, "activeLockReason": None}
    locked = http.post("/_emulator/discussion", json={"action": "lock", "node": d["id"]})
    assert locked.status_code == 200, locked.text
    assert actions.data(LOCK_STATE, n=d["number"])["repository"]["discussion"] == {
        "locked": True, "activeLockReason": None}
    refused = actions(ADD_COMMENT, d=d["id"], body="event", to=None)
    assert refused["errors"][0]["type"] == "FORBIDDEN"
    emu.lock_discussion(d["id"], "RESOLVED")
    assert actions.data(LOCK_STATE, n=d["number"])["repository"]["discussion"][
        "activeLockReason"] == "RESOLVED"
    http.post("/_emulator/discussion", json={"action": "unlock", "node": d["id"]})
    assert comment(actions, d["id"], "event")["body"] == "event"


# -------------------------------------------------------------------- full
def test_a_full_discussion_refuses_the_comment_past_the_cap() -> None:
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["limits"] = {"discussion_comments": 3}
    for emu, http in serve(Emulator(fixture=data)):
        actions = GQL(http, "ghs_actions")
        d = new_discussion(actions)
        root = comment(actions, d["id"], "attempt")
        comment(actions, d["id"], "event 1", to=root["id"])  # replies count too
        comment(actions, d["id"], "event 2", to=root["id"])
        body = actions(ADD_COMMENT, d=d["id"], body="event 3", to=root["id"])
        assert body["data"] == {"addDiscussionComment": None}
        assert body["errors"][0]["type"] == "FORBIDDEN"
        assert body["errors"][0]["message"] == (
            "Commenting is disabled on issues with more than 3 comments")
        other = new_discussion(actions)  # the cap is per discussion
        assert comment(actions, other["id"], "fine")["body"] == "fine"
    assert Emulator(fixture=DEFAULT_FIXTURE).discussion_comments == 2500


# ---------------------------------------------------------- limits per actor
def test_content_limits_count_per_actor_and_headers_show_the_budget() -> None:
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["limits"] = {"content_per_minute": 3}
    data["tokens"] += [{"token": "ghs_inst2", "actor": "ghattempt-app", "role": "write",
                        "installation_id": 2}]
    for emu, http in serve(Emulator(fixture=data)):
        one, two = GQL(http, "ghs_app"), GQL(http, "ghs_inst2")  # one App bot, two tokens
        d = new_discussion(one)
        comment(one, d["id"], "1")
        comment(two, d["id"], "2")
        limited = two.raw(ADD_COMMENT, d=d["id"], body="3", to=None)
        assert limited.status_code == 403 and "secondary rate limit" in limited.text
        assert int(limited.headers["retry-after"]) >= 1
        assert comment(GQL(http, "ghp_alice"), d["id"], "a person")["body"] == "a person"
        answer = one.raw("query { viewer { login } }")
        for header in ("limit", "remaining", "used", "reset", "resource"):
            assert f"x-ratelimit-{header}" in answer.headers
        assert answer.headers["x-ratelimit-resource"] == "graphql"
        assert int(answer.headers["x-ratelimit-remaining"]) == int(
            answer.headers["x-ratelimit-limit"]) - int(answer.headers["x-ratelimit-used"])
        got = rest(http, "ghs_app", "GET", "")
        assert got.headers["x-ratelimit-resource"] == "core"
        # the switch that turns the secondary limits off is explicit
        emu.set_fidelity({"secondary_limits": False})
        assert comment(two, d["id"], "unlimited")["body"] == "unlimited"


# ------------------------------------------------------------- branch events
class _Hooks(BaseHTTPRequestHandler):
    seen: list[tuple[str, dict[str, Any]]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["content-length"]))
        type(self).seen.append((self.headers["x-github-event"], json.loads(body)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        return


def test_a_new_lease_branch_fires_a_create_event_even_with_skip_ci(served: Any) -> None:
    emu, http = served
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from ghattempt.emulator import apps

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    pem = key.public_bytes(serialization.Encoding.PEM,
                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    apps.add_app(emu.state, 4242, "ghattempt-app", pem)
    apps.add_installation(emu.state, 777, 4242, "write", "write", "write", 5000)
    _Hooks.seen = []
    hook = ThreadingHTTPServer(("127.0.0.1", 0), _Hooks)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{hook.server_address[1]}/webhook"
        http.post("/_emulator/hooks", json={"app_id": 4242, "url": url, "secret": "s"})
        made = rest(http, "ghp_alice", "POST", "git/commits",
                    {"message": "lease [skip ci]", "tree": EMPTY_TREE, "parents": []}).json()
        assert rest(http, "ghp_alice", "POST", "git/refs",
                    {"ref": "refs/heads/ghattempt/lease/a", "sha": made["sha"]}).status_code \
            == 201
        time.sleep(0.3)
        assert _Hooks.seen == []  # an App not subscribed to create gets nothing
        http.post("/_emulator/hooks", json={"app_id": 4242, "url": url, "secret": "s",
                                            "events": ["create", "delete"]})
        for token, ref in (("ghp_alice", "b"), ("ghs_app", "c")):  # a person, an App
            assert rest(http, token, "POST", "git/refs", {
                "ref": f"refs/heads/ghattempt/lease/{ref}", "sha": made["sha"]}
            ).status_code == 201
        assert rest(http, "ghs_app", "DELETE",
                    "git/refs/heads/ghattempt/lease/c").status_code == 204
        deadline = time.monotonic() + 10
        while len(_Hooks.seen) < 3:
            assert time.monotonic() < deadline, _Hooks.seen
            time.sleep(0.05)
        events = sorted((event, p["ref"], p["sender"]["login"]) for event, p in _Hooks.seen)
        assert events == [("create", "ghattempt/lease/b", "alice"),
                          ("create", "ghattempt/lease/c", "ghattempt-app[bot]"),
                          ("delete", "ghattempt/lease/c", "ghattempt-app[bot]")]
        created = next(p for e, p in _Hooks.seen if e == "create")
        assert created["ref_type"] == "branch" and created["master_branch"] == "main"
        assert created["installation"] == {"id": 777}
    finally:
        hook.shutdown()


# ------------------------------------------------------------- misbehaving
def test_misbehaving_switches_break_what_a_probe_checks(served: Any) -> None:
    emu, http = served
    actions = GQL(http, "ghs_actions")
    main = rest(http, "ghs_actions", "GET", "git/ref/heads/main").json()["object"]["sha"]
    stale = actions(COMMIT_ON_BRANCH, head=main)
    assert "errors" not in stale
    refused = actions(COMMIT_ON_BRANCH, head=main)  # main moved: stale
    assert refused["errors"][0]["type"] == "STALE_DATA"
    emu.set_fidelity({"stale_data": False})
    assert "errors" not in actions(COMMIT_ON_BRANCH, head=main)  # lands on the moved head

    d = new_discussion(actions)
    first = comment(actions, d["id"], "first")
    comment(actions, d["id"], "second")
    http.post("/_emulator/fidelity", json={"edit_flags": False,
                                           "replies_oldest_first": False})
    actions.data(EDIT, id=first["id"], body="first, edited")
    nodes = actions.data(COMMENTS, n=d["number"])["repository"]["discussion"]["comments"][
        "nodes"]
    assert [n["body"] for n in nodes] == ["second", "first, edited"]
    assert nodes[1]["lastEditedAt"] is None and nodes[1]["includesCreatedEdit"] is False

    emu.set_fidelity({"rate_limit_headers": False})
    bare = actions.raw("query { viewer { login } }")
    assert not [h for h in bare.headers if h.startswith("x-ratelimit-")]

    # a missing permission: a GITHUB_TOKEN without discussions: write
    emu.add_token("ghs_readonly", "github-actions", "write", discussions="read",
                  kind="Bot")
    ro = GQL(http, "ghs_readonly")
    denied = ro(ADD_COMMENT, d=d["id"], body="x", to=None)
    assert denied["errors"][0]["type"] == "FORBIDDEN"
    assert denied["errors"][0]["message"] == "Resource not accessible by integration"

    # a token whose identity is not the configured one
    emu.add_token("ghs_other", "some-other-bot", "write", kind="Bot")
    assert GQL(http, "ghs_other").data("query { viewer { login } }")["viewer"]["login"] == (
        "some-other-bot[bot]")

    # Discussions turned off, an announcement category
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["repositories"][0]["categories"].append(
        {"name": "News", "slug": "news", "format": "announcement"})
    for emu2, http2 in serve(Emulator(fixture=data)):
        bot = GQL(http2, "ghs_actions")
        repo = repo_info(bot)
        news = next(c["id"] for c in repo["discussionCategories"]["nodes"]
                    if c["slug"] == "news")
        refused = bot(CREATE_DISCUSSION, r=repo["id"], c=news, title="t", body="b")
        assert refused["errors"][0]["type"] == "FORBIDDEN"
        assert GQL(http2, "ghp_alice").data(CREATE_DISCUSSION, r=repo["id"], c=news,
                                            title="t", body="b")
        http2.post("/_emulator/repository", json={"repository": REPO,
                                                  "has_discussions": False})
        off = bot(CREATE_DISCUSSION, r=repo["id"],
                  c=repo["discussionCategories"]["nodes"][0]["id"], title="t", body="b")
        assert off["errors"][0]["message"] == "Repository does not have discussions enabled."


# ------------------------------------------------------------ deleteDiscussion
DELETE_DISCUSSION = """mutation($id: ID!) {
  deleteDiscussion(input: {id: $id}) { discussion { id } } }"""
NUMBERED = """query($n: Int!) { repository(owner: "octo-org", name: "widgets") {
  discussion(number: $n) { id } } }"""


def test_delete_discussion_needs_triage_and_takes_its_comments(served: Any) -> None:
    emu, http = served
    actions = GQL(http, "ghs_actions")
    d = new_discussion(actions)
    comment(actions, d["id"], "first")
    # a read-only token (and a token without discussions: write) may not delete it
    denied = GQL(http, "ghp_mallory")(DELETE_DISCUSSION, id=d["id"])
    assert denied["errors"][0]["type"] == "FORBIDDEN"
    emu.add_token("ghs_ro", "github-actions", "write", discussions="read", kind="Bot")
    assert GQL(http, "ghs_ro")(DELETE_DISCUSSION, id=d["id"])["errors"][0]["type"] == (
        "FORBIDDEN")
    assert actions.data(NUMBERED, n=d["number"])["repository"]["discussion"]["id"] == d["id"]
    # write access (a GITHUB_TOKEN with discussions: write) is more than triage: deleted
    gone = actions.data(DELETE_DISCUSSION, id=d["id"])["deleteDiscussion"]["discussion"]
    assert gone["id"] == d["id"]
    after = actions(NUMBERED, n=d["number"])
    assert after["errors"][0]["type"] == "NOT_FOUND"
    assert emu.state.one("SELECT COUNT(*) AS n FROM comments")["n"] == 0
