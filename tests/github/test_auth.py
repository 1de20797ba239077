"""Auth modes: token (Actions GITHUB_TOKEN / PAT), GitHub App installation (JWT signed
with pyjwt inside githubkit, token refreshed before expiry), GHES base URLs."""

from __future__ import annotations

import datetime as dt

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from ghattempt.github import (
    AppAuth,
    AuthFailed,
    InputError,
    ProviderConfig,
    TokenAuth,
)

REPO = {"repository": {"id": "R_1", "databaseId": 1, "nameWithOwner": "o/r",
                       "discussionCategories": {"nodes": []}}}


@pytest.fixture(scope="module")
def app_key() -> tuple[str, object]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    return pem, key.public_key()


def iso(delta: dt.timedelta) -> str:
    return (dt.datetime.now(dt.UTC) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_token_from_env():
    assert TokenAuth.from_env({"GITHUB_TOKEN": "ghs_abc"}).token == "ghs_abc"
    with pytest.raises(InputError, match="GITHUB_TOKEN is not set"):
        TokenAuth.from_env({})
    with pytest.raises(InputError):
        TokenAuth(" padded ")


def test_token_is_sent_as_githubkit_token_header(make_provider, router):
    route = router.post("/graphql").mock(return_value=httpx.Response(200, json={"data": REPO}))
    make_provider(auth=TokenAuth("ghs_actions_token_value")).repository("o", "r")
    assert route.calls.last.request.headers["authorization"] == "token ghs_actions_token_value"


@pytest.mark.parametrize("base_url", ["ftp://x/", "https://user:pw@ghe.example/api/v3/",
                                      "https://ghe.example/api/v3/?a=1", "not a url"])
def test_bad_base_urls_are_refused(base_url):
    with pytest.raises(InputError):
        ProviderConfig(auth=TokenAuth("t0ken"), base_url=base_url)


def test_timeouts_cannot_be_unbounded():
    with pytest.raises(InputError, match="never unbounded"):
        ProviderConfig(auth=TokenAuth("t0ken"), timeout=0)


@pytest.mark.parametrize("field", ["timeout", "connect_timeout", "mutation_interval"])
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_timeouts_and_intervals_must_be_finite_numbers(field, value):
    # NaN compares false with everything, so "<= 0" alone lets it through (and
    # min(nan, limit) is nan); infinity is an unbounded wait.
    with pytest.raises(InputError, match="finite"):
        ProviderConfig(auth=TokenAuth("t0ken"), **{field: value})


def test_app_private_key_must_be_pem():
    with pytest.raises(InputError, match="PEM"):
        AppAuth(app_id=1, private_key="nope", installation_id=2)


def test_app_installation_token_flow_and_refresh_before_expiry(make_provider, router, app_key):
    pem, public = app_key
    tokens = iter(["ghs_first_installation_token", "ghs_second_installation_token",
                   "ghs_third_installation_token"])
    # the first token is about to expire (less than githubkit's one-minute margin left)
    lifetimes = iter([dt.timedelta(seconds=30), dt.timedelta(hours=1), dt.timedelta(hours=1)])
    exchange = router.post("/app/installations/99/access_tokens").mock(
        side_effect=lambda req: httpx.Response(201, json={
            "token": next(tokens), "expires_at": iso(next(lifetimes))}))
    gql = router.post("/graphql").mock(return_value=httpx.Response(200, json={"data": REPO}))
    p = make_provider(auth=AppAuth(app_id=4242, private_key=pem, installation_id=99))
    for _ in range(3):
        p.repository("o", "r")
    # refreshed once (the near-expiry token), then cached
    assert exchange.call_count == 2
    assert p.usage.by_operation["POST /app/installations/{id}/access_tokens"].requests == 2
    assert p.usage.by_operation["RepositoryLookup"].requests == 3
    auths = [c.request.headers["authorization"] for c in gql.calls]
    assert auths == ["token ghs_first_installation_token",
                     "token ghs_second_installation_token",
                     "token ghs_second_installation_token"]
    bearer = exchange.calls.last.request.headers["authorization"]
    assert bearer.startswith("Bearer ")
    claims = jwt.decode(bearer.removeprefix("Bearer "), public, algorithms=["RS256"])
    assert claims["iss"] == "4242"
    assert claims["exp"] - claims["iat"] == 600
    assert claims["iat"] <= dt.datetime.now(dt.UTC).timestamp() - 55


def test_app_exchange_refused_is_auth_failed_and_nothing_sent(make_provider, router, app_key):
    pem, _ = app_key
    router.post("/app/installations/99/access_tokens").mock(
        return_value=httpx.Response(401, json={"message": "A JSON web token could not be decoded"}))
    gql = router.post("/graphql").mock(return_value=httpx.Response(200, json={"data": {}}))
    p = make_provider(auth=AppAuth(app_id=1, private_key=pem, installation_id=99))
    with pytest.raises(AuthFailed, match="installation-token exchange"):
        p.add_comment("D", "body")
    assert gql.call_count == 0


def test_app_exchange_unavailable_is_retried_even_for_a_mutation(make_provider, router,
                                                                 app_key, fake_clock):
    pem, _ = app_key
    router.post("/app/installations/99/access_tokens").mock(side_effect=[
        httpx.Response(502),
        httpx.Response(201, json={"token": "ghs_tok", "expires_at": iso(dt.timedelta(hours=1))})])
    gql = router.post("/graphql").mock(return_value=httpx.Response(200, json={"data": {
        "addDiscussionComment": {"comment": {"id": "DC_1", "createdAt": "t", "url": "u"}}}}))
    p = make_provider(auth=AppAuth(app_id=1, private_key=pem, installation_id=99))
    assert p.add_comment("D", "body").id == "DC_1"
    assert gql.call_count == 1 and fake_clock.sleeps == [1.0]


def test_app_auth_on_ghes(make_provider, router, app_key):
    pem, _ = app_key
    exchange = router.post("https://ghe.example/api/v3/app/installations/5/access_tokens").mock(
        return_value=httpx.Response(201, json={"token": "ghs_t",
                                               "expires_at": iso(dt.timedelta(hours=1))}))
    gql = router.post("https://ghe.example/api/graphql").mock(
        return_value=httpx.Response(200, json={"data": REPO}))
    make_provider(base_url="https://ghe.example/api/v3/",
                  auth=AppAuth(app_id=1, private_key=pem, installation_id=5)).repository("o", "r")
    assert exchange.call_count == 1 and gql.call_count == 1
