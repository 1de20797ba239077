"""The Action's ``command: run``: its inputs become one ``ghattempt.commands.Run`` (or one
exit-2 error before any request), the work runs with the step's environment and not the
Action's token, and the step ends with the work's exit status and the run outputs.

The last two over HTTP: ``python -m ghattempt.action`` in its own process against the
emulator on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ghattempt.action import ActionError, action_inputs, work_environment
from ghattempt.work import Script

TOKEN = "ghs_actions"  # noqa: S105 -- the emulator fixture's Actions bot
SHA = "c" * 40


def _env(**inputs: str) -> dict[str, str]:
    env = {"GITHUB_RUN_ID": "7", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_REPOSITORY": "o/r",
           "GHATTEMPT_COMMAND": "run", "GHATTEMPT_PULL_REQUEST": "1",
           "GHATTEMPT_PHASE": "build", "GHATTEMPT_RUN": "make dist",
           "GHATTEMPT_TOKEN": TOKEN, "PATH": os.environ["PATH"], "RELEASE": "1.2"}
    env.update({"GHATTEMPT_" + k.upper(): v for k, v in inputs.items()})
    return env


def test_the_inputs_become_one_run_request(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "head": {"sha": SHA},
                                                  "base": {"ref": "main"}}}))
    env = _env(shell="bash", verify="exit 1", materials="dist/*\n\n# docs\nsbom.json\n",
               wait="30", working_directory="app",
               artifact_url="https://github.com/o/r/actions/runs/7/artifacts/9")
    env.update({"GITHUB_EVENT_PATH": str(event), "GITHUB_WORKSPACE": str(tmp_path)})
    request: Any = action_inputs(env).request
    assert type(request).__name__ == "Run"
    assert (request.phase, request.work, request.verify) == (
        "build", Script("make dist", "bash"), Script("exit 1", "bash"))
    assert (request.materials, request.wait, request.working_directory) == (
        ("dist/*", "sbom.json"), 30.0, "app")
    assert request.artifact_url.endswith("/artifacts/9") and request.head == SHA
    assert request.workspace == str(tmp_path) and request.target.base_ref == "main"
    # the work's environment: the step's, without the Action's own variables
    assert request.env["RELEASE"] == "1.2" and not any(
        k.startswith("GHATTEMPT_") for k in request.env)
    assert TOKEN not in repr(request)
    built_in: Any = action_inputs(_env(verify=" github-release:v1.2 ")).request
    assert built_in.verify == "github-release:v1.2" and built_in.work.shell is None


@pytest.mark.parametrize(("inputs", "message"), [
    ({"run": ""}, "command 'run' needs the inputs 'phase' (the phase whose work"),
    ({"phase": ""}, "command 'run' needs the inputs 'phase'"),
    ({"status": "started"}, "input 'status' is not for command 'run'"),
    ({"then_start": "review"}, "input 'then-start' is not for command 'run'"),
    ({"wait": "soon"}, "input 'wait' must be a number of seconds"),
    ({"wait": "-1"}, "input 'wait' must be a number of seconds"),
    ({"shell": "cmd"}, "input 'shell': shell 'cmd' runs on Windows runners only"),
    ({"shell": "bash -x"}, "must name the script file as '{0}'"),
    ({"shell": "no-such-shell-here {0}"}, "is not on the step's PATH"),
    ({"command": "record", "status": "started", "verify": "true", "run": ""},
     "input 'verify' is for command 'run' only"),
    ({"command": "admit", "run": "make"}, "input 'run' is for command 'run' only"),
    ({"phase": "deploy"}, "input 'phase' 'deploy' is not a phase"),
    ({"materials": "/etc/*"}, "input 'materials' glob '/etc/*' must be relative"),
    ({"artifact_url": "ftp://x"}, "the artifact URL must be an http(s) URL"),
])
def test_a_bad_run_input_is_one_error(inputs: dict[str, str], message: str) -> None:
    with pytest.raises(ActionError) as caught:
        action_inputs(_env(**inputs))
    assert message in str(caught.value)


def test_the_work_environment_drops_only_the_actions_own_variables() -> None:
    env = {"GHATTEMPT_TOKEN": TOKEN, "GHATTEMPT_RUN": "x", "GITHUB_TOKEN": "given",
           "HOME": "/h", "GITHUB_WORKSPACE": "/w"}
    assert work_environment(env) == {"GITHUB_TOKEN": "given", "HOME": "/h",
                                     "GITHUB_WORKSPACE": "/w"}


# ------------------------------------------------------------------- over HTTP

CONFIG = """[journal]\ncategory = "release-journal"\n[lease]\nlength = 120
request_timeout = 20\n[pacing]\nwrite_interval = 0\n[channels.release]
plan = ["build", "publication"]\n"""


def _step(work: Path, api_url: str, run_id: int, **inputs: str
          ) -> tuple[int, dict[str, str], str]:
    workspace = work / "workspace"
    out = work / f"out-{run_id}"
    out.write_text("")
    (work / "temp").mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GHATTEMPT_", "RUNNER_"))}
    env.update({"GHATTEMPT_TOKEN": TOKEN, "GITHUB_API_URL": api_url,
                "GITHUB_REPOSITORY": "octo-org/widgets", "GITHUB_OUTPUT": str(out),
                "GITHUB_WORKSPACE": str(workspace), "GITHUB_RUN_ID": str(run_id),
                "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "release",
                "GITHUB_WORKFLOW": "release", "RUNNER_TEMP": str(work / "temp"),
                "GHATTEMPT_PULL_REQUEST": "1", "GHATTEMPT_COMMAND": "run",
                "RELEASE": "1.2"})
    env.update({"GHATTEMPT_" + k.upper(): v for k, v in inputs.items()})
    done = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env,
                          capture_output=True, text=True, timeout=120, cwd=workspace)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    return done.returncode, outputs, done.stdout + done.stderr


@pytest.fixture
def world(tmp_path: Path) -> Any:
    from ghattempt.demo import Demo, emulator

    with emulator(tmp_path) as api_url:
        Demo(tmp_path, api_url=api_url, quiet=True).push(".github/ghattempt.toml",
                                                          CONFIG.encode(), "Add config")
        (tmp_path / "workspace" / ".github").mkdir(parents=True)
        (tmp_path / "workspace" / ".github" / "ghattempt.toml").write_text(CONFIG)
        yield tmp_path, api_url


@pytest.mark.network
def test_the_work_runs_with_the_steps_environment_and_its_exit_status(world: Any) -> None:
    work, api_url = world
    seen = work / "seen-env"
    script = f'env > "{seen}"\necho "the last words" >&2\nexit 3\n'
    rc, out, log = _step(work, api_url, 11, phase="build", run=script)
    # the step exits with the work's status, the work saw the step's environment but no
    # variable of the Action (the token among them)
    assert rc == 3, log
    assert (out["outcome"], out["exit-code"], out["status"]) == ("ran", "3", "failed")
    assert out["materials-json"] == "[]"
    env = dict(line.split("=", 1) for line in seen.read_text().splitlines() if "=" in line)
    assert env["RELEASE"] == "1.2" and env["GITHUB_RUN_ID"] == "11"
    assert not [k for k in env if k.startswith("GHATTEMPT_")]
    assert TOKEN not in seen.read_text()
    assert "::error title=ghattempt::the work of build exited 3" in log
    # its last line of error output is the failed record's reason
    assert "the last words" in log
    # the next run opens the successor and runs it again; a third run skips it
    rc, out, log = _step(work, api_url, 12, phase="build", run="mkdir -p dist && "
                         "echo widgets > dist/w.tgz", materials="dist/*")
    assert (rc, out["outcome"], out["exit-code"]) == (0, "ran", "0"), log
    (material,) = json.loads(out["materials-json"])
    assert material["id"].startswith("build:dist/w.tgz@") and material["bytes"] == 8
    assert material["url"].endswith("/actions/runs/12")
    rc, again, log = _step(work, api_url, 13, phase="build", run="exit 9")
    assert (rc, again["outcome"], again["exit-code"]) == (0, "skipped", ""), log
    assert again["attempt"] == out["attempt"]


@pytest.mark.network
def test_a_bad_input_is_exit_2_before_any_request(world: Any) -> None:
    work, api_url = world
    marker = work / "ran"
    rc, out, log = _step(work, api_url, 21, phase="build", run=f'touch "{marker}"',
                         status="started")
    assert rc == 2 and not marker.exists() and out == {}, log
    errors = [line for line in log.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "input 'status' is not for command 'run'" in errors[0]
    # a phase outside the channel's plan: refused by the request's own check, before
    # GitHub is asked anything; nothing ran
    rc, out, log = _step(work, api_url, 22, phase="review", run=f'touch "{marker}"')
    assert rc == 2 and not marker.exists(), log
    assert "is not in the plan of channel 'release'" in log


@pytest.mark.network
def test_the_runners_cancel_reaches_the_work_and_records_unknown(world: Any) -> None:
    """The runner cancels the step (SIGTERM to the Action's process, which the composite
    step execs): the work gets it, ends, and the phase is recorded unknown, never failed
    or cancelled; the step exits 128 + 15. The next run settles it by its verify."""
    import signal
    import time

    work, api_url = world
    pid, counter = work / "pid", work / "counter"
    script = (f'echo ran >> "{counter}"\necho $$ > "{pid}"\n'
              f'trap \'echo "got TERM" >&2; exit 143\' TERM\nsleep 60 & wait\n')
    out = work / "out-31"
    out.write_text("")
    (work / "temp").mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GITHUB_", "GHATTEMPT_", "RUNNER_"))}
    env.update({"GHATTEMPT_TOKEN": TOKEN, "GITHUB_API_URL": api_url,
                "GITHUB_REPOSITORY": "octo-org/widgets", "GITHUB_OUTPUT": str(out),
                "GITHUB_WORKSPACE": str(work / "workspace"), "GITHUB_RUN_ID": "31",
                "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "release",
                "GITHUB_WORKFLOW": "release", "RUNNER_TEMP": str(work / "temp"),
                "GHATTEMPT_PULL_REQUEST": "1", "GHATTEMPT_COMMAND": "run",
                "GHATTEMPT_PHASE": "build", "GHATTEMPT_RUN": script})
    proc = subprocess.Popen([sys.executable, "-m", "ghattempt.action"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=work / "workspace")
    deadline = time.monotonic() + 60
    while not (pid.exists() and pid.read_text().strip()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    log, _ = proc.communicate(timeout=60)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    assert proc.returncode == 143, log
    assert (outputs["outcome"], outputs["exit-code"]) == ("ran", "143"), log
    assert (outputs["status"], outputs["recovery"]) == ("reconciling", "reconcile:build")
    assert "got TERM" in log
    # a later step of the same job (its earlier step has ended) settles it by a verify
    env.update({"GHATTEMPT_VERIFY": "exit 0"})
    out.write_text("")
    again = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env,
                           capture_output=True, text=True, timeout=120,
                           cwd=work / "workspace")
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    assert (again.returncode, outputs["outcome"], outputs["status"]) == (
        0, "settled", "running"), again.stdout + again.stderr
    assert counter.read_text().splitlines() == ["ran"]


@pytest.mark.network
def test_beside_a_live_run_the_step_is_busy_and_runs_nothing(world: Any) -> None:
    """Run 41 started build and still runs (the emulator's Actions API says so): run
    42's step runs nothing, ends busy (exit 4, retrying later can help) with recovery
    wait:build. Once run 41 has ended, run 42's re-run asks its verify and settles."""
    import httpx

    work, api_url = world
    head = httpx.post(api_url + "graphql", headers={"authorization": "bearer ghp_alice"},
                      json={"query": '{repository(owner:"octo-org",name:"widgets"){'
                            'ref(qualifiedName:"refs/heads/feature"){target{oid}}}}'},
                      timeout=10).json()["data"]["repository"]["ref"]["target"]["oid"]
    httpx.post(api_url + "_emulator/runs", json={
        "repository": "octo-org/widgets", "run_id": 41, "path": ".github/workflows/r.yml",
        "name": "release", "head_sha": head, "status": "in_progress",
        "jobs": ["release"]}, timeout=10).raise_for_status()
    rc, out, log = _step(work, api_url, 41, command="admit", start="build")
    assert rc == 0, log  # the attempt and build started, by run 41's job
    marker = work / "ran"
    rc, out, log = _step(work, api_url, 42, phase="build", run=f'touch "{marker}"',
                         verify="exit 0")
    assert (rc, out["outcome"], out["exit-code"], out["recovery"]) == (
        4, "busy", "", "wait:build"), log
    assert not marker.exists()
    assert "::error title=ghattempt::build busy: " in log
    httpx.post(api_url + "_emulator/runs/41/end", json={
        "repository": "octo-org/widgets", "conclusion": "cancelled"},
        timeout=10).raise_for_status()
    rc, out, log = _step(work, api_url, 42, phase="build", run=f'touch "{marker}"',
                         verify="exit 0")
    assert (rc, out["outcome"], out["status"]) == (0, "settled", "running"), log
    assert not marker.exists()
