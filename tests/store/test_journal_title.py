"""The title of a new journal: the store's default or the configured ``journal.title``.

The title is informational (the intent record identifies a journal), yet an edited
journal bearing either title still fails closed (docs/store.md, "Finding a journal").
"""

from __future__ import annotations

import pytest

from ghattempt.config import parse_config
from ghattempt.core import Intent, render_body
from ghattempt.store import JournalInvalidError, StoreInputError, default_journal_title

from . import harness as h
from .conftest import World


def titled(intent: Intent) -> str:
    return f"Releases of {intent.repository_name} PR {intent.pull_request} -> {intent.base_ref}"


def discussion(world: World, number: int) -> dict:
    repo = next(r for r in world.emu.snapshot()["repositories"]
                if r["nameWithOwner"] == h.REPO)
    return next(d for d in repo["discussions"] if d["number"] == number)


def count(world: World) -> int:
    repo = next(r for r in world.emu.snapshot()["repositories"]
                if r["nameWithOwner"] == h.REPO)
    return len(repo["discussions"])


def test_without_a_title_the_store_uses_its_default(world: World) -> None:
    d = discussion(world, world.journal.number)
    assert d["title"] == default_journal_title(world.journal.intent)
    assert d["title"].startswith("Release journal: #1 into main [")


def test_a_configured_title_is_the_new_discussions_title(world: World) -> None:
    cfg = parse_config(b'[journal]\ntitle = "Journal {repository} #{pull_request} '
                       b'into {base_ref}"\n', path=".github/ghattempt.toml")
    store = h.store(world.gh, repo_id=world.repo_id, journal_title=cfg.journal_title_of)
    journal = store.open_journal(2, "main")
    assert discussion(world, journal.number)["title"] == f"Journal {h.REPO} #2 into main"
    # found again by its intent record, not by its title
    assert store.open_journal(2, "main").number == journal.number


def test_an_edited_journal_its_lease_names_fails_closed(world: World) -> None:
    store = h.store(world.gh, repo_id=world.repo_id, journal_title=titled)
    journal = store.open_journal(3, "main")
    assert discussion(world, journal.number)["title"] == titled(journal.intent)
    before = count(world)
    world.emu.tamper("edit", journal.discussion_id, actor=h.LOGIN, body="nothing to see")
    with pytest.raises(JournalInvalidError) as info:
        with store.open(3, "main"):
            pass
    assert info.value.code == "untrusted_journal"
    assert count(world) == before  # no second journal for the intent


@pytest.mark.parametrize("which", ["configured", "default"])
def test_an_edited_journal_found_by_the_scan_fails_closed_by_either_title(
        world: World, which: str) -> None:
    # a journal made before its scope had a lease ref naming it: found by the category
    # scan, which fails closed on an edited body bearing the journal's title
    store = h.store(world.gh, repo_id=world.repo_id, journal_title=titled)
    intent = store.intent(3, "main")
    title = titled(intent) if which == "configured" else default_journal_title(intent)
    category = next(c.id for c in world.gh.repository(h.OWNER, h.NAME).categories
                    if c.slug == h.CATEGORY)
    made = world.gh.create_discussion(world.repo_id, category, title, render_body(intent))
    before = count(world)
    world.emu.tamper("edit", made.id, actor=h.LOGIN, body="nothing to see")
    with pytest.raises(JournalInvalidError) as info:
        store.open_journal(3, "main")
    assert info.value.code == "untrusted_journal"
    assert count(world) == before  # no second journal for the intent


def test_an_empty_title_is_refused_before_anything_is_created(world: World) -> None:
    store = h.store(world.gh, repo_id=world.repo_id, journal_title=lambda intent: "  ")
    before = count(world)
    with pytest.raises(StoreInputError, match="journal title"):
        store.open_journal(5, "main")
    assert count(world) == before
