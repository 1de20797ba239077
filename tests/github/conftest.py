"""Fixtures for the provider tests: GitHub's published schema, a fake clock, and
providers wired to respx routers (no network)."""

from __future__ import annotations

import os
import pathlib
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import respx

from ghattempt.github import GitHubProvider, ProviderConfig, RetryPolicy, TokenAuth

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = ROOT / ".cache" / "npm" / "graphql-schema" / "schema.graphql"
TOKEN = "ghp_" + "S3cr3tT0kenValue0123456789abcdefABCD"  # never a real token
API = "https://api.github.com"


def missing_fixture(what: str) -> None:
    """Skip loudly, or fail when CI demands the npm fixtures."""
    message = (f"npm fixture missing: {what}. Run scripts/fetch-npm-fixtures "
               "(needs npm and the registry).")
    if os.environ.get("GHATTEMPT_REQUIRE_FIXTURES") == "1":
        pytest.fail(message + " GHATTEMPT_REQUIRE_FIXTURES=1 makes this a failure.")
    warnings.warn(message, stacklevel=2)
    pytest.skip(message)


@pytest.fixture(scope="session")
def github_schema() -> Any:
    if not SCHEMA.is_file():
        missing_fixture(str(SCHEMA))
    from graphql import build_schema

    return build_schema(SCHEMA.read_text("utf-8"), assume_valid=True, assume_valid_sdl=True)


@dataclass
class FakeClock:
    """Monotonic and wall time that only move when ``sleep`` is called."""

    now: float = 1_800_000_000.0
    sleeps: list[float] = field(default_factory=list)

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self) -> float:
        return self.now

    def wall(self) -> float:
        return self.now


@pytest.fixture
def fake_clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def router() -> Iterator[respx.MockRouter]:
    r = respx.MockRouter(base_url=API, assert_all_called=False)
    yield r


@pytest.fixture
def make_provider(
    router: respx.MockRouter, fake_clock: FakeClock
) -> Iterator[Callable[..., GitHubProvider]]:
    made: list[GitHubProvider] = []

    def make(**overrides: Any) -> GitHubProvider:
        retry = overrides.pop("retry", RetryPolicy())
        config = ProviderConfig(
            auth=overrides.pop("auth", TokenAuth(TOKEN)),
            base_url=overrides.pop("base_url", API + "/"),
            mutation_interval=overrides.pop("mutation_interval", 0.0),
            retry=retry,
            transport=overrides.pop("transport", httpx.MockTransport(router.handler)),
            sleep=fake_clock.sleep,
            clock=fake_clock.clock,
            wall_clock=fake_clock.wall,
            **overrides,
        )
        provider = GitHubProvider(config)
        made.append(provider)
        return provider

    yield make
    for p in made:
        p.close()
