"""``plan`` and the first write against every kind of rule that refuses a direct write to
the lease branches, over the HTTP emulator (issue 23, section 1, "Rulesets and branch
protection"): rulesets of every rule type, classic branch protection (which the rules API
does not list), signed commits by token kind, and the hint worded by token kind (GitHub
refuses GitHub Actions as a bypass actor).

Before: ``check_writable`` counted only ``creation`` and ``update`` rules, so ``plan``
passed (exit 0) where the real run was refused, and the hint always said "add the token's
actor to the bypass list", impossible for ``GITHUB_TOKEN``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import CONFIG, World

LEASE = "refs/heads/ghattempt/lease/**"
EXCLUDE_HINT = ("exclude refs/heads/ghattempt/lease/** from the ruleset's target branches "
                "(GitHub does not accept GitHub Actions")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    try:
        yield w
    finally:
        w.close()


def _mutations(world: World) -> list[str]:
    return [e["operation"] for e in world.emulator.request_log()
            if e.get("method") != "GET" and e.get("operation") not in (
                "RepositoryLookup", "WriterRead", "JournalPage", "LeaseRef",
                "CategoryDiscussions", "PullRequestLookup", "JournalPageLease",
                "RepliesPage", "RefLookup", "RepositoryById")]


def _as_alice(world: World) -> None:
    alice = world.emulator.state.actor_by_login("alice")
    assert alice is not None
    config = world.workspace / ".github" / "ghattempt.toml"
    config.write_text(CONFIG.replace('[writer]\nlogin = "github-actions"\ndatabase_id = 41898282',
                                     f'[writer]\nlogin = "alice"\ndatabase_id = '
                                     f'{alice["id"]}'))


def plan(world: World, token: str = "ghs_actions") -> Any:
    return world.cli("plan", "admit", "--pull-request", "1", token=token)


@pytest.mark.parametrize("rule, said", [
    ("pull_request", "requires a pull request"),
    ({"type": "required_status_checks",
      "parameters": {"required_status_checks": [{"context": "ci"}]}},
     "requires status checks to pass"),
    ({"type": "commit_message_pattern",
      "parameters": {"operator": "starts_with", "pattern": "JIRA-"}},
     "requires the commit message to start with 'JIRA-'"),
    ({"type": "commit_author_email_pattern",
      "parameters": {"operator": "ends_with", "pattern": "@example.com"}},
     "requires the commit author email to end with '@example.com'"),
    ({"type": "branch_name_pattern",
      "parameters": {"operator": "regex", "pattern": "^(main|release/.*)$"}},
     "requires branch names to match"),
], ids=["pull-request", "status-checks", "message-pattern", "author-email", "branch-name"])
def test_plan_refuses_every_rule_that_refuses_a_direct_write(
        world: World, rule: Any, said: str) -> None:
    world.emulator.add_ruleset("octo-org/widgets", name="guard", include=["~ALL"],
                               rules=[rule], bypass=[])
    world.emulator.clear_request_log()
    planned = plan(world)
    err = planned.stderr.decode()
    assert planned.returncode == 5, err  # a person must act
    assert "ruleset 'guard'" in err and said in err, err
    assert EXCLUDE_HINT in err and "add the token's actor" not in err
    assert _mutations(world) == []
    real = world.cli("admit", "--pull-request", "1")
    assert real.returncode == 5, real.stderr  # the real run is refused the same way
    assert "Repository rule violations found" in real.stderr.decode()


def test_rules_the_lease_meets_let_the_plan_pass(world: World) -> None:
    world.emulator.add_ruleset("octo-org/widgets", name="tidy", include=["~ALL"], rules=[
        "deletion", "non_fast_forward", "required_signatures",
        {"type": "committer_email_pattern",
         "parameters": {"operator": "ends_with", "pattern": "github.com"}}], bypass=[])
    planned = plan(world)
    assert planned.returncode == 0, planned.stderr
    # the lease's commits are signed by GitHub for the GITHUB_TOKEN: the real run passes
    assert world.cli("admit", "--pull-request", "1").returncode == 0


def test_signed_commits_and_a_personal_token_are_refused_before_any_write(
        world: World) -> None:
    _as_alice(world)
    world.emulator.add_ruleset("octo-org/widgets", name="signed", include=[LEASE],
                               rules=["required_signatures"], bypass=[])
    world.emulator.clear_request_log()
    planned = plan(world, token="ghp_alice")
    err = planned.stderr.decode()
    assert planned.returncode == 5, err
    assert "the lease branch's first commit, made through the REST API with a personal " \
           "token, is unsigned" in err
    assert "write with a GitHub App or the GITHUB_TOKEN" in err
    assert _mutations(world) == []
    real = world.cli("admit", "--pull-request", "1", token="ghp_alice")
    err = real.stderr.decode()
    assert real.returncode == 5 and "Commits must have verified signatures." in err, err
    assert "write with a GitHub App or the GITHUB_TOKEN" in err


def test_a_personal_token_is_told_of_the_bypass_list(world: World) -> None:
    _as_alice(world)
    world.emulator.add_ruleset("octo-org/widgets", name="leases", include=[LEASE],
                               rules=["creation", "update"], bypass=[])
    planned = plan(world, token="ghp_alice")
    err = planned.stderr.decode()
    assert planned.returncode == 5, err
    assert "add the token's user to the ruleset's bypass list, or exclude " \
           "refs/heads/ghattempt/lease/** from it" in err


def _lease_branch_exists(world: World) -> None:
    assert world.cli("admit", "--pull-request", "1").returncode == 0


def test_classic_branch_protection_on_the_lease_branches_fails_the_plan(
        world: World) -> None:
    _lease_branch_exists(world)
    world.emulator.add_branch_protection(
        "octo-org/widgets", "ghattempt/**",
        required_status_checks={"contexts": ["ci"], "strict": False})
    planned = world.cli("plan", "record", "--pull-request", "1", "--phase", "admission",
                        "--status", "started")
    err = planned.stderr.decode()
    assert planned.returncode == 5, err
    assert "branch protection requires status checks (ci)" in err
    assert "narrow the branch protection rule's pattern" in err
    real = world.cli("record", "--pull-request", "1", "--phase", "admission",
                     "--status", "started")
    err = real.stderr.decode()
    assert real.returncode == 5 and "protected branch" in err, err
    assert "narrow the branch protection rule's pattern" in err


def test_classic_protection_read_whole_by_an_admin_token(world: World) -> None:
    _as_alice(world)
    assert world.cli("admit", "--pull-request", "1", token="ghp_alice").returncode == 0
    world.emulator.add_branch_protection(
        "octo-org/widgets", "ghattempt/**", enforce_admins=True,
        required_pull_request_reviews={"required_approving_review_count": 1})
    planned = world.cli("plan", "record", "--pull-request", "1", "--phase", "admission",
                        "--status", "started", token="ghp_alice")
    err = planned.stderr.decode()
    assert planned.returncode == 5, err
    assert "branch protection requires a pull request" in err


def test_an_apps_first_lease_commit_passes_a_signed_commits_rule(world: World) -> None:
    """GitHub signs an App's REST commit made without custom author data: the lease
    branch's first commit is verified, and the plan and the real run both pass."""
    app = world.emulator.state.actor_by_login("ghattempt-app")
    assert app is not None
    config = world.workspace / ".github" / "ghattempt.toml"
    config.write_text(CONFIG.replace('[writer]\nlogin = "github-actions"\ndatabase_id = 41898282',
                                     f'[writer]\nlogin = "ghattempt-app"\ndatabase_id = '
                                     f'{app["id"]}'))
    world.emulator.add_ruleset("octo-org/widgets", name="signed", include=[LEASE],
                               rules=["required_signatures"], bypass=[])
    planned = plan(world, token="ghs_app")
    assert planned.returncode == 0, planned.stderr
    admitted = world.cli("admit", "--pull-request", "1", token="ghs_app")
    assert admitted.returncode == 0, admitted.stderr
