"""Property: paging forward (first/after) or backward (last/before) through any
number of comments with any page size yields every comment once, oldest first."""

from __future__ import annotations

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorTransport

from .conftest import GQL, comment, new_discussion

FORWARD = """query($n: Int!, $k: Int!, $after: String) {
  repository(owner: "octo-org", name: "widgets") { discussion(number: $n) {
    comments(first: $k, after: $after) { totalCount
      pageInfo { hasNextPage endCursor } nodes { body } } } } }"""
BACKWARD = """query($n: Int!, $k: Int!, $before: String) {
  repository(owner: "octo-org", name: "widgets") { discussion(number: $n) {
    comments(last: $k, before: $before) { totalCount
      pageInfo { hasPreviousPage startCursor } nodes { body } } } } }"""


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(count=st.integers(min_value=0, max_value=25), size=st.integers(min_value=1, max_value=100))
def test_paging_yields_every_comment_once_in_order(count: int, size: int) -> None:
    emu = Emulator(fixture=DEFAULT_FIXTURE, content_per_minute=10_000, points_per_minute=10**6)
    client = GQL(
        httpx.Client(base_url="https://api.github.com", transport=EmulatorTransport(emu)),
        "ghs_actions",
    )
    d = new_discussion(client)
    bodies = [f"c{i}" for i in range(count)]
    for body in bodies:
        comment(client, d["id"], body)

    seen: list[str] = []
    after = None
    for _ in range(count + 2):
        conn = client.data(FORWARD, n=d["number"], k=size, after=after)["repository"]["discussion"][
            "comments"
        ]
        assert conn["totalCount"] == count
        assert len(conn["nodes"]) <= size
        seen += [n["body"] for n in conn["nodes"]]
        if not conn["pageInfo"]["hasNextPage"]:
            break
        after = conn["pageInfo"]["endCursor"]
    assert seen == bodies

    back: list[str] = []
    before = None
    for _ in range(count + 2):
        conn = client.data(BACKWARD, n=d["number"], k=size, before=before)["repository"][
            "discussion"
        ]["comments"]
        back = [n["body"] for n in conn["nodes"]] + back
        if not conn["pageInfo"]["hasPreviousPage"]:
            break
        before = conn["pageInfo"]["startCursor"]
    assert back == bodies
