"""Recovery through the CLI: a successor after a failure, expiry of a pending attempt,
a rollback of a succeeded one, a supersede after a push, and a step of a run for the
older head refused (``--head``) (ADR-038, ADR 0006), against the emulator."""

from __future__ import annotations

import json
from pathlib import Path

from ghattempt.cli import build_parser

from .conftest import CONFIG, World, cli_env, run_cli


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


def _gql(w: World, query: str, **variables: object) -> dict:  # type: ignore[type-arg]
    """A GraphQL request as the pull request's author."""
    import httpx

    r = httpx.post(w.api_url + "graphql", json={"query": query, "variables": variables},
                   headers={"authorization": "bearer ghp_alice"}, timeout=30)
    body = r.json()
    assert "errors" not in body, body
    return body["data"]  # type: ignore[no-any-return]


def _head(w: World) -> str:
    """The pull request's head commit (its head branch's)."""
    head = _gql(w, 'query{repository(owner:"octo-org",name:"widgets"){'
                   'ref(qualifiedName:"refs/heads/feature"){target{oid}}}}')
    return str(head["repository"]["ref"]["target"]["oid"])


def _push(w: World, path: str, content: bytes) -> str:
    """A push to the pull request's head branch, as its author."""
    import base64

    done = _gql(w, "mutation($i: CreateCommitOnBranchInput!){createCommitOnBranch(input:$i)"
                   "{commit{oid}}}", i={
                       "branch": {"repositoryNameWithOwner": "octo-org/widgets",
                                  "branchName": "feature"},
                       "expectedHeadOid": _head(w), "message": {"headline": "a push"},
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


# ------------------------------------------------- a step for an older head (--head)

PR = ("--pull-request", "1")


def _records(w: World) -> int:
    """How many records the journal holds: every comment and reply holding one carries
    the record marker (the discussion's body, the intent record, counts as one)."""
    capture = w.cli("capture", *PR)
    assert capture.returncode == 0, capture.stderr.decode()
    return capture.stdout.count(b"<!-- ghattempt:v1 -->")


def _superseded(w: World) -> tuple[str, str, dict]:  # type: ignore[type-arg]
    """Attempt 1 admitted on head A (admission started), a push of head B, attempt 1
    superseded by attempt 2 for B: (A, B, the verdict after the supersede)."""
    old = _head(w)
    _verdict(w.cli("admit", *PR, "--json"))
    _verdict(w.cli("record", *PR, "--head", old, "--phase", "admission", "--status",
                   "started", "--json"))
    new = _push(w, "src/x.txt", b"x\n")
    return old, new, _verdict(w.cli("supersede", *PR, "--json"))


def _refused_for_head(proc, tip: str, old: str, new: str) -> None:  # type: ignore[no-untyped-def]
    assert proc.returncode == 1, proc.stderr.decode()
    (line,) = proc.stderr.decode().splitlines()
    assert f"attempt {tip} is of head {new[:12]}, not {old[:12]}" in line
    assert "this step's run is for an older (or other) head" in line
    assert "nothing was recorded" in line
    assert ("re-run the workflow for the current head (if this is the current head, the "
            "attempt is the stale one: supersede it first)") in line


def test_a_record_for_an_older_head_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        old, new, after = _superseded(w)
        records = _records(w)
        verdict = _verdict(w.cli("status", *PR, "--json"))
        # a re-run of attempt 1's admission step (its run was for head A): the chain tip
        # is attempt 2, of head B
        stale = w.cli("record", *PR, "--head", old, "--phase", "admission", "--status",
                      "started")
        _refused_for_head(stale, after["attempt"], old, new)
        # its plan says the same, and rollback has the same rule
        _refused_for_head(w.cli("plan", "record", *PR, "--head", old, "--phase",
                                "admission", "--status", "started"), after["attempt"], old,
                          new)
        _refused_for_head(w.cli("rollback", *PR, "--head", old, "--status", "started"),
                          after["attempt"], old, new)
        assert _records(w) == records
        assert _verdict(w.cli("status", *PR, "--json")) == verdict
        # the step of a run for head B records on attempt 2
        current = _verdict(w.cli("record", *PR, "--head", new, "--phase", "admission",
                                 "--status", "started", "--json"))
        assert (current["attempt"], current["status"]) == (after["attempt"], "running")
        assert _records(w) == records + 1
    finally:
        w.close()


def test_a_then_start_for_an_older_head_writes_neither_record(tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        old, new, after = _superseded(w)
        _verdict(w.cli("record", *PR, "--head", new, "--phase", "admission", "--status",
                       "started", "--json"))
        records = _records(w)
        verdict = _verdict(w.cli("status", *PR, "--json"))
        stale = w.cli("record", *PR, "--head", old, "--phase", "admission", "--status",
                      "succeeded", "--then-start", "build")
        _refused_for_head(stale, after["attempt"], old, new)
        assert _records(w) == records
        assert _verdict(w.cli("status", *PR, "--json")) == verdict
    finally:
        w.close()


def _refused_for_attempt(proc, tip: str, named: str, was: str) -> None:  # type: ignore[no-untyped-def]
    assert proc.returncode == 1, proc.stderr.decode()
    (line,) = proc.stderr.decode().splitlines()
    assert (f"the current attempt of request key pr-1:main:stable is {tip}, not {named} "
            f"({was}), the attempt this step's work was for: nothing was recorded; re-run "
            "the workflow to work on the current attempt") in line, line


def test_a_record_for_an_earlier_attempt_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        old, new, after = _superseded(w)
        first, second = (a["attempt"] for a in after["attempts"])
        records = _records(w)
        verdict = _verdict(w.cli("status", *PR, "--json"))
        stale = w.cli("record", *PR, "--attempt", first, "--phase", "admission", "--status",
                      "succeeded", "--then-start", "build")
        _refused_for_attempt(stale, second, first, "it is superseded")
        _refused_for_attempt(w.cli("plan", "record", *PR, "--attempt", first, "--phase",
                                   "admission", "--status", "started"),
                             second, first, "it is superseded")
        _refused_for_attempt(w.cli("rollback", *PR, "--attempt", first, "--status",
                                   "started"), second, first, "it is superseded")
        unknown = "sha256:" + "0" * 64
        _refused_for_attempt(w.cli("record", *PR, "--attempt", unknown, "--phase",
                                   "admission", "--status", "started"),
                             second, unknown, "no attempt of this journal")
        assert _records(w) == records
        assert _verdict(w.cli("status", *PR, "--json")) == verdict
        # an attempt of another request key in the same journal is named with its key
        other = _verdict(w.cli("admit", *PR, "--request-key", "other:key", "--json"))
        records = _records(w)
        wrong = w.cli("record", *PR, "--attempt", other["attempt"], "--phase", "admission",
                      "--status", "started")
        assert wrong.returncode == 1, wrong.stderr.decode()
        (line,) = wrong.stderr.decode().splitlines()
        assert (f"attempt {other['attempt']} is of request key other:key, not "
                "pr-1:main:stable, the key this step writes under: nothing was recorded")\
            in line, line
        assert _records(w) == records
        # both checks given, both hold: the step records on attempt 2
        current = _verdict(w.cli("record", *PR, "--attempt", second, "--head", new, "--phase",
                                 "admission", "--status", "started", "--json"))
        assert (current["attempt"], current["status"]) == (second, "running")
        assert _records(w) == records + 1
    finally:
        w.close()


def test_attempt_tells_a_successor_of_the_same_head_apart(tmp_path: Path) -> None:
    """After a failure, ``successor`` opens an attempt of the same generation: ``--head``
    passes a late step of the failed attempt's run; ``--attempt`` refuses it."""
    w = World(tmp_path)
    try:
        head = _head(w)
        first = _verdict(w.cli("admit", *PR, "--json"))["attempt"]
        _verdict(w.cli("record", *PR, "--phase", "admission", "--status", "started",
                       "--json"))
        _verdict(w.cli("record", *PR, "--phase", "admission", "--status", "failed",
                       "--reason", "checks failed", "--json"))
        second = _verdict(w.cli("successor", *PR, "--json"))["attempt"]
        assert second != first
        records = _records(w)
        late = w.cli("record", *PR, "--attempt", first, "--head", head, "--phase",
                     "admission", "--status", "started")
        _refused_for_attempt(late, second, first, "it is failed")
        assert _records(w) == records
    finally:
        w.close()


def test_a_malformed_attempt_is_bad_input_before_any_request(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ghattempt.toml").write_text(CONFIG)
    env = cli_env(GITHUB_TOKEN="ghs_actions", GITHUB_API_URL="http://127.0.0.1:9/",
                  GITHUB_REPOSITORY="octo-org/widgets", GITHUB_ACTOR="alice")
    record = ("record", "--phase", "admission", "--status", "started")
    good = "sha256:" + "ab" * 32
    for command, bad in ((record, "ab" * 32), (record, good.upper()), (record, good[:-1]),
                         (("rollback", "--status", "started"), "sha1:" + "a" * 40),
                         (("plan", *record), "")):
        proc = run_cli(*command, *PR, "--attempt", bad, env=env, cwd=tmp_path)
        assert proc.returncode == 2, (command, bad, proc.stderr)
        (line,) = proc.stderr.decode().splitlines()
        assert line.startswith("ghattempt: error: argument --attempt: must be an attempt id: "
                               "sha256: and 64 lowercase hex digits"), line
    assert build_parser().parse_args([*record, *PR, "--attempt", good]).attempt == good


def test_a_malformed_head_is_bad_input_before_any_request(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ghattempt.toml").write_text(CONFIG)
    # nothing answers at this API URL: a command that sent a request would end in exit 4
    env = cli_env(GITHUB_TOKEN="ghs_actions", GITHUB_API_URL="http://127.0.0.1:9/",
                  GITHUB_REPOSITORY="octo-org/widgets", GITHUB_ACTOR="alice")
    sha = "0123456789abcdef0123456789abcdef01234567"
    record = ("record", "--phase", "admission", "--status", "started")
    for command, bad in ((record, sha[:12]), (record, sha + "0"), (record, sha.upper()),
                         (record, "HEAD"), (("rollback", "--status", "started"), "g" * 40),
                         (("plan", *record), "")):
        proc = run_cli(*command, *PR, "--head", bad, env=env, cwd=tmp_path)
        assert proc.returncode == 2, (command, bad, proc.stderr)
        (line,) = proc.stderr.decode().splitlines()
        assert line.startswith("ghattempt: error: argument --head: must be a commit SHA: 40 "
                               "lowercase hex digits"), line
    for good in (sha, "ab" * 32):  # a SHA-1 or a SHA-256 repository's commit
        assert build_parser().parse_args([*record, *PR, "--head", good]).head == good
