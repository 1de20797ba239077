"""Each retry decision, over respx: what is retried, how long it waits (fake clock),
that mutations never are, and that AmbiguousOutcome carries the exact bytes sent."""

from __future__ import annotations

import json
from email.utils import formatdate

import httpx
import pytest

from ghattempt.github import (
    AmbiguousOutcome,
    AuthFailed,
    GitHubUnavailable,
    GraphQLRefused,
    InputError,
    NotFound,
    RateLimited,
    RefConflict,
    RetryPolicy,
)

REPO = {"repository": {"id": "R_kgDOA", "databaseId": 7, "nameWithOwner": "octo/app",
                       "discussionCategories": {"nodes": [
                           {"id": "DIC_1", "name": "Release journals", "slug": "release-journals"}
                       ]}}}
COMMENT = {"addDiscussionComment": {"comment": {"id": "DC_kwDOA", "createdAt":
                                                "2026-01-01T00:00:00Z", "url": "https://x/1"}}}
NODE_LAG = {"data": {"addDiscussionComment": None}, "errors": [{
    "type": "NOT_FOUND", "path": ["addDiscussionComment"],
    "message": "Could not resolve to a node with the global id of 'DC_kwDOroot'."}]}


def ok(data, **headers):
    return httpx.Response(200, json={"data": data}, headers=headers)


def date(now: float) -> str:
    return formatdate(now, usegmt=True)


# -- reads ----------------------------------------------------------------------------

@pytest.mark.parametrize("status", [502, 503, 504])
def test_read_retries_gateway_errors_with_backoff(make_provider, router, fake_clock, status):
    route = router.post("/graphql").mock(side_effect=[httpx.Response(status),
                                                      httpx.Response(status), ok(REPO)])
    repo = make_provider().repository("octo", "app")
    assert repo.id == "R_kgDOA" and repo.database_id == 7
    assert route.call_count == 3
    assert fake_clock.sleeps == [1.0, 2.0]


def test_read_gives_up_after_max_attempts(make_provider, router, fake_clock):
    route = router.post("/graphql").mock(return_value=httpx.Response(502))
    with pytest.raises(GitHubUnavailable, match="502"):
        make_provider(retry=RetryPolicy(max_attempts=4)).repository("octo", "app")
    assert route.call_count == 4
    assert fake_clock.sleeps == [1.0, 2.0, 4.0]


def test_read_backoff_is_capped(make_provider, router, fake_clock):
    router.post("/graphql").mock(return_value=httpx.Response(504))
    with pytest.raises(GitHubUnavailable):
        make_provider(retry=RetryPolicy(max_attempts=6, backoff_cap=3.0)).repository("o", "r")
    assert fake_clock.sleeps == [1.0, 2.0, 3.0, 3.0, 3.0]


def test_read_500_is_not_retried(make_provider, router, fake_clock):
    route = router.post("/graphql").mock(return_value=httpx.Response(500))
    with pytest.raises(GitHubUnavailable):
        make_provider().repository("octo", "app")
    assert route.call_count == 1 and fake_clock.sleeps == []


@pytest.mark.parametrize("error", [httpx.ConnectError("refused"), httpx.ReadTimeout("slow"),
                                   httpx.RemoteProtocolError("reset"), httpx.ConnectTimeout("x")])
def test_read_retries_connection_failures(make_provider, router, fake_clock, error):
    route = router.post("/graphql").mock(side_effect=[error, ok(REPO)])
    assert make_provider().repository("octo", "app").name_with_owner == "octo/app"
    assert route.call_count == 2 and fake_clock.sleeps == [1.0]


@pytest.mark.parametrize("kind", ["RATE_LIMITED", "RATE_LIMIT"])
def test_read_primary_limit_in_200_waits_until_reset(make_provider, router, fake_clock, kind):
    now = fake_clock.now
    limited = httpx.Response(200, json={"data": None, "errors": [
        {"type": kind, "message": "API rate limit exceeded for user ID 1."}]},
        headers={"x-ratelimit-remaining": "3", "x-ratelimit-reset": str(int(now) + 120),
                 "date": date(now)})
    route = router.post("/graphql").mock(side_effect=[limited, ok(REPO)])
    make_provider().repository("octo", "app")
    assert route.call_count == 2
    assert fake_clock.sleeps == [121.0]


