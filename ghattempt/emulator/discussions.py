"""GitHub Discussions: discussions, categories, comments and one level of replies, and
the mutations on them (create, comment, reply, edit, delete, minimize, lock).

Rules carried here, with their source (docs/emulator.md lists them all):

- comments and replies come oldest first; a reply to a reply is refused
  (github/accessibility-alt-text-bot#17 quotes the message);
- a comment committed under read lag is invisible until its ``visible_at``;
- deleting a comment that has replies wipes it (body emptied, ``deletedAt`` set); one
  without replies disappears;
- a locked discussion refuses comments by bots, and by people without write access
  (probot/stale#25, renovatebot/renovate#6215, open-telemetry/opentelemetry-dotnet#6554);
  hiding and deleting comments in it need write access too, the author's own included
  (GitHub docs, "Locking conversations");
- a discussion holding as many comments and replies as the cap (2,500) refuses one more
  (``FORBIDDEN``, the sentence GitHub answers for issues: digitaldrywood/detent#1540);
- in an announcement category only maintainers and admins start discussions (GitHub
  docs, "Managing categories for discussions").
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from .errors import ResolverError, forbidden_integration, not_found_node
from .graph import Actor, Ctx, Info, _ctx, actor_or_none, paginate, repository
from .ids import decode_node_id, node_id
from .state import State, iso

if TYPE_CHECKING:
    from .resolvers import Repository

MAX_BODY = 65_536


CLASSIFIER_REASON = {
    "ABUSE": "abuse",
    "DUPLICATE": "duplicate",
    "OFF_TOPIC": "off-topic",
    "OUTDATED": "outdated",
    "RESOLVED": "resolved",
    "SPAM": "spam",
}


FULL = "Commenting is disabled on issues with more than {cap} comments"
"""GitHub's refusal of a comment on an issue past the cap (REST 403, quoted in
digitaldrywood/detent#1540 and galaxyproject/training-material#4729); nothing public
shows the discussions' answer, so the emulator sends this sentence with ``FORBIDDEN``."""

LOCKED = "Unable to create comment because issue is locked"
"""GitHub's GraphQL refusal of a comment on a locked conversation (``addComment``, as
open-telemetry/opentelemetry-dotnet#6554 quotes it; the REST 403 ends with a period)."""


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
            [(_position(self._ctx, r), DiscussionComment(self._ctx, r, self._id_repo))
             for r in _ordered(self._ctx, rows)],
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

    def discussion_locked(self) -> bool:
        """Whether the comment's discussion is locked (hiding and deleting then need
        write access)."""
        return bool(self._discussion_row()["locked"])

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
            [(_position(self._ctx, r), DiscussionComment(self._ctx, r, self._repo_id))
             for r in _ordered(self._ctx, rows)],
            first,
            after,
            last,
            before,
            info,
        )


_NEWEST_FIRST = 10**15


def _ordered(ctx: Ctx, rows: list[sqlite3.Row]) -> list[sqlite3.Row]:
    """Oldest first, as GitHub serves comments and replies; newest first while the
    ``replies_oldest_first`` switch is off (a misbehaving GitHub for a probe)."""
    return rows if ctx.fidelity.replies_oldest_first else rows[::-1]


def _position(ctx: Ctx, row: sqlite3.Row) -> int:
    """A comment's place in its connection (cursors encode it): its id, or, newest
    first, a number that grows as ids fall."""
    ident = int(row["id"])
    return ident if ctx.fidelity.replies_oldest_first else _NEWEST_FIRST - ident


def _comment_payload(ctx: Ctx, input: dict[str, Any], comment_id: int,  # noqa: A002
                     repo_id: int, key: str = "comment") -> dict[str, Any]:
    """A comment mutation's payload: ``clientMutationId`` and the comment as stored now."""
    row = ctx.state.one("SELECT * FROM comments WHERE id = ?", comment_id)
    assert row is not None
    return {"clientMutationId": input.get("clientMutationId"),
            key: DiscussionComment(ctx, row, repo_id)}


def _check_body(body: str) -> None:
    if not body.strip():
        raise ResolverError("Body can't be blank", "UNPROCESSABLE")
    if len(body) > MAX_BODY:
        raise ResolverError(f"Body is too long (maximum is {MAX_BODY} characters)", "UNPROCESSABLE")


