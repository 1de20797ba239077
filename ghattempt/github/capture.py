"""Capture a journal: every JournalPage and RepliesPage the reader needs (spec section 5).

Paging: top-level comments 100 a page and each root's first 100 replies in the same
request (GitHub caps ``first`` at 100; 100 x 100 + 100 = 10,100 nodes, far under the
500,000-node limit; cost (1 + 100) / 100 rounds to 1 point). A root with more replies is
continued with RepliesPage from the nested ``endCursor``: the first page is never fetched
twice. The minimum number of requests for A attempts is therefore
``ceil(A / 100) + sum over roots of ceil(max(replies - 100, 0) / 100)`` (at least 1).

A capture is *settled* when its pages agree with one another (same repository,
discussion and ``totalCount`` on every page of a connection) and every comment id the
caller expects is present. Otherwise it is read again, whole, after a bounded backoff
(read lag: a just-written comment may be missing from a list for a moment).

The pages are GitHub's JSON as it came: the layers above read them only as the typed
:class:`~ghattempt.core.Capture` the core parses them into (``CaptureResult.capture``);
the responses themselves are kept for saving byte for byte (``ghattempt capture``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..core import Capture, JournalInvalid, parse_capture
from .config import RetryPolicy
from .documents import described
from .errors import GitHubRefused, NotFound, ReadLagExceeded

__all__ = ["PAGE_SIZE", "CaptureResult", "capture_pages", "floor_requests"]

PAGE_SIZE = 100
"""GitHub's largest ``first`` (GraphQL API, "Node limit")."""

Send = Callable[[str, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class CaptureResult:
    """``pages``: the raw responses in request order (for saving as they came);
    ``seen``: every comment id in them; ``consistent``: the pages agree; ``reads``: how
    many whole captures were made. ``capture`` is what the layers above read."""

    pages: tuple[dict[str, Any], ...]
    seen: frozenset[str]
    consistent: bool
    reads: int

    @cached_property
    def capture(self) -> Capture | JournalInvalid:
        """The pages parsed once by the core (:func:`~ghattempt.core.parse_capture`), or
        the ``JournalInvalid`` parsing raised (``bad_input``, ``capture_mismatch``), which
        the reader's verdict then names."""
        return parsed(self.pages)


def parsed(pages: Iterable[dict[str, Any]]) -> Capture | JournalInvalid:
    """``parse_capture`` of ``pages`` as a list, the failure as a value."""
    try:
        return parse_capture(list(pages))
    except JournalInvalid as exc:
        return exc


def floor_requests(replies_per_root: Iterable[int], page: int = PAGE_SIZE) -> int:
    """The fewest requests that can capture a journal with these reply counts."""
    counts = list(replies_per_root)
    first = max(1, -(-len(counts) // page))
    return first + sum(-(-max(n - page, 0) // page) for n in counts)


def _journal(page: dict[str, Any], op: str) -> dict[str, Any]:
    repo = (page.get("data") or {}).get("repository")
    if not isinstance(repo, dict):
        raise NotFound(f"{described(op)}: the repository is not visible to these credentials",
                       operation=op)
    disc = repo.get("discussion")
    if not isinstance(disc, dict):
        raise NotFound(f"{described(op)}: no discussion with that number in "
                       f"{repo.get('nameWithOwner')}", operation=op)
    return repo


def _read_once(send: Send, owner: str, name: str, number: int) -> CaptureResult:
    pages: list[dict[str, Any]] = []
    seen: set[str] = set()
    consistent = True
    after: str | None = None
    ident: tuple[Any, ...] | None = None
    top_total: int | None = None
    while True:
        page = send("JournalPage", {"owner": owner, "name": name, "number": number,
                                    "after": after, "roots": PAGE_SIZE, "replies": PAGE_SIZE})
        pages.append(page)
        repo = _journal(page, "JournalPage")
        disc = repo["discussion"]
        this_ident = (repo.get("id"), disc.get("id"))
        comments = disc.get("comments") or {}
        if ident is not None and this_ident != ident:
            consistent = False
        if top_total is not None and comments.get("totalCount") != top_total:
            consistent = False
        ident, top_total = this_ident, comments.get("totalCount")
        seen.add(disc["id"])
        for root in comments.get("nodes") or []:
            seen.add(root["id"])
            replies = root.get("replies") or {}
            for reply in replies.get("nodes") or []:
                seen.add(reply["id"])
            info = replies.get("pageInfo") or {}
            cursor = info.get("endCursor")
            total = replies.get("totalCount")
            while info.get("hasNextPage") and cursor:
                more = send("RepliesPage", {"id": root["id"], "after": cursor,
                                            "replies": PAGE_SIZE})
                pages.append(more)
                node = (more.get("data") or {}).get("node")
                if not isinstance(node, dict) or "replies" not in node:
                    raise NotFound(f"RepliesPage: comment {root['id']} vanished while paging",
                                   operation="RepliesPage")
                if (node.get("discussion") or {}).get("id") != disc.get("id"):
                    consistent = False
                r = node["replies"]
                if r.get("totalCount") != total:
                    consistent = False
                for reply in r.get("nodes") or []:
                    seen.add(reply["id"])
                info = r.get("pageInfo") or {}
                if info.get("endCursor") == cursor:
                    raise GitHubRefused("RepliesPage: GitHub returned the same cursor twice",
                                        operation="RepliesPage")
                cursor = info.get("endCursor")
        info = comments.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            break
        if not info.get("endCursor") or info.get("endCursor") == after:
            raise GitHubRefused("JournalPage: GitHub returned no new cursor",
                                operation="JournalPage")
        after = info["endCursor"]
    return CaptureResult(tuple(pages), frozenset(seen), consistent, 1)


def capture_pages(
    send: Send,
    owner: str,
    name: str,
    number: int,
    *,
    expect: frozenset[str],
    policy: RetryPolicy,
    sleep: Callable[[float], None],
) -> CaptureResult:
    """Capture until settled, at most ``policy.lag_attempts`` whole reads.

    ``expect`` holds node ids just written: comments, or the discussion itself. While it
    is non-empty, a discussion GitHub cannot resolve yet is read lag too.

    Raises:
        ReadLagExceeded: expected ids still missing, or pages still disagreeing.
        GitHubError: whatever the transport raises.
    """
    reads = 0
    while True:
        reads += 1
        try:
            result = _read_once(send, owner, name, number)
        except NotFound as exc:
            # a discussion created a moment ago may not resolve yet (read lag)
            if not expect or reads >= policy.lag_attempts:
                raise
            result = CaptureResult((), frozenset(), False, reads)
            lag_error: NotFound | None = exc
        else:
            lag_error = None
        missing = expect - result.seen
        if not missing and result.consistent:
            return CaptureResult(result.pages, result.seen, True, reads)
        if reads >= policy.lag_attempts:
            if lag_error is not None:  # pragma: no cover - re-raised above
                raise lag_error
            why = (f"{len(missing)} expected comment(s) not visible" if missing
                   else "pages kept disagreeing (the journal changed while it was read)")
            raise ReadLagExceeded(
                f"capture of {owner}/{name}#{number}: {why} after {reads} reads",
                operation="JournalPage", missing=frozenset(missing), pages=result.pages)
        sleep(min(policy.lag_cap, policy.lag_base * 2 ** (reads - 1)))