def test_primary_wait_uses_githubs_clock_not_ours(make_provider, router, fake_clock):
    now = fake_clock.now
    # GitHub's Date is 30 s behind our clock: wait by GitHub's clock (reset - date + 1)
    limited = httpx.Response(403, json={"message": "API rate limit exceeded"},
                             headers={"x-ratelimit-remaining": "0",
                                      "x-ratelimit-reset": str(int(now) + 60),
                                      "date": date(now - 30)})
    router.post("/graphql").mock(side_effect=[limited, ok(REPO)])
    make_provider().repository("octo", "app")
    assert fake_clock.sleeps == [91.0]


def test_primary_403_remaining_zero_waits_until_reset(make_provider, router, fake_clock):
    now = fake_clock.now
    limited = httpx.Response(403, json={"message": "API rate limit exceeded"},
                             headers={"x-ratelimit-remaining": "0",
                                      "x-ratelimit-reset": str(int(now) + 10),
                                      "date": date(now)})
    router.post("/graphql").mock(side_effect=[limited, ok(REPO)])
    make_provider().repository("octo", "app")
    assert fake_clock.sleeps == [11.0]


def test_secondary_without_retry_after_waits_a_minute_then_doubles(
        make_provider, router, fake_clock):
    secondary = httpx.Response(403, json={
        "message": "You have exceeded a secondary rate limit. Please wait a few minutes."})
    route = router.post("/graphql").mock(side_effect=[secondary, secondary, ok(REPO)])
    make_provider().repository("octo", "app")
    assert route.call_count == 3
    assert fake_clock.sleeps == [60.0, 120.0]


@pytest.mark.parametrize("status", [403, 429])
def test_secondary_retry_after_is_honoured(make_provider, router, fake_clock, status):
    limited = httpx.Response(status, json={"message": "secondary rate limit"},
                             headers={"retry-after": "7"})
    router.post("/graphql").mock(side_effect=[limited, ok(REPO)])
    make_provider().repository("octo", "app")
    assert fake_clock.sleeps == [7.0]


def test_rate_limit_wait_beyond_budget_raises_without_sleeping(make_provider, router, fake_clock):
    now = fake_clock.now
    limited = httpx.Response(200, json={"errors": [{"type": "RATE_LIMITED", "message": "x"}]},
                             headers={"x-ratelimit-remaining": "0", "date": date(now),
                                      "x-ratelimit-reset": str(int(now) + 7200)})
    route = router.post("/graphql").mock(return_value=limited)
    with pytest.raises(RateLimited) as info:
        make_provider(retry=RetryPolicy(max_wait=600)).repository("octo", "app")
    assert info.value.kind == "primary" and info.value.retry_after == 7201.0
    assert route.call_count == 1 and fake_clock.sleeps == []


def test_read_unreadable_200_is_retried(make_provider, router, fake_clock):
    router.post("/graphql").mock(side_effect=[httpx.Response(200, text="<html>oops"),
                                              ok(REPO)])
    make_provider().repository("octo", "app")
    assert fake_clock.sleeps == [1.0]


def test_read_server_failure_in_errors_is_retried(make_provider, router, fake_clock):
    failed = httpx.Response(200, json={"data": None, "errors": [{"message":
        "Something went wrong while executing your query. This may be the result of a timeout"
    }]})
    router.post("/graphql").mock(side_effect=[failed, ok(REPO)])
    make_provider().repository("octo", "app")
    assert fake_clock.sleeps == [1.0]


