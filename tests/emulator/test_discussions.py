"""Discussions, comments and replies: creation, numbering, authors, pagination,
edits, deletes, minimizing, locking and permissions."""

from __future__ import annotations

import pytest

from ghattempt.emulator import Emulator

from .conftest import (
    ADD_COMMENT,
    CREATE_DISCUSSION,
    GQL,
    LOCK,
    QUERIES,
    comment,
    new_discussion,
    repo_info,
)

JOURNAL = (QUERIES / "JournalPage.graphql").read_text()
REPLIES = (QUERIES / "RepliesPage.graphql").read_text()


def journal(client: GQL, number: int, after: str | None = None, roots: int = 50, replies: int = 50):
    return client(
        JOURNAL,
        owner="octo-org",
        name="widgets",
        number=number,
        after=after,
        roots=roots,
        replies=replies,
    )


def test_node_ids_have_githubs_new_format(actions: GQL) -> None:
    repo = repo_info(actions)
    assert repo["id"].startswith("R_kgDO")
    d = new_discussion(actions)
    assert d["id"].startswith("D_kwDO")
    c = comment(actions, d["id"], "root")
    assert c["id"].startswith("DC_kwDO")
    assert repo["discussionCategories"]["nodes"][0]["id"].startswith("DIC_kwDO")


def test_discussion_numbers_share_the_issue_sequence(actions: GQL) -> None:
    first = new_discussion(actions)
    second = new_discussion(actions)
    assert (first["number"], second["number"]) == (2, 3)  # PR #1 holds number 1
    assert first["url"] == "https://github.com/octo-org/widgets/discussions/2"


def test_actions_bot_author_is_github_actions_bot(actions: GQL) -> None:
    d = new_discussion(actions)
    assert d["author"] == {"login": "github-actions", "databaseId": 41898282}
    body = journal(actions, d["number"])
    assert body["data"]["repository"]["discussion"]["author"] == {
        "login": "github-actions",
        "databaseId": 41898282,
    }
    typed = actions.data(
        "query($id: ID!) { node(id: $id) { ... on Discussion { author { __typename login } } } }",
        id=d["id"],
    )
    assert typed["node"]["author"] == {"__typename": "Bot", "login": "github-actions"}


def test_user_author_is_a_user_and_app_is_its_bare_slug(alice: GQL, http) -> None:
    d = new_discussion(alice)
    q = "query($id: ID!) { node(id: $id) { ... on Discussion { author { __typename login } } } }"
    assert alice.data(q, id=d["id"])["node"]["author"] == {"__typename": "User", "login": "alice"}
    app = GQL(http, "ghs_app")
    c = comment(app, d["id"], "from the app")
    assert c["author"] == {"login": "ghattempt-app"}


def test_journal_page_returns_comments_and_replies_oldest_first(actions: GQL) -> None:
    d = new_discussion(actions)
    roots = [comment(actions, d["id"], f"root {i}") for i in range(3)]
    for i in range(4):
        comment(actions, d["id"], f"reply {i}", roots[0]["id"])
    # threads are one level deep: a reply to a reply is refused
    nested = comment(actions, d["id"], "nested", roots[0]["id"])
    assert nested["replyTo"]["id"] == roots[0]["id"]
    refused = actions(ADD_COMMENT, d=d["id"], body="deeper", to=nested["id"])
    assert refused["data"] == {"addDiscussionComment": None}
    assert refused["errors"][0]["message"] == (
        "Parent comment is already in a thread, cannot reply to it"
    )
    page = journal(actions, d["number"])["data"]["repository"]["discussion"]
    assert page["comments"]["totalCount"] == 3
    assert [n["body"] for n in page["comments"]["nodes"]] == ["root 0", "root 1", "root 2"]
    replies = page["comments"]["nodes"][0]["replies"]
    assert replies["totalCount"] == 5
    assert [n["body"] for n in replies["nodes"]] == [f"reply {i}" for i in range(4)] + [
        "nested",
    ]
    assert page["comments"]["nodes"][1]["replies"]["totalCount"] == 0


