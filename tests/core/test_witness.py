"""The witness of the lease ref (docs/journal-format.md sections 4, 5 and 7.7): the
captured lease ref, ``bad_witness`` then ``rolled_back``, ``--require-witness``, and what
a valid journal tells a writer (record count and digests, lease, ignored comments)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from ghattempt.core import LEASE_HEADLINE, Witness, read_journal
from ghattempt.core._c14n import canonical_text
from ghattempt.core._reader_main import run
from ghattempt.core.testing import OCTOCAT, Author, Scenario

PLAN = ("admission", "build", "merge")


def journal() -> tuple[Scenario, Any]:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.event("admission", "started")
    a.event("admission", "succeeded")
    a.event("build", "started")
    return s, a


def test_a_witness_naming_the_journal_is_valid_and_the_state_says_what_a_writer_needs() -> None:
    s, a = journal()
    lease = s.lease()
    verdict = s.read(pages=[s.lease_ref(), *s.pages()])
    assert verdict.status == "running" and verdict.journal is not None
    state = verdict.journal
    assert state.record_count == 4 == lease.head.records
    assert state.record_digests == frozenset([a.id, *(e.digest for e in a.events)])
    assert state.lease == lease and state.lease_oid == "1e" * 20


def test_a_witness_lower_than_the_journal_is_valid() -> None:
    s, a = journal()
    early = Witness(2, a.events[0].digest)
    assert s.read(pages=[s.lease_ref(s.lease(head=early)), *s.pages()]).status == "running"


def test_an_empty_witness_asks_for_nothing() -> None:
    s = Scenario()
    verdict = s.read(pages=[s.lease_ref(s.lease(head=Witness(0, None))), *s.pages()])
    assert verdict.status == "empty" and verdict.journal is not None
    assert verdict.journal.record_count == 0 and verdict.journal.lease is not None


def test_a_deleted_newest_event_is_rolled_back_and_the_detail_counts() -> None:
    s, a = journal()
    ref = s.lease_ref()
    a.root.replies[-1].deleted_at = "2026-03-02T00:00:00Z"
    verdict = s.read(pages=[ref, *s.pages()])
    assert verdict.reason == "rolled_back" and verdict.exit_code == 3
    assert "names 4 records; the journal holds 3" in (verdict.detail or "")
    assert s.read().status == "running"  # without the witness it reads one step shorter


def test_an_edited_newest_event_is_rolled_back() -> None:
    s, a = journal()
    ref = s.lease_ref()
    a.root.replies[-1].last_edited_at = "2026-03-02T00:00:00Z"
    assert s.read(pages=[ref, *s.pages()]).reason == "rolled_back"


def test_a_last_the_journal_does_not_hold_is_rolled_back_and_named() -> None:
    s, _ = journal()
    other = "sha256:" + "7" * 64
    verdict = s.read(pages=[s.lease_ref(s.lease(head=Witness(1, other))), *s.pages()])
    assert verdict.reason == "rolled_back"
    assert other in (verdict.detail or "")


def test_a_newest_record_by_someone_else_does_not_count() -> None:
    s, a = journal()
    ref = s.lease_ref()
    a.root.replies[-1].author = OCTOCAT
    assert s.read(pages=[ref, *s.pages()]).reason == "rolled_back"


def test_require_witness_without_a_lease_ref_is_rolled_back() -> None:
    s, _ = journal()
    assert s.read(require_witness=True).reason == "rolled_back"
    null = s.lease_ref(None)
    assert s.read(pages=[null, *s.pages()], require_witness=True).reason == "rolled_back"
    plain = s.read(pages=[null, *s.pages()])
    assert plain.status == "running" and plain.journal is not None
    assert plain.journal.lease is None and plain.journal.lease_oid is None
    assert s.read(pages=[s.lease_ref(), *s.pages()], require_witness=True).status == "running"


def test_require_witness_is_a_flag_without_a_value() -> None:
    s, _ = journal()
    argv = ["--writer", s.login, "--repository-id", s.fixture.repository_id]
    stdin = json.dumps(s.pages()).encode()
    for flags, reason in [(["--require-witness"], "rolled_back"),
                          (["--require-witness", "--require-witness"], "bad_arguments"),
                          (["--require-witness=1"], "bad_arguments")]:
        verdict, _ = run([*flags, *argv], io.BytesIO(stdin), None)
        assert verdict is not None and verdict.reason == reason, flags
    verdict, _ = run([*argv, "--require-witness"], io.BytesIO(stdin), None)
    assert verdict is not None and verdict.reason == "rolled_back"


def _foreign_message(s: Scenario, **changes: Any) -> str:
    wire = s.lease().to_dict()
    wire.update(changes)
    return LEASE_HEADLINE + "\n\n" + canonical_text(wire)


@pytest.mark.parametrize("name", ["prefix", "name", "null-target", "no-message", "not-a-lease",
                                  "non-canonical", "scope-intent", "scope-repository",
                                  "journal", "records-without-last", "last-without-records"])
def test_a_lease_ref_that_is_not_this_scopes_lease_record_is_bad_witness(name: str) -> None:
    s, _ = journal()
    intent = "sha256:" + "9" * 64
    ref = {
        "prefix": lambda: s.lease_ref(prefix="refs/tags/"),
        "name": lambda: s.lease_ref(name="ghattempt/lease/" + "0" * 40),
        "null-target": lambda: s.lease_ref(target=False),
        "no-message": lambda: _without_message(s.lease_ref()),
        "not-a-lease": lambda: s.lease_ref(message="Merge branch main"),
        "non-canonical": lambda: s.lease_ref(message=s.lease().message().replace(",", ", ")),
        "scope-intent": lambda: s.lease_ref(
            message=_foreign_message(s, scope={"intent": intent,
                                               "repository": s.fixture.repository_id})),
        "scope-repository": lambda: s.lease_ref(
            message=_foreign_message(s, scope={"intent": s.intent.digest,
                                               "repository": "R_other"})),
        "journal": lambda: s.lease_ref(s.lease(journal=s.fixture.number + 1)),
        "records-without-last": lambda: s.lease_ref(
            message=_foreign_message(s, head={"records": 2, "last": None})),
        "last-without-records": lambda: s.lease_ref(
            message=_foreign_message(s, head={"records": 0, "last": "sha256:" + "1" * 64})),
    }[name]()
    verdict = s.read(pages=[ref, *s.pages()])
    assert verdict.reason == "bad_witness", verdict.detail


def _without_message(response: dict[str, Any]) -> dict[str, Any]:
    del response["data"]["repository"]["lease"]["target"]["message"]
    return response


def test_a_journal_without_a_number_in_its_lease_record_is_fine() -> None:
    s, _ = journal()
    assert s.read(pages=[s.lease_ref(s.lease(journal=None)), *s.pages()]).status == "running"


def test_bad_witness_comes_before_rolled_back_and_after_the_journal_checks() -> None:
    s, a = journal()
    bad = s.lease_ref(s.lease(journal=99, head=Witness(50, "sha256:" + "7" * 64)))
    assert s.read(pages=[bad, *s.pages()]).reason == "bad_witness"
    a.post(a.build("build", "succeeded", seq=9))  # a gap: section 7.5 comes first
    assert s.read(pages=[bad, *s.pages()]).reason == "gap"


def test_rolled_back_comes_before_the_missing_request_key() -> None:
    s = Scenario()
    s.attempt(plan=PLAN, request_key="a")
    s.attempt(plan=PLAN, request_key="b")
    assert s.read().reason == "bad_input"
    high = s.lease_ref(s.lease(head=Witness(3, s.written[-1])))
    assert s.read(pages=[high, *s.pages()]).reason == "rolled_back"


def test_a_journal_page_may_carry_the_same_lease_member() -> None:
    s, _ = journal()
    pages = s.pages()
    pages[0]["data"]["repository"]["lease"] = s.lease_member()
    assert s.read(pages=pages).journal.lease == s.lease()  # type: ignore[union-attr]
    assert s.read(pages=[s.lease_ref(), *pages]).status == "running"


def test_lease_members_that_differ_are_capture_mismatch() -> None:
    s, a = journal()
    early = s.lease_ref(s.lease(head=Witness(2, a.events[0].digest)))
    for other in (s.lease_ref(), s.lease_ref(None), s.lease_ref(oid="2f" * 20)):
        assert s.read(pages=[early, other, *s.pages()]).reason == "capture_mismatch"
    assert s.read(pages=[early, early, *s.pages()]).status == "running"


@pytest.mark.parametrize("lease", [1, "x", [], {"name": "n", "prefix": "refs/heads/"},
                                   {"name": 1, "prefix": "refs/heads/", "target": None},
                                   {"name": "n", "prefix": "p", "target": {"message": "m"}},
                                   {"name": "n", "prefix": "p", "target": {"oid": "o",
                                                                           "message": 7}}])
def test_a_lease_member_of_the_wrong_shape_is_capture_mismatch(lease: Any) -> None:
    s, _ = journal()
    ref = {"data": {"repository": {"id": s.fixture.repository_id, "lease": lease}}}
    assert s.read(pages=[ref, *s.pages()]).reason == "capture_mismatch"


def test_a_lease_ref_of_another_repository_is_capture_mismatch() -> None:
    s, _ = journal()
    ref = s.lease_ref()
    ref["data"]["repository"]["id"] = "R_other"
    assert s.read(pages=[ref, *s.pages()]).reason == "capture_mismatch"


def test_lease_refs_alone_are_bad_input() -> None:
    s, _ = journal()
    assert s.read(pages=[s.lease_ref()]).reason == "bad_input"


def test_a_repository_with_neither_lease_nor_discussion_is_a_journal_page_that_fails() -> None:
    s, _ = journal()
    bare = {"data": {"repository": {"id": s.fixture.repository_id,
                                    "nameWithOwner": s.fixture.repository_name}}}
    assert s.read(pages=[bare]).reason == "capture_mismatch"


def test_record_count_counts_each_digest_once_and_not_the_intent() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    s.fixture.root(a.record)  # the root retried: one attempt
    event = a.event("admission", "started")
    a.post(event)  # an identical repeat: one record
    verdict = s.read()
    assert verdict.journal is not None
    assert verdict.journal.record_count == 2
    assert verdict.journal.record_digests == {a.id, event.digest}


def test_ignored_comments_say_why_each_was_not_read() -> None:
    s = Scenario()
    note = s.fixture.root("A human note", author=OCTOCAT)
    under_note = s.fixture.reply(note, "me too", author=OCTOCAT)
    a = s.attempt(plan=PLAN)
    a.event("admission", "started")
    edited = a.post(a.build("admission", "succeeded"), last_edited_at="2026-03-02T00:00:00Z")
    deleted = a.post("gone", deleted_at="2026-03-02T00:00:00Z")
    plain = a.post("a comment by the writer without a record")
    ghost = a.post("from a deleted account", author=None)
    other_id = a.post("same login, another account", author=Author("github-actions", 7))
    verdict = s.read(writer_id=41898282)
    assert verdict.journal is not None
    why = dict(verdict.journal.ignored_comments)
    assert why == {
        note.id: "author 'octocat' is not the writer 'github-actions'",
        under_note.id: "reply of an ignored comment",
        edited.id: "edited", deleted.id: "deleted", plain.id: "no marker",
        ghost.id: "author a deleted account is not the writer 'github-actions'",
        other_id.id: "databaseId 7 differs from --writer-id 41898282"}
    assert verdict.ignored == len(verdict.journal.ignored_comments) == 7
    # counted by kind in the same place: a deleted account and another databaseId are
    # other authors too
    assert verdict.journal.ignored_kinds == (
        ("deleted", 1), ("edited", 1), ("no record", 1), ("other author", 3),
        ("reply of an ignored comment", 1))


def test_writer_id_is_compared_exactly_however_long() -> None:
    s = Scenario(author=Author("github-actions", 10**18))
    s.attempt(plan=PLAN)
    argv = ["--writer", s.login, "--repository-id", s.fixture.repository_id]
    stdin = json.dumps(s.pages()).encode()
    for writer_id, reason in [("1000000000000000001", "untrusted_journal"),
                              ("1000000000000000000", None),
                              ("0001000000000000000000", None),
                              ("1" + "0" * 5000, "untrusted_journal")]:
        verdict, _ = run([*argv, "--writer-id", writer_id], io.BytesIO(stdin), None)
        assert verdict is not None and verdict.reason == reason, writer_id[:30]


def test_max_flags_are_compared_exactly_however_long() -> None:
    s, _ = journal()
    argv = ["--writer", s.login, "--repository-id", s.fixture.repository_id]
    stdin = json.dumps(s.pages()).encode()
    for flag in ("--max-records", "--max-attempts"):
        verdict, _ = run([*argv, flag, "9" * 6000], io.BytesIO(stdin), None)
        assert verdict is not None and verdict.status == "running", flag


def test_a_material_url_may_name_the_repository_by_its_current_name() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.event("admission", "started", materials=[
        a.material("log", url="https://github.com/octo-org/gadgets/releases/download/log")])
    pages = s.pages()
    assert s.read(pages=pages).reason == "material_rejected"
    for page in pages:
        page["data"]["repository"]["nameWithOwner"] = "Octo-Org/Gadgets"
    assert s.read(pages=pages).status == "running"
    other = read_journal(pages, writer=s.login, repository_id=s.fixture.repository_id,
                         server_url="https://ghe.example.com")
    assert other.reason == "material_rejected"