def test_node_lag_is_retried_within_lag_attempts(make_provider, router, fake_clock):
    lag = httpx.Response(200, json={"data": {"node": None}, "errors": [{
        "type": "NOT_FOUND", "path": ["node"],
        "message": "Could not resolve to a node with the global id of 'R_x'."}]})
    route = router.post("/graphql").mock(return_value=lag)
    with pytest.raises(NotFound, match="Could not resolve to a node"):
        make_provider(retry=RetryPolicy(lag_attempts=4)).repository_by_id("R_x")
    assert route.call_count == 4 and fake_clock.sleeps == [0.5, 1.0, 2.0]


def test_other_not_found_is_final(make_provider, router, fake_clock):
    gone = httpx.Response(200, json={"data": {"repository": None}, "errors": [{
        "type": "NOT_FOUND", "path": ["repository"],
        "message": "Could not resolve to a Repository with the name 'octo/nope'."}]})
    route = router.post("/graphql").mock(return_value=gone)
    with pytest.raises(NotFound, match="octo/nope"):
        make_provider().repository("octo", "nope")
    assert route.call_count == 1 and fake_clock.sleeps == []


@pytest.mark.parametrize("status,exc", [(401, AuthFailed), (403, AuthFailed),
                                        (404, NotFound), (422, GraphQLRefused),
                                        (400, GraphQLRefused)])
def test_definite_http_refusals_are_not_retried(make_provider, router, fake_clock, status, exc):
    route = router.post("/graphql").mock(return_value=httpx.Response(
        status, json={"message": "Resource not accessible by integration"}))
    with pytest.raises(exc):
        make_provider().repository("octo", "app")
    assert route.call_count == 1 and fake_clock.sleeps == []


def test_validation_error_is_refused(make_provider, router):
    route = router.post("/graphql").mock(return_value=httpx.Response(200, json={"errors": [{
        "path": ["query", "repository", "nope"], "extensions": {"code": "undefinedField"},
        "locations": [{"line": 1, "column": 2}],
        "message": "Field 'nope' doesn't exist on type 'Repository'"}]}))
    with pytest.raises(GraphQLRefused) as info:
        make_provider().repository("octo", "app")
    assert info.value.errors[0]["extensions"]["code"] == "undefinedField"
    assert route.call_count == 1


def test_forbidden_type_is_auth_failed(make_provider, router):
    router.post("/graphql").mock(return_value=httpx.Response(200, json={
        "data": {"repository": None},
        "errors": [{"type": "FORBIDDEN", "message": "Resource not accessible by integration"}]}))
    with pytest.raises(AuthFailed, match="GitHub refused it") as info:
        make_provider().repository("octo", "app")
    assert "RepositoryLookup" not in str(info.value)  # the user's words, not the document's
    assert str(info.value).startswith("reading the repository: ")


def test_a_missing_permission_is_named_by_its_permissions_key(make_provider, router):
    router.post("/graphql").mock(return_value=httpx.Response(200, json={
        "data": {"addDiscussionComment": None},
        "errors": [{"type": "FORBIDDEN", "message": "Resource not accessible by integration"}]}))
    with pytest.raises(AuthFailed) as info:
        make_provider().add_comment("D_1", "body")
    text = str(info.value)
    assert text.startswith("adding a record to the journal: ") and "AddDiscussion" not in text
    assert "the token needs discussions: write; add it to the workflow's or job's " \
        "permissions:" in text


def test_a_refused_discussion_deletion_names_the_access_it_needs(make_provider, router):
    # the probe removes its throwaway discussion: a token that may comment but lacks
    # triage access is refused, and the message says so (it said "can read the
    # repository", which that token can)
    router.post("/graphql").mock(return_value=httpx.Response(200, json={
        "data": {"deleteDiscussion": None},
        "errors": [{"type": "FORBIDDEN", "message": "Resource not accessible by integration"}]}))
    with pytest.raises(AuthFailed) as info:
        make_provider().delete_discussion("D_1")
    text = str(info.value)
    assert text.startswith("deleting a discussion: ") and "DeleteDiscussion" not in text
    assert "the token needs discussions: write and triage access to the repository" in text
    assert "can read the repository" not in text


