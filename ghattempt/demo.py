"""The demo: one pull request's whole life, written and read the way production does it.

``scripts/demo`` (or ``ghattempt demo``) runs, with no network beyond 127.0.0.1:

1. the emulator over HTTP (``ghattempt emulator serve``, a subprocess on a free port,
   a temporary SQLite database) with every fidelity behaviour of GitHub on: locked
   conversations refuse bots, ``viewerPermission`` is null for bot tokens, the
   repository predates GitHub's node-id migration (legacy ids unless asked for the new
   format), rulesets are enforced (one protects the default branch), comments lag refs
   by :data:`REPLICA_LAG_MS` on every read, and the Actions bot's ``GITHUB_TOKEN``
   spends the repository's 1,000 points an hour;
2. pull request #1 of ``octo-org/widgets``: a push adds the configuration, the Action
   admits attempt 1; a second push makes a new generation, so attempt 1 is recorded
   ``superseded`` and its successor is admitted for the new head;
3. build, review (waiting, then approved), warrant, merge, publication (whose response
   the emulator loses *after* the comment committed: the store reads back and
   reconciles, writing no duplicate), distribution, next-development, every record
   written by ``python -m ghattempt.action`` in its own process with the environment
   an Actions runner sets (``GITHUB_RUN_ID``, ``GITHUB_OUTPUT``, ...);
4. ``ghattempt capture`` of the journal, then the committed reader bundle
   ``readers/business-attempt.pyz`` in a separate process on that capture.

It prints the verdict, the journal as a table and its URL, writes the journal's timeline
page (``ghattempt show --html``) and prints its path, and exits non-zero when
anything differs from what is expected: status ``succeeded``, recovery ``none``, no
duplicate record, the first attempt ``superseded`` and succeeded by the current one, the
publication fault fired once and its event is in the journal once.

Shape::

    run_demo(*, keep: Path | None = None, quiet: bool = False, html: Path | None = None) -> int
    run_demo_command(args) -> int            # ``ghattempt demo``
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ghattempt.errors import Fault, GhattemptError

__all__ = ["DemoFailed", "run_demo", "run_demo_command"]

REPOSITORY = "octo-org/widgets"
PULL_REQUEST = 1
BASE_REF = "main"
HEAD_BRANCH = "feature"
# Tokens of the emulator's built-in fixture (ghattempt.emulator.DEFAULT_FIXTURE); they
# open nothing but that local emulator.
WRITER_TOKEN = "ghs_actions"  # noqa: S105 -- the fixture's Actions bot
PUSHER_TOKEN = "ghp_alice"  # noqa: S105 -- the fixture's pull request author
WRITER_LOGIN = "github-actions"
WRITER_ID = 41898282  # the Actions bot's databaseId in the emulator's fixture (github.com's)
SERVER_URL = "https://github.com"
REPLICA_LAG_MS = 1500
"""How long the demo's comments stay invisible to every read (GitHub's replicas lag)."""
FIDELITY = {"replica_lag_ms": REPLICA_LAG_MS, "actions_budget": True}
"""Fidelity switches beyond GitHub's defaults (which are all on): every behaviour on."""

CONFIG = """\
# .github/ghattempt.toml of the demo repository
[journal]
category = "release-journal"

[writer]
# the Actions bot; its databaseId is learned from the host at start (it differs per host)
login = "github-actions"

[attempt]
request_key = "pr-{pull_request}:{base_ref}:{channel}"
default_channel = "stable"

[channels.stable]
plan = ["admission", "build", "review", "warrant", "merge", "publication",
        "distribution", "next-development"]

# the last act's channel: one `run` step, its job killed during the work
[channels.hotfix]
plan = ["publication"]

[lease]
# The emulator answers in milliseconds: short request timeouts keep the quiet period
# after an unknown outcome (request_timeout + 10 s + clock_skew) short.
length = 60
request_timeout = 5
clock_skew = 1
acquire_timeout = 60

[pacing]
write_interval = 0.0
"""


class DemoFailed(GhattemptError):
    """A step or a check of the demo failed; the message says which and why."""

    fault = Fault.REFUSED


def _root() -> Path:
    return Path(__file__).resolve().parent.parent


@dataclass
class Step:
    """One Action step the demo ran: its inputs, exit status and outputs."""

    title: str
    command: str
    rc: int
    outputs: dict[str, str]
    stdout: str
    stderr: str
    seconds: float


