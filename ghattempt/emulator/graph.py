"""The base of the GraphQL objects: the per-request context, connections (paging) and
actors, as GitHub's GraphQL shows them.

- comments and replies come oldest first; ``first``/``last`` must be 1..100, checked
  while executing (GitHub docs, "Rate limits and node limits for the GraphQL API");
- authors render as GitHub renders them in GraphQL: the Actions bot is ``Bot``
  ``github-actions`` (databaseId 41898282 on github.com), an App is its bare slug,
  people are ``User``;
- permissions: ``role`` (none < read < triage < write < maintain < admin) and the
  token's ``discussions``/``contents`` access (none < read < write).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from graphql import GraphQLResolveInfo

from . import refpolicy
from .errors import ResolverError, forbidden_integration
from .fidelity import Fidelity
from .ids import cursor, decode_cursor, legacy_node_id, node_id
from .state import ROLES, State

if TYPE_CHECKING:
    from .resolvers import Repository

Info: TypeAlias = "GraphQLResolveInfo[Any]"


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
    passing: refpolicy.Passing | None = None  # check runs that passed on a commit
    comment_cap: int = 2500  # comments and replies one discussion takes
    refs_changed: list[tuple[int, str, str]] = field(default_factory=list)  # create/delete

    def object_id(self, typename: str, row: sqlite3.Row) -> str:
        """The id of a repository or actor row as this request sees it: the legacy id
        for an object made before the migration, unless the request asked for the new
        format (GitHub docs, "Migrating GraphQL global node IDs")."""
        ident = int(row["id"])
        if row["legacy_node_id"] and self.fidelity.legacy_node_ids and not self.next_ids:
            return legacy_node_id(typename, ident)
        return node_id(typename, ident)

    def refuse_ref_write(self, repo_id: int, ref: str, action: str, *,
                         after: str | None = None, force: bool = False) -> None:
        """Raise GitHub's refusal when a ruleset or branch protection forbids writing
        ``ref`` (``action``: creation, update, deletion) to ``after``
        (:mod:`.refpolicy`)."""
        refusal = refpolicy.check(self.state, self.fidelity, repo_id, ref, action,
                                  self.viewer, str(self.token["role"]), after=after,
                                  force=force, passing=self.passing)
        if refusal is not None:
            raise refusal.graphql()

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
        ResolverError: with GitHub's ``type`` and wording (the ``first`` > 100 message
            is GitHub's; the others are the emulator's closest rendering).
    """
    if first is None and last is None:
        raise ResolverError(
            f"You must provide a `first` or `last` value to properly paginate the `{name}` "
            "connection.",
            "MISSING_PAGINATION_BOUNDARIES",
        )
    if first is not None and last is not None:
        raise ResolverError(
            f"Passing both `first` and `last` to paginate the `{name}` connection is not "
            "supported.",
            "UNPROCESSABLE",
        )
    arg, size = ("first", first) if first is not None else ("last", last)
    assert size is not None
    if size > MAX_PAGE:
        raise ResolverError(
            f"Requesting {size} records on the `{name}` connection exceeds the `{arg}` limit "
            f"of {MAX_PAGE} records.",
            "EXCESSIVE_PAGINATION",
        )
    if size < 1:
        raise ResolverError(
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
        ResolverError: ``first``/``last`` missing, both given, or outside 1..100
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
            raise ResolverError(f"`{value}` does not appear to be a valid cursor.")
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


def repository(ctx: Ctx, repo_id: int) -> Repository:
    """The repository with this databaseId (it exists: rows refer to it)."""
    from .resolvers import Repository  # the GraphQL types refer to each other

    row = ctx.state.repository(repo_id)
    assert row is not None
    return Repository(ctx, row)

