"""Every command's --help, the documented exit codes, one-line errors, no secrets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ghattempt.cli import EXIT_CODES, build_parser, main

from .conftest import World, cli_env, run_cli

COMMANDS = ["status", "capture", "admit", "record", "successor", "supersede", "expire",
            "rollback",
            "verify-material", "emulator serve", "app serve", "demo"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_of_every_command(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*command.split(), "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: ghattempt {command}")
    assert "exit status:" in out
    for code in EXIT_CODES:
        assert f"  {code}" in out


def test_run_help_names_the_exit_of_work_without_its_materials(
        capsys: pytest.CaptureFixture[str]) -> None:
    # docs/run.md W4: exit 2, which the help's own exit line left out
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "but 2 when it exited 0 and a --materials glob matched no file" in out


def test_top_level_help_lists_every_command() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    text = proc.stdout.decode()
    for command in ["read", *(c.split()[0] for c in COMMANDS)]:
        assert f"    {command}" in text


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: ghattempt" in capsys.readouterr().out


def test_unknown_command_and_flag_exit_2() -> None:
    assert run_cli("frobnicate").returncode == 2
    proc = run_cli("status", "--no-such-flag")
    assert proc.returncode == 2
    assert b"unrecognized arguments: --no-such-flag" in proc.stderr


def test_version() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.startswith(b"ghattempt ")


def test_parser_builds_without_third_party_imports() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    code = ("import sys, ghattempt.cli as c; c.build_parser(); "
            "bad = [m for m in ('githubkit', 'httpx', 'graphql', 'pydantic') "
            "if m in sys.modules]; print(bad)")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]"


def test_missing_token_is_one_line_exit_2() -> None:
    proc = run_cli("status", "--repository", "octo/app", "--discussion", "1")
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.count("\n") == 1
    assert err.startswith("ghattempt: error: no token: environment variable GITHUB_TOKEN")


def test_a_token_passed_as_an_option_is_refused_and_never_echoed() -> None:
    """``--token VALUE`` is argparse's abbreviation of ``--token-env``: a token-shaped
    value there is refused by name, and the message says where a token goes."""
    token = "ghp_" + "Abc123" * 6
    for flag in ("--token", "--token-env"):
        proc = run_cli("status", "--repository", "octo/app", "--discussion", "1", flag, token)
        assert proc.returncode == 2
        err = proc.stderr.decode()
        assert err.count("\n") == 1 and token not in err
        assert "argument --token-env: takes the name of the environment variable holding " \
               "the token, and this value is shaped like a token" in err
        assert "export it as GITHUB_TOKEN" in err
    proc = run_cli("status", "--repository", "octo/app", "--discussion", "1", "--token",
                   "MY_TOKEN")
    assert b"which takes a variable's name: tokens are never taken on the command line" \
        in proc.stderr


def test_missing_repository_is_exit_2() -> None:
    proc = run_cli("capture", "--discussion", "1", env=cli_env(GITHUB_TOKEN="ghp_x" * 4))
    assert proc.returncode == 2
    assert b"--repository OWNER/NAME" in proc.stderr


def test_refused_credentials_are_exit_5_without_the_token(tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        token = "ghp_" + "S3cretTokenValue" * 2
        proc = world.cli("status", "--discussion", "1", token=token)
        assert proc.returncode == 5, proc.stderr
        err = proc.stderr.decode()
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("ghattempt: error: ")
        assert "Bad credentials" in err or "401" in err
        assert token not in err and "Traceback" not in err
    finally:
        world.close()


def test_bad_config_is_one_line_exit_2(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "bad.toml").write_text("[journal]\ncategroy = 'x'\n")
    proc = run_cli("admit", "--repository", "octo/app", "--pull-request", "1", "--config",
                   "bad.toml", env=cli_env(GITHUB_TOKEN="ghp_" + "x" * 20), cwd=tmp_path)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "journal.categroy: unknown key" in err


def test_exit_codes_are_documented_in_the_module() -> None:
    assert set(EXIT_CODES) == {0, 1, 2, 3, 4, 5, 70, 130}
    assert build_parser().epilog is not None


def test_verify_material(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import hashlib

    data = b"release artifact\n"
    f = tmp_path / "a.bin"
    f.write_bytes(data)
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    ok = run_cli("verify-material", str(f), "--bytes", str(len(data)), "--digest", digest)
    assert ok.returncode == 0 and b"ok:" in ok.stdout
    bad = run_cli("verify-material", str(f), "--material",
                  json.dumps({"id": "a", "bytes": len(data) + 1, "digest": digest}))
    assert bad.returncode == 1
    assert b"bytes, expected" in bad.stderr
    tampered = run_cli("verify-material", "-", "--bytes", str(len(data)), "--digest", digest,
                       stdin=data + b"x")
    assert tampered.returncode == 1
    assert run_cli("verify-material", str(f)).returncode == 2


def test_app_serve_without_configuration_is_one_line_exit_2() -> None:
    proc = run_cli("app", "serve", "--port", "0")
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.startswith("ghattempt: error: app: ") and err.count("\n") == 1
    assert "GHATTEMPT_APP_" in err


def test_warnings_below_become_scrubbed_note_lines(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import logging

    from ghattempt.render import install_notes

    monkeypatch.setenv("GITHUB_TOKEN", "plain-secret-value-123")
    install_notes(None)
    install_notes(None)  # idempotent: one handler
    log = logging.getLogger("ghattempt.github.transport")
    log.warning("retrying in %s s with plain-secret-value-123 and ghp_%s", 1.0, "A" * 20)
    err = capsys.readouterr().err.splitlines()
    assert err == ["ghattempt: note: retrying in 1.0 s with [redacted] and [redacted]"]


@pytest.mark.parametrize(("argv", "extra", "module"), [
    (["emulator", "serve"], "emulator", "graphql"),
    (["demo"], "emulator", "jwt"),
    (["app", "serve"], "app", "starlette"),
])
def test_a_command_without_its_extra_names_the_extra_to_install(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        argv: list[str], extra: str, module: str) -> None:
    """A plain ``pip install ghattempt`` has neither the emulator nor the App server: the
    command says which extra to install (exit 2), never an internal error."""
    import importlib.util


    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == module else real(name, *a))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"in the checkout you installed ghattempt from, run pip install '.[{extra}]'" in err
    assert module in err and "ghattempt[" not in err  # not on PyPI: no package name to fetch
    assert "internal error" not in err
