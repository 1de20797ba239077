"""Configuration from the environment, secret hygiene, and the installation client."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import jwt
import pytest

from ghattempt.app.installation import BotLogin, installation_github, installation_github_for
from ghattempt.app.settings import ConfigurationError, Secret, load_settings
from ghattempt.app.sink_factory import load_sink

from .conftest import SECRET


def env_for(tmp_path: Path, key_path: Path, **extra: str) -> dict[str, str]:
    return {
        "GHATTEMPT_APP_ID": "12345",
        "GHATTEMPT_APP_PRIVATE_KEY_FILE": str(key_path),
        "GHATTEMPT_WEBHOOK_SECRET": SECRET,
        "GHATTEMPT_APP_STATE": str(tmp_path / "inbox.sqlite"),
        **extra,
    }


def test_settings_load_and_hide_their_secrets(tmp_path, rsa_pem):
    key_path, pem = rsa_pem
    settings = load_settings(env_for(tmp_path, key_path))
    assert settings.app_id == 12345
    assert settings.api_url == "https://api.github.com/"
    assert settings.max_body == 25 * 1024 * 1024
    assert settings.webhook_secret.reveal() == SECRET
    shown = (
        repr(settings) + str(settings) + repr(settings.private_key) + str(settings.webhook_secret)
    )
    assert SECRET not in shown
    assert "PRIVATE KEY" not in shown and pem.splitlines()[1] not in shown


def test_the_inbox_the_pool_the_window_and_the_catch_up(tmp_path, rsa_pem):
    settings = load_settings(env_for(tmp_path, rsa_pem[0]))
    assert (settings.workers, settings.retry_window, settings.catchup_interval) == (4, 600, 300)
    assert settings.inbox_location == tmp_path / "inbox.sqlite" and settings.database is None
    url = "postgresql://app:pa55word@db.example:5432/ghattempt"
    shared = load_settings(env_for(tmp_path, rsa_pem[0], GHATTEMPT_APP_STATE="",
                                   GHATTEMPT_APP_DATABASE=url, GHATTEMPT_APP_WORKERS="8",
                                   GHATTEMPT_APP_RETRY_WINDOW="1200",
                                   GHATTEMPT_APP_CATCHUP_INTERVAL="0"))
    assert shared.inbox_location == url and shared.state_path is None
    assert (shared.workers, shared.retry_window, shared.catchup_interval) == (8, 1200, 0)
    assert "pa55word" not in repr(shared) + str(shared.database)


def test_secret_from_file_and_ghes_url(tmp_path, rsa_pem):
    secret_file = tmp_path / "secret"
    secret_file.write_text("from-file\n")
    env = env_for(tmp_path, rsa_pem[0], GHATTEMPT_GITHUB_API_URL="https://ghes.example/api/v3")
    del env["GHATTEMPT_WEBHOOK_SECRET"]
    env["GHATTEMPT_WEBHOOK_SECRET_FILE"] = str(secret_file)
    settings = load_settings(env)
    assert settings.webhook_secret.reveal() == "from-file"
    assert settings.api_url == "https://ghes.example/api/v3/"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"GHATTEMPT_APP_ID": ""}, "GHATTEMPT_APP_ID is not set"),
        ({"GHATTEMPT_APP_ID": "12a"}, "GHATTEMPT_APP_ID must be an integer"),
        ({"GHATTEMPT_WEBHOOK_SECRET": ""}, "GHATTEMPT_WEBHOOK_SECRET"),
        ({"GHATTEMPT_WEBHOOK_SECRET_FILE": "/nonexistent/secret"}, "set only one"),
        ({"GHATTEMPT_APP_STATE": ""}, "GHATTEMPT_APP_STATE is not set"),
        ({"GHATTEMPT_APP_PRIVATE_KEY_FILE": "/nonexistent/key.pem"}, "cannot read"),
        ({"GHATTEMPT_APP_MAX_BODY": "-1"}, "GHATTEMPT_APP_MAX_BODY"),
        ({"GHATTEMPT_HTTP_TIMEOUT": "0"}, "GHATTEMPT_HTTP_TIMEOUT"),
        ({"GHATTEMPT_GITHUB_API_URL": "ftp://x"}, "http"),
        ({"GHATTEMPT_APP_SINK": "nocolon"}, "module:callable"),
        ({"GHATTEMPT_APP_PHASES": "/nonexistent/phases.toml"}, "GHATTEMPT_APP_PHASES"),
        ({"GHATTEMPT_APP_DATABASE": "postgresql://u:pw@db/x"}, "set only one"),
        ({"GHATTEMPT_APP_STATE": "", "GHATTEMPT_APP_DATABASE": "mysql://db"},
         "must be a postgresql:// URL"),
        ({"GHATTEMPT_APP_WORKERS": "0"}, "GHATTEMPT_APP_WORKERS must be an integer >= 1"),
        ({"GHATTEMPT_APP_WORKERS": "65"}, "GHATTEMPT_APP_WORKERS must be at most 64"),
        ({"GHATTEMPT_APP_RETRY_WINDOW": "0"}, r"GHATTEMPT_APP_RETRY_WINDOW must be seconds in \(0"),
        ({"GHATTEMPT_APP_CATCHUP_INTERVAL": "-5"}, r"must be seconds in \[0, 86400\]"),
    ],
)
def test_bad_environment_is_named(tmp_path, rsa_pem, change, message):
    env = env_for(tmp_path, rsa_pem[0])
    env.update(change)
    with pytest.raises(ConfigurationError, match=message) as info:
        load_settings(env)
    assert SECRET not in str(info.value)


def test_a_non_key_file_is_refused_without_echoing_it(tmp_path, rsa_pem):
    bogus = tmp_path / "bogus.pem"
    bogus.write_text(
        "-----BEGIN RSA PRIVATE KEY-----\nTOPSECRETMATERIAL\n-----END RSA PRIVATE KEY-----\n"
    )
    with pytest.raises(ConfigurationError, match="not an unencrypted PEM") as info:
        load_settings(env_for(tmp_path, bogus))
    assert "TOPSECRETMATERIAL" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_default_sink_is_the_store_and_a_wrong_one_is_named(tmp_path, rsa_pem):
    from ghattempt.app.store_sink import StoreSink

    settings = load_settings(env_for(tmp_path, rsa_pem[0]))
    assert isinstance(load_sink(settings), StoreSink)
    bad = load_settings(env_for(tmp_path, rsa_pem[0], GHATTEMPT_APP_SINK="builtins:repr"))
    with pytest.raises(ConfigurationError, match="returned str, which lacks a JournalSink"):
        load_sink(bad)


def test_installation_client_signs_the_app_jwt_and_uses_the_token(rsa_pem):
    key_path, pem = rsa_pem
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    public = load_pem_private_key(pem.encode(), None).public_key()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/api/v3/app/installations/42/access_tokens":
            return httpx.Response(
                201,
                json={
                    "token": "ghs_installation_token",
                    "expires_at": "2099-01-01T00:00:00Z",
                    "permissions": {},
                    "repository_selection": "all",
                },
            )
        if request.url.path == "/api/v3/repos/octo/repo":
            return httpx.Response(
                200, json={"id": 1, "node_id": "R_kgDO", "full_name": "octo/repo"}
            )
        return httpx.Response(404, json={"message": "Not Found"})

    github = installation_github(
        12345,
        Secret(pem),
        42,
        base_url="https://ghes.example/api/v3/",
        timeout=7.5,
        transport=httpx.MockTransport(handler),
    )
    assert github.config.timeout.read == 7.5
    assert github.config.auto_retry is None  # githubkit's form of auto_retry=False
    assert github.config.http_cache is False
    response = github.request("GET", "/repos/octo/repo")
    assert json.loads(response.content)["node_id"] == "R_kgDO"
    token_request, api_request = seen
    assert token_request.method == "POST"
    bearer = token_request.headers["authorization"].removeprefix("Bearer ")
    claims = jwt.decode(bearer, public, algorithms=["RS256"])  # verifies signature and exp
    assert claims["iss"] == "12345"
    assert claims["exp"] - claims["iat"] == 600  # GitHub allows at most 10 minutes
    assert claims["iat"] <= time.time() + 1
    assert jwt.get_unverified_header(bearer)["alg"] == "RS256"
    assert api_request.headers["authorization"] == "token ghs_installation_token"


def test_installation_client_from_settings_and_argument_checks(tmp_path, rsa_pem):
    settings = load_settings(env_for(tmp_path, rsa_pem[0], GHATTEMPT_HTTP_TIMEOUT="3"))
    github = installation_github_for(settings, 9)
    assert github.config.timeout.read == 3
    assert github.config.http_cache is False and github.config.auto_retry is None
    assert str(github.config.base_url) == "https://api.github.com/"
    with pytest.raises(ValueError, match="installation_id"):
        installation_github(1, Secret("k"), 0)
    with pytest.raises(ValueError, match="timeout"):
        installation_github(1, Secret("k"), 1, timeout=0)


def test_the_sink_is_closed_when_the_server_stops(tmp_path, rsa_pem):
    import asyncio

    from ghattempt.app.recording import RecordingSink
    from ghattempt.app.server import create_app

    class ClosingSink(RecordingSink):
        closed = 0

        def close(self) -> None:
            ClosingSink.closed += 1

    settings = load_settings(env_for(tmp_path, rsa_pem[0]))
    app = create_app(settings, ClosingSink(tmp_path / "recording.sqlite"))

    async def run() -> None:
        async with app.router.lifespan_context(app):
            assert ClosingSink.closed == 0

    asyncio.run(run())
    assert ClosingSink.closed == 1


def test_the_token_exchange_is_bounded_by_the_timeout(rsa_pem):
    """A GitHub that accepts the connection and never answers: the installation-token
    exchange (githubkit sends it without the client's timeout) gives up in time."""
    import socket
    import threading
    import time

    from ghattempt.github import (
        AppAuth,
        GitHubProvider,
        GitHubUnavailable,
        ProviderConfig,
        RetryPolicy,
    )

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []

    def swallow() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)  # read nothing, answer nothing

    threading.Thread(target=swallow, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
    try:
        client = installation_github(1, Secret(rsa_pem[1]), 2, base_url=url, timeout=1.0)
        started = time.monotonic()
        with pytest.raises(Exception) as raised:
            client.rest.repos.get("octo-org", "widgets")
        assert time.monotonic() - started < 5
        assert "Timeout" in type(raised.value).__name__ or "timed out" in str(raised.value)
        provider = GitHubProvider(ProviderConfig(
            auth=AppAuth(1, rsa_pem[1], 2), base_url=url, timeout=1.0, connect_timeout=1.0,
            retry=RetryPolicy(max_attempts=1)))
        started = time.monotonic()
        with pytest.raises(GitHubUnavailable):
            provider.repository("octo-org", "widgets")
        assert time.monotonic() - started < 5
        provider.close()
    finally:
        listener.close()
        for conn in held:
            conn.close()


def test_the_apps_bot_login_is_asked_of_github_once_and_a_refusal_is_transient(tmp_path,
                                                                              rsa_pem):
    from ghattempt.app.sink import SinkUnavailable
    from ghattempt.emulator import Emulator, EmulatorTransport

    from .conftest import app_fixture

    emu = Emulator(fixture=app_fixture(rsa_pem[1]))
    transport = EmulatorTransport(emu)
    settings = load_settings(env_for(tmp_path, rsa_pem[0]))
    login = BotLogin(settings, transport=transport)
    assert login() == "ghattempt-app[bot]"
    assert login() == "ghattempt-app[bot]"
    asked = [e for e in emu.request_log() if e["path"] == "/app"]
    assert len(asked) == 1 and asked[0]["status"] == 200
    stranger = BotLogin(load_settings(env_for(tmp_path, rsa_pem[0], GHATTEMPT_APP_ID="999")),
                        transport=transport)
    with pytest.raises(SinkUnavailable, match=r"GET /app \(the App's own slug\) failed"):
        stranger()
