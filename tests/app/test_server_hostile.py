"""The webhook server against hostile clients: every request gets a bounded answer.

Raw sockets send what httpx would not: header bytes outside ASCII, bodies that trickle.
"""

from __future__ import annotations

import json
import socket
import time

import pytest

from .conftest import SECRET, headers, sign

pytestmark = pytest.mark.network


def raw_request(port: int, head: bytes, body: bytes = b"", *, wait: float = 15.0) -> bytes:
    """Send one request as given; return the status line (b"" if the server hung up)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(head + body)
        data = b""
        try:
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        except TimeoutError:
            return b"timeout"
    return data.split(b"\r\n", 1)[0]


def request_head(body: bytes, **replace: bytes) -> bytes:
    fields = {k.encode(): v.encode() for k, v in headers("pull_request", body).items()}
    fields[b"Content-Length"] = str(len(body)).encode()
    fields.update({k.replace("_", "-").encode(): v for k, v in replace.items()})
    lines = [b"POST /webhook HTTP/1.1", b"Host: 127.0.0.1"]
    lines += [k + b": " + v for k, v in fields.items()]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def test_header_values_outside_ascii_are_refused_not_a_server_error(server_factory):
    server = server_factory().start()
    body = b'{"action":"opened"}'
    good_signature = sign(body).encode()
    cases = [
        request_head(body, X_Hub_Signature_256=b"sha256=\xe9" + good_signature[8:]),
        request_head(body, X_Hub_Signature_256=good_signature + b"\xb2"),
        request_head(body, X_GitHub_Delivery=b"\xb2\xb3"),
    ]
    for head in cases:
        status = raw_request(server.port, head, body)
        assert status.split(b" ")[1:2] in ([b"400"], [b"401"]), (head, status)
    # a Content-Length of digits Python counts but int() does not: a malformed request
    status = raw_request(server.port, request_head(body, Content_Length=b"\xb2"), body)
    assert not status.startswith(b"HTTP/1.1 5"), status
    assert "Traceback" not in server.log_text()
    assert server.health()["inbox"] == {"pending": 0, "done": 0, "failed": 0}


def test_a_signed_deeply_nested_body_is_refused_as_not_json(server_factory):
    server = server_factory().start()
    body = b'{"action":"opened","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert server.post("pull_request", body).status_code == 400
    assert "Traceback" not in server.log_text()
    assert SECRET not in server.log_text()


def test_a_body_that_trickles_is_cut_off_at_the_read_deadline(server_factory):
    server = server_factory().start()
    body = b'{"action":"opened"}' + b" " * 100
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(request_head(body) + body[:10])
        s.settimeout(1.0)
        answer = b""
        for i in range(25):  # one byte a second: a slowloris body
            try:
                answer = s.recv(4096)
                break
            except TimeoutError:
                try:
                    s.sendall(body[10 + i:11 + i])
                except OSError:
                    break
    elapsed = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
    assert elapsed < 15
    assert server.health()["inbox"] == {"pending": 0, "done": 0, "failed": 0}


def test_headers_that_trickle_are_cut_off_within_10_s_and_health_stays_up(server_factory):
    import selectors

    server = server_factory().start()
    sel = selectors.DefaultSelector()
    opened_at: dict[socket.socket, float] = {}
    for n in range(60):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        if n % 3:  # a request line and headers, one byte a second; or nothing at all
            s.sendall(b"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        s.setblocking(False)
        opened_at[s] = time.monotonic()
        sel.register(s, selectors.EVENT_READ)
    closed_after: dict[socket.socket, float] = {}
    healthy = []
    deadline = time.monotonic() + 20
    next_byte = time.monotonic() + 1.0
    while len(closed_after) < len(opened_at) and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.1):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:
                closed_after[s] = time.monotonic() - opened_at[s]
                sel.unregister(s)
        if time.monotonic() >= next_byte:
            next_byte += 1.0
            for s in opened_at:
                if s not in closed_after:
                    try:
                        s.send(b"a")
                    except (BlockingIOError, OSError):
                        pass
        if len(healthy) < 3 and closed_after == {}:
            healthy.append(server.health()["status"])  # answered meanwhile
    for s in opened_at:
        s.close()
    assert len(closed_after) == 60, f"{60 - len(closed_after)} connections still open"
    # closed at the 10 s deadline; the rest is this client noticing (a loaded machine)
    assert max(closed_after.values()) < 12.0, sorted(closed_after.values())[-5:]
    assert min(closed_after.values()) > 9.0  # the deadline, not something sooner
    assert healthy and set(healthy) == {"ok"}
    assert "no complete request headers within 10 s" in server.log_text()


def test_a_flood_of_idle_connections_cannot_crowd_out_health_checks_and_deliveries(
        server_factory, example):
    """At 256 file descriptors the server keeps at most 128 client connections: past
    that, the one that waited longest for its headers makes room, so a flood of idle
    connections holds no descriptor a real request needs."""
    server = server_factory().start(open_files=256)
    flood = []
    for _ in range(300):
        try:
            s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        except OSError:
            break
        s.sendall(b"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        flood.append(s)
    try:
        for n in range(3):
            started = time.monotonic()
            assert server.health()["status"] == "ok"
            body = json.dumps({**example("pull_request", "opened"), "n": n}).encode()
            assert server.post("pull_request", body).status_code == 202
            assert time.monotonic() - started < 5  # not held until the flood times out
    finally:
        for s in flood:
            s.close()
    assert "it waited longest for its request headers" in server.log_text()


def test_a_github_that_never_answers_costs_each_request_its_timeout(server_factory, example):
    """The App's server against a GitHub that accepts connections, reads the requests and
    never answers (``GHATTEMPT_HTTP_TIMEOUT=1``): the catch-up's request and a delivery's
    requests (its installation-token exchange first) are each given up after the
    timeout, the catch-up says so, and health checks answer throughout."""
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    lasted: list[tuple[bytes, float]] = []  # each request's first line, how long it was held

    def hold(conn: socket.socket) -> None:
        opened = time.monotonic()
        first = b""
        with conn:
            while chunk := conn.recv(65536):  # until the App gives up and closes
                first = first or chunk.split(b"\r\n", 1)[0]
        lasted.append((first, time.monotonic() - opened))

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=hold, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        server = server_factory(
            GHATTEMPT_APP_SINK="ghattempt.app.store_sink:store_sink",
            GHATTEMPT_GITHUB_API_URL=f"http://127.0.0.1:{listener.getsockname()[1]}/",
            GHATTEMPT_HTTP_TIMEOUT="1", GHATTEMPT_APP_CATCHUP_INTERVAL="300").start()
        payload = example("pull_request", "opened")
        payload["installation"] = {"id": 777}
        assert server.post("pull_request", json.dumps(payload).encode()).status_code == 202
        deadline = time.monotonic() + 30
        while not (any(b"/access_tokens" in line for line, _ in lasted)
                   and any(b"/app/hook/deliveries" in line for line, _ in lasted)):
            assert time.monotonic() < deadline, (lasted, server.log_text())
            assert server.health()["status"] == "ok"
            time.sleep(0.1)
        assert "catch-up failed" in server.log_text()
        assert server.health()["inbox"]["pending"] == 1  # to be tried again
        given_up = list(lasted)  # not those the kill below cuts short
        server.kill()  # its worker is in the provider's backoff between two tries
    finally:
        listener.close()
    # cut off at the timeout (the rest is a loaded machine), not held until we hang up
    assert all(0.9 < took < 5 for _, took in given_up), given_up
