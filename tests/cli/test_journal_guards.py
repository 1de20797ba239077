"""Journals a writer must not write to, over the HTTP emulator (issue 23, section 1): a
journal whose lease ref (its witness) was deleted, a journal a lock bot locked, and a
journal as full as GitHub lets one discussion be. Each is refused before anything is
written, with one line naming what a person must do."""

from __future__ import annotations

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
                  ("rollback", "--pull-request", "1", "--status", "started")):
        again = world.cli(*other)
        assert again.returncode == out.returncode, again.stderr.decode()
        assert ref[0] in again.stderr.decode()
    assert refs_and_comments(world) == before