# -- mutations ------------------------------------------------------------------------

@pytest.mark.parametrize("status", [502, 504, 500, 503])
def test_mutation_5xx_is_ambiguous_with_exact_bytes(make_provider, router, fake_clock, status):
    route = router.post("/graphql").mock(return_value=httpx.Response(status))
    body = "<!-- ghattempt:v1 -->\n```json\n{\"a\":\"é\"}\n```"
    with pytest.raises(AmbiguousOutcome) as info:
        make_provider().add_comment("D_kwDOA", body, reply_to_id="DC_kwDOroot")
    err = info.value
    assert route.call_count == 1 and fake_clock.sleeps == []
    sent = route.calls.last.request.content
    assert err.body == sent
    assert err.document == "AddDiscussionComment" and err.status == status
    assert err.variables == {"discussionId": "D_kwDOA", "body": body,
                             "replyToId": "DC_kwDOroot"}
    decoded = json.loads(sent)
    assert decoded["variables"] == err.variables
    assert decoded["operationName"] == "AddDiscussionComment"
    assert "mutation AddDiscussionComment" in decoded["query"]


@pytest.mark.parametrize("error", [httpx.ReadTimeout("slow"), httpx.WriteTimeout("slow"),
                                   httpx.RemoteProtocolError("peer closed"),
                                   httpx.ReadError("reset by peer")])
def test_mutation_lost_answer_is_ambiguous(make_provider, router, fake_clock, error):
    route = router.post("/graphql").mock(side_effect=error)
    with pytest.raises(AmbiguousOutcome) as info:
        make_provider().add_comment("D_kwDOA", "body")
    assert route.call_count == 1 and fake_clock.sleeps == []
    assert info.value.body == route.calls.last.request.content


@pytest.mark.parametrize("response", [
    httpx.Response(200, text="<html>"),
    httpx.Response(200, json={}),
    httpx.Response(200, json={"data": None, "errors": [{
        "message": "Something went wrong while executing your query. This may be the "
                   "result of a timeout, or it could be a GitHub bug."}]}),
    # GitHub's failure inside GitHub, typed (dtolnay/star-history#1): the mutation may
    # have committed before it, so it is no refusal
    httpx.Response(200, json={"data": {"addDiscussionComment": None}, "errors": [{
        "type": "INTERNAL", "path": ["addDiscussionComment"], "locations": [{"line": 1,
        "column": 1}], "message": "Something went wrong while executing your query. "
        "Please include `ABCD:1234` when reporting this issue."}]}),
])
def test_mutation_unreadable_answer_is_ambiguous(make_provider, router, response):
    route = router.post("/graphql").mock(return_value=response)
    with pytest.raises(AmbiguousOutcome):
        make_provider().add_comment("D_kwDOA", "body")
    assert route.call_count == 1


def test_mutation_not_sent_is_retried(make_provider, router, fake_clock):
    route = router.post("/graphql").mock(side_effect=[httpx.ConnectError("refused"),
                                                      ok(COMMENT)])
    assert make_provider().add_comment("D_kwDOA", "body").id == "DC_kwDOA"
    assert route.call_count == 2 and fake_clock.sleeps == [1.0]


@pytest.mark.parametrize("response,kind", [
    (httpx.Response(200, json={"data": None, "errors": [
        {"type": "RATE_LIMITED", "message": "API rate limit exceeded"}]},
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1800000030",
                 "date": date(1_800_000_000.0)}), "primary"),
    (httpx.Response(403, json={"message": "You have exceeded a secondary rate limit."}),
     "secondary"),
    (httpx.Response(429, json={"message": "slow down"}, headers={"retry-after": "30"}),
     "secondary"),
])
def test_mutation_rate_limit_is_definite_and_not_retried(make_provider, router, fake_clock,
                                                         response, kind):
    route = router.post("/graphql").mock(return_value=response)
    with pytest.raises(RateLimited) as info:
        make_provider().add_comment("D_kwDOA", "body")
    assert info.value.kind == kind and info.value.retry_after in (31.0, 60.0, 30.0)
    assert route.call_count == 1 and fake_clock.sleeps == []


