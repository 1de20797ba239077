"""Reconstruction of a journal from captured GraphQL responses (docs/journal-format.md
section 5).

Stdin is one JSON value: a response object or an array of them, in any order. Three
response shapes are read, ``JournalPage``, ``RepliesPage`` and ``LeaseRef`` (the
queries in ``ghattempt/github/graphql``); a JournalPage may carry a ``lease`` member.
Top-level comments are the union of every JournalPage's ``comments.nodes`` by ``id``;
the replies of comment X are the union of X's nested replies and of every RepliesPage
whose ``node.id`` is X. Anything that cannot come from one consistent capture is
``capture_mismatch``; counting what is missing (``incomplete``) needs the trust rules
and is left to the reading (``_journal``).

This is the one place raw GraphQL JSON is read. :func:`parse_capture` turns responses
into a typed :class:`Capture` once; every layer above hands that value on (the store's
session, the reading commands, the timeline page, the App). A writer that has just
written a comment extends its capture with :meth:`Capture.with_comment` or
:meth:`Capture.with_reply` (a new value: the capture as GitHub would now answer it),
and a journal it has just opened is :meth:`Capture.opened`; nobody builds GitHub's JSON
by hand to read their own write.
"""

from __future__ import annotations

from operator import attrgetter

from ._args import shown
from ._codes import JournalInvalid
from ._value import replace, value

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from typing import Any


@value
class Comment:
    """One captured comment node (fragment ``RecordComment``), or the discussion body.

    ``login``/``database_id`` are None for a deleted account (``author: null``);
    ``database_id`` is None when the author object has none.
    """

    id: str
    body: str
    created_at: str
    last_edited_at: str | None
    includes_created_edit: bool
    is_minimized: bool
    deleted_at: str | None
    login: str | None
    database_id: int | None

    def contributes(self, writer: str, writer_id: int | None) -> bool:
        """Section 6: by the writer, never edited, not deleted (minimized still counts)."""
        return self.refusal(writer, writer_id) is None

    def refused_because(self, writer: str, writer_id: int | None) -> str | None:
        """Why the comment does not contribute (section 6), or None when it does."""
        refused = self.refusal(writer, writer_id)
        return None if refused is None else refused[1]

    def refusal(self, writer: str, writer_id: int | None) -> tuple[str, str] | None:
        """``(kind, why)`` the comment does not contribute (section 6), or None when it
        does: ``kind`` is :data:`OTHER_AUTHOR`, :data:`DELETED` or :data:`EDITED`.

        The one place of the rule: ``contributes`` asks it, the ``untrusted_journal``
        detail quotes it, and ``JournalState.ignored_comments`` (why) and
        ``ignored_kinds`` (how many of each kind) give it per comment.
        """
        if self.login != writer:
            author = "a deleted account" if self.login is None else repr(self.login[:100])
            return OTHER_AUTHOR, f"author {author} is not the writer {writer[:100]!r}"
        if writer_id is not None and self.database_id != writer_id:
            mine = "null" if self.database_id is None else shown(self.database_id)
            return OTHER_AUTHOR, (f"databaseId {mine} differs from --writer-id "
                                  f"{shown(writer_id)}")
        if self.deleted_at is not None:
            return DELETED, "deleted"
        if self.last_edited_at is not None or self.includes_created_edit:
            return EDITED, "edited"
        return None


OTHER_AUTHOR = "other author"
"""Kind of a comment ignored for its author: another login, or another databaseId."""
DELETED = "deleted"
"""Kind of a comment ignored because it was deleted."""
EDITED = "edited"
"""Kind of a comment ignored because it was edited."""


