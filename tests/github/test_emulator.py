"""The provider over real HTTP (127.0.0.1) against the embedded GitHub, reproducing the
field reports: a mutation that committed but answered 502, rate limits in both shapes
and while remaining > 0, read lag, threads past 100 comments, the Actions bot's two
logins, and "could not resolve to a node" right after a create. Waits run on a fake
sleep that moves the emulator's clock instead of sleeping."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from ghattempt.emulator import (
    DEFAULT_FIXTURE,
    Emulator,
    EmulatorServer,
    EmulatorTransport,
    FaultRule,
)
from ghattempt.github import (
    EMPTY_TREE,
    AmbiguousOutcome,
    AuthFailed,
    GitHubProvider,
    GraphQLRefused,
    NotFound,
    ProviderConfig,
    RateLimited,
    RefConflict,
    RetryPolicy,
    TokenAuth,
    floor_requests,
)

pytestmark = pytest.mark.network

OWNER, NAME = "octo-org", "widgets"
ACTIONS = "ghs_actions"


class World:
    def __init__(self, emu: Emulator, server: EmulatorServer) -> None:
        self.emu = emu
        self.server = server
        self.sleeps: list[float] = []
        self.providers: list[GitHubProvider] = []
        self.thread: threading.Thread | None = None

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.emu.clock.advance(seconds)

    def provider(self, token: str = ACTIONS, **kw: Any) -> GitHubProvider:
        kw.setdefault("base_url", self.server.url + "/")
        p = GitHubProvider(ProviderConfig(
            auth=TokenAuth(token), timeout=10,
            mutation_interval=0, sleep=self.sleep, clock=self.emu.clock.now,
            wall_clock=self.emu.clock.now, **kw))
        self.providers.append(p)
        return p

    def ops(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.emu.request_log()
                if e["operation"] == name or name in (e.get("root_fields") or ())]

    def journal(self, p: GitHubProvider) -> tuple[str, int]:
        repo = p.repository(OWNER, NAME)
        cat = p.discussion_category(OWNER, NAME, "release-journal")
        d = p.create_discussion(repo.id, cat.id, "PR #1 into main", "<!-- ghattempt:v1 -->")
        return d.id, d.number


@pytest.fixture
def world_factory() -> Iterator[Callable[..., World]]:
    made: list[World] = []

    def make(**emu_kw: Any) -> World:
        emu_kw.setdefault("fixture", DEFAULT_FIXTURE)
        emu = Emulator(**emu_kw)
        server = EmulatorServer(emu)
        # serve with a short poll interval so that shutting down takes ~50 ms, not 0.5 s
        thread = threading.Thread(target=server.httpd.serve_forever,
                                  kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        w = World(emu, server)
        w.thread = thread
        made.append(w)
        return w

    yield make
    for w in made:
        for p in w.providers:
            p.close()
        w.server.httpd.shutdown()
        w.server.httpd.server_close()
        w.thread.join(timeout=5)


@pytest.fixture
def world(world_factory: Callable[..., World]) -> World:
    return world_factory()


def all_comments(pages: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for page in pages:
        data = page["data"]
        if "repository" in data:
            for root in data["repository"]["discussion"]["comments"]["nodes"]:
                out[root["id"]] = root
                for reply in root["replies"]["nodes"]:
                    out[reply["id"]] = reply
        else:
            for reply in data["node"]["replies"]["nodes"]:
                out[reply["id"]] = reply
    return out


@pytest.mark.parametrize("drop", [False, True])
def test_committed_mutation_answered_502_is_ambiguous_never_resent(world, drop):
    p = world.provider()
    discussion_id, number = world.journal(p)
    root = p.add_comment(discussion_id, "attempt root")
    world.emu.add_fault(FaultRule("lose_response", operation="addDiscussionComment",
                                  count=1, drop=drop))
    with pytest.raises(AmbiguousOutcome) as info:
        p.add_comment(discussion_id, "event seq 1", reply_to_id=root.id)
    err = info.value
    assert err.reason.startswith("http 502" if not drop else "no answer")
    # the provider sent it exactly once: a blind retry would have posted it twice
    assert len(world.ops("addDiscussionComment")) == 2
    # read-back: it landed, once, with the bytes the error carries
    comments = all_comments(p.capture_journal(OWNER, NAME, number))
    landed = [c for c in comments.values() if c["body"] == "event seq 1"]
    assert len(landed) == 1
    assert json.loads(err.body)["variables"] == {
        "discussionId": discussion_id, "body": "event seq 1", "replyToId": root.id}


def test_gateway_failure_before_commit_on_a_read_is_retried(world):
    p = world.provider()
    world.emu.add_fault(FaultRule("fail", operation="RepositoryLookup", count=2, status=504))
    assert p.repository(OWNER, NAME).name_with_owner == f"{OWNER}/{NAME}"
    assert world.sleeps == [1.0, 2.0]
    assert len(world.ops("RepositoryLookup")) == 3


def test_primary_limit_while_remaining_is_positive(world):
    p = world.provider(retry=RetryPolicy(max_wait=7200))
    p.repository(OWNER, NAME)
    world.emu.add_fault(FaultRule("primary_rate_limit", operation="RepositoryLookup", count=1))
    before = world.emu.clock.now()
    p.repository(OWNER, NAME)
    log = world.ops("RepositoryLookup")
    assert [e["status"] for e in log] == [200, 200, 200]
    assert "primary_rate_limit" in log[1]["faults"]
    # waited until x-ratelimit-reset (about an hour) by the emulator's clock
    assert len(world.sleeps) == 1 and 3590 <= world.sleeps[0] <= 3602
    assert world.emu.clock.now() - before >= 3590


def test_primary_limit_beyond_budget_raises_without_sleeping(world):
    p = world.provider()
    world.emu.add_fault(FaultRule("primary_rate_limit", operation="RepositoryLookup",
                                  count=1, remaining=0))
    with pytest.raises(RateLimited) as info:
        p.repository(OWNER, NAME)
    assert info.value.kind == "primary" and info.value.retry_after > 3000
    assert world.sleeps == []


def test_secondary_limit_on_a_read_waits_retry_after(world):
    p = world.provider()
    world.emu.add_fault(FaultRule("secondary_rate_limit", operation="RepositoryLookup",
                                  count=1, retry_after=42))
    p.repository(OWNER, NAME)
    assert world.sleeps == [42.0]


@pytest.mark.parametrize("rule", [
    FaultRule("primary_rate_limit", operation="addDiscussionComment", count=1),
    FaultRule("secondary_rate_limit", operation="addDiscussionComment", count=1),
])
def test_rate_limited_mutation_is_definite_and_not_resent(world, rule):
    p = world.provider()
    discussion_id, number = world.journal(p)
    world.emu.add_fault(rule)
    with pytest.raises(RateLimited):
        p.add_comment(discussion_id, "root")
    assert len(world.ops("addDiscussionComment")) == 1 and world.sleeps == []
    assert all_comments(p.capture_journal(OWNER, NAME, number)) == {}


def test_content_creation_limit_is_a_secondary_limit(world_factory):
    w = world_factory(content_per_minute=3)
    p = w.provider()
    discussion_id, _ = w.journal(p)  # createDiscussion counts as content
    p.add_comment(discussion_id, "one")
    p.add_comment(discussion_id, "two")
    with pytest.raises(RateLimited) as info:
        p.add_comment(discussion_id, "three")
    assert info.value.kind == "secondary" and 0 < info.value.retry_after <= 60


def test_read_lag_capture_rereads_until_visible(world):
    p = world.provider()
    discussion_id, number = world.journal(p)
    root = p.add_comment(discussion_id, "root")
    world.emu.add_fault(FaultRule("read_lag", operation="addDiscussionComment", count=1,
                                  lag_ms=1200))
    event = p.add_comment(discussion_id, "event", reply_to_id=root.id)
    assert event.id not in all_comments(p.capture_journal(OWNER, NAME, number))
    result = p.capture(OWNER, NAME, number, expect_comment_ids={root.id, event.id})
    assert event.id in result.seen and result.reads == 3  # at t=0, 0.5 s, 1.5 s
    assert world.sleeps == [0.5, 1.0]


def test_could_not_resolve_node_right_after_create(world):
    p = world.provider()
    discussion_id, number = world.journal(p)
    world.emu.add_fault(FaultRule("read_lag", operation="addDiscussionComment", count=1,
                                  lag_ms=1000))
    root = p.add_comment(discussion_id, "root")
    reply = p.add_comment(discussion_id, "event", reply_to_id=root.id)
    log = world.ops("addDiscussionComment")
    assert len(log) == 4 and world.sleeps == [0.5, 1.0]  # 2 refused, then it resolved
    comments = all_comments(p.capture_journal(OWNER, NAME, number))
    assert [c["body"] for c in comments.values()] == ["root", "event"]
    assert reply.id in comments


def test_missing_node_still_fails_after_bounded_lag_retries(world):
    p = world.provider(retry=RetryPolicy(lag_attempts=3))
    discussion_id, _ = world.journal(p)
    with pytest.raises(NotFound, match="Could not resolve to a node"):
        p.add_comment(discussion_id, "x", reply_to_id="DC_kwDOAAAAAAAAAAAAAAAAAAA")
    assert world.sleeps == [0.5, 1.0]


def test_threads_past_100_comments_are_paged_at_the_floor(world_factory):
    w = world_factory(content_per_minute=10**6, content_per_hour=10**6,
                      points_per_minute=10**9)
    # build the thread in-process (the loopback server costs ~45 ms a request), read it
    # back over HTTP
    seeder = w.provider(base_url="https://api.github.com/", transport=EmulatorTransport(w.emu))
    discussion_id, number = w.journal(seeder)
    roots = [seeder.add_comment(discussion_id, f"root {i}") for i in range(102)]
    for i in range(230):
        seeder.add_comment(discussion_id, f"event {i}", reply_to_id=roots[0].id)
    for i in range(101):
        seeder.add_comment(discussion_id, f"event {i}", reply_to_id=roots[101].id)
    p = w.provider()
    before = p.usage
    pages = p.capture_journal(OWNER, NAME, number)
    counts = [230] + [0] * 100 + [101]
    assert len(pages) == floor_requests(counts) == 2 + 2 + 1
    comments = all_comments(pages)
    assert len(comments) == 102 + 230 + 101
    used = p.usage
    assert used.requests - before.requests == 5
    assert used.by_operation["RepliesPage"].requests == 3
    assert used.points - before.points == 5  # (1 + 100) / 100 rounds to 1 point a page


def test_actions_bot_login_differs_between_rest_and_graphql(world):
    p = world.provider()
    discussion_id, number = world.journal(p)
    comment = p.add_comment(discussion_id, "root")
    # GraphQL: bare login and the bot's databaseId, as the reader will match them
    assert (comment.author_login, comment.author_database_id) == ("github-actions", 41898282)
    captured = all_comments(p.capture_journal(OWNER, NAME, number))[comment.id]
    assert captured["author"] == {"login": "github-actions", "databaseId": 41898282}
    # REST names the same bot github-actions[bot]
    head = p.ref(OWNER, NAME, "refs/heads/main")
    assert head is not None
    commit = p.create_commit(OWNER, NAME, message="lease", parents=[head.target_oid])
    rest = httpx.get(f"{world.server.url}/repos/{OWNER}/{NAME}/git/commits/{commit.oid}",
                     headers={"Authorization": f"token {ACTIONS}"}, timeout=5)
    assert rest.json()["author"]["name"] == "github-actions[bot]"


def test_ref_lease_cycle(world):
    p = world.provider()
    repo = p.repository(OWNER, NAME)
    main = p.ref(OWNER, NAME, "refs/heads/main")
    assert main is not None and main.commit is not None
    author = {"name": "ghattempt", "email": "lease@example.invalid",
              "date": "2026-01-01T00:00:00Z"}
    c1 = p.create_commit(OWNER, NAME, message="lease\n\ntoken: 1", parents=[],
                         author=author)
    assert c1.tree_oid == EMPTY_TREE
    assert p.create_commit(OWNER, NAME, message="lease\n\ntoken: 1", parents=[],
                           author=author).oid == c1.oid  # same bytes, same oid
    lease = p.create_ref(repo.id, "refs/heads/ghattempt/lease", c1.oid)
    with pytest.raises(GraphQLRefused):  # refused; a read-back tells why (the lease's)
        p.create_ref(repo.id, "refs/heads/ghattempt/lease", c1.oid)
    c2 = p.create_commit(OWNER, NAME, message="lease\n\ntoken: 2", parents=[c1.oid])
    p.update_ref(repo.id, "refs/heads/ghattempt/lease", after_oid=c2.oid, before_oid=c1.oid)
    with pytest.raises(GraphQLRefused):  # a stale holder's compare-and-set is refused
        p.update_ref(repo.id, "refs/heads/ghattempt/lease", after_oid=c1.oid,
                     before_oid=c1.oid, force=True)
    now = p.ref(OWNER, NAME, "refs/heads/ghattempt/lease")
    assert now is not None and now.commit is not None
    assert now.target_oid == c2.oid and now.commit.message == "lease\n\ntoken: 2"
    assert now.commit.parent_oids == (c1.oid,)
    with pytest.raises(RefConflict):
        p.create_commit_on_branch(f"{OWNER}/{NAME}", "ghattempt/lease",
                                  expected_head_oid=c1.oid, headline="token 3")
    c3 = p.create_commit_on_branch(f"{OWNER}/{NAME}", "ghattempt/lease",
                                   expected_head_oid=c2.oid, headline="token 3")
    assert p.ref(OWNER, NAME, "refs/heads/ghattempt/lease").target_oid == c3.oid
    p.delete_ref(lease.id)
    assert p.ref(OWNER, NAME, "refs/heads/ghattempt/lease") is None
    assert p.last_server_time is not None


def test_pull_request_and_ghes_layout(world):
    p = world.provider(base_url=world.server.url + "/api/v3/")
    pr = p.pull_request(OWNER, NAME, 1)
    assert (pr.head_ref_name, pr.base_ref_name) == ("feature", "main")
    assert len(pr.head_oid) == 40 and len(pr.base_oid) == 40
    with pytest.raises(NotFound):
        p.pull_request(OWNER, NAME, 99)


def test_capture_by_repository_id(world):
    p = world.provider()
    _, number = world.journal(p)
    repo = p.repository(OWNER, NAME)
    pages = p.capture_journal_by_id(repo.id, number)
    assert pages[0]["data"]["repository"]["id"] == repo.id


def test_wrong_token_and_missing_permission(world):
    with pytest.raises(AuthFailed):
        world.provider(token="ghs_not_a_real_token").repository(OWNER, NAME)
    p = world.provider(token="ghs_nodiscussions")
    repo = p.repository(OWNER, NAME)
    cat = p.discussion_category(OWNER, NAME, "general")
    with pytest.raises(AuthFailed):
        p.create_discussion(repo.id, cat.id, "t", "b")


def test_exhausted_primary_budget_waits_for_the_next_window(world_factory):
    fixture = dict(DEFAULT_FIXTURE)
    fixture["tokens"] = [*DEFAULT_FIXTURE["tokens"],
                         {"token": "ghs_tiny", "actor": "github-actions", "role": "write",
                          "rate_limit": 3}]
    w = world_factory(fixture=fixture)
    p = w.provider(token="ghs_tiny", retry=RetryPolicy(max_wait=7200))
    for _ in range(4):
        p.repository(OWNER, NAME)
    assert len(w.sleeps) == 1 and 3590 <= w.sleeps[0] <= 3602
    assert p.usage.rate_limit.limit == 3
    # the third answer said remaining 0: the fourth waited for the reset instead of being
    # sent to be refused
    assert [e["status"] for e in w.ops("RepositoryLookup")] == [200, 200, 200, 200]


def test_capture_right_after_create_discussion_waits_for_it(world):
    p = world.provider()
    repo = p.repository(OWNER, NAME)
    cat = p.discussion_category(OWNER, NAME, "release-journal")
    world.emu.add_fault(FaultRule("read_lag", operation="createDiscussion", count=1,
                                  lag_ms=1000))
    d = p.create_discussion(repo.id, cat.id, "t", "journal")
    with pytest.raises(NotFound):
        p.capture_journal(OWNER, NAME, d.number)  # nothing expected: no waiting
    result = p.capture(OWNER, NAME, d.number, expect_comment_ids={d.id})
    assert result.reads == 3 and d.id in result.seen
    assert world.sleeps == [0.5, 1.0]


def test_ambiguous_then_absent_is_resent_with_the_same_bytes(world):
    p = world.provider()
    discussion_id, number = world.journal(p)
    root = p.add_comment(discussion_id, "root")
    world.emu.add_fault(FaultRule("fail", operation="addDiscussionComment", count=1))
    with pytest.raises(AmbiguousOutcome) as info:
        p.add_comment(discussion_id, "event seq 1", reply_to_id=root.id)
    bodies = [c["body"] for c in all_comments(p.capture_journal(OWNER, NAME, number)).values()]
    assert "event seq 1" not in bodies  # read back: it did not land
    data = p.resend(info.value)
    new_id = data["addDiscussionComment"]["comment"]["id"]
    comments = all_comments(p.capture_journal(OWNER, NAME, number, expect_comment_ids=[new_id]))
    assert [c["body"] for c in comments.values()].count("event seq 1") == 1


def test_resend_of_rest_commit(world):
    p = world.provider()
    world.emu.add_fault(FaultRule("fail", operation="git/create-commit", count=1))
    with pytest.raises(AmbiguousOutcome) as info:
        p.create_commit(OWNER, NAME, message="lease", parents=[])
    assert info.value.url == f"repos/{OWNER}/{NAME}/git/commits"
    assert p.resend(info.value)["message"] == "lease"


def test_category_discussions_pages_newest_first_with_their_creation_time(world_factory):
    w = world_factory(content_per_minute=10**6, content_per_hour=10**6,
                      points_per_minute=10**9)
    seeder = w.provider(base_url="https://api.github.com/", transport=EmulatorTransport(w.emu))
    repo = seeder.repository(OWNER, NAME)
    cat = seeder.discussion_category(OWNER, NAME, "release-journal")
    made = []
    for i in range(105):
        made.append(seeder.create_discussion(repo.id, cat.id, f"t{i}", f"body {i}"))
        if i == 50:
            w.emu.clock.advance(3600)  # the later ones an hour newer
    p = w.provider()
    listed = list(p.category_discussions(OWNER, NAME, cat.id))
    assert [d.number for d in listed] == [d.number for d in reversed(made)]
    assert [d.created_at for d in listed] == [d.created_at for d in reversed(made)]
    assert listed[0].created_at > listed[-1].created_at  # whole-second DateTime strings
    assert listed[-1].body == "body 0" and listed[-1].author_login == "github-actions"
    assert listed[-1].author_id == 41898282 and not listed[-1].edited
    assert p.usage.by_operation["CategoryDiscussions"].requests == 2
    assert repo.has_discussions and repo.viewer_permission in (None, "WRITE")


def test_capture_with_lease_carries_the_lease_member_and_the_category(world):
    p = world.provider()
    _, number = world.journal(p)
    repo = p.repository(OWNER, NAME)
    name = "refs/heads/ghattempt/lease/" + "0" * 40
    result = p.capture_with_lease(OWNER, NAME, number, name)
    page = result.pages[0]["data"]["repository"]
    assert page["lease"] is None and page["discussion"]["number"] == number
    assert page["discussion"]["category"]["slug"]
    commit = p.create_commit(OWNER, NAME, message="lease\n\ntoken: 1", parents=[])
    p.create_ref(repo.id, name, commit.oid)
    result = p.capture_with_lease(OWNER, NAME, number, name)
    lease = result.pages[0]["data"]["repository"]["lease"]
    assert lease["prefix"] + lease["name"] == name
    assert lease["target"] == {"oid": commit.oid, "message": "lease\n\ntoken: 1"}
    ref, response = p.lease_ref(OWNER, NAME, name)
    assert ref is not None and ref.target_oid == commit.oid
    assert response["data"]["repository"]["lease"] == lease
    assert p.usage.by_operation["JournalPageLease"].requests == 2
    assert "JournalPage" not in p.usage.by_operation  # the lease page replaced the first


def test_github_app_installation_over_http(world_factory):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from ghattempt.github import AppAuth

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    fixture = dict(DEFAULT_FIXTURE, apps=[{
        "app_id": 4242, "slug": "release-bot", "public_key": public,
        "installations": [{"id": 777, "role": "write"}]}])
    w = world_factory(fixture=fixture)
    p = GitHubProvider(ProviderConfig(
        auth=AppAuth(app_id=4242, private_key=private, installation_id=777),
        base_url=w.server.url + "/api/v3/", mutation_interval=0, sleep=w.sleep))
    w.providers.append(p)
    discussion_id, number = w.journal(p)
    comment = p.add_comment(discussion_id, "from the app")
    # an App's GraphQL login is its bare slug
    assert comment.author_login == "release-bot" and comment.author_database_id is not None
    captured = all_comments(p.capture_journal(OWNER, NAME, number))[comment.id]
    assert captured["author"]["login"] == "release-bot"
    # one token exchange served every request (cached until a minute before expiry)
    assert p.usage.by_operation["POST /app/installations/{id}/access_tokens"].requests == 1
    assert p.usage.requests > 4
    wrong = GitHubProvider(ProviderConfig(
        auth=AppAuth(app_id=4242, private_key=private, installation_id=999),
        base_url=w.server.url + "/", mutation_interval=0, sleep=w.sleep))
    w.providers.append(wrong)
    with pytest.raises(AuthFailed, match="installation-token exchange"):
        wrong.repository(OWNER, NAME)


def test_githubkit_defaults_would_post_a_duplicate(world, monkeypatch):
    """Negative control: githubkit's default auto_retry re-sends a mutation after a 502,
    and the journal gets the comment twice. The provider turns it off."""
    import githubkit.core
    from githubkit import GitHub

    monkeypatch.setattr(githubkit.core.time, "sleep", lambda s: None)
    p = world.provider()
    discussion_id, number = world.journal(p)
    world.emu.add_fault(FaultRule("lose_response", operation="addDiscussionComment", count=1))
    naive = GitHub(ACTIONS, base_url=world.server.url + "/", timeout=10, http_cache=False)
    naive.graphql.request(
        "mutation($d: ID!) { addDiscussionComment(input: {discussionId: $d, body: \"x\"}) "
        "{ comment { id } } }", {"d": discussion_id})
    bodies = [c["body"] for c in all_comments(p.capture_journal(OWNER, NAME, number)).values()]
    assert bodies == ["x", "x"]
