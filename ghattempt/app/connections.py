"""The store sink's GitHub clients: lent to one worker thread at a time, over one HTTP
connection pool.

A GitHub client (:class:`~ghattempt.github.GitHubProvider`) is not thread-safe, and
making one costs: its own App JWT (parsing the RSA key takes tens of milliseconds of
CPU) and installation-token exchange, and an httpx client. :class:`ClientPool` lends a
client to one thread for one request, or for a whole burst (the writer scopes a burst
keeps hold on to their client), and lends it to any thread after that; so an
installation has as many clients as threads ever worked for it *at the same time*, not
one per thread.

:class:`SharedTransport` is one httpx transport (thread-safe, one TLS context loading
the CA bundle once, one pool of keep-alive connections) that every client of the sink
uses; a client closing does not close it, the sink does.

The environment applies as httpx applies it to a client of its own: ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` (httpx's ``trust_env``), and ``HTTPS_PROXY`` / ``HTTP_PROXY`` /
``ALL_PROXY`` unless ``NO_PROXY`` names the API host (Python's
:func:`urllib.request.getproxies` and :func:`urllib.request.proxy_bypass`).
"""

from __future__ import annotations

import contextlib
import threading
import urllib.parse
import urllib.request
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

import httpx

__all__ = ["ClientPool", "SharedTransport"]

T = TypeVar("T")


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


class ClientPool(Generic[T]):
    """Clients by key, each used by one thread at a time (module docstring).

    A thread takes clients inside :meth:`using` blocks (nested blocks join the outer
    one); when its outermost block ends, every client it took goes back to the pool.
    """

    def __init__(self) -> None:
        self._idle: dict[Hashable, list[T]] = {}
        self._every: list[T] = []
        self._lock = threading.Lock()
        self._local = threading.local()

    @contextlib.contextmanager
    def using(self) -> Iterator[None]:
        """Keep the clients this thread takes until the outermost block ends."""
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        if depth == 0:
            self._local.taken = {}
        try:
            yield
        finally:
            self._local.depth = depth
            if depth == 0:
                taken: dict[Hashable, T] = self._local.taken
                self._local.taken = {}
                with self._lock:
                    for key, client in taken.items():
                        self._idle.setdefault(key, []).append(client)

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        """This thread's client for ``key``: the one it took already, an idle one, or a
        new one from ``make()``. Outside :meth:`using` the client stays this thread's."""
        taken: dict[Hashable, T] | None = getattr(self._local, "taken", None)
        if taken is None:
            taken = self._local.taken = {}
        client = taken.get(key)
        if client is not None:
            return client
        with self._lock:
            idle = self._idle.get(key)
            client = idle.pop() if idle else None
        if client is None:
            client = make()
            with self._lock:
                self._every.append(client)
        taken[key] = client
        return client

    def drain(self) -> list[T]:
        """Every client the pool made (to close them); the pool is empty afterwards."""
        with self._lock:
            every, self._every, self._idle = self._every, [], {}
        return every
