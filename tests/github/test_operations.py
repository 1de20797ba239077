"""Each provider operation: the document and variables it sends (checked against
GitHub's schema, variables coerced as GitHub would) and the record it returns."""

from __future__ import annotations

import json

import httpx
import pytest
from graphql import OperationDefinitionNode, parse
from graphql.execution.values import get_variable_values

from ghattempt.github import (
    EMPTY_TREE,
    AmbiguousOutcome,
    Commit,
    InputError,
    NotFound,
    PullRequest,
    Ref,
    UnexpectedAnswer,
)

OID_A, OID_B = "a" * 40, "b" * 40


class Recorder:
    def __init__(self, answers):
        self.answers = answers
        self.sent = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.sent.append(body)
        self.headers = getattr(self, "headers", [])
        self.headers.append(request.headers)
        answer = self.answers[body.get("operationName", request.url.path)]
        return httpx.Response(200 if "operationName" in body else 201, json=answer)


def check_variables(schema, body):
    op = next(d for d in parse(body["query"]).definitions
              if isinstance(d, OperationDefinitionNode))
    result = get_variable_values(schema, op.variable_definitions, body["variables"])
    assert not isinstance(result, list), [e.message for e in result]


def test_variable_check_can_fail(github_schema):
    bad = {"query": "mutation M($u: [RefUpdate!]!) { updateRefs(input: {repositoryId: \"R\", "
                    "refUpdates: $u}) { clientMutationId } }",
           "variables": {"u": [{"name": "refs/heads/x", "before": "a"}]}}
    with pytest.raises(AssertionError):
        check_variables(github_schema, bad)


@pytest.fixture
def recorded(make_provider):
    def make(answers):
        rec = Recorder(answers)
        return make_provider(transport=httpx.MockTransport(rec)), rec
    return make


def test_discussion_and_comments_and_no_lock(recorded, github_schema):
    p, rec = recorded({
        "CreateDiscussion": {"data": {"createDiscussion": {"discussion": {
            "id": "D_1", "number": 3, "url": "https://github.com/o/r/discussions/3",
            "createdAt": "2026-01-01T00:00:00Z"}}}},
        "AddDiscussionComment": {"data": {"addDiscussionComment": {"comment": {
            "id": "DC_1", "createdAt": "2026-01-01T00:00:01Z", "url": "u"}}}},
    })
    d = p.create_discussion("R_1", "DIC_1", "PR #1 into main", "<!-- ghattempt:v1 -->")
    assert (d.id, d.number) == ("D_1", 3)
    assert p.add_comment("D_1", "root").id == "DC_1"
    assert p.add_comment("D_1", "event", reply_to_id="DC_1").id == "DC_1"
    # journals are never locked: GitHub refuses comments by Apps and the Actions bot in
    # locked conversations (journal-v1 revision 2, section 1)
    assert not hasattr(p, "lock")
    for body in rec.sent:
        check_variables(github_schema, body)
    assert rec.sent[1]["variables"]["replyToId"] is None
    assert rec.sent[2]["variables"]["replyToId"] == "DC_1"
    assert len(rec.sent) == 3


def test_every_request_asks_for_node_ids_in_the_new_format(recorded):
    p, rec = recorded({
        "RepositoryLookup": {"data": {"viewer": {"login": "github-actions[bot]",
                                                 "databaseId": 41898282},
                                      "repository": {"id": "R_1", "databaseId": 1,
                                                     "nameWithOwner": "o/r"}}},
        "/repos/o/r/git/commits": {"sha": OID_A, "message": "m", "tree": {"sha": EMPTY_TREE}},
    })
    repo = p.repository("o", "r")
    p.create_commit("o", "r", message="m", parents=())
    assert repo.viewer is not None and repo.viewer.author_login == "github-actions"
    assert repo.viewer.database_id == 41898282 and repo.viewer.is_bot
    assert len(rec.headers) == 2
    assert all(h["x-github-next-global-id"] == "1" for h in rec.headers)


def test_refs(recorded, github_schema):
    p, rec = recorded({
        "RefLookup": {"data": {"repository": {"id": "R_1", "ref": {
            "id": "REF_1", "name": "ghattempt/lease", "prefix": "refs/heads/",
            "target": {"oid": OID_A, "message": "lease\n\nholder: x\ntoken: 4",
                       "committedDate": "2026-01-01T00:00:00Z", "tree": {"oid": EMPTY_TREE},
                       "parents": {"nodes": [{"oid": OID_B}]}}}}}},
        "CreateRef": {"data": {"createRef": {"ref": {
            "id": "REF_2", "name": "x", "prefix": "refs/heads/", "target": {"oid": OID_A}}}}},
        "UpdateRefs": {"data": {"updateRefs": {"clientMutationId": None}}},
        "DeleteRef": {"data": {"deleteRef": {"clientMutationId": None}}},
        "CreateCommitOnBranch": {"data": {"createCommitOnBranch": {
            "commit": {"oid": OID_B, "message": "h", "committedDate": "t"},
            "ref": {"id": "REF_1", "name": "x"}}}},
    })
    ref = p.ref("o", "r", "refs/heads/ghattempt/lease")
    assert ref == Ref("REF_1", "refs/heads/ghattempt/lease", OID_A,
                      Commit(OID_A, "lease\n\nholder: x\ntoken: 4", EMPTY_TREE, (OID_B,),
                             "2026-01-01T00:00:00Z"))
    assert p.create_ref("R_1", "refs/heads/x", OID_A).name == "refs/heads/x"
    p.update_ref("R_1", "refs/heads/x", after_oid=OID_B, before_oid=OID_A)
    p.delete_ref("REF_2")
    c = p.create_commit_on_branch("o/r", "x", expected_head_oid=OID_A, headline="h",
                                  additions={"lease.txt": b"token 5"})
    assert c.oid == OID_B
    for body in rec.sent:
        check_variables(github_schema, body)
    assert rec.sent[2]["variables"]["refUpdates"] == [
        {"name": "refs/heads/x", "afterOid": OID_B, "force": False, "beforeOid": OID_A}]
    assert rec.sent[4]["variables"]["fileChanges"] == {
        "additions": [{"path": "lease.txt", "contents": "dG9rZW4gNQ=="}], "deletions": []}


