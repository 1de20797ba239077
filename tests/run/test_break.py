"""Brief X, over the HTTP emulator: a careless user and a hostile moderator against
``ghattempt run`` (issues 23, 24). A work that cannot start is bad input refused before
anything is written; a journal locked, or its lease ref deleted, while the work runs
ends the step with what the work did, so a person can settle the phase by hand."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import REPO, RunWorld

pytestmark = pytest.mark.network

LEASE_PREFIX = "refs/heads/ghattempt/lease/"


def repo(world: RunWorld) -> dict[str, Any]:
    snap = world.emulator.snapshot()
    return dict(next(r for r in snap["repositories"] if r["nameWithOwner"] == REPO))


def comments(world: RunWorld) -> list[Any]:
    return [(c["id"], c["body"]) for d in repo(world)["discussions"]
            for c in d["comments"] if c["deleted_at"] is None]


@pytest.mark.parametrize("work", [
    ("./no-such-script",),
    ("no-such-command-on-path",),
])
def test_a_work_that_cannot_start_is_refused_before_anything_is_written(
        world: RunWorld, work: tuple[str, ...]) -> None:
    """A typo in the work's command: exit 2 naming it, and no ``started`` left behind
    (it was: the phase then read as a live runner's, busy for [run] stale_after)."""
    done = world.cli("run", "--pull-request", "1", "--phase", "build", "--", *work)
    assert done.returncode == 2, done.stderr.decode()
    assert work[0] in done.stderr.decode()
    assert comments(world) == []
    # the command fixed, the phase runs at once
    fixed = world.run("build")
    assert fixed.returncode == 0, fixed.stderr.decode()
    assert world.phase_statuses("build") == ["started", "succeeded"]


def test_a_working_directory_that_is_not_there_is_refused_before_anything_is_written(
        world: RunWorld) -> None:
    done = world.cli("run", "--pull-request", "1", "--phase", "build",
                     "--working-directory", "no-such-dir", "--", "true")
    assert done.returncode == 2, done.stderr.decode()
    assert "no-such-dir" in done.stderr.decode()
    assert comments(world) == []
