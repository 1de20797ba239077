"""GitHub's cost rules, the primary budget, the secondary content-creation limit, the
rate-limit headers, and githubkit's reading of them."""

from __future__ import annotations

import httpx
import pytest
from githubkit import GitHub, TokenAuthStrategy
from githubkit.exception import PrimaryRateLimitExceeded, SecondaryRateLimitExceeded

from ghattempt.emulator import Emulator, EmulatorTransport, FaultRule

from .conftest import ADD_COMMENT, GQL, QUERIES, comment, new_discussion, valid

JOURNAL = (QUERIES / "JournalPage.graphql").read_text()
RATE = "rateLimit { cost limit remaining used resetAt nodeCount }"


def test_query_cost_follows_githubs_formula(actions: GQL) -> None:
    small = actions.data(f"query {{ viewer {{ login }} {RATE} }}")["rateLimit"]
    assert (small["cost"], small["nodeCount"]) == (1, 0)
    # 1 request for discussions + 100 for comments + 100*100 for replies = 10101 -> 101
    big = actions.data(
        'query { repository(owner: "octo-org", name: "widgets") {'
        " discussions(first: 100) { nodes { comments(first: 100) { nodes {"
        f" replies(first: 10) {{ totalCount }} }} }} }} }} }} {RATE} }}"
    )["rateLimit"]
    assert big["cost"] == 101
    assert big["nodeCount"] == 100 + 100 * 100 + 100 * 100 * 10
    assert big["used"] == small["used"] + 101
    assert big["remaining"] == big["limit"] - big["used"]


def test_node_limit(actions: GQL) -> None:
    body = actions(
        'query { repository(owner: "octo-org", name: "widgets") {'
        " discussions(first: 100) { nodes { comments(first: 100) { nodes {"
        " replies(first: 100) { totalCount } } } } } } }"
    )
    assert body["errors"][0]["type"] == "MAX_NODE_LIMIT_EXCEEDED"
    assert "data" not in body


