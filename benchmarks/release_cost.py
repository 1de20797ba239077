"""What one whole release costs on GitHub, measured on the HTTP emulator.

    .venv/bin/python benchmarks/release_cost.py [--discussions 1,100,1000] [--after 100]
        [--lag-ms 0] [--workflow FILE]
    .venv/bin/python benchmarks/release_cost.py --per-phase [--lag-ms 0]

Drives one release of ``.github/workflows/example-release.yml`` (8 phases, one
``command: run`` step each, each recording started and succeeded, then the final
status; ``--workflow`` plays another, e.g. ``examples/workflows/release-step-by-step.yml``)
through the Action entry (``python -m ghattempt.action``, one process per step of the
Action, ``uses: ./`` or ``OWNER/ghattempt@...``, with the environment an Actions runner
sets and the job's ``env:``; the work of a ``run`` step is a real process) against the
emulator over HTTP with GitHub's limits on: the fidelity defaults, which enforce the
secondary limits with GitHub's figures (2,000 GraphQL and 900 REST points a minute; 80
content-creating requests a minute and 500 an hour per actor), and ``actions_budget``
(the repository's ``GITHUB_TOKEN`` has 1,000 points an hour); ``--lag-ms`` adds replica
lag. It runs once for each number of discussions already in the journal category. Those
discussions are posted by another actor with the secondary limits off (GitHub would
pace that seeding over hours; the release's own requests all run with them on); they
are made before the released pull request is opened (more than the category scan's
margin, ``SCAN_MARGIN``, before it: the emulator's clock is moved on, then the pull
request opened by its admin operation); one more row (``--after``, 0 for none) opens
that many discussions after the pull request instead, which the first admission's
category scan still reads. The emulator's own request log is the meter: every request
the release's steps made, the GraphQL points it charged by GitHub's documented cost
rules, the mutations (GraphQL mutations and REST writes), the content-creating requests
(the emulator's: ``createDiscussion``, ``addDiscussionComment``,
``createCommitOnBranch``, ``createRef``, REST git commits and refs, releases and their
assets) and the answers that were a secondary limit. Per recorded event divides by the
records the release wrote (the attempt root and its 16 events). The busiest minute is
the most any 60 s of the release sent, against the per-minute limits.

``--per-phase`` plays both the ``run``-based example and the step-by-step one
(``examples/workflows/release-step-by-step.yml``: ``admit``, ``record`` started and
succeeded with ``then-start``, the work between) on a category holding only the journal,
and prints side by side, per phase, the requests, mutations and content-creating
requests of the steps that did that phase (a step-by-step ``record`` that also starts
the next phase counts for the phase it ends; ``admit`` for its ``start`` phase), then
the final ``status`` step and the whole release.

``releases an hour per repository`` is what GitHub's hourly limits allow one
repository's ``GITHUB_TOKEN``, the least of: 1,000 GraphQL points and 1,000 REST
requests an hour per repository (GitHub docs, "Rate limits for the REST API" / "...
GraphQL API": ``GITHUB_TOKEN``) and 500 content-creating requests an hour per actor
(the same pages, secondary rate limits), each divided by one release's use, rounded
down; the limit that binds is printed beside it. Goals: no growth with the number of
discussions; at most 4 requests, 3 mutations and 2.2 content-creating requests per
recorded event; no secondary limit met; at least 12 releases an hour per repository. Not a timed
test: wall times are printed for orientation only.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorServer
from ghattempt.emulator.limits import CONTENT_CREATING, GITHUB_LIMITS, REST_CONTENT_CREATING
from ghattempt.github import GitHubProvider, ProviderConfig, TokenAuth
from ghattempt.store import SCAN_MARGIN

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "example-release.yml"
STEP_BY_STEP = ROOT / "examples" / "workflows" / "release-step-by-step.yml"
OWNER, NAME = "octo-org", "widgets"
REPOSITORY = f"{OWNER}/{NAME}"
HEAD = "release"  # the released pull request's branch, opened after the seeding
TOKEN = "ghs_actions"  # noqa: S105 -- the emulator fixture's Actions bot, for 127.0.0.1 only
SEEDER = "ghp_alice"  # noqa: S105 -- the fixture's admin, who posts the other discussions
BUDGET_GRAPHQL = 1000
BUDGET_REST = 1000
CONTENT_HOUR = GITHUB_LIMITS["content_per_hour"]
CONTENT_MINUTE = GITHUB_LIMITS["content_per_minute"]
POINTS_MINUTE = GITHUB_LIMITS["points_per_minute"]
REST_POINTS_MINUTE = GITHUB_LIMITS["rest_points_per_minute"]
GOAL_REQUESTS, GOAL_MUTATIONS, GOAL_CONTENT, GOAL_RELEASES = 4, 3, 2.2, 12
CONFIG = """\
[journal]
category = "release-journal"

