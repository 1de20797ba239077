"""GraphQL objects over :class:`~ghattempt.emulator.state.State` rows: repositories,
pull requests, node lookup and the root types. Discussions are :mod:`.discussions`, refs
and commits :mod:`.refs`, the context, paging and actors :mod:`.graph`.

Each class is named after the GraphQL type it serves; graphql-core's default field
resolver reads attributes named like the schema's fields and calls methods with the
field's arguments.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from . import protection
from .discussions import Discussion, DiscussionCategory, DiscussionComment, DiscussionMutations
from .errors import ResolverError, not_found_node
from .graph import Actor, Ctx, Info, RateInfo, _ctx, actor_or_none, paginate, repository
from .ids import decode_node_id, node_id
from .refs import Commit, Ref, RefMutations, Tree, find_ref, git_object
from .state import iso


# --------------------------------------------------------------- repositories
class Repository:
    __typename = "Repository"

    def __init__(self, ctx: Ctx, row: sqlite3.Row) -> None:
        self._ctx = ctx
        self._row = row
        self.databaseId = int(row["id"])
        self.id = ctx.object_id("Repository", row)
        self.name = str(row["name"])
        owner = ctx.state.actor(int(row["owner_id"]))
        assert owner is not None
        self.owner = Actor(ctx, owner)
        self.nameWithOwner = f"{owner['login']}/{self.name}"
        self.url = f"{ctx.server_url}/{self.nameWithOwner}"
        self.hasDiscussionsEnabled = bool(row["has_discussions"])
        self.isPrivate = bool(row["private"])

    def viewerPermission(self, info: Info) -> str | None:
        # GitHub answers null for an App installation token and for GITHUB_TOKEN
        ctx = self._ctx
        if ctx.fidelity.viewer_permission and ctx.viewer_is_bot:
            return None
        role = str(ctx.token["role"])
        return None if role == "none" else role.upper()

    def discussion(self, info: Info, number: int) -> Discussion:
        ctx = self._ctx
        ctx.require_discussions("read")
        row = ctx.state.one(
            "SELECT * FROM discussions WHERE repo_id = ? AND number = ? AND visible_at <= ?",
            self.databaseId,
            number,
            ctx.now,
        )
        if row is None:
            raise ResolverError(
                f"Could not resolve to a Discussion with the number of {number}.", "NOT_FOUND"
            )
        return Discussion(ctx, row)

    def discussions(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
        categoryId: str | None = None,  # noqa: N803
        orderBy: dict[str, str] | None = None,  # noqa: N803
        **_: Any,
    ) -> dict[str, Any]:
        ctx = self._ctx
        ctx.require_discussions("read")
        rows = ctx.state.all(
            "SELECT * FROM discussions WHERE repo_id = ? AND visible_at <= ? ORDER BY id",
            self.databaseId,
            ctx.now,
        )
        if categoryId is not None:
            decoded = decode_node_id(categoryId)
            cat = decoded.payload[-1] if decoded else None
            rows = [r for r in rows if r["category_id"] == cat]
        # GitHub's schema: orderBy defaults to {field: UPDATED_AT, direction: DESC}
        order = orderBy or {"field": "UPDATED_AT", "direction": "DESC"}
        key = "created_at" if order.get("field") == "CREATED_AT" else "updated_at"
        descending = order.get("direction", "DESC") == "DESC"
        rows.sort(key=lambda r: (r[key], r["id"]), reverse=descending)
        return paginate(
            [(i, Discussion(ctx, r)) for i, r in enumerate(rows)], first, after, last, before, info
        )

    def discussionCategories(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        rows = self._ctx.state.all(
            "SELECT * FROM categories WHERE repo_id = ? ORDER BY id", self.databaseId
        )
        return paginate(
            [(int(r["id"]), DiscussionCategory(self._ctx, r)) for r in rows],
            first,
            after,
            last,
            before,
            info,
        )

    def discussionCategory(self, info: Info, slug: str) -> DiscussionCategory | None:
        row = self._ctx.state.one(
            "SELECT * FROM categories WHERE repo_id = ? AND slug = ?", self.databaseId, slug
        )
        return None if row is None else DiscussionCategory(self._ctx, row)

    def branchProtectionRules(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        """Classic branch protection rules; none for a viewer without admin
        (:func:`.protection.graphql_rules`)."""
        rules = protection.graphql_rules(self._ctx, self.databaseId) \
            if self._ctx.fidelity.branch_protection else []
        return paginate(list(rules), first, after, last, before, info)

    def pullRequest(self, info: Info, number: int) -> PullRequest:
        row = self._ctx.state.one(
            "SELECT * FROM pull_requests WHERE repo_id = ? AND number = ?",
            self.databaseId,
            number,
        )
        if row is None:
            raise ResolverError(
                f"Could not resolve to a PullRequest with the number of {number}.", "NOT_FOUND"
            )
        return PullRequest(self._ctx, row)

    def ref(self, info: Info, qualifiedName: str) -> Ref | None:  # noqa: N803
        return find_ref(self._ctx, self.databaseId, qualifiedName)

    def defaultBranchRef(self, info: Info) -> Ref | None:
        return find_ref(self._ctx, self.databaseId, f"refs/heads/{self._row['default_branch']}")

    def object(
        self, info: Info, oid: str | None = None, expression: str | None = None
    ) -> Commit | Tree | None:
        ctx = self._ctx
        target = oid
        if target is None and expression is not None:
            if expression == "HEAD":
                expression = str(self._row["default_branch"])
            ref = find_ref(ctx, self.databaseId, expression)
            target = ref._oid if ref is not None else expression
        if target is None:
            return None
        return git_object(ctx, self.databaseId, target)


class PullRequest:
    __typename = "PullRequest"

    def __init__(self, ctx: Ctx, row: sqlite3.Row) -> None:
        self._ctx = ctx
        self._row = row
        self._repo_id = int(row["repo_id"])
        self.databaseId = int(row["id"])
        self.id = node_id("PullRequest", self._repo_id, self.databaseId)
        self.number = int(row["number"])
        self.title = row["title"]
        self.body = row["body"]
        self.headRefName = row["head_ref"]
        self.baseRefName = row["base_ref"]
        self.state = row["state"]
        self.merged = row["state"] == "MERGED"
        self.locked = False
        self.activeLockReason = None
        self.createdAt = iso(row["created_at"])
        self.updatedAt = self.createdAt
        self.lastEditedAt = None
        self.includesCreatedEdit = False

    def headRefOid(self, info: Info) -> str:
        ref = self._ctx.state.ref(self._repo_id, f"refs/heads/{self._row['head_ref']}")
        return str(ref["oid"]) if ref is not None else str(self._row["head_oid"])

    def headRef(self, info: Info) -> Ref | None:
        """The head branch in this repository (None once it is deleted; a pull request
        from a fork has its head elsewhere, which the emulator does not model)."""
        return find_ref(self._ctx, self._repo_id, f"refs/heads/{self._row['head_ref']}")

    def baseRefOid(self, info: Info) -> str:
        ref = self._ctx.state.ref(self._repo_id, f"refs/heads/{self._row['base_ref']}")
        return str(ref["oid"]) if ref is not None else str(self._row["base_oid"])

    def repository(self, info: Info) -> Repository:
        return repository(self._ctx, self._repo_id)

    def url(self, info: Info) -> str:
        return f"{self.repository(info).url}/pull/{self.number}"

    def author(self, info: Info) -> Actor | None:
        return actor_or_none(self._ctx, self._row["author_id"])


# ---------------------------------------------------------------- node lookup
def lookup_node(ctx: Ctx, ident: str) -> Any:
    """The object behind a global id, or None (unknown, other repository, not visible)."""
    decoded = decode_node_id(ident)
    if decoded is None:
        return None
    t, p = decoded.typename, decoded.payload
    st = ctx.state
    if t == "Repository" and len(p) == 1 and isinstance(p[0], int):
        row = st.repository(p[0])
        return None if row is None else Repository(ctx, row)
    if t in ("User", "Bot", "Organization") and len(p) == 1 and isinstance(p[0], int):
        row = st.actor(p[0])
        return None if row is None or row["kind"] != t else Actor(ctx, row)
    if len(p) != 2 or not isinstance(p[0], int):
        return None
    repo_id, key = p
    if not isinstance(repo_id, int):
        return None
    if t == "Discussion":
        row = st.one(
            "SELECT * FROM discussions WHERE id = ? AND coalesce(id_repo, repo_id) = ? "
            "AND visible_at <= ?",
            key,
            repo_id,
            ctx.now,
        )
        if row is not None:
            ctx.require_discussions("read")
        return None if row is None else Discussion(ctx, row)
    if t == "DiscussionComment":
        row = st.one(
            "SELECT c.* FROM comments c JOIN discussions d ON d.id = c.discussion_id "
            "WHERE c.id = ? AND coalesce(d.id_repo, d.repo_id) = ? AND c.visible_at <= ?",
            key,
            repo_id,
            ctx.now,
        )
        if row is not None:
            ctx.require_discussions("read")
        return None if row is None else DiscussionComment(ctx, row, repo_id)
    if t == "DiscussionCategory":
        row = st.one("SELECT * FROM categories WHERE id = ? AND repo_id = ?", key, repo_id)
        return None if row is None else DiscussionCategory(ctx, row)
    if t == "PullRequest":
        row = st.one("SELECT * FROM pull_requests WHERE id = ? AND repo_id = ?", key, repo_id)
        return None if row is None else PullRequest(ctx, row)
    if t == "Ref" and isinstance(key, str):
        ref = st.ref(repo_id, key)
        return None if ref is None else Ref(ctx, repo_id, key, str(ref["oid"]))
    if t in ("Commit", "Tree") and isinstance(key, bytes):
        obj = git_object(ctx, repo_id, key.hex())
        return obj if obj is not None and type(obj).__name__ == t else None
    return None


def node_of(ctx: Ctx, ident: str, *types: type) -> Any:
    obj = lookup_node(ctx, ident)
    if obj is None or not isinstance(obj, types):
        raise not_found_node(ident)
    return obj


# ----------------------------------------------------------------- root types
class QueryRoot:
    """``Query``: repository, node, nodes, viewer, rateLimit."""

    id = "Q_"  # Query implements Node in GitHub's schema

    def repository(
        self,
        info: Info,
        owner: str,
        name: str,
        followRenames: bool = True,  # noqa: N803
    ) -> Repository:
        ctx = _ctx(info)
        row = ctx.state.repository_by_name(owner, name, followRenames)
        if row is None or (row["private"] and ctx.token["role"] == "none"):
            raise ResolverError(
                f"Could not resolve to a Repository with the name '{owner}/{name}'.", "NOT_FOUND"
            )
        return Repository(ctx, row)

    def node(self, info: Info, id: str) -> Any:  # noqa: A002
        ctx = _ctx(info)
        obj = lookup_node(ctx, id)
        if obj is None:
            raise not_found_node(id)
        return obj

    def nodes(self, info: Info, ids: list[str]) -> list[Any]:
        ctx = _ctx(info)
        out = []
        for ident in ids:
            obj = lookup_node(ctx, ident)
            if obj is None:
                raise not_found_node(ident)
            out.append(obj)
        return out

    def viewer(self, info: Info) -> Actor:
        ctx = _ctx(info)
        return Actor(ctx, ctx.viewer, as_viewer=True)

    def rateLimit(self, info: Info, dryRun: bool = False) -> dict[str, Any]:  # noqa: N803
        rate = _ctx(info).rate
        return {
            "cost": rate.cost,
            "limit": rate.limit,
            "nodeCount": rate.node_count,
            "remaining": rate.remaining,
            "resetAt": iso(rate.reset_at),
            "used": rate.used,
        }


class MutationRoot(DiscussionMutations, RefMutations):
    """``Mutation``: the discussion, comment, lock and ref mutations ghattempt uses."""


__all__ = ["Commit", "Ctx", "Discussion", "DiscussionCategory", "DiscussionComment",
           "MutationRoot", "QueryRoot", "RateInfo", "Ref", "Repository", "Tree",
           "find_ref", "git_object", "lookup_node", "node_of", "paginate", "repository"]
