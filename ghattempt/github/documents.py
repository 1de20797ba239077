"""The GraphQL documents, shipped as ``.graphql`` files in ``ghattempt/github/graphql/``.

``JournalPage``, ``RepliesPage`` and ``LeaseRef`` are byte copies of the spec's capture
queries (journal-v1 section 5); the rest are the writer's operations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

__all__ = ["DOCUMENT_NAMES", "Document", "described", "document", "permission_for"]

DOCUMENT_NAMES: tuple[str, ...] = (
    "JournalPage",
    "RepliesPage",
    "LeaseRef",
    "JournalPageLease",
    "CategoryDiscussions",
    "RepositoryLookup",
    "WriterRead",
    "RepositoryById",
    "PullRequestLookup",
    "RefLookup",
    "CreateDiscussion",
    "AddDiscussionComment",
    "CreateRef",
    "UpdateRefs",
    "DeleteRef",
    "CreateCommitOnBranch",
    "ProbeRead",
    "ProbeDiscussion",
    "UpdateDiscussionComment",
    "DeleteDiscussionComment",
    "DeleteDiscussion",
)

_OPERATION = re.compile(r"^(query|mutation)\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Document:
    """One GraphQL document.

    Attributes:
        name: the operation name, equal to the file stem.
        kind: ``"query"`` or ``"mutation"``.
        text: the file's text, sent as is.
    """

    name: str
    kind: Literal["query", "mutation"]
    text: str

    @property
    def is_mutation(self) -> bool:
        return self.kind == "mutation"


@cache
def document(name: str) -> Document:
    """Load ``graphql/<name>.graphql`` from the package.

    Raises:
        KeyError: ``name`` is not one of :data:`DOCUMENT_NAMES`.
        ValueError: the file's operation name differs from its file name.
    """
    if name not in DOCUMENT_NAMES:
        raise KeyError(f"no GraphQL document named {name!r}; known: {', '.join(DOCUMENT_NAMES)}")
    text = resources.files(__package__).joinpath("graphql", f"{name}.graphql").read_text("utf-8")
    match = _OPERATION.search(text)
    if match is None or match.group(2) != name:
        raise ValueError(f"graphql/{name}.graphql must define the operation {name}")
    kind: Literal["query", "mutation"] = "mutation" if match.group(1) == "mutation" else "query"
    return Document(name=name, kind=kind, text=text)


# What each request does, in a user's words: messages name this, never the document name
# (``WriterRead``) or the REST route, which stay in ``GitHubError.operation`` and in the
# debug log.
_WORDS = {
    "JournalPage": "reading the journal",
    "RepliesPage": "reading the journal's replies",
    "JournalPageLease": "reading the journal and its lease branch",
    "LeaseRef": "reading the lease branch",
    "CategoryDiscussions": "listing the journal category's discussions",
    "RepositoryLookup": "reading the repository",
    "WriterRead": "reading the repository, the pull request and the journal",
    "RepositoryById": "reading the repository",
    "PullRequestLookup": "reading the pull request",
    "RefLookup": "reading a branch",
    "CreateDiscussion": "creating the journal discussion",
    "AddDiscussionComment": "adding a record to the journal",
    "CreateRef": "creating the lease branch",
    "UpdateRefs": "moving the lease branch",
    "DeleteRef": "deleting a branch",
    "CreateCommitOnBranch": "committing to the lease branch",
    "UpdateDiscussionComment": "editing a comment",
    "DeleteDiscussionComment": "deleting a comment",
    "DeleteDiscussion": "deleting a discussion",
    "POST /repos/{owner}/{repo}/git/commits": "creating the lease branch's first commit",
    "GET /repos/{owner}/{repo}/git/commits/{sha}": "reading a commit",
    "GET /repos/{owner}/{repo}/contents/{path}": "reading a file of the repository",
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}": "reading a workflow run",
    "GET /repos/{owner}/{repo}/rules/branches/{branch}": "reading the rules of the lease branch",
    "GET /repos/{owner}/{repo}/rulesets/{ruleset_id}": "reading a ruleset",
    "GET /repos/{owner}/{repo}/branches/{branch}": "reading the lease branch",
    "GET /repos/{owner}/{repo}/branches/{branch}/protection":
        "reading the lease branch's protection",
    "GET /repos/{owner}/{repo}/commits/{ref}/check-runs": "reading check runs",
    "POST /repos/{owner}/{repo}/check-runs": "creating a check run",
}

# The workflow ``permissions:`` key (GITHUB_TOKEN) or App permission each request needs.
_PERMISSIONS = {
    "JournalPage": "discussions: read", "RepliesPage": "discussions: read",
    "JournalPageLease": "discussions: read and contents: read",
    "CategoryDiscussions": "discussions: read",
    "WriterRead": "discussions: read and contents: read",
    "LeaseRef": "contents: read", "RefLookup": "contents: read",
    "PullRequestLookup": "pull-requests: read",
    "CreateDiscussion": "discussions: write", "AddDiscussionComment": "discussions: write",
    "CreateRef": "contents: write", "UpdateRefs": "contents: write",
    "DeleteRef": "contents: write", "CreateCommitOnBranch": "contents: write",
    "UpdateDiscussionComment": "discussions: write",
    "DeleteDiscussionComment": "discussions: write",
    "DeleteDiscussion": "discussions: write and triage access to the repository",
    "POST /repos/{owner}/{repo}/git/commits": "contents: write",
    "GET /repos/{owner}/{repo}/git/commits/{sha}": "contents: read",
    "GET /repos/{owner}/{repo}/contents/{path}": "contents: read",
    "GET /repos/{owner}/{repo}/actions/runs/{run_id}": "actions: read",
    "GET /repos/{owner}/{repo}/commits/{ref}/check-runs": "checks: read",
    "POST /repos/{owner}/{repo}/check-runs": "checks: write",
}


def described(operation: str) -> str:
    """What the request named ``operation`` (a document name or a REST route) does, in a
    user's words (``"adding a record to the journal"``); the route itself when unknown."""
    return _WORDS.get(operation, operation or "a request to GitHub")


def permission_for(operation: str) -> str | None:
    """The ``permissions:`` key (with its level) the request needs, e.g.
    ``"discussions: write"``; None when any token that can read the repository has it."""
    return _PERMISSIONS.get(operation)
