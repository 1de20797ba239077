"""Missing webhook examples or PostgreSQL server: a loud skip locally, a failure when CI
requires fixtures."""

from __future__ import annotations

import pytest

from . import conftest


def test_missing_examples_skip_loudly_or_fail(monkeypatch, tmp_path):
    monkeypatch.setattr(conftest, "EXAMPLES", tmp_path / "absent" / "index.json")
    monkeypatch.delenv("GHATTEMPT_REQUIRE_FIXTURES", raising=False)
    with pytest.raises(pytest.skip.Exception, match="SKIPPED LOUDLY"):
        conftest._load_examples()
    monkeypatch.setenv("GHATTEMPT_REQUIRE_FIXTURES", "1")
    with pytest.raises(pytest.fail.Exception, match="GHATTEMPT_REQUIRE_FIXTURES=1"):
        conftest._load_examples()


def test_missing_postgres_skips_loudly_or_fails(monkeypatch):
    monkeypatch.delenv(conftest.POSTGRES_ENV, raising=False)
    monkeypatch.delenv("GHATTEMPT_REQUIRE_FIXTURES", raising=False)
    with pytest.raises(pytest.skip.Exception, match="SKIPPED LOUDLY"):
        conftest._postgres_server()
    monkeypatch.setenv("GHATTEMPT_REQUIRE_FIXTURES", "1")
    with pytest.raises(pytest.fail.Exception, match="GHATTEMPT_REQUIRE_FIXTURES=1"):
        conftest._postgres_server()
