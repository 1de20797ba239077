"""``plan``: every check a writer command makes, and what it would write, writing
nothing; exit 0 only when a real run would be allowed, else the real run's exit status
and reason. The Action's ``command: plan`` and ``ghattempt plan``, over the HTTP
emulator."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import CONFIG, World
from .test_action_commands import entry, errors, offline_env, run

MUTATIONS = ("CreateDiscussion", "AddDiscussionComment", "CreateRef", "CreateCommitOnBranch",
             "UpdateRefs", "DeleteRef", "git/create-commit", "git/create-ref",
             "git/update-ref", "git/delete-ref")
LEASES = {"name": "leases", "include": ["refs/heads/ghattempt/lease/**"],
          "rules": ["creation", "update"], "bypass": []}


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    (tmp_path / "world").mkdir()
    w = World(tmp_path / "world")
    try:
        yield w
    finally:
        w.close()


def _state(world: World) -> Any:
    """The emulator's state, without its clock."""
    return {k: v for k, v in world.emulator.snapshot().items() if k != "now"}


def _mutations(world: World) -> list[str]:
    return [e["operation"] for e in world.emulator.request_log()
            if e.get("operation") in MUTATIONS]


def _planned(step: Any) -> list[dict[str, Any]]:
    writes: list[dict[str, Any]] = json.loads(step.outputs["plan-json"])["writes"]
    return writes


def test_plan_passes_on_a_good_setup_and_writes_nothing(world: World, tmp_path: Path) -> None:
    before = _state(world)
    world.emulator.clear_request_log()
    admit = run(world, tmp_path, "plan")  # plan-command defaults to admit
    assert admit.rc == 0, admit.stdout + admit.stderr
    assert _state(world) == before and _mutations(world) == []
    writes = _planned(admit)
    assert [w["kind"] for w in writes] == ["lease", "discussion", "attempt"]
    assert writes[0]["what"].startswith("create lease ref refs/heads/ghattempt/lease/")
    assert writes[1]["record"]["type"] == "intent" and writes[1]["record"]["pull_request"] == 1
    attempt = writes[2]["record"]
    assert attempt["type"] == "attempt" and attempt["plan"] == ["admission", "build",
                                                               "publication"]
    assert attempt["writer"] == {"kind": "actions", "run_id": attempt["writer"]["run_id"],
                                 "run_attempt": 1, "job": "release", "workflow": "release"}
    # the outputs are those of the journal as the writes would leave it
    assert (admit.outputs["status"], admit.outputs["next-phase"]) == ("pending", "admission")
    assert admit.outputs["journal-url"] == "" and admit.outputs["timeline"] == ""
    lines = admit.stdout.splitlines()
    # no debug, no notes: nothing to fold, so no (empty) group
    assert "::group::ghattempt plan admit" not in lines and "::endgroup::" not in lines
    assert any(x.startswith("ghattempt plan admit: a real run would be allowed, nothing was "
                            "written") for x in lines)
    assert "  would write attempt: attempt sha256:" in admit.stdout
    assert "```json" in admit.summary and '"type": "attempt"' in admit.summary

    # what the plan said is what the real run writes
    real = run(world, tmp_path, "admit")
    assert real.rc == 0, real.stdout
    comments = _state(world)["repositories"][0]["discussions"][0]["comments"]
    assert len(comments) == 1 and '"plan":["admission","build","publication"]' in \
        comments[0]["body"].replace(" ", "")

    before = _state(world)
    world.emulator.clear_request_log()
    record = run(world, tmp_path, "plan", plan_command="record", phase="admission",
                 status="started")
    assert record.rc == 0, record.stdout + record.stderr
    assert _state(world) == before and _mutations(world) == []
    writes = _planned(record)
    assert [w["kind"] for w in writes] == ["lease", "event"]
    assert writes[0]["what"].startswith("move lease ref refs/heads/ghattempt/lease/")
    event = writes[1]["record"]
    assert (event["phase"], event["status"], event["seq"]) == ("admission", "started", 1)
    assert event["key"] == f"gha:{event['writer']['run_id']}:1:release:admission:started"
    assert record.outputs["status"] == "running"

    # a record the journal's rules refuse: the real run's refusal (exit 1), nothing sent
    refused = run(world, tmp_path, "plan", plan_command="record", phase="build",
                  status="succeeded")
    assert refused.rc == 1, refused.stdout
    (error,) = errors_of(refused)
    assert "missing_predecessor" in error
    assert _state(world) == before and _mutations(world) == []


def errors_of(step: Any) -> list[str]:
    return [x for x in step.stdout.splitlines() if x.startswith("::error")]


@pytest.mark.parametrize("change, code, said", [
    # a configured writer that is not the token's account: exit 2 before any write
    (("[writer]\nlogin = \"github-actions\"\ndatabase_id = 41898282",
      "[writer]\nlogin = \"alice\"\ndatabase_id = ALICE"), 2,
     ("the token is github-actions", "not the configured writer alice")),
    # a category the repository does not have: GitHub's answer, exit 5 (a person must act)
    (('category = "release-journal"', 'category = "releases"'), 5,
     ("no discussion category 'releases'", "release-journal")),
], ids=["wrong-writer", "missing-category"])
def test_plan_fails_as_the_real_run_on_a_bad_setup(world: World, tmp_path: Path,
                                                   change: tuple[str, str], code: int,
                                                   said: tuple[str, ...]) -> None:
    alice = world.emulator.state.actor_by_login("alice")
    assert alice is not None
    config = world.workspace / ".github" / "ghattempt.toml"
    assert change[0] in CONFIG
    config.write_text(CONFIG.replace(change[0], change[1].replace("ALICE",
                                                                  str(int(alice["id"])))))
    before = _state(world)
    plan = run(world, tmp_path, "plan")
    real = run(world, tmp_path, "admit")
    assert plan.rc == real.rc == code, plan.stdout
    (error,) = errors_of(plan)
    assert all(part in error for part in said), error
    assert errors_of(real) == [error]
    assert _state(world) == before


