"""Errors raised by the GitHub provider.

Every error says whose side the problem is on, so a caller can decide without parsing
messages::

    GhattemptError                       (ghattempt.errors) the root of every ghattempt error
    └── GitHubError                      base of everything below
        ├── InputError                   your input or configuration is wrong; nothing was sent
        ├── GitHubRefused                GitHub answered with a definite refusal; nothing committed
        │   ├── AuthFailed               401, or 403 that is not a rate limit, or the App token
        │   │                            exchange failed
        │   ├── NotFound                 a repository, discussion, ref, pull request or node id
        │   │                            GitHub cannot resolve (GraphQL NOT_FOUND, null object, 404)
        │   ├── RefConflict              a ref compare-and-set lost: GitHub answered STALE_DATA
        │   │                            (other ref refusals are GraphQLRefused; a read-back of
        │   │                            the ref tells whether they lost a compare-and-set)
        │   └── GraphQLRefused           any other GraphQL error: validation, FORBIDDEN,
        │                                UNPROCESSABLE, ... (``.errors`` holds GitHub's list)
        ├── RateLimited                  a primary or secondary rate limit; the request was not
        │                                executed (GitHub docs, "Exceeding the rate limit").
        │                                ``.retry_after`` seconds, ``.kind`` primary|secondary
        ├── GitHubUnavailable            a read kept failing (502/503/504, connection errors,
        │                                replica lag) past the retry budget, or a mutation could
        │                                not be sent at all (connection refused); nothing committed
        │   ├── ReadLagExceeded          records the caller expects are still not visible
        │   └── UnexpectedAnswer         a read's answer lacks what the document asked for
        └── AmbiguousOutcome             a mutation was sent and its outcome is unknown (timeout
                                         after send, 502/504, connection reset, lost or garbled
                                         response). Carries exactly what was sent, for the store
                                         to reconcile by read-back. Never retried here.

Messages and attributes never hold secrets (tokens, private keys, JWTs): the transport
raises these errors ``from None`` and passes every message through
:func:`ghattempt.github.redact`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ghattempt.errors import Fault, GhattemptError

__all__ = [
    "AmbiguousOutcome",
    "AuthFailed",
    "GitHubError",
    "GitHubRefused",
    "GitHubUnavailable",
    "GraphQLRefused",
    "InputError",
    "NotFound",
    "RateLimited",
    "ReadLagExceeded",
    "RefConflict",
    "SubmittedTooQuickly",
    "UnexpectedAnswer",
]


class GitHubError(GhattemptError):
    """Base of every provider error (``fault``: each subclass says; GitHub refused here).

    Attributes:
        operation: the GraphQL document name or REST route that failed ("" when none).
        status: the HTTP status GitHub answered, or None when there was no answer.
    """

    fault = Fault.GITHUB_REFUSED

    def __init__(self, message: str, *, operation: str = "", status: int | None = None) -> None:
        super().__init__(message)
        self.operation = operation
        self.status = status

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r}, operation={self.operation!r})"


class InputError(GitHubError, ValueError):
    """The caller's input or configuration is wrong; nothing was sent to GitHub."""

    fault = Fault.BAD_INPUT


class GitHubRefused(GitHubError):
    """GitHub refused the request definitely; a mutation did not commit."""

    fault = Fault.GITHUB_REFUSED


class AuthFailed(GitHubRefused):
    """Credentials missing, wrong, expired or lacking permission (401, 403 not rate limit)."""


class NotFound(GitHubRefused):
    """GitHub could not resolve an object the request names (NOT_FOUND, null, 404)."""

    hint = ("check the repository, the discussion or pull request number, and that the "
            "token can read the repository")


class RefConflict(GitHubRefused):
    """A ref compare-and-set lost: GitHub answered ``STALE_DATA`` (the ref moved from the
    oid given). Nothing was written by that request. The same class is what a
    :class:`~ghattempt.exclusive.RefBackend` raises when its precondition fails."""