[writer]
login = "github-actions"

[channels.release]
plan = ["admission", "build", "review", "warrant", "merge", "publication",
        "distribution", "next-development"]

[pacing]
write_interval = 0.0
"""
_MISSING = re.compile(
    r"^(!?)contains\(fromJSON\(steps\.admit\.outputs\.missing-phases-json\), '([a-z-]+)'\)$")
_CHOICE = re.compile(r"^(.+) && '([a-z-]+)' \|\| ''$")


def fixture() -> dict[str, Any]:
    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["repositories"][0]["branches"].append(
        {"name": HEAD, "message": "Release the widgets", "from": "main"})
    for token in data["tokens"]:
        if token["token"] == TOKEN:
            token["repository"] = REPOSITORY  # the repository's GITHUB_TOKEN
    # GitHub's limits, all on: the secondary limits (the fidelity default; GitHub's
    # figures, no [limits] table) and the GITHUB_TOKEN's 1,000 an hour per repository
    data["fidelity"] = {"actions_budget": True}
    return data


def seed(url: str, count: int, label: str = "Release notes draft") -> None:
    """``count`` other discussions in the journal category (not journals)."""
    gh = GitHubProvider(ProviderConfig(auth=TokenAuth(SEEDER), base_url=url + "/",
                                       mutation_interval=0, timeout=30))
    try:
        repo = gh.repository(OWNER, NAME)
        category = gh.discussion_category(OWNER, NAME, "release-journal")
        for n in range(count):
            gh.create_discussion(repo.id, category.id, f"{label} {n}",
                                 f"Notes for release {n}, not a journal.")
    finally:
        gh.close()


def _ours(step: dict[str, Any]) -> bool:
    uses = str(step.get("uses", ""))
    return uses == "./" or uses.startswith("OWNER/ghattempt@")


def steps(workflow: Path = STEP_BY_STEP) -> list[dict[str, Any]]:
    """The ghattempt Action's steps of a release workflow, in order (default: the
    step-by-step example, whose conditions ``runs`` reads)."""
    doc = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    (job,) = doc["jobs"].values()
    return [s for s in job["steps"] if _ours(s)]


def job_env(workflow: Path) -> dict[str, str]:
    """The workflow's and its job's ``env:`` (``inputs.pull-request`` and the like are
    given values by ``inputs_of`` where they are used)."""
    doc = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    (job,) = doc["jobs"].values()
    return {str(k): str(v) for k, v in {**(doc.get("env") or {}),
                                        **(job.get("env") or {})}.items()}


def phase_of(step: dict[str, Any]) -> str:
    """The phase a step does: its ``phase`` (``admit``: its ``start``), else the command."""
    given = step.get("with") or {}
    return str(given.get("phase") or given.get("start") or given.get("command"))


def holds(cond: str, outputs: dict[str, dict[str, str]]) -> bool:
    """Whether ``cond``, ``contains(fromJSON(...missing-phases-json), 'P')`` terms (each
    maybe negated) joined by ``&&``, holds after the admit step."""
    missing = json.loads(outputs.get("admit", {}).get("missing-phases-json", "[]"))
    for term in cond.split(" && "):
        m = _MISSING.match(term.strip())
        if m is None:
            raise SystemExit(f"release_cost.py does not understand the condition {cond!r}")
        if (m.group(2) in missing) == bool(m.group(1)):
            return False
    return True


def runs(step: dict[str, Any], outputs: dict[str, dict[str, str]]) -> bool:
    """Whether a step's ``if:`` holds in a release where every step succeeds."""
    cond = str(step.get("if", "")).strip()
    if not cond or cond == "always()":
        return True
    if cond.startswith("failure()"):
        return False
    return holds(cond, outputs)


