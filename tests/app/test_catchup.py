"""Catching up after downtime, over HTTP: the emulator (subprocess) delivers to the App's
server (subprocess) the way GitHub does; deliveries that fail while the server is down
are found in the App's delivery log when it starts, redelivered, and each is processed
exactly once."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from ghattempt.app.recording import read_effects

from .conftest import APP_ID, SECRET, Emu, Server, free_port

pytestmark = pytest.mark.network


def deliver(emu: Emu, example: Callable[..., dict[str, Any]], action: str,
            number: int) -> dict[str, Any]:
    payload = example("pull_request", action)
    payload["number"] = payload["pull_request"]["number"] = number
    payload["installation"] = {"id": 777}
    entry: dict[str, Any] = emu.admin("hooks/deliveries", {
        "app_id": APP_ID, "event": "pull_request", "payload": payload})
    return entry


def caught_up(server: Server, times: int, timeout: float = 60) -> str:
    """Wait until the server has logged ``times`` catch-ups; its log."""
    deadline = time.monotonic() + timeout
    while (log := server.log_text()).count("catch-up: ") < times:  # one line a catch-up
        assert time.monotonic() < deadline, log
        time.sleep(0.05)
    return log


def test_what_failed_while_the_server_was_down_is_processed_once_when_it_starts(
        emu: Emu, server_factory: Callable[..., Server], example) -> None:
    port = free_port()
    emu.admin("hooks", {"app_id": APP_ID, "url": f"http://127.0.0.1:{port}/webhook",
                        "secret": SECRET})
    app = server_factory(GHATTEMPT_GITHUB_API_URL=emu.url + "/",
                         GHATTEMPT_APP_CATCHUP_INTERVAL="300")
    app.start(port=port)
    caught_up(app, 1)
    first = deliver(emu, example, "opened", 1)
    assert (first["status"], first["status_code"]) == ("OK", 202)
    app.stop()
    lost = [deliver(emu, example, "opened", n) for n in range(2, 7)]
    ignored = deliver(emu, example, "labeled", 7)  # the server ignores it: not redelivered
    assert {d["status"] for d in [*lost, ignored]} == {"failed to connect to network"}

    app.start(port=port)
    log = caught_up(app, 2)
    assert "5 redeliveries asked" in log and "1 ignored event" in log and "1 delivered" in log
    deadline = time.monotonic() + 60
    while len(read_effects(app.recording)) < 6:
        assert time.monotonic() < deadline, app.log_text()
        time.sleep(0.05)
    assert app.wait_idle() == {"pending": 0, "done": 6, "failed": 0}
    keys = sorted(e["key"] for e in read_effects(app.recording))
    assert keys == sorted(f"gh:{d['guid']}:open" for d in [first, *lost])
    log_entries = emu.admin("hooks/deliveries")["deliveries"]
    redelivered = [d for d in log_entries if d["redelivery"]]
    assert sorted(d["guid"] for d in redelivered) == sorted(d["guid"] for d in lost)
    assert {(d["status"], d["status_code"]) for d in redelivered} == {("OK", 202)}

    # the next start finds nothing to redeliver: everything is in the inbox or delivered
    app.stop()
    app.start(port=port)
    log = caught_up(app, 3)
    assert "0 redeliveries asked" in log.rsplit("catch-up: ", 1)[1].split("\n")[0]
    assert len(emu.admin("hooks/deliveries")["deliveries"]) == len(log_entries)
    assert len(read_effects(app.recording)) == 6
