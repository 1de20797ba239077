"""The remaining resolvers field by field, node ids and cursors, and fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from ghattempt.emulator import (
    DEFAULT_FIXTURE,
    Emulator,
    EmulatorServer,
    FaultRule,
    FixtureError,
    load_fixture,
)
from ghattempt.emulator.ids import (
    cursor,
    decode_cursor,
    decode_node_id,
    legacy_node_id,
    node_id,
)
from ghattempt.emulator.state import iso

from .conftest import GQL, LOCK, QUERIES, comment, new_discussion, repo_info

JOURNAL = (QUERIES / "JournalPage.graphql").read_text()

EVERYTHING = """query($n: Int!) { repository(owner: "octo-org", name: "widgets") {
  id databaseId name nameWithOwner url isPrivate hasDiscussionsEnabled viewerPermission
  owner { __typename id login url resourcePath avatarUrl(size: 40) }
  discussionCategory(slug: "general") { id name slug emoji isAnswerable createdAt
    repository { id } }
  discussions(first: 10) { totalCount edges { cursor node { number } } }
  discussion(number: $n) {
    id databaseId number title body url resourcePath locked activeLockReason createdAt
    updatedAt lastEditedAt includesCreatedEdit
    category { slug } repository { nameWithOwner }
    comments(first: 5) { totalCount pageInfo { startCursor endCursor hasNextPage
      hasPreviousPage } edges { cursor node { id databaseId url resourcePath
      discussion { number } replyTo { id } minimizedReason updatedAt
      replies(last: 5) { totalCount nodes { replyTo { id } } } } } } } } }"""


def test_every_field_of_the_subset_resolves(actions: GQL) -> None:
    d = new_discussion(actions, title="T", body="B")
    root = comment(actions, d["id"], "root")
    reply = comment(actions, d["id"], "reply", root["id"])
    repo = actions.data(EVERYTHING, n=d["number"])["repository"]
    assert repo["databaseId"] > 0 and repo["name"] == "widgets" and repo["isPrivate"] is False
    # GitHub answers null for a bot token's viewerPermission (test_fidelity.py)
    assert repo["viewerPermission"] is None and repo["hasDiscussionsEnabled"] is True
    owner = repo["owner"]
    assert (owner["__typename"], owner["login"], owner["url"]) == (
        "Organization",
        "octo-org",
        "https://github.com/octo-org",
    )
    assert owner["avatarUrl"].endswith("&s=40")
    cat = repo["discussionCategory"]
    assert (cat["slug"], cat["repository"]["id"]) == ("general", repo["id"])
    assert repo["discussions"]["totalCount"] == 1
    disc = repo["discussion"]
    assert (disc["title"], disc["body"], disc["category"]["slug"]) == ("T", "B", "release-journal")
    assert disc["resourcePath"] == f"/octo-org/widgets/discussions/{d['number']}"
    assert disc["repository"]["nameWithOwner"] == "octo-org/widgets"
    edge = disc["comments"]["edges"][0]
    assert edge["cursor"] == disc["comments"]["pageInfo"]["startCursor"]
    node = edge["node"]
    assert node["url"].endswith(f"#discussioncomment-{node['databaseId']}")
    assert node["discussion"]["number"] == d["number"] and node["replyTo"] is None
    assert node["replies"]["nodes"] == [{"replyTo": {"id": root["id"]}}]
    assert reply["replyTo"]["id"] == root["id"]


def test_discussions_order_and_category_filter(actions: GQL) -> None:
    a = new_discussion(actions, title="a")
    b = new_discussion(actions, title="b")
    repo = repo_info(actions)
    q = """query($c: ID) { repository(owner: "octo-org", name: "widgets") {
      newest: discussions(first: 5) { nodes { number } }
      oldest: discussions(first: 5, orderBy: {field: CREATED_AT, direction: ASC}) {
        nodes { number } }
      general: discussions(first: 5, categoryId: $c) { totalCount } } }"""
    general = repo["discussionCategories"]["nodes"][1]["id"]
    data = actions.data(q, c=general)["repository"]
    assert [n["number"] for n in data["oldest"]["nodes"]] == [a["number"], b["number"]]
    assert data["general"]["totalCount"] == 0
    assert len(data["newest"]["nodes"]) == 2


def test_nodes_and_unlock_and_unminimize(alice: GQL, actions: GQL) -> None:
    d = new_discussion(actions)
    c = comment(actions, d["id"], "x")
    got = actions.data(
        "query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }", ids=[d["id"], c["id"]]
    )
    assert [n["__typename"] for n in got["nodes"]] == ["Discussion", "DiscussionComment"]
    actions.data(LOCK, id=d["id"])
    unlocked = actions.data(
        "mutation($id: ID!) { unlockLockable(input: {lockableId: $id}) {"
        " unlockedRecord { locked } actor { login } } }",
        id=d["id"],
    )["unlockLockable"]
    assert unlocked == {"unlockedRecord": {"locked": False}, "actor": {"login": "github-actions"}}
    alice.data(
        "mutation($id: ID!) { minimizeComment(input: {subjectId: $id, classifier: SPAM}) {"
        " clientMutationId } }",
        id=c["id"],
    )
    shown = alice.data(
        "mutation($id: ID!) { unminimizeComment(input: {subjectId: $id}) {"
        " unminimizedComment { isMinimized minimizedReason } } }",
        id=c["id"],
    )["unminimizeComment"]["unminimizedComment"]
    assert shown == {"isMinimized": False, "minimizedReason": None}


def test_edit_fault_on_create_discussion_edits_the_journal_body(
    emu: Emulator, actions: GQL
) -> None:
    emu.add_fault(FaultRule("edit", operation="createDiscussion", body="tampered", count=1))
    d = new_discussion(actions, body="intent")
    disc = actions(JOURNAL, owner="octo-org", name="widgets", number=d["number"])["data"][
        "repository"
    ]["discussion"]
    assert (disc["body"], disc["includesCreatedEdit"]) == ("tampered", True)
    assert disc["lastEditedAt"] is not None


def test_secondary_point_limit(emu: Emulator, actions: GQL) -> None:
    emu.points_per_minute = 3
    for _ in range(3):
        assert actions.raw("{ viewer { login } }").status_code == 200
    r = actions.raw("{ viewer { login } }")
    assert r.status_code == 403 and "retry-after" in r.headers
    emu.clock.advance(60)
    assert actions.raw("{ viewer { login } }").status_code == 200


def test_ids_and_cursors_round_trip() -> None:
    ident = node_id("DiscussionComment", 100_000_004, 100_000_009)
    assert ident.startswith("DC_kwDO")
    decoded = decode_node_id(ident)
    assert decoded is not None
    assert (decoded.typename, decoded.payload) == ("DiscussionComment", (100_000_004, 100_000_009))
    ref = node_id("Ref", 100_000_004, "refs/heads/main")
    decoded_ref = decode_node_id(ref)
    assert decoded_ref is not None and decoded_ref.payload[-1] == "refs/heads/main"
    for bad in ("", "DC_", "XX_kwDO", "DC_!!!", "R_kgDOBfXhBA=", "MDQ6VXNlcjU4MzIzMQ"):
        assert decode_node_id(bad) is None
    # a legacy id is an id GitHub accepts as input ("Migrating GraphQL global node IDs")
    legacy = decode_node_id("MDQ6VXNlcjU4MzIzMQ==")
    assert legacy is not None and (legacy.typename, legacy.payload) == ("User", (583231,))
    # the example of GitHub's migration guide: one user, its legacy id and its new one
    assert legacy_node_id("User", 3407303) == "MDQ6VXNlcjM0MDczMDM="
    assert node_id("User", 3407303) == "U_kgDOADP9xw"
    assert legacy_node_id("Repository", 1296269) == "MDEwOlJlcG9zaXRvcnkxMjk2MjY5"
    assert decode_cursor(cursor(123_456_789)) == 123_456_789
    assert cursor(5).startswith("Y3Vyc29yOnYyOp")  # base64 of "cursor:v2:"
    assert decode_cursor("not-a-cursor") is None


def test_fixture_files_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(json.dumps(DEFAULT_FIXTURE))
    emu = Emulator(str(tmp_path / "db.sqlite"), path)
    assert emu.snapshot()["repositories"][0]["nameWithOwner"] == "octo-org/widgets"
    # a second start on the same database does not seed again
    again = Emulator(str(tmp_path / "db.sqlite"), path)
    assert len(again.snapshot()["repositories"]) == 1
    bad = dict(DEFAULT_FIXTURE, tokens=[{"token": "t", "actor": "nobody"}])
    with pytest.raises(FixtureError, match=r"tokens\[0\]: unknown actor 'nobody'"):
        Emulator(fixture=bad)
    with pytest.raises(FixtureError, match="role"):
        Emulator(
            fixture=dict(DEFAULT_FIXTURE, tokens=[{"token": "t", "actor": "alice", "role": "god"}])
        )
    with pytest.raises(FixtureError, match="limits"):
        Emulator(fixture=dict(DEFAULT_FIXTURE, limits={"per_second": 1}))
    twice = dict(DEFAULT_FIXTURE, actors=[*DEFAULT_FIXTURE["actors"], {"login": "alice"}])
    with pytest.raises(FixtureError, match="UNIQUE"):
        Emulator(fixture=twice)
    (tmp_path / "broken.toml").write_text("[[actors]\n")
    with pytest.raises(FixtureError):
        load_fixture(tmp_path / "broken.toml")


def test_admin_tokens_and_rename(emu: Emulator, http) -> None:
    r = http.post("/_emulator/tokens", json={"token": "ghp_bob", "actor": "bob", "role": "read"})
    assert r.status_code == 201
    bob = GQL(http, "ghp_bob")
    assert bob.data("{ viewer { login } }")["viewer"]["login"] == "bob"
    r = http.post("/_emulator/rename", json={"repository": "octo-org/widgets", "name": "gizmos"})
    assert r.status_code == 200
    assert bob.data('{ repository(owner: "octo-org", name: "gizmos") { name } }')["repository"] == {
        "name": "gizmos"
    }
    assert (
        http.post("/_emulator/rename", json={"repository": "x/y", "name": "z"}).status_code == 400
    )
    assert http.get("/_emulator/nothing").status_code == 404


def test_limit_precedence_argument_fixture_github(tmp_path: Path) -> None:
    with_limits = dict(DEFAULT_FIXTURE, limits={"content_per_minute": 7})
    assert Emulator(fixture=with_limits).content_per_minute == 7
    assert Emulator(fixture=with_limits, content_per_minute=9).content_per_minute == 9
    plain = Emulator(fixture=DEFAULT_FIXTURE)
    assert (plain.content_per_minute, plain.points_per_minute) == (80, 2000)
    assert (plain.content_per_hour, plain.rest_points_per_minute) == (500, 900)
    # the fixture's limits live in the database: a restart keeps them
    db = str(tmp_path / "db.sqlite")
    Emulator(db, with_limits)
    assert Emulator(db).content_per_minute == 7


def test_discussions_newest_first_by_creation_time(emu: Emulator, actions: GQL) -> None:
    a = new_discussion(actions, title="a")
    emu.clock.advance(3600)
    b = new_discussion(actions, title="b")
    q = """{ repository(owner: "octo-org", name: "widgets") {
      discussions(first: 5, orderBy: {field: CREATED_AT, direction: DESC}) {
        nodes { number createdAt } } } }"""
    nodes = actions.data(q)["repository"]["discussions"]["nodes"]
    assert [n["number"] for n in nodes] == [b["number"], a["number"]]
    later, earlier = (n["createdAt"] for n in nodes)
    assert later > earlier and later.endswith("Z") and len(later) == 20


def test_a_pull_request_opened_now_has_the_clocks_created_at(emu: Emulator,
                                                              actions: GQL) -> None:
    emu.clock.advance(7200)
    number = emu.open_pull_request("octo-org/widgets", "main", "feature", "Back")
    q = """query($n: Int!) { repository(owner: "octo-org", name: "widgets") {
      pullRequest(number: $n) { number createdAt baseRefName headRefName state } } }"""
    pr = actions.data(q, n=number)["repository"]["pullRequest"]
    assert pr == {"number": number, "createdAt": iso(emu.clock.now()),
                  "baseRefName": "feature", "headRefName": "main", "state": "OPEN"}
    first = actions.data(q, n=1)["repository"]["pullRequest"]
    assert first["createdAt"] < pr["createdAt"]  # the fixture's, opened long before
    with pytest.raises(ValueError, match="already open"):
        emu.open_pull_request("octo-org/widgets", "main", "feature")
    with pytest.raises(ValueError, match="no branch"):
        emu.open_pull_request("octo-org/widgets", "nope", "main")
    with EmulatorServer(emu) as server:
        opened = httpx.post(f"{server.url}/_emulator/pulls",
                            json={"repository": "octo-org/widgets", "head": "feature",
                                  "base": "main"})
        assert opened.status_code == 400 and "already open" in opened.json()["message"]
