"""What a first-time user meets: capture by pull request, unreadable @FILE materials,
refusals that say what to do next, and help texts that match the behaviour."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import World, run_cli


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("first_use"))
    try:
        out = w.cli("admit", "--pull-request", "1")
        assert out.returncode == 0, out.stderr
        yield w
    finally:
        w.close()


def test_capture_by_pull_request_equals_capture_by_number(world: World) -> None:
    by_pr = world.cli("capture", "--pull-request", "1")
    assert by_pr.returncode == 0, by_pr.stderr
    number = json.loads(by_pr.stdout)[0]["data"]["repository"]["discussion"]["number"]
    by_number = world.cli("capture", "--discussion", str(number))
    assert by_pr.stdout == by_number.stdout


def test_phase_out_of_plan_order_says_what_to_do(world: World) -> None:
    out = world.cli("record", "--pull-request", "1", "--phase", "build", "--status", "started")
    assert out.returncode == 1
    line = out.stderr.decode().strip()
    assert len(line.splitlines()) == 1
    assert "[missing_predecessor]" in line and "record it succeeded first" in line


def test_unknown_phase_says_what_to_do(world: World) -> None:
    out = world.cli("record", "--pull-request", "1", "--phase", "deploy", "--status", "started")
    # a phase outside the channel's plan is bad input, found before any request
    assert out.returncode == 2
    assert "--phase 'deploy' is not in the plan of channel" in out.stderr.decode()


def test_missing_reason_names_the_option(world: World) -> None:
    out = world.cli("record", "--pull-request", "1", "--phase", "admission",
                    "--status", "waiting")
    assert out.returncode == 2
    assert out.stderr.decode().strip().endswith("pass --reason TEXT")


def test_a_reason_where_none_is_taken_names_the_option(world: World) -> None:
    out = world.cli("record", "--pull-request", "1", "--phase", "admission",
                    "--status", "started", "--reason", "because")
    assert out.returncode == 2
    assert out.stderr.decode().strip().endswith("leave out --reason")


def test_unreadable_materials_file_is_one_clear_line(world: World) -> None:
    out = world.cli("record", "--pull-request", "1", "--phase", "admission",
                    "--status", "started", "--materials", "@no-such-file.json")
    assert out.returncode == 2
    lines = out.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ghattempt: error: --materials @no-such")
    assert "no-such-file.json" in lines[0] and "No such file" in lines[0]


def test_writer_help_matches_behaviour() -> None:
    record = run_cli("record", "--help").stdout.decode()
    assert "default: the local user name" in record
    successor = run_cli("successor", "--help").stdout.decode()
    assert "--reason" not in successor          # the successor records no reason
    assert "superseded" in successor
    rollback = run_cli("rollback", "--help").stdout.decode()
    assert "required with --status failed" in rollback
    for args in (("emulator", "serve"), ("app", "serve")):
        text = run_cli(*args, "--help").stdout.decode()
        assert "address to listen on" in text


def test_not_found_names_the_options(world: World) -> None:
    missing = world.cli("status", "--discussion", "99")
    assert missing.returncode == 5  # not found: a person must act
    assert "check --repository or GITHUB_REPOSITORY, --discussion" in missing.stderr.decode()


def test_unreachable_names_the_option() -> None:
    from ghattempt.cli._errors import classify
    from ghattempt.github import (
        GitHubError,
        GitHubProvider,
        ProviderConfig,
        RetryPolicy,
        TokenAuth,
    )

    gh = GitHubProvider(ProviderConfig(auth=TokenAuth("ghs_actions"),
                                       base_url="http://127.0.0.1:9/", timeout=2,
                                       connect_timeout=2, retry=RetryPolicy(max_attempts=1)))
    with pytest.raises(GitHubError) as caught:
        gh.capture_journal("octo-org", "widgets", 1)
    found = classify(caught.value)
    assert found is not None and found[0] == 4
    assert "check --api-url (env GITHUB_API_URL)" in found[1] and "base_url" not in found[1]


def test_status_reads_a_config_outside_the_working_directory(world: World) -> None:
    config = world.workspace / ".github" / "ghattempt.toml"
    by_default = world.cli("status", "--pull-request", "1", "--json")
    elsewhere = world.cli("status", "--pull-request", "1", "--json", "--config", str(config))
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert elsewhere.stdout == by_default.stdout
    # A writer records the path in the generation: it must stay repository-relative.
    write = world.cli("admit", "--pull-request", "1", "--config", str(config))
    assert write.returncode == 2 and b"repository-relative" in write.stderr


def test_writers_take_the_pull_request_not_a_discussion() -> None:
    for command in ("admit", "record", "successor", "supersede", "expire", "rollback"):
        text = run_cli(command, "--help").stdout.decode()
        assert "--discussion" not in text and "--writer-id" not in text, command
    out = run_cli("admit", "--discussion", "2")
    assert out.returncode == 2
    assert b"--pull-request" in out.stderr


def test_missing_capture_file_names_it_and_the_fix(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.json"
    out = run_cli("status", "--capture", str(missing))
    assert out.returncode == 2
    assert out.stderr.decode().strip() == (
        f"ghattempt: error: {missing}: No such file or directory; check the path and its "
        "permissions")


@pytest.mark.parametrize("given", ["missing.toml", "../elsewhere/missing.toml", "ABSOLUTE"])
@pytest.mark.parametrize("command", [["status", "--json"], ["show", "--html", "-"]])
def test_a_missing_config_given_to_a_reader_is_one_clear_error(
        tmp_path: Path, command: list[str], given: str) -> None:
    """A reader reads ``[writer]`` from ``--config``: a path that names no file is bad
    input (exit 2) naming it, not silently read as no configuration."""
    path = str(tmp_path / "gone" / "missing.toml") if given == "ABSOLUTE" else given
    capture = tmp_path / "capture.json"
    capture.write_text("[]")
    (tmp_path / "work").mkdir()
    out = run_cli(*command, "--capture", str(capture), "--config", path,
                  cwd=tmp_path / "work")
    err = out.stderr.decode()
    assert out.returncode == 2, (out.stdout, err)
    assert out.stdout == b""
    assert err.startswith("ghattempt: error: ") and len(err.strip().splitlines()) == 1
    assert path in err and "not found" in err


def test_a_reader_without_the_default_config_still_reads(tmp_path: Path) -> None:
    capture = tmp_path / "capture.json"
    capture.write_text("[]")
    out = run_cli("status", "--json", "--capture", str(capture), cwd=tmp_path)
    assert out.returncode == 2 and json.loads(out.stdout)["status"] == "invalid"
    assert out.stderr == b""
