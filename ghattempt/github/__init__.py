"""GitHub access for ghattempt: GraphQL transport on githubkit, auth, the retry policy,
the ``.graphql`` documents and journal capture.

Start with :class:`GitHubProvider` built from a :class:`ProviderConfig`. The error
hierarchy is written out in :mod:`ghattempt.github.errors`.

The names below are imported on first use (PEP 562 ``__getattr__``): importing this
package, or a light submodule such as :mod:`ghattempt.github.errors`, does not import
httpx or githubkit. ``from ghattempt.github import GitHubProvider`` imports the
transport (githubkit, httpx) then; see ``docs/cli.md``, "Start-up time".
``DEFAULT_API_URL``, ``DEFAULT_CONNECT_TIMEOUT``, ``DEFAULT_TIMEOUT``,
``DEFAULT_WRITE_INTERVAL`` and :class:`RetryPolicy` are the defaults other layers share
(``_defaults``). ``redact`` scrubs tokens and known secrets from text;
``httpx`` is the httpx module as every module here imports it (without its command-line
client: ``_httpx``).
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from ._defaults import (
        DEFAULT_API_URL,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_TIMEOUT,
        DEFAULT_WRITE_INTERVAL,
        RetryPolicy,
    )
    from ._httpx import httpx
    from ._redact import redact
    from .capture import PAGE_SIZE, CaptureResult, floor_requests
    from .config import AppAuth, ProviderConfig, TokenAuth, graphql_endpoint
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
        SubmittedTooQuickly,
        UnexpectedAnswer,
    )
    from .identity import Identity
    from .models import (
        EMPTY_TREE,
        Budget,
        Comment,
        Commit,
        Discussion,
        DiscussionCategory,
        DiscussionSummary,
        ProbeView,
        PullRequest,
        Ref,
        Repository,
        RunStatus,
        Thread,
        ThreadComment,
        WriterStart,
    )
    from .provider import BODY_LIMIT, GitHubProvider
    from .transport import Credentials
    from .usage import OperationUsage, RateLimitState, Usage

_SUBMODULE = {
    "PAGE_SIZE": "capture", "CaptureResult": "capture", "floor_requests": "capture",
    "AppAuth": "config", "ContentPacer": "config", "ProviderConfig": "config",
    "RetryPolicy": "_defaults", "TokenAuth": "config", "graphql_endpoint": "config",
    "DOCUMENT_NAMES": "documents", "Document": "documents", "document": "documents",
    "AmbiguousOutcome": "errors", "AuthFailed": "errors", "GitHubError": "errors",
    "GitHubRefused": "errors", "GitHubUnavailable": "errors", "GraphQLRefused": "errors",
    "Identity": "identity",
    "InputError": "errors", "NotFound": "errors", "RateLimited": "errors",
    "ReadLagExceeded": "errors", "RefConflict": "errors", "UnexpectedAnswer": "errors",
    "SubmittedTooQuickly": "errors",
    "EMPTY_TREE": "models", "Comment": "models", "Commit": "models", "Discussion": "models",
    "DiscussionCategory": "models", "DiscussionSummary": "models", "PullRequest": "models",
    "Ref": "models", "Repository": "models", "RunStatus": "models",
    "WriterStart": "models", "Budget": "models", "ProbeView": "models", "Thread": "models",
    "ThreadComment": "models",
    "BODY_LIMIT": "provider", "GitHubProvider": "provider", "Credentials": "transport",
    "OperationUsage": "usage", "RateLimitState": "usage", "Usage": "usage",
    "httpx": "_httpx", "redact": "_redact",
    "DEFAULT_API_URL": "_defaults", "DEFAULT_TIMEOUT": "_defaults",
    "DEFAULT_WRITE_INTERVAL": "_defaults", "DEFAULT_CONNECT_TIMEOUT": "_defaults",
}
"""Exported name -> the submodule defining it."""

__all__ = [
    "BODY_LIMIT",
    "DEFAULT_API_URL",
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "DEFAULT_WRITE_INTERVAL",
    "DOCUMENT_NAMES",
    "EMPTY_TREE",
    "PAGE_SIZE",
    "AmbiguousOutcome",
    "AppAuth",
    "AuthFailed",
    "Budget",
    "CaptureResult",
    "Comment",
    "Commit",
    "ContentPacer",
    "Credentials",
    "Discussion",
    "DiscussionCategory",
    "DiscussionSummary",
    "Document",
    "GitHubError",
    "GitHubProvider",
    "GitHubRefused",
    "GitHubUnavailable",
    "GraphQLRefused",
    "Identity",
    "InputError",
    "NotFound",
    "OperationUsage",
    "ProbeView",
    "ProviderConfig",
    "PullRequest",
    "RateLimitState",
    "RateLimited",
    "ReadLagExceeded",
    "Ref",
    "RefConflict",
    "Repository",
    "RunStatus",
    "RetryPolicy",
    "SubmittedTooQuickly",
    "Thread",
    "ThreadComment",
    "TokenAuth",
    "UnexpectedAnswer",
    "Usage",
    "WriterStart",
    "document",
    "floor_requests",
    "graphql_endpoint",
    "httpx",
    "redact",
]


def __getattr__(name: str) -> _typing.Any:
    """Import the submodule defining ``name`` (one of ``__all__``) and return the name.

    Raises:
        AttributeError: ``name`` is not exported here (``from ghattempt.github import
            errors`` then imports the submodule, as usual).
    """
    submodule = _SUBMODULE.get(name)
    if submodule is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f".{submodule}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