class GraphQLRefused(GitHubRefused):
    """GitHub answered with GraphQL errors that are not covered by a subclass.

    Attributes:
        errors: GitHub's ``errors`` list (each a dict with ``message``, maybe ``type``).
    """

    def __init__(
        self,
        message: str,
        *,
        operation: str = "",
        status: int | None = None,
        errors: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        super().__init__(message, operation=operation, status=status)
        self.errors: tuple[Mapping[str, Any], ...] = tuple(errors)


class RateLimited(GitHubError):
    """A rate limit refused the request; GitHub did not execute it.

    Attributes:
        kind: ``"primary"`` (points or requests per hour) or ``"secondary"``
            (abuse protection: concurrency, content creation, points per minute).
        retry_after: seconds to wait before trying again, from ``retry-after``, else
            ``x-ratelimit-reset`` minus GitHub's ``Date``, else 60.
    """

    fault = Fault.GITHUB_UNAVAILABLE
    retry_after: float

    def __init__(
        self,
        message: str,
        *,
        operation: str = "",
        status: int | None = None,
        kind: Literal["primary", "secondary"],
        retry_after: float,
    ) -> None:
        super().__init__(message, operation=operation, status=status)
        self.kind = kind
        self.retry_after = retry_after


class GitHubUnavailable(GitHubError):
    """GitHub could not be reached or kept failing; nothing was committed."""

    fault = Fault.GITHUB_UNAVAILABLE


class ReadLagExceeded(GitHubUnavailable):
    """Comments the caller expects were still missing after the bounded re-reads.

    Attributes:
        missing: the expected comment node ids that were not visible.
        pages: the last capture (raw GraphQL responses), for diagnosis.
    """

    def __init__(
        self,
        message: str,
        *,
        operation: str = "",
        missing: frozenset[str],
        pages: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        super().__init__(message, operation=operation)
        self.missing = missing
        self.pages: tuple[Mapping[str, Any], ...] = tuple(pages)


class UnexpectedAnswer(GitHubUnavailable):
    """GitHub answered a read with a shape the document does not allow (a missing field,
    a wrong type). Nothing was committed. (A mutation answered that way raises
    :class:`AmbiguousOutcome` instead: it may have committed.)"""


class AmbiguousOutcome(GitHubError):
    """A mutation was sent and GitHub's answer does not say whether it committed.

    The store reconciles by reading back (architecture: writer protocol, step 5) and, if
    the record is absent, sends ``body`` again byte for byte.

    Attributes:
        document: the GraphQL document name (e.g. ``AddDiscussionComment``) or the REST
            route (``POST /repos/{owner}/{repo}/git/commits``).
        variables: the GraphQL variables (or REST JSON body) exactly as sent.
        body: the HTTP request body bytes exactly as sent.
        reason: what made it ambiguous (``"timeout"``, ``"http 502"``, ...).
        method, url: where it was sent (the GraphQL endpoint, or the REST path relative
            to ``base_url``); :meth:`GitHubProvider.resend` sends ``body`` there again.

    The same class is what a :class:`~ghattempt.exclusive.RefBackend` raises for a ref
    write that may have landed (``AmbiguousOutcome(message)``: nothing to resend, the
    lease machine reads the ref back).
    """

    fault = Fault.OUTCOME_UNKNOWN

    def __init__(
        self,
        message: str,
        *,
        operation: str = "",
        status: int | None = None,
        variables: Mapping[str, Any] | None = None,
        body: bytes = b"",
        reason: str = "unknown",
        method: str = "POST",
        url: str = "",
    ) -> None:
        super().__init__(message, operation=operation, status=status)
        self.document = operation
        self.variables: Mapping[str, Any] = {} if variables is None else variables
        self.body = body
        self.reason = reason
        self.method = method
        self.url = url

    def __repr__(self) -> str:
        return (
            f"AmbiguousOutcome(document={self.document!r}, reason={self.reason!r}, "
            f"status={self.status!r}, body_bytes={len(self.body)})"
        )


class SubmittedTooQuickly(AmbiguousOutcome):
    """GitHub's anti-spam limit on content creation answered "was submitted too quickly"
    (GraphQL: HTTP 200, ``errors[].type`` ``UNPROCESSABLE``; REST: 422). Undocumented and
    dynamic (cli/cli#4801: retry after minutes, up to an hour); whether the write landed is
    not said, so it is an unknown outcome like any other: wait ``retry_after`` seconds
    (at least a minute, doubling), read back, and send the same bytes again only when
    the write is absent.

    Attributes:
        retry_after: seconds to wait before reading back (``secondary_min_wait``
            doubled for each such answer already met by this request).
        kind: ``"secondary"``: a secondary limit.
    """

    kind = "secondary"

    def __init__(self, message: str, *, retry_after: float, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after