@dataclass
class Demo:
    """State of one demo run."""

    work: Path
    api_url: str = ""
    log: list[Step] = field(default_factory=list)
    run_id: int = 7000
    quiet: bool = False

    # ---------------------------------------------------------------- output
    def say(self, text: str) -> None:
        if not self.quiet:
            print(text, flush=True)

    # ----------------------------------------------------------- emulator
    def _call(self, method: str, path: str, body: Any, headers: dict[str, str]) -> Any:
        url = self.api_url + path
        if not url.startswith("http://127.0.0.1:"):
            raise DemoFailed(f"the demo talks to the loopback emulator only, not {url}")
        req = urllib.request.Request(  # noqa: S310 -- http://127.0.0.1 checked above
            url, data=None if body is None else json.dumps(body).encode(), method=method,
            headers={"content-type": "application/json", **headers})
        with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310 -- as above
            return json.loads(resp.read())

    def admin(self, method: str, path: str, body: Any = None) -> Any:
        """An emulator admin request (faults, state; never on GitHub)."""
        return self._call(method, path, body, {})

    def graphql(self, token: str, query: str, variables: Mapping[str, Any]) -> Any:
        body = self._call("POST", "graphql", {"query": query, "variables": dict(variables)},
                          {"authorization": f"bearer {token}"})
        if body.get("errors"):
            raise DemoFailed(f"emulator refused a demo request: {body['errors'][0]}")
        return body["data"]

    def head(self) -> str:
        data = self.graphql(PUSHER_TOKEN, "query($o:String!,$n:String!,$b:String!){"
                            "repository(owner:$o,name:$n){ref(qualifiedName:$b){target{oid}}}}",
                            {"o": "octo-org", "n": "widgets", "b": f"refs/heads/{HEAD_BRANCH}"})
        return str(data["repository"]["ref"]["target"]["oid"])

    def push(self, path: str, content: bytes, headline: str) -> str:
        """A push to the pull request's head branch (``createCommitOnBranch``)."""
        import base64

        data = self.graphql(PUSHER_TOKEN, """
            mutation($input: CreateCommitOnBranchInput!) {
              createCommitOnBranch(input: $input) { commit { oid } }
            }""", {"input": {
            "branch": {"repositoryNameWithOwner": REPOSITORY, "branchName": HEAD_BRANCH},
            "expectedHeadOid": self.head(),
            "message": {"headline": headline},
            "fileChanges": {"additions": [
                {"path": path, "contents": base64.b64encode(content).decode()}]}}})
        return str(data["createCommitOnBranch"]["commit"]["oid"])

    # ------------------------------------------------------------- action
    def _runner_temp(self, job: str) -> Path:
        """The job's ``RUNNER_TEMP``: shared by the steps of one job only."""
        folder = self.work / f"runner-temp-{job}"
        folder.mkdir(exist_ok=True)
        return folder

    def _step_env(self, command: str, job: str, out: Path, summary: Path,
                  inputs: Mapping[str, str], extra: Mapping[str, str] | None = None
                  ) -> dict[str, str]:
        """The environment a runner gives one step of run ``self.run_id`` (``extra``:
        the step's ``env:``)."""
        env = _clean_env()
        env.update(extra or {})
        env.update({
            "GITHUB_ACTIONS": "true", "CI": "true",
            "GITHUB_RUN_ID": str(self.run_id), "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": job, "GITHUB_WORKFLOW": "release",
            "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_API_URL": self.api_url,
            "GITHUB_SERVER_URL": SERVER_URL, "GITHUB_WORKSPACE": str(self.work / "workspace"),
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(self.work / "event.json"),
            "GITHUB_OUTPUT": str(out), "GITHUB_STEP_SUMMARY": str(summary),
            "GHATTEMPT_COMMAND": command, "GHATTEMPT_TOKEN": WRITER_TOKEN,
            "RUNNER_TEMP": str(self._runner_temp(job)),
        })
        for name, value in inputs.items():
            env["GHATTEMPT_" + name.upper()] = value
        return env

    def action(self, title: str, command: str, *, job: str, expect_rc: int = 0,
               extra: Mapping[str, str] | None = None, **inputs: str) -> Step:
        """Run ``python -m ghattempt.action`` as a runner would, for one step."""
        self.run_id += 1
        n = len(self.log) + 1
        out, summary = self.work / f"step{n}.output", self.work / f"step{n}.summary.md"
        out.write_text("")
        env = self._step_env(command, job, out, summary, inputs, extra)
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "ghattempt.action"], env=env,
                              capture_output=True, text=True, timeout=120, cwd=self.work)
        step = Step(title, command, proc.returncode, _read_outputs(out), proc.stdout,
                    proc.stderr, time.monotonic() - start)
        self.log.append(step)
        mark = "ok " if proc.returncode == expect_rc else "FAIL"
        self.say(f"  [{mark}] {title:<52} status={step.outputs.get('status', '-'):<12} "
                 f"recovery={step.outputs.get('recovery', '-')}  ({step.seconds:.1f} s)")
        shown = [line for line in (proc.stdout + proc.stderr).splitlines()
                 if not line.startswith("::add-mask::")]
        if any(WRITER_TOKEN in line for line in shown):
            raise DemoFailed(f"step {title!r} printed the token")
        if not proc.stdout.startswith("::add-mask::"):
            raise DemoFailed(f"step {title!r} printed before masking the token")
        if proc.returncode != expect_rc:
            raise DemoFailed(f"step {title!r} exited {proc.returncode}, expected {expect_rc}:"
                             f"\n{proc.stdout}{proc.stderr}")
        return step


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("GITHUB_", "GHATTEMPT_", "INPUT_", "RUNNER_"))}


