"""A journal found while its lease ref is absent (journal-v1 section 4: the lease ref is
the witness of the journal's head): refused when the ref was deleted, entered when a
writer that opened the journal meanwhile made the ref after this writer read it."""

from __future__ import annotations

from typing import Any

import pytest

from ghattempt.emulator import Emulator
from ghattempt.exclusive import RefSnapshot
from ghattempt.store import WitnessMissing

from . import harness as h

KEY = "pr-1:main:stable"


def _journal_with_a_record(gh: Any) -> tuple[Any, Any, str]:
    store = h.store(gh)
    journal = store.open_journal(1, "main")
    with store.session(journal) as s:
        a = s.admit(request_key=KEY, generation=h.generation(), plan=h.PLAN,
                    channel="stable", expires_at=h.FAR)
    return store, journal, a.id


def test_a_ref_made_after_this_writer_read_it_absent_is_no_deleted_witness(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Writer B read the lease ref absent just before writer A created it, then found A's
    journal (with A's first record) by the category scan: the ref read again is there,
    so B enters the scope as usual instead of reporting a deleted witness."""
    emu = Emulator(":memory:", h.fixture())
    gh = h.provider(emu=emu)
    _, journal, attempt = _journal_with_a_record(gh)
    b = h.store(h.provider(emu=emu))
    real = b._read_lease
    reads = {"n": 0}

    def stale_first(intent: Any) -> tuple[RefSnapshot, int | None]:
        snap, number = real(intent)
        reads["n"] += 1
        if reads["n"] == 1:  # B's first read came before A's createRef
            return RefSnapshot(snap.name, None, None, snap.server_time), None
        return snap, number

    monkeypatch.setattr(b, "_read_lease", stale_first)
    found = b.locate(1, "main")
    assert found is not None and found.number == journal.number
    result = b.append(found, attempt, key="k1", phase="admission", status="started")
    assert result.event.seq == 1 and reads["n"] == 2


def test_a_deleted_lease_ref_stays_refused_when_read_again() -> None:
    emu = Emulator(":memory:", h.fixture())
    gh = h.provider(emu=emu)
    store, journal, attempt = _journal_with_a_record(gh)
    name = store._lease_name(journal.intent)
    emu.delete_ref(h.REPO, name, "alice")
    b = h.store(h.provider(emu=emu))
    found = b.locate(1, "main")
    assert found is not None
    with pytest.raises(WitnessMissing) as caught:
        b.append(found, attempt, key="k1", phase="admission", status="started")
    assert caught.value.ref == name and caught.value.records == 1
    assert caught.value.last == attempt
    assert emu.snapshot()["repositories"][0]["refs"].get(name) is None
