"""``GitHubProvider``'s reads for ``run`` over HTTP on 127.0.0.1: a run attempt's and its
jobs' status (liveness), and a release's assets (``github-release:TAG``), typed."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest

from ghattempt.core import ReleaseAsset
from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer
from ghattempt.github import AuthFailed, GitHubProvider, NotFound, ProviderConfig, TokenAuth

pytestmark = pytest.mark.network
OWNER, NAME = "octo-org", "widgets"
REPO = f"{OWNER}/{NAME}"


@pytest.fixture
def served() -> Iterator[tuple[Emulator, str]]:
    emu = Emulator(fixture=DEFAULT_FIXTURE)
    with EmulatorServer(emu) as server:
        yield emu, server.url + "/"


def provider(url: str, token: str = "ghs_actions") -> GitHubProvider:
    return GitHubProvider(ProviderConfig(auth=TokenAuth(token), base_url=url, timeout=10))


def test_a_run_attempt_and_its_jobs_say_whether_they_still_run(
        served: tuple[Emulator, str]) -> None:
    emu, url = served
    emu.add_workflow_run(REPO, 31, ".github/workflows/release.yml", "release", "a" * 40,
                         status="in_progress", jobs=["build", "release"])
    with provider(url) as gh:
        status = gh.run_attempt_status(OWNER, NAME, 31, 1)
        assert (status.status, status.conclusion, status.completed) == (
            "in_progress", None, False)
        jobs = gh.run_attempt_jobs(OWNER, NAME, 31, 1)
        assert [(j.name, j.completed) for j in jobs] == [("build", False), ("release", False)]
        emu.end_workflow_run(REPO, 31, "cancelled")
        ended = gh.run_attempt_status(OWNER, NAME, 31, 1)
        assert (ended.completed, ended.conclusion) == (True, "cancelled")
        assert all(j.conclusion == "cancelled" for j in gh.run_attempt_jobs(OWNER, NAME, 31, 1))
        with pytest.raises(NotFound):
            gh.run_attempt_status(OWNER, NAME, 31, 2)
    emu.add_token("ghs_noactions", "github-actions", "write", actions="none", kind="Bot")
    with provider(url, "ghs_noactions") as gh, pytest.raises(AuthFailed):
        gh.run_attempt_status(OWNER, NAME, 31, 1)


def test_a_release_is_its_assets_or_none(served: tuple[Emulator, str]) -> None:
    emu, url = served
    emu.add_release(REPO, "v1.0.0", assets=[{"name": "a.txt", "content": "abc"},
                                            {"name": "old.txt", "content": "x",
                                             "digest": None}])
    emu.add_release(REPO, "v2.0.0", draft=True)
    with provider(url) as gh:
        assets = gh.release_assets(OWNER, NAME, "v1.0.0")
        abc = "sha256:" + hashlib.sha256(b"abc").hexdigest()
        assert assets == (ReleaseAsset("a.txt", 3, abc), ReleaseAsset("old.txt", 1, None))
        assert gh.release_assets(OWNER, NAME, "v9") is None
        assert gh.release_assets(OWNER, NAME, "v2.0.0") is None  # a draft is not published