def _read_outputs(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and "=" not in line.split("<<", 1)[0]:
            name, delim = line.split("<<", 1)
            j = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1:j])
            i = j + 1
            continue
        name, _, value = line.partition("=")
        out[name] = value
        i += 1
    return out


def demo_fixture() -> dict[str, Any]:
    """The emulator's built-in fixture, made as GitHub is for a long-lived repository:
    ``octo-org/widgets`` predates the node-id migration and protects its default branch
    with a ruleset; ``ghs_actions`` is that repository's ``GITHUB_TOKEN``; every fidelity
    switch is on (:data:`FIDELITY`)."""
    import copy

    from ghattempt.emulator import DEFAULT_FIXTURE

    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["fidelity"] = dict(FIDELITY)
    for repo in data["repositories"]:
        if f"{repo['owner']}/{repo['name']}" == REPOSITORY:
            repo["legacy_node_id"] = True
            repo["rulesets"] = [{"name": "main", "include": ["~DEFAULT_BRANCH"],
                                 "rules": ["deletion", "non_fast_forward"], "bypass": []}]
    for token in data["tokens"]:
        if token["token"] == WRITER_TOKEN:
            token["repository"] = REPOSITORY
    return data


@contextmanager
def emulator(work: Path) -> Iterator[str]:
    """``ghattempt emulator serve`` on a free loopback port, with :func:`demo_fixture`;
    yields its API base URL."""
    fixture = work / "fixture.json"
    fixture.write_text(json.dumps(demo_fixture()), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ghattempt.cli", "emulator", "serve", "--port", "0",
         "--db", str(work / "emulator.sqlite3"), "--fixture", str(fixture)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_clean_env())
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        if not line.startswith("listening on http://127.0.0.1:"):
            err = proc.stderr.read() if proc.stderr else ""
            raise DemoFailed(f"the emulator did not start: {line!r} {err.strip()[-300:]}")
        yield line.split("listening on ", 1)[1].rstrip("/") + "/"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _cli(demo: Demo, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    env = _clean_env()
    env.update({"GITHUB_TOKEN": WRITER_TOKEN, "GITHUB_API_URL": demo.api_url,
                "GITHUB_REPOSITORY": REPOSITORY, "GHATTEMPT_PROGRESS": "0"})
    return subprocess.run([sys.executable, "-m", "ghattempt.cli", *args], env=env, text=True,
                          capture_output=True, timeout=120, cwd=demo.work / "workspace",
                          input=None if stdin is None else stdin.decode())


def _life(demo: Demo) -> dict[str, Any]:
    """Drive the pull request through its life; returns facts the checks need."""
    ws = demo.work / "workspace"
    (ws / ".github").mkdir(parents=True)
    (ws / ".github" / "ghattempt.toml").write_text(CONFIG, encoding="utf-8")
    (demo.work / "event.json").write_text(json.dumps({
        "action": "synchronize", "number": PULL_REQUEST,
        "pull_request": {"number": PULL_REQUEST, "base": {"ref": BASE_REF},
                         "head": {"ref": HEAD_BRANCH}}}))
    facts: dict[str, Any] = {}

    demo.say("pull request #1 opened; the author pushes the release configuration")
    facts["head1"] = demo.push(".github/ghattempt.toml", CONFIG.encode(), "Add release config")
    first = demo.action("admit attempt 1 (generation 1)", "admit", job="admission")
    facts["attempt1"] = first.outputs["attempt"]
    demo.action("admission started", "record", job="admission", phase="admission",
                status="started")

    demo.say("a new push: generation 1 is superseded")
    facts["head2"] = demo.push("src/widget.txt", b"a widget\n", "Polish the widget")
    demo.action("attempt 1 superseded by the new push", "record", job="admission",
                phase="attempt", status="superseded",
                reason=f"new head {facts['head2'][:12]} pushed")
    second = demo.action("admit attempt 2 (generation 2)", "successor", job="admission")
    facts["attempt2"] = second.outputs["attempt"]
    if facts["attempt2"] == facts["attempt1"] or not facts["attempt2"]:
        raise DemoFailed("the successor did not open a new attempt")

    for phase, job in (("admission", "admission"), ("build", "build")):
        demo.action(f"{phase} started", "record", job=job, phase=phase, status="started")
        demo.action(f"{phase} succeeded", "record", job=job, phase=phase, status="succeeded")
    demo.action("review waiting for approval", "record", job="review", phase="review",
                status="waiting", reason="waiting for a maintainer's approval")
    demo.action("review approved", "record", job="review", phase="review",
                status="succeeded")
    for phase in ("warrant", "merge"):
        demo.action(f"{phase} started", "record", job=phase, phase=phase, status="started")
        demo.action(f"{phase} succeeded", "record", job=phase, phase=phase, status="succeeded")
    demo.action("publication started", "record", job="publish", phase="publication",
                status="started")

    demo.say("publication: GitHub commits the comment but the response is lost")
    rule = demo.admin("POST", "_emulator/faults", {
        "kind": "lose_response", "operation": "addDiscussionComment", "count": 1,
        "status": 502})
    facts["fault_id"] = rule["ids"][0]
    demo.action("publication succeeded (response lost, reconciled)", "record",
                job="publish", phase="publication", status="succeeded",
                key="publish-v1.4.0")
    described = demo.admin("GET", "_emulator/faults")["rules"]
    facts["fault_fired"] = next(r["fired"] for r in described if r["id"] == facts["fault_id"])
    demo.admin("DELETE", "_emulator/faults")

    for phase, job in (("distribution", "distribute"), ("next-development", "bump")):
        demo.action(f"{phase} started", "record", job=job, phase=phase, status="started")
        demo.action(f"{phase} succeeded", "record", job=job, phase=phase, status="succeeded")
    final = demo.action("status", "status", job="report")
    facts["final_outputs"] = final.outputs
    facts["summary"] = (demo.work / f"step{len(demo.log)}.summary.md").read_text()
    return facts


PUBLISH = """\
echo "publication $$" >> "$DEMO_COUNTER"
echo "$$" > "$DEMO_PID"
echo "widgets 1.4.1" > "$DEMO_RELEASES/v1.4.1"   # the effect is in place at once,
sleep 60                                          # then the runner is lost (SIGKILL)
"""
VERIFY = """\
trap 'exit 3' ERR   # an error of the verify itself cannot tell (exit 3), never exit 1
if [ -f "$DEMO_RELEASES/v1.4.1" ]; then echo "v1.4.1 is out"; exit 0; fi
exit 1
"""


def _kill_then_settle(demo: Demo) -> dict[str, Any]:
    """The last act (channel ``hotfix``, plan ``publication``): one ``command: run``
    step whose job is killed with SIGKILL while its work runs, after the effect; its run
    then ends as GitHub reports a lost runner; the re-run's ``verify`` finds the effect
    in place: ``unknown`` then ``succeeded`` recorded, outcome ``settled``, the work not
    run again. Returns what the checks need."""
    import signal

    demo.say("last act: the publication's job is killed (SIGKILL) during its work; a "
             "re-run settles it by verify, without publishing again")
    act = demo.work / "act"
    (act / "releases").mkdir(parents=True)
    extra = {"DEMO_COUNTER": str(act / "counter"), "DEMO_PID": str(act / "pid"),
             "DEMO_RELEASES": str(act / "releases")}
    inputs = {"channel": "hotfix", "phase": "publication", "run": PUBLISH,
              "verify": VERIFY}
    demo.run_id += 1
    killed = demo.run_id
    demo.admin("POST", "_emulator/runs", {
        "repository": REPOSITORY, "run_id": killed, "path": ".github/workflows/hotfix.yml",
        "name": "hotfix", "head_sha": demo.head(), "status": "in_progress",
        "jobs": ["publish"]})
    n = len(demo.log) + 1
    out, summary = demo.work / f"step{n}.output", demo.work / f"step{n}.summary.md"
    out.write_text("")
    env = demo._step_env("run", "publish", out, summary, inputs, extra)
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "ghattempt.action"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=demo.work)
    pid_file = act / "pid"
    try:
        while not (pid_file.exists() and pid_file.read_text().strip()):
            if proc.poll() is not None or time.monotonic() - start > 60:
                raise DemoFailed("the publication's work did not start: "
                                 + (proc.stderr.read().decode() if proc.stderr else ""))
            time.sleep(0.05)
        # the runner is lost: the step and its work die at once, nothing is recorded
        os.killpg(int(pid_file.read_text()), signal.SIGKILL)
        proc.kill()
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    step = Step("publication: job killed during its work", "run", proc.returncode,
                _read_outputs(out), stdout.decode(), stderr.decode(),
                time.monotonic() - start)
    demo.log.append(step)
    demo.say(f"  [ok ] {step.title:<52} exit {proc.returncode} (SIGKILL)  "
             f"({step.seconds:.1f} s)")
    demo.admin("POST", f"_emulator/runs/{killed}/end",
               {"repository": REPOSITORY, "conclusion": "failure"})
    again = demo.action("publication re-run: settled by verify", "run", job="publish",
                        extra=extra, channel="hotfix", phase="publication", run=PUBLISH,
                        verify=VERIFY)
    counter = (act / "counter").read_text().splitlines()
    demo.say(f"  outcome {again.outputs.get('outcome')}; the work ran {len(counter)} "
             "time(s) in all")
    return {"outcome": again.outputs.get("outcome", ""), "runs": len(counter),
            "status": again.outputs.get("status", "")}


