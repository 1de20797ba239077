"""The typed capture (ghattempt.core.Capture): parsed once, read with the same verdicts as
the responses, and extended by a writer exactly as GitHub would answer after its write
(docs/journal-format.md section 5; docs/reader.md, "From Python")."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ghattempt.core import Capture, JournalInvalid, parse_capture, read_capture, read_journal
from ghattempt.core._args import parse_argv
from ghattempt.core._journal import read_with
from ghattempt.core.testing import ACTIONS_BOT, OCTOCAT, Scenario, sample_cases

PLAN = ("admission", "build", "merge")


def parsed(value: Any) -> Capture | JournalInvalid:
    try:
        return parse_capture(value)
    except JournalInvalid as exc:
        return exc


@pytest.mark.parametrize("case", list(sample_cases()), ids=lambda case: case[0])
def test_a_parsed_capture_reads_as_its_responses(case: tuple[str, str, list[str], Any]) -> None:
    # every verdict of the sample corpus (every status and failure code): the capture
    # parsed once, or the failure parsing raised, reads as the responses themselves
    _name, _about, argv, pages = case
    try:
        opts = parse_argv(argv)
    except JournalInvalid:
        pytest.skip("bad_arguments: no capture is read")
    expected = read_with(copy.deepcopy(pages), opts).to_json()
    got = read_capture(parsed(pages), writer=opts.writer, repository_id=opts.repository_id,
                       writer_id=opts.writer_id, request_key=opts.request_key,
                       server_url=opts.server_url, max_records=opts.max_records,
                       max_attempts=opts.max_attempts, require_witness=opts.require_witness)
    assert got.to_json() == expected


def test_the_arguments_are_checked_before_a_capture_that_did_not_parse() -> None:
    failure = parsed({"data": {}})
    assert isinstance(failure, JournalInvalid) and failure.code == "bad_input"
    verdict = read_capture(failure, writer="github-actions", repository_id="R_1",
                           max_records=0)
    assert verdict.reason == "bad_arguments" and verdict.exit_code == 2
    verdict = read_capture(failure, writer="github-actions", repository_id="R_1")
    assert (verdict.reason, verdict.detail) == ("bad_input", failure.detail)
    assert verdict.to_json() == read_journal({"data": {}}, writer="github-actions",
                                             repository_id="R_1").to_json()


def test_nesting_too_deep_to_read_is_bad_input_as_the_reader_says() -> None:
    s = Scenario()
    s.attempt(plan=PLAN)
    pages = s.pages()
    deep: Any = "x"
    for _ in range(100_000):
        deep = [deep]
    pages[0]["data"]["repository"]["discussion"]["comments"]["nodes"][0]["id"] = deep
    failure = parsed(pages)
    assert isinstance(failure, JournalInvalid)
    assert (failure.code, failure.detail) == ("bad_input", "stdin nests too deeply")
    assert read_capture(failure, writer=s.login, repository_id=s.fixture.repository_id
                        ).to_json() == s.read(pages=pages).to_json()


def _journal() -> Scenario:
    s = Scenario()
    a = s.attempt(plan=PLAN)
    a.event("admission", "started")
    s.fixture.root("A human note", author=OCTOCAT)
    return s


def test_a_root_added_to_the_capture_is_the_capture_of_the_journal_with_it() -> None:
    s = _journal()
    before = parse_capture(s.pages())
    b = s.attempt(plan=PLAN, post=False)
    node = s.fixture.root(b.record, id="DC_kwDOWritten01", created_at="2026-03-01T00:02:30Z")
    after = parse_capture(s.pages(roots_per_page=1))
    extended = before.with_comment(node.id, node.body, node.created_at, ACTIONS_BOT.login,
                                   ACTIONS_BOT.database_id)
    assert extended == after
    assert extended.comments[-2].id == node.id  # in node order: before the later note
    assert before.comments_total + 1 == extended.comments_total  # a new value; before is kept
    assert s.read().status == read_capture(extended, writer=s.login,
                                           repository_id=s.fixture.repository_id).status


def test_a_reply_added_to_the_capture_is_the_capture_of_the_journal_with_it() -> None:
    s = _journal()
    before = parse_capture(s.pages(replies_per_page=1, more_replies_per_page=1))
    a = s.attempts[0]
    event = a.build("admission", "succeeded")
    node = s.fixture.reply(a.root, event, id="DC_kwDOWritten02")
    after = parse_capture(s.pages())
    extended = before.with_reply(a.root.id, node.id, node.body, node.created_at,
                                 ACTIONS_BOT.login, ACTIONS_BOT.database_id)
    assert extended == after
    verdict = read_capture(extended, writer=s.login, repository_id=s.fixture.repository_id)
    assert verdict.journal is not None
    assert verdict.journal.attempts[0].last["admission"] == ("succeeded", None)


def test_a_node_already_captured_or_an_unknown_root_is_a_capture_mismatch() -> None:
    s = _journal()
    capture = parse_capture(s.pages())
    root = capture.comments[0]
    with pytest.raises(JournalInvalid) as known:
        capture.with_comment(root.id, "x", "2026-03-02T00:00:00Z", "github-actions", None)
    assert known.value.code == "capture_mismatch"
    reply = capture.replies[root.id][0]
    with pytest.raises(JournalInvalid) as again:
        capture.with_reply(root.id, reply.id, "x", "2026-03-02T00:00:00Z", "github-actions",
                           None)
    assert again.value.code == "capture_mismatch"
    with pytest.raises(JournalInvalid) as unknown:
        capture.with_reply(reply.id, "DC_new", "x", "2026-03-02T00:00:00Z", "github-actions",
                           None)
    assert unknown.value.code == "capture_mismatch"


def test_a_journal_just_opened_is_the_capture_of_its_first_page() -> None:
    s = Scenario()
    f = s.fixture
    opened = Capture.opened(repository_id=f.repository_id, repository_name=f.repository_name,
                            discussion_id=f.discussion_id, number=f.number, body=f.body,
                            login=ACTIONS_BOT.login, database_id=ACTIONS_BOT.database_id)
    assert opened == parse_capture(s.pages())
    assert read_capture(opened, writer=s.login,
                        repository_id=f.repository_id).status == "empty"


def test_the_category_and_the_lease_member_are_read_from_the_page_that_carries_them() -> None:
    s = _journal()
    pages = s.pages()
    repo = pages[0]["data"]["repository"]
    repo["lease"] = s.lease_member()
    repo["discussion"]["category"] = {"id": "DIC_1", "slug": "release-journal"}
    capture = parse_capture(pages)
    assert capture.category is not None
    assert (capture.category.id, capture.category.slug) == ("DIC_1", "release-journal")
    assert capture.lease is not None and capture.lease.message == s.lease().message()
    assert parse_capture(s.pages()).category is None


@pytest.mark.parametrize("category", [None, "release", {"slug": "x"}, {"id": 5}, []])
def test_a_category_of_another_shape_is_no_category_and_never_changes_a_verdict(
        category: Any) -> None:
    s = _journal()
    pages = s.pages()
    pages[0]["data"]["repository"]["discussion"]["category"] = category
    assert parse_capture(pages).category is None
    assert s.read(pages=pages).to_json() == s.read().to_json()
