"""Journals a writer must not write to, over the HTTP emulator (issue 23, section 1): a
journal whose lease ref (its witness) was deleted, a journal a lock bot locked, and a
journal as full as GitHub lets one discussion be. Each is refused before anything is
written, with one line naming what a person must do."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import World

LEASE_PREFIX = "refs/heads/ghattempt/lease/"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    try:
        yield w
    finally:
        w.close()


def ok(out: subprocess.CompletedProcess[bytes]) -> str:
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode()


def repo(world: World) -> dict[str, Any]:
    snap = world.emulator.snapshot()
    return next(r for r in snap["repositories"] if r["nameWithOwner"] == "octo-org/widgets")


def journal(world: World) -> dict[str, Any]:
    (d,) = repo(world)["discussions"]
    return dict(d)


def lease_ref(world: World) -> tuple[str, str] | None:
    refs = [(n, oid) for n, oid in repo(world)["refs"].items() if n.startswith(LEASE_PREFIX)]
    assert len(refs) <= 1
    return refs[0] if refs else None


def comment_bodies(world: World) -> list[str]:
    return [c["body"] for c in journal(world)["comments"] if c["deleted_at"] is None]


def refs_and_comments(world: World) -> tuple[Any, Any]:
    r = repo(world)
    return r["refs"], [(c["id"], c["body"], c["deleted_at"]) for d in r["discussions"]
                       for c in d["comments"]]


RECORD = ("record", "--pull-request", "1", "--phase", "admission")


def three_records(world: World) -> None:
    ok(world.cli("admit", "--pull-request", "1"))
    ok(world.cli(*RECORD, "--status", "started"))
    ok(world.cli(*RECORD, "--status", "succeeded"))


# ----------------------------------------------------------------- deleted witness
def test_a_deleted_witness_is_refused_not_written_again(world: World) -> None:
    """A hostile maintainer deletes the newest record, then the lease ref that witnesses
    it: the next writer must not start a fresh witness on the shortened journal and write
    the deleted step a second time (it did, exit 0)."""
    three_records(world)
    newest = journal(world)["comments"][-1]
    assert "succeeded (seq 2)" in newest["body"]
    world.emulator.tamper("delete", newest["id"], actor="alice")
    ref = lease_ref(world)
    assert ref is not None
    world.emulator.delete_ref("octo-org/widgets", ref[0], "alice")
    before = refs_and_comments(world)

    out = world.cli(*RECORD, "--status", "succeeded")
    line = out.stderr.decode().strip()
    assert out.returncode not in (0, 1, 2, 3), line
    assert refs_and_comments(world) == before  # nothing written: no comment, no lease ref
    assert len(line.splitlines()) == 1, line
    assert ref[0] in line and "deleted" in line
    assert "restore-lease" in line and "--records 2" in line
    for other in (("admit", "--pull-request", "1"),
                  ("rollback", "--pull-request", "1", "--status", "started"),
                  ("plan", *RECORD, "--status", "succeeded")):
        again = world.cli(*other)
        assert again.returncode == out.returncode, again.stderr.decode()
        assert ref[0] in again.stderr.decode()
    assert refs_and_comments(world) == before


def _head_named(line: str) -> tuple[str, str]:
    m = re.search(r"--records (\d+) --last (sha256:[0-9a-f]{64})", line)
    assert m is not None, line
    return m.group(1), m.group(2)


def test_a_person_restores_a_deleted_witness_with_one_recorded_command(
        world: World) -> None:
    three_records(world)
    newest = journal(world)["comments"][-1]
    world.emulator.tamper("delete", newest["id"], actor="alice")
    ref = lease_ref(world)
    assert ref is not None
    world.emulator.delete_ref("octo-org/widgets", ref[0], "alice")
    refused = world.cli(*RECORD, "--status", "succeeded")
    records, last = _head_named(refused.stderr.decode())
    before = refs_and_comments(world)
    restore = ("restore-lease", "--pull-request", "1", "--actor", "alice")

    # a head other than the journal's is refused: nothing written
    other = "sha256:" + "1" * 64
    wrong = world.cli(*restore, "--records", records, "--last", other, "--reason", "checked",
                      token="ghp_alice")
    assert wrong.returncode == 1, wrong.stderr.decode()
    assert "head_differs" in wrong.stderr.decode() and last in wrong.stderr.decode()
    fewer = world.cli(*restore, "--records", str(int(records) + 1), "--last", last,
                      "--reason", "checked", token="ghp_alice")
    assert fewer.returncode == 1, fewer.stderr.decode()
    assert refs_and_comments(world) == before
    # bad input before any request
    bad = world.cli(*restore, "--records", records, "--last", "nope", "--reason", "x")
    assert bad.returncode == 2 and "--last" in bad.stderr.decode()

    # the person's token restores it; the restoration is recorded on the lease branch
    done = world.cli(*restore, "--records", records, "--last", last, "--reason",
                     "seq 2 was deleted by a maintainer; run 41 recorded it", token="ghp_alice")
    assert done.returncode == 0, done.stderr.decode()
    assert "restored lease ref" in done.stdout.decode()
    now = lease_ref(world)
    assert now is not None and now[0] == ref[0]
    lease = _commit(world, now[1])  # the lease commit, whose parent records the restoration
    record = json.loads(lease["message"].split("\n")[2])
    assert record["head"] == {"records": int(records), "last": last}
    assert record["state"] == "released" and record["journal"] == journal(world)["number"]
    note = _commit(world, lease["parents"][0]["sha"])
    assert "seq 2 was deleted by a maintainer; run 41 recorded it" in note["message"]
    assert "alice" in note["message"] and last in note["message"]
    again = world.cli(*restore, "--records", records, "--last", last, "--reason", "twice",
                      token="ghp_alice")
    assert again.returncode == 2 and "nothing to restore" in again.stderr.decode()

    # writers take the restored lease: the step deleted is recorded again, by a person's
    # decision, and the reader with --require-witness accepts the journal
    rerun = world.cli(*RECORD, "--status", "succeeded")
    assert rerun.returncode == 0, rerun.stderr.decode()
    assert "seq 2" in rerun.stdout.decode()
    status = world.cli("status", "--pull-request", "1", "--json")
    assert status.returncode == 0, status.stderr.decode()


def _commit(world: World, sha: str) -> dict[str, Any]:
    import httpx

    got = httpx.get(f"{world.api_url}repos/octo-org/widgets/git/commits/{sha}",
                    headers={"authorization": "token ghp_alice"})
    assert got.status_code == 200, got.text
    return dict(got.json())


# ------------------------------------------------------------------ locked journal
def _refused_exit() -> int:
    from ghattempt.cli._errors import EXIT_BY_FAULT
    from ghattempt.errors import Fault

    return EXIT_BY_FAULT[Fault.GITHUB_REFUSED]


def test_a_locked_journal_is_refused_before_any_comment(world: World) -> None:
    """A lock bot (dessant/lock-threads: no lock reason on discussions) locked the
    journal: GitHub would refuse the Actions bot's comment; the writer refuses first,
    naming the lock and the remedy, and writes no comment."""
    ok(world.cli("admit", "--pull-request", "1"))
    d = journal(world)
    world.emulator.lock_discussion(d["id"])
    comments = [c["id"] for c in journal(world)["comments"]]
    for args in (RECORD + ("--status", "started"),
                 ("plan",) + RECORD + ("--status", "started"),
                 ("admit", "--pull-request", "1")):
        out = world.cli(*args)
        line = out.stderr.decode().strip()
        assert out.returncode == _refused_exit(), line
        assert len(line.splitlines()) == 1, line
        assert f"journal #{d['number']} of octo-org/widgets is locked" in line
        assert "unlock" in line and "lock-threads" in line
        assert [c["id"] for c in journal(world)["comments"]] == comments
    world.emulator.lock_discussion(d["id"], "RESOLVED")
    out = world.cli(*RECORD, "--status", "started")
    assert "is locked (resolved)" in out.stderr.decode()
    world.emulator.unlock_discussion(d["id"])
    ok(world.cli(*RECORD, "--status", "started"))


def test_a_locked_journal_read_at_start_takes_no_lease(world: World, tmp_path: Path) -> None:
    """An Action step that knows the journal from an earlier step reads its first page at
    start: locked there, the step refuses before taking the lease (the lease ref does not
    move) and writes nothing."""
    from ghattempt.action import EXIT_BY_FAULT
    from ghattempt.errors import Fault

    from .test_action_commands import run

    first = run(world, tmp_path, "admit")
    assert first.rc == 0, first.stderr
    d = journal(world)
    world.emulator.lock_discussion(d["id"])
    before = refs_and_comments(world)
    step = run(world, tmp_path, "record", phase="admission", status="started")
    assert step.rc == EXIT_BY_FAULT[Fault.GITHUB_REFUSED], step.stderr
    assert "is locked" in step.stdout + step.stderr
    assert refs_and_comments(world) == before  # no lease taken, no comment


# -------------------------------------------------------------------- full journal
def test_a_write_past_the_comment_cap_is_refused_before_it_is_sent(world: World) -> None:
    """GitHub refuses comments past 2,500 on an issue (discussions: the stricter reading,
    docs/emulator.md); the writer refuses the write that would pass ``[journal]
    max_comments`` before sending it, with what the user meets and can do. Here the cap
    is 5 (the emulator's and the configuration's)."""
    world.emulator.discussion_comments = 5
    config = world.workspace / ".github" / "ghattempt.toml"
    config.write_text(config.read_text().replace(
        '[journal]\n', '[journal]\nmax_comments = 5\n'))
    ok(world.cli("admit", "--pull-request", "1"))                       # 1: the root
    ok(world.cli(*RECORD, "--status", "started"))                       # 2
    ok(world.cli(*RECORD, "--status", "succeeded"))                     # 3
    build = ("record", "--pull-request", "1", "--phase", "build")
    ok(world.cli(*build, "--status", "started"))                        # 4
    import httpx

    answer = httpx.post(f"{world.api_url}graphql", headers={"authorization": "bearer ghp_alice"},
                        json={"query": "mutation($d: ID!) { addDiscussionComment(input: "
                              "{discussionId: $d, body: \"looks good\"}) { comment { id } } }",
                              "variables": {"d": journal(world)["id"]}})
    # 5: a person's comment counts too
    assert answer.status_code == 200 and "errors" not in answer.json(), answer.text
    before = refs_and_comments(world)
    out = world.cli(*build, "--status", "succeeded")
    line = out.stderr.decode().strip()
    assert out.returncode == _refused_exit(), line
    assert len(line.splitlines()) == 1, line
    assert "holds 5 comments and replies" in line and "max_comments" in line
    assert "new pull request" in line
    after = refs_and_comments(world)
    assert after[1] == before[1]  # no comment sent
    plan = world.cli("plan", *build, "--status", "succeeded")
    assert plan.returncode == _refused_exit() and "max_comments" in plan.stderr.decode()


# ------------------------------------------------------- a rule against deletion
def test_plan_says_whether_a_rule_keeps_lease_refs_from_deletion(world: World) -> None:
    unprotected = world.cli("plan", "admit", "--pull-request", "1")
    text = unprotected.stdout.decode()
    assert unprotected.returncode == 0, unprotected.stderr.decode()
    assert "no rule keeps refs/heads/ghattempt/lease/** from being deleted" in text
    assert "'Restrict deletions'" in text and "restore-lease" in text
    world.emulator.add_ruleset("octo-org/widgets", name="keep leases",
                               include=["refs/heads/ghattempt/lease/**"], rules=["deletion"])
    protected = world.cli("plan", "admit", "--pull-request", "1")
    assert protected.returncode == 0, protected.stderr.decode()
    assert "restricts deleting refs/heads/ghattempt/lease/**" in protected.stdout.decode()
    # the rule does not refuse the lease's own writes (create, move), only a deletion
    three_records(world)
    ref = lease_ref(world)
    assert ref is not None
    with pytest.raises(ValueError, match="Cannot delete this protected ref"):
        world.emulator.delete_ref("octo-org/widgets", ref[0], "alice")


def test_the_action_names_the_restore_command_as_a_person_runs_it(
        world: World, tmp_path: Path) -> None:
    """The Action says its inputs' names instead of the command line's options, but the
    command a person is to run stays a command line."""
    from ghattempt.action import EXIT_BY_FAULT
    from ghattempt.errors import Fault

    from .test_action_commands import run

    assert run(world, tmp_path, "admit").rc == 0
    assert run(world, tmp_path, "record", phase="admission", status="started").rc == 0
    ref = lease_ref(world)
    assert ref is not None
    world.emulator.delete_ref("octo-org/widgets", ref[0], "alice")
    before = refs_and_comments(world)
    step = run(world, tmp_path, "record", phase="admission", status="succeeded")
    assert step.rc == EXIT_BY_FAULT[Fault.GITHUB_REFUSED], step.stderr
    assert refs_and_comments(world) == before
    assert "`ghattempt restore-lease --pull-request 1 --base-ref main --records 2 --last " \
        "sha256:" in step.stdout
