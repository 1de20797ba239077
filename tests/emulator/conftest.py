"""Shared fixtures: an in-memory emulator, a GraphQL client over its httpx transport
that first validates each document against GitHub's full published schema, and the
published schema itself (skipped when the npm fixture is absent, failed when
GHATTEMPT_REQUIRE_FIXTURES=1)."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphql import GraphQLSchema, build_schema, parse, validate

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorTransport

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = ROOT / ".cache/npm/graphql-schema/schema.graphql"
QUERIES = ROOT / "ghattempt/github/graphql"  # the capture queries of the wire contract
_published: GraphQLSchema | None = None


def published_schema() -> GraphQLSchema:
    """GitHub's published schema (graphql-core needs assume_valid_sdl for it)."""
    global _published
    if _published is None:
        if not PUBLISHED.is_file():
            if os.environ.get("GHATTEMPT_REQUIRE_FIXTURES") == "1":
                pytest.fail(f"{PUBLISHED} is missing; run scripts/fetch-npm-fixtures")
            pytest.skip("published GraphQL schema not fetched (scripts/fetch-npm-fixtures)")
        _published = build_schema(
            PUBLISHED.read_text(encoding="utf-8"), assume_valid=True, assume_valid_sdl=True
        )
    return _published


def valid(query: str) -> str:
    """``query`` after checking it against GitHub's full published schema."""
    problems = _problems(query)
    assert not problems, f"test sends a document GitHub would refuse: {problems}"
    return query


@functools.cache
def _problems(query: str) -> tuple[str, ...]:
    return tuple(e.message for e in validate(published_schema(), parse(query)))


@pytest.fixture(scope="session")
def published() -> GraphQLSchema:
    return published_schema()


class GQL:
    """A GraphQL client for one token; every document it sends is first validated
    against the full published schema unless ``invalid=True`` says the test sends a
    document GitHub would refuse."""

    def __init__(self, client: httpx.Client, token: str) -> None:
        self.client = client
        self.token = token

    def raw(
        self, query: str, invalid: bool = False, path: str = "/graphql", **variables: Any
    ) -> httpx.Response:
        if not invalid:
            valid(query)
        return self.client.post(
            path,
            json={"query": query, "variables": variables},
            headers={"Authorization": f"bearer {self.token}"},
        )

    def __call__(self, query: str, invalid: bool = False, **variables: Any) -> dict[str, Any]:
        response = self.raw(query, invalid=invalid, **variables)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def data(self, query: str, **variables: Any) -> dict[str, Any]:
        body = self(query, **variables)
        assert "errors" not in body, body
        data: dict[str, Any] = body["data"]
        return data


@pytest.fixture
def emu() -> Emulator:
    return Emulator(fixture=DEFAULT_FIXTURE)


@pytest.fixture
def http(emu: Emulator) -> httpx.Client:
    return httpx.Client(base_url="https://api.github.com", transport=EmulatorTransport(emu))


@pytest.fixture
def actions(http: httpx.Client) -> GQL:
    """The Actions bot (github-actions), repository role write."""
    return GQL(http, "ghs_actions")


@pytest.fixture
def alice(http: httpx.Client) -> GQL:
    """A repository admin (User)."""
    return GQL(http, "ghp_alice")


@pytest.fixture
def mallory(http: httpx.Client) -> GQL:
    """A User with read access only."""
    return GQL(http, "ghp_mallory")


REPO_Q = """query { repository(owner: "octo-org", name: "widgets") {
  id databaseId nameWithOwner
  discussionCategories(first: 10) { nodes { id slug } } } }"""

CREATE_DISCUSSION = """mutation($r: ID!, $c: ID!, $title: String!, $body: String!) {
  createDiscussion(input: {repositoryId: $r, categoryId: $c, title: $title, body: $body}) {
    discussion { id number url locked author { login ... on Bot { databaseId } } } } }"""

ADD_COMMENT = """mutation($d: ID!, $body: String!, $to: ID) {
  addDiscussionComment(input: {discussionId: $d, body: $body, replyToId: $to}) {
    comment { id databaseId body createdAt url replyTo { id } author { login } } } }"""

LOCK = """mutation($id: ID!) { lockLockable(input: {lockableId: $id}) {
  lockedRecord { locked activeLockReason } } }"""


def repo_info(client: GQL) -> dict[str, Any]:
    repo: dict[str, Any] = client.data(REPO_Q)["repository"]
    return repo


def new_discussion(
    client: GQL, title: str = "PR #1 into main", body: str = "intent"
) -> dict[str, Any]:
    repo = repo_info(client)
    cat = repo["discussionCategories"]["nodes"][0]["id"]
    d: dict[str, Any] = client.data(CREATE_DISCUSSION, r=repo["id"], c=cat, title=title, body=body)[
        "createDiscussion"
    ]["discussion"]
    return d


def comment(client: GQL, discussion: str, body: str, to: str | None = None) -> dict[str, Any]:
    c: dict[str, Any] = client.data(ADD_COMMENT, d=discussion, body=body, to=to)[
        "addDiscussionComment"
    ]["comment"]
    return c
