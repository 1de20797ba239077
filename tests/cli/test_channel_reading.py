"""A reading command reads the chain of one channel: with a configuration, ``status``
renders ``attempt.request_key`` for ``--channel`` (default: ``attempt.default_channel``)
from the journal's intent record, as the writers of that channel do (docs/cli.md,
"Reading"), so a journal holding two channels' attempts is read, not refused. Over the
emulator on loopback, through the real CLI and the Action's entry."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import CONFIG, World, cli_env

pytestmark = pytest.mark.network

TWO_CHANNELS = CONFIG.replace(
    '[attempt]\ndefault_channel = "stable"\n',
    '[channels.preview]\nplan = ["build", "publication"]\n\n'
    '[attempt]\ndefault_channel = "stable"\n')


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("channels"))
    (w.workspace / ".github" / "ghattempt.toml").write_text(TWO_CHANNELS)
    try:
        for channel in ("stable", "preview"):
            done = w.cli("admit", "--pull-request", "1", "--channel", channel)
            assert done.returncode == 0, done.stderr.decode()
        yield w
    finally:
        w.close()


def _status(world: World, *args: str) -> tuple[int, dict]:
    done = world.cli("status", "--pull-request", "1", "--json", *args)
    return done.returncode, json.loads(done.stdout)


def test_status_reads_the_default_channel_of_a_journal_with_two(world: World) -> None:
    rc, verdict = _status(world)
    assert verdict["request_key"] == "pr-1:main:stable"
    assert (rc, verdict["status"]) == (0, "pending"), verdict


def test_status_reads_the_channel_it_is_given(world: World) -> None:
    rc, verdict = _status(world, "--channel", "preview")
    assert verdict["request_key"] == "pr-1:main:preview"
    assert (rc, verdict["status"]) == (0, "pending"), verdict
    # an explicit key wins over the channel
    _rc, verdict = _status(world, "--channel", "preview", "--request-key", "pr-1:main:stable")
    assert verdict["request_key"] == "pr-1:main:stable"


def test_an_unknown_channel_is_bad_input_naming_it(world: World) -> None:
    done = world.cli("status", "--pull-request", "1", "--channel", "nightly")
    assert done.returncode == 2
    assert "nightly" in done.stderr.decode()


def test_without_a_configuration_the_journal_with_two_keys_asks_for_one(
        world: World, tmp_path: Path) -> None:
    captured = world.cli("capture", "--pull-request", "1")
    assert captured.returncode == 0, captured.stderr.decode()
    pages = tmp_path / "pages.json"
    pages.write_bytes(captured.stdout)
    done = subprocess.run(
        [sys.executable, "-m", "ghattempt.cli", "status", "--capture", str(pages), "--json"],
        capture_output=True, env=world.env(), timeout=120, cwd=tmp_path)
    assert done.stdout, done.stderr.decode()
    verdict = json.loads(done.stdout)
    assert verdict["status"] == "invalid" and "2 request keys" in verdict["detail"]
    # the same capture read with the configuration: its default channel
    done = world.cli("status", "--capture", str(pages), "--json")
    assert json.loads(done.stdout)["request_key"] == "pr-1:main:stable"


@pytest.mark.parametrize(("channel", "key"), [("", "pr-1:main:stable"),
                                              ("preview", "pr-1:main:preview")])
def test_the_actions_status_reads_its_channel(world: World, tmp_path: Path, channel: str,
                                               key: str) -> None:
    out = tmp_path / "out"
    out.write_text("")
    env = cli_env(
        GITHUB_ACTIONS="true", GITHUB_RUN_ID="77", GITHUB_RUN_ATTEMPT="1",
        GITHUB_JOB="release", GITHUB_WORKFLOW="release", GITHUB_REPOSITORY="octo-org/widgets",
        GITHUB_API_URL=world.api_url, GITHUB_WORKSPACE=str(world.workspace),
        GITHUB_OUTPUT=str(out), RUNNER_TEMP=str(tmp_path), GHATTEMPT_COMMAND="status",
        GHATTEMPT_TOKEN="ghs_actions", GHATTEMPT_PULL_REQUEST="1",  # noqa: S106
        GHATTEMPT_CHANNEL=channel)
    done = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env, text=True,
                          capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    assert outputs["status"] == "pending", outputs
    assert outputs.get("request-key", key) == key
