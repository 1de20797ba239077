"""Capture: every page followed, the first replies page never fetched twice, page sizes
at GitHub's maximum, bounded re-reads on read lag and on pages that disagree."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ghattempt.github import PAGE_SIZE, InputError, ReadLagExceeded, RetryPolicy, floor_requests

from .fakejournal import FakeJournal, comment


def union(pages):
    roots, replies = {}, {}
    for p in pages:
        d = p["data"]
        if "repository" in d:
            for r in d["repository"]["discussion"]["comments"]["nodes"]:
                roots[r["id"]] = r
                for c in r["replies"]["nodes"]:
                    replies.setdefault(r["id"], {})[c["id"]] = c
        else:
            for c in d["node"]["replies"]["nodes"]:
                replies.setdefault(d["node"]["id"], {})[c["id"]] = c
    return roots, replies


def provider_for(make_provider, journal, **kw):
    return make_provider(transport=httpx.MockTransport(journal.handler), **kw)


@pytest.mark.parametrize("counts", [[0], [3], [100], [101], [250, 0, 101, 5],
                                    [1] * 250, [150] * 3 + [0] * 120])
def test_capture_is_complete_at_the_floor(make_provider, counts):
    journal = FakeJournal.build(counts)
    pages = provider_for(make_provider, journal).capture_journal("octo", "app", 7)
    roots, replies = union(pages)
    assert len(roots) == len(counts)
    for a, n in enumerate(counts):
        assert len(replies.get(f"DC_root{a}", {})) == n
    assert len(journal.calls) == len(pages) == floor_requests(counts)
    for op, v in journal.calls:
        assert v.get("replies") == PAGE_SIZE
        if op == "JournalPage":
            assert v["roots"] == PAGE_SIZE
        else:  # continues from the nested page: never re-reads the first 100 replies
            assert v["after"] is not None and v["after"] != "c:0"


def test_pages_are_raw_graphql_responses(make_provider):
    journal = FakeJournal.build([101])
    pages = provider_for(make_provider, journal).capture_journal("octo", "app", 7)
    assert [list(p) for p in pages] == [["data"], ["data"]]
    assert pages[0]["data"]["repository"]["discussion"]["number"] == 7
    assert pages[1]["data"]["node"]["id"] == "DC_root0"
    assert pages[1]["data"]["node"]["replies"]["nodes"][0]["id"] == "DC_r0_100"


def test_floor_formula():
    assert floor_requests([]) == 1
    assert floor_requests([1000]) == 1 + 9
    assert floor_requests([50] * 50) == 1
    assert floor_requests([10] * 101) == 2


def test_read_lag_rereads_until_the_expected_comment_shows(make_provider, fake_clock):
    journal = FakeJournal.build([2, 2])
    journal.hidden = {"DC_r1_1": 3}  # missing from the first two reads
    p = provider_for(make_provider, journal)
    result = p.capture("octo", "app", 7, expect_comment_ids={"DC_r1_1", "DC_root0"})
    assert result.reads == 3 and "DC_r1_1" in result.seen
    assert fake_clock.sleeps == [0.5, 1.0]


def test_read_lag_is_bounded(make_provider, fake_clock):
    journal = FakeJournal.build([1])
    journal.hidden = {"DC_r0_0": 99}
    p = provider_for(make_provider, journal, retry=RetryPolicy(lag_attempts=3))
    with pytest.raises(ReadLagExceeded) as info:
        p.capture_journal("octo", "app", 7, expect_comment_ids=["DC_r0_0"])
    assert info.value.missing == {"DC_r0_0"}
    assert len(journal.calls) == 3 and fake_clock.sleeps == [0.5, 1.0]


def test_no_expectation_means_one_read(make_provider, fake_clock):
    journal = FakeJournal.build([1])
    journal.hidden = {"DC_r0_0": 99}
    provider_for(make_provider, journal).capture_journal("octo", "app", 7)
    assert len(journal.calls) == 1 and fake_clock.sleeps == []


def test_journal_growing_between_pages_is_read_again(make_provider, fake_clock):
    journal = FakeJournal.build([0] * 150)
    state = {"done": False}

    def grow(j, op, v):
        if op == "JournalPage" and v["after"] is not None and not state["done"]:
            state["done"] = True
            j.roots.append(comment("DC_late", 999))

    journal.on_call = grow
    result = provider_for(make_provider, journal).capture("octo", "app", 7)
    assert result.reads == 2 and "DC_late" in result.seen
    totals = {p["data"]["repository"]["discussion"]["comments"]["totalCount"]
              for p in result.pages}
    assert totals == {151}


def test_capture_by_repository_id(make_provider, router):
    journal = FakeJournal.build([1])

    def answer(req):
        if b"RepositoryById" in req.content:
            return httpx.Response(200, json={"data": {"node": {
                "id": "R_kgDOA", "databaseId": 1, "nameWithOwner": "octo/app"}}})
        return journal.handler(req)

    p = make_provider(transport=httpx.MockTransport(answer))
    pages = p.capture_journal_by_id("R_kgDOA", 7)
    assert pages[0]["data"]["repository"]["id"] == "R_kgDOA"
    assert journal.calls[0][1]["owner"] == "octo"


@pytest.mark.parametrize("owner,name,number", [("../x", "a", 1), ("o", "a/b", 1),
                                               ("o", "a", 0), ("o", "a", True)])
def test_bad_capture_arguments(make_provider, owner, name, number):
    with pytest.raises(InputError):
        make_provider().capture_journal(owner, name, number)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 260), min_size=0, max_size=230))
def test_any_shape_is_captured_whole_at_the_floor(counts):
    from ghattempt.github import GitHubProvider, ProviderConfig, TokenAuth

    journal = FakeJournal.build(counts)
    with GitHubProvider(ProviderConfig(auth=TokenAuth("t0ken"), mutation_interval=0,
                                       transport=httpx.MockTransport(journal.handler))) as p:
        pages = p.capture_journal("octo", "app", 7)
    roots, replies = union(pages)
    assert len(roots) == len(counts)
    assert [len(replies.get(f"DC_root{a}", {})) for a in range(len(counts))] == counts
    assert len(pages) == floor_requests(counts)
