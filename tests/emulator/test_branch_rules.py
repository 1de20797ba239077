"""Over HTTP on 127.0.0.1: every ruleset rule type that refuses a direct write to a
matching branch, GitHub's refusal of GitHub Actions as a bypass actor, classic branch
protection (refusing writes, absent from the rulesets API, served where GitHub serves
it), signed commits, and a deleted lease ref (docs/emulator.md, the rulesets, branch
protection, signatures and deletion rows)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer, FixtureError
from ghattempt.emulator.fixture import seed
from ghattempt.emulator.state import State

from .conftest import GQL

pytestmark = pytest.mark.network
REPO = "octo-org/widgets"
LEASE = "refs/heads/ghattempt/lease/abc"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
CREATE_REF = """mutation($r: ID!, $name: String!, $oid: GitObjectID!) {
  createRef(input: {repositoryId: $r, name: $name, oid: $oid}) { ref { name } } }"""
COMMIT_ON_BRANCH = """mutation($branch: String!, $head: GitObjectID!, $msg: String!) {
  createCommitOnBranch(input: {branch: {repositoryNameWithOwner: "octo-org/widgets",
    branchName: $branch}, expectedHeadOid: $head, message: {headline: $msg},
    fileChanges: {additions: []}}) { commit { oid } } }"""
REPO_ID = 'query { repository(owner: "octo-org", name: "widgets") { id } }'
PROTECTION_RULES = """query { repository(owner: "octo-org", name: "widgets") {
  branchProtectionRules(first: 10) { nodes { pattern requiresApprovingReviews
    requiredApprovingReviewCount requiresCommitSignatures allowsDeletions } } } }"""


@pytest.fixture
def served() -> Iterator[tuple[Emulator, httpx.Client]]:
    emu = Emulator(fixture=DEFAULT_FIXTURE)
    with EmulatorServer(emu) as server, httpx.Client(base_url=server.url, timeout=10) as http:
        yield emu, http


def rest(http: httpx.Client, token: str, method: str, path: str,
         body: Any = None) -> httpx.Response:
    return http.request(method, f"/repos/{REPO}/{path}", json=body,
                        headers={"Authorization": f"bearer {token}"})


def root_commit(http: httpx.Client, token: str, message: str = "lease",
                **extra: Any) -> dict[str, Any]:
    made = rest(http, token, "POST", "git/commits",
                {"message": message, "tree": EMPTY_TREE, "parents": [], **extra})
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    return body


def create_lease(http: httpx.Client, token: str, message: str = "lease",
                 ref: str = LEASE) -> httpx.Response:
    oid = root_commit(http, token, message)["sha"]
    return rest(http, token, "POST", "git/refs", {"ref": ref, "sha": oid})


def head(http: httpx.Client, token: str, ref: str = LEASE) -> str:
    got = rest(http, token, "GET", f"git/ref/{ref.removeprefix('refs/')}")
    assert got.status_code == 200, got.text
    oid: str = got.json()["object"]["sha"]
    return oid


def advance(gql: GQL, expected: str, message: str = "lease: next",
            branch: str = "ghattempt/lease/abc") -> dict[str, Any]:
    return gql(COMMIT_ON_BRANCH, branch=branch, head=expected, msg=message)


# ------------------------------------------------------------- rule types
def test_a_pull_request_rule_refuses_direct_writes_in_githubs_words(served: Any) -> None:
    emu, http = served
    emu.add_ruleset(REPO, "prs", ["refs/heads/ghattempt/**"], ["pull_request"])
    refused = create_lease(http, "ghs_actions")
    assert refused.status_code == 422
    assert refused.json()["message"] == ("Repository rule violations found\n\n"
                                         "Changes must be made through a pull request.\n\n")
    rules = rest(http, "ghs_actions", "GET", "rules/branches/ghattempt/lease/abc").json()
    assert [r["type"] for r in rules] == ["pull_request"]
    assert rules[0]["parameters"]["required_approving_review_count"] == 0


def test_a_rule_that_excludes_the_lease_branches_does_not_refuse_them(served: Any) -> None:
    # GitHub targets branches by include and exclude patterns: excluding
    # refs/heads/ghattempt/lease/** is the GITHUB_TOKEN's remedy (it cannot bypass)
    emu, http = served
    emu.add_ruleset(REPO, "prs", ["~ALL"], ["pull_request", "creation", "update"],
                    exclude=["refs/heads/ghattempt/lease/**"])
    assert create_lease(http, "ghs_actions").status_code == 201
    assert rest(http, "ghs_actions", "GET", "rules/branches/ghattempt/lease/abc").json() == []
    assert [r["type"] for r in rest(http, "ghs_actions", "GET",
                                    "rules/branches/release").json()] == [
        "pull_request", "creation", "update"]
    (ident,) = [r["ruleset_id"] for r in rest(http, "ghs_actions", "GET",
                                               "rules/branches/release").json()][:1]
    ruleset = rest(http, "ghs_actions", "GET", f"rulesets/{ident}").json()
    assert ruleset["conditions"]["ref_name"] == {
        "include": ["~ALL"], "exclude": ["refs/heads/ghattempt/lease/**"]}
    refused = create_lease(http, "ghs_actions", ref="refs/heads/release")
    assert refused.status_code == 422


def test_required_status_checks_refuse_until_the_checks_passed_on_the_new_head(
        served: Any) -> None:
    emu, http = served
    assert create_lease(http, "ghs_actions").status_code == 201
    emu.add_ruleset(REPO, "checks", ["refs/heads/ghattempt/**"], [
        {"type": "required_status_checks",
         "parameters": {"required_status_checks": [{"context": "ci"}, {"context": "lint"}]}}])
    gql = GQL(http, "ghs_actions")
    body = advance(gql, head(http, "ghs_actions"))
    assert body["data"] == {"createCommitOnBranch": None}
    assert body["errors"][0]["type"] == "UNPROCESSABLE"
    assert "2 of 2 required status checks are expected." in body["errors"][0]["message"]
    # a commit whose checks passed elsewhere may be pushed (REST: the app made them)
    nxt = rest(http, "ghs_actions", "POST", "git/commits", {
        "message": "next", "tree": EMPTY_TREE, "parents": [head(http, "ghs_actions")]}).json()
    for name in ("ci", "lint"):
        made = rest(http, "ghs_app", "POST", "check-runs", {
            "name": name, "head_sha": nxt["sha"], "status": "completed",
            "conclusion": "success"})
        assert made.status_code == 201
    moved = rest(http, "ghs_actions", "PATCH", "git/refs/heads/ghattempt/lease/abc",
                 {"sha": nxt["sha"]})
    assert moved.status_code == 200, moved.text


def test_metadata_rules_refuse_commits_and_branch_names(served: Any) -> None:
    emu, http = served
    emu.add_ruleset(REPO, "meta", ["~ALL"], [
        {"type": "commit_message_pattern",
         "parameters": {"operator": "starts_with", "pattern": "JIRA-"}},
        {"type": "branch_name_pattern",
         "parameters": {"operator": "regex", "pattern": "^(main|feature/.*)$"}}])
    refused = create_lease(http, "ghs_actions", "lease")
    assert refused.status_code == 422
    message = refused.json()["message"]
    assert "Commit message must start with a matching pattern: JIRA-" in message
    assert "Branch name must match a given regex pattern: ^(main|feature/.*)$" in message
    ok = create_lease(http, "ghs_actions", "JIRA-1 lease", ref="refs/heads/feature/x")
    assert ok.status_code == 201, ok.text


def test_required_signatures_refuse_unverified_commits(served: Any) -> None:
    emu, http = served
    emu.add_ruleset(REPO, "signed", ["refs/heads/ghattempt/**"], ["required_signatures"])
    # a person's REST commit is unsigned: refused, naming the commit
    user = root_commit(http, "ghp_alice")
    assert user["verification"]["verified"] is False
    assert user["verification"]["reason"] == "unsigned"
    refused = rest(http, "ghp_alice", "POST", "git/refs", {"ref": LEASE, "sha": user["sha"]})
    assert refused.status_code == 422
    assert "Commits must have verified signatures." in refused.json()["message"]
    assert user["sha"] in refused.json()["message"]
    # a bot's REST commit with an author of its choosing is unsigned too
    custom = root_commit(http, "ghs_actions", author={"name": "x", "email": "x@example.com"})
    assert custom["verification"]["verified"] is False
    # a bot's REST commit without author, committer or signature is signed by GitHub
    bot = root_commit(http, "ghs_actions")
    assert bot["verification"]["verified"] is True
    assert bot["verification"]["reason"] == "valid"
    assert rest(http, "ghs_actions", "POST", "git/refs",
                {"ref": LEASE, "sha": bot["sha"]}).status_code == 201
    # createCommitOnBranch commits are signed by GitHub, for people too
    alice = GQL(http, "ghp_alice")
    moved = advance(alice, bot["sha"])
    assert "errors" not in moved, moved
    oid = moved["data"]["createCommitOnBranch"]["commit"]["oid"]
    read = rest(http, "ghp_alice", "GET", f"git/commits/{oid}").json()
    assert read["verification"]["verified"] is True
    assert read["committer"]["name"] == "GitHub"


# ---------------------------------------------------------------- bypass
def test_github_actions_is_refused_as_a_bypass_actor_however_it_arrives(
        served: Any) -> None:
    emu, http = served
    for login in ("github-actions", "github-actions[bot]"):
        with pytest.raises(ValueError, match="Actor GitHub Actions integration must be part "
                                             "of the ruleset source or owner organization"):
            emu.add_ruleset(REPO, "leases", ["refs/heads/ghattempt/**"], ["creation"],
                            bypass=[login])
    answer = http.post("/_emulator/rulesets", json={
        "repository": REPO, "name": "leases", "include": ["refs/heads/ghattempt/**"],
        "rules": ["creation"], "bypass": ["github-actions"]})
    assert answer.status_code == 400 and "GitHub Actions integration" in answer.text
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["repositories"][0]["rulesets"] = [{"name": "leases", "include": ["~ALL"],
                                          "rules": ["creation"], "bypass": ["github-actions"]}]
    with pytest.raises(FixtureError, match="GitHub Actions integration"):
        seed(State(), data)
    # an App's bot may bypass
    emu.add_ruleset(REPO, "leases", ["refs/heads/ghattempt/**"], ["creation"],
                    bypass=["ghattempt-app"])
    assert create_lease(http, "ghs_app").status_code == 201
    assert create_lease(http, "ghs_actions", ref=LEASE + "2").status_code == 422


# ------------------------------------------------------------ protection
def test_classic_branch_protection_refuses_pushes_and_is_no_ruleset(served: Any) -> None:
    emu, http = served
    emu.add_branch_protection(REPO, "ghattempt/**",
                              required_pull_request_reviews={"required_approving_review_count": 1})
    # creating a matching branch is not refused (no block_creations); moving it is
    assert create_lease(http, "ghs_actions").status_code == 201
    body = advance(GQL(http, "ghs_actions"), head(http, "ghs_actions"))
    assert body["data"] == {"createCommitOnBranch": None}
    assert body["errors"][0]["type"] == "BRANCH_PROTECTION_RULE_VIOLATION"
    assert body["errors"][0]["message"] == (
        "protected branch 'ghattempt/lease/abc' check failed:\n"
        "  At least 1 approving review is required by reviewers with write access.")
    nxt = rest(http, "ghs_actions", "POST", "git/commits", {
        "message": "n", "tree": EMPTY_TREE, "parents": [head(http, "ghs_actions")]}).json()
    patched = rest(http, "ghs_actions", "PATCH", "git/refs/heads/ghattempt/lease/abc",
                   {"sha": nxt["sha"]})
    assert patched.status_code == 422
    assert patched.json()["message"].startswith(
        "Protected branch update failed for refs/heads/ghattempt/lease/abc.")
    # the rulesets API does not show it
    assert rest(http, "ghs_actions", "GET", "rules/branches/ghattempt/lease/abc").json() == []
    # the branch says it is protected, to any reader
    branch = rest(http, "ghs_actions", "GET", "branches/ghattempt/lease/abc").json()
    assert branch["protected"] is True and branch["protection"]["enabled"] is True
    # its settings: the admin role only (a GITHUB_TOKEN has no Administration permission)
    denied = rest(http, "ghs_actions", "GET", "branches/ghattempt/lease/abc/protection")
    assert denied.status_code == 403
    assert denied.json()["message"] == "Resource not accessible by integration"
    shown = rest(http, "ghp_alice", "GET", "branches/ghattempt/lease/abc/protection").json()
    assert shown["required_pull_request_reviews"]["required_approving_review_count"] == 1
    assert shown["allow_deletions"] == {"enabled": False}
    assert rest(http, "ghp_alice", "GET", "branches/main/protection").json()["message"] == (
        "Branch not protected")
    # GraphQL: the admin sees the rule, the Actions bot an empty list
    seen = GQL(http, "ghp_alice").data(PROTECTION_RULES)["repository"]
    assert seen["branchProtectionRules"]["nodes"] == [{
        "pattern": "ghattempt/**", "requiresApprovingReviews": True,
        "requiredApprovingReviewCount": 1, "requiresCommitSignatures": False,
        "allowsDeletions": False}]
    hidden = GQL(http, "ghs_actions").data(PROTECTION_RULES)["repository"]
    assert hidden["branchProtectionRules"]["nodes"] == []
    # a protected branch is not deleted (allow_deletions is off by default)
    gone = rest(http, "ghs_actions", "DELETE", "git/refs/heads/ghattempt/lease/abc")
    assert gone.status_code == 422 and "Cannot delete this protected branch" in gone.text


def test_branch_protection_from_the_fixture_and_the_admin_route(served: Any) -> None:
    emu, http = served
    answer = http.post("/_emulator/branch-protection", json={
        "repository": REPO, "pattern": "ghattempt/**", "required_signatures": True})
    assert answer.status_code == 201
    emu.add_token("ghp_bob", "bob", "write")
    unsigned = root_commit(http, "ghp_bob")
    refused = rest(http, "ghp_bob", "POST", "git/refs", {"ref": LEASE, "sha": unsigned["sha"]})
    assert refused.status_code == 422
    assert "Commits must have verified signatures." in refused.json()["message"]
    # alice is an admin: classic protection does not bind her without enforce_admins
    mine = root_commit(http, "ghp_alice")
    assert rest(http, "ghp_alice", "POST", "git/refs",
                {"ref": LEASE, "sha": mine["sha"]}).status_code == 201
    assert create_lease(http, "ghs_actions", ref=LEASE + "2").status_code == 201  # signed
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["repositories"][0]["branch_protection"] = [{"pattern": "x", "bogus": True}]
    with pytest.raises(FixtureError, match="unknown setting"):
        seed(State(), data)


# -------------------------------------------------------------- deletion
def test_a_deletion_rule_refuses_deleting_the_lease_but_not_its_writes(served: Any) -> None:
    emu, http = served
    emu.add_ruleset(REPO, "keep", ["refs/heads/ghattempt/lease/**"], ["deletion"])
    assert create_lease(http, "ghs_actions").status_code == 201
    moved = advance(GQL(http, "ghs_actions"), head(http, "ghs_actions"))
    assert "errors" not in moved, moved
    for token in ("ghs_actions", "ghp_alice"):
        refused = rest(http, token, "DELETE", "git/refs/heads/ghattempt/lease/abc")
        assert refused.status_code == 422
        assert "Cannot delete this protected ref." in refused.json()["message"]
    with pytest.raises(ValueError, match="Cannot delete this protected ref"):
        emu.delete_ref(REPO, LEASE, "alice")
    assert head(http, "ghs_actions")


def test_a_maintainer_deletes_the_lease_ref(served: Any) -> None:
    emu, http = served
    assert create_lease(http, "ghs_actions").status_code == 201
    answer = http.post("/_emulator/refs", json={"action": "delete", "repository": REPO,
                                                "ref": LEASE, "actor": "alice"})
    assert answer.status_code == 200, answer.text
    assert rest(http, "ghs_actions", "GET", "git/ref/heads/ghattempt/lease/abc").status_code \
        == 404
    # with contents: write, REST deletes it too
    assert create_lease(http, "ghs_actions").status_code == 201
    assert rest(http, "ghs_actions", "DELETE",
                "git/refs/heads/ghattempt/lease/abc").status_code == 204
    assert json.loads(answer.text) == {"ok": True}