def inputs_of(step: dict[str, Any], pull_request: int,
              outputs: dict[str, dict[str, str]]) -> dict[str, str]:
    values = {"inputs.pull-request": str(pull_request), "inputs.channel": "release"}
    values.update({f"steps.{step_id}.outputs.{name}": value  # attempt: the admit step's
                   for step_id, given in outputs.items() for name, value in given.items()})
    out = {}
    for name, value in (step.get("with") or {}).items():
        text = str(value)
        whole = re.fullmatch(r"\$\{\{ (.+) \}\}", text.strip())
        choice = _CHOICE.match(whole.group(1)) if whole else None
        if choice is not None:  # ${{ COND && 'phase' || '' }}
            out[name] = choice.group(2) if holds(choice.group(1), outputs) else ""
            continue
        for expr, sub in values.items():
            text = text.replace("${{ " + expr + " }}", sub)
        if "${{" in text:
            text = re.sub(r"\$\{\{[^}]*\}\}", "x", text)  # github.workflow etc. in reasons
        out[name] = text
    return out


def release(url: str, work: Path, emu: Emulator, pull_request: int,
            workflow: Path = WORKFLOW) -> tuple[list[tuple[str, str, int, int]], float]:
    """Run every step of one release; returns, per step that ran, its command, its phase
    (``phase_of``) and the span of the emulator's request log it made, and the seconds
    all took."""
    ws = work / "workspace"
    (ws / ".github").mkdir(parents=True, exist_ok=True)
    (ws / ".github" / "ghattempt.toml").write_text(CONFIG, encoding="utf-8")
    event = work / "event.json"
    event.write_text(json.dumps({"inputs": {"pull-request": str(pull_request),
                                            "channel": "release"}}))
    outputs: dict[str, dict[str, str]] = {}
    runner_temp = work / "runner-temp"  # one job: its steps share RUNNER_TEMP
    runner_temp.mkdir(exist_ok=True)
    ran: list[tuple[str, str, int, int]] = []
    started = time.monotonic()
    env_base = {k: v for k, v in os.environ.items()
                if not k.startswith(("GITHUB_", "GHATTEMPT_", "INPUT_", "RUNNER_"))}
    values = {"${{ inputs.pull-request }}": str(pull_request)}
    shared = {k: values.get(v.strip(), v) for k, v in job_env(workflow).items()}
    for n, step in enumerate(steps(workflow), 1):
        if not runs(step, outputs):
            continue
        out = work / f"step{n}.output"
        out.write_text("")
        env = dict(env_base)
        env.update(shared)
        env.update({
            "GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "5000", "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": "release", "GITHUB_WORKFLOW": "Release (example)",
            "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_API_URL": url + "/api/v3",
            "GITHUB_SERVER_URL": url, "GITHUB_WORKSPACE": str(ws),
            "GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_EVENT_PATH": str(event),
            "GITHUB_OUTPUT": str(out), "GITHUB_STEP_SUMMARY": str(work / "summary.md"),
            "GHATTEMPT_TOKEN": TOKEN, "RUNNER_TEMP": str(runner_temp),
        })
        for name, value in inputs_of(step, pull_request, outputs).items():
            env["GHATTEMPT_" + name.upper().replace("-", "_")] = value
        first = len(emu.request_log())
        proc = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env,
                              capture_output=True, text=True, timeout=300, cwd=work)
        if proc.returncode != 0:
            raise SystemExit(f"step {step.get('name')!r} exited {proc.returncode}:\n"
                             f"{proc.stdout}{proc.stderr}")
        values: dict[str, str] = {}
        for line in out.read_text().splitlines():
            key, _, value = line.partition("=")
            values[key] = value
        if step.get("id"):
            outputs[str(step["id"])] = values
        ran.append((str((step.get("with") or {}).get("command")), phase_of(step), first,
                    len(emu.request_log())))
    final = outputs.get("status", {})
    if final.get("status") != "succeeded":
        raise SystemExit(f"the release did not succeed: {final}")
    return ran, time.monotonic() - started


