"""The Action (action.yml), its dependency lock, and the workflows: structure rules.

These are the rules the linters do not know: inputs reach the program only through
``env:``, third-party actions are pinned by full commit SHA, the lock hash-checks every
file, the documented contract matches the action's inputs and outputs, and the example
release workflow has the permissions and concurrency the journal needs.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

from ghattempt.config import PHASES, load_config

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
LOCK = ROOT / "action" / "requirements.txt"
INSTALL = ROOT / "action" / "install.sh"
WORKFLOWS = ROOT / ".github" / "workflows"
EXAMPLES = ROOT / "examples" / "workflows"
DOC = ROOT / "docs" / "action.md"

INPUTS = {
    "command",
    "plan-command",
    "category",
    "token",
    "repository",
    "pull-request",
    "base-ref",
    "start",
    "then-start",
    "attempt",
    "head",
    "phase",
    "run",
    "shell",
    "working-directory",
    "verify",
    "wait",
    "artifact-url",
    "status",
    "reason",
    "key",
    "materials",
    "channel",
    "config",
    "request-key",
    "summary",
}
OUTPUTS = {"outcome", "exit-code", "materials-json", "status", "recovery", "attempt",
           "generation", "missing-phases", "missing-phases-json", "next-phase", "ignored",
           "journal-url", "timeline", "plan-json", "probe-report"}
COMMANDS = {"run", "admit", "record", "status", "successor", "supersede", "expire", "rollback",
            "plan", "probe"}
PINNED = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}\Z")


def load(path: Path) -> dict[str, Any]:
    # YAML 1.1 reads the key `on` as True; GitHub reads it as "on".
    data = yaml.safe_load(path.read_text())
    if True in data:
        data["on"] = data.pop(True)
    return data


def env_name(input_name: str) -> str:
    return "GHATTEMPT_" + input_name.upper().replace("-", "_")


def all_steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in doc:
        return list(doc["runs"]["steps"])
    return [s for job in doc["jobs"].values() for s in job.get("steps", [])]


def all_files() -> list[Path]:
    return [ACTION, *sorted(WORKFLOWS.glob("*.yml"))]


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    return load(ACTION)


def test_action_is_composite_with_the_contract_inputs_and_outputs(action):
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == INPUTS
    assert set(action["outputs"]) == OUTPUTS
    for name, spec in action["outputs"].items():
        assert spec["value"] == f"${{{{ steps.run.outputs.{name} }}}}"
    assert action["inputs"]["command"]["required"] is True
    assert action["inputs"]["token"]["default"] == "${{ github.token }}"
    assert action["inputs"]["config"]["default"] == ".github/ghattempt.toml"
    for cmd in COMMANDS:
        assert cmd in action["inputs"]["command"]["description"]


def test_inputs_reach_the_program_only_through_env(action):
    run = next(s for s in action["runs"]["steps"] if s.get("id") == "run")
    # -I: isolated mode, so neither the workspace nor PYTHON* variables can shadow it;
    # exec: the runner's signals on cancel reach it (command run forwards them to the work)
    assert run["run"] == 'exec "$GHATTEMPT_VENV/bin/python" -I -m ghattempt.action'
    for name in INPUTS:
        assert run["env"][env_name(name)] == f"${{{{ inputs.{name} }}}}"
    # no input is read anywhere but in that env block
    for step in action["runs"]["steps"]:
        if step is run:
            continue
        assert "inputs." not in yaml.safe_dump(step), step.get("name")


@pytest.mark.parametrize("path", [*all_files(), *sorted(EXAMPLES.glob("*.yml"))],
                         ids=lambda p: p.name)
def test_no_expression_inside_run_scripts(path):
    """Nor inside the scripts a ghattempt step runs (its inputs run and verify): they run
    as a run: step does, so an expression there is the same template injection.
    ``github-release:TAG`` is no script: ghattempt reads the tag, no shell does."""
    for step in all_steps(load(path)):
        if "run" in step:
            assert "${{" not in step["run"], f"{path.name}: {step.get('name')}"
        uses = str(step.get("uses", ""))
        if uses == "./" or uses.startswith("OWNER/ghattempt@"):
            given = step.get("with") or {}
            assert "${{" not in str(given.get("run", "")), f"{path.name}: {step.get('id')}"
            verify = str(given.get("verify", ""))
            if not verify.startswith("github-release:"):
                assert "${{" not in verify, f"{path.name}: {step.get('id')}"


@pytest.mark.parametrize("path", all_files(), ids=lambda p: p.name)
def test_third_party_actions_are_pinned_by_commit_with_a_version_comment(path):
    text = path.read_text()
    uses = re.findall(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$", text, re.M)
    assert uses
    for ref, rest in uses:
        if ref == "./":
            continue
        assert PINNED.match(ref), f"{path.name}: {ref} is not pinned by full commit SHA"
        assert re.match(r"\s+# v\d+\.\d+\.\d+$", rest), f"{path.name}: {ref} lacks # vX.Y.Z"


def test_same_action_versions_everywhere():
    seen: dict[str, set[str]] = {}
    for path in all_files():
        for ref in re.findall(r"uses:\s*([\w./-]+)@([0-9a-f]{40})", path.read_text()):
            seen.setdefault(ref[0], set()).add(ref[1])
    assert seen and all(len(shas) == 1 for shas in seen.values()), seen


def test_install_uses_the_hash_checked_lock_and_the_cache_key_follows_it(action):
    steps = {s.get("name"): s for s in action["runs"]["steps"]}
    deps = steps["Install pinned, hash-checked dependencies"]
    assert '"$GITHUB_ACTION_PATH/action/install.sh" deps' in deps["run"]
    assert "cache-hit != 'true'" in deps["if"]
    own = steps["Install ghattempt"]
    assert '"$GITHUB_ACTION_PATH/action/install.sh" self' in own["run"]
    assert own["if"] == "steps.prep.outputs.self-ready != 'true'"
    cache = steps["Restore the ghattempt environment"]
    assert cache["uses"].startswith("actions/cache@")
    assert "steps.prep.outputs.lock-hash" in cache["with"]["key"]
    assert "steps.python.outputs.python-version" in cache["with"]["key"]
    prep = steps["Locate the ghattempt environment"]
    assert '"${sha[@]}" "$GITHUB_ACTION_PATH/action/requirements.txt"' in prep["run"]
    python = steps["Set up Python for ghattempt"]
    # the consumer's own Python and PATH stay as they were
    assert python["with"]["update-environment"] is False
    script = INSTALL.read_text()
    for flag in ("--require-hashes", "--no-deps", "--only-binary :all:"):
        assert flag in script


def lock_lines() -> list[tuple[str, Version | None, str | None, str, list[str]]]:
    """(name, version or None, wheel URL or None, marker, hashes) of each lock line."""
    lines = []
    text = LOCK.read_text().replace("\\\n", " ")
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        head, _, _ = line.partition(" --hash")
        spec, _, marker = (part.strip() for part in head.partition(" ; "))
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", line)
        if " @ " in spec:
            name, _, url = spec.partition(" @ ")
            wheel = parse_wheel_filename(url.rsplit("/", 1)[1])
            lines.append((canonicalize_name(name), wheel[1], url, marker, hashes))
        else:
            name, _, version = spec.partition("==")
            lines.append((canonicalize_name(name), Version(version), None, marker, hashes))
    return lines


def lock_entries() -> dict[str, Version]:
    return {name: version for name, version, *_ in lock_lines()}


def test_lock_pins_every_wheel_by_url_and_hash():
    lines = lock_lines()
    assert len(lock_entries()) >= 10
    for name, _version, url, _marker, hashes in lines:
        assert hashes, f"{name} has no --hash"
        if url is not None:
            # one wheel, one hash, from PyPI's file host over https
            assert url.startswith("https://files.pythonhosted.org/packages/"), url
            assert url.endswith(".whl") and len(hashes) == 1, name
    assert "scripts/lock-action-deps" in LOCK.read_text().splitlines()[0]


def test_every_platform_of_the_action_gets_exactly_one_line_per_distribution():
    """The markers of a distribution's lines never overlap and leave no environment out:
    on each platform the Action runs on (Python 3.12) one wheel URL applies, elsewhere
    the index line with every hash of the release."""
    envs = [
        {"python_version": py, "sys_platform": os_, "platform_machine": m,
         "platform_python_implementation": "CPython", "implementation_name": "cpython"}
        for py in ("3.11", "3.12", "3.13")
        for os_, m in (("linux", "x86_64"), ("linux", "aarch64"), ("darwin", "arm64"),
                       ("darwin", "x86_64"), ("win32", "AMD64"))
    ]
    by_name: dict[str, list[tuple[str | None, str]]] = {}
    for name, _version, url, marker, _hashes in lock_lines():
        by_name.setdefault(name, []).append((url, marker))
    for name, lines in by_name.items():
        for env in envs:
            applying = [url for url, marker in lines if not marker or Marker(marker).evaluate(env)]
            assert len(applying) == 1, (name, env, applying)
            action_platform = env["python_version"] == "3.12" and env["sys_platform"] in (
                "linux", "darwin")
            if len(lines) > 1 and action_platform:
                assert applying[0] is not None, (name, env)  # a direct wheel, no index page


def test_lock_satisfies_the_project_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    entries = lock_entries()
    for raw in project["project"]["dependencies"]:
        req = Requirement(raw)
        name = canonicalize_name(req.name)
        assert name in entries, f"{req.name} is not in action/requirements.txt"
        assert req.specifier.contains(entries[name], prereleases=True), f"{name} vs {req}"


def test_the_action_installs_no_server_no_emulator_and_no_build_backend():
    entries = lock_entries()
    for absent in ("starlette", "uvicorn", "graphql-core", "pyjwt", "cryptography",
                   "hatchling", "githubkit-schemas-2026-03-10", "click"):
        assert absent not in entries, absent
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    assert any(r.startswith("starlette") for r in extras["app"])
    assert any(r.startswith("uvicorn") for r in extras["app"])
    assert any(r.startswith("graphql-core") for r in extras["emulator"])


def test_every_env_name_and_output_is_documented():
    doc = DOC.read_text()
    for name in INPUTS:
        assert f"`{env_name(name)}`" in doc, env_name(name)
        assert f"`{name}`" in doc, name
    for name in OUTPUTS:
        assert f"`{name}`" in doc, name
    for needed in (
        "::add-mask::",
        "::error title=ghattempt::journal invalid",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_OUTPUT",
    ):
        assert needed in doc


# ----------------------------------------------------------------------------- workflows


def test_ci_runs_the_suite_with_read_only_permissions():
    ci = load(WORKFLOWS / "ci.yml")
    assert ci["permissions"] == {"contents": "read"}
    steps = ci["jobs"]["test"]["steps"]
    assert any(s.get("run") == "bash .ci/run" for s in steps)
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False
    assert "scripts/test" in (ROOT / ".ci" / "run").read_text()
    assert "scripts/lint-actions" in (ROOT / ".ci" / "run").read_text()


@pytest.fixture(scope="module")
def release() -> dict[str, Any]:
    return load(WORKFLOWS / "example-release.yml")


def test_example_release_permissions_and_concurrency(release):
    assert release["permissions"] == {}
    (job,) = release["jobs"].values()
    assert job["permissions"] == {
        "discussions": "write",
        "contents": "write",
        "pull-requests": "read",
        "actions": "read",  # whether the run that started a phase still runs
    }
    assert release["concurrency"]["cancel-in-progress"] is False
    assert "${{ inputs.pull-request }}" in release["concurrency"]["group"]
    assert set(release["on"]) == {"workflow_dispatch"}


def _due(phase):
    return f"contains(fromJSON(steps.admit.outputs.missing-phases-json), '{phase}')"


def test_example_release_runs_every_phase_in_one_step_without_conditions(release):
    """Issue 24's shape: at most 110 lines, one run step per phase of the plan, in plan
    order, no if: on journal outputs, then the status; the consumer example likewise for
    build then publication in at most 45 lines."""
    assert len((WORKFLOWS / "example-release.yml").read_text().splitlines()) <= 110
    (job,) = release["jobs"].values()
    action_steps = [s for s in job["steps"] if s.get("uses") == "./"]
    runs = [s for s in action_steps if s["with"]["command"] == "run"]
    assert [s["with"]["phase"] for s in runs] == list(PHASES)
    assert all("if" not in s and s["with"]["run"].strip() for s in runs)
    assert [s["with"]["command"] for s in action_steps] == ["run"] * len(PHASES) + ["status"]
    for step in action_steps:
        assert step["with"]["pull-request"] == "${{ inputs.pull-request }}"
    consumer = EXAMPLES / "release.yml"
    assert len(consumer.read_text().splitlines()) <= 45
    (job,) = load(consumer)["jobs"].values()
    ours = [s for s in job["steps"] if str(s.get("uses", "")).startswith("OWNER/ghattempt@")]
    assert [(s["with"]["command"], s["with"]["phase"]) for s in ours] == [
        ("run", "build"), ("run", "publication")]
    assert all("if" not in s for s in job["steps"])


def test_the_step_by_step_example_admits_records_every_phase_and_reads_status():
    (job,) = load(EXAMPLES / "release-step-by-step.yml")["jobs"].values()
    action_steps = [s for s in job["steps"]
                    if str(s.get("uses", "")).startswith("OWNER/ghattempt@")]
    commands = [s["with"]["command"] for s in action_steps]
    assert commands[0] == "admit" and commands[-1] == "status"
    assert set(commands) <= COMMANDS
    recorded = {
        (s["with"]["phase"], s["with"]["status"])
        for s in action_steps
        if s["with"]["command"] == "record" and not s["with"]["phase"].startswith("${{")
    }
    # admit records its start phase's started (input start)
    recorded |= {(s["with"]["start"], "started") for s in action_steps
                 if s["with"]["command"] == "admit" and s["with"].get("start")}
    for phase in PHASES:
        assert (phase, "started") in recorded and (phase, "succeeded") in recorded, phase
        # a phase outside the admitted plan (or already done) is skipped; the one admit
        # starts is started by admit, whose step always runs
        started = next(
            (s for s in action_steps
             if s["with"].get("phase") == phase and s["with"].get("status") == "started"),
            None)
        if started is None:
            assert action_steps[0]["with"].get("start") == phase and "if" not in (
                action_steps[0]), phase
            continue
        # its own step only when the run before did the phase before it; else the
        # previous phase's success starts it (then-start, below)
        prev = PHASES[PHASES.index(phase) - 1]
        assert started["if"] == f"{_due(phase)} && !{_due(prev)}", phase
    for phase, following in zip(PHASES, PHASES[1:]):
        succeeded = next(s for s in action_steps if s["with"].get("phase") == phase
                         and s["with"].get("status") == "succeeded")
        assert succeeded["if"] == _due(phase)
        # the next phase started in the same hold, only when it is due
        assert succeeded["with"]["then-start"] == (
            f"${{{{ {_due(following)} && '{following}' || '' }}}}"), phase
    last = next(s for s in action_steps if s["with"].get("phase") == PHASES[-1]
                and s["with"].get("status") == "succeeded")
    assert "then-start" not in last["with"]
    failed = next(s for s in action_steps if s["with"].get("status") == "failed")
    assert failed["if"].startswith("failure()") and failed["with"]["reason"]
    for step in action_steps:
        assert step["with"]["pull-request"] == "${{ inputs.pull-request }}"


def test_repository_config_for_the_example_workflow_loads():
    cfg = load_config(".github/ghattempt.toml", root=ROOT)
    assert cfg.channel("release").plan == PHASES
