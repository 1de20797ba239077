"""uvicorn's HTTP protocols with a deadline for request headers.

uvicorn closes an idle keep-alive connection after ``timeout_keep_alive`` seconds, but
only once a response is complete, and any byte received cancels that timer: a client
that opens a connection and sends its request line and headers one byte a second holds
the connection (and a file descriptor) for as long as it likes. Enough of them exhaust
the process's file limit, and health checks and real deliveries then fail.

These subclasses add one timer per connection: armed when the connection opens and
when a response is complete (the next request may begin), disarmed when a request's
headers are complete (the webhook's own :data:`~ghattempt.app.server.BODY_TIMEOUT`
bounds the body from there). When it fires, the connection is closed. GitHub sends a
delivery's headers and body at once and gives up on a delivery after 10 s (GitHub docs,
"Handling failed webhook deliveries"), so :data:`HEADER_TIMEOUT` is 10 s.

Within those 10 s a flood of connections could still use up the process's file
descriptors (the kernel then holds new connections, health checks and GitHub's
deliveries among them, in the listen queue). So when the open connections reach
:func:`connection_cap` (the descriptor limit less :data:`RESERVED_FDS`), a new one makes
the connection that has waited longest for its headers close at once; when none is
waiting for headers (every connection is a request being answered), the new one is
closed.

:func:`protocol_class` picks the subclass of the protocol uvicorn would pick itself
(``http="auto"``: httptools when installed, else h11).
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections import OrderedDict
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEADER_TIMEOUT", "RESERVED_FDS", "H11HeaderDeadline", "connection_cap",
           "protocol_class"]

HEADER_TIMEOUT = 10.0
"""Seconds a client has, from opening the connection or from the end of the previous
response, to send a request's complete headers."""

RESERVED_FDS = 128
"""File descriptors kept for what is not a client connection: the inbox's database
connections and files, GitHub's connections, logs."""

log = logging.getLogger("ghattempt.app")

# the connections waiting for their headers, oldest first (one server per process)
_waiting: OrderedDict[int, _HeaderDeadline] = OrderedDict()


def connection_cap() -> int:
    """Most client connections kept open: the soft descriptor limit less
    :data:`RESERVED_FDS` (at least 64)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1 << 16
    return max(64, soft - RESERVED_FDS)


class _HeaderDeadline:
    """The deadline, mixed into a uvicorn protocol (``cycle`` is set once a request's
    headers are parsed; ``transport`` and ``loop`` are the protocol's)."""

    header_timeout = HEADER_TIMEOUT
    cap: int | None = None
    _header_timer: asyncio.TimerHandle | None = None
    cycle: Any
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    client: tuple[str, int] | None
    connections: set[Any]

    def _arm_headers(self) -> None:
        self._disarm_headers()
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_late)
        _waiting[id(self)] = self

    def _disarm_headers(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        _waiting.pop(id(self), None)

    def _close_waiting(self, why: str) -> None:
        self._disarm_headers()
        if not self.transport.is_closing():
            peer = self.client[0] if self.client else "?"
            log.warning("closed a connection from %s: %s", peer, why)
            self.transport.close()

    def _headers_late(self) -> None:
        self._header_timer = None
        self._close_waiting(f"no complete request headers within {self.header_timeout:g} s")

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        cap = self.cap if self.cap is not None else connection_cap()
        if len(self.connections) > cap:
            if _waiting:
                _, oldest = _waiting.popitem(last=False)
                oldest._close_waiting(f"{cap} connections open; it waited longest for its "
                                      "request headers")
            else:
                self.transport.close()
                return
        self._arm_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_headers()
        super().connection_lost(exc)  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        before = self.cycle
        super().data_received(data)  # type: ignore[misc]
        if self.cycle is not before:  # a request's headers are complete
            self._disarm_headers()

    def on_response_complete(self) -> None:
        before = self.cycle
        super().on_response_complete()  # type: ignore[misc]
        if self.cycle is not before:  # a pipelined request was already read whole
            self._disarm_headers()
        elif not self.transport.is_closing():
            self._arm_headers()


class H11HeaderDeadline(_HeaderDeadline, H11Protocol):
    """uvicorn's h11 protocol with the header deadline."""


def protocol_class() -> type[asyncio.Protocol]:
    """The protocol class the server runs: httptools' when installed, else h11's, each
    with the header deadline."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return H11HeaderDeadline

    class HttpToolsHeaderDeadline(_HeaderDeadline, HttpToolsProtocol):
        """uvicorn's httptools protocol with the header deadline."""

    return HttpToolsHeaderDeadline
