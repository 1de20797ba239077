"""GitHub access for ghattempt: GraphQL transport on githubkit, auth, the retry policy,
the ``.graphql`` documents and journal capture.

Start with :class:`GitHubProvider` built from a :class:`ProviderConfig`. The error
hierarchy is written out in :mod:`ghattempt.github.errors`.
"""

from .capture import PAGE_SIZE, CaptureResult, floor_requests
from .config import AppAuth, ProviderConfig, RetryPolicy, TokenAuth, graphql_endpoint
from .documents import DOCUMENT_NAMES, Document, document
from .errors import (
    AmbiguousOutcome,
    AuthFailed,
    GitHubError,
    GitHubRefused,
    GitHubUnavailable,
    GraphQLRefused,
    InputError,
    NotFound,
    RateLimited,
    ReadLagExceeded,
    RefConflict,
    UnexpectedAnswer,
)
from .models import (
    EMPTY_TREE,
    Comment,
    Commit,
    Discussion,
    DiscussionCategory,
    DiscussionSummary,
    PullRequest,
    Ref,
    Repository,
)
from .provider import BODY_LIMIT, GitHubProvider
from .usage import OperationUsage, RateLimitState, Usage

__all__ = [
    "BODY_LIMIT",
    "DOCUMENT_NAMES",
    "EMPTY_TREE",
    "PAGE_SIZE",
    "AmbiguousOutcome",
    "AppAuth",
    "AuthFailed",
    "CaptureResult",
    "Comment",
    "Commit",
    "Discussion",
    "DiscussionCategory",
    "DiscussionSummary",
    "Document",
    "GitHubError",
    "GitHubProvider",
    "GitHubRefused",
    "GitHubUnavailable",
    "GraphQLRefused",
    "InputError",
    "NotFound",
    "OperationUsage",
    "ProviderConfig",
    "PullRequest",
    "RateLimitState",
    "RateLimited",
    "ReadLagExceeded",
    "Ref",
    "RefConflict",
    "Repository",
    "RetryPolicy",
    "TokenAuth",
    "UnexpectedAnswer",
    "Usage",
    "document",
    "floor_requests",
    "graphql_endpoint",
]