def meter(log: list[dict[str, Any]]) -> dict[str, int]:
    writer = [e for e in log if e.get("actor") == "github-actions"]
    graphql = [e for e in writer if e["kind"] in ("query", "mutation")]
    rest = [e for e in writer if e["kind"] == "rest"]
    mutations = [e for e in graphql if e["kind"] == "mutation"]
    rest_writes = [e for e in rest if e["method"] != "GET"]
    content = [e for e in graphql if CONTENT_CREATING & set(e.get("root_fields") or ())]
    content += [e for e in rest if e.get("operation") in REST_CONTENT_CREATING]
    return {"requests": len(writer), "graphql": len(graphql), "rest": len(rest),
            "points": sum(int(e.get("cost") or 0) for e in graphql),
            "mutations": len(mutations) + len(rest_writes), "content": len(content),
            "limited": sum(1 for e in writer if e.get("secondary_limited"))}


def busiest_minute(log: list[dict[str, Any]]) -> dict[str, int]:
    """The most content-creating requests and secondary points (GraphQL: a query 1, a
    mutation 5; REST: a read 1, a write 5) the writer sent in any 60 s of the log."""
    writer = [e for e in log if e.get("actor") == "github-actions"]
    at = [datetime.fromisoformat(e["at"].replace("Z", "+00:00")).timestamp() for e in writer]
    best = {"content": 0, "points": 0, "rest_points": 0}
    for start in at:
        window = [e for e, t in zip(writer, at, strict=True) if start <= t < start + 60]
        counts = meter(window)
        graphql = [e for e in window if e["kind"] in ("query", "mutation")]
        rest = [e for e in window if e["kind"] == "rest"]
        best["content"] = max(best["content"], counts["content"])
        best["points"] = max(best["points"], sum(5 if e["kind"] == "mutation" else 1
                                                 for e in graphql))
        best["rest_points"] = max(best["rest_points"], sum(1 if e["method"] == "GET" else 5
                                                           for e in rest))
    return best


def per_hour(counts: dict[str, int]) -> tuple[int, str]:
    """Releases an hour per repository, and the limit that binds: the least of what each
    of GitHub's hourly limits allows the repository's ``GITHUB_TOKEN``."""
    allowed = {
        f"GraphQL points ({BUDGET_GRAPHQL:,} an hour per repository)":
            BUDGET_GRAPHQL // max(1, counts["points"]),
        f"REST requests ({BUDGET_REST:,} an hour per repository)":
            BUDGET_REST // max(1, counts["rest"]),
        f"content-creating requests ({CONTENT_HOUR} an hour per actor)":
            CONTENT_HOUR // max(1, counts["content"]),
    }
    binding = min(allowed, key=lambda name: allowed[name])
    return allowed[binding], binding


