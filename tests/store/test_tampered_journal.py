"""An edited journal body fails closed: the store never replaces it with a fresh journal.

A fresh journal would hold no attempt, so ADR-038's blocking (a succeeded or running
attempt blocks a new one for its request key) would no longer see the history: an edit
of the journal body would open the way to a second release.
"""

from __future__ import annotations

import pytest

from ghattempt.core import render_body
from ghattempt.store import JournalInvalidError

from . import harness as h
from .conftest import World
from .test_faults import KEY, admit


def discussions(world: World) -> list[dict]:
    repo = next(r for r in world.emu.snapshot()["repositories"]
                if r["nameWithOwner"] == h.REPO)
    return repo["discussions"]


@pytest.mark.parametrize("body", ["same", "erased"])
def test_an_edited_journal_fails_closed_instead_of_opening_a_new_one(world: World, body: str):
    a = admit(world)
    world.store.append(world.journal, a.id, key="k1", phase="admission", status="started")
    before = len(discussions(world))
    new_body = render_body(world.journal.intent) if body == "same" else "nothing to see"
    world.emu.tamper("edit", world.journal.discussion_id, actor=h.LOGIN, body=new_body)

    # the scope's lease names the journal: it is found again, never replaced
    assert world.store.open_journal(1, "main") == world.journal
    with pytest.raises(JournalInvalidError) as info:
        with world.store.open(1, "main"):
            pass
    assert info.value.code == "untrusted_journal"
    with pytest.raises(JournalInvalidError):
        with world.store.session(world.journal) as s:
            s.admit(request_key=KEY, generation=h.generation(2), plan=h.PLAN,
                    channel="stable", expires_at=h.FAR)
    assert len(discussions(world)) == before  # no second journal for the intent
