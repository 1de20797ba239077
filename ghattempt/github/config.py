"""Provider configuration: where GitHub is, who we are, how long we wait.

Every default of the provider lives here (githubkit's ``config.py`` shape), but for those
the other layers share (the API URL, the timeouts, the write interval, the retry policy):
those are ``_defaults``'s. Secrets are held in small
frozen objects whose ``repr`` never shows them.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ._defaults import (
    DEFAULT_API_URL,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_TIMEOUT,
    DEFAULT_WRITE_INTERVAL,
    RetryPolicy,
)
from ._httpx import httpx
from .errors import InputError

if TYPE_CHECKING:
    from .transport import Credentials

__all__ = [
    "AppAuth",
    "Auth",
    "ContentPacer",
    "ProviderConfig",
    "RetryPolicy",
    "TokenAuth",
    "graphql_endpoint",
]


@dataclass(frozen=True, slots=True)
class TokenAuth:
    """A token: the Actions ``GITHUB_TOKEN``, a personal access token, or an installation
    token obtained elsewhere. Sent as ``Authorization: token …`` by githubkit's
    ``TokenAuthStrategy``.
    """

    token: str = field(repr=False)

    def __post_init__(self) -> None:
        if not self.token or self.token != self.token.strip():
            raise InputError(
                "TokenAuth needs a non-empty token without surrounding whitespace; "
                "pass the value of GITHUB_TOKEN or a personal access token"
            )

    def __repr__(self) -> str:
        return "TokenAuth(token=[redacted])"

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, name: str = "GITHUB_TOKEN"
    ) -> TokenAuth:
        """Build from an environment variable.

        In Actions: ``env: {GITHUB_TOKEN: ${{ github.token }}}`` on the step.

        Raises:
            InputError: the variable is unset or empty.
        """
        value = (os.environ if env is None else env).get(name, "")
        if not value:
            raise InputError(f"environment variable {name} is not set; export the token there")
        return cls(value)


@dataclass(frozen=True, slots=True)
class AppAuth:
    """A GitHub App acting as one installation.

    githubkit's ``AppInstallationAuthStrategy`` signs an App JWT (RS256, pyjwt; issued one
    minute in the past, valid ten minutes, cached eight) and exchanges it at
    ``POST /app/installations/{id}/access_tokens``; the installation token is cached until
    one minute before its ``expires_at`` and then fetched again (GitHub docs,
    "Authenticating as a GitHub App installation").
    """

    app_id: int | str
    private_key: str = field(repr=False)
    installation_id: int

    def __post_init__(self) -> None:
        if "PRIVATE KEY" not in self.private_key:
            raise InputError(
                "AppAuth.private_key must be the App's PEM private key "
                "(the text starting with -----BEGIN RSA PRIVATE KEY-----)"
            )
        if not isinstance(self.installation_id, int) or self.installation_id < 1:
            raise InputError("AppAuth.installation_id must be a positive integer")

    def __repr__(self) -> str:
        return (
            f"AppAuth(app_id={self.app_id!r}, private_key=[redacted], "
            f"installation_id={self.installation_id!r})"
        )


Auth = TokenAuth | AppAuth


_GHES_API = re.compile(r"/api/v3/?$")


def graphql_endpoint(base_url: str) -> str:
    """The GraphQL endpoint for a REST base URL.

    ``https://api.github.com/`` -> ``https://api.github.com/graphql``;
    GHES ``https://HOST/api/v3/`` -> ``https://HOST/api/graphql`` (GitHub Enterprise Server
    docs, "Forming calls with GraphQL"; octokit/graphql.js does the same).
    """
    url = httpx.URL(base_url)
    path, replaced = _GHES_API.subn("/api/graphql", url.path, count=1)
    if replaced:
        return str(url.copy_with(path=path))
    return str(url.copy_with(path=url.path.rstrip("/") + "/graphql"))


class ContentPacer(Protocol):
    """Paces content-creating requests to GitHub's secondary content limits (GitHub
    docs, "Rate limits for the REST API": at most 80 content-generating requests a
    minute and 500 an hour), for every client of one actor: the App keeps one for its
    bot in its inbox (``ghattempt.app.budget``)."""

    def creating(self, operation: str) -> AbstractContextManager[None]:
        """Around the sending of one content-creating request (``operation``: its
        document or route): waits until the limits allow it (or raises
        :class:`~ghattempt.github.RateLimited`, nothing sent), and counts it until
        it leaves GitHub's windows."""
        ...