def test_absent_ref_is_none(recorded):
    p, _ = recorded({"RefLookup": {"data": {"repository": {"id": "R_1", "ref": None}}}})
    assert p.ref("o", "r", "refs/heads/nope") is None


def test_rest_lease_commit(recorded):
    p, rec = recorded({"/repos/o/r/git/commits": {
        "sha": OID_B, "message": "lease", "tree": {"sha": EMPTY_TREE},
        "parents": [{"sha": OID_A}], "committer": {"date": "2026-01-01T00:00:00Z"}}})
    author = {"name": "ghattempt", "email": "ghattempt@users.noreply.github.com",
              "date": "2026-01-01T00:00:00Z"}
    c = p.create_commit("o", "r", message="lease", parents=[OID_A], author=author)
    assert c == Commit(OID_B, "lease", EMPTY_TREE, (OID_A,), "2026-01-01T00:00:00Z")
    assert rec.sent[0] == {"message": "lease", "tree": EMPTY_TREE, "parents": [OID_A],
                           "author": author, "committer": author}


def test_pull_request_and_category(recorded, github_schema):
    p, rec = recorded({
        "PullRequestLookup": {"data": {"repository": {"id": "R_1", "pullRequest": {
            "id": "PR_1", "number": 5, "state": "OPEN", "headRefName": "feat",
            "headRefOid": OID_A, "baseRefName": "main", "baseRefOid": OID_B}}}},
        "RepositoryLookup": {"data": {"repository": {
            "id": "R_1", "databaseId": 9, "nameWithOwner": "o/r",
            "discussionCategories": {"nodes": [
                {"id": "DIC_1", "name": "General", "slug": "general"},
                {"id": "DIC_2", "name": "Release Journals", "slug": "release-journals"}]}}}},
    })
    assert p.pull_request("o", "r", 5) == PullRequest("PR_1", 5, "OPEN", "feat", OID_A,
                                                     "main", OID_B)
    assert p.discussion_category("o", "r", "release-journals").id == "DIC_2"
    assert p.discussion_category("o", "r", "release journals").id == "DIC_2"
    with pytest.raises(NotFound, match="general, release-journals"):
        p.discussion_category("o", "r", "announcements")
    for body in rec.sent:
        check_variables(github_schema, body)


@pytest.mark.parametrize("call", [
    lambda p: p.add_comment("D", ""),
    lambda p: p.add_comment("D", "x" * 65_537),
    lambda p: p.create_ref("R", "heads/x", OID_A),
    lambda p: p.create_ref("R", "refs/heads/x", "A" * 40),
    lambda p: p.update_ref("R", "refs/heads/x", after_oid="zz", before_oid=None),
    lambda p: p.create_commit("o", "r", message="m", parents=["short"]),
    lambda p: p.pull_request("o", "r", 0),
])
def test_bad_input_is_refused_before_sending(recorded, call):
    p, rec = recorded({})
    with pytest.raises(InputError):
        call(p)
    assert rec.sent == []


def test_odd_read_answer_is_unexpected_answer(recorded):
    p, _ = recorded({"RepositoryLookup": {"data": {"repository": {"id": "R_1"}}}})
    with pytest.raises(UnexpectedAnswer, match="unexpected shape"):
        p.repository("o", "r")


def test_odd_mutation_answer_is_ambiguous_with_the_exact_bytes(make_provider, router):
    route = router.post("/graphql").mock(return_value=httpx.Response(200, json={
        "data": {"addDiscussionComment": {"comment": {"id": "DC_1"}}}}))
    with pytest.raises(AmbiguousOutcome) as info:
        make_provider().add_comment("D", "body", reply_to_id="DC_0")
    assert info.value.body == route.calls.last.request.content
    assert info.value.reason == "answer without the expected result"


def test_null_mutation_result_without_errors_is_ambiguous(make_provider, router):
    route = router.post("/graphql").mock(return_value=httpx.Response(200, json={
        "data": {"addDiscussionComment": None}}))
    with pytest.raises(AmbiguousOutcome) as info:
        make_provider().add_comment("D", "body")
    assert info.value.body == route.calls.last.request.content and route.call_count == 1


def test_odd_rest_answer_is_ambiguous(make_provider, router):
    route = router.post("/repos/o/r/git/commits").mock(
        return_value=httpx.Response(201, json={"message": "no sha"}))
    with pytest.raises(AmbiguousOutcome) as info:
        make_provider().create_commit("o", "r", message="m", parents=[])
    assert info.value.body == route.calls.last.request.content
    assert info.value.url == "repos/o/r/git/commits"
