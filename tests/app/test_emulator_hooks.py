"""The emulator's webhook deliveries (ghattempt.emulator.hooks): GitHub's headers and
signatures, the delivery log in GitHub's published shape (githubkit's models parse it),
pagination by cursor, redelivery, the 3-day window, and the refusals."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from githubkit import AppAuthStrategy, GitHub
from githubkit.exception import RequestFailed
from githubkit.webhooks import verify

from ghattempt.app.catchup import _cursor
from ghattempt.emulator import Emulator, EmulatorTransport

from .conftest import APP_ID, app_fixture, free_port

pytestmark = pytest.mark.network

SECRET = "hook-secret"


@dataclass
class Receiver:
    """A webhook endpoint on 127.0.0.1 answering ``status`` and keeping what it got."""

    status: int = 202
    got: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/webhook"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    rec = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            rec.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(rec.status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: Any) -> None:
            pass

    rec.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=rec.server.serve_forever, daemon=True)
    thread.start()
    yield rec
    rec.server.shutdown()
    rec.server.server_close()


@pytest.fixture
def world(rsa_pem) -> Iterator[tuple[Emulator, GitHub[Any]]]:
    fixture = app_fixture(rsa_pem[1])
    other = {**fixture["apps"][0], "app_id": APP_ID + 1, "slug": "other-app",
             "installations": []}
    fixture["apps"].append(other)
    emu = Emulator(fixture=fixture)
    app = GitHub(AppAuthStrategy(APP_ID, rsa_pem[1]), base_url="https://api.github.com/",
                 transport=EmulatorTransport(emu), http_cache=False, auto_retry=False,
                 timeout=10)
    yield emu, app


def admin(emu: Emulator, method: str, route: str, body: Any = None) -> Any:
    import json

    reply = emu.handle(method, f"/_emulator/{route}", {},
                       json.dumps(body).encode() if body is not None else b"")
    assert reply.status in (200, 201), reply.body
    return reply.json()


def event(number: int, action: str = "opened") -> dict[str, Any]:
    return {"action": action, "number": number, "installation": {"id": 777},
            "repository": {"id": 186853002, "node_id": "R_1", "full_name": "o/r"}}


def test_deliveries_carry_githubs_headers_and_are_logged_in_githubs_shape(world, receiver):
    emu, app = world
    admin(emu, "POST", "hooks", {"app_id": APP_ID, "url": receiver.url, "secret": SECRET})
    entry = admin(emu, "POST", "hooks/deliveries",
                  {"app_id": APP_ID, "event": "pull_request", "payload": event(1)})
    (headers, body), = receiver.got
    assert verify(SECRET, body, headers["x-hub-signature-256"])
    assert headers["x-hub-signature"].startswith("sha1=")
    assert headers["x-github-event"] == "pull_request"
    assert headers["x-github-delivery"] == entry["guid"]
    assert headers["x-github-hook-installation-target-type"] == "integration"
    assert headers["x-github-hook-installation-target-id"] == str(APP_ID)
    assert headers["user-agent"].startswith("GitHub-Hookshot/")
    receiver.status = 503
    admin(emu, "POST", "hooks/deliveries",
          {"app_id": APP_ID, "event": "pull_request", "payload": event(2)})
    admin(emu, "POST", "hooks", {"app_id": APP_ID, "url": f"http://127.0.0.1:{free_port()}/",
                                 "secret": SECRET})
    admin(emu, "POST", "hooks/deliveries",
          {"app_id": APP_ID, "event": "pull_request", "payload": event(3)})
    listed = app.rest.apps.list_webhook_deliveries(per_page=100).parsed_data  # GitHub's schema
    assert [(d.status, d.status_code) for d in listed] == [
        ("failed to connect to network", 0), ("Invalid HTTP Response: 503", 503), ("OK", 202)]
    first = listed[-1]
    assert (first.event, first.action, first.installation_id, first.repository_id,
            first.redelivery) == ("pull_request", "opened", 777, 186853002, False)


def test_the_log_pages_by_cursor_newest_first(world, receiver):
    emu, app = world
    admin(emu, "POST", "hooks", {"app_id": APP_ID, "url": receiver.url, "secret": SECRET})
    for n in range(5):
        admin(emu, "POST", "hooks/deliveries",
              {"app_id": APP_ID, "event": "pull_request", "payload": event(n)})
    seen: list[int] = []
    cursor = None
    pages = 0
    while True:
        response = (app.rest.apps.list_webhook_deliveries(per_page=2) if cursor is None else
                    app.rest.apps.list_webhook_deliveries(per_page=2, cursor=cursor))
        pages += 1
        seen += [d.id for d in response.parsed_data]
        cursor = _cursor(response)
        if cursor is None:
            break
    assert pages == 3 and seen == sorted(seen, reverse=True) and len(set(seen)) == 5
    with pytest.raises(RequestFailed) as bad:
        app.rest.apps.list_webhook_deliveries(per_page=101)
    assert bad.value.response.status_code == 422
    with pytest.raises(RequestFailed) as bad:
        app.rest.apps.list_webhook_deliveries(cursor="../../etc")
    assert bad.value.response.status_code == 400
    assert emu.handle("GET", "/app/hook/deliveries", {}, b"").status == 401  # no JWT


def test_a_redelivery_keeps_the_guid_and_the_window_is_three_days(world, receiver, rsa_pem):
    emu, app = world
    admin(emu, "POST", "hooks", {"app_id": APP_ID, "url": receiver.url, "secret": SECRET})
    receiver.status = 500
    entry = admin(emu, "POST", "hooks/deliveries",
                  {"app_id": APP_ID, "event": "pull_request", "payload": event(1)})
    receiver.status = 202
    answer = app.rest.apps.redeliver_webhook_delivery(entry["id"])
    assert answer.status_code == 202 and answer.json() == {}
    deadline = time.monotonic() + 10
    while len(receiver.got) < 2:  # GitHub redelivers in the background
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert receiver.got[1][1] == receiver.got[0][1]  # the same body
    assert receiver.got[1][0]["x-github-delivery"] == entry["guid"]
    deadline = time.monotonic() + 10
    while len(app.rest.apps.list_webhook_deliveries().parsed_data) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    again, first = app.rest.apps.list_webhook_deliveries().parsed_data
    assert (again.guid, again.redelivery, again.status) == (entry["guid"], True, "OK")
    assert first.id == entry["id"] and again.id > first.id
    other = GitHub(AppAuthStrategy(APP_ID + 1, rsa_pem[1]), base_url="https://api.github.com/",
                   transport=EmulatorTransport(emu), http_cache=False, auto_retry=False,
                   timeout=10)
    with pytest.raises(RequestFailed) as foreign:
        other.rest.apps.redeliver_webhook_delivery(entry["id"])
    assert foreign.value.response.status_code == 404
    # three days later (the log's times moved back: the App's JWT lives 10 minutes on
    # the emulator's clock, which only moves forward)
    with emu.state.transaction() as db:
        db.execute("UPDATE hook_deliveries SET delivered_at = delivered_at - ?",
                   (3 * 24 * 3600 + 1,))
    assert app.rest.apps.list_webhook_deliveries().parsed_data == []
    with pytest.raises(RequestFailed) as old:
        app.rest.apps.redeliver_webhook_delivery(entry["id"])
    assert old.value.response.status_code == 422
