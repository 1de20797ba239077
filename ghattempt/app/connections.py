"""One HTTP connection pool for all of a sink's GitHub clients.

The store sink keeps a GitHub client per installation and worker thread (a client is
not thread-safe). Each httpx client would otherwise build its own transport, and with
it a TLS context loading the CA bundle (tens of milliseconds of CPU each, hundreds on a
loaded machine) and its own connections. :class:`SharedTransport` is one httpx transport
(thread-safe, one TLS context, one pool of keep-alive connections) that every client of
the sink uses; a client closing does not close it, the sink does.

The environment applies as httpx applies it to a client of its own: ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` (httpx's ``trust_env``), and ``HTTPS_PROXY`` / ``HTTP_PROXY`` /
``ALL_PROXY`` unless ``NO_PROXY`` names the API host (Python's
:func:`urllib.request.getproxies` and :func:`urllib.request.proxy_bypass`).
"""

from __future__ import annotations

import urllib.parse
import urllib.request

import httpx

__all__ = ["SharedTransport"]


def _proxy_for(base_url: str) -> str | None:
    parts = urllib.parse.urlsplit(base_url)
    if parts.hostname and urllib.request.proxy_bypass(parts.hostname):
        return None
    proxies = urllib.request.getproxies()
    return proxies.get(parts.scheme) or proxies.get("all")


class SharedTransport(httpx.BaseTransport):
    """An httpx transport shared by many clients (module docstring).

    Args:
        base_url: the GitHub API URL the clients talk to (it chooses the proxy).
        max_connections: most connections open at once.
    """

    def __init__(self, base_url: str, *, max_connections: int = 100) -> None:
        self._inner = httpx.HTTPTransport(
            proxy=_proxy_for(base_url),
            limits=httpx.Limits(max_connections=max_connections,
                                max_keepalive_connections=max_connections),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._inner.handle_request(request)

    def close(self) -> None:
        """A client closing: the pool stays open for the others (see :meth:`shut`)."""

    def shut(self) -> None:
        """Close the pool for good (the sink closing)."""
        self._inner.close()
