"""GraphQL objects over :class:`~ghattempt.emulator.state.State` rows.

Each class is named after the GraphQL type it serves; graphql-core's default field
resolver reads attributes named like the schema's fields and calls methods with the
field's arguments. Rules carried here, with their source:

- comments and replies come oldest first; ``first``/``last`` are checked before
  execution (:mod:`.cost`); replies are one level deep (GitHub Discussions);
- a comment committed under a read-lag fault is invisible until its ``visible_at``;
- authors render as GitHub renders them in GraphQL: the Actions bot is ``Bot``
  ``github-actions`` (databaseId 41898282), an App is its bare slug, people are
  ``User`` (architecture notes, "Storage facts");
- deleting a comment that has replies wipes it (body emptied, ``deletedAt`` set); one
  without replies disappears;
- permissions: ``role`` (none < read < triage < write < maintain < admin) and the
  token's ``discussions``/``contents`` access (none < read < write).
"""

from __future__ import annotations

import base64
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from graphql import GraphQLResolveInfo

from . import git, rulesets
from .errors import GitHubError, forbidden_integration, not_found_node
from .fidelity import Fidelity
from .ids import cursor, decode_cursor, decode_node_id, legacy_node_id, node_id
from .state import ROLES, State, iso

Info: TypeAlias = "GraphQLResolveInfo[Any]"
MAX_BODY = 65_536
CLASSIFIER_REASON = {
    "ABUSE": "abuse",
    "DUPLICATE": "duplicate",
    "OFF_TOPIC": "off-topic",
    "OUTDATED": "outdated",
    "RESOLVED": "resolved",
    "SPAM": "spam",
}
ZERO_OID = "0" * 40
LOCKED = "Unable to create comment because issue is locked."


@dataclass
class RateInfo:
    """The primary GraphQL budget of the requesting token after this request."""

    limit: int
    remaining: int
    used: int
    reset_at: float
    cost: int
    node_count: int


@dataclass
class Ctx:
    """Per-request context handed to every resolver."""

    state: State
    now: float
    token: sqlite3.Row
    viewer: sqlite3.Row
    server_url: str
    rate: RateInfo
    created: list[tuple[str, int]] = field(default_factory=list)
    fidelity: Fidelity = field(default_factory=Fidelity)
    next_ids: bool = False  # the request carried X-Github-Next-Global-ID: 1

    def object_id(self, typename: str, row: sqlite3.Row) -> str:
        """The id of a repository or actor row as this request sees it: the legacy id
        for an object made before the migration, unless the request asked for the new
        format (GitHub docs, "Migrating GraphQL global node IDs")."""
        ident = int(row["id"])
        if row["legacy_node_id"] and self.fidelity.legacy_node_ids and not self.next_ids:
            return legacy_node_id(typename, ident)
        return node_id(typename, ident)

    def refuse_by_ruleset(self, repo_id: int, ref: str, rule: str) -> None:
        """Raise GitHub's ruleset refusal when a ruleset forbids ``rule`` on ``ref``."""
        if not self.fidelity.rulesets:
            return
        sentence = rulesets.broken_rule(self.state, repo_id, ref, rule, str(self.viewer["login"]))
        if sentence is not None:
            raise GitHubError(rulesets.violation_message(sentence), "UNPROCESSABLE")

    @property
    def viewer_is_bot(self) -> bool:
        """An App installation token or the Actions ``GITHUB_TOKEN``."""
        return str(self.viewer["kind"]) == "Bot"

    def role_at_least(self, role: str) -> bool:
        return ROLES.index(str(self.token["role"])) >= ROLES.index(role)

    def require_discussions(self, level: str) -> None:
        have = str(self.token["discussions"])
        if have == "none" or (level == "write" and have != "write"):
            raise forbidden_integration(str(self.viewer["kind"]))

    def require_role(self, role: str, *, unless_author: object = None) -> None:
        """GitHub's rule for moderation: the token's role must be at least ``role``;
        with ``unless_author``, the viewer being that author (a user id) is enough."""
        if unless_author is not None and unless_author == self.viewer["id"]:
            return
        if not self.role_at_least(role):
            raise forbidden_integration(str(self.viewer["kind"]))

    def require_contents(self, level: str) -> None:
        have = str(self.token["contents"])
        if (
            have == "none"
            or (level == "write" and have != "write")
            or not self.role_at_least("write" if level == "write" else "read")
        ):
            raise forbidden_integration(str(self.viewer["kind"]))