def measure(discussions: int, lag_ms: int, after: int = 0,
            workflow: Path = WORKFLOW) -> dict[str, Any]:
    """One release with ``discussions`` in the category: the journal and, made before
    the pull request was opened, all but ``after`` of the others; ``after`` made after
    it."""
    emu = Emulator(fixture=fixture(), fidelity={"replica_lag_ms": lag_ms})
    server = EmulatorServer(emu).start()
    try:
        # the seeding posts up to a thousand discussions as another actor, which GitHub's
        # secondary limits would pace over hours: they are off while it runs only
        emu.set_fidelity({"secondary_limits": False})
        seed(server.url, max(0, discussions - 1 - after))
        emu.clock.advance(SCAN_MARGIN + 1)
        pull_request = emu.open_pull_request(REPOSITORY, HEAD, "main", "Release the widgets",
                                             "alice")
        seed(server.url, after, "Notes after the pull request")
        emu.set_fidelity({"secondary_limits": True})
        emu.clear_request_log()
        with tempfile.TemporaryDirectory(prefix="ghattempt-release-") as tmp:
            ran, seconds = release(server.url, Path(tmp), emu, pull_request, workflow)
        log = emu.request_log()
        snapshot = emu.snapshot()
    finally:
        server.stop()
    repo = next(r for r in snapshot["repositories"] if r["nameWithOwner"] == REPOSITORY)
    records = sum(1 for d in repo["discussions"] for c in d["comments"]
                  if "<!-- ghattempt:v1 -->" in c["body"])
    counts = meter(log)
    releases, binding = per_hour(counts)
    points_only = min(BUDGET_GRAPHQL // max(1, counts["points"]),
                      BUDGET_REST // max(1, counts["rest"]))
    by_command: dict[str, list[dict[str, int]]] = {}
    by_phase: dict[str, dict[str, int]] = {}
    for command, phase, first, last in ran:
        metered = meter(log[first:last])
        by_command.setdefault(command, []).append(metered)
        into = by_phase.setdefault(phase, dict.fromkeys(metered, 0))
        for k, v in metered.items():
            into[k] += v
    return {"discussions": discussions, "after": after, "steps": len(ran),
            "by_command": by_command, "by_phase": by_phase,
            "records": records, "seconds": seconds, "releases": releases,
            "binding": binding, "points_only": points_only,
            "busiest": busiest_minute(log), **counts}


def per_phase(lag_ms: int) -> int:
    """``--per-phase``: the run-based example beside the step-by-step one, per phase."""
    workflows = [WORKFLOW, STEP_BY_STEP]
    rows = [measure(1, lag_ms, 0, w) for w in workflows]
    print(f"one release per workflow through the Action entry, HTTP emulator, replica lag "
          f"{lag_ms} ms, the journal alone in its category ({sys.executable} "
          f"{sys.version.split()[0]})")
    print("requests / mutations / content-creating requests, per phase:\n")
    names = [str(w.relative_to(ROOT)) for w in workflows]
    width = max(len(n) for n in names) + 2
    print(f"{'phase':<18}" + "".join(f"{n:>{width}}" for n in names))
    phases = [p for p in rows[0]["by_phase"] if p != "status"] + ["status"]

    def cell(counts: dict[str, int] | None) -> str:
        if counts is None:
            return "-"
        return f"{counts['requests']} / {counts['mutations']} / {counts['content']}"

    for phase in phases:
        print(f"{phase:<18}" + "".join(f"{cell(r['by_phase'].get(phase)):>{width}}"
                                      for r in rows))
    print(f"{'whole release':<18}" + "".join(f"{cell(r):>{width}}" for r in rows))
    print(f"{'Action steps':<18}" + "".join(f"{r['steps']:>{width}}" for r in rows))
    print(f"{'records written':<18}" + "".join(f"{r['records']:>{width}}" for r in rows))
    print(f"{'GraphQL points':<18}" + "".join(f"{r['points']:>{width}}" for r in rows))
    print(f"{'seconds':<18}" + "".join(f"{r['seconds']:>{width}.1f}" for r in rows))
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--discussions", default="1,100,1000",
                   help="comma-separated numbers of discussions in the category")
    p.add_argument("--after", type=int, default=100,
                   help="one more row: this many of the last number's discussions opened "
                        "after the pull request (0: no such row)")
    p.add_argument("--lag-ms", type=int, default=0,
                   help="replica lag of comments behind refs (GitHub's default: 0 here)")
    p.add_argument("--workflow", type=Path, default=WORKFLOW,
                   help="the release workflow to play (default: the run-based example)")
    p.add_argument("--per-phase", action="store_true",
                   help="the run-based example beside the step-by-step one, per phase")
    args = p.parse_args()
    if args.per_phase:
        return per_phase(args.lag_ms)
    workflow = args.workflow.resolve()
    rows = [measure(int(n), args.lag_ms, 0, workflow) for n in args.discussions.split(",")]
    extra = [measure(rows[-1]["discussions"] + args.after, args.lag_ms, args.after,
                     workflow)] if args.after > 0 else []
    print(f"one release of {workflow.relative_to(ROOT)} through the Action entry, HTTP "
          f"emulator, replica lag {args.lag_ms} ms ({sys.executable} {sys.version.split()[0]})")
    for r in rows + extra:
        per = r["records"] or 1
        made = (f" ({r['after']} of them opened after the pull request)" if r["after"]
                else " (all made before the pull request)")
        print(f"\n{r['discussions']} discussion(s) in the category{made}: {r['steps']} "
              f"Action steps, "
              f"{r['records']} records written, {r['seconds']:.1f} s")
        print(f"  per release:         requests {r['requests']} (GraphQL {r['graphql']}, REST "
              f"{r['rest']}), GraphQL points {r['points']}, mutations {r['mutations']}, "
              f"content-creating {r['content']}")
        print(f"  per recorded event:  requests {r['requests'] / per:.2f} [goal <= "
              f"{GOAL_REQUESTS}], GraphQL points {r['points'] / per:.2f}, mutations "
              f"{r['mutations'] / per:.2f} [goal <= {GOAL_MUTATIONS}], content-creating "
              f"{r['content'] / per:.2f} [goal <= {GOAL_CONTENT}]")
        for command, metered in r["by_command"].items():
            most = {k: max(m[k] for m in metered)
                    for k in ("requests", "points", "mutations", "content")}
            print(f"  each {command} step ({len(metered)}): at most {most['requests']} "
                  f"requests, {most['points']} points, {most['mutations']} mutations, "
                  f"{most['content']} content-creating")
        busy = r["busiest"]
        print(f"  busiest minute:      content-creating {busy['content']} (limit "
              f"{CONTENT_MINUTE}), GraphQL secondary points {busy['points']} (limit "
              f"{POINTS_MINUTE:,}), REST secondary points {busy['rest_points']} (limit "
              f"{REST_POINTS_MINUTE}); secondary limits met: {r['limited']}")
        print(f"  releases an hour per repository: {r['releases']} [goal >= {GOAL_RELEASES}], "
              f"bound by {r['binding']} (the GraphQL points and REST requests alone would "
              f"allow {r['points_only']})")
    points = [r["points"] for r in rows]
    growth = points[-1] - points[0]
    print(f"\ngrowth from {rows[0]['discussions']} to {rows[-1]['discussions']} discussions: "
          f"{growth} GraphQL points per release [goal: 0]")
    met = (growth == 0
           and all(r["requests"] / max(1, r["records"]) <= GOAL_REQUESTS for r in rows)
           and all(r["mutations"] / max(1, r["records"]) <= GOAL_MUTATIONS for r in rows)
           and all(r["content"] / max(1, r["records"]) <= GOAL_CONTENT for r in rows)
           and all(r["limited"] == 0 for r in rows)
           and all(r["releases"] >= GOAL_RELEASES for r in rows))
    print("goals met" if met else "goals NOT met")
    for r in extra:
        print(f"still growing: {r['after']} discussions opened after the pull request add "
              f"{r['points'] - points[-1]} GraphQL points to the release (the first "
              "admission's category scan reads them)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
