"""httpx transports that hand requests to an in-process :class:`Emulator`.

``githubkit.GitHub(..., transport=EmulatorTransport(emu))`` (sync) and
``async_transport=AsyncEmulatorTransport(emu)`` reach the emulator without a socket.
A fault that drops the connection raises ``httpx.RemoteProtocolError`` after the
request was handled, as a reset connection does.
"""

from __future__ import annotations

import httpx

from .app import Emulator, Reply


def _to_httpx(request: httpx.Request, reply: Reply) -> httpx.Response:
    if reply.drop:
        raise httpx.RemoteProtocolError(
            "Server disconnected without sending a response.", request=request
        )
    return httpx.Response(
        reply.status, headers=list(reply.headers), content=reply.body, request=request
    )


def _path(request: httpx.Request) -> str:
    return request.url.raw_path.decode("ascii")


class EmulatorTransport(httpx.BaseTransport):
    """Synchronous httpx transport over ``emulator.handle``."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        reply = self.emulator.handle(
            request.method, _path(request), dict(request.headers.items()), body
        )
        return _to_httpx(request, reply)


class AsyncEmulatorTransport(httpx.AsyncBaseTransport):
    """Asynchronous httpx transport over ``emulator.handle`` (runs it in a thread so
    latency faults do not block the event loop)."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        import asyncio

        body = await request.aread()
        reply = await asyncio.to_thread(
            self.emulator.handle,
            request.method,
            _path(request),
            dict(request.headers.items()),
            body,
        )
        return _to_httpx(request, reply)
