"""Small frozen records the provider returns. Ids are GitHub node ids, opaque strings."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .identity import Identity

if TYPE_CHECKING:
    from ..core import Capture, JournalInvalid

__all__ = [
    "EMPTY_TREE",
    "Budget",
    "Comment",
    "Commit",
    "Discussion",
    "DiscussionCategory",
    "DiscussionSummary",
    "ProbeView",
    "PullRequest",
    "Ref",
    "Repository",
    "RunStatus",
    "Thread",
    "ThreadComment",
    "WriterStart",
]

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""Git's empty tree (SHA-1); a lease commit carries its state in the message only."""


@dataclass(frozen=True, slots=True)
class DiscussionCategory:
    id: str
    name: str
    slug: str


@dataclass(frozen=True, slots=True)
class Repository:
    """``id`` is the node id (the journal's repository identity, spec section 1)."""

    id: str
    database_id: int
    name_with_owner: str
    categories: tuple[DiscussionCategory, ...] = ()
    has_discussions: bool = True
    viewer_permission: str | None = None
    """ADMIN, MAINTAIN, WRITE, TRIAGE or READ; None when GitHub does not say (an App or
    the Actions bot)."""
    viewer: Identity | None = None
    """Who the token is on this host (``RepositoryLookup`` asks ``viewer``)."""

    @property
    def owner(self) -> str:
        return self.name_with_owner.split("/", 1)[0]

    @property
    def name(self) -> str:
        return self.name_with_owner.split("/", 1)[1]


@dataclass(frozen=True, slots=True)
class Discussion:
    """A journal. ``author_login`` / ``author_database_id`` are the GraphQL author (as the
    reader will see it: ``github-actions`` for the Actions bot, where REST says
    ``github-actions[bot]``)."""

    id: str
    number: int
    url: str
    created_at: str
    author_login: str | None = None
    author_database_id: int | None = None


@dataclass(frozen=True, slots=True)
class DiscussionSummary:
    """One discussion of a category listing: enough to recognise a journal by its body.

    ``author_login``/``author_id`` are None for a deleted account; ``edited`` is True
    when ``lastEditedAt`` is set or ``includesCreatedEdit``.
    """

    id: str
    number: int
    title: str
    body: str
    edited: bool
    author_login: str | None
    author_id: int | None
    created_at: str | None = None
    """``createdAt`` (GitHub's DateTime, whole seconds, UTC), when the listing read it."""
    locked: bool = False
    """``locked``: a lock bot (or a person) locked it; GitHub then refuses comments by
    Apps and the Actions bot."""


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment just written; author fields as in :class:`Discussion`."""

    id: str
    created_at: str
    url: str
    author_login: str | None = None
    author_database_id: int | None = None


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit; ``committed_date`` is ISO 8601 as GitHub wrote it ("" when not read)."""

    oid: str
    message: str
    tree_oid: str = ""
    parent_oids: tuple[str, ...] = ()
    committed_date: str = ""


@dataclass(frozen=True, slots=True)
class Ref:
    """A Git ref; ``name`` is fully qualified (``refs/heads/x``)."""

    id: str
    name: str
    target_oid: str
    commit: Commit | None = None


@dataclass(frozen=True, slots=True)
class PullRequest:
    id: str
    number: int
    state: str
    head_ref_name: str
    head_oid: str
    base_ref_name: str
    base_oid: str
    head_tree_oid: str | None = None
    """The tree of the head ref's commit, when read with it (``WriterRead``) and that
    commit is ``head_oid`` (None otherwise: read the head ref to learn it)."""
    created_at: str | None = None
    """``createdAt``: when the pull request was opened (GitHub's DateTime, UTC)."""


@dataclass(frozen=True, slots=True)
class RunStatus:
    """A workflow run attempt's, or one of its jobs', ``status`` and ``conclusion`` as the
    Actions REST API serves them (``queued``, ``in_progress``, ``completed``...; the
    conclusion is None until completed); ``name`` is the job's (None for the attempt)."""

    status: str
    conclusion: str | None = None
    name: str | None = None

    @property
    def completed(self) -> bool:
        """The attempt or job has ended."""
        return self.status == "completed"


@dataclass(frozen=True)
class WriterStart:
    """What ``GitHubProvider.writer_read`` read in one request.

    ``repository`` (with ``viewer``); ``pull_request`` when asked; ``lease`` the lease ref
    when the journal was asked (None: not asked, or no such ref); ``page`` the raw answer
    when it holds the journal's first page (a JournalPage with the lease member), else
    None: the transport's, handed back to it as a capture's first page
    (``GitHubProvider.capture_with_lease``); ``server_time`` GitHub's clock at the answer
    (POSIX seconds). ``journal`` is that page as the layers above read it.
    """

    repository: Repository
    pull_request: PullRequest | None = None
    lease: Ref | None = None
    page: dict[str, Any] | None = None
    server_time: float | None = None

    @cached_property
    def journal(self) -> Capture | JournalInvalid | None:
        """The journal's first page parsed by the core (a capture of that page alone:
        its repository, discussion, body and lease member), the ``JournalInvalid``
        parsing raised, or None when the answer holds no journal page."""
        if self.page is None:
            return None
        from .capture import parsed

        return parsed([self.page])


@dataclass(frozen=True, slots=True)
class ProbeView:
    """What ``ghattempt probe`` reads first (``ProbeRead``): who the token is (its node
    id, login and databaseId as GraphQL reports them), the primary GraphQL budget
    (``rateLimit``), and the locked discussions among the journal category's newest 100."""

    viewer_id: str
    viewer_login: str
    viewer_database_id: int | None
    budget_limit: int | None
    budget_remaining: int | None
    budget_reset_at: str | None
    discussions: int
    locked: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ThreadComment:
    """One comment (or reply) of a :class:`Thread`, with its edit flags and author."""

    id: str
    body: str
    last_edited_at: str | None
    includes_created_edit: bool
    author_login: str | None
    author_database_id: int | None
    replies: tuple[ThreadComment, ...] = ()


@dataclass(frozen=True, slots=True)
class Thread:
    """A discussion's first 10 comments and their first 10 replies, in GitHub's order
    (``ProbeDiscussion``); ``locked`` its lock state."""

    id: str
    locked: bool
    comments: tuple[ThreadComment, ...]


@dataclass(frozen=True, slots=True)
class Budget:
    """One primary budget of ``GET /rate_limit`` (``resources.<name>``)."""

    name: str
    limit: int
    remaining: int
    reset: int
