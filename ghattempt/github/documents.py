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

__all__ = ["DOCUMENT_NAMES", "Document", "document"]

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
