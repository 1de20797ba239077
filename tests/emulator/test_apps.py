"""GitHub App authentication: JWT -> installation token, the token acting as the
App's bot, expiry, and githubkit's AppInstallationAuthStrategy against it."""

from __future__ import annotations

import time

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from githubkit import AppInstallationAuthStrategy, GitHub

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorTransport, FixtureError

from .conftest import GQL, comment, new_discussion, valid

APP_ID = 4242
INSTALLATION = 777


@pytest.fixture(scope="module")
def key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _pem(key: rsa.RSAPrivateKey) -> tuple[str, str]:
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@pytest.fixture
def app_emu(key: rsa.RSAPrivateKey) -> Emulator:
    _, public = _pem(key)
    fixture = dict(
        DEFAULT_FIXTURE,
        apps=[
            {
                "app_id": APP_ID,
                "slug": "release-bot",
                "public_key": public,
                "installations": [{"id": INSTALLATION, "role": "write"}],
            }
        ],
    )
    return Emulator(fixture=fixture)


def _jwt(key: rsa.RSAPrivateKey, iss: int = APP_ID, iat: int | None = None, life: int = 540) -> str:
    private, _ = _pem(key)
    now = int(time.time()) - 30 if iat is None else iat
    claims = {"iss": str(iss), "iat": now, "exp": now + life}
    return jwt.encode(claims, private, algorithm="RS256")


def test_jwt_exchange_and_the_token_acts_as_the_app_bot(app_emu: Emulator, key) -> None:
    http = httpx.Client(base_url="https://api.github.com", transport=EmulatorTransport(app_emu))
    r = http.post(
        f"/app/installations/{INSTALLATION}/access_tokens",
        headers={"Authorization": f"Bearer {_jwt(key)}"},
    )
    assert r.status_code == 201
    body = r.json()
    assert body["token"].startswith("ghs_")
    # an installation grants Actions read unless its fixture says otherwise (workflow runs
    # and jobs need it: docs/emulator.md, the Actions row)
    assert body["permissions"] == {"metadata": "read", "discussions": "write",
                                   "contents": "write", "actions": "read"}
    bot = GQL(http, body["token"])
    assert bot.data("{ viewer { login } }")["viewer"]["login"] == "release-bot[bot]"
    d = new_discussion(bot)
    assert d["author"]["login"] == "release-bot"
    assert comment(bot, d["id"], "from the app")["author"] == {"login": "release-bot"}
    # one hour later the token is dead
    app_emu.clock.advance(3601)
    assert bot.raw("{ viewer { login } }").status_code == 401
    assert http.get("/app", headers={"Authorization": f"Bearer {_jwt(key)}"}).status_code == 401


def test_bad_jwts_are_refused(app_emu: Emulator, key) -> None:
    http = httpx.Client(base_url="https://api.github.com", transport=EmulatorTransport(app_emu))
    url = f"/app/installations/{INSTALLATION}/access_tokens"

    def status(token: str) -> tuple[int, str]:
        r = http.post(url, headers={"Authorization": f"Bearer {token}"})
        return r.status_code, r.json()["message"]

    assert status("not-a-jwt") == (401, "A JSON web token could not be decoded")
    assert status(_jwt(key, iss=1)) == (401, "Integration not found")
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert status(_jwt(other)) == (401, "A JSON web token could not be decoded")
    assert status(_jwt(key, iat=int(time.time()) - 1000))[0] == 401  # expired
    assert status(_jwt(key, life=3600))[1].endswith("too far in the future")
    r = http.post(
        "/app/installations/1/access_tokens", headers={"Authorization": f"Bearer {_jwt(key)}"}
    )
    assert r.status_code == 404
    r = http.get("/app", headers={"Authorization": f"Bearer {_jwt(key)}"})
    assert r.json()["slug"] == "release-bot"
    r = http.get(
        "/repos/octo-org/widgets/installation", headers={"Authorization": f"Bearer {_jwt(key)}"}
    )
    assert r.json()["id"] == INSTALLATION


def test_githubkit_app_installation_strategy(app_emu: Emulator, key) -> None:
    private, _ = _pem(key)
    gh = GitHub(
        AppInstallationAuthStrategy(APP_ID, private, INSTALLATION),
        base_url="https://api.github.com/",
        transport=EmulatorTransport(app_emu),
        http_cache=False,
        auto_retry=False,
        timeout=10,
    )
    data = gh.graphql.request(valid("{ viewer { login databaseId } }"))
    assert data["viewer"]["login"] == "release-bot[bot]"
    log = [e["operation"] for e in app_emu.request_log()]
    assert log[0] == "apps/create-installation-access-token"


def test_app_fixture_errors() -> None:
    with pytest.raises(FixtureError, match="public_key"):
        Emulator(
            fixture=dict(DEFAULT_FIXTURE, apps=[{"app_id": 1, "slug": "x", "public_key": "nope"}])
        )