def _check(demo: Demo, facts: dict[str, Any]) -> dict[str, Any]:
    """Capture with the CLI, read with the bundle in its own process, check everything."""
    url = facts["final_outputs"]["journal-url"]
    number = url.rstrip("/").rsplit("/", 1)[-1]
    capture_path = demo.work / "capture.json"
    proc = _cli(demo, "capture", "--discussion", number, "--output", str(capture_path))
    if proc.returncode != 0:
        raise DemoFailed(f"ghattempt capture exited {proc.returncode}: {proc.stderr.strip()}")
    from ghattempt.core import parse_capture

    # the saved capture, parsed where it is read (the reader reads the file itself)
    capture = parse_capture(json.loads(capture_path.read_text(encoding="utf-8")))
    repository_id = capture.repository_id
    bundle = _root() / "readers" / "business-attempt.pyz"
    if not bundle.is_file():
        from ghattempt.readers import bundle_path

        bundle = bundle_path()
    read = subprocess.run(
        [sys.executable, "-I", str(bundle), "--writer", WRITER_LOGIN, "--writer-id",
         str(WRITER_ID), "--repository-id", repository_id],
        input=capture_path.read_bytes(), capture_output=True, timeout=60, cwd=demo.work)
    verdict = json.loads(read.stdout)
    problems: list[str] = []

    def expect(ok: bool, what: str) -> None:
        if not ok:
            problems.append(what)

    expect(read.returncode == 0, f"the reader exited {read.returncode}")
    expect(verdict["status"] == "succeeded", f"status is {verdict['status']}, not succeeded")
    expect(verdict["recovery"] == "none", f"recovery is {verdict['recovery']}, not none")
    expect(verdict["missing_phases"] == [], f"missing phases {verdict['missing_phases']}")
    expect(verdict["attempt"] == facts["attempt2"], "the current attempt is not attempt 2")
    attempts = verdict["attempts"]
    expect(len(attempts) == 2, f"{len(attempts)} attempts, expected 2")
    if len(attempts) == 2:
        expect(attempts[0]["attempt"] == facts["attempt1"]
               and attempts[0]["status"] == "superseded", "attempt 1 is not superseded")
        expect(attempts[1]["predecessor"] == facts["attempt1"],
               "attempt 2 does not succeed attempt 1")
        expect(attempts[0]["generation"] != attempts[1]["generation"],
               "attempt 2 has the generation of attempt 1")
    expect(verdict["ignored"] == 0, f"{verdict['ignored']} comments ignored")
    expect(facts["fault_fired"] == 1, f"the lost-response fault fired "
                                      f"{facts['fault_fired']} times, expected 1")
    bodies: Counter[str] = Counter()
    publication = 0
    for root in capture.comments:
        bodies[root.body] += 1
        for reply in capture.replies[root.id]:
            bodies[reply.body] += 1
            if '"key":"publish-v1.4.0"' in reply.body:
                publication += 1
    dupes = [b for b, n in bodies.items() if n > 1]
    expect(not dupes, f"{len(dupes)} records were written more than once")
    expect(publication == 1, f"the publication event is in the journal {publication} times")
    expect(facts["final_outputs"]["status"] == "succeeded",
           "the Action's status output is not succeeded")
    expect("```mermaid" in facts["summary"], "the job summary has no Mermaid diagram")
    return {"verdict": verdict, "problems": problems, "url": url, "number": number,
            "capture": capture_path, "reader_exit": read.returncode}


