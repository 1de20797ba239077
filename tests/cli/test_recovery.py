"""Recovery through the CLI: a successor after a failure, expiry of a pending attempt,
and a rollback of a succeeded one (ADR-038, ADR 0006), against the emulator."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import World


def _verdict(proc) -> dict:  # type: ignore[no-untyped-def]
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_failure_successor_expiry_and_rollback(tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        pr = ("--pull-request", "1")
        first = _verdict(w.cli("admit", *pr, "--json"))
        _verdict(w.cli("record", *pr, "--phase", "admission", "--status", "started", "--json"))
        failed = _verdict(w.cli("record", *pr, "--phase", "admission", "--status", "failed",
                                "--reason", "policy check failed", "--json"))
        assert (failed["status"], failed["recovery"]) == ("failed", "successor")
        assert failed["reason"] == "policy check failed"

        # A failed attempt does not block: a plain admit is refused only while one blocks,
        # but recovery opens the successor explicitly.
        second = _verdict(w.cli("successor", *pr, "--json"))
        assert second["attempt"] != first["attempt"]
        assert second["status"] == "pending"
        assert [a["predecessor"] for a in second["attempts"]] == [None, first["attempt"]]
        again = _verdict(w.cli("successor", *pr, "--json"))
        assert again["attempt"] == second["attempt"] and len(again["attempts"]) == 2

        # Pending, but not expired yet on GitHub's clock: refused.
        early = w.cli("expire", *pr)
        assert early.returncode == 1
        assert b"not_expired" in early.stderr
        w.emulator.clock.advance(86400 + 60)
        expired = _verdict(w.cli("expire", *pr, "--json"))
        assert (expired["status"], expired["recovery"]) == ("expired", "successor")

        third = _verdict(w.cli("successor", *pr, "--json"))
        for phase in ("admission", "build", "publication"):
            for status in ("started", "succeeded"):
                last = _verdict(w.cli("record", *pr, "--phase", phase, "--status", status,
                                      "--json"))
        assert last["attempt"] == third["attempt"]
        assert (last["status"], last["recovery"]) == ("succeeded", "none")
        # A succeeded attempt blocks a fresh admission (ADR-038: VERIFIED blocks).
        blocked = w.cli("admit", *pr, "--request-key", "pr-1:main:stable",
                        "--authorization", "auth-2")
        assert blocked.returncode == 1 and b"blocked" in blocked.stderr
        rolling = _verdict(w.cli("rollback", *pr, "--status", "started", "--json"))
        assert (rolling["status"], rolling["recovery"]) == ("rolling-back",
                                                            "continue:rollback")
        back = _verdict(w.cli("rollback", *pr, "--status", "succeeded", "--json"))
        assert (back["status"], back["recovery"]) == ("rolled-back", "successor")
        assert [a["status"] for a in back["attempts"]] == ["failed", "expired",
                                                          "rolled-back"]
    finally:
        w.close()


def _push(w: World, path: str, content: bytes) -> str:
    """A push to the pull request's head branch, as its author."""
    import base64

    import httpx

    def gql(query: str, **variables: object) -> dict:  # type: ignore[type-arg]
        r = httpx.post(w.api_url + "graphql", json={"query": query, "variables": variables},
                       headers={"authorization": "bearer ghp_alice"}, timeout=30)
        body = r.json()
        assert "errors" not in body, body
        return body["data"]  # type: ignore[no-any-return]

    head = gql('query{repository(owner:"octo-org",name:"widgets"){'
               'ref(qualifiedName:"refs/heads/feature"){target{oid}}}}')
    oid = head["repository"]["ref"]["target"]["oid"]
    done = gql("mutation($i: CreateCommitOnBranchInput!){createCommitOnBranch(input:$i)"
               "{commit{oid}}}", i={
                   "branch": {"repositoryNameWithOwner": "octo-org/widgets",
                              "branchName": "feature"},
                   "expectedHeadOid": oid, "message": {"headline": "a push"},
                   "fileChanges": {"additions": [
                       {"path": path, "contents": base64.b64encode(content).decode()}]}})
    return str(done["createCommitOnBranch"]["commit"]["oid"])


def test_supersede_after_a_push(tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        pr = ("--pull-request", "1")
        first = _verdict(w.cli("admit", *pr, "--json"))
        _verdict(w.cli("record", *pr, "--phase", "admission", "--status", "started", "--json"))
        same = w.cli("supersede", *pr)
        assert same.returncode == 1 and b"nothing to supersede" in same.stderr
        head = _push(w, "src/x.txt", b"x\n")
        # The running attempt blocks a plain admission for another generation.
        assert w.cli("admit", *pr).returncode == 1
        after = _verdict(w.cli("supersede", *pr, "--json"))
        assert after["attempt"] != first["attempt"]
        assert after["generation"] != first["generation"]
        assert [(a["status"], a["predecessor"]) for a in after["attempts"]] == [
            ("superseded", None), ("pending", first["attempt"])]
        table = w.cli("status", "--pull-request", "1").stdout.decode()
        assert f"new generation: head {head[:12]}" in table
    finally:
        w.close()
