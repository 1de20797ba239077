"""Reconstruction of a capture: pages, splitting, order, mismatches and completeness
(docs/journal-format.md section 5 and the order of section 7.2)."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from ghattempt.core.testing import OCTOCAT, Scenario

PLAN = ("admission", "build", "merge")


def journal(events: int = 5, roots: int = 1) -> Scenario:
    s = Scenario()
    prev = None
    for i in range(roots):
        a = s.attempt(plan=PLAN, predecessor=prev)
        if i < roots - 1:
            a.event("admission", "failed", "no")
        prev = a
    a.event("admission", "started")
    for i in range(events - 1):
        a.event("admission", "waiting" if i % 2 == 0 else "started")
    return s


def reason(s: Scenario, pages: Any) -> str | None:
    return s.read(pages=pages).reason


def replies_pages(s: Scenario) -> list[dict[str, Any]]:
    return s.pages(replies_per_page=2, more_replies_per_page=2)


@pytest.mark.parametrize("seed", range(6))
def test_any_page_split_and_order_reads_the_same(seed: int) -> None:
    s = journal(events=9, roots=3)
    expected = s.read().to_json()
    rng = random.Random(seed)
    pages = s.pages(roots_per_page=rng.randint(1, 3), replies_per_page=rng.randint(0, 4),
                    more_replies_per_page=rng.randint(1, 4), shuffle=rng)
    assert s.read(pages=pages).to_json() == expected


def test_a_single_response_object_is_accepted() -> None:
    s = journal()
    (page,) = s.pages()
    assert s.read(pages=page).status == "running"


def test_repeated_identical_pages_are_fine() -> None:
    s = journal()
    pages = s.pages(replies_per_page=2, more_replies_per_page=2)
    assert s.read(pages=pages + copy.deepcopy(pages)).status == "running"


def test_node_order_is_created_at_then_id() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN, created_at="2026-03-01T00:05:00Z", id="DC_b")
    b = s.attempt(plan=PLAN, request_key="other", created_at="2026-03-01T00:05:00Z", id="DC_a")
    c = s.attempt(plan=PLAN, request_key="third", created_at="2026-03-01T00:01:00Z", id="DC_z")
    v = s.read(request_key="other")
    assert [x["attempt"] for x in v.to_json()["attempts"]] == [c.id, b.id, a.id]


@pytest.mark.parametrize("mutate", [
    lambda p: p[0].__setitem__("errors", [{"message": "boom"}]),
    lambda p: p[0].__setitem__("errors", None),
    lambda p: p[-1].__setitem__("data", None),
    lambda p: p[0]["data"].__setitem__("node", None),
    lambda p: p[0]["data"]["repository"].__setitem__("discussion", None),
    lambda p: p[0]["data"]["repository"]["discussion"].pop("comments"),
    lambda p: p[0]["data"]["repository"]["discussion"]["comments"]["nodes"][0].pop("body"),
    lambda p: p[0]["data"]["repository"]["discussion"]["comments"]["nodes"][0]
    .__setitem__("isMinimized", "no"),
    lambda p: p[0]["data"]["repository"]["discussion"]["comments"]["nodes"][0]
    .__setitem__("author", {"databaseId": 1}),
    lambda p: p[0]["data"]["repository"]["discussion"]["comments"].__setitem__("totalCount",
                                                                               "1"),
])
def test_malformed_responses_are_capture_mismatch(mutate: Any) -> None:
    s = journal()
    pages = replies_pages(s)
    mutate(pages)
    assert reason(s, pages) == "capture_mismatch"


def test_same_node_with_other_fields() -> None:
    s = journal()
    pages = replies_pages(s)
    extra = copy.deepcopy(pages[1])
    extra["data"]["node"]["replies"]["nodes"][0]["isMinimized"] = True
    assert reason(s, pages + [extra]) == "capture_mismatch"


def test_same_reply_under_two_parents() -> None:
    s = journal(roots=2)
    pages = s.pages()
    first = pages[0]["data"]["repository"]["discussion"]["comments"]["nodes"]
    stolen = copy.deepcopy(first[1]["replies"]["nodes"][0])
    first[0]["replies"]["nodes"].append(stolen)
    first[0]["replies"]["totalCount"] += 1
    assert reason(s, pages) == "capture_mismatch"


def test_pages_disagree_on_repository_or_discussion() -> None:
    s = journal(roots=2)
    pages = s.pages(roots_per_page=1)
    pages[1]["data"]["repository"]["nameWithOwner"] = "octo-org/renamed"
    assert reason(s, pages) == "capture_mismatch"
    pages = s.pages(roots_per_page=1)
    pages[1]["data"]["repository"]["discussion"]["body"] += " "
    assert reason(s, pages) == "capture_mismatch"


def test_pages_disagree_on_a_total_count() -> None:
    s = journal(roots=2)
    pages = s.pages(roots_per_page=1)
    pages[1]["data"]["repository"]["discussion"]["comments"]["totalCount"] = 3
    assert reason(s, pages) == "capture_mismatch"
    pages = replies_pages(s)
    pages[-1]["data"]["node"]["replies"]["totalCount"] += 1
    assert reason(s, pages) == "capture_mismatch"


def test_more_nodes_than_total_count() -> None:
    s = journal()
    pages = s.pages()
    pages[0]["data"]["repository"]["discussion"]["comments"]["nodes"][0]["replies"][
        "totalCount"] -= 1
    assert reason(s, pages) == "capture_mismatch"


def test_replies_page_of_unknown_comment_or_other_discussion() -> None:
    s = journal()
    pages = replies_pages(s)
    pages[-1]["data"]["node"]["id"] = "DC_unknown"
    assert reason(s, pages) == "capture_mismatch"
    pages = replies_pages(s)
    pages[-1]["data"]["node"]["discussion"]["id"] = "D_other"
    assert reason(s, pages) == "capture_mismatch"


def test_capture_mismatch_wins_over_repository_mismatch() -> None:
    s = journal()
    pages = s.pages()
    pages[0]["errors"] = [{"message": "partial"}]
    assert s.read(pages=pages, repository_id="R_other").reason == "capture_mismatch"


def test_repository_mismatch_wins_over_incomplete() -> None:
    s = journal()
    pages = replies_pages(s)[:1]
    assert s.read(pages=pages).reason == "incomplete"
    assert s.read(pages=pages, repository_id="R_other").reason == "repository_mismatch"


def test_missing_replies_page_is_incomplete() -> None:
    s = journal()
    assert reason(s, replies_pages(s)[:-1]) == "incomplete"


def test_missing_journal_page_is_incomplete() -> None:
    s = journal(roots=3)
    assert reason(s, s.pages(roots_per_page=1)[:2]) == "incomplete"


def test_incomplete_wins_over_untrusted_journal() -> None:
    s = journal()
    s.fixture.author = OCTOCAT
    assert reason(s, replies_pages(s)[:-1]) == "incomplete"


def test_replies_of_a_non_contributing_comment_need_not_be_complete() -> None:
    s = journal()
    human = s.fixture.root("question", author=OCTOCAT)
    for i in range(5):
        s.fixture.reply(human, f"answer {i}")
    pages = s.pages(replies_per_page=2, more_replies_per_page=100)
    pages = [p for p in pages if p["data"].get("node", {}).get("id") != human.id]
    v = s.read(pages=pages)
    assert (v.status, v.ignored) == ("running", 3)


def test_replies_of_a_contributing_comment_without_marker_must_be_complete() -> None:
    s = journal()
    note = s.fixture.root("a note by the bot")
    for i in range(3):
        s.fixture.reply(note, f"reply {i}")
    pages = s.pages(replies_per_page=1, more_replies_per_page=100)
    pages = [p for p in pages if p["data"].get("node", {}).get("id") != note.id]
    assert reason(s, pages) == "incomplete"


def test_deleted_at_absent_counts_as_null() -> None:
    s = Scenario()
    a = s.attempt(plan=PLAN, omit_deleted_at=True)
    a.event("admission", "started", node={"omit_deleted_at": True})
    assert s.read().status == "running"


def test_bot_database_id_absent_does_not_match_writer_id() -> None:
    s = journal()
    for node in s.fixture.roots:
        node.author = OCTOCAT
        for reply in node.replies:
            reply.author = OCTOCAT
    assert s.read(writer="octocat").reason == "untrusted_journal"
    s.fixture.author = OCTOCAT
    assert s.read(writer="octocat").status == "running"
    assert s.read(writer="octocat", writer_id=41898282).reason == "untrusted_journal"