@value
class Capture:
    """A captured journal, parsed once (:func:`parse_capture`): the repository, the
    discussion and its comments in node order, the lease member.

    ``repository_id`` and ``repository_name`` (``nameWithOwner`` now); the discussion's
    ``discussion_id`` and ``discussion_number``; ``body`` is the discussion body as a
    :class:`Comment` (its author, ``lastEditedAt`` and ``includesCreatedEdit``; no
    ``createdAt``: ``""``); ``comments_total`` is the comments' ``totalCount``;
    ``comments`` are the top-level comments sorted by (createdAt, id); ``replies`` maps
    a top-level comment id to its replies in the same order; ``replies_total`` to its
    replies' ``totalCount``. ``lease`` is the lease member (None: no response carried
    one, or it was null). ``category`` is the discussion's category where a response
    carried it (``JournalPageLease``, ``WriterRead``; the reader ignores it: an extra
    field), else None. ``locked`` is True where a response carried ``locked: true``
    (the same responses; a lock bot locked the discussion, and GitHub then refuses the
    writer's comments), with GitHub's ``activeLockReason`` in ``lock_reason``; the
    reader ignores both. Nothing here is checked against the trust rules: that is
    :func:`~ghattempt.core.read_capture`'s reading.
    """

    repository_id: str
    repository_name: str
    discussion_id: str
    discussion_number: int
    body: Comment
    comments_total: int
    comments: tuple[Comment, ...]
    replies: dict[str, tuple[Comment, ...]]
    replies_total: dict[str, int]
    lease: LeaseRef | None = None
    category: Category | None = None
    locked: bool = False
    lock_reason: str | None = None

    @classmethod
    def opened(cls, *, repository_id: str, repository_name: str, discussion_id: str,
               number: int, body: str, login: str, database_id: int | None) -> Capture:
        """The capture of a journal just created by ``login``: its ``body`` and no
        comments (what a capture reads once GitHub's replicas show it)."""
        author = Comment(discussion_id, body, "", None, False, False, None, login,
                         database_id)
        return cls(repository_id, repository_name, discussion_id, number, author, 0, (),
                   {}, {})

    def with_comment(self, comment_id: str, body: str, created_at: str, login: str,
                     database_id: int | None) -> Capture:
        """This capture with one more top-level comment (an attempt root, no replies),
        unedited, by ``login``: the journal as GitHub answers it after the write.

        Raises:
            JournalInvalid: ``capture_mismatch``: ``comment_id`` is in the capture already.
        """
        self._refuse_known(comment_id)
        node = Comment(comment_id, body, created_at, None, False, False, None, login,
                       database_id)
        replies = dict(self.replies)
        replies[comment_id] = ()
        totals = dict(self.replies_total)
        totals[comment_id] = 0
        return replace(self, comments_total=self.comments_total + 1,
                       comments=tuple(sorted((*self.comments, node), key=node_order)),
                       replies=replies, replies_total=totals)

    def with_reply(self, root_id: str, comment_id: str, body: str, created_at: str,
                   login: str, database_id: int | None) -> Capture:
        """This capture with one more reply to the top-level comment ``root_id`` (an
        event), unedited, by ``login``: the journal as GitHub answers it after the write.

        Raises:
            JournalInvalid: ``capture_mismatch``: no top-level comment ``root_id``, or
                ``comment_id`` is in the capture already.
        """
        if root_id not in self.replies:
            raise _mismatch(f"no top-level comment {root_id} to reply to in the capture")
        self._refuse_known(comment_id)
        node = Comment(comment_id, body, created_at, None, False, False, None, login,
                       database_id)
        replies = dict(self.replies)
        replies[root_id] = tuple(sorted((*replies[root_id], node), key=node_order))
        totals = dict(self.replies_total)
        totals[root_id] = totals[root_id] + 1
        return replace(self, replies=replies, replies_total=totals)

    def _refuse_known(self, comment_id: str) -> None:
        if comment_id == self.discussion_id or comment_id in self.replies or any(
                r.id == comment_id for rs in self.replies.values() for r in rs):
            raise _mismatch(f"node {comment_id} is in the capture already")


@value
class Category:
    """The discussion's category, as a response carried it (``category { id slug }``):
    its node ``id`` and its ``slug`` (None when the response carried none)."""

    id: str
    slug: str | None


@value
class LeaseRef:
    """The captured lease ref (section 5, ``lease``): its ``name`` and ``prefix``, and
    its target's ``oid`` and commit ``message``. ``oid`` is None when the target is
    null; ``message`` is None when the target has none (it is not a commit)."""

    name: str
    prefix: str
    oid: str | None
    message: str | None


def _mismatch(detail: str) -> JournalInvalid:
    return JournalInvalid("capture_mismatch", detail)


