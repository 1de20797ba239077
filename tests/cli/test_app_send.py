"""``ghattempt app send EVENT FIXTURE``: a delivery signed as GitHub signs it.

A loopback HTTP server plays the App's endpoint and checks the delivery the way the App
server does (``githubkit.webhooks.verify`` over the exact body bytes).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from githubkit.webhooks import verify

from .conftest import cli_env, run_cli

SECRET = "app-send-secret-7c1d"  # noqa: S105 -- a test secret, signs test bodies only


@pytest.fixture
def endpoint():
    got: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 -- http.server's name
            body = self.rfile.read(int(self.headers["content-length"]))
            ok = verify(SECRET, body, self.headers.get("x-hub-signature-256", ""))
            got.append({"headers": dict(self.headers), "body": body, "ok": ok,
                        "path": self.path})
            self.send_response(202 if ok else 401)
            self.end_headers()
            self.wfile.write(b'{"ok":true}' if ok else b'{"error":"bad signature"}')

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/webhook", got
    finally:
        server.shutdown()


def test_a_signed_delivery_is_accepted(endpoint, tmp_path: Path) -> None:
    url, got = endpoint
    fixture = tmp_path / "workflow_job.json"
    fixture.write_bytes(json.dumps({"action": "completed", "workflow_job": {"id": 1}},
                                   indent=2).encode())
    done = run_cli("app", "send", "workflow_job", str(fixture), "--url", url,
                   env=cli_env(GHATTEMPT_WEBHOOK_SECRET=SECRET))
    assert done.returncode == 0, done.stderr
    (delivery,) = got
    assert delivery["ok"] and delivery["path"] == "/webhook"
    assert delivery["body"] == fixture.read_bytes()  # the bytes as they are, unchanged
    assert delivery["headers"]["X-GitHub-Event"] == "workflow_job"
    guid = delivery["headers"]["X-GitHub-Delivery"]
    assert len(guid) == 36 and guid.count("-") == 4
    assert delivery["headers"]["User-Agent"].startswith("GitHub-Hookshot/")
    assert done.stdout.decode().startswith(f"workflow_job {guid} -> HTTP 202")
    assert SECRET not in done.stdout.decode() + done.stderr.decode()


def test_a_wrong_secret_is_refused_by_the_endpoint(endpoint, tmp_path: Path) -> None:
    url, got = endpoint
    fixture = tmp_path / "ping.json"
    fixture.write_text('{"zen": "Keep it logically awesome."}')
    secret_file = tmp_path / "secret"
    secret_file.write_text("another secret\n")
    done = run_cli("app", "send", "ping", str(fixture), "--url", url,
                   env=cli_env(GHATTEMPT_WEBHOOK_SECRET_FILE=str(secret_file)))
    assert done.returncode == 4
    assert got[0]["ok"] is False and "HTTP 401" in done.stdout.decode()


@pytest.mark.parametrize("argv, env, said", [
    (["ping", "missing.json"], {"GHATTEMPT_WEBHOOK_SECRET": SECRET}, "missing.json"),
    (["ping", "{fixture}"], {}, "no webhook secret"),
    (["bad event!", "{fixture}"], {"GHATTEMPT_WEBHOOK_SECRET": SECRET}, "EVENT must be"),
])
def test_bad_input_is_one_line(tmp_path: Path, argv: list[str], env: dict[str, str],
                               said: str) -> None:
    fixture = tmp_path / "f.json"
    fixture.write_text("{}")
    argv = [a.replace("{fixture}", str(fixture)) for a in argv]
    done = run_cli("app", "send", *argv, "--url", "http://127.0.0.1:9/webhook",
                   env=cli_env(**env))
    err = done.stderr.decode()
    assert done.returncode == 2 and said in err and len(err.strip().splitlines()) == 1


def test_no_server_is_exit_4(tmp_path: Path) -> None:
    fixture = tmp_path / "f.json"
    fixture.write_text("{}")
    done = run_cli("app", "send", "ping", str(fixture), "--url", "http://127.0.0.1:9/webhook",
                   env=cli_env(GHATTEMPT_WEBHOOK_SECRET=SECRET))
    assert done.returncode == 4 and "did not answer" in done.stderr.decode()