def _ctx(info: Info) -> Ctx:
    ctx = info.context
    assert isinstance(ctx, Ctx)
    return ctx


# --------------------------------------------------------------------- paging
MAX_PAGE = 100


def check_page_size(name: str, first: int | None, last: int | None) -> None:
    """GitHub's pagination rule: one of ``first``/``last``, within 1..100.

    Raises:
        GitHubError: with GitHub's ``type`` and wording (the ``first`` > 100 message
            is GitHub's; the others are the emulator's closest rendering).
    """
    if first is None and last is None:
        raise GitHubError(
            f"You must provide a `first` or `last` value to properly paginate the `{name}` "
            "connection.",
            "MISSING_PAGINATION_BOUNDARIES",
        )
    if first is not None and last is not None:
        raise GitHubError(
            f"Passing both `first` and `last` to paginate the `{name}` connection is not "
            "supported.",
            "UNPROCESSABLE",
        )
    arg, size = ("first", first) if first is not None else ("last", last)
    assert size is not None
    if size > MAX_PAGE:
        raise GitHubError(
            f"Requesting {size} records on the `{name}` connection exceeds the `{arg}` limit "
            f"of {MAX_PAGE} records.",
            "EXCESSIVE_PAGINATION",
        )
    if size < 1:
        raise GitHubError(
            f"`{arg}` on the `{name}` connection must be between 1 and {MAX_PAGE}.",
            "EXCESSIVE_PAGINATION",
        )


def paginate(
    items: list[tuple[int, Any]],
    first: int | None,
    after: str | None,
    last: int | None,
    before: str | None,
    info: Info,
) -> dict[str, Any]:
    """A connection over ``(position, node)`` pairs sorted by position.

    GitHub checks page sizes while executing, so a refused connection nulls its
    nearest nullable parent and the rest of the response stands.

    Raises:
        GitHubError: ``first``/``last`` missing, both given, or outside 1..100
            (``MISSING_PAGINATION_BOUNDARIES``, ``EXCESSIVE_PAGINATION``), or
            ``after``/``before`` is not a cursor the emulator made.
    """
    check_page_size(info.field_name, first, last)
    window = items
    for value, keep in ((after, "after"), (before, "before")):
        if value is None:
            continue
        pos = decode_cursor(value)
        if pos is None:
            raise GitHubError(f"`{value}` does not appear to be a valid cursor.")
        if keep == "after":
            window = [it for it in window if it[0] > pos]
        else:
            window = [it for it in window if it[0] < pos]
    page = window
    if first is not None:
        page = page[:first]
    if last is not None:
        page = page[-last:] if last else []
    edges = [{"cursor": cursor(pos), "node": node} for pos, node in page]
    has_next = bool(page) and any(p > page[-1][0] for p, _ in items)
    has_previous = bool(page) and any(p < page[0][0] for p, _ in items)
    return {
        "totalCount": len(items),
        "nodes": [node for _, node in page],
        "edges": edges,
        "pageInfo": {
            "startCursor": edges[0]["cursor"] if edges else None,
            "endCursor": edges[-1]["cursor"] if edges else None,
            "hasNextPage": has_next,
            "hasPreviousPage": has_previous,
        },
    }


# --------------------------------------------------------------------- actors
class Actor:
    """A User, Bot or Organization row rendered as GitHub's GraphQL shows it."""

    def __init__(self, ctx: Ctx, row: sqlite3.Row, as_viewer: bool = False) -> None:
        self._ctx = ctx
        self._row = row
        kind = str(row["kind"])
        self.databaseId = int(row["id"])
        self.login = str(row["login"])
        self.name = row["name"]
        self.id = ctx.object_id(kind, row)  # a bot viewer keeps its BOT_ id
        if as_viewer and kind == "Bot":
            # Query.viewer is typed User: an installation token's viewer is the bot
            # account, whose login carries GitHub's "[bot]" suffix (observed with App
            # installation tokens, e.g. fullsend-ai/fullsend#1953).
            self.login = f"{self.login}[bot]"
            kind = "User"
        self._kind = kind
        base = ctx.server_url
        if kind == "Bot":
            self.resourcePath = f"/apps/{row['login']}"
        else:
            self.resourcePath = f"/{self.login}"
        self.url = f"{base}{self.resourcePath}"

    @property
    def _Actor__typename(self) -> str:  # read by graphql-core's default type resolver
        return self._kind

    def avatarUrl(self, info: Info, size: int | None = None) -> str:
        suffix = f"&s={size}" if size else ""
        return f"https://avatars.githubusercontent.com/u/{self.databaseId}?v=4{suffix}"