def is_lease_ref(repository: object) -> bool:
    """True for a ``data.repository`` of a LeaseRef response: an object with a
    ``lease`` member and no ``discussion`` member (section 5)."""
    return type(repository) is dict and "lease" in repository and "discussion" not in repository


def is_journal_page(response: object) -> bool:
    """True for a response whose ``data.repository`` is an object that is not a
    LeaseRef (section 7.1)."""
    if type(response) is not dict:
        return False
    data = response.get("data")
    if type(data) is not dict:
        return False
    repository = data.get("repository")
    return type(repository) is dict and not is_lease_ref(repository)


def check_input(value: object) -> list[dict[str, Any]]:
    """Return the responses of a stdin value, or raise ``JournalInvalid(bad_input)``.

    Section 7.1: an object or an array of objects, holding at least one JournalPage.
    """
    responses = [value] if type(value) is dict else value
    if type(responses) is not list or not all(type(r) is dict for r in responses):
        raise JournalInvalid("bad_input", "stdin is not a JSON object or an array of objects")
    if not any(is_journal_page(r) for r in responses):
        raise JournalInvalid("bad_input", "stdin holds no JournalPage (data.repository)")
    return responses


def _get(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if type(obj) is not dict or key not in obj:
        raise _mismatch(f"{where}: no field {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and type(value) is bool):
        raise _mismatch(f"{where}: field {key!r} has the wrong type")
    return value


_OPT_STR = (str, type(None))


def _author(obj: Any, where: str) -> tuple[str | None, int | None]:
    if type(obj) is not dict or "author" not in obj:
        raise _mismatch(f"{where}: no field 'author'")
    author = obj["author"]
    if author is None:
        return None, None
    login = _get(author, "login", str, where + " author")
    dbid = author.get("databaseId")
    if dbid is not None and type(dbid) is not int:
        raise _mismatch(f"{where}: author.databaseId is not an integer")
    return login, dbid


def _comment(obj: Any, where: str) -> Comment:
    """Check a node field by field (fragment ``RecordComment``); raises
    ``capture_mismatch`` naming the first problem."""
    if type(obj) is not dict:
        raise _mismatch(f"{where}: a node is not an object")
    where = f"{where} node {str(obj.get('id'))[:40]}"
    deleted = obj.get("deletedAt")  # absent counts as null (section 6)
    if deleted is not None and type(deleted) is not str:
        raise _mismatch(f"{where}: deletedAt is not a string or null")
    login, dbid = _author(obj, where)
    return Comment(_get(obj, "id", str, where), _get(obj, "body", str, where),
                   _get(obj, "createdAt", str, where),
                   _get(obj, "lastEditedAt", _OPT_STR, where),
                   _get(obj, "includesCreatedEdit", bool, where),
                   _get(obj, "isMinimized", bool, where), deleted, login, dbid)


def _lease(obj: Any, where: str) -> LeaseRef | None:
    """The ``lease`` member of a repository object (section 5): null or
    ``{name, prefix, target: null | {oid, message?}}``; any other shape is
    ``capture_mismatch``. Whether it is this scope's lease record is step 7's question."""
    if obj is None:
        return None
    where += " lease"
    name = _get(obj, "name", str, where)
    prefix = _get(obj, "prefix", str, where)
    if "target" not in obj:
        raise _mismatch(f"{where}: no field 'target'")
    target = obj["target"]
    if target is None:
        return LeaseRef(name, prefix, None, None)
    oid = _get(target, "oid", str, where + " target")
    message = target.get("message") if type(target) is dict else None
    if message is not None and type(message) is not str:
        raise _mismatch(f"{where} target: field 'message' has the wrong type")
    return LeaseRef(name, prefix, oid, message)


def _connection(obj: Any, key: str, where: str) -> tuple[int, list[Any]]:
    """A connection ``{totalCount, pageInfo{hasNextPage, endCursor}, nodes}``: its
    ``totalCount`` and ``nodes``."""
    conn = _get(obj, key, dict, where)
    total = _get(conn, "totalCount", int, f"{where} {key}")
    info = _get(conn, "pageInfo", dict, f"{where} {key}")
    _get(info, "hasNextPage", bool, f"{where} {key}.pageInfo")
    _get(info, "endCursor", _OPT_STR, f"{where} {key}.pageInfo")
    return total, _get(conn, "nodes", list, f"{where} {key}")


class _Builder:
    """Accumulates responses; every conflict between them is ``capture_mismatch``."""

    def __init__(self) -> None:
        self.repository_id: str | None = None
        self.repository_name: str | None = None
        self.lease: LeaseRef | None = None
        self.lease_seen = False
        self.discussion: tuple[Any, ...] | None = None
        self.category: Category | None = None
        self.locked = False
        self.lock_reason: str | None = None
        self.comments_total: int | None = None
        self.nodes: dict[str, tuple[Comment, str | None]] = {}  # id -> (node, parent id)
        self.top: list[Comment] = []
        self.replies: dict[str, dict[str, Comment]] = {}
        self.replies_total: dict[str, int] = {}
        self.pending: list[tuple[str, str, int, list[Comment]]] = []

    def node(self, comment: Comment, parent: str | None) -> bool:
        """Record a node; False when already seen identically, raise when different."""
        seen = self.nodes.get(comment.id)
        if seen is None:
            self.nodes[comment.id] = (comment, parent)
            return True
        if seen[0] != comment:
            raise _mismatch(f"node {comment.id} appears twice with different field values")
        if seen[1] != parent:
            raise _mismatch(f"node {comment.id} appears under two different parents")
        return False

    def total(self, parent: str, total: int) -> None:
        old = self.replies_total.setdefault(parent, total)
        if old != total:
            raise _mismatch(f"pages disagree on replies.totalCount of {parent}")

    def repository(self, repo: dict[str, Any], where: str, name_required: bool) -> None:
        """The repository's id and ``nameWithOwner``, which every response must agree on
        (a LeaseRef need not carry the name), and its ``lease`` member, if any."""
        ident = _get(repo, "id", str, where)
        if self.repository_id is None:
            self.repository_id = ident
        elif self.repository_id != ident:
            raise _mismatch("pages disagree on the repository")
        if name_required or "nameWithOwner" in repo:
            name = _get(repo, "nameWithOwner", str, where)
            if self.repository_name is None:
                self.repository_name = name
            elif self.repository_name != name:
                raise _mismatch("pages disagree on the repository")
        if "lease" in repo:
            lease = _lease(repo["lease"], where)
            if not self.lease_seen:
                self.lease, self.lease_seen = lease, True
            elif self.lease != lease:
                raise _mismatch(f"{where}: its lease member differs from another response's")

    def journal_page(self, data: dict[str, Any], where: str) -> None:
        repo = data["repository"]
        self.repository(repo, where, True)
        if "discussion" not in repo or repo["discussion"] is None:
            raise _mismatch(f"{where}: repository.discussion is null or missing")
        disc = _get(repo, "discussion", dict, where)
        dwhere = where + " discussion"
        body = Comment(_get(disc, "id", str, dwhere), _get(disc, "body", str, dwhere), "",
                       _get(disc, "lastEditedAt", _OPT_STR, dwhere),
                       _get(disc, "includesCreatedEdit", bool, dwhere), False, None,
                       *_author(disc, dwhere))
        number = _get(disc, "number", int, dwhere)
        if self.category is None:
            self.category = _category(disc.get("category"))
        if disc.get("locked") is True:  # an extra field, as the category
            self.locked = True
            reason = disc.get("activeLockReason")
            self.lock_reason = reason if type(reason) is str else self.lock_reason
        dident = (body, number)
        if self.discussion is None:
            self.discussion = dident
        elif self.discussion != dident:
            raise _mismatch("pages disagree on the discussion")
        total, nodes = _connection(disc, "comments", dwhere)
        if self.comments_total is None:
            self.comments_total = total
        elif self.comments_total != total:
            raise _mismatch("pages disagree on comments.totalCount")
        for raw in nodes:
            comment = _comment(raw, dwhere + " comments")
            rtotal, rnodes = _connection(raw, "replies", f"{dwhere} comment {comment.id}")
            if self.node(comment, None):
                self.top.append(comment)
                self.replies[comment.id] = {}
            self.total(comment.id, rtotal)
            self._replies(comment.id, rnodes, f"{dwhere} replies of {comment.id}")

    def _replies(self, parent: str, nodes: list[Any], where: str) -> None:
        bucket = self.replies[parent]
        for raw in nodes:
            reply = _comment(raw, where)
            if self.node(reply, parent):
                bucket[reply.id] = reply

    def replies_page(self, data: dict[str, Any], where: str) -> None:
        node = data["node"]
        if node is None:
            raise _mismatch(f"{where}: node is null")
        parent = _get(node, "id", str, where)
        disc = _get(node, "discussion", dict, where)
        disc_id = _get(disc, "id", str, where + " discussion")
        total, raw = _connection(node, "replies", where)
        self.pending.append((parent, disc_id, total,
                             [_comment(r, f"{where} replies") for r in raw]))

    def finish(self) -> Capture:
        assert self.repository_id is not None and self.repository_name is not None
        assert self.discussion is not None
        assert self.comments_total is not None
        body, number = self.discussion
        for parent, disc_id, total, replies in self.pending:
            if disc_id != body.id:
                raise _mismatch(f"a RepliesPage of {parent} belongs to another discussion")
            seen = self.nodes.get(parent)
            if seen is None or seen[1] is not None:
                raise _mismatch(f"a RepliesPage is for {parent}, which no JournalPage holds")
            self.total(parent, total)
            bucket = self.replies[parent]
            for reply in replies:
                if self.node(reply, parent):
                    bucket[reply.id] = reply
        if len(self.top) > self.comments_total:
            raise _mismatch(f"{len(self.top)} distinct top-level comments, "
                            f"more than comments.totalCount {self.comments_total}")
        for parent, bucket in self.replies.items():
            if len(bucket) > self.replies_total[parent]:
                raise _mismatch(f"{len(bucket)} distinct replies of {parent}, more than "
                                f"replies.totalCount {self.replies_total[parent]}")
        order = node_order
        return Capture(self.repository_id, self.repository_name, body.id, number, body,
                       self.comments_total, tuple(sorted(self.top, key=order)),
                       {p: tuple(sorted(b.values(), key=order)) for p, b in self.replies.items()},
                       self.replies_total, self.lease, self.category, self.locked,
                       self.lock_reason)


def _category(obj: Any) -> Category | None:
    """A discussion's ``category`` member: read where it is ``{id, slug}`` with a string
    ``id``, else None. Not part of the contract (section 5): an extra field, never a
    reason to refuse a capture."""
    if type(obj) is not dict or type(obj.get("id")) is not str:
        return None
    slug = obj.get("slug")
    return Category(obj["id"], slug if type(slug) is str else None)


node_order = attrgetter("created_at", "id")
"""Sort key of comments, section 5: by createdAt, then by id in code-point order."""


def parse_capture(value: object) -> Capture:
    """Parse captured GraphQL responses (a response object or an array of them, as the
    reader's stdin holds them) into a :class:`Capture`: ``check_input``, then
    ``reconstruct`` (sections 5 and 7.1).

    Raises:
        JournalInvalid: ``bad_input`` (not an object or an array of objects, no
            JournalPage, or nested too deeply to read), ``capture_mismatch`` naming the
            first conflict.
    """
    try:
        return reconstruct(check_input(value))
    except RecursionError:
        raise JournalInvalid("bad_input", "stdin nests too deeply") from None


def reconstruct(responses: list[dict[str, Any]]) -> Capture:
    """Rebuild one journal from responses that ``check_input`` accepted (section 5).

    Raises:
        JournalInvalid: ``capture_mismatch`` naming the first conflict found.
    """
    builder = _Builder()
    for index, response in enumerate(responses):
        where = f"response {index}"
        if "errors" in response:
            raise _mismatch(f"{where} carries a top-level errors member")
        data = response.get("data")
        if type(data) is not dict:
            raise _mismatch(f"{where} has no data object")
        if "repository" in data and "node" not in data:
            if data["repository"] is None:
                raise _mismatch(f"{where}: repository is null")
            if is_lease_ref(data["repository"]):
                builder.repository(data["repository"], where, False)
            else:
                builder.journal_page(data, where)
        elif "node" in data and "repository" not in data:
            builder.replies_page(data, where)
        else:
            raise _mismatch(f"{where} is neither a JournalPage, a RepliesPage nor a LeaseRef")
    return builder.finish()


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (Capture, parse_capture):
    _exported.__module__ = "ghattempt.core"
del _exported
