"""Advancing a capture locally: add a comment the store just wrote to its captured pages.

Within a held writer scope nobody else writes (the lease), so after a confirmed append the
journal is exactly the old capture plus the new comment. Adding that comment to the pages
and reading them again with the core reader keeps every rule in the core, and saves a
capture per append (the numbers in docs/store.md).
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["add_reply", "add_root", "copy_pages", "empty_journal"]


def copy_pages(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A deep copy the store may change."""
    return copy.deepcopy(pages)


def _node(comment_id: str, body: str, created_at: str, login: str,
          database_id: int | None) -> dict[str, Any]:
    author: dict[str, Any] = {"login": login}
    if database_id is not None:
        author["databaseId"] = database_id
    return {"id": comment_id, "body": body, "createdAt": created_at, "lastEditedAt": None,
            "includesCreatedEdit": False, "isMinimized": False, "deletedAt": None,
            "author": author}


def _journal_pages(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for page in pages:
        repo = (page.get("data") or {}).get("repository")
        if isinstance(repo, dict) and isinstance(repo.get("discussion"), dict):
            out.append(repo["discussion"]["comments"])
    return out


def add_root(pages: list[dict[str, Any]], comment_id: str, body: str, created_at: str,
             login: str, database_id: int | None) -> None:
    """Add a top-level comment (an attempt root) with no replies."""
    connections = _journal_pages(pages)
    node = _node(comment_id, body, created_at, login, database_id)
    node["replies"] = {"totalCount": 0, "pageInfo": {"hasNextPage": False, "endCursor": None},
                       "nodes": []}
    for conn in connections:
        conn["totalCount"] += 1
    connections[-1]["nodes"].append(node)


def add_reply(pages: list[dict[str, Any]], root_id: str, comment_id: str, body: str,
              created_at: str, login: str, database_id: int | None) -> None:
    """Add a reply to ``root_id``, updating every page's ``totalCount`` of its replies.

    Raises:
        KeyError: no captured page holds ``root_id``.
    """
    holders: list[dict[str, Any]] = []
    for conn in _journal_pages(pages):
        for root in conn["nodes"]:
            if root["id"] == root_id:
                holders.append(root["replies"])
    if not holders:
        raise KeyError(root_id)
    for page in pages:
        node = (page.get("data") or {}).get("node")
        if isinstance(node, dict) and node.get("id") == root_id:
            holders.append(node["replies"])
    for replies in holders:
        replies["totalCount"] += 1
    holders[-1]["nodes"].append(_node(comment_id, body, created_at, login, database_id))


def empty_journal(*, repository_id: str, repository_name: str, discussion_id: str,
                  number: int, body: str, login: str,
                  database_id: int | None) -> list[dict[str, Any]]:
    """The one JournalPage of a journal just created: its body and no comments (what a
    capture would read once GitHub's replicas show it)."""
    author: dict[str, Any] = {"login": login}
    if database_id is not None:
        author["databaseId"] = database_id
    discussion = {"id": discussion_id, "number": number, "body": body, "lastEditedAt": None,
                  "includesCreatedEdit": False, "author": author,
                  "comments": {"totalCount": 0,
                               "pageInfo": {"hasNextPage": False, "endCursor": None},
                               "nodes": []}}
    return [{"data": {"repository": {"id": repository_id, "nameWithOwner": repository_name,
                                     "discussion": discussion}}}]