def test_mutation_node_lag_is_retried_because_nothing_executed(make_provider, router,
                                                               fake_clock):
    route = router.post("/graphql").mock(side_effect=[httpx.Response(200, json=NODE_LAG),
                                                      ok(COMMENT)])
    assert make_provider().add_comment("D_kwDOA", "b", reply_to_id="DC_kwDOroot").id
    assert route.call_count == 2 and fake_clock.sleeps == [0.5]


@pytest.mark.parametrize("status,exc", [(401, AuthFailed), (403, AuthFailed),
                                        (422, GraphQLRefused)])
def test_mutation_refusals_are_definite(make_provider, router, status, exc):
    route = router.post("/graphql").mock(return_value=httpx.Response(
        status, json={"message": "Bad credentials"}))
    with pytest.raises(exc):
        make_provider().add_comment("D_kwDOA", "body")
    assert route.call_count == 1


@pytest.mark.parametrize("message", [
    'A ref named "refs/heads/lease" already exists in the repository.',
    "Repository rule violations found\n\nCannot create ref due to creations being "
    "restricted.\n\n",
])
def test_a_ref_refusal_is_never_read_from_its_wording(make_provider, router, message):
    # GitHub answers a ref that exists and a ruleset alike (UNPROCESSABLE); only a
    # read-back of the ref tells them apart (ghattempt/store/_github.py)
    router.post("/graphql").mock(return_value=httpx.Response(200, json={
        "data": {"createRef": None}, "errors": [{"type": "UNPROCESSABLE", "path": ["createRef"],
                                                 "message": message}]}))
    with pytest.raises(GraphQLRefused) as info:
        make_provider().create_ref("R_kgDOA", "refs/heads/lease", "a" * 40)
    assert not isinstance(info.value, RefConflict)


def test_an_untyped_update_refs_refusal_is_no_conflict_by_its_wording(make_provider, router):
    router.post("/graphql").mock(return_value=httpx.Response(200, json={
        "data": {"updateRefs": None}, "errors": [{"path": ["updateRefs"], "message":
            "Could not update refs/heads/lease: expected it at aaaa, found bbbb."}]}))
    with pytest.raises(GraphQLRefused) as info:
        make_provider().update_ref("R_kgDOA", "refs/heads/lease", after_oid="b" * 40,
                                   before_oid="a" * 40)
    assert not isinstance(info.value, RefConflict)


def test_update_refs_stale_before_oid_is_a_conflict(make_provider, router):
    router.post("/graphql").mock(return_value=httpx.Response(200, json={
        "data": {"updateRefs": None}, "errors": [{"type": "STALE_DATA", "path": ["updateRefs"],
        "message": "Expected refs/heads/lease to be at aaaa but it is at bbbb"}]}))
    with pytest.raises(RefConflict):
        make_provider().update_ref("R_kgDOA", "refs/heads/lease", after_oid="b" * 40,
                                   before_oid="a" * 40)


def test_rest_commit_5xx_is_ambiguous_with_exact_bytes(make_provider, router):
    route = router.post("/repos/octo/app/git/commits").mock(return_value=httpx.Response(502))
    with pytest.raises(AmbiguousOutcome) as info:
        make_provider().create_commit("octo", "app", message="lease\n\ntoken: 3",
                                      parents=["c" * 40])
    sent = route.calls.last.request.content
    assert info.value.body == sent
    assert json.loads(sent) == {"message": "lease\n\ntoken: 3",
                                "tree": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
                                "parents": ["c" * 40]}
    assert route.call_count == 1


