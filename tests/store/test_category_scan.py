"""The category scan reads newest first and stops before the pull request was opened
(docs/store.md, "Finding a journal"): a journal is still found among many discussions,
discussions newer than the pull request are still read, and the ones made before it
are not. Over the HTTP emulator with GitHub's fidelity defaults; the requests are
counted in the emulator's log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ghattempt.store import SCAN_MARGIN

from . import harness as h
from .test_real_github import CLI_CONFIG, cli, workspace

pytestmark = pytest.mark.network


def _fixture() -> dict[str, Any]:
    data = h.fixture()
    data["repositories"][0]["branches"].append(
        {"name": "release-2", "message": "Release two", "from": "main"})
    return data


def _seed(world: Any, count: int, label: str) -> None:
    """``count`` discussions in the journal category that are not journals."""
    gh = h.provider(emu=world.emu, token="ghp_alice")
    try:
        repo = gh.repository(h.OWNER, h.NAME)
        category = gh.discussion_category(h.OWNER, h.NAME, h.CATEGORY)
        for n in range(count):
            gh.create_discussion(repo.id, category.id, f"{label} {n}", "Not a journal.")
    finally:
        gh.close()


def _scans(world: Any) -> int:
    return sum(1 for e in world.emu.request_log() if e["operation"] == "CategoryDiscussions")


def _opened_after(serve: Any, before: int) -> tuple[Any, int]:
    """``before`` discussions, then (the margin later) a pull request opened."""
    world = serve(None, _fixture())
    _seed(world, before, "Older notes")
    world.emu.clock.advance(SCAN_MARGIN + 1)
    number = world.emu.open_pull_request(h.REPO, "release-2", "main", "Release two")
    return world, number


def test_a_first_admission_reads_none_of_the_discussions_made_before_the_pull_request(
        serve: Any, tmp_path: Path) -> None:
    world, number = _opened_after(serve, 250)
    ws = workspace(tmp_path, CLI_CONFIG)
    world.emu.clear_request_log()
    admit = cli(world, ws, "admit", "--pull-request", str(number))
    assert admit.returncode == 0, admit.stderr
    assert _scans(world) == 1  # the newest discussion predates the pull request: stop
    assert len(world.discussions()) == 251


def test_a_journal_among_newer_discussions_is_found_and_the_scan_stops_before_the_pr(
        serve: Any, tmp_path: Path) -> None:
    world, number = _opened_after(serve, 150)
    ws = workspace(tmp_path, CLI_CONFIG)
    admit = cli(world, ws, "admit", "--pull-request", str(number))
    assert admit.returncode == 0, admit.stderr
    _seed(world, 120, "Newer notes")  # made after the pull request and its journal
    # a rename: the scope of the new name has no lease ref, so the journal is found by
    # the scan, under its old intent record
    world.emu.rename_repository(h.REPO, "gizmos")
    world.emu.clear_request_log()
    record = cli(world, ws, "record", "--pull-request", str(number), "--phase", "admission",
                 "--status", "started", repository="octo-org/gizmos")
    assert record.returncode == 0, record.stderr
    assert "recorded admission started" in record.stdout
    # newest first: 100 newer, then 20 newer, the journal and the first older one (the
    # stop); the whole category would be 3 pages
    assert _scans(world) == 2
    assert len(world.discussions("octo-org/gizmos")) == 271  # no second journal


def test_discussions_within_the_margin_before_the_pull_request_are_still_read(
        serve: Any, tmp_path: Path) -> None:
    world = serve(None, _fixture())
    _seed(world, 150, "Older notes")  # a moment before the pull request: in the margin
    number = world.emu.open_pull_request(h.REPO, "release-2", "main", "Release two")
    ws = workspace(tmp_path, CLI_CONFIG)
    world.emu.clear_request_log()
    admit = cli(world, ws, "admit", "--pull-request", str(number))
    assert admit.returncode == 0, admit.stderr
    assert _scans(world) == 2  # all 150 read: none is older than the margin


def test_without_the_pull_requests_time_the_whole_category_is_read(serve: Any) -> None:
    world, number = _opened_after(serve, 250)
    store = world.store()
    world.emu.clear_request_log()
    assert store.locate(number, "main") is None
    assert _scans(world) == 3
    store.pull_request_opened(number, "not a time")  # unreadable: no stop either
    world.emu.clear_request_log()
    assert store.locate(number, "main") is None
    assert _scans(world) == 3
    pr = store.provider.pull_request(h.OWNER, h.NAME, number)
    store.pull_request_opened(number, pr.created_at)
    world.emu.clear_request_log()
    assert store.locate(number, "main") is None
    assert _scans(world) == 1