def _page_path(keep: Path | None, html: Path | None) -> Path:
    """Where the timeline page goes: ``html``, else ``keep/timeline.html``, else a new
    file in the temporary directory (the work folder is removed at the end)."""
    if html is not None:
        return html
    if keep is not None:
        return keep / "timeline.html"
    fd, name = tempfile.mkstemp(prefix="ghattempt-demo-timeline-", suffix=".html")
    os.close(fd)
    return Path(name)


def run_demo(*, keep: Path | None = None, quiet: bool = False,
             html: Path | None = None) -> int:
    """Run the demo; returns 0 when every check holds, 1 otherwise. The journal's
    timeline page (``ghattempt show --html``) is written to ``html`` (default: see
    ``_page_path``) and its path printed."""
    work = Path(tempfile.mkdtemp(prefix="ghattempt-demo-")) if keep is None else keep
    work.mkdir(parents=True, exist_ok=True)
    page = _page_path(keep, html)
    demo = Demo(work, quiet=quiet)
    start = time.monotonic()
    try:
        with emulator(work) as api_url:
            demo.api_url = api_url
            demo.say(f"emulator listening on {api_url}")
            facts = _life(demo)
            result = _check(demo, facts)
            act = _kill_then_settle(demo)
            if (act["outcome"], act["runs"], act["status"]) != ("settled", 1, "succeeded"):
                result["problems"].append(
                    f"the killed publication's re-run: outcome {act['outcome']!r}, work run "
                    f"{act['runs']} time(s), status {act['status']!r} (expected settled, 1, "
                    "succeeded)")
            table = _cli(demo, "status", "--discussion", result["number"], "--writer",
                         WRITER_LOGIN, "--writer-id", str(WRITER_ID))
            shown = _cli(demo, "show", "--capture", str(result["capture"]), "--html",
                         str(page.resolve()), "--writer", WRITER_LOGIN, "--writer-id",
                         str(WRITER_ID))
            if shown.returncode != 0:
                raise DemoFailed(f"ghattempt show exited {shown.returncode}: "
                                 f"{shown.stderr.strip()}")
    except DemoFailed as exc:
        print(f"demo FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    verdict = result["verdict"]
    demo.say("\nreader verdict (readers/business-attempt.pyz, separate process):")
    demo.say(json.dumps(verdict, indent=1))
    demo.say("\njournal:")
    demo.say(table.stdout.rstrip())
    demo.say(f"\njournal URL: {result['url']}")
    print(f"timeline page: {page.resolve()}")
    seconds = time.monotonic() - start
    if result["problems"]:
        for p in result["problems"]:
            print(f"demo check failed: {p}", file=sys.stderr)
        print(f"demo FAILED ({len(result['problems'])} checks) in {seconds:.1f} s",
              file=sys.stderr)
        return 1
    print(f"demo passed: status {verdict['status']}, recovery {verdict['recovery']}, "
          f"{len(verdict['attempts'])} attempts, {len(demo.log)} Action steps, "
          f"{seconds:.1f} s")
    return 0


def run_demo_command(args: Any) -> int:
    """``ghattempt demo [--keep DIR] [--quiet] [--html FILE]``."""
    return run_demo(keep=Path(args.keep) if args.keep else None, quiet=bool(args.quiet),
                    html=Path(args.html) if getattr(args, "html", None) else None)


if __name__ == "__main__":
    sys.exit(run_demo())
