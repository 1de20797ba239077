"""Bad input and secrets, tried as an attacker would, on the command line: a token pasted
into an argument is never echoed, nothing token-shaped is written into a record, a
lease holder or stdout, and every local refusal is one line with exit 2 before any
request (the API URL of these runs answers nothing, so a request would exit 4)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import World, cli_env, run_cli

TOKEN = "ghp_" + "Z9" * 18  # a token-shaped value; opens nothing
OFFLINE = {"GITHUB_API_URL": "http://127.0.0.1:9/", "GITHUB_REPOSITORY": "octo-org/widgets",
           "GITHUB_TOKEN": TOKEN}


def offline(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    done = run_cli(*args, env=cli_env(**OFFLINE), **({"cwd": cwd} if cwd else {}))
    return done.returncode, done.stdout.decode(), done.stderr.decode()


@pytest.mark.parametrize("argv", [
    ["status", "--discussion", TOKEN],
    ["status", "--pull-request", TOKEN],
    ["record", "--pull-request", "1", "--phase", "build", "--status", "started", "--key",
     TOKEN + " x"],
    ["admit", "--pull-request", TOKEN],
    ["status", "--writer-id", TOKEN],
    ["status", "--nonsense", TOKEN],
    ["rollback", "--pull-request", "1", "--status", TOKEN],
])
def test_a_token_pasted_into_an_argument_is_never_echoed(argv: list[str]) -> None:
    rc, out, err = offline(*argv)
    assert rc == 2
    assert TOKEN not in out + err and "Z9Z9Z9" not in out + err
    # a usage error is one line
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("ghattempt: error: ") and "--help)" in err


@pytest.mark.parametrize("argv, said", [
    (["status", "--discussion", "1", "--timeout", "0"], "--timeout: must be a number of seconds"),
    (["status", "--discussion", "1", "--timeout", "inf"], "--timeout: must be a number"),
    (["status", "--discussion", "1", "--timeout", "nan"], "--timeout: must be a number"),
    (["status", "--discussion", "2147483648"], "--discussion: must be a number from 1 to"),
    (["status", "--pull-request", "0"], "--pull-request: must be a number from 1 to"),
    (["admit", "--pull-request", "99999999999"], "--pull-request: must be a number from 1 to"),
    (["status", "--discussion", "1", "--request-key", "no spaces please"],
     "--request-key: must be 1-128 characters"),
    (["record", "--pull-request", "1", "--phase", "build", "--status", "started", "--key",
      "x" * 129], "--key: must be 1-128 characters"),
    (["status"], "which journal?"),
])
def test_bad_values_are_one_local_error(argv: list[str], said: str) -> None:
    rc, out, err = offline(*argv)
    assert rc == 2, err
    assert said in err
    assert len(err.strip().splitlines()) == 1, err


def test_a_fifo_as_the_configuration_file_is_refused_before_any_request(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    os.mkfifo(tmp_path / ".github" / "ghattempt.toml")
    rc, _out, err = offline("admit", "--pull-request", "1", cwd=tmp_path)
    assert rc == 2
    assert "named pipe (FIFO)" in err and len(err.strip().splitlines()) == 1
    rc, _out, err = offline("config", "check", ".github/ghattempt.toml", cwd=tmp_path)
    assert rc == 2 and "named pipe (FIFO)" in err


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    w = World(tmp_path_factory.mktemp("secrets"))
    try:
        yield w
    finally:
        w.close()


@pytest.mark.parametrize("option", ["--key", "--actor", "--request-key", "--channel"])
def test_the_token_is_refused_as_a_value_that_would_be_stored(world: World,
                                                               option: str) -> None:
    token = "ghs_actions"
    admitted = world.cli("admit", "--pull-request", "1")
    assert admitted.returncode in (0, 1), admitted.stderr
    # the token value itself, or a token shape, where a record or the lease would keep it
    for value in (token + "-x" if option in ("--key", "--request-key") else token,
                  "ghp_" + "q" * 36):
        argv = ["record", "--pull-request", "1", "--phase", "admission", "--status",
                "started", option, value]
        done = world.cli(*argv, token=token)
        err = done.stderr.decode()
        assert done.returncode == 2, err
        assert f"{option} holds a token or key" in err or f"{option}: must be" in err
        assert value not in err + done.stdout.decode()


def test_nothing_token_shaped_reaches_a_record_or_stdout(world: World) -> None:
    """A reason carrying the token is redacted in the record; the key, the actor and
    the lease holder only take values that are not secrets."""
    world.cli("admit", "--pull-request", "1")
    secret = "ghs_actions"
    done = world.cli("record", "--pull-request", "1", "--phase", "admission", "--status",
                     "waiting", "--reason", f"log said: token {secret} and ghp_{'w' * 36}",
                     "--json")
    assert done.returncode == 0, done.stderr
    assert secret not in done.stdout.decode() and "ghp_www" not in done.stdout.decode()
    capture = world.cli("capture", "--pull-request", "1")
    pages = capture.stdout.decode()
    assert "ghp_" + "w" * 36 not in pages and f"token {secret}" not in pages
    assert "[redacted]" in pages
    snapshot = json.dumps(world.emulator.snapshot())
    assert "ghp_" + "w" * 36 not in snapshot  # nor in the lease ref's commits


LIVE = "live-token-value-0123456789"  # a key-shaped token value, not token-shaped itself


@pytest.mark.parametrize("value, token", [
    ("ghp_" + "k" * 36, TOKEN),
    ("ghs_" + "k" * 36, TOKEN),
    ("github_pat_" + "k" * 40, TOKEN),
    (LIVE, LIVE),
    ("prefix:" + LIVE, LIVE),
])
@pytest.mark.parametrize("command", [["status", "--json"], ["status"], ["read"]])
def test_a_token_shaped_request_key_is_refused_by_the_readers(
        tmp_path: Path, command: list[str], value: str, token: str) -> None:
    """``status`` and ``read`` echo the request key in their verdict: a value holding the
    token or shaped like a token is refused (exit 2) and never printed."""
    capture = tmp_path / "capture.json"
    capture.write_text("[]")
    if command[0] == "read":
        argv = ["read", "--writer", "github-actions", "--repository-id", "R_x",
                "--request-key", value]
        stdin = b"[]"
    else:
        argv = [*command, "--capture", str(capture), "--request-key", value]
        stdin = b""
    done = run_cli(*argv, stdin=stdin, env=cli_env(**{**OFFLINE, "GITHUB_TOKEN": token}))
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 2, (out, err)
    assert value not in out + err and token not in out + err
    assert "--request-key holds a token or key" in out + err


def test_a_plain_request_key_is_still_echoed_by_the_readers(tmp_path: Path) -> None:
    capture = tmp_path / "capture.json"
    capture.write_text("[]")
    done = run_cli("status", "--json", "--capture", str(capture), "--request-key", "pr-7",
                   env=cli_env(**OFFLINE))
    assert json.loads(done.stdout)["request_key"] == "pr-7"
    done = run_cli("read", "--writer", "github-actions", "--repository-id", "R_x",
                   "--request-key", "pr-7", stdin=b"[]", env=cli_env(**OFFLINE))
    assert json.loads(done.stdout)["request_key"] == "pr-7"


@pytest.mark.parametrize("login", ["ghp_" + "L" * 36, LIVE])
def test_config_check_never_echoes_a_token_shaped_writer_login(tmp_path: Path,
                                                              login: str) -> None:
    (tmp_path / "ghattempt.toml").write_text(f'[writer]\nlogin = "{login}"\n')
    done = run_cli("config", "check", "ghattempt.toml", cwd=tmp_path,
                   env=cli_env(GITHUB_TOKEN=LIVE))
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 2, (out, err)
    assert login not in out + err
    assert "writer." in out and "[redacted]" in out
