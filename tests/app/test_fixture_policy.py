"""Missing webhook examples: a loud skip locally, a failure when CI requires fixtures."""

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
