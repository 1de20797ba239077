"""Each fault rule, its matching (operation, nth, count, probability with a seed),
and what the client and the state see."""

from __future__ import annotations

import time

import httpx
import pytest

from ghattempt.emulator import Emulator, FaultRule

from .conftest import ADD_COMMENT, GQL, QUERIES, comment, new_discussion

JOURNAL = (QUERIES / "JournalPage.graphql").read_text()


def roots(client: GQL, number: int) -> list[dict]:
    body = client(JOURNAL, owner="octo-org", name="widgets", number=number)
    return list(body["data"]["repository"]["discussion"]["comments"]["nodes"])


def send_comment(client: GQL, discussion: str, body: str) -> httpx.Response:
    return client.raw(ADD_COMMENT, d=discussion, body=body, to=None)


def test_lose_response_after_commit_with_502(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    emu.add_fault(FaultRule("lose_response", operation="addDiscussionComment", count=1))
    r = send_comment(actions, d["id"], "landed")
    assert r.status_code == 502
    assert r.json()["data"] is None
    assert r.json()["errors"][0]["message"].startswith(
        "Something went wrong while executing your query"
    )
    assert [c["body"] for c in roots(actions, d["number"])] == ["landed"]
    # count=1: the next one is answered
    assert send_comment(actions, d["id"], "second").status_code == 200


def test_lose_response_as_dropped_connection(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    emu.add_fault({"kind": "lose_response", "operation": "addDiscussionComment", "drop": True})
    with pytest.raises(httpx.RemoteProtocolError):
        send_comment(actions, d["id"], "landed anyway")
    assert [c["body"] for c in roots(actions, d["number"])] == ["landed anyway"]


def test_fail_before_commit_with_504(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    emu.add_fault(FaultRule("fail", operation="addDiscussionComment", status=504, count=1))
    r = send_comment(actions, d["id"], "never")
    assert r.status_code == 504
    assert r.json()["message"].startswith("We couldn't respond to your request in time")
    assert roots(actions, d["number"]) == []


def test_primary_rate_limit_while_remaining_is_positive(emu: Emulator, actions: GQL) -> None:
    emu.add_fault(FaultRule("primary_rate_limit", operation="JournalPage", count=1))
    d = new_discussion(actions)
    r = actions.raw(JOURNAL, owner="octo-org", name="widgets", number=d["number"])
    assert r.status_code == 200
    assert r.json() == {
        "errors": [
            {
                "type": "RATE_LIMITED",
                "message": "API rate limit exceeded for installation ID 41898282.",
            }
        ]
    }
    assert int(r.headers["x-ratelimit-remaining"]) > 0
    assert r.headers["x-ratelimit-resource"] == "graphql"


def test_secondary_rate_limit_fault(emu: Emulator, actions: GQL) -> None:
    emu.add_fault(FaultRule("secondary_rate_limit", operation="mutation", retry_after=17, count=1))
    repo_q = "{ viewer { login } }"
    assert actions.raw(repo_q).status_code == 200  # only mutations match
    d_resp = actions.raw(
        "mutation($id: ID!) { lockLockable(input: {lockableId: $id}) { clientMutationId } }",
        id="D_kwDOAAAAAM4AAAAB",
    )
    assert d_resp.status_code == 403
    assert d_resp.headers["retry-after"] == "17"
    assert d_resp.json()["message"].startswith("You have exceeded a secondary rate limit")


def test_latency_before_and_after_commit(emu: Emulator, actions: GQL) -> None:
    emu.add_fault(FaultRule("latency", operation="Slow", latency_ms=150))
    t0 = time.perf_counter()
    assert actions.data("query Slow { viewer { login } }")
    assert time.perf_counter() - t0 >= 0.15
    actions.data("query Fast { viewer { login } }")
    assert [e["faults"] for e in emu.request_log()[-2:]] == [["latency"], []]
    d = new_discussion(actions)
    emu.add_fault(
        FaultRule("latency", operation="addDiscussionComment", latency_ms=120, after_commit=True)
    )
    t0 = time.perf_counter()
    comment(actions, d["id"], "slow answer")
    assert time.perf_counter() - t0 >= 0.12


def test_read_lag_hides_a_committed_comment(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    emu.add_fault(FaultRule("read_lag", operation="addDiscussionComment", lag_ms=5000, count=1))
    c = comment(actions, d["id"], "lagging")  # the mutation answers normally
    assert c["body"] == "lagging"
    assert roots(actions, d["number"]) == []
    node = actions("query($id: ID!) { node(id: $id) { id } }", id=c["id"])
    assert node["errors"][0]["type"] == "NOT_FOUND"
    emu.clock.advance(5.1)
    assert [x["body"] for x in roots(actions, d["number"])] == ["lagging"]


@pytest.mark.parametrize("kind", ["edit", "delete", "minimize"])
def test_another_actor_tampers_after_commit(emu: Emulator, actions: GQL, kind: str) -> None:
    d = new_discussion(actions)
    emu.add_fault(
        FaultRule(kind, operation="addDiscussionComment", actor="moderator", body="rewritten")
    )
    c = comment(actions, d["id"], "original")
    assert c["body"] == "original"  # the writer saw its own comment
    nodes = roots(actions, d["number"])
    if kind == "delete":
        assert nodes == []
    else:
        (node,) = nodes
        if kind == "edit":
            assert (node["body"], node["includesCreatedEdit"]) == ("rewritten", True)
            assert node["lastEditedAt"] is not None
        else:
            assert node["isMinimized"] is True


def test_duplicate_delivery_applies_a_mutation_twice(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    emu.add_fault(FaultRule("duplicate", operation="addDiscussionComment", count=1))
    answered = comment(actions, d["id"], "twice")
    nodes = roots(actions, d["number"])
    assert [n["body"] for n in nodes] == ["twice", "twice"]
    assert answered["id"] == nodes[1]["id"]
    comment(actions, d["id"], "once")
    assert len(roots(actions, d["number"])) == 3


def test_tamper_helper_wipes_a_root_with_replies(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    root = comment(actions, d["id"], "root")
    comment(actions, d["id"], "reply", root["id"])
    emu.tamper("delete", root["id"], actor="moderator")
    (node,) = roots(actions, d["number"])
    assert node["deletedAt"] is not None and node["body"] == ""
    with pytest.raises(ValueError):
        emu.tamper("delete", "R_kgDOAAAAAQ")


def test_nth_count_and_seeded_probability(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    emu.add_fault(FaultRule("fail", operation="addDiscussionComment", nth=2, count=2))
    codes = [send_comment(actions, d["id"], f"c{i}").status_code for i in range(5)]
    assert codes == [200, 502, 502, 200, 200]
    emu.clear_faults()

    def pattern(seed: int) -> list[int]:
        e = Emulator(fixture=emu_fixture())
        c = GQL(
            httpx.Client(base_url="https://api.github.com", transport=_transport(e)), "ghs_actions"
        )
        e.add_fault(FaultRule("fail", operation="Probe", probability=0.5, seed=seed))
        return [c.raw("query Probe { viewer { login } }").status_code for _ in range(20)]

    first = pattern(7)
    assert first == pattern(7)  # same seed, same faults
    assert 0 < first.count(502) < 20
    assert first != pattern(8)


def emu_fixture():
    from ghattempt.emulator import DEFAULT_FIXTURE

    return DEFAULT_FIXTURE


def _transport(e: Emulator):
    from ghattempt.emulator import EmulatorTransport

    return EmulatorTransport(e)


def test_bad_rules_are_refused(emu: Emulator) -> None:
    with pytest.raises(ValueError, match="unknown fault kind"):
        FaultRule("explode")
    with pytest.raises(ValueError, match="502 or 504"):
        FaultRule("fail", status=500)
    with pytest.raises(ValueError, match="unknown fault rule field"):
        emu.add_fault({"kind": "fail", "when": "now"})


def test_request_log_records_operation_and_cost(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    emu.clear_request_log()
    emu.add_fault(FaultRule("lose_response", operation="addDiscussionComment", count=1))
    send_comment(actions, d["id"], "x")
    roots(actions, d["number"])
    log = emu.request_log()
    assert [(e["kind"], e["root_fields"], e["status"], e["faults"]) for e in log] == [
        ("mutation", ["addDiscussionComment"], 502, ["lose_response"]),
        ("query", ["repository"], 200, []),
    ]
    assert log[1]["operation"] == "JournalPage" and log[1]["cost"] == 1


def test_internal_error_answers_200_with_type_internal(emu: Emulator, actions: GQL) -> None:
    """GitHub also reports a failure inside GitHub as HTTP 200 ``type: INTERNAL``; as a
    ``lose_response`` the comment has landed all the same."""
    d = new_discussion(actions)
    emu.add_fault({"kind": "lose_response", "operation": "addDiscussionComment",
                   "status": 200, "count": 1})
    r = send_comment(actions, d["id"], "landed")
    assert r.status_code == 200
    (error,) = r.json()["errors"]
    assert error["type"] == "INTERNAL"
    assert error["message"].startswith("Something went wrong while executing your query. "
                                       "Please include `")
    assert [c["body"] for c in roots(actions, d["number"])] == ["landed"]


def test_primary_rate_limit_in_either_of_githubs_shapes(emu: Emulator, actions: GQL,
                                                        http: httpx.Client) -> None:
    emu.add_fault({"kind": "primary_rate_limit", "operation": "Q", "count": 1,
                   "error_type": "RATE_LIMIT"})
    r = actions.raw("query Q { viewer { login } }")
    assert r.status_code == 200
    assert r.json()["errors"][0]["type"] == "RATE_LIMIT"
    assert r.json()["errors"][0]["code"] == "graphql_rate_limit"
    # REST: 403 by default, 429 when asked (GitHub documents both), remaining 0
    emu.add_fault({"kind": "primary_rate_limit", "operation": "repos/get", "count": 2})
    auth = {"Authorization": "bearer ghs_actions"}
    assert http.get("/repos/octo-org/widgets", headers=auth).status_code == 403
    emu.clear_faults()
    emu.add_fault({"kind": "primary_rate_limit", "operation": "repos/get", "status": 429})
    limited = http.get("/repos/octo-org/widgets", headers=auth)
    assert limited.status_code == 429 and limited.headers["x-ratelimit-remaining"] == "0"
    with pytest.raises(ValueError, match="error_type"):
        FaultRule("primary_rate_limit", error_type="RATE")


def test_secondary_rate_limit_of_graphql_may_answer_200(emu: Emulator, actions: GQL) -> None:
    emu.add_fault({"kind": "secondary_rate_limit", "status": 200, "retry_after": 5,
                   "count": 1})
    r = actions.raw("{ viewer { login } }")
    assert r.status_code == 200 and r.headers["retry-after"] == "5"
    assert r.json()["errors"][0]["message"].startswith(
        "You have exceeded a secondary rate limit")
    assert "data" not in r.json()