def test_more_than_100_comments_paginate_with_cursors(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    emu.content_per_minute = emu.content_per_hour = 10_000
    for i in range(130):
        comment(actions, d["id"], f"c{i}")
    seen: list[str] = []
    after = None
    pages = 0
    while True:
        page = journal(actions, d["number"], after=after, roots=100, replies=1)
        conn = page["data"]["repository"]["discussion"]["comments"]
        assert conn["totalCount"] == 130
        seen += [n["body"] for n in conn["nodes"]]
        pages += 1
        if not conn["pageInfo"]["hasNextPage"]:
            break
        after = conn["pageInfo"]["endCursor"]
    assert pages == 2
    assert seen == [f"c{i}" for i in range(130)]
    last = actions.data(
        'query($n: Int!) { repository(owner: "octo-org", name: "widgets") {'
        " discussion(number: $n) { comments(last: 2) { nodes { body }"
        " pageInfo { hasPreviousPage hasNextPage } } } } }",
        n=d["number"],
    )["repository"]["discussion"]["comments"]
    assert [n["body"] for n in last["nodes"]] == ["c128", "c129"]
    assert last["pageInfo"] == {"hasPreviousPage": True, "hasNextPage": False}


def test_replies_page_continues_a_thread(actions: GQL) -> None:
    d = new_discussion(actions)
    root = comment(actions, d["id"], "root")
    for i in range(5):
        comment(actions, d["id"], f"r{i}", root["id"])
    first = journal(actions, d["number"], replies=2)["data"]["repository"]["discussion"]
    thread = first["comments"]["nodes"][0]["replies"]
    assert [n["body"] for n in thread["nodes"]] == ["r0", "r1"]
    assert thread["pageInfo"]["hasNextPage"]
    rest = actions(REPLIES, id=root["id"], after=thread["pageInfo"]["endCursor"], replies=100)
    node = rest["data"]["node"]
    assert node["discussion"]["id"] == d["id"]
    assert node["replies"]["totalCount"] == 5
    assert [n["body"] for n in node["replies"]["nodes"]] == ["r2", "r3", "r4"]


@pytest.mark.parametrize(
    ("args", "kind", "message"),
    [
        (
            "first: 101",
            "EXCESSIVE_PAGINATION",
            "Requesting 101 records on the `comments` connection exceeds the `first` limit"
            " of 100 records.",
        ),
        (
            "last: 500",
            "EXCESSIVE_PAGINATION",
            "Requesting 500 records on the `comments` connection exceeds the `last` limit"
            " of 100 records.",
        ),
        ("first: 0", "EXCESSIVE_PAGINATION", None),
        (
            "",
            "MISSING_PAGINATION_BOUNDARIES",
            "You must provide a `first` or `last` value to properly paginate the `comments`"
            " connection.",
        ),
        ("first: 1, last: 1", "UNPROCESSABLE", None),
    ],
)
def test_page_size_bounds(actions: GQL, args: str, kind: str, message: str | None) -> None:
    d = new_discussion(actions)
    inner = f"comments({args}) {{ totalCount }}" if args else "comments { totalCount }"
    body = actions(
        'query { repository(owner: "octo-org", name: "widgets") {'
        f" discussion(number: {d['number']}) {{ {inner} }} }} }}"
    )
    # checked while executing, as GitHub does: the non-null connection nulls its
    # nullable parent and the rest of the answer stands
    assert body["data"] == {"repository": {"discussion": None}}
    (error,) = body["errors"]
    assert error["type"] == kind
    assert error["path"] == ["repository", "discussion", "comments"]
    if message:
        assert error["message"] == message


def test_invalid_cursor_is_an_error(actions: GQL) -> None:
    d = new_discussion(actions)
    body = journal(actions, d["number"], after="bm90IGEgY3Vyc29y")
    assert body["data"]["repository"]["discussion"] is None
    assert "does not appear to be a valid cursor" in body["errors"][0]["message"]


def test_missing_discussion_and_repository_are_not_found(actions: GQL) -> None:
    body = journal(actions, 999)
    assert body["errors"][0]["type"] == "NOT_FOUND"
    assert (
        body["errors"][0]["message"] == "Could not resolve to a Discussion with the number of 999."
    )
    body = actions('query { repository(owner: "octo-org", name: "nope") { id } }')
    assert body["data"] == {"repository": None}
    assert (
        body["errors"][0]["message"]
        == "Could not resolve to a Repository with the name 'octo-org/nope'."
    )


def test_unknown_node_id_is_not_found(actions: GQL) -> None:
    body = actions("query($id: ID!) { node(id: $id) { id } }", id="DC_kwDOnope")
    assert body["data"] == {"node": None}
    assert body["errors"][0] == {
        "type": "NOT_FOUND",
        "path": ["node"],
        "locations": [{"line": 1, "column": 19}],
        "message": "Could not resolve to a node with the global id of 'DC_kwDOnope'",
    }
    body = actions(ADD_COMMENT, d="D_kwDOAAAAAM4AAAAB", body="x", to=None)
    assert body["data"] == {"addDiscussionComment": None}
    assert body["errors"][0]["type"] == "NOT_FOUND"


EDIT = """mutation($id: ID!, $body: String!) {
  updateDiscussionComment(input: {commentId: $id, body: $body}) {
    comment { body lastEditedAt includesCreatedEdit } } }"""
DELETE = """mutation($id: ID!) {
  deleteDiscussionComment(input: {id: $id}) { comment { id deletedAt body } } }"""
MINIMIZE = """mutation($id: ID!) { minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) {
  minimizedComment { isMinimized minimizedReason } } }"""


def test_edit_sets_last_edited_and_includes_created_edit(actions: GQL) -> None:
    d = new_discussion(actions)
    c = comment(actions, d["id"], "before")
    edited = actions.data(EDIT, id=c["id"], body="after")["updateDiscussionComment"]["comment"]
    assert edited["body"] == "after"
    assert edited["lastEditedAt"] is not None
    assert edited["includesCreatedEdit"] is True


def test_delete_wipes_a_comment_with_replies_and_removes_one_without(actions: GQL) -> None:
    d = new_discussion(actions)
    root = comment(actions, d["id"], "root")
    reply = comment(actions, d["id"], "reply", root["id"])
    lone = comment(actions, d["id"], "lone")
    wiped = actions.data(DELETE, id=root["id"])["deleteDiscussionComment"]["comment"]
    assert wiped["body"] == "" and wiped["deletedAt"] is not None
    assert actions.data(DELETE, id=lone["id"])["deleteDiscussionComment"]["comment"] is None
    page = journal(actions, d["number"])["data"]["repository"]["discussion"]["comments"]
    assert page["totalCount"] == 1
    (node,) = page["nodes"]
    assert (node["id"], node["body"], node["deletedAt"] is not None) == (root["id"], "", True)
    assert node["replies"]["nodes"][0]["id"] == reply["id"]
    gone = actions("query($id: ID!) { node(id: $id) { id } }", id=lone["id"])
    assert gone["errors"][0]["type"] == "NOT_FOUND"


def test_minimize_keeps_the_comment(alice: GQL, actions: GQL, mallory: GQL) -> None:
    d = new_discussion(actions)
    c = comment(actions, d["id"], "noise")
    denied = mallory(MINIMIZE, id=c["id"])
    assert denied["errors"][0]["type"] == "FORBIDDEN"
    hidden = alice.data(MINIMIZE, id=c["id"])["minimizeComment"]["minimizedComment"]
    assert hidden == {"isMinimized": True, "minimizedReason": "outdated"}
    node = journal(actions, d["number"])["data"]["repository"]["discussion"]["comments"]["nodes"][0]
    assert node["isMinimized"] is True and node["body"] == "noise"


def test_locked_discussion_refuses_non_writers(actions: GQL, alice: GQL, mallory: GQL) -> None:
    d = new_discussion(actions)
    # a reader may comment while the discussion is open
    assert comment(mallory, d["id"], "hello")["author"] == {"login": "mallory"}
    locked = actions.data(LOCK, id=d["id"])["lockLockable"]["lockedRecord"]
    assert locked == {"locked": True, "activeLockReason": None}
    body = mallory(ADD_COMMENT, d=d["id"], body="again", to=None)
    assert body["data"] == {"addDiscussionComment": None}
    assert body["errors"][0]["type"] == "FORBIDDEN"
    # a person with write access still can (the Actions bot cannot: test_fidelity.py)
    assert comment(alice, d["id"], "writer still can")["body"] == "writer still can"
    # a reader cannot lock either
    assert mallory(LOCK, id=d["id"])["errors"][0]["type"] == "FORBIDDEN"


def test_locked_discussion_needs_write_to_hide_or_delete(emu: Emulator, http, actions: GQL,
                                                       alice: GQL, mallory: GQL) -> None:
    """GitHub docs, "Locking conversations": while locked, only people with write access
    can add, hide and delete comments (the author's own comment included)."""
    emu.add_token("ghp_trina", "trina", "triage")
    trina = GQL(http, "ghp_trina")
    d = new_discussion(actions)
    own = comment(mallory, d["id"], "mine")
    noise = comment(mallory, d["id"], "noise")
    assert trina.data(MINIMIZE, id=noise["id"])  # triage may hide while open
    actions.data(LOCK, id=d["id"])
    refused = mallory(DELETE, id=own["id"])
    assert refused["data"] == {"deleteDiscussionComment": None}
    assert refused["errors"][0]["type"] == "FORBIDDEN"
    assert trina(MINIMIZE, id=own["id"])["errors"][0]["type"] == "FORBIDDEN"
    assert alice.data(MINIMIZE, id=own["id"])["minimizeComment"]["minimizedComment"][
        "isMinimized"] is True
    assert alice.data(DELETE, id=own["id"])["deleteDiscussionComment"]["comment"] is None


def test_token_without_discussions_access_is_forbidden(http, actions: GQL) -> None:
    d = new_discussion(actions)
    app = GQL(http, "ghs_nodiscussions")
    body = app(ADD_COMMENT, d=d["id"], body="x", to=None)
    assert body["errors"][0]["type"] == "FORBIDDEN"
    assert body["errors"][0]["message"] == "Resource not accessible by integration"
    body = journal(app, d["number"])
    assert body["data"]["repository"]["discussion"] is None
    assert body["errors"][0]["type"] == "FORBIDDEN"


def test_body_limits(actions: GQL) -> None:
    d = new_discussion(actions)
    ok = comment(actions, d["id"], "x" * 65_536)
    assert len(ok["body"]) == 65_536
    body = actions(ADD_COMMENT, d=d["id"], body="x" * 65_537, to=None)
    assert body["errors"][0] == {
        "type": "UNPROCESSABLE",
        "path": ["addDiscussionComment"],
        "locations": [{"line": 2, "column": 3}],
        "message": "Body is too long (maximum is 65536 characters)",
    }
    assert (
        actions(ADD_COMMENT, d=d["id"], body="  ", to=None)["errors"][0]["message"]
        == "Body can't be blank"
    )


def test_unknown_token_and_missing_auth(http) -> None:
    r = http.post(
        "/graphql", json={"query": "{ viewer { login } }"}, headers={"Authorization": "bearer nope"}
    )
    assert r.status_code == 401
    assert r.json()["message"] == "Bad credentials"
    r = http.post("/graphql", json={"query": "{ viewer { login } }"})
    assert r.status_code == 401
    assert "requires you to be authenticated" in r.json()["message"]


def test_viewer_and_rename_keeps_id(emu: Emulator, actions: GQL, alice: GQL) -> None:
    assert actions.data("{ viewer { login } }")["viewer"]["login"] == "github-actions[bot]"
    assert alice.data("{ viewer { login databaseId } }")["viewer"]["login"] == "alice"
    before = repo_info(actions)
    emu.state.rename_repository(before["databaseId"], "gadgets")
    renamed = actions.data(
        'query { repository(owner: "octo-org", name: "gadgets") { id nameWithOwner } }'
    )
    assert renamed["repository"] == {"id": before["id"], "nameWithOwner": "octo-org/gadgets"}
    old = actions.data('query { repository(owner: "octo-org", name: "widgets") { id } }')
    assert old["repository"]["id"] == before["id"]


def test_validation_errors_have_githubs_shape(actions: GQL) -> None:
    body = actions('query Q { repository(owner: "o", name: "n") { nope } }', invalid=True)
    assert body == {
        "errors": [
            {
                "path": ["query Q", "repository", "nope"],
                "extensions": {
                    "code": "undefinedField",
                    "typeName": "Repository",
                    "fieldName": "nope",
                },
                "locations": [{"line": 1, "column": 47}],
                "message": "Field 'nope' doesn't exist on type 'Repository'",
            }
        ]
    }
    body = actions('query Q { repository(owner: "o") { id } }', invalid=True)
    assert body["errors"][0]["extensions"]["code"] == "missingRequiredArguments"
    assert body["errors"][0]["message"] == "Field 'repository' is missing required arguments: name"
    body = actions(
        'query Q($x: String) { repository(owner: "o", name: "n") {'
        " discussion(number: $x) { id } } }",
        invalid=True,
        x="1",
    )
    assert body["errors"][0]["message"] == (
        "Type mismatch on variable $x and argument number (String / Int!)"
    )
    assert body["errors"][0]["path"] == ["query Q", "repository", "discussion", "number"]
    body = actions("query Q { viewer { login } } fragment F on User { login }", invalid=True)
    assert body["errors"][0]["message"] == "Fragment F was defined, but not used"
    body = actions("query Q { viewer { login } ", invalid=True)
    assert body == {"errors": [{"message": "Unexpected end of document", "locations": []}]}
    body = actions("query Q { viewer { login } } }", invalid=True)
    assert body["errors"][0] == {
        "message": 'Parse error on "}" (RCURLY) at [1, 30]',
        "locations": [{"line": 1, "column": 30}],
    }
    body = actions("query Q { viewer(1) { login } }", invalid=True)
    assert body["errors"][0]["message"] == 'Parse error on "1" (INT) at [1, 18]'
    body = actions("query Q { viewer { } }", invalid=True)
    assert body["errors"][0]["message"] == 'Parse error on "}" (RCURLY) at [1, 20]'
    body = actions(CREATE_DISCUSSION, r="x", c="y", title=None, body="b")
    assert (
        body["errors"][0]["message"] == "Variable $title of type String! was provided invalid value"
    )
