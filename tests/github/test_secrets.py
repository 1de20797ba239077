"""Tokens and keys never reach exception text, reprs or log records, however a request
fails."""

from __future__ import annotations

import datetime as dt
import logging
import traceback

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from ghattempt.github import AppAuth, GitHubError, ProviderConfig, RetryPolicy, TokenAuth

from .conftest import TOKEN

INSTALLATION_TOKEN = "ghs_" + "InstallationSecretValue0123456789abc"


def _pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


PEM = _pem()
KEY_LINE = PEM.splitlines()[5]  # a line from the middle of the key


def echo(status: int, **extra):
    """GitHub echoing the credentials back (it does not; if it ever did, we redact)."""
    def answer(req: httpx.Request) -> httpx.Response:
        auth = req.headers.get("authorization", "")
        return httpx.Response(status, json={"message": f"bad: {auth}", "errors": [
            {"type": "FORBIDDEN", "message": f"creds {auth}"}]}, **extra)
    return answer


def raising(exc_type):
    def answer(req: httpx.Request) -> httpx.Response:
        raise exc_type(f"failed with {req.headers.get('authorization')}", request=req)
    return answer


FAILURES = {
    "401": echo(401),
    "403": echo(403),
    "404": echo(404),
    "422": echo(422),
    "500": echo(500),
    "502": echo(502),
    "429": echo(429, headers={"retry-after": "1"}),
    "200-errors": echo(200),
    "connect": raising(httpx.ConnectError),
    "read-timeout": raising(httpx.ReadTimeout),
    "protocol": raising(httpx.RemoteProtocolError),
    "garbled": lambda req: httpx.Response(200, text=f"<html>{req.headers['authorization']}"),
}


def secrets_in(text: str) -> list[str]:
    found = [s for s in (TOKEN, INSTALLATION_TOKEN, KEY_LINE) if s in text]
    if "eyJ" in text:
        found.append("a JWT")
    return found


def assert_clean(exc: BaseException, caplog: pytest.LogCaptureFixture) -> None:
    texts = [str(exc), repr(exc), "".join(traceback.format_exception(exc)), repr(exc.args),
             repr(vars(exc))]
    for record in caplog.records:
        texts.append(record.getMessage())
        if record.exc_info:
            texts.append("".join(traceback.format_exception(*record.exc_info)))
    for text in texts:
        assert secrets_in(text) == [], text


def run_all(provider, calls):
    for call in calls:
        try:
            call(provider)
        except GitHubError as exc:
            yield exc
        else:  # pragma: no cover - every scenario must fail
            raise AssertionError("the request was expected to fail")


CALLS = [lambda p: p.repository("o", "r"), lambda p: p.add_comment("D", "body"),
         lambda p: p.create_commit("o", "r", message="m", parents=[])]


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_token_never_leaks(make_provider, router, caplog, failure):
    caplog.set_level(logging.DEBUG)
    router.route().mock(side_effect=FAILURES[failure])
    p = make_provider(auth=TokenAuth(TOKEN), retry=RetryPolicy(max_attempts=2))
    errors = list(run_all(p, CALLS))
    assert len(errors) == len(CALLS)
    for exc in errors:
        assert_clean(exc, caplog)
    assert TOKEN not in repr(p) and TOKEN not in repr(p.config)


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_app_credentials_never_leak(make_provider, router, caplog, failure):
    caplog.set_level(logging.DEBUG)
    expiry = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    router.post("/app/installations/7/access_tokens").mock(return_value=httpx.Response(
        201, json={"token": INSTALLATION_TOKEN, "expires_at": expiry}))
    router.route().mock(side_effect=FAILURES[failure])
    p = make_provider(auth=AppAuth(app_id=3, private_key=PEM, installation_id=7),
                      retry=RetryPolicy(max_attempts=2))
    for exc in run_all(p, CALLS):
        assert_clean(exc, caplog)
    assert KEY_LINE not in repr(p) and KEY_LINE not in repr(p.config)


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_app_exchange_failures_never_leak_the_jwt(make_provider, router, caplog, failure):
    caplog.set_level(logging.DEBUG)
    router.post("/app/installations/7/access_tokens").mock(side_effect=FAILURES[failure])
    router.route().mock(return_value=httpx.Response(200, json={"data": {}}))
    p = make_provider(auth=AppAuth(app_id=3, private_key=PEM, installation_id=7),
                      retry=RetryPolicy(max_attempts=2))
    for exc in run_all(p, CALLS[:2]):
        assert_clean(exc, caplog)


def test_reprs_hide_secrets():
    assert "S3cr3t" not in repr(TokenAuth(TOKEN))
    assert KEY_LINE not in repr(AppAuth(app_id=1, private_key=PEM, installation_id=2))
    config = ProviderConfig(auth=TokenAuth(TOKEN))
    assert TOKEN not in repr(config) and TOKEN not in str(config)
