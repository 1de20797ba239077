"""Every new lease branch fires ``create`` webhooks (and each lease commit ``push``), which
``[skip ci]`` does not skip: docs/app.md says so where the App is configured and gives the
filters (issue 23, section 1). Over the HTTP emulator: a writer admits a pull request
(creating its lease branch), GitHub delivers ``create`` to a subscribed webhook, and the
documented filters match that delivery and no other branch."""

from __future__ import annotations

import json
import re
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cli.conftest import World

pytestmark = pytest.mark.network

DOC = Path(__file__).resolve().parents[2] / "docs" / "app.md"


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    got: list[tuple[str, dict[str, Any]]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got.append((self.headers["X-GitHub-Event"], json.loads(body)))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/webhook", got
    server.shutdown()
    server.server_close()


def _documented_filter() -> Any:
    """The webhook filter docs/app.md gives, run as written."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"```python\n( *def is_lease_branch.*?)\n *```", text, re.DOTALL)
    assert match, "docs/app.md gives no webhook filter for lease branches"
    scope: dict[str, Any] = {}
    exec(textwrap.dedent(match.group(1)), scope)  # noqa: S102 - the documentation's own snippet
    return scope["is_lease_branch"]


def test_a_new_lease_branch_fires_create_and_the_documented_filters_catch_it(
        tmp_path: Path, receiver: tuple[str, list[tuple[str, dict[str, Any]]]]) -> None:
    url, got = receiver
    world = World(tmp_path)
    try:
        answer = httpx.post(world.server.url + "/_emulator/hooks", json={
            "app_id": 1, "url": url, "secret": "s", "events": ["create"]})
        assert answer.status_code == 201, answer.text
        assert world.cli("admit", "--pull-request", "1").returncode == 0
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        world.close()
    (event, payload), = got
    assert event == "create" and payload["ref_type"] == "branch"
    assert payload["ref"].startswith("ghattempt/lease/")
    text = DOC.read_text(encoding="utf-8")
    assert "[skip ci]` keeps only `push` and `pull_request` *workflows*" in text
    assert ("if: ${{ !(github.event.ref_type == 'branch' && "
            "startsWith(github.event.ref, 'ghattempt/lease/')) }}") in text
    assert "branches-ignore: ['ghattempt/lease/**']" in text
    is_lease_branch = _documented_filter()
    assert is_lease_branch(event, payload)
    assert is_lease_branch("push", {"ref": "refs/heads/" + payload["ref"]})
    assert not is_lease_branch("create", {**payload, "ref": "feature"})
    assert not is_lease_branch("push", {"ref": "refs/heads/main"})