def test_mutations_are_paced_reads_are_not(make_provider, router, fake_clock):
    router.post("/graphql").mock(side_effect=lambda req: ok(
        REPO if b"RepositoryLookup" in req.content else COMMENT))
    p = make_provider(mutation_interval=1.0)
    p.add_comment("D", "one")
    p.repository("octo", "app")
    p.repository("octo", "app")
    p.add_comment("D", "two")
    fake_clock.now += 0.25
    p.add_comment("D", "three")
    assert fake_clock.sleeps == [1.0, 0.75]


def test_usage_counts_requests_and_points(make_provider, router):
    used = iter([10, 11, 16, 17])

    def answer(req):
        headers = {"x-ratelimit-used": str(next(used)), "x-ratelimit-remaining": "4000",
                   "x-ratelimit-reset": "1800003600", "x-ratelimit-resource": "graphql",
                   "x-ratelimit-limit": "5000"}
        return ok(REPO if b"RepositoryLookup" in req.content else COMMENT, **headers)

    router.post("/graphql").mock(side_effect=answer)
    p = make_provider()
    p.repository("octo", "app")      # first seen: 1 point (GitHub's least cost)
    p.repository("octo", "app")      # used 10 -> 11: 1
    p.add_comment("D", "x")          # 11 -> 16: 5
    p.add_comment("D", "y")          # 16 -> 17: 1
    u = p.usage
    assert u.requests == 4 and u.points == 8
    assert u.by_operation["RepositoryLookup"].requests == 2
    assert u.by_operation["AddDiscussionComment"].points == 6
    assert u.secondary_points == 2 * 1 + 2 * 5
    assert u.rate_limit.remaining == 4000 and u.rate_limit.resource == "graphql"


def test_graphql_endpoint_on_ghes(router, make_provider):
    route = router.post("https://ghe.example/api/graphql").mock(return_value=ok(REPO))
    make_provider(base_url="https://ghe.example/api/v3/").repository("octo", "app")
    assert route.call_count == 1
    assert route.calls.last.request.headers["authorization"].startswith("token ")


def test_timeouts_are_always_set(make_provider, router):
    seen = {}

    def answer(req):
        seen.update(req.extensions["timeout"])
        return ok(REPO)

    router.post("/graphql").mock(side_effect=answer)
    make_provider(timeout=12.5, connect_timeout=3.0).repository("octo", "app")
    assert seen == {"connect": 3.0, "read": 12.5, "write": 12.5, "pool": 12.5}


def test_unparseable_retry_after_still_classified(make_provider, router, fake_clock):
    limited = httpx.Response(429, json={"message": "secondary rate limit"},
                             headers={"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"})
    route = router.post("/graphql").mock(side_effect=[limited, ok(REPO)])
    make_provider().repository("octo", "app")
    assert route.call_count == 2 and fake_clock.sleeps == [60.0]


def test_last_server_time_comes_from_date_header(make_provider, router):
    router.post("/graphql").mock(return_value=ok(REPO, date="Wed, 21 Oct 2026 07:28:00 GMT"))
    p = make_provider()
    assert p.last_server_time is None
    p.repository("octo", "app")
    assert p.last_server_time == 1792567680.0


def test_resend_sends_the_identical_bytes(make_provider, router):
    route = router.post("/graphql").mock(side_effect=[httpx.Response(502), ok(COMMENT)])
    p = make_provider()
    with pytest.raises(AmbiguousOutcome) as info:
        p.add_comment("D_kwDOA", "body é", reply_to_id="DC_root")
    assert p.resend(info.value)["addDiscussionComment"]["comment"]["id"] == "DC_kwDOA"
    first, second = (c.request.content for c in route.calls)
    assert first == second == info.value.body


def test_resend_refuses_an_outcome_from_elsewhere(make_provider):
    foreign = AmbiguousOutcome("x", operation="AddDiscussionComment", variables={},
                               body=b"{}", reason="http 502",
                               url="https://elsewhere.example/graphql")
    with pytest.raises(InputError):
        make_provider().resend(foreign)


