"""``ghattempt probe`` over HTTP on 127.0.0.1 against the emulator: as it is, every
relied-on behaviour holds and the probe removes what it created; set to misbehave (a
lock, a rule, another identity, a missing permission, and the fidelity switches a probe
checks: docs/emulator.md, "Misbehaving"), the probe exits with the GitHub-refused status
and names the behaviour that failed, in its table and in its JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ghattempt.cli._errors import EXIT_BY_FAULT
from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer
from ghattempt.errors import Fault

from .conftest import cli_env, run_cli

pytestmark = pytest.mark.network
REPO = "octo-org/widgets"
REFUSED = EXIT_BY_FAULT[Fault.GITHUB_REFUSED]


@pytest.fixture
def served() -> Iterator[tuple[Emulator, str]]:
    emu = Emulator(fixture=DEFAULT_FIXTURE)
    with EmulatorServer(emu) as server:
        yield emu, server.url


def probe(url: str, tmp_path: Path, *extra: str, token: str = "ghs_actions",
          category: str | None = "release-journal") -> tuple[int, str, dict[str, Any]]:
    out = tmp_path / "probe.json"
    args = ["probe", "--repository", REPO, "--api-url", f"{url}/", "--json", str(out),
            *extra]  # run in tmp_path: its configuration is at most the pacing below
    if category:
        args += ["--category", category]
        # the emulator answers at once: no pause between writes (the probe paces its
        # writes by [pacing] as the writers do; GitHub's 1 s otherwise). Without a
        # category there is no file: its journal.category would give one
        config = tmp_path / ".github" / "ghattempt.toml"
        config.parent.mkdir(exist_ok=True)
        config.write_text("[pacing]\nwrite_interval = 0\n")
    done = run_cli(*args, env=cli_env(GITHUB_TOKEN=token), cwd=tmp_path)
    text = done.stdout.decode() + done.stderr.decode()
    report = json.loads(out.read_text()) if out.exists() else {}
    return done.returncode, text, report


def verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {o["behaviour"]: o["verdict"] for o in report["observations"]}


def leftovers(emu: Emulator) -> tuple[int, list[str]]:
    discussions = emu.state.one("SELECT COUNT(*) AS n FROM discussions")["n"]
    refs = [r["name"] for r in emu.state.all("SELECT name FROM refs")
            if "ghattempt/lease/" in r["name"]]
    return discussions, refs


def test_against_the_emulator_as_it_is_every_relied_on_behaviour_holds(
        served: tuple[Emulator, str], tmp_path: Path) -> None:
    emu, url = served
    before = leftovers(emu)
    code, text, report = probe(url, tmp_path)
    assert code == 0, text
    assert report["ok"] is True and report["failed"] == []
    seen = verdicts(report)
    for behaviour in ("token identity", "Discussions enabled", "journal category present",
                      "journals not locked", "node-id format", "comment and replies written",
                      "replies oldest first", "edit flags", "rules on the lease prefix",
                      "lease ref created", "lease ref moved", "stale head refused",
                      "lease ref deleted",
                      "Actions API readable", "rate-limit headers", "remaining budgets"):
        assert seen[behaviour] == "holds", (behaviour, text)
    # no ruleset protects the lease prefix from deletion in the default fixture: advice
    assert seen["lease refs protected from deletion"] == "advice"
    for o in report["observations"]:
        assert o["expected"] and o["source"] and o["observed"]
    assert "every relied-on behaviour holds" in text
    assert "ghs_actions" not in text and "ghs_actions" not in json.dumps(report)
    # what it created is gone: the discussion (with its comments) and the ref
    assert leftovers(emu) == before
    assert report["left"] == [] and len(report["removed"]) == len(report["created"]) == 2


def test_a_locked_journal_in_the_category_is_named(served: tuple[Emulator, str],
                                                    tmp_path: Path) -> None:
    emu, url = served
    journal = _open_discussion(emu)  # a journal of the category, which a lock bot locks
    emu.lock_discussion(journal["id"])
    code, text, report = probe(url, tmp_path)
    assert code == REFUSED, text
    assert report["failed"] == ["journals not locked"]
    row = next(o for o in report["observations"] if o["behaviour"] == "journals not locked")
    assert f"#{journal['number']}" in row["observed"] and "lock bot" in row["observed"]
    assert "journals not locked" in text.splitlines()[-1]


def test_a_throwaway_discussion_keeps_nothing_of_the_probe(served: tuple[Emulator, str],
                                                           tmp_path: Path) -> None:
    emu, url = served
    discussion = _open_discussion(emu)
    code, text, report = probe(url, tmp_path, "--discussion", str(discussion["number"]),
                               category=None)
    assert code == 0, text
    assert verdicts(report)["journals not locked"] == "not checked"  # no category named
    # its comment and two replies are deleted; the discussion stays, empty
    assert len(report["created"]) == 4 and sorted(report["removed"]) == sorted(
        report["created"])
    assert emu.state.one("SELECT COUNT(*) AS n FROM comments")["n"] == 0
    assert leftovers(emu)[0] == 1


def test_a_locked_throwaway_discussion_refuses_the_comment(served: tuple[Emulator, str],
                                                          tmp_path: Path) -> None:
    emu, url = served
    journal = _open_discussion(emu)
    emu.lock_discussion(journal["id"])
    code, text, report = probe(url, tmp_path, "--discussion", str(journal["number"]),
                               category=None)
    assert code == REFUSED, text
    seen = verdicts(report)
    assert seen["comment and replies written"] == "FAILS"
    row = next(o for o in report["observations"]
               if o["behaviour"] == "comment and replies written")
    assert "locked" in row["observed"]
    assert seen["edit flags"] == seen["replies oldest first"] == "not checked"


def test_a_ruleset_on_the_lease_prefix_is_named(served: tuple[Emulator, str],
                                                tmp_path: Path) -> None:
    emu, url = served
    emu.add_ruleset(REPO, "leases", ["refs/heads/ghattempt/lease/**"], ["creation"])
    code, text, report = probe(url, tmp_path)
    assert code == REFUSED, text
    assert report["failed"] == ["rules on the lease prefix", "lease ref created"]
    row = next(o for o in report["observations"]
               if o["behaviour"] == "rules on the lease prefix")
    assert "creation" in row["observed"] and "exclude" in row["observed"]
    assert verdicts(report)["stale head refused"] == "not checked"
    assert leftovers(emu)[1] == []


def test_classic_branch_protection_on_the_lease_prefix_is_named(
        served: tuple[Emulator, str], tmp_path: Path) -> None:
    """Classic protection does not show in the rulesets API: the live write names it."""
    emu, url = served
    emu.add_branch_protection(REPO, "ghattempt/**", required_pull_request_reviews={
        "required_approving_review_count": 1})
    code, text, report = probe(url, tmp_path)
    assert code == REFUSED, text
    assert report["failed"] == ["lease ref moved"]
    row = next(o for o in report["observations"] if o["behaviour"] == "lease ref moved")
    assert "classic branch protection" in row["observed"]
    assert verdicts(report)["stale head refused"] == "not checked"
    (left,) = report["left"]  # it refuses the deletion too: named, for an admin
    assert "ghattempt/lease/probe-" in left


def test_a_deletion_rule_is_reported_and_its_ref_left_named(served: tuple[Emulator, str],
                                                            tmp_path: Path) -> None:
    emu, url = served
    emu.add_ruleset(REPO, "keep leases", ["refs/heads/ghattempt/lease/**"], ["deletion"])
    code, text, report = probe(url, tmp_path)
    assert code == 0, text  # deletion protection refuses none of the lease's own writes
    seen = verdicts(report)
    assert seen["lease refs protected from deletion"] == "holds"
    # the probe's own ref is kept by that rule, as the expected column says
    row = next(o for o in report["observations"] if o["behaviour"] == "lease ref deleted")
    assert row["verdict"] == "holds" and "Cannot delete this protected ref" in row["observed"]
    (left,) = report["left"]
    assert "ghattempt/lease/probe-" in left and "admin" in left
    assert "left behind:" in text


def test_a_token_of_another_identity_is_named(served: tuple[Emulator, str],
                                              tmp_path: Path) -> None:
    emu, url = served
    emu.add_token("ghs_other", "some-other-bot", "write", kind="Bot")
    code, text, report = probe(url, tmp_path, token="ghs_other")
    assert code == REFUSED, text
    assert report["failed"] == ["token identity"]
    row = report["observations"][0]
    assert "some-other-bot" in row["observed"] and "github-actions" in row["observed"]


def test_a_missing_actions_permission_is_named(served: tuple[Emulator, str],
                                               tmp_path: Path) -> None:
    emu, url = served
    emu.add_token("ghs_noactions", "github-actions", "write", kind="Bot", actions="none")
    code, text, report = probe(url, tmp_path, token="ghs_noactions")
    assert code == REFUSED, text
    assert report["failed"] == ["Actions API readable"]
    row = next(o for o in report["observations"] if o["behaviour"] == "Actions API readable")
    assert "actions: read" in row["observed"]


def test_the_actions_row_names_the_run_it_reads(served: tuple[Emulator, str],
                                               tmp_path: Path) -> None:
    # the expected column named no run ("..., for run" and nothing after it)
    _, url = served
    for extra, run_id in (((), 1), (("--run-id", "4242"), 4242)):
        code, text, report = probe(url, tmp_path, *extra)
        assert code == 0, text
        row = next(o for o in report["observations"]
                   if o["behaviour"] == "Actions API readable")
        assert row["expected"].endswith(f"for run {run_id}"), row
        assert row["observed"] == f"run {run_id} not found (404): readable", row


def test_a_missing_discussions_permission_is_named(served: tuple[Emulator, str],
                                                   tmp_path: Path) -> None:
    emu, url = served
    emu.add_token("ghs_readonly", "github-actions", "write", kind="Bot", discussions="read")
    code, text, report = probe(url, tmp_path, token="ghs_readonly")
    assert code == REFUSED, text
    assert report["failed"] == ["comment and replies written"]
    row = next(o for o in report["observations"]
               if o["behaviour"] == "comment and replies written")
    assert "Resource not accessible" in row["observed"]
    assert "discussions: write" in row["observed"]


def test_a_missing_contents_permission_is_named(served: tuple[Emulator, str],
                                                tmp_path: Path) -> None:
    emu, url = served
    emu.add_token("ghs_nocontents", "github-actions", "write", kind="Bot", contents="read")
    code, text, report = probe(url, tmp_path, token="ghs_nocontents")
    assert code == REFUSED, text
    assert report["failed"] == ["lease ref created"]
    row = next(o for o in report["observations"] if o["behaviour"] == "lease ref created")
    assert "contents: write" in row["observed"]


@pytest.mark.parametrize(("switch", "behaviour"), [
    ("stale_data", "stale head refused"),
    ("edit_flags", "edit flags"),
    ("replies_oldest_first", "replies oldest first"),
    ("rate_limit_headers", "rate-limit headers"),
])
def test_each_misbehaving_switch_is_named(served: tuple[Emulator, str], tmp_path: Path,
                                          switch: str, behaviour: str) -> None:
    emu, url = served
    emu.set_fidelity({switch: False})
    code, text, report = probe(url, tmp_path)
    assert code == REFUSED, text
    assert report["failed"] == [behaviour]


def test_discussions_turned_off_are_named(served: tuple[Emulator, str],
                                          tmp_path: Path) -> None:
    emu, url = served
    emu.set_discussions_enabled(REPO, False)
    code, text, report = probe(url, tmp_path)
    assert code == REFUSED, text
    assert report["failed"][:1] == ["Discussions enabled"]
    assert "comment and replies written" in report["failed"]


def test_no_category_is_bad_input_before_any_request(tmp_path: Path) -> None:
    # port 9 (discard) on loopback: any request would fail as GitHub unavailable
    done = run_cli("probe", "--repository", REPO, "--api-url", "http://127.0.0.1:9/",
                   env=cli_env(GITHUB_TOKEN="ghs_actions"), cwd=tmp_path)
    assert done.returncode == EXIT_BY_FAULT[Fault.BAD_INPUT]
    assert b"--category" in done.stderr
    done = run_cli("probe", "--repository", REPO, "--api-url", "http://127.0.0.1:9/",
                   "--category", "x", "--writer", "github-actions[bot]",
                   env=cli_env(GITHUB_TOKEN="ghs_actions"), cwd=tmp_path)
    assert done.returncode == EXIT_BY_FAULT[Fault.BAD_INPUT]
    assert b"[bot]" in done.stderr and b"github-actions" in done.stderr


def _open_discussion(emu: Emulator) -> dict[str, Any]:
    """A journal discussion in the category, opened as the Actions bot would."""
    import httpx

    with EmulatorServer(emu) as server, httpx.Client(base_url=server.url) as http:
        auth = {"Authorization": "bearer ghs_actions"}
        repo = http.post("/graphql", headers=auth, json={"query": """query {
          repository(owner: "octo-org", name: "widgets") { id
            discussionCategory(slug: "release-journal") { id } } }"""}).json()["data"][
            "repository"]
        made = http.post("/graphql", headers=auth, json={
            "query": """mutation($r: ID!, $c: ID!) { createDiscussion(input: {
              repositoryId: $r, categoryId: $c, title: "journal", body: "b"}) {
              discussion { id number } } }""",
            "variables": {"r": repo["id"], "c": repo["discussionCategory"]["id"]}}).json()
    discussion: dict[str, Any] = made["data"]["createDiscussion"]["discussion"]
    return discussion


# ------------------------------------------------------------ the Action's face
def action(url: str, tmp_path: Path, token: str = "ghs_actions",
           **inputs: str) -> tuple[int, str, dict[str, str], str]:
    import subprocess
    import sys

    out, summary, temp = tmp_path / "out", tmp_path / "summary.md", tmp_path / "temp"
    out.write_text("")
    temp.mkdir(exist_ok=True)
    if inputs.get("category"):  # no pause between writes, as probe() does
        config = tmp_path / ".github" / "ghattempt.toml"
        config.parent.mkdir(exist_ok=True)
        config.write_text("[pacing]\nwrite_interval = 0\n")
    env = cli_env(GITHUB_ACTIONS="true", GITHUB_RUN_ID="41", GITHUB_REPOSITORY=REPO,
                  GITHUB_API_URL=f"{url}/", GITHUB_WORKSPACE=str(tmp_path),
                  GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary),
                  RUNNER_TEMP=str(temp), GHATTEMPT_COMMAND="probe", GHATTEMPT_TOKEN=token)
    env.update({f"GHATTEMPT_{k.upper()}": v for k, v in inputs.items()})
    done = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env, text=True,
                          capture_output=True, timeout=120, cwd=tmp_path)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    return (done.returncode, done.stdout + done.stderr, outputs,
            summary.read_text() if summary.exists() else "")


def test_the_action_probes_as_the_command_line_does(served: tuple[Emulator, str],
                                                    tmp_path: Path) -> None:
    emu, url = served
    code, text, outputs, summary = action(url, tmp_path, category="release-journal")
    assert code == 0, text
    report = json.loads(Path(outputs["probe-report"]).read_text())
    assert report["ok"] is True
    assert "| behaviour | expected (source) | observed | verdict |" in summary
    assert "| stale head refused |" in summary
    assert "every relied-on behaviour holds" in text and "::error" not in text
    assert "ghs_actions" not in text.replace("::add-mask::ghs_actions", "")


def test_the_action_names_a_missing_permission_in_an_error_annotation(
        served: tuple[Emulator, str], tmp_path: Path) -> None:
    emu, url = served
    emu.add_token("ghs_noactions", "github-actions", "write", kind="Bot", actions="none")
    code, text, outputs, summary = action(url, tmp_path, token="ghs_noactions",
                                          category="release-journal")
    assert code == REFUSED, text
    errors = [line for line in text.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "Actions API readable" in errors[0], text
    assert "actions: read" in errors[0]
    assert "**FAILS**" in summary
    assert json.loads(Path(outputs["probe-report"]).read_text())["failed"] == [
        "Actions API readable"]


def test_the_action_refuses_a_probe_without_a_category_in_its_own_words(
        served: tuple[Emulator, str], tmp_path: Path) -> None:
    _, url = served
    code, text, _, _ = action(url, tmp_path)
    assert code == EXIT_BY_FAULT[Fault.BAD_INPUT]
    (error,) = [line for line in text.splitlines() if line.startswith("::error")]
    assert "input 'category'" in error and "--" not in error


def test_the_table_and_the_json_never_hold_a_token(monkeypatch: pytest.MonkeyPatch) -> None:
    from ghattempt.commands import Observation, ProbeReport
    from ghattempt.render import probe_json, probe_markdown, probe_table

    secret = "s3cr3t-value-of-the-token-123456"
    shaped = "ghp_" + "A" * 36
    monkeypatch.setenv("PROBE_TOKEN", secret)
    report = ProbeReport(REPO, "https://api.github.com/", (
        Observation("token identity", "the writer", "a source",
                    f"refused: Bad credentials {secret} {shaped}", "FAILS"),
        Observation("edit flags", "an edit sets both", "another source", "as expected",
                    "holds")))
    table = probe_table(report, 100, "PROBE_TOKEN")
    for text in (table, probe_markdown(report, "PROBE_TOKEN"),
                 probe_json(report, "PROBE_TOKEN")):
        assert secret not in text and shaped not in text
        assert "token identity" in text and "Bad credentials" in text
    lines = table.splitlines()
    assert lines[0].split() == ["behaviour", "expected", "(source)", "observed", "verdict"]
    assert all(len(line) <= 100 for line in lines[:-1])  # wrapped to the width asked
    assert lines[-1].endswith("a person must act (each row says what to change)")
    assert json.loads(probe_json(report))["failed"] == ["token identity"]