def actor_or_none(ctx: Ctx, ident: int | None) -> Actor | None:
    row = ctx.state.actor(ident)
    return None if row is None else Actor(ctx, row)


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
            raise GitHubError(
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
        key = "updated_at" if orderBy and orderBy.get("field") == "UPDATED_AT" else "created_at"
        descending = not orderBy or orderBy.get("direction", "DESC") == "DESC"
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

    def pullRequest(self, info: Info, number: int) -> PullRequest:
        row = self._ctx.state.one(
            "SELECT * FROM pull_requests WHERE repo_id = ? AND number = ?",
            self.databaseId,
            number,
        )
        if row is None:
            raise GitHubError(
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


def find_ref(ctx: Ctx, repo_id: int, name: str) -> Ref | None:
    candidates = [name] if name.startswith("refs/") else [f"refs/heads/{name}", f"refs/tags/{name}"]
    for candidate in candidates:
        row = ctx.state.ref(repo_id, candidate)
        if row is not None:
            return Ref(ctx, repo_id, candidate, str(row["oid"]))
    return None


def git_object(ctx: Ctx, repo_id: int, oid: str) -> Commit | Tree | None:
    row = ctx.state.commit(repo_id, oid)
    if row is not None:
        return Commit(ctx, repo_id, row)
    if ctx.state.tree(repo_id, oid) is not None:
        return Tree(ctx, repo_id, oid)
    return None


class DiscussionCategory:
    __typename = "DiscussionCategory"

    def __init__(self, ctx: Ctx, row: sqlite3.Row) -> None:
        self._ctx = ctx
        self._repo_id = int(row["repo_id"])
        self.id = node_id("DiscussionCategory", self._repo_id, int(row["id"]))
        self.name = row["name"]
        self.slug = row["slug"]
        self.emoji = row["emoji"]
        self.description = row["description"]
        self.isAnswerable = bool(row["is_answerable"])
        self.createdAt = iso(row["created_at"])
        self.updatedAt = self.createdAt

    def repository(self, info: Info) -> Repository:
        return repository(self._ctx, self._repo_id)

    def headRepository(self, info: Info) -> Repository:
        # Pull requests of the emulator come from branches of the same repository.
        return repository(self._ctx, self._repo_id)


def repository(ctx: Ctx, repo_id: int) -> Repository:
    row = ctx.state.repository(repo_id)
    assert row is not None
    return Repository(ctx, row)


# ---------------------------------------------------------------- discussions
class Discussion:
    __typename = "Discussion"

    def __init__(self, ctx: Ctx, row: sqlite3.Row) -> None:
        self._ctx = ctx
        self._row = row
        self._repo_id = int(row["repo_id"])
        # the repository the node id was minted in (it stays when a discussion moves)
        self._id_repo = int(row["id_repo"] if row["id_repo"] is not None else row["repo_id"])
        self.databaseId = int(row["id"])
        self.id = node_id("Discussion", self._id_repo, self.databaseId)
        self.number = int(row["number"])
        self.title = row["title"]
        self.body = row["body"]
        self.locked = bool(row["locked"])
        self.activeLockReason = row["lock_reason"]
        self.createdAt = iso(row["created_at"])
        self.updatedAt = iso(row["updated_at"])
        self.lastEditedAt = iso(row["last_edited_at"])
        self.includesCreatedEdit = bool(row["includes_created_edit"])

    def _repo(self) -> Repository:
        return repository(self._ctx, self._repo_id)

    def url(self, info: Info) -> str:
        return f"{self._repo().url}/discussions/{self.number}"

    def resourcePath(self, info: Info) -> str:
        return f"/{self._repo().nameWithOwner}/discussions/{self.number}"

    def repository(self, info: Info) -> Repository:
        return self._repo()

    def author(self, info: Info) -> Actor | None:
        return actor_or_none(self._ctx, self._row["author_id"])

    def category(self, info: Info) -> DiscussionCategory:
        row = self._ctx.state.one("SELECT * FROM categories WHERE id = ?", self._row["category_id"])
        assert row is not None
        return DiscussionCategory(self._ctx, row)

    def comments(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        rows = self._ctx.state.all(
            "SELECT * FROM comments WHERE discussion_id = ? AND reply_to IS NULL "
            "AND visible_at <= ? ORDER BY id",
            self.databaseId,
            self._ctx.now,
        )
        return paginate(
            [(int(r["id"]), DiscussionComment(self._ctx, r, self._id_repo)) for r in rows],
            first,
            after,
            last,
            before,
            info,
        )


class DiscussionComment:
    __typename = "DiscussionComment"

    def __init__(self, ctx: Ctx, row: sqlite3.Row, repo_id: int) -> None:
        self._ctx = ctx
        self._row = row
        self._repo_id = repo_id
        self.databaseId = int(row["id"])
        self.id = node_id("DiscussionComment", repo_id, self.databaseId)
        self.body = row["body"]
        self.createdAt = iso(row["created_at"])
        self.updatedAt = iso(row["updated_at"])
        self.lastEditedAt = iso(row["last_edited_at"])
        self.includesCreatedEdit = bool(row["includes_created_edit"])
        self.isMinimized = bool(row["is_minimized"])
        self.minimizedReason = row["minimized_reason"]
        self.deletedAt = iso(row["deleted_at"])

    def _discussion_row(self) -> sqlite3.Row:
        row = self._ctx.state.one(
            "SELECT * FROM discussions WHERE id = ?", self._row["discussion_id"]
        )
        assert row is not None
        return row

    def discussion(self, info: Info) -> Discussion:
        return Discussion(self._ctx, self._discussion_row())

    def url(self, info: Info) -> str:
        d = Discussion(self._ctx, self._discussion_row())
        return f"{d.url(info)}#discussioncomment-{self.databaseId}"

    def resourcePath(self, info: Info) -> str:
        d = Discussion(self._ctx, self._discussion_row())
        return f"{d.resourcePath(info)}#discussioncomment-{self.databaseId}"

    def author(self, info: Info) -> Actor | None:
        return actor_or_none(self._ctx, self._row["author_id"])

    def replyTo(self, info: Info) -> DiscussionComment | None:
        parent = self._row["reply_to"]
        if parent is None:
            return None
        row = self._ctx.state.one("SELECT * FROM comments WHERE id = ?", parent)
        return None if row is None else DiscussionComment(self._ctx, row, self._repo_id)

    def replies(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        rows = self._ctx.state.all(
            "SELECT * FROM comments WHERE reply_to = ? AND visible_at <= ? ORDER BY id",
            self.databaseId,
            self._ctx.now,
        )
        return paginate(
            [(int(r["id"]), DiscussionComment(self._ctx, r, self._repo_id)) for r in rows],
            first,
            after,
            last,
            before,
            info,
        )


# ------------------------------------------------------------------------ git
class Ref:
    __typename = "Ref"

    def __init__(self, ctx: Ctx, repo_id: int, qualified: str, oid: str) -> None:
        self._ctx = ctx
        self._repo_id = repo_id
        self._qualified = qualified
        self._oid = oid
        self.id = node_id("Ref", repo_id, qualified)
        parts = qualified.split("/")
        if qualified.startswith(("refs/heads/", "refs/tags/")) or len(parts) > 2:
            self.prefix = "/".join(parts[:2]) + "/"
            self.name = "/".join(parts[2:])
        else:
            self.prefix = "refs/"
            self.name = "/".join(parts[1:])

    def repository(self, info: Info) -> Repository:
        return repository(self._ctx, self._repo_id)

    def target(self, info: Info) -> Commit | Tree | None:
        return git_object(self._ctx, self._repo_id, self._oid)


class _GitObject:
    def __init__(self, ctx: Ctx, repo_id: int, oid: str) -> None:
        self._ctx = ctx
        self._repo_id = repo_id
        self.oid = oid
        self.abbreviatedOid = oid[:7]

    def repository(self, info: Info) -> Repository:
        return repository(self._ctx, self._repo_id)

    def commitResourcePath(self, info: Info) -> str:
        return f"/{self.repository(info).nameWithOwner}/commit/{self.oid}"

    def commitUrl(self, info: Info) -> str:
        return f"{self._ctx.server_url}{self.commitResourcePath(info)}"


class Tree(_GitObject):
    __typename = "Tree"

    def __init__(self, ctx: Ctx, repo_id: int, oid: str) -> None:
        super().__init__(ctx, repo_id, oid)
        self.id = node_id("Tree", repo_id, bytes.fromhex(oid))


class Commit(_GitObject):
    __typename = "Commit"

    def __init__(self, ctx: Ctx, repo_id: int, row: sqlite3.Row) -> None:
        super().__init__(ctx, repo_id, str(row["oid"]))
        self._row = row
        self.id = node_id("Commit", repo_id, bytes.fromhex(self.oid))
        self.message = row["message"]
        self.messageHeadline = str(row["message"]).split("\n", 1)[0]
        committer = json.loads(row["committer"])
        self.committedDate = iso(float(committer[2]))

    def url(self, info: Info) -> str:
        return self.commitUrl(info)

    def resourcePath(self, info: Info) -> str:
        return self.commitResourcePath(info)

    def tree(self, info: Info) -> Tree:
        return Tree(self._ctx, self._repo_id, str(self._row["tree"]))

    def parents(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        items: list[tuple[int, Any]] = []
        for i, oid in enumerate(json.loads(self._row["parents"])):
            obj = git_object(self._ctx, self._repo_id, oid)
            if isinstance(obj, Commit):
                items.append((i, obj))
        return paginate(items, first, after, last, before, info)


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


def _comment_payload(ctx: Ctx, input: dict[str, Any], comment_id: int,  # noqa: A002
                     repo_id: int, key: str = "comment") -> dict[str, Any]:
    """A comment mutation's payload: ``clientMutationId`` and the comment as stored now."""
    row = ctx.state.one("SELECT * FROM comments WHERE id = ?", comment_id)
    assert row is not None
    return {"clientMutationId": input.get("clientMutationId"),
            key: DiscussionComment(ctx, row, repo_id)}


def _node_of(ctx: Ctx, ident: str, *types: type) -> Any:
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
            raise GitHubError(
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


def _check_body(body: str) -> None:
    if not body.strip():
        raise GitHubError("Body can't be blank", "UNPROCESSABLE")
    if len(body) > MAX_BODY:
        raise GitHubError(f"Body is too long (maximum is {MAX_BODY} characters)", "UNPROCESSABLE")


def _actor_signature(ctx: Ctx) -> tuple[str, str, int]:
    login = str(ctx.viewer["login"])
    ident = int(ctx.viewer["id"])
    if ctx.viewer["kind"] == "Bot":
        login = f"{login}[bot]"
    return (login, f"{ident}+{login}@users.noreply.github.com", int(ctx.now))


class MutationRoot:
    """``Mutation``: the discussion, comment, lock and ref mutations ghattempt uses."""

    # ------------------------------------------------------------ discussions
    def createDiscussion(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        ctx = _ctx(info)
        repo = _node_of(ctx, input["repositoryId"], Repository)
        ctx.require_discussions("write")
        if not repo.hasDiscussionsEnabled:
            raise GitHubError("Repository does not have discussions enabled.", "UNPROCESSABLE")
        cat = _node_of(ctx, input["categoryId"], DiscussionCategory)
        if cat._repo_id != repo.databaseId:
            raise not_found_node(input["categoryId"])
        if not input["title"].strip():
            raise GitHubError("Title can't be blank", "UNPROCESSABLE")
        _check_body(input["body"])
        st = ctx.state
        with st.transaction() as db:
            ident = st.next_id()
            number = st.take_number(repo.databaseId)
            decoded = decode_node_id(cat.id)
            assert decoded is not None
            db.execute(
                "INSERT INTO discussions (id, repo_id, number, category_id, title, body, "
                "author_id, created_at, updated_at, visible_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    ident,
                    repo.databaseId,
                    number,
                    decoded.payload[-1],
                    input["title"],
                    input["body"],
                    ctx.viewer["id"],
                    ctx.now,
                    ctx.now,
                    ctx.now,
                ),
            )
        ctx.created.append(("Discussion", ident))
        row = st.one("SELECT * FROM discussions WHERE id = ?", ident)
        assert row is not None
        return {
            "clientMutationId": input.get("clientMutationId"),
            "discussion": Discussion(ctx, row),
        }

    def lockLockable(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        return self._lock(info, input, True)

    def unlockLockable(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        return self._lock(info, input, False)

    def _lock(self, info: Info, input: dict[str, Any], lock: bool) -> dict[str, Any]:  # noqa: A002
        ctx = _ctx(info)
        target = _node_of(ctx, input["lockableId"], Discussion, PullRequest)
        ctx.require_role("triage")
        if isinstance(target, Discussion):
            ctx.require_discussions("write")
            with ctx.state.transaction() as db:
                db.execute(
                    "UPDATE discussions SET locked = ?, lock_reason = ? WHERE id = ?",
                    (int(lock), input.get("lockReason") if lock else None, target.databaseId),
                )
            row = ctx.state.one("SELECT * FROM discussions WHERE id = ?", target.databaseId)
            assert row is not None
            target = Discussion(ctx, row)
        else:
            raise GitHubError("Locking pull requests is not emulated.", "UNPROCESSABLE")
        key = "lockedRecord" if lock else "unlockedRecord"
        return {
            "clientMutationId": input.get("clientMutationId"),
            key: target,
            "actor": Actor(ctx, ctx.viewer),
        }

    # --------------------------------------------------------------- comments
    def addDiscussionComment(
        self,
        info: Info,
        input: dict[str, Any],  # noqa: A002
    ) -> dict[str, Any]:
        ctx = _ctx(info)
        discussion = _node_of(ctx, input["discussionId"], Discussion)
        ctx.require_discussions("write")
        if discussion.locked and (
            not ctx.role_at_least("write")
            or (ctx.fidelity.locked_conversations and ctx.viewer_is_bot)
        ):
            # GitHub refuses bots on locked conversations whatever their permissions
            # (probot/stale#25, renovatebot/renovate#6215, open-telemetry/
            # opentelemetry-dotnet#6554); people need write access
            raise GitHubError(LOCKED, "FORBIDDEN")
        _check_body(input["body"])
        reply_to: int | None = None
        if input.get("replyToId") is not None:
            parent = _node_of(ctx, input["replyToId"], DiscussionComment)
            if parent._row["discussion_id"] != discussion.databaseId:
                raise GitHubError(
                    "The comment being replied to does not belong to this discussion.",
                    "UNPROCESSABLE",
                )
            # Discussions thread one level deep: GitHub refuses a reply to a reply
            # (github/accessibility-alt-text-bot#17 quotes the message).
            if parent._row["reply_to"] is not None:
                raise GitHubError(
                    "Parent comment is already in a thread, cannot reply to it", "UNPROCESSABLE"
                )
            reply_to = parent.databaseId
        st = ctx.state
        with st.transaction() as db:
            ident = st.next_id()
            db.execute(
                "INSERT INTO comments (id, discussion_id, reply_to, body, author_id, "
                "created_at, updated_at, visible_at) VALUES (?,?,?,?,?,?,?,?)",
                (
                    ident,
                    discussion.databaseId,
                    reply_to,
                    input["body"],
                    ctx.viewer["id"],
                    ctx.now,
                    ctx.now,
                    ctx.now,
                ),
            )
        ctx.created.append(("DiscussionComment", ident))
        return _comment_payload(ctx, input, ident, discussion._id_repo)

    def updateDiscussionComment(
        self,
        info: Info,
        input: dict[str, Any],  # noqa: A002
    ) -> dict[str, Any]:
        ctx = _ctx(info)
        comment = _node_of(ctx, input["commentId"], DiscussionComment)
        ctx.require_discussions("write")
        ctx.require_role("write", unless_author=comment._row["author_id"])
        _check_body(input["body"])
        edit_comment(ctx.state, comment.databaseId, input["body"], ctx.now)
        return _comment_payload(ctx, input, comment.databaseId, comment._repo_id)

    def deleteDiscussionComment(
        self,
        info: Info,
        input: dict[str, Any],  # noqa: A002
    ) -> dict[str, Any]:
        ctx = _ctx(info)
        comment = _node_of(ctx, input["id"], DiscussionComment)
        ctx.require_discussions("write")
        ctx.require_role("write", unless_author=comment._row["author_id"])
        row = delete_comment(ctx.state, comment.databaseId, ctx.now)
        return {
            "clientMutationId": input.get("clientMutationId"),
            "comment": None if row is None else DiscussionComment(ctx, row, comment._repo_id),
        }

    def minimizeComment(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        return self._minimize(info, input, True)

    def unminimizeComment(
        self,
        info: Info,
        input: dict[str, Any],  # noqa: A002
    ) -> dict[str, Any]:
        return self._minimize(info, input, False)

    def _minimize(
        self,
        info: Info,
        input: dict[str, Any],
        hide: bool,  # noqa: A002
    ) -> dict[str, Any]:
        ctx = _ctx(info)
        comment = _node_of(ctx, input["subjectId"], DiscussionComment)
        ctx.require_role("triage")
        reason = CLASSIFIER_REASON[input["classifier"]] if hide else None
        minimize_comment(ctx.state, comment.databaseId, reason, hide)
        return _comment_payload(ctx, input, comment.databaseId, comment._repo_id,
                                "minimizedComment" if hide else "unminimizedComment")

    # ------------------------------------------------------------------- refs
    def createRef(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        ctx = _ctx(info)
        repo = _node_of(ctx, input["repositoryId"], Repository)
        ctx.require_contents("write")
        name = input["name"]
        if not name.startswith("refs/") or name.count("/") < 2 or name.endswith("/"):
            raise GitHubError(
                f"Reference name '{name}' is not fully qualified (refs/...).", "UNPROCESSABLE"
            )
        if ctx.state.commit(repo.databaseId, input["oid"]) is None:
            raise GitHubError(f"Object '{input['oid']}' does not exist.", "UNPROCESSABLE")
        ctx.refuse_by_ruleset(repo.databaseId, name, "creation")
        with ctx.state.transaction():
            if ctx.state.ref(repo.databaseId, name) is not None:
                raise GitHubError(
                    f'A ref named "{name}" already exists in the repository.', "UNPROCESSABLE"
                )
            ctx.state.set_ref(repo.databaseId, name, input["oid"])
        return {
            "clientMutationId": input.get("clientMutationId"),
            "ref": Ref(ctx, repo.databaseId, name, input["oid"]),
        }

    def updateRefs(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        """All updates apply or none does; ``beforeOid`` is compare-and-set (zero oid:
        the ref must not exist), a zero ``afterOid`` deletes, and without ``force`` the
        new target must descend from the current one."""
        ctx = _ctx(info)
        repo = _node_of(ctx, input["repositoryId"], Repository)
        ctx.require_contents("write")
        st = ctx.state
        with st.transaction():
            plan: list[tuple[str, str | None]] = []
            for upd in input["refUpdates"]:
                name, after = upd["name"], upd["afterOid"]
                before = upd.get("beforeOid")
                current_row = st.ref(repo.databaseId, name)
                current = None if current_row is None else str(current_row["oid"])
                if before is not None:
                    expected = None if before == ZERO_OID else before
                    if current != expected:
                        raise GitHubError(
                            f"Could not update {name}: expected it at {before}, "
                            f"found {current or ZERO_OID}."
                        )
                if after == ZERO_OID:
                    if current is None:
                        raise GitHubError(f"Could not delete {name}: it does not exist.")
                    ctx.refuse_by_ruleset(repo.databaseId, name, "deletion")
                    plan.append((name, None))
                    continue
                ctx.refuse_by_ruleset(repo.databaseId, name,
                                      "creation" if current is None else "update")
                if st.commit(repo.databaseId, after) is None:
                    raise GitHubError(f"Could not update {name}: object {after} does not exist.")
                if (
                    current is not None
                    and not upd.get("force")
                    and not st.is_ancestor(repo.databaseId, current, after)
                ):
                    raise GitHubError(f"Could not update {name}: update is not a fast forward.")
                if (current is not None and upd.get("force")
                        and not st.is_ancestor(repo.databaseId, current, after)):
                    ctx.refuse_by_ruleset(repo.databaseId, name, "non_fast_forward")
                plan.append((name, after))
            for name, target in plan:
                st.set_ref(repo.databaseId, name, target)
        return {"clientMutationId": input.get("clientMutationId")}

    def deleteRef(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        ctx = _ctx(info)
        ref = _node_of(ctx, input["refId"], Ref)
        ctx.require_contents("write")
        ctx.refuse_by_ruleset(ref._repo_id, ref._qualified, "deletion")
        ctx.state.set_ref(ref._repo_id, ref._qualified, None)
        return {"clientMutationId": input.get("clientMutationId")}

    def createCommitOnBranch(
        self,
        info: Info,
        input: dict[str, Any],  # noqa: A002
    ) -> dict[str, Any]:
        ctx = _ctx(info)
        branch = input["branch"]
        st = ctx.state
        if branch.get("id"):
            ref = _node_of(ctx, branch["id"], Ref)
            repo_id, qualified = ref._repo_id, ref._qualified
        else:
            nwo = branch.get("repositoryNameWithOwner") or ""
            owner, _, name = nwo.partition("/")
            row = st.repository_by_name(owner, name)
            if row is None or not branch.get("branchName"):
                raise GitHubError(
                    "A branch needs either an id or repositoryNameWithOwner and branchName.",
                    "UNPROCESSABLE",
                )
            repo_id = int(row["id"])
            bn = str(branch["branchName"])
            qualified = bn if bn.startswith("refs/heads/") else f"refs/heads/{bn}"
        ctx.require_contents("write")
        with st.transaction():
            head = st.ref(repo_id, qualified)
            if head is None:
                raise GitHubError(f"Branch {qualified} does not exist.", "NOT_FOUND")
            expected = input["expectedHeadOid"]
            ctx.refuse_by_ruleset(repo_id, qualified, "update")
            if str(head["oid"]) != expected:
                raise GitHubError(
                    f'Expected branch to point to "{expected}" but it did not. Pull and try again.'
                )
            parent = st.commit(repo_id, str(head["oid"]))
            assert parent is not None
            tree_row = st.tree(repo_id, str(parent["tree"]))
            files: dict[str, str] = json.loads(tree_row["files"]) if tree_row else {}
            changes = input.get("fileChanges") or {}
            for deletion in changes.get("deletions") or []:
                if deletion["path"] not in files:
                    raise GitHubError(
                        f"A path was requested for deletion which does not exist as of "
                        f"commit oid `{expected}`",
                        "UNPROCESSABLE",
                    )
                del files[deletion["path"]]
            for addition in changes.get("additions") or []:
                try:
                    base64.b64decode(addition["contents"], validate=True)
                    git.tree_entries({addition["path"]: b""})
                except ValueError as exc:
                    raise GitHubError(str(exc), "UNPROCESSABLE") from exc
                files[addition["path"]] = addition["contents"]
            tree = st.add_tree(repo_id, files)
            msg = input["message"]
            message = msg["headline"] + (f"\n\n{msg['body']}" if msg.get("body") else "")
            sig = _actor_signature(ctx)
            oid = st.add_commit(repo_id, tree, [str(head["oid"])], message, sig, sig)
            st.set_ref(repo_id, qualified, oid)
        commit_row = st.commit(repo_id, oid)
        assert commit_row is not None
        return {
            "clientMutationId": input.get("clientMutationId"),
            "commit": Commit(ctx, repo_id, commit_row),
            "ref": Ref(ctx, repo_id, qualified, oid),
        }


# ------------------------------------------------------- shared write helpers
def edit_comment(state: State, comment_id: int, body: str, now: float) -> None:
    """Edit a comment's body: ``lastEditedAt`` set, ``includesCreatedEdit`` true."""
    with state.transaction() as db:
        db.execute(
            "UPDATE comments SET body = ?, last_edited_at = ?, updated_at = ?, "
            "includes_created_edit = 1 WHERE id = ?",
            (body, now, now, comment_id),
        )


def delete_comment(state: State, comment_id: int, now: float) -> sqlite3.Row | None:
    """Delete a comment: wiped (body emptied, ``deletedAt`` set) when it has replies,
    removed otherwise. Returns the wiped row, or None when removed."""
    with state.transaction() as db:
        replies = db.execute(
            "SELECT COUNT(*) FROM comments WHERE reply_to = ?", (comment_id,)
        ).fetchone()[0]
        if replies:
            db.execute(
                "UPDATE comments SET body = '', deleted_at = ?, updated_at = ? WHERE id = ?",
                (now, now, comment_id),
            )
            row: sqlite3.Row | None = db.execute(
                "SELECT * FROM comments WHERE id = ?", (comment_id,)
            ).fetchone()
            return row
        db.execute("DELETE FROM comments WHERE id = ?", (comment_id,))
        return None


def minimize_comment(state: State, comment_id: int, reason: str | None, hide: bool) -> None:
    with state.transaction() as db:
        db.execute(
            "UPDATE comments SET is_minimized = ?, minimized_reason = ? WHERE id = ?",
            (int(hide), reason, comment_id),
        )
