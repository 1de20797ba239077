"""GitHub clients that act as one installation of the App.

githubkit's :class:`~githubkit.AppInstallationAuthStrategy` signs an App JWT (RS256,
``iss`` = App id, ``iat`` now - 60 s, ``exp`` ``iat`` + 10 min: GitHub's "Generating a JSON
Web Token (JWT) for a GitHub App") and exchanges it at
``POST /app/installations/{id}/access_tokens`` for an installation token, which it
caches until shortly before it expires.

The client is built for writers (docs/provider.md): a timeout is
always set (githubkit's default is none), on the token exchange too (githubkit sends it
without the client's timeout; :func:`ghattempt.github.transport.bounded`), ``auto_retry``
is off (it would re-send mutations on any 5xx), and ``http_cache`` is off.

:class:`BotLogin` is the App's own bot account as webhook payloads name it
(``<slug>[bot]``), asked of GitHub once (``GET /app`` with the App's JWT: "Get the
authenticated app") and kept: the workers ignore a delivery that account sent
(:func:`ghattempt.app.routing.plan_delivery`, ``bot_login``).
"""

from __future__ import annotations

import threading

import httpx
from githubkit import AppAuthStrategy, AppInstallationAuthStrategy, GitHub
from githubkit.exception import GitHubException

from ghattempt.app.settings import AppSettings, Secret
from ghattempt.app.sink import SinkUnavailable
from ghattempt.github import DEFAULT_API_URL, DEFAULT_TIMEOUT
from ghattempt.github.identity import BOT_SUFFIX, LOGIN
from ghattempt.github.transport import bounded

__all__ = ["BotLogin", "installation_github", "installation_github_for"]


def installation_github(
    app_id: int,
    private_key: Secret,
    installation_id: int,
    *,
    base_url: str = DEFAULT_API_URL,
    timeout: float = DEFAULT_TIMEOUT,
    transport: httpx.BaseTransport | None = None,
) -> GitHub[AppInstallationAuthStrategy]:
    """A githubkit client authenticated as installation ``installation_id`` of the App.

    Args:
        app_id: the App id (the JWT's ``iss``).
        private_key: the App's PEM RSA private key.
        installation_id: the installation to act as (webhook payload ``installation.id``).
        base_url: REST base URL (GHES: ``https://HOST/api/v3/``).
        timeout: seconds for each request (connect, read, write, pool), the token
            exchange included.
        transport: an httpx transport, for tests (``httpx.MockTransport``).

    Raises:
        ValueError: ``app_id``, ``installation_id`` or ``timeout`` is not positive.
    """
    if app_id < 1 or installation_id < 1:
        raise ValueError("app_id and installation_id must be integers >= 1")
    if not timeout > 0:
        raise ValueError("timeout must be a positive number of seconds")
    auth = AppInstallationAuthStrategy(app_id, private_key.reveal(), installation_id)
    return GitHub(
        auth,
        base_url=base_url,
        timeout=timeout,
        http_cache=False,
        auto_retry=False,
        transport=transport,
        event_hooks={"request": [bounded(httpx.Timeout(timeout))]},
    )


def installation_github_for(
    settings: AppSettings,
    installation_id: int,
    *,
    transport: httpx.BaseTransport | None = None,
) -> GitHub[AppInstallationAuthStrategy]:
    """:func:`installation_github` with the App id, key, URL and timeout of ``settings``."""
    return installation_github(
        settings.app_id,
        settings.private_key,
        installation_id,
        base_url=settings.api_url,
        timeout=settings.http_timeout,
        transport=transport,
    )


class BotLogin:
    """``BotLogin(settings)()``: the App's bot login, ``<slug>[bot]``, from ``GET /app``
    (asked on the first call, then kept; thread-safe).

    Raises (on a call):
        SinkUnavailable: GitHub did not answer the App's slug (unreachable, or refused
            the JWT); the delivery that needed it is tried again later.
    """

    def __init__(self, settings: AppSettings, *,
                 transport: httpx.BaseTransport | None = None) -> None:
        timeout = httpx.Timeout(settings.http_timeout)
        self._github: GitHub[AppAuthStrategy] = GitHub(
            AppAuthStrategy(settings.app_id, settings.private_key.reveal()),
            base_url=settings.api_url, timeout=settings.http_timeout, http_cache=False,
            auto_retry=False, transport=transport,
            event_hooks={"request": [bounded(timeout)]})
        self._lock = threading.Lock()
        self._login: str | None = None

    def __call__(self) -> str:
        with self._lock:
            if self._login is None:
                try:
                    answer: object = self._github.rest.apps.get_authenticated().json()
                except (GitHubException, httpx.HTTPError, ValueError) as exc:
                    raise SinkUnavailable(f"GET /app (the App's own slug) failed: "
                                          f"{type(exc).__name__}: {exc}") from None
                slug = answer.get("slug") if isinstance(answer, dict) else None
                if not isinstance(slug, str) or not LOGIN.match(slug):
                    raise SinkUnavailable(f"GET /app answered no App slug ({slug!r})")
                self._login = slug + BOT_SUFFIX
            return self._login