CONTENT_CREATING = frozenset({"AddDiscussionComment", "CreateCommitOnBranch",
                              "CreateDiscussion", "CreateRef"})
"""The GraphQL documents that create content (every REST ``POST`` counts too): the
comments, discussions, commits and refs GitHub's content limits count (docs/emulator.md)."""


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """Everything a :class:`~ghattempt.github.GitHubProvider` needs.

    Attributes:
        auth: :class:`TokenAuth` or :class:`AppAuth`.
        base_url: REST base, ``https://api.github.com/`` or GHES ``https://HOST/api/v3/``.
        timeout: seconds for reading a response (and writing the request); GitHub ends
            requests at 10 s itself, so keep this above 10.
        connect_timeout: seconds to open a connection.
        mutation_interval: least seconds between two mutations (GitHub docs, "Best
            practices": wait at least one second between mutative requests; each costs
            5 of the 2,000 secondary points a minute); 0 in tests.
        retry: the retry bounds.
        user_agent: the ``User-Agent`` header.
        transport: an httpx transport (``httpx.MockTransport``, a respx router, the
            emulator's in-process transport); None for real network.
        sleep: how to wait (tests pass a fake that advances a fake clock).
        clock: monotonic seconds, used for pacing.
        wall_clock: POSIX seconds, used when GitHub's ``Date`` header is missing.
        notice: called with one line before each wait longer than 2 s (a rate limit's
            ``retry-after`` or reset, a retry's backoff, pacing): what and how long. The
            CLI prints it to stderr; None logs it as a warning instead.
        credentials: where the App JWT and installation tokens are kept
            (:class:`~ghattempt.github.transport.Credentials`); providers given the same
            one share them. None: this provider's own.
        content_pacer: paces every content-creating request (:data:`CONTENT_CREATING`
            documents, REST ``POST``) of this provider with every other provider given
            the same one (:class:`ContentPacer`); None: not paced beyond
            ``mutation_interval``.
    """

    auth: Auth
    base_url: str = DEFAULT_API_URL
    timeout: float = DEFAULT_TIMEOUT
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    mutation_interval: float = DEFAULT_WRITE_INTERVAL
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    user_agent: str = "ghattempt"
    transport: httpx.BaseTransport | None = field(default=None, repr=False, compare=False)
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)
    clock: Callable[[], float] = field(default=time.monotonic, repr=False, compare=False)
    wall_clock: Callable[[], float] = field(default=time.time, repr=False, compare=False)
    notice: Callable[[str], None] | None = field(default=None, repr=False, compare=False)
    credentials: Credentials | None = field(default=None, repr=False, compare=False)
    content_pacer: ContentPacer | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.auth, TokenAuth | AppAuth):
            raise InputError("ProviderConfig.auth must be TokenAuth or AppAuth")
        try:
            url = httpx.URL(self.base_url)
        except Exception:
            raise InputError("ProviderConfig.base_url is not a URL") from None
        if url.scheme not in ("http", "https") or not url.host:
            raise InputError(
                "ProviderConfig.base_url must be http(s)://HOST/..., e.g. "
                "https://api.github.com/ or https://HOST/api/v3/ for GitHub Enterprise Server"
            )
        if url.userinfo or url.query or url.fragment:
            raise InputError(
                "ProviderConfig.base_url must not carry credentials, a query or a fragment; "
                "put credentials in auth"
            )
        if not all(math.isfinite(v) for v in (self.timeout, self.connect_timeout,
                                              self.mutation_interval)):
            raise InputError("ProviderConfig timeout, connect_timeout and mutation_interval "
                             "must be finite numbers of seconds (never unbounded)")
        if self.timeout <= 0 or self.connect_timeout <= 0:
            raise InputError("ProviderConfig timeouts must be > 0 seconds (never unbounded)")
        if self.mutation_interval < 0:
            raise InputError("ProviderConfig.mutation_interval must be >= 0 seconds")

    @property
    def graphql_url(self) -> str:
        """The GraphQL endpoint derived from ``base_url``."""
        return graphql_endpoint(self.base_url)
