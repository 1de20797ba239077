"""GitHub clients that act as one installation of the App.

githubkit's :class:`~githubkit.AppInstallationAuthStrategy` signs an App JWT (RS256,
``iss`` = App id, ``iat`` now - 60 s, ``exp`` ``iat`` + 10 min: GitHub's "Generating a JSON
Web Token (JWT) for a GitHub App") and exchanges it at
``POST /app/installations/{id}/access_tokens`` for an installation token, which it
caches until shortly before it expires.

The client is built for writers (architecture notes, library facts): a timeout is
always set (githubkit's default is none), on the token exchange too (githubkit sends it
without the client's timeout; :func:`ghattempt.github.transport.bounded`), ``auto_retry``
is off (it would re-send mutations on any 5xx), and ``http_cache`` is off.
"""

from __future__ import annotations

import httpx
from githubkit import AppInstallationAuthStrategy, GitHub

from ghattempt.app.settings import AppSettings, Secret
from ghattempt.github.transport import bounded

__all__ = ["installation_github", "installation_github_for"]


def installation_github(
    app_id: int,
    private_key: Secret,
    installation_id: int,
    *,
    base_url: str = "https://api.github.com/",
    timeout: float = 30.0,
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