def test_plan_fails_as_the_real_run_when_a_ruleset_covers_the_lease_refs(
        world: World, tmp_path: Path) -> None:
    world.emulator.add_ruleset("octo-org/widgets", **LEASES)
    before = _state(world)
    world.emulator.clear_request_log()
    plan = run(world, tmp_path, "plan")
    assert plan.rc == 5, plan.stdout
    (error,) = errors_of(plan)
    assert "ruleset 'leases'" in error and "restricts creating it" in error
    assert "refs/heads/ghattempt/lease/" in error and "bypass list" in error
    assert _state(world) == before and _mutations(world) == []
    ops = [e["operation"] for e in world.emulator.request_log()]
    assert "repos/get-branch-rules" in ops and "repos/get-repo-ruleset" in ops
    real = run(world, tmp_path, "admit")
    assert real.rc == 5, real.stdout  # refused by the ruleset at the lease ref
    assert "Cannot create ref due to creations being restricted." in "".join(errors_of(real))
    assert _state(world)["repositories"][0]["discussions"] == []


def test_a_ruleset_that_leaves_out_the_lease_branches_lets_the_plan_pass(
        world: World, tmp_path: Path) -> None:
    # GitHub refuses GitHub Actions as a bypass actor (docs/emulator.md): for the Actions
    # token the remedy is excluding the lease branches from the rule. (This test put
    # github-actions on the bypass list, which GitHub never allows; the emulator now
    # refuses such a ruleset.)
    with pytest.raises(ValueError, match="GitHub Actions"):
        world.emulator.add_ruleset("octo-org/widgets", **(LEASES | {"bypass": ["github-actions"]}))
    world.emulator.add_ruleset("octo-org/widgets", **(
        LEASES | {"include": ["~ALL"], "exclude": ["refs/heads/ghattempt/lease/**"]}))
    plan = run(world, tmp_path, "plan")
    assert plan.rc == 0, plan.stdout
    assert run(world, tmp_path, "admit").rc == 0


def test_plan_refuses_a_phase_outside_the_plan_before_any_request(tmp_path: Path) -> None:
    done = entry(offline_env(tmp_path, COMMAND="plan", PLAN_COMMAND="record", PHASE="deploy",
                             STATUS="started"), tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    (error,) = errors(done)
    assert "'deploy' is not in the plan of channel 'stable'" in error
    assert "input 'phase'" in error
    bad = entry(offline_env(tmp_path, COMMAND="plan", PLAN_COMMAND="status"), tmp_path)
    assert bad.returncode == 2
    assert "input 'plan-command' must be one of admit, record" in errors(bad)[0]
    stray = entry(offline_env(tmp_path, COMMAND="admit", PLAN_COMMAND="record"), tmp_path)
    assert stray.returncode == 2 and "for command 'plan' only" in errors(stray)[0]


def test_the_cli_plans_as_the_action_does(world: World) -> None:
    before = _state(world)
    done = world.cli("plan", "admit", "--pull-request", "1")
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert out.startswith("plan admit: a real run would be allowed")
    assert "  would write lease: create lease ref refs/heads/ghattempt/lease/" in out
    assert "  would write attempt: attempt sha256:" in out
    as_json = world.cli("plan", "admit", "--pull-request", "1", "--json")
    plan = json.loads(as_json.stdout)
    assert [w["kind"] for w in plan["writes"]] == ["lease", "discussion", "attempt"]
    assert plan["writes"][2]["record"]["writer"] == {"kind": "cli", "actor": "alice"}
    assert _state(world) == before
    world.emulator.add_ruleset("octo-org/widgets", **LEASES)
    refused = world.cli("plan", "admit", "--pull-request", "1")
    assert refused.returncode == 5
    assert b"ruleset 'leases'" in refused.stderr
    assert _state(world) == before


# the GITHUB_TOKEN's actor cannot bypass a ruleset (GitHub refuses GitHub Actions as a
# bypass actor): the hint for it is the exclude pattern
HINT = ("exclude refs/heads/ghattempt/lease/** from the ruleset's target branches (GitHub "
        "does not accept GitHub Actions, the GITHUB_TOKEN's actor, on a bypass list)")


def test_a_ruleset_refusing_admit_or_record_says_what_to_do(world: World) -> None:
    """The real run's refusal by a ruleset on the lease refs carries plan's hint."""
    world.emulator.add_ruleset("octo-org/widgets", **(LEASES | {"rules": ["creation"]}))
    admitted = world.cli("admit", "--pull-request", "1")
    err = admitted.stderr.decode()
    assert admitted.returncode == 5, err
    assert "Repository rule violations found" in err and HINT in err, err
    assert len(err.strip().splitlines()) == 1
    planned = world.cli("plan", "admit", "--pull-request", "1")
    assert planned.returncode == 5 and HINT in planned.stderr.decode()


def test_a_ruleset_refusing_record_says_what_to_do(world: World) -> None:
    assert world.cli("admit", "--pull-request", "1").returncode == 0
    world.emulator.add_ruleset("octo-org/widgets", **(LEASES | {"rules": ["update"]}))
    recorded = world.cli("record", "--pull-request", "1", "--phase", "admission",
                         "--status", "started")
    err = recorded.stderr.decode()
    assert recorded.returncode == 5, err
    assert "Repository rule violations found" in err and HINT in err, err
    assert len(err.strip().splitlines()) == 1
