"""The Action's workflow commands, outputs and summary modes, and its refusals before any
request: ``python -m ghattempt.action`` as a runner runs it, against the emulator."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import World, cli_env

TOKEN = "ghs_actions"  # noqa: S105 -- the emulator fixture's Actions bot


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("commands"))
    try:
        yield w
    finally:
        w.close()


class Step:
    def __init__(self, proc: subprocess.CompletedProcess[str], out: Path,
                 summary: Path) -> None:
        self.rc, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        self.outputs = dict(line.split("=", 1) for line in out.read_text().splitlines()
                            if "=" in line) if out.is_file() else {}
        self.summary = summary.read_text() if summary.is_file() else ""


_n = [900]


def run(world: World, tmp: Path, command: str, *, env_extra: dict[str, str] | None = None,
        **inputs: str) -> Step:
    _n[0] += 1
    out, summary = tmp / f"out{_n[0]}", tmp / f"summary{_n[0]}.md"
    out.write_text("")
    runner_temp = tmp / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    env = cli_env(
        GITHUB_ACTIONS="true", GITHUB_RUN_ID=str(_n[0]), GITHUB_RUN_ATTEMPT="1",
        GITHUB_JOB="release", GITHUB_WORKFLOW="release", GITHUB_REPOSITORY="octo-org/widgets",
        GITHUB_API_URL=world.api_url, GITHUB_WORKSPACE=str(world.workspace),
        GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary), RUNNER_TEMP=str(runner_temp),
        GHATTEMPT_COMMAND=command, GHATTEMPT_TOKEN=TOKEN, GHATTEMPT_PULL_REQUEST="1")
    for name, value in inputs.items():
        env["GHATTEMPT_" + name.upper()] = value
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env, text=True,
                          capture_output=True, timeout=120, cwd=tmp)
    return Step(proc, out, summary)


def test_a_step_groups_its_detail_and_debug_lines_name_documents_status_and_cost(
        world: World, tmp_path: Path) -> None:
    admitted = run(world, tmp_path, "admit", env_extra={"RUNNER_DEBUG": "1"})
    assert admitted.rc == 0, admitted.stdout + admitted.stderr
    lines = admitted.stdout.splitlines()
    assert lines[0] == f"::add-mask::{TOKEN}"
    assert "::group::ghattempt admit" in lines and "::endgroup::" in lines
    start, end = lines.index("::group::ghattempt admit"), lines.index("::endgroup::")
    debug = [x for x in lines if x.startswith("::debug::")]
    assert debug, admitted.stdout
    assert all(start < lines.index(x) < end for x in debug)
    for x in debug:
        # a GraphQL document's name, or a REST route template: never a body or a token
        assert re.fullmatch(r"::debug::(?:[A-Za-z]+|[A-Z]+ /[a-z/{}_-]+): (?:HTTP \d{3}, cost "
                            r"\d+|no answer \(\w+\), cost 0)", x), x
    names = {x.split("::debug::", 1)[1].split(":", 1)[0] for x in debug}
    assert {"WriterRead", "CreateDiscussion", "AddDiscussionComment"} <= names
    # the result line and annotations stay outside the group
    assert lines[end + 1:] and lines[-1].startswith("ghattempt admit: admitted attempt")
    assert TOKEN not in "\n".join(lines[1:]) + admitted.stderr
    assert "HTTP 200" not in admitted.stderr  # debug lines once, as ::debug::, not as notes

    for variable, value in (("ACTIONS_STEP_DEBUG", "true"), ("ACTIONS_STEP_DEBUG", "TRUE")):
        st = run(world, tmp_path, "status", env_extra={variable: value})
        # the journal is read with its lease ref (JournalPageLease), or at start (WriterRead)
        assert any(x.startswith(("::debug::JournalPageLease: HTTP 200",
                                 "::debug::WriterRead: HTTP 200"))
                   for x in st.stdout.splitlines())
    quiet = run(world, tmp_path, "status")
    # without debug there is nothing to fold: no group at all, never an empty one
    assert "::debug::" not in quiet.stdout and "::group::" not in quiet.stdout
    assert "::endgroup::" not in quiet.stdout


def test_outputs_compose_and_summaries_are_written_once(world: World, tmp_path: Path) -> None:
    status = run(world, tmp_path, "status")
    assert status.rc == 0
    out = status.outputs
    assert json.loads(out["missing-phases-json"]) == out["missing-phases"].split()
    assert out["next-phase"] == out["recovery"].partition(":")[2]
    page = Path(out["timeline"])
    assert page.parent == tmp_path / "runner-temp" and page.read_text().startswith(
        "<!DOCTYPE html>")
    # status: full summary with every attempt and its phases
    assert status.summary.startswith("### ghattempt: ")
    assert "#### Attempts" in status.summary and "| phase | status | first record |" in \
        status.summary
    assert "/actions/runs/" in status.summary  # the runs that wrote the records, linked
    record = run(world, tmp_path, "record", phase="admission", status="started")
    assert record.rc == 0, record.stdout
    assert record.summary.count("\n") == 1 and record.summary.startswith(
        "**ghattempt record**: recorded admission started")
    full = run(world, tmp_path, "record", phase="admission", status="succeeded",
               summary="full")
    assert "#### Attempts" in full.summary
    assert "| admission | `succeeded` |" in full.summary
    none = run(world, tmp_path, "status", summary="none")
    assert none.rc == 0 and none.summary == ""
    bad = run(world, tmp_path, "status", summary="all")
    assert bad.rc == 2 and "input 'summary' must be one of full, brief, none" in bad.stdout


def test_ignored_records_give_a_warning_and_the_ignored_output(world: World,
                                                               tmp_path: Path) -> None:
    before = run(world, tmp_path, "status")
    number = before.outputs["journal-url"].rsplit("/", 1)[1]
    # someone else writes into the journal: a comment by the pull request's author
    repo_disc = _discussion_id(world, int(number))
    _comment(world, repo_disc, "ghp_alice", "LGTM, ship it")
    after = run(world, tmp_path, "status")
    assert after.rc == 0, after.stdout
    assert int(after.outputs["ignored"]) == int(before.outputs["ignored"]) + 1
    warnings = [x for x in after.stdout.splitlines() if x.startswith("::warning")]
    assert len(warnings) == 1, after.stdout
    assert re.search(r"\d+ comments? of the journal ignored", warnings[0])
    assert "| ignored |" in after.summary


def _discussion_id(world: World, number: int) -> str:
    state = world.emulator.snapshot()
    repo = next(r for r in state["repositories"] if r["nameWithOwner"] == "octo-org/widgets")
    return str(next(d["id"] for d in repo["discussions"] if d["number"] == number))


def _comment(world: World, discussion: str, token: str, body: str) -> None:
    import urllib.request

    query = ("mutation($d:ID!,$b:String!){addDiscussionComment(input:{discussionId:$d,"
             "body:$b}){comment{id}}}")
    req = urllib.request.Request(  # noqa: S310 -- the loopback emulator
        world.api_url + "graphql", method="POST",
        data=json.dumps({"query": query, "variables": {"d": discussion, "b": body}}).encode(),
        headers={"authorization": f"bearer {token}", "content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:  # noqa: S310
        assert "errors" not in json.loads(r.read())


# ------------------------------------------------------- refused before any request


def offline_env(tmp: Path, **inputs: str) -> dict[str, str]:
    """An environment whose API URL answers nothing: a refusal that sent a request would
    end in a connection error (exit 4), not exit 2."""
    env = cli_env(GITHUB_RUN_ID="5", GITHUB_RUN_ATTEMPT="1", GITHUB_JOB="j",
                  GITHUB_WORKFLOW="w", GITHUB_REPOSITORY="octo-org/widgets",
                  GITHUB_API_URL="http://127.0.0.1:9/", GITHUB_WORKSPACE=str(tmp),
                  GHATTEMPT_TOKEN=TOKEN, GHATTEMPT_PULL_REQUEST="1")
    (tmp / ".github").mkdir(exist_ok=True)
    cfg = tmp / ".github" / "ghattempt.toml"
    if not cfg.exists():
        cfg.write_text('[channels.stable]\nplan = ["admission", "build"]\n')
    for name, value in inputs.items():
        env["GHATTEMPT_" + name.upper()] = value
    return env


def entry(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env, text=True,
                          capture_output=True, timeout=60, cwd=cwd)


def errors(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [x for x in done.stdout.splitlines() if x.startswith("::error")]


def test_a_phase_outside_the_plan_is_bad_input_before_any_request(tmp_path: Path) -> None:
    done = entry(offline_env(tmp_path, COMMAND="record", PHASE="deploy", STATUS="started"),
                 tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    (error,) = errors(done)
    assert "input 'phase'" in error and "--phase" not in error
    assert "'deploy' is not in the plan of channel 'stable'" in error
    # in the plan, with a status its kind of phase takes: it goes on, to the network
    for phase, status, why in (("admission", "started", {}),
                               ("attempt", "cancelled", {"REASON": "a reason"})):
        ok = entry(offline_env(tmp_path, COMMAND="record", PHASE=phase, STATUS=status, **why),
                   tmp_path)
        assert ok.returncode == 4, ok.stdout


def test_a_configuration_error_is_annotated_on_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ghattempt.toml").write_text(
        '[journal]\ncategory = "General"\n\n[lease]\nlength = 5\n')
    done = entry(offline_env(tmp_path, COMMAND="admit"), tmp_path)
    assert done.returncode == 2
    (error,) = errors(done)
    assert error.startswith("::error file=.github/ghattempt.toml,line=5,col=1,title=ghattempt::")
    assert "lease.length" in error
    (tmp_path / ".github" / "ghattempt.toml").write_text('[journal]\ncategory = "Gen\n')
    syntax = entry(offline_env(tmp_path, COMMAND="status"), tmp_path)
    (error,) = errors(syntax)
    assert error.startswith("::error file=.github/ghattempt.toml,line=2,")
    (tmp_path / ".github" / "ghattempt.toml").write_text('[channels.a]\nplan = ["build"]\n')
    channel = entry(offline_env(tmp_path, COMMAND="admit", CHANNEL="nightly"), tmp_path)
    (error,) = errors(channel)
    assert error.startswith("::error file=.github/ghattempt.toml,") and "nightly" in error


def test_a_fifo_as_the_configuration_file_is_refused_at_once(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    os.mkfifo(tmp_path / ".github" / "ghattempt.toml")
    done = entry(offline_env(tmp_path, COMMAND="admit"), tmp_path)
    assert done.returncode == 2
    (error,) = errors(done)
    assert "named pipe (FIFO)" in error


@pytest.mark.parametrize("name", ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"])
def test_an_unwritable_output_file_is_one_error_before_anything(tmp_path: Path,
                                                                name: str) -> None:
    target = tmp_path / "not-a-file"
    target.mkdir()
    env = offline_env(tmp_path, COMMAND="record", PHASE="admission", STATUS="started")
    env[name] = str(target)
    done = entry(env, tmp_path)
    assert done.returncode == 2
    assert done.stdout.splitlines()[1:] == errors(done) and len(errors(done)) == 1
    assert f"{name} ({target}) cannot be written" in errors(done)[0]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("inputs, said", [
    ({"PULL_REQUEST": "2147483648"}, "input 'pull-request' must be a number from 1 to"),
    ({"PULL_REQUEST": "0"}, "input 'pull-request' must be a number from 1 to"),
    ({"REQUEST_KEY": "has space"}, "input 'request-key' must be 1-128 characters"),
    ({"KEY": "k" * 129}, "input 'key' must be 1-128 characters"),
    ({"KEY": "ghp_" + "a" * 36}, "input 'key' holds a token or key"),
    ({"KEY": TOKEN + "-1"}, "input 'key' holds a token or key"),
    ({"CHANNEL": "github_pat_" + "b" * 30}, "input 'channel' holds a token or key"),
    ({"HEAD": "abc123"}, "input 'head' must be a commit SHA: 40 lowercase hex digits"),
])
def test_bad_inputs_get_one_error_and_exit_2_before_any_request(
        tmp_path: Path, inputs: dict[str, str], said: str) -> None:
    env = offline_env(tmp_path, COMMAND="record", PHASE="admission", STATUS="started",
                      **inputs)
    done = entry(env, tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    (error,) = errors(done)
    assert said in error
    shown = "\n".join(done.stdout.splitlines()[1:]) + done.stderr
    for value in inputs.values():
        if value.startswith(("ghp_", "github_pat_", TOKEN)):
            assert value not in shown  # never echoed


def test_no_step_shows_an_empty_group(world: World, tmp_path: Path) -> None:
    """issue 23, section 5: a ::group:: with nothing in it is an empty fold in the log."""
    for command, extra in (("status", {}), ("record", {"PHASE": "admission",
                                                      "STATUS": "started"})):
        step = run(world, tmp_path, command, **{k.lower(): v for k, v in extra.items()})
        lines = step.stdout.splitlines()
        assert step.rc in (0, 1), step.stdout + step.stderr
        for i, line in enumerate(lines):
            if line.startswith("::group::"):
                assert lines[i + 1] != "::endgroup::", step.stdout


def test_the_status_summary_says_status_once(world: World, tmp_path: Path) -> None:
    """issue 23, section 5: the summary of status said `status: status running`."""
    for mode in ("full", "brief"):
        step = run(world, tmp_path, "status", summary=mode)
        assert step.rc == 0, step.stdout + step.stderr
        assert "status: status" not in step.summary and "status status" not in step.summary
        assert f"`{step.outputs['status']}`" in step.summary


def test_a_refused_steps_summary_says_why(tmp_path: Path) -> None:
    """issue 23, section 5: after a refusal the summary showed the journal, not why the
    step was refused."""
    (tmp_path / "world").mkdir()
    w = World(tmp_path / "world")
    try:
        assert run(w, tmp_path, "admit").rc == 0
        # publication before build: the journal's rules refuse it (exit 1)
        for mode in ("full", "brief"):
            step = run(w, tmp_path, "record", phase="publication", status="started",
                       summary=mode)
            assert step.rc == 1, step.stdout + step.stderr
            (error,) = [x for x in step.stdout.splitlines() if x.startswith("::error")]
            why = error.split("::", 2)[2]
            assert "refused, nothing written" in step.summary, step.summary
            assert why[:60] in step.summary.replace("\\", ""), (why, step.summary)
    finally:
        w.close()
