"""A tiny in-memory answerer of JournalPage and RepliesPage (test double for paging)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx


def comment(cid: str, n: int) -> dict[str, Any]:
    return {"id": cid, "body": f"body {cid}", "createdAt": f"2026-01-01T00:{n // 60 % 60:02d}:"
            f"{n % 60:02d}Z", "lastEditedAt": None, "includesCreatedEdit": False,
            "isMinimized": False, "deletedAt": None,
            "author": {"login": "github-actions", "databaseId": 41898282}}


@dataclass
class FakeJournal:
    roots: list[dict[str, Any]] = field(default_factory=list)
    replies: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    hidden: dict[str, int] = field(default_factory=dict)  # id -> reads it stays invisible
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    on_call: Any = None

    @classmethod
    def build(cls, reply_counts: list[int]) -> FakeJournal:
        j = cls()
        n = 0
        for a, count in enumerate(reply_counts):
            rid = f"DC_root{a}"
            j.roots.append(comment(rid, n))
            n += 1
            j.replies[rid] = []
            for e in range(count):
                j.replies[rid].append(comment(f"DC_r{a}_{e}", n))
                n += 1
        return j

    def _visible(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [c for c in items if self.hidden.get(c["id"], 0) <= 0]

    def _conn(self, items: list[dict[str, Any]], first: int, after: str | None,
              nest: bool = False) -> dict[str, Any]:
        vis = self._visible(items)
        start = int(after.split(":")[1]) if after else 0
        page = vis[start:start + first]
        nodes = []
        for c in page:
            node = dict(c)
            if nest:
                node["replies"] = self._conn(self.replies.get(c["id"], []), self._replies, None)
            nodes.append(node)
        end = start + len(page)
        return {"totalCount": len(vis),
                "pageInfo": {"hasNextPage": end < len(vis),
                             "endCursor": f"c:{end}" if page else None},
                "nodes": nodes}

    def handler(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        op, v = body["operationName"], body["variables"]
        self.calls.append((op, v))
        if self.on_call:
            self.on_call(self, op, v)
        if op == "JournalPage":
            if v["after"] is None:  # a new read: time passes for hidden comments
                self.hidden = {k: n - 1 for k, n in self.hidden.items()}
            self._replies = v["replies"]
            data = {"repository": {"id": "R_kgDOA", "nameWithOwner": "octo/app", "discussion": {
                "id": "D_kwDOA", "number": v["number"], "body": "journal", "lastEditedAt": None,
                "includesCreatedEdit": False,
                "author": {"login": "github-actions", "databaseId": 41898282},
                "comments": self._conn(self.roots, v["roots"], v["after"], nest=True)}}}
        elif op == "RepliesPage":
            data = {"node": {"id": v["id"], "discussion": {"id": "D_kwDOA"},
                             "replies": self._conn(self.replies[v["id"]], v["replies"],
                                                   v["after"])}}
        else:
            raise AssertionError(op)
        return httpx.Response(200, json={"data": data})