def test_mutation_costs_one_primary_point(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    emu.clear_request_log()
    comment(actions, d["id"], "x")
    assert emu.request_log()[0]["cost"] == 1


def test_primary_budget_runs_out_and_resets(emu: Emulator, http: httpx.Client) -> None:
    emu.state.add_token("ghs_tiny", 41898282, "write", "write", "write", 3, None)
    tiny = GQL(http, "ghs_tiny")
    for expected in (2, 1, 0):
        r = tiny.raw("{ viewer { login } }")
        assert r.status_code == 200 and "errors" not in r.json()
        assert r.headers["x-ratelimit-remaining"] == str(expected)
        assert r.headers["x-ratelimit-limit"] == "3"
        assert r.headers["x-ratelimit-resource"] == "graphql"
        assert "date" in r.headers
    r = tiny.raw("{ viewer { login } }")
    assert r.status_code == 200
    assert r.json()["errors"][0]["type"] == "RATE_LIMITED"
    assert r.json()["errors"][0]["message"] == (
        "API rate limit exceeded for installation ID 41898282."
    )
    assert r.headers["x-ratelimit-remaining"] == "0"
    again = tiny.raw("{ viewer { login } }").json()["errors"][0]["message"]
    assert again == "API rate limit already exceeded for installation ID 41898282."
    reset = int(r.headers["x-ratelimit-reset"])
    emu.clock.advance(3601)
    r = tiny.raw("{ viewer { login } }")
    assert "errors" not in r.json()
    assert int(r.headers["x-ratelimit-reset"]) > reset


def test_secondary_content_creation_limit(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)  # one content creation
    emu.content_per_minute = 3
    comment(actions, d["id"], "a")
    comment(actions, d["id"], "b")
    r = actions.raw(ADD_COMMENT, d=d["id"], body="c", to=None)
    assert r.status_code == 403
    assert 1 <= int(r.headers["retry-after"]) <= 60
    assert "secondary rate limit" in r.json()["message"]
    body = actions(JOURNAL, owner="octo-org", name="widgets", number=d["number"])
    assert body["data"]["repository"]["discussion"]["comments"]["totalCount"] == 2
    emu.clock.advance(61)
    comment(actions, d["id"], "c")


def test_content_creation_has_an_hourly_window_too(emu: Emulator, actions: GQL) -> None:
    """GitHub: at most 80 content-creating requests a minute *and* 500 an hour."""
    d = new_discussion(actions)  # one content creation
    emu.content_per_hour = 3
    comment(actions, d["id"], "a")
    comment(actions, d["id"], "b")
    emu.clock.advance(61)  # a new minute, the same hour
    r = actions.raw(ADD_COMMENT, d=d["id"], body="c", to=None)
    assert r.status_code == 403 and "secondary rate limit" in r.json()["message"]
    assert 3000 <= int(r.headers["retry-after"]) <= 3600
    emu.clock.advance(3600)
    comment(actions, d["id"], "c")


def test_a_time_scale_runs_the_secondary_windows_faster(emu: Emulator, actions: GQL) -> None:
    """A benchmark's ``[limits] time_scale``: GitHub's numbers, windows k times faster;
    the request log marks the limited answer."""
    emu.time_scale = 2  # a minute's window in 30 s (set before anything is counted)
    d = new_discussion(actions)
    emu.content_per_minute = 3
    comment(actions, d["id"], "a")
    comment(actions, d["id"], "b")
    r = actions.raw(ADD_COMMENT, d=d["id"], body="c", to=None)
    assert r.status_code == 403 and 1 <= int(r.headers["retry-after"]) <= 30
    log = emu.request_log()
    assert log[-1]["secondary_limited"] is True
    assert not any(e["secondary_limited"] for e in log[:-1])
    emu.clock.advance(30.01)
    comment(actions, d["id"], "c")


def test_rest_rate_limit_endpoint(emu: Emulator, http: httpx.Client, actions: GQL) -> None:
    actions.data("{ viewer { login } }")
    r = http.get("/rate_limit", headers={"Authorization": "bearer ghs_actions"})
    assert r.status_code == 200
    body = r.json()
    assert body["resources"]["graphql"]["used"] == 1
    assert body["resources"]["graphql"]["limit"] == 1000
    assert body["resources"]["core"]["used"] == 0
    # it costs no primary budget, but counts against the secondary limit (GitHub docs)
    emu.rest_points_per_minute = 2
    again = http.get("/rate_limit", headers={"Authorization": "bearer ghs_actions"})
    assert again.json()["resources"]["core"]["used"] == 0
    refused = http.get("/rate_limit", headers={"Authorization": "bearer ghs_actions"})
    assert refused.status_code == 403 and "retry-after" in refused.headers


def _github(emu: Emulator, token: str = "ghs_actions") -> GitHub:
    return GitHub(
        TokenAuthStrategy(token),
        base_url="https://api.github.com/",
        transport=EmulatorTransport(emu),
        http_cache=False,
        auto_retry=False,
        timeout=10,
    )


def test_githubkit_in_process(emu: Emulator) -> None:
    gh = _github(emu)
    data = gh.graphql.request(
        valid('query { repository(owner: "octo-org", name: "widgets") { id } }')
    )
    assert data["repository"]["id"].startswith("R_kgDO")
    emu.add_fault(FaultRule("primary_rate_limit", operation="Q", count=1))
    with pytest.raises(PrimaryRateLimitExceeded):
        gh.graphql.request(valid("query Q { viewer { login } }"))
    emu.add_fault(FaultRule("secondary_rate_limit", operation="Q", retry_after=9, count=1))
    with pytest.raises(SecondaryRateLimitExceeded) as info:
        gh.graphql.request(valid("query Q { viewer { login } }"))
    assert info.value.retry_after.total_seconds() == 9
    commit = gh.rest.git.create_commit(
        "octo-org", "widgets", message="lease", tree="4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    )
    assert commit.parsed_data.tree.sha == "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    back = gh.rest.git.get_commit("octo-org", "widgets", commit.parsed_data.sha)
    assert back.parsed_data.sha == commit.parsed_data.sha


async def _async_roundtrip(emu: Emulator) -> str:
    from ghattempt.emulator import AsyncEmulatorTransport

    gh = GitHub(
        TokenAuthStrategy("ghs_actions"),
        base_url="https://api.github.com/",
        async_transport=AsyncEmulatorTransport(emu),
        http_cache=False,
        auto_retry=False,
        timeout=10,
    )
    data = await gh.graphql.arequest(valid("query { viewer { login } }"))
    return str(data["viewer"]["login"])


def test_githubkit_async_transport(emu: Emulator) -> None:
    import asyncio

    assert asyncio.run(_async_roundtrip(emu)) == "github-actions[bot]"


def test_rest_limits(emu: Emulator, http: httpx.Client) -> None:
    emu.state.add_token("ghs_rest", 41898282, "write", "write", "write", 2, None)
    auth = {"Authorization": "bearer ghs_rest"}
    body = {"message": "lease", "tree": "4b825dc642cb6eb9a060e54bf8d69288fbee4904"}
    for remaining in ("1", "0"):
        r = http.post("/repos/octo-org/widgets/git/commits", json=body, headers=auth)
        assert r.status_code == 201
        assert r.headers["x-ratelimit-remaining"] == remaining
        assert r.headers["x-ratelimit-resource"] == "core"
    r = http.post("/repos/octo-org/widgets/git/commits", json=body, headers=auth)
    assert r.status_code == 403 and r.json()["message"].startswith("API rate limit exceeded")
    # REST writes cost 5 secondary points and REST commits count as content creation
    emu.rest_points_per_minute = 10
    auth = {"Authorization": "bearer ghp_alice"}
    codes = [
        http.post("/repos/octo-org/widgets/git/commits", json=body, headers=auth).status_code
        for _ in range(3)
    ]
    assert codes == [201, 201, 403]
    emu.clock.advance(61)
    emu.content_per_minute = 1
    assert (
        http.post("/repos/octo-org/widgets/git/commits", json=body, headers=auth).status_code == 201
    )
    r = http.post("/repos/octo-org/widgets/git/commits", json=body, headers=auth)
    assert r.status_code == 403 and "secondary rate limit" in r.json()["message"]
    assert "retry-after" in r.headers
