"""Refs with compare-and-set, commits on branches, REST lease commits, node lookups."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from ghattempt.emulator import Emulator
from ghattempt.emulator.git import EMPTY_TREE, tree_id

from .conftest import GQL, repo_info

ZERO = "0" * 40
REF_Q = """query($q: String!) { repository(owner: "octo-org", name: "widgets") {
  ref(qualifiedName: $q) { id name prefix target { oid ... on Commit { message committedDate
  parents(first: 5) { nodes { oid } } tree { oid } } } } } }"""
CREATE_REF = """mutation($r: ID!, $n: String!, $o: GitObjectID!) {
  createRef(input: {repositoryId: $r, name: $n, oid: $o}) {
    ref { id name prefix target { oid } } } }"""
UPDATE_REFS = """mutation($r: ID!, $u: [RefUpdate!]!) {
  updateRefs(input: {repositoryId: $r, refUpdates: $u}) { clientMutationId } }"""
DELETE_REF = "mutation($id: ID!) { deleteRef(input: {refId: $id}) { clientMutationId } }"
COMMIT_ON_BRANCH = """mutation($in: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $in) {
  commit { oid message tree { oid } } ref { name target { oid } } } }"""


def lease_commit(http, parents: list[str], message: str, token: str = "ghs_actions"):
    return http.post(
        "/repos/octo-org/widgets/git/commits",
        json={"message": message, "tree": EMPTY_TREE, "parents": parents},
        headers={"Authorization": f"bearer {token}"},
    )


def main_oid(client: GQL) -> str:
    ref = client.data(REF_Q, q="refs/heads/main")["repository"]["ref"]
    return str(ref["target"]["oid"])


def test_default_branch_pull_request_and_object(actions: GQL) -> None:
    data = actions.data(
        """query { repository(owner: "octo-org", name: "widgets") {
          defaultBranchRef { name prefix target { oid } }
          pullRequest(number: 1) { number headRefName headRefOid baseRefName baseRefOid merged
            state }
          object(expression: "feature") { oid ... on Commit { message } } } }"""
    )["repository"]
    pr = data["pullRequest"]
    assert data["defaultBranchRef"]["name"] == "main"
    assert data["defaultBranchRef"]["prefix"] == "refs/heads/"
    assert pr["baseRefOid"] == data["defaultBranchRef"]["target"]["oid"]
    assert pr["headRefOid"] == data["object"]["oid"]
    assert (pr["merged"], pr["state"], pr["headRefName"]) == (False, "OPEN", "feature")
    assert data["object"]["message"] == "Add a widget"
    missing = actions(
        'query { repository(owner: "octo-org", name: "widgets") { pullRequest(number: 9) { id } } }'
    )
    assert (
        missing["errors"][0]["message"]
        == "Could not resolve to a PullRequest with the number of 9."
    )


def test_rest_commit_reads_back(http) -> None:
    r = lease_commit(http, [], "lease holder=a token=1")
    assert r.status_code == 201
    body = r.json()
    assert body["tree"]["sha"] == EMPTY_TREE
    assert body["parents"] == []
    assert body["author"]["name"] == "github-actions[bot]"
    got = http.get(
        f"/repos/octo-org/widgets/git/commits/{body['sha']}",
        headers={"Authorization": "bearer ghs_actions"},
    )
    assert got.status_code == 200 and got.json() == body
    missing = http.get(
        f"/repos/octo-org/widgets/git/commits/{'f' * 40}",
        headers={"Authorization": "bearer ghs_actions"},
    )
    assert missing.status_code == 404 and missing.json()["message"] == "Not Found"


def test_rest_commit_oid_matches_git_commit_tree(http, tmp_path: Path) -> None:
    if not shutil.which("git"):
        pytest.skip("git not installed")
    r = lease_commit(http, [], "lease holder=a token=1\n")
    body = r.json()
    ts = body["author"]["date"]
    import datetime as dt

    epoch = int(dt.datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp())
    env = {
        "GIT_AUTHOR_NAME": body["author"]["name"],
        "GIT_AUTHOR_EMAIL": body["author"]["email"],
        "GIT_AUTHOR_DATE": f"{epoch} +0000",
        "GIT_COMMITTER_NAME": body["committer"]["name"],
        "GIT_COMMITTER_EMAIL": body["committer"]["email"],
        "GIT_COMMITTER_DATE": f"{epoch} +0000",
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
    }
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    out = subprocess.run(
        ["git", "-C", str(tmp_path / "r"), "commit-tree", EMPTY_TREE],
        input=body["message"].encode(),
        env=env,
        capture_output=True,
        check=True,
    )
    assert out.stdout.decode().strip() == body["sha"]


def test_rest_commit_errors(http) -> None:
    auth = {"Authorization": "bearer ghs_actions"}
    r = http.post("/repos/octo-org/widgets/git/commits", json={"tree": EMPTY_TREE}, headers=auth)
    assert r.status_code == 422 and '"message" wasn\'t supplied' in r.json()["message"]
    r = http.post(
        "/repos/octo-org/widgets/git/commits", json={"message": "m", "tree": "a" * 40}, headers=auth
    )
    assert r.status_code == 422 and r.json()["message"] == "Tree SHA does not exist"
    r = lease_commit(http, ["b" * 40], "m")
    assert r.status_code == 422
    assert r.json()["message"] == "Parent SHA does not exist or is not a commit object"
    r = lease_commit(http, [], "m", token="ghp_mallory")
    assert (
        r.status_code == 403
        and r.json()["message"] == "Resource not accessible by personal access token"
    )
    r = http.post("/repos/octo-org/nope/git/commits", json={}, headers=auth)
    assert r.status_code == 404
    r = http.post(
        "/api/v3/repos/octo-org/widgets/git/commits",
        json={"message": "m", "tree": EMPTY_TREE},
        headers=auth,
    )
    assert r.status_code == 201  # GHES layout


def test_create_ref_and_update_refs_compare_and_set(http, actions: GQL) -> None:
    repo = repo_info(actions)
    c1 = lease_commit(http, [], "token=1").json()["sha"]
    c2 = lease_commit(http, [c1], "token=2").json()["sha"]
    c3 = lease_commit(http, [], "token=3 unrelated").json()["sha"]
    made = actions.data(CREATE_REF, r=repo["id"], n="refs/ghattempt/lease/x", o=c1)["createRef"][
        "ref"
    ]
    assert made["target"]["oid"] == c1 and made["id"].startswith("REF_")
    again = actions(CREATE_REF, r=repo["id"], n="refs/ghattempt/lease/x", o=c1)
    assert again["data"] == {"createRef": None}
    assert (
        again["errors"][0]["message"]
        == 'A ref named "refs/ghattempt/lease/x" already exists in the repository.'
    )
    # stale beforeOid: nothing changes
    stale = actions(
        UPDATE_REFS,
        r=repo["id"],
        u=[{"name": "refs/ghattempt/lease/x", "beforeOid": c2, "afterOid": c2}],
    )
    assert stale["data"] == {"updateRefs": None} and "type" not in stale["errors"][0]
    assert (
        actions.data(REF_Q, q="refs/ghattempt/lease/x")["repository"]["ref"]["target"]["oid"] == c1
    )
    # matching beforeOid: fast-forward
    actions.data(
        UPDATE_REFS,
        r=repo["id"],
        u=[{"name": "refs/ghattempt/lease/x", "beforeOid": c1, "afterOid": c2}],
    )
    assert (
        actions.data(REF_Q, q="refs/ghattempt/lease/x")["repository"]["ref"]["target"]["oid"] == c2
    )
    # not a fast-forward without force
    nff = actions(
        UPDATE_REFS,
        r=repo["id"],
        u=[{"name": "refs/ghattempt/lease/x", "beforeOid": c2, "afterOid": c3}],
    )
    assert "not a fast forward" in nff["errors"][0]["message"]
    actions.data(
        UPDATE_REFS,
        r=repo["id"],
        u=[{"name": "refs/ghattempt/lease/x", "beforeOid": c2, "afterOid": c3, "force": True}],
    )
    # all or nothing: one stale update refuses the batch
    batch = actions(
        UPDATE_REFS,
        r=repo["id"],
        u=[
            {"name": "refs/ghattempt/lease/y", "beforeOid": ZERO, "afterOid": c1},
            {"name": "refs/ghattempt/lease/x", "beforeOid": c1, "afterOid": c2, "force": True},
        ],
    )
    assert "errors" in batch
    assert actions.data(REF_Q, q="refs/ghattempt/lease/y")["repository"]["ref"] is None
    # zero beforeOid creates, zero afterOid deletes
    actions.data(
        UPDATE_REFS,
        r=repo["id"],
        u=[{"name": "refs/ghattempt/lease/y", "beforeOid": ZERO, "afterOid": c1}],
    )
    actions.data(
        UPDATE_REFS,
        r=repo["id"],
        u=[{"name": "refs/ghattempt/lease/y", "beforeOid": c1, "afterOid": ZERO}],
    )
    assert actions.data(REF_Q, q="refs/ghattempt/lease/y")["repository"]["ref"] is None
    ref = actions.data(REF_Q, q="refs/ghattempt/lease/x")["repository"]["ref"]
    assert (ref["name"], ref["prefix"]) == ("lease/x", "refs/ghattempt/")
    actions.data(DELETE_REF, id=ref["id"])
    assert actions.data(REF_Q, q="refs/ghattempt/lease/x")["repository"]["ref"] is None


def test_refs_need_contents_write(http, actions: GQL, mallory: GQL) -> None:
    repo = repo_info(actions)
    head = main_oid(actions)
    body = mallory(CREATE_REF, r=repo["id"], n="refs/heads/evil", o=head)
    assert body["errors"][0]["type"] == "FORBIDDEN"


def test_create_commit_on_branch_checks_expected_head(actions: GQL) -> None:
    head = main_oid(actions)
    content = base64.b64encode(b"holder: a\n").decode()
    inp = {
        "branch": {"repositoryNameWithOwner": "octo-org/widgets", "branchName": "main"},
        "message": {"headline": "lease", "body": "token=1"},
        "expectedHeadOid": head,
        "fileChanges": {"additions": [{"path": "lease/holder.txt", "contents": content}]},
    }
    made = actions.data(COMMIT_ON_BRANCH, **{"in": inp})["createCommitOnBranch"]
    assert made["ref"]["target"]["oid"] == made["commit"]["oid"]
    assert made["commit"]["message"] == "lease\n\ntoken=1"
    assert made["commit"]["tree"]["oid"] == tree_id({"lease/holder.txt": b"holder: a\n"})
    stale = actions(COMMIT_ON_BRANCH, **{"in": inp})
    assert stale["data"] == {"createCommitOnBranch": None}
    # GitHub's answer, as captured from GitHub (docs/emulator.md, the refs row)
    assert stale["errors"][0]["type"] == "STALE_DATA"
    assert stale["errors"][0]["path"] == ["createCommitOnBranch"]
    assert stale["errors"][0]["message"] == (
        f'Expected branch to point to "{head}" but it did not.  Pull and try again.'
    )
    assert main_oid(actions) == made["commit"]["oid"]
    ref = actions.data(REF_Q, q="main")["repository"]["ref"]
    assert ref["target"]["parents"]["nodes"] == [{"oid": head}]
    nothing = dict(inp, expectedHeadOid=made["commit"]["oid"], fileChanges=None)
    empty = actions.data(COMMIT_ON_BRANCH, **{"in": nothing})["createCommitOnBranch"]
    assert empty["commit"]["tree"]["oid"] == made["commit"]["tree"]["oid"]
    # createCommitOnBranch does not create a branch (GitHub: "Branch not found")
    absent = dict(inp, branch={"repositoryNameWithOwner": "octo-org/widgets",
                               "branchName": "no-such-branch"})
    missing = actions(COMMIT_ON_BRANCH, **{"in": absent})
    assert missing["data"] == {"createCommitOnBranch": None}
    assert missing["errors"][0]["message"] == "Branch not found"


def test_emulator_git_tree_matches_git(tmp_path: Path) -> None:
    if not shutil.which("git"):
        pytest.skip("git not installed")
    files = {"a.txt": b"a\n", "dir/b.txt": b"b\n", "dir/sub/c": b"", "dir.x": b"x"}
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for path, content in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(content)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    out = subprocess.run(["git", "-C", str(repo), "write-tree"], capture_output=True, check=True)
    assert out.stdout.decode().strip() == tree_id(files)


def test_node_lookup_of_git_objects(emu: Emulator, actions: GQL) -> None:
    ref = actions.data(REF_Q, q="main")["repository"]["ref"]
    node = actions.data(
        "query($id: ID!) { node(id: $id) { ... on Ref { name target { oid } } } }", id=ref["id"]
    )
    assert node["node"] == {"name": "main", "target": {"oid": ref["target"]["oid"]}}


def test_rest_refs(http) -> None:
    auth = {"Authorization": "bearer ghs_actions"}
    c1 = lease_commit(http, [], "token=1").json()["sha"]
    c2 = lease_commit(http, [c1], "token=2").json()["sha"]
    other = lease_commit(http, [], "unrelated").json()["sha"]
    base = "/repos/octo-org/widgets/git"
    r = http.post(f"{base}/refs", json={"ref": "refs/ghattempt/lease/r", "sha": c1}, headers=auth)
    assert r.status_code == 201 and r.json()["object"]["sha"] == c1
    r = http.post(f"{base}/refs", json={"ref": "refs/ghattempt/lease/r", "sha": c1}, headers=auth)
    assert r.status_code == 422 and r.json()["message"] == "Reference already exists"
    assert http.get(f"{base}/ref/ghattempt/lease/r", headers=auth).json()["ref"] == (
        "refs/ghattempt/lease/r"
    )
    r = http.patch(f"{base}/refs/ghattempt/lease/r", json={"sha": c2}, headers=auth)
    assert r.status_code == 200 and r.json()["object"]["sha"] == c2
    r = http.patch(f"{base}/refs/ghattempt/lease/r", json={"sha": other}, headers=auth)
    assert r.status_code == 422 and r.json()["message"] == "Update is not a fast forward"
    r = http.patch(
        f"{base}/refs/ghattempt/lease/r", json={"sha": other, "force": True}, headers=auth
    )
    assert r.status_code == 200
    assert http.delete(f"{base}/refs/ghattempt/lease/r", headers=auth).status_code == 204
    assert http.get(f"{base}/ref/ghattempt/lease/r", headers=auth).status_code == 404
    denied = http.post(
        f"{base}/refs",
        json={"ref": "refs/heads/x", "sha": c1},
        headers={"Authorization": "bearer ghp_mallory"},
    )
    assert denied.status_code == 403
