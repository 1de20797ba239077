"""GitHub's error shapes, as the emulator sends them.

GraphQL execution errors carry a top-level ``type`` (``NOT_FOUND``, ``FORBIDDEN``,
``UNPROCESSABLE``, ``RATE_LIMITED`` ...) next to ``path``, ``locations`` and
``message`` (GitHub GraphQL responses; octokit/graphql.js#314 shows the shape).
REST errors are ``{"message", "documentation_url", "status"}`` objects.
"""

from __future__ import annotations

import json

DOCS = "https://docs.github.com"
REST_DOCS = "https://docs.github.com/rest"
SECONDARY_DOCS = (
    "https://docs.github.com/free-pro-team@latest/rest/overview/"
    "rate-limits-for-the-rest-api#about-secondary-rate-limits"
)


class ResolverError(Exception):
    """An error a resolver raises; becomes one entry of the response's ``errors``.

    It never reaches a client as an exception: the endpoint sends it as GitHub would,
    and the client raises its own ``ghattempt.github`` error from that answer.

    Args:
        message: GitHub's message text.
        type: GitHub's ``type`` (``NOT_FOUND`` ...); None for errors GitHub sends
            without one (a failed ref update, for instance).
    """

    def __init__(self, message: str, type: str | None = None) -> None:  # noqa: A002
        super().__init__(message)
        self.message = message
        self.type = type


def not_found_node(node_id: str) -> ResolverError:
    return ResolverError(
        f"Could not resolve to a node with the global id of '{node_id}'", "NOT_FOUND"
    )


def forbidden_integration(actor_kind: str) -> ResolverError:
    who = "integration" if actor_kind == "Bot" else "personal access token"
    return ResolverError(f"Resource not accessible by {who}", "FORBIDDEN")


def rest_body(message: str, status: int, docs: str = REST_DOCS) -> bytes:
    return json.dumps(
        {"message": message, "documentation_url": docs, "status": str(status)}
    ).encode()


BAD_CREDENTIALS = rest_body("Bad credentials", 401, DOCS)
REQUIRES_AUTH = json.dumps(
    {
        "message": "This endpoint requires you to be authenticated.",
        "documentation_url": (
            "https://docs.github.com/graphql/guides/forming-calls-with-graphql"
            "#authenticating-with-graphql"
        ),
    }
).encode()


def secondary_limit_body(request_id: str) -> bytes:
    return json.dumps(
        {
            "documentation_url": SECONDARY_DOCS,
            "message": (
                "You have exceeded a secondary rate limit. Please wait a few minutes "
                "before you try again. If you reach out to GitHub Support for help, "
                f"please include the request ID {request_id}."
            ),
        }
    ).encode()


def secondary_limit_errors(request_id: str) -> bytes:
    """A GraphQL secondary-limit answer in ``errors`` (GitHub answers such a limit
    with 200 or 403 for GraphQL; the 200 body is not shown publicly, so it carries the
    403's message and no ``type``)."""
    message = json.loads(secondary_limit_body(request_id))["message"]
    return json.dumps({"errors": [{"message": message}]}).encode()


def internal_error_body(request_id: str) -> bytes:
    """GitHub's HTTP 200 answer when executing failed inside GitHub: ``type: INTERNAL``
    (dtolnay/star-history#1 quotes it)."""
    return json.dumps(
        {
            "data": None,
            "errors": [
                {
                    "type": "INTERNAL",
                    "message": (
                        "Something went wrong while executing your query. Please include "
                        f"`{request_id}` when reporting this issue."
                    ),
                }
            ],
        }
    ).encode()


def bad_gateway_body(request_id: str) -> bytes:
    """The body of GitHub's 502 for a GraphQL request that ran out of time (quoted in
    decaporg/decap-cms#6570)."""
    return json.dumps(
        {
            "data": None,
            "errors": [
                {
                    "message": (
                        "Something went wrong while executing your query. This may be "
                        "the result of a timeout, or it could be a GitHub bug. Please "
                        f"include `{request_id}` when reporting this issue."
                    )
                }
            ],
        }
    ).encode()


def gateway_timeout_body() -> bytes:
    """The body of GitHub's 504 (GitHub docs, "Rate limits and query limits for the
    GraphQL API", timeouts: "We couldn't respond to your request in time")."""
    return json.dumps(
        {
            "message": (
                "We couldn't respond to your request in time. Sorry about that. Please "
                "try resubmitting your request and contact us if the problem persists."
            ),
            "documentation_url": DOCS,
        }
    ).encode()
