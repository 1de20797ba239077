"""The fidelity switches (docs/emulator.md, "What GitHub does, and where it is written"):
each behaviour GitHub has, on by default where GitHub always does it, and off when a
test turns it off."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer, EmulatorTransport
from ghattempt.emulator.fixture import ghes_fixture

from .conftest import ADD_COMMENT, GQL, LOCK, QUERIES, comment, new_discussion, repo_info

JOURNAL = (QUERIES / "JournalPage.graphql").read_text()
PERMISSION = 'query { repository(owner: "octo-org", name: "widgets") { viewerPermission } }'
REPO_ID = 'query { repository(owner: "octo-org", name: "widgets") { id owner { id } } }'
NODE = "query($id: ID!) { node(id: $id) { id ... on Repository { nameWithOwner } } }"
CREATE_REF = """mutation($r: ID!, $name: String!, $oid: GitObjectID!) {
  createRef(input: {repositoryId: $r, name: $name, oid: $oid}) { ref { name } } }"""
UPDATE_REFS = """mutation($r: ID!, $name: GitRefname!, $before: GitObjectID, $after: GitObjectID!) {
  updateRefs(input: {repositoryId: $r, refUpdates: [{name: $name, beforeOid: $before,
    afterOid: $after}]}) { clientMutationId } }"""
COMMIT_ON_BRANCH = """mutation($branch: String!, $head: GitObjectID!) {
  createCommitOnBranch(input: {branch: {repositoryNameWithOwner: "octo-org/widgets",
    branchName: $branch}, expectedHeadOid: $head, message: {headline: "lease"},
    fileChanges: {additions: []}}) { commit { oid } } }"""
MAIN = ('query { repository(owner: "octo-org", name: "widgets") { id '
        "defaultBranchRef { target { oid } } } }")
LEASE = "refs/heads/ghattempt/lease/abc"
RULESET = {"name": "leases", "include": ["refs/heads/ghattempt/lease/**"],
           "rules": ["creation", "update", "deletion"], "bypass": ["alice"]}


def roots(client: GQL, number: int) -> list[dict[str, Any]]:
    body = client(JOURNAL, owner="octo-org", name="widgets", number=number)
    return list(body["data"]["repository"]["discussion"]["comments"]["nodes"])


def two_repositories() -> dict[str, Any]:
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["actors"].append({"login": "acme", "kind": "Organization"})
    data["repositories"].append({
        "owner": "octo-org", "name": "gadgets",
        "categories": [{"name": "Ideas", "slug": "ideas"}]})
    data["repositories"].append({
        "owner": "acme", "name": "tools",
        "categories": [{"name": "Ideas", "slug": "ideas"}]})
    return data


# ------------------------------------------------------------------ locked discussions
def test_a_locked_discussion_refuses_the_actions_bot_and_apps(emu: Emulator, http: httpx.Client,
                                                              actions: GQL, alice: GQL) -> None:
    d = new_discussion(actions)
    root = comment(actions, d["id"], "attempt")
    assert actions.data(LOCK, id=d["id"])["lockLockable"]["lockedRecord"]["locked"] is True
    app = GQL(http, "ghs_app")
    for bot in (actions, app):
        for to in (None, root["id"]):  # a top-level comment and a reply alike
            body = bot(ADD_COMMENT, d=d["id"], body="event", to=to)
            assert body["data"] == {"addDiscussionComment": None}
            assert body["errors"][0]["type"] == "FORBIDDEN"
            assert body["errors"][0]["message"] == (
                "Unable to create comment because issue is locked")
    # a person with write access (here an admin) still may
    assert comment(alice, d["id"], "maintainer note")["author"] == {"login": "alice"}
    assert [c["body"] for c in roots(actions, d["number"])] == ["attempt", "maintainer note"]
    emu.set_fidelity({"locked_conversations": False})
    assert comment(actions, d["id"], "allowed when off")["body"] == "allowed when off"


def test_lock_lockable_is_still_served(actions: GQL) -> None:
    d = new_discussion(actions)
    unlock = """mutation($id: ID!) { unlockLockable(input: {lockableId: $id}) {
      unlockedRecord { locked } } }"""
    actions.data(LOCK, id=d["id"])
    assert actions.data(unlock, id=d["id"])["unlockLockable"]["unlockedRecord"] == {
        "locked": False}
    assert comment(actions, d["id"], "open again")["body"] == "open again"


# --------------------------------------------------------------------- viewerPermission
def test_viewer_permission_is_null_for_bot_tokens(emu: Emulator, http: httpx.Client,
                                                  actions: GQL, alice: GQL, mallory: GQL) -> None:
    def permission(client: GQL) -> str | None:
        value: str | None = client.data(PERMISSION)["repository"]["viewerPermission"]
        return value

    assert permission(actions) is None
    assert permission(GQL(http, "ghs_app")) is None
    assert permission(alice) == "ADMIN" and permission(mallory) == "READ"
    emu.set_fidelity({"viewer_permission": False})
    assert permission(actions) == "WRITE"


# -------------------------------------------------------------------------- replica lag
def test_replica_lag_hides_comments_from_every_reader_but_not_refs(emu: Emulator,
                                                                   actions: GQL,
                                                                   alice: GQL) -> None:
    d = new_discussion(actions)
    emu.set_fidelity({"replica_lag_ms": 2000})
    made = comment(actions, d["id"], "lagging")  # the mutation answers from the primary
    assert made["body"] == "lagging"
    repo = actions.data(MAIN)["repository"]
    oid = repo["defaultBranchRef"]["target"]["oid"]
    actions.data(CREATE_REF, r=repo["id"], name="refs/heads/current", oid=oid)
    ref = ('query { repository(owner: "octo-org", name: "widgets") { '
           'ref(qualifiedName: "refs/heads/current") { name } } }')
    for reader in (actions, alice):  # the writer and anyone else alike
        assert roots(reader, d["number"]) == []
        assert reader(NODE, id=made["id"])["errors"][0]["type"] == "NOT_FOUND"
        assert reader.data(ref)["repository"]["ref"] == {"name": "current"}
    emu.clock.advance(2.0)
    assert [c["body"] for c in roots(alice, d["number"])] == ["lagging"]


def test_replica_lag_over_http_across_clients(tmp_path: Any) -> None:
    emu = Emulator(str(tmp_path / "emu.db"), DEFAULT_FIXTURE, fidelity={"replica_lag_ms": 1500})
    with EmulatorServer(emu) as server:
        writer = GQL(httpx.Client(base_url=server.url), "ghs_actions")
        other = GQL(httpx.Client(base_url=server.url), "ghp_alice")
        d = new_discussion(writer)
        emu.clock.advance(1.5)
        comment(writer, d["id"], "written by one process")
        assert roots(other, d["number"]) == []
        state = httpx.get(f"{server.url}/_emulator/fidelity").json()["fidelity"]
        assert state["replica_lag_ms"] == 1500
        emu.clock.advance(1.5)
        assert [c["body"] for c in roots(other, d["number"])] == ["written by one process"]


# ------------------------------------------------------------------------------ authors
AUTHOR = """query($n: Int!) { repository(owner: "octo-org", name: "widgets") {
  discussion(number: $n) { comments(first: 10) { nodes { author { __typename login
    ... on User { databaseId } ... on Bot { databaseId } } } } } } }"""


def test_a_personal_token_writes_as_a_user_with_a_database_id(emu: Emulator, actions: GQL,
                                                             alice: GQL) -> None:
    d = new_discussion(actions)
    comment(alice, d["id"], "by a personal access token")
    comment(actions, d["id"], "by GITHUB_TOKEN")
    nodes = alice.data(AUTHOR, n=d["number"])["repository"]["discussion"]["comments"]["nodes"]
    alice_id = int(emu.state.actor_by_login("alice")["id"])
    assert [n["author"] for n in nodes] == [
        {"__typename": "User", "login": "alice", "databaseId": alice_id},
        {"__typename": "Bot", "login": "github-actions", "databaseId": 41898282},
    ]


def test_the_actions_bot_has_another_database_id_on_ghes() -> None:
    emu = Emulator(fixture=ghes_fixture(actions_bot_id=1234))
    client = GQL(httpx.Client(base_url="https://ghe.example/api/v3",
                              transport=EmulatorTransport(emu)), "ghs_actions")
    d = new_discussion(client)
    comment(client, d["id"], "on GHES")
    body = client(AUTHOR, n=d["number"])
    author = body["data"]["repository"]["discussion"]["comments"]["nodes"][0]["author"]
    assert author == {"__typename": "Bot", "login": "github-actions", "databaseId": 1234}


# ----------------------------------------------------------------------------- node ids
def legacy_fixture() -> dict[str, Any]:
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["repositories"][0]["legacy_node_id"] = True
    for actor in data["actors"]:
        if actor["login"] == "octo-org":
            actor["legacy_node_id"] = True
    return data


def test_legacy_repositories_answer_legacy_ids_without_the_header() -> None:
    emu = Emulator(fixture=legacy_fixture())
    http = httpx.Client(base_url="https://api.github.com", transport=EmulatorTransport(emu))
    rid = int(emu.state.repository_by_name("octo-org", "widgets")["id"])
    oid = int(emu.state.actor_by_login("octo-org")["id"])

    def ids(header: str | None) -> dict[str, Any]:
        headers = {"Authorization": "bearer ghs_actions"}
        if header is not None:
            headers["X-Github-Next-Global-ID"] = header
        r = http.post("/graphql", json={"query": REPO_ID}, headers=headers)
        repo: dict[str, Any] = r.json()["data"]["repository"]
        return repo

    import base64
    legacy = base64.b64encode(f"010:Repository{rid}".encode()).decode()
    assert legacy.startswith("MDEwOlJlcG9zaXRvcnk")
    assert ids(None) == ids("0") == {
        "id": legacy, "owner": {"id": base64.b64encode(f"012:Organization{oid}".encode()).decode()}}
    new = ids("1")
    assert new["id"].startswith("R_kgDO") and new["owner"]["id"].startswith("O_kgDO")
    # both forms are accepted as input, and name the same repository
    client = GQL(http, "ghs_actions")
    for ident in (legacy, new["id"]):
        assert client.data(NODE, id=ident)["node"]["nameWithOwner"] == "octo-org/widgets"
    cat = repo_info(client)["discussionCategories"]["nodes"][0]["id"]
    created = client.data("""mutation($r: ID!, $c: ID!) { createDiscussion(input: {
      repositoryId: $r, categoryId: $c, title: "t", body: "b"}) { discussion { number } } }""",
                          r=legacy, c=cat)
    assert created["createDiscussion"]["discussion"]["number"] >= 1
    # REST answers the legacy node_id (the header is GraphQL's)
    rest = http.get("/repos/octo-org/widgets", headers={"Authorization": "bearer ghs_actions",
                                                        "X-Github-Next-Global-ID": "1"})
    assert rest.json()["node_id"] == legacy
    emu.set_fidelity({"legacy_node_ids": False})
    assert ids(None)["id"] == new["id"]


def test_new_repositories_answer_new_ids_either_way(http: httpx.Client) -> None:
    r = http.post("/graphql", json={"query": REPO_ID},
                  headers={"Authorization": "bearer ghs_actions"})
    assert r.json()["data"]["repository"]["id"].startswith("R_kgDO")


# ----------------------------------------------------------------------------- rulesets
def test_a_ruleset_refuses_lease_refs_with_githubs_error(emu: Emulator, actions: GQL,
                                                          alice: GQL) -> None:
    repo = actions.data(MAIN)["repository"]
    oid = repo["defaultBranchRef"]["target"]["oid"]
    assert actions.data(CREATE_REF, r=repo["id"], name=LEASE, oid=oid)  # no ruleset yet
    emu.add_ruleset("octo-org/widgets", **RULESET)
    refused = actions(CREATE_REF, r=repo["id"], name=LEASE + "2", oid=oid)
    assert refused["data"] == {"createRef": None}
    assert refused["errors"][0]["type"] == "UNPROCESSABLE"
    assert refused["errors"][0]["message"] == (
        "Repository rule violations found\n\n"
        "Cannot create ref due to creations being restricted.\n\n")
    update = actions(UPDATE_REFS, r=repo["id"], name=LEASE, before=oid, after=oid)
    assert update["errors"][0]["type"] == "UNPROCESSABLE"
    assert update["errors"][0]["message"].startswith("Repository rule violations found")
    branch = actions(COMMIT_ON_BRANCH, branch="ghattempt/lease/abc", head=oid)
    assert branch["errors"][0]["type"] == "UNPROCESSABLE"
    assert "Cannot update this protected ref." in branch["errors"][0]["message"]
    # a failed compare-and-set is another error: no type, GitHub's generic shape
    stale = alice(UPDATE_REFS, r=repo["id"], name=LEASE, before="1" * 40, after=oid)
    assert "type" not in stale["errors"][0]
    # refs outside the ruleset, and its bypass actors, are not refused
    assert actions.data(CREATE_REF, r=repo["id"], name="refs/heads/other", oid=oid)
    assert alice.data(CREATE_REF, r=repo["id"], name=LEASE + "2", oid=oid)
    emu.set_fidelity({"rulesets": False})
    assert actions.data(CREATE_REF, r=repo["id"], name=LEASE + "3", oid=oid)


def test_a_ruleset_refuses_rest_ref_writes(emu: Emulator, http: httpx.Client) -> None:
    emu.add_ruleset("octo-org/widgets", **RULESET)
    auth = {"Authorization": "bearer ghs_actions"}
    main = http.get("/repos/octo-org/widgets/git/ref/heads/main", headers=auth).json()
    r = http.post("/repos/octo-org/widgets/git/refs", headers=auth,
                  json={"ref": LEASE, "sha": main["object"]["sha"]})
    assert r.status_code == 422
    assert r.json()["message"] == ("Repository rule violations found\n\n"
                                   "Cannot create ref due to creations being restricted.\n\n")


def test_the_rules_of_a_branch_and_who_may_bypass_its_ruleset(emu: Emulator,
                                                              http: httpx.Client) -> None:
    auth = {"Authorization": "bearer ghs_actions"}
    rules = "/repos/octo-org/widgets/rules/branches/ghattempt/lease/abc"
    assert http.get(rules, headers=auth).json() == []  # no ruleset yet
    emu.add_ruleset("octo-org/widgets", **(RULESET | {"bypass": ["alice"]}))
    got = http.get(rules, headers=auth)
    assert got.status_code == 200
    ident = got.json()[0]["ruleset_id"]
    assert got.json() == [{"type": rule, "ruleset_source_type": "Repository",
                           "ruleset_source": "octo-org/widgets", "ruleset_id": ident}
                          for rule in RULESET["rules"]]  # whoever asks: bypass not weighed
    assert http.get("/repos/octo-org/widgets/rules/branches/main", headers=auth).json() == []
    paged = http.get(rules + "?per_page=1&page=2", headers=auth).json()
    assert paged == got.json()[1:2]
    ruleset = http.get(f"/repos/octo-org/widgets/rulesets/{ident}", headers=auth).json()
    assert (ruleset["name"], ruleset["enforcement"]) == ("leases", "active")
    assert ruleset["current_user_can_bypass"] == "never"
    alice = http.get(f"/repos/octo-org/widgets/rulesets/{ident}",
                     headers={"Authorization": "bearer ghp_alice"}).json()
    assert alice["current_user_can_bypass"] == "always"
    assert http.get("/repos/octo-org/widgets/rulesets/999", headers=auth).status_code == 404
    emu.set_fidelity({"rulesets": False})  # none enforced, none reported
    assert http.get(rules, headers=auth).json() == []


def test_rulesets_come_from_the_fixture_and_the_admin_route(tmp_path: Any) -> None:
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["repositories"][0]["rulesets"] = [RULESET]
    emu = Emulator(fixture=data)
    client = GQL(httpx.Client(base_url="https://api.github.com",
                              transport=EmulatorTransport(emu)), "ghs_actions")
    repo = client.data(MAIN)["repository"]
    oid = repo["defaultBranchRef"]["target"]["oid"]
    assert client(CREATE_REF, r=repo["id"], name=LEASE, oid=oid)["errors"][0]["type"] == (
        "UNPROCESSABLE")
    plain = Emulator(fixture=DEFAULT_FIXTURE)
    with EmulatorServer(plain) as server:
        added = httpx.post(f"{server.url}/_emulator/rulesets",
                           json={"repository": "octo-org/widgets", **RULESET})
        assert added.status_code == 201
        bad = httpx.post(f"{server.url}/_emulator/rulesets",
                         json={"repository": "octo-org/widgets", "name": "x",
                               "include": ["~ALL"], "rules": ["no_such_rule"]})
        assert bad.status_code == 400 and "no_such_rule" in bad.json()["message"]
        other = GQL(httpx.Client(base_url=server.url), "ghs_actions")
        assert other(CREATE_REF, r=repo["id"], name=LEASE, oid=oid)["errors"][0]["type"] == (
            "UNPROCESSABLE")


# ------------------------------------------------------------------------------ budgets
def test_github_tokens_of_one_repository_share_1000_points(http: httpx.Client) -> None:
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["tokens"] += [{"token": "ghs_job1", "actor": "github-actions", "rate_limit": 5000},
                       {"token": "ghs_job2", "actor": "github-actions", "rate_limit": 5000}]
    emu = Emulator(fixture=data, fidelity={"actions_budget": True})
    client = httpx.Client(base_url="https://api.github.com", transport=EmulatorTransport(emu))
    query = "{ viewer { login } }"

    def ask(token: str) -> httpx.Response:
        return client.post("/graphql", json={"query": query},
                           headers={"Authorization": f"bearer {token}"})

    first = ask("ghs_job1")
    assert first.headers["x-ratelimit-limit"] == "1000"
    assert first.headers["x-ratelimit-used"] == "1"
    for _ in range(999):
        ask("ghs_job1")
    refused = ask("ghs_job2")  # another job of the same repository: the same budget
    assert refused.status_code == 200
    assert refused.json()["errors"][0]["type"] == "RATE_LIMITED"
    assert refused.headers["x-ratelimit-remaining"] == "0"
    assert refused.headers["x-ratelimit-resource"] == "graphql"
    rest = client.get("/repos/octo-org/widgets", headers={"Authorization": "bearer ghs_job2"})
    assert rest.headers["x-ratelimit-limit"] == "1000"  # REST: 1,000 requests, its own window
    emu.clock.advance(3600)
    assert "errors" not in ask("ghs_job2").json()
    emu.set_fidelity({"actions_budget": False})
    assert ask("ghs_job2").headers["x-ratelimit-limit"] == "5000"


def test_a_mutation_costs_five_secondary_points() -> None:
    emu = Emulator(fixture=DEFAULT_FIXTURE, points_per_minute=10)
    client = GQL(httpx.Client(base_url="https://api.github.com",
                              transport=EmulatorTransport(emu)), "ghp_alice")
    d = new_discussion(client)  # 1 + 5 points (the repository query, the mutation)
    third = client.raw(ADD_COMMENT, d=d["id"], body="over", to=None)
    assert third.status_code == 403
    assert third.json()["message"].startswith("You have exceeded a secondary rate limit")
    assert int(third.headers["retry-after"]) >= 1


def test_secondary_limit_fault_may_answer_429(emu: Emulator, actions: GQL) -> None:
    emu.add_fault({"kind": "secondary_rate_limit", "status": 429, "retry_after": 7, "count": 1})
    r = actions.raw("{ viewer { login } }")
    assert r.status_code == 429 and r.headers["retry-after"] == "7"
    with pytest.raises(ValueError, match="502 or 504"):
        emu.add_fault({"kind": "fail", "status": 429})


# ---------------------------------------------------------------------- admin operations
def test_a_deleted_discussion_is_gone(emu: Emulator, actions: GQL) -> None:
    d = new_discussion(actions)
    comment(actions, d["id"], "record")
    emu.delete_discussion(d["id"])
    body = actions(JOURNAL, owner="octo-org", name="widgets", number=d["number"])
    assert body["data"]["repository"]["discussion"] is None
    assert body["errors"][0]["type"] == "NOT_FOUND"
    assert actions(NODE, id=d["id"])["errors"][0]["type"] == "NOT_FOUND"


def test_moved_and_transferred_discussions_over_http() -> None:
    emu = Emulator(fixture=two_repositories())
    with EmulatorServer(emu) as server:
        client = GQL(httpx.Client(base_url=server.url), "ghs_actions")
        d = new_discussion(client)
        comment(client, d["id"], "record")
        category = """query($n: Int!) { repository(owner: "octo-org", name: "widgets") {
          discussion(number: $n) { category { slug } } } }"""

        def admin(body: dict[str, Any]) -> dict[str, Any]:
            r = httpx.post(f"{server.url}/_emulator/discussion", json=body)
            assert r.status_code == 200, r.text
            result: dict[str, Any] = r.json()
            return result

        admin({"action": "move", "node": d["id"], "category": "general"})
        moved = client.data(category, n=d["number"])["repository"]["discussion"]
        assert moved == {"category": {"slug": "general"}}
        number = admin({"action": "transfer", "node": d["id"],
                        "repository": "octo-org/gadgets"})["number"]
        gone = client(JOURNAL, owner="octo-org", name="widgets", number=d["number"])
        assert gone["errors"][0]["type"] == "NOT_FOUND"
        there = client(JOURNAL, owner="octo-org", name="gadgets", number=number)
        disc = there["data"]["repository"]["discussion"]
        assert disc["id"] == d["id"]  # the node id stays
        assert [c["body"] for c in disc["comments"]["nodes"]] == ["record"]
        assert client(NODE, id=d["id"])["data"]["node"]["id"] == d["id"]
        bad = httpx.post(f"{server.url}/_emulator/discussion",
                         json={"action": "archive", "node": d["id"]})
        assert bad.status_code == 400
        # GitHub transfers only between repositories of one owner (docs, "Managing
        # discussions")
        elsewhere = httpx.post(f"{server.url}/_emulator/discussion",
                               json={"action": "transfer", "node": d["id"],
                                     "repository": "acme/tools"})
        assert elsewhere.status_code == 400
        assert "one owner" in elsewhere.json()["message"]


def test_renamed_and_transferred_repositories_keep_their_id() -> None:
    emu = Emulator(fixture=two_repositories())
    with EmulatorServer(emu) as server:
        client = GQL(httpx.Client(base_url=server.url), "ghs_actions")
        before = client.data(REPO_ID)["repository"]["id"]
        assert httpx.post(f"{server.url}/_emulator/rename",
                          json={"repository": "octo-org/widgets", "name": "gizmos"}).is_success
        assert httpx.post(f"{server.url}/_emulator/transfer",
                          json={"repository": "octo-org/gizmos", "owner": "acme"}).is_success
        after = client.data(NODE, id=before)["node"]
        assert after == {"id": before, "nameWithOwner": "acme/gizmos"}
        # the old names keep resolving to the same repository
        for old in ("widgets", "gizmos"):
            q = f'query {{ repository(owner: "octo-org", name: "{old}") {{ id nameWithOwner }} }}'
            assert client.data(q)["repository"] == {"id": before, "nameWithOwner": "acme/gizmos"}
        refused = httpx.post(f"{server.url}/_emulator/transfer",
                             json={"repository": "acme/gizmos", "owner": "nobody"})
        assert refused.status_code == 400
        # a name the owner already uses is refused, as GitHub refuses it
        taken = httpx.post(f"{server.url}/_emulator/rename",
                           json={"repository": "acme/gizmos", "name": "tools"})
        assert taken.status_code == 400 and "already exists" in taken.json()["message"]
        # once another repository takes an old name, the redirect stops
        assert httpx.post(f"{server.url}/_emulator/rename",
                          json={"repository": "octo-org/gadgets",
                                "name": "widgets"}).is_success
        q = 'query { repository(owner: "octo-org", name: "widgets") { id } }'
        assert client.data(q)["repository"]["id"] != before


def test_rest_redirects_an_old_repository_name() -> None:
    """REST under a renamed repository's old name: 301 for GET, 307 for a write, to
    ``/repositories/{id}``; a client that follows redirects (githubkit does) lands on
    the repository, and over HTTP the location stays on loopback."""
    emu = Emulator(fixture=DEFAULT_FIXTURE)
    rid = int(emu.state.repository_by_name("octo-org", "widgets")["id"])
    emu.rename_repository("octo-org/widgets", "gizmos")
    auth = {"Authorization": "bearer ghs_actions"}
    with EmulatorServer(emu) as server:
        raw = httpx.Client(base_url=f"{server.url}/api/v3")
        moved = raw.get("/repos/octo-org/widgets", headers=auth)
        assert moved.status_code == 301
        assert moved.headers["location"] == f"{server.url}/api/v3/repositories/{rid}"
        assert moved.json() == {"message": "Moved Permanently",
                                "url": f"{server.url}/api/v3/repositories/{rid}",
                                "documentation_url": "https://docs.github.com/v3/#http-redirects"}
        commit = {"message": "lease", "tree": "4b825dc642cb6eb9a060e54bf8d69288fbee4904"}
        kept = raw.post("/repos/octo-org/widgets/git/commits", json=commit, headers=auth)
        assert kept.status_code == 307
        assert kept.headers["location"].endswith(f"/repositories/{rid}/git/commits")
        assert emu.request_log()[-1]["status"] == 307  # nothing was written
        follow = httpx.Client(base_url=server.url, follow_redirects=True)
        made = follow.post("/repos/octo-org/widgets/git/commits", json=commit, headers=auth)
        assert made.status_code == 201 and made.url.host == "127.0.0.1"
        assert follow.get("/repos/octo-org/widgets", headers=auth).json()["name"] == "gizmos"
        # the current name answers directly
        assert raw.get("/repos/octo-org/gizmos", headers=auth).status_code == 200
    from githubkit import GitHub, TokenAuthStrategy

    gh = GitHub(TokenAuthStrategy("ghs_actions"), base_url="https://api.github.com/",
                transport=EmulatorTransport(emu), http_cache=False, auto_retry=False,
                timeout=10)
    made_by_kit = gh.rest.git.create_commit("octo-org", "widgets", message="lease",
                                            tree="4b825dc642cb6eb9a060e54bf8d69288fbee4904")
    assert made_by_kit.status_code == 201
    assert "/repos/octo-org/gizmos/git/commits/" in made_by_kit.parsed_data.url


def test_fidelity_switches_are_checked() -> None:
    emu = Emulator(fixture=DEFAULT_FIXTURE)
    with pytest.raises(ValueError, match="unknown fidelity switch"):
        emu.set_fidelity({"lockd_conversations": False})
    with pytest.raises(ValueError, match="true or false"):
        emu.set_fidelity({"rulesets": "yes"})
    assert emu.fidelity.locked_conversations is True  # unchanged after a refusal
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["fidelity"] = {"replica_lag_ms": 250, "rulesets": False}
    seeded = Emulator(fixture=data)
    assert (seeded.fidelity.replica_lag_ms, seeded.fidelity.rulesets) == (250, False)


def test_fidelity_switches_of_a_served_process() -> None:
    from ghattempt.emulator import EmulatorProcess

    with EmulatorProcess(fidelity={"replica_lag_ms": 1200, "rulesets": False}) as proc:
        state = proc.admin("GET", "fidelity")["fidelity"]
        assert (state["replica_lag_ms"], state["rulesets"]) == (1200, False)
        assert state["locked_conversations"] is True  # the others keep GitHub's default
        assert proc.set_fidelity({"replica_lag_ms": 0})["replica_lag_ms"] == 0
        refused = httpx.post(f"{proc.url}/_emulator/fidelity", json={"no_such": True})
        assert refused.status_code == 400 and "no_such" in refused.json()["message"]
    from ghattempt.emulator.__main__ import main

    assert main(["serve", "--port", "0", "--fidelity", "replica_lag_ms"]) == 2