def test_secondary_limit_reported_inside_a_200(make_provider, router, fake_clock):
    limited = httpx.Response(200, json={"data": None, "errors": [
        {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}]})
    route = router.post("/graphql").mock(side_effect=[limited, ok(REPO)])
    make_provider().repository("octo", "app")
    assert route.call_count == 2 and fake_clock.sleeps == [60.0]


def test_spent_budget_is_waited_out_before_the_next_read(make_provider, router, fake_clock):
    now = fake_clock.now
    last = ok(REPO, **{"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(now) + 30),
                       "x-ratelimit-resource": "graphql", "date": date(now)})
    route = router.post("/graphql").mock(side_effect=[last, ok(REPO)])
    p = make_provider()
    p.repository("octo", "app")
    p.repository("octo", "app")
    assert route.call_count == 2 and fake_clock.sleeps == [31.0]  # no request wasted


def test_spent_budget_refuses_a_mutation_without_sending(make_provider, router, fake_clock):
    now = fake_clock.now
    last = ok(REPO, **{"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(now) + 30),
                       "x-ratelimit-resource": "graphql", "date": date(now)})
    route = router.post("/graphql").mock(side_effect=[last, ok(COMMENT)])
    p = make_provider()
    p.repository("octo", "app")
    with pytest.raises(RateLimited, match="nothing was sent") as info:
        p.add_comment("D", "x")
    assert info.value.retry_after == 31.0 and route.call_count == 1
    fake_clock.now += 31
    assert p.add_comment("D", "x").id == "DC_kwDOA"  # after the reset it goes


def test_rest_budget_is_separate_from_graphql(make_provider, router, fake_clock):
    now = fake_clock.now
    router.post("/graphql").mock(return_value=ok(REPO, **{
        "x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(now) + 30),
        "x-ratelimit-resource": "graphql", "date": date(now)}))
    commits = router.post("/repos/o/r/git/commits").mock(return_value=httpx.Response(
        201, json={"sha": "c" * 40, "message": "m", "tree": {"sha": "t"}, "parents": []}))
    p = make_provider()
    p.repository("octo", "app")
    p.create_commit("o", "r", message="m", parents=[])
    assert commits.call_count == 1 and fake_clock.sleeps == []


def test_points_are_tracked_per_resource(make_provider, router):
    graphql_used = iter([100, 101, 102])
    router.post("/graphql").mock(side_effect=lambda req: ok(REPO, **{
        "x-ratelimit-used": str(next(graphql_used)), "x-ratelimit-remaining": "900",
        "x-ratelimit-reset": "1800003600", "x-ratelimit-resource": "graphql"}))
    router.post("/repos/o/r/git/commits").mock(return_value=httpx.Response(201, json={
        "sha": "c" * 40, "message": "m", "tree": {"sha": "t"}, "parents": []}, headers={
        "x-ratelimit-used": "7", "x-ratelimit-remaining": "4993",
        "x-ratelimit-reset": "1800003000", "x-ratelimit-resource": "core"}))
    p = make_provider()
    p.repository("octo", "app")
    p.create_commit("o", "r", message="m", parents=[])
    p.repository("octo", "app")
    p.repository("octo", "app")
    assert p.usage.by_operation["RepositoryLookup"].points == 3  # 1 + (101-100) + (102-101)
    assert p.usage.rate_limit.resource == "graphql"


def test_every_mutation_is_paced_and_pace_waits_ahead(make_provider, router, fake_clock):
    router.post("/graphql").mock(side_effect=lambda req: ok(
        COMMENT if b"AddDiscussionComment" in req.content
        else {"updateRefs": {"clientMutationId": None}}))
    p = make_provider(mutation_interval=1.0)
    p.add_comment("D", "one")
    p.update_ref("R", "refs/heads/x", after_oid="b" * 40, before_oid="a" * 40)
    assert fake_clock.sleeps == [1.0]
    assert p.pace() == 1.0  # the writer waits before its ownership check...
    p.add_comment("D", "two")
    assert fake_clock.sleeps == [1.0, 1.0]  # ...so the send itself does not wait