class DiscussionMutations:
    """The ``Mutation`` fields of Discussions (mixed into ``MutationRoot``)."""

    def createDiscussion(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        ctx = _ctx(info)
        repo = resolvers.node_of(ctx, input["repositoryId"], resolvers.Repository)
        ctx.require_discussions("write")
        if not repo.hasDiscussionsEnabled:
            raise ResolverError("Repository does not have discussions enabled.", "UNPROCESSABLE")
        cat = resolvers.node_of(ctx, input["categoryId"], DiscussionCategory)
        if cat._repo_id != repo.databaseId:
            raise not_found_node(input["categoryId"])
        fmt = ctx.state.one("SELECT format FROM categories WHERE id = ?",
                            decode_node_id(cat.id).payload[-1])  # type: ignore[union-attr]
        if fmt is not None and fmt["format"] == "announcement" and not ctx.role_at_least(
                "maintain"):
            # GitHub docs, "Managing categories for discussions": in an announcement
            # category "only maintainers and admins can create new discussions"
            raise forbidden_integration(str(ctx.viewer["kind"]))
        if not input["title"].strip():
            raise ResolverError("Title can't be blank", "UNPROCESSABLE")
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

    def deleteDiscussion(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        """Delete a discussion and every comment and reply in it: triage access and
        Discussions write (GitHub's GraphQL reference, "Discussions": ``deleteDiscussion``;
        GitHub docs, "Moderating discussions": people with triage access moderate, and
        deleting discussions is moderation)."""
        ctx = _ctx(info)
        discussion = resolvers.node_of(ctx, input["id"], Discussion)
        ctx.require_discussions("write")
        ctx.require_role("triage")
        row = discussion._row
        with ctx.state.transaction() as db:
            db.execute("DELETE FROM comments WHERE discussion_id = ?", (row["id"],))
            db.execute("DELETE FROM discussions WHERE id = ?", (row["id"],))
        return {"clientMutationId": input.get("clientMutationId"), "discussion": discussion}

    def lockLockable(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        return self._lock(info, input, True)

    def unlockLockable(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        return self._lock(info, input, False)

    def _lock(self, info: Info, input: dict[str, Any], lock: bool) -> dict[str, Any]:  # noqa: A002
        ctx = _ctx(info)
        target = resolvers.node_of(ctx, input["lockableId"], Discussion, resolvers.PullRequest)
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
            raise ResolverError("Locking pull requests is not emulated.", "UNPROCESSABLE")
        key = "lockedRecord" if lock else "unlockedRecord"
        return {
            "clientMutationId": input.get("clientMutationId"),
            key: target,
            "actor": Actor(ctx, ctx.viewer),
        }

    def addDiscussionComment(
        self,
        info: Info,
        input: dict[str, Any],  # noqa: A002
    ) -> dict[str, Any]:
        ctx = _ctx(info)
        discussion = resolvers.node_of(ctx, input["discussionId"], Discussion)
        ctx.require_discussions("write")
        if discussion.locked and (
            not ctx.role_at_least("write")
            or (ctx.fidelity.locked_conversations and ctx.viewer_is_bot)
        ):
            # GitHub refuses bots on locked conversations whatever their permissions
            # (probot/stale#25, renovatebot/renovate#6215, open-telemetry/
            # opentelemetry-dotnet#6554); people need write access
            raise ResolverError(LOCKED, "FORBIDDEN")
        _check_body(input["body"])
        held = ctx.state.one("SELECT COUNT(*) AS n FROM comments WHERE discussion_id = ?",
                             discussion.databaseId)
        if held is not None and int(held["n"]) >= ctx.comment_cap:
            raise ResolverError(FULL.format(cap=ctx.comment_cap), "FORBIDDEN")
        reply_to: int | None = None
        if input.get("replyToId") is not None:
            parent = resolvers.node_of(ctx, input["replyToId"], DiscussionComment)
            if parent._row["discussion_id"] != discussion.databaseId:
                raise ResolverError(
                    "The comment being replied to does not belong to this discussion.",
                    "UNPROCESSABLE",
                )
            # Discussions thread one level deep: GitHub refuses a reply to a reply
            # (github/accessibility-alt-text-bot#17 quotes the message).
            if parent._row["reply_to"] is not None:
                raise ResolverError(
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
        comment = resolvers.node_of(ctx, input["commentId"], DiscussionComment)
        ctx.require_discussions("write")
        ctx.require_role("write", unless_author=comment._row["author_id"])
        _check_body(input["body"])
        edit_comment(ctx.state, comment.databaseId, input["body"], ctx.now,
                     flags=ctx.fidelity.edit_flags)
        return _comment_payload(ctx, input, comment.databaseId, comment._repo_id)

    def deleteDiscussionComment(
        self,
        info: Info,
        input: dict[str, Any],  # noqa: A002
    ) -> dict[str, Any]:
        ctx = _ctx(info)
        comment = resolvers.node_of(ctx, input["id"], DiscussionComment)
        ctx.require_discussions("write")
        if comment.discussion_locked():
            ctx.require_role("write")  # GitHub docs, "Locking conversations"
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
        comment = resolvers.node_of(ctx, input["subjectId"], DiscussionComment)
        # locked, hiding needs write (GitHub docs, "Locking conversations")
        ctx.require_role("write" if comment.discussion_locked() else "triage")
        reason = CLASSIFIER_REASON[input["classifier"]] if hide else None
        minimize_comment(ctx.state, comment.databaseId, reason, hide)
        return _comment_payload(ctx, input, comment.databaseId, comment._repo_id,
                                "minimizedComment" if hide else "unminimizedComment")


# ------------------------------------------------------- shared write helpers
def edit_comment(state: State, comment_id: int, body: str, now: float, *,
                 flags: bool = True) -> None:
    """Edit a comment's body: ``lastEditedAt`` set, ``includesCreatedEdit`` true (unless
    ``flags`` is false: the ``edit_flags`` switch off, a misbehaving GitHub)."""
    if not flags:
        with state.transaction() as db:
            db.execute("UPDATE comments SET body = ? WHERE id = ?", (body, comment_id))
        return
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


# last: resolvers imports this module's types, and these mutations use its node lookup
from . import resolvers  # noqa: E402
