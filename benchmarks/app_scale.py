"""The App at the scale of an organisation, with GitHub's limits on: deliveries an hour
and the share of the App's content budget they use.

Runs ``python -m ghattempt.app serve`` replicas with the store sink against the HTTP
emulator (``python -m ghattempt.emulator serve``, App auth, every GraphQL and REST
request held ``--latency`` ms first, like GitHub's own latency), and sends a recorded
mix of signed deliveries built from @octokit/webhooks-examples: ``--prs`` pull requests
per installation across 5 installations (each its own organisation and repository);
the configuration on the default branch and in each pull request's head; per pull
request ``opened``, then three ``workflow_job`` ``completed`` (the build job
``action_required``, then ``success``; the review job ``success``), sent round by
round, one delivery at a time, round-robin over the replicas as a load balancer would.
Each configuration runs on a fresh emulator and a fresh inbox.

GitHub's limits are on throughout: the emulator enforces its secondary limits with
GitHub's figures (2,000 GraphQL and 900 REST points a minute; 80 content-creating
requests a minute and 500 an hour per actor, and an App is one actor for all its
installations) and each installation's primary 5,000 an hour. To run an hour of GitHub's
pacing in minutes, the clock of those windows is scaled: the emulator's ``[limits]
time_scale`` and the App's ``GHATTEMPT_APP_BUDGET_TIME_SCALE`` are both ``--scale``
(default 20: a minute's window passes in 3 s, an hour's in 180 s). Nothing else is
scaled: the latency, the leases and the primary hour run in real time; the budget's
logic is the App's own (``ghattempt.app.budget``), only its clock runs faster.

Default rows (1 replica x 1 worker and 1 x 4 on SQLite, 3 x 4 on PostgreSQL with
``--postgres URL``, a server the benchmark may create databases on): every delivery is
sent at once, so deliveries wait throughout, and the run stops one hour of GitHub's time
(3600 / scale seconds) after the first acceptance. Printed per row: the deliveries
finished in that hour, the content-creating requests the App sent in it (the emulator's
request log), their share of the 500 an hour, the busiest minute's content-creating
requests (at most 80), the answers that were a secondary limit, and the deliveries
still waiting at the hour's end. Goals: at least 90 % of the budget used while
deliveries wait; 0 secondary limits met. The points limits run in the scaled windows
too, which makes them ``--scale`` times looser for the reads, whose pace the scaling
does not change; so each row also prints the secondary points the App spent per
content-creating request, and what that comes to at 80 content-creating requests a
minute, against GitHub's 2,000 GraphQL and 900 REST points a minute.

``--capacity``: the App's own capacity, which GitHub's limits do not allow: the windows
3,600 times faster (an hour's content budget every second, so no limit binds), every
delivery to the end; rows 1 x 1, 1 x 4 (SQLite), 1 x 4 and 3 x 4 (PostgreSQL), and 1 x 4
and 3 x 4 again with one installation rate-limited (its tokens' primary budget is 1
point an hour, so each runs dry at its first requests and the store reports GitHub's
reset) and with the first installation sending nothing ("the four alone"). It prints
the deliveries processed per second (deliveries / (last journal write - first
acceptance)) and the p50 and p99 of each delivery's time from acceptance to its journal
write, for every installation and for the four never limited ("others"); goals: 1 x 4
at least 3 x the throughput of 1 x 1; 3 x 4 at least 2.5 x that of 1 x 4 (on
PostgreSQL); with one installation rate-limited, the others' p99 within 20 % of theirs
when the first sends nothing.

Usage: ``.venv/bin/python benchmarks/app_scale.py [--scale K] [--prs N] [--latency MS]
[--postgres URL] [--capacity] [--only NAME ...] [--timeout S] [--requests]``.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from ghattempt.app.budget import CONTENT_WINDOWS
from ghattempt.emulator.limits import CONTENT_CREATING, REST_CONTENT_CREATING

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / ".cache" / "npm" / "webhooks-examples" / "api.github.com" / "index.json"
SECRET = "bench-webhook-secret"
APP_ID = 4242
APP_DB_ID = 5550009
INSTALLATIONS = 5
LIMITED_BUDGET = 1
CONFIG = f"""
[journal]
category = "release-journal"
[writer]
login = "ghattempt-app"
database_id = {APP_DB_ID}
[channels.release]
plan = ["build", "review"]
[pacing]
write_interval = 0
[lease]
length = 60
request_timeout = 10
clock_skew = 1
acquire_timeout = 60
"""
PHASES = """
merged_phase = ""
[[workflows]]
workflow = "CI"
job = "compile"
phase = "build"
[[workflows]]
workflow = "CI"
job = "review"
phase = "review"
"""


@dataclass
class Delivery:
    installation: int
    pull: int
    event: str
    body: bytes
    delivery: str = field(default_factory=lambda: str(uuid.uuid4()))


@dataclass
class Row:
    name: str
    replicas: int
    workers: int
    backend: str
    limited: bool = False
    alone: bool = False  # the first installation sends nothing
    done: int = 0
    rate: float = 0.0
    p50: float = 0.0
    p99: float = 0.0
    others_p50: float = 0.0
    others_p99: float = 0.0
    outcomes: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    requests: dict[str, int] = field(default_factory=dict)
    cpu_app: float = 0.0
    cpu_emulator: float = 0.0
    answer_p50: float = 0.0
    answer_p90: float = 0.0
    hour_deliveries: int = 0
    hour_content: int = 0
    busiest_minute: int = 0
    graphql_points_per_content: float = 0.0
    rest_points_per_content: float = 0.0
    waiting: int = 0
    limited_answers: int = 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1]


def signed(event: str, body: bytes, delivery: str) -> dict[str, str]:
    return {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery,
            "X-Hub-Signature-256": "sha256=" + hmac.new(SECRET.encode(), body,
                                                        hashlib.sha256).hexdigest(),
            "Content-Type": "application/json"}


def key_pair(work: Path) -> tuple[Path, str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM,
                            serialization.PrivateFormat.TraditionalOpenSSL,
                            serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    path = work / "app.pem"
    path.write_text(pem)
    return path, public


def fixture(prs: int, public: str, limited: bool, scale: float) -> dict[str, Any]:
    actors: list[dict[str, Any]] = [
        {"login": "ghattempt-app", "kind": "Bot", "database_id": APP_DB_ID},
        {"login": "alice", "kind": "User"},
    ]
    repositories = []
    for i in range(1, INSTALLATIONS + 1):
        actors.append({"login": f"org-{i}", "kind": "Organization"})
        repositories.append({
            "owner": f"org-{i}", "name": "widgets", "default_branch": "main",
            "branches": [{"name": "main", "message": "Initial commit"}]
            + [{"name": f"feature-{n}", "message": f"Change {n} of org-{i}", "from": "main"}
               for n in range(1, prs + 1)],
            "categories": [{"name": "Release journal", "slug": "release-journal",
                            "emoji": ":rocket:"}],
            "pull_requests": [{"number": n, "title": f"Change {n}", "head": f"feature-{n}",
                               "base": "main", "author": "alice"} for n in range(1, prs + 1)],
        })
    # GitHub's primary limit of an installation (at least 5,000 an hour); its hour is
    # not scaled (no row comes near it)
    installations = [{"id": 100 + i, "role": "write",
                      "rate_limit": LIMITED_BUDGET if limited and i == 1 else 5000}
                     for i in range(1, INSTALLATIONS + 1)]
    return {
        # GitHub's secondary limits with GitHub's figures, their windows scaled
        "limits": {"time_scale": int(scale)},
        "actors": actors,
        "tokens": [{"token": "ghp_alice", "actor": "alice", "role": "admin",
                    "rate_limit": 1_000_000}],
        "apps": [{"app_id": APP_ID, "slug": "ghattempt-app", "public_key": public,
                  "installations": installations}],
        "repositories": repositories,
    }


def start_emulator(work: Path, data: dict[str, Any]) -> tuple[subprocess.Popen[bytes], str]:
    fx = work / "fixture.json"
    fx.write_text(json.dumps(data))
    err = (work / "emulator.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ghattempt.emulator", "serve", "--port", "0",
         "--db", str(work / "emu.db"), "--fixture", str(fx)],
        stdout=subprocess.PIPE, stderr=err, cwd=ROOT)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    if not line.startswith("listening on "):
        raise RuntimeError(f"emulator did not start: {line!r}")
    return proc, line.split()[-1]


def recorded_mix(url: str, prs: int) -> list[Delivery]:
    """The deliveries, round by round, after committing the configuration."""
    from ghattempt.github import GitHubProvider, ProviderConfig, TokenAuth

    index = {e["name"]: e["examples"] for e in json.loads(EXAMPLES.read_text())}
    opened_example = next(e for e in index["pull_request"] if e.get("action") == "opened")
    job_example = next(e for e in index["workflow_job"] if e.get("action") == "completed")
    gh = GitHubProvider(ProviderConfig(auth=TokenAuth("ghp_alice"), base_url=url + "/",
                                       mutation_interval=0.0, timeout=30))
    rounds: list[list[Delivery]] = [[], [], [], []]
    try:
        for i in range(1, INSTALLATIONS + 1):
            owner = f"org-{i}"
            # the configuration on the default branch and in every pull request's head,
            # as in a repository whose pull requests branch off after it was added
            for branch in ["main", *(f"feature-{n}" for n in range(1, prs + 1))]:
                ref = gh.ref(owner, "widgets", f"refs/heads/{branch}")
                assert ref is not None
                gh.create_commit_on_branch(
                    f"{owner}/widgets", branch, expected_head_oid=ref.target_oid,
                    headline="config", additions={".github/ghattempt.toml": CONFIG.encode()})
            repo = gh.repository(owner, "widgets")
            repository = {"node_id": repo.id, "full_name": f"{owner}/widgets",
                          "name": "widgets", "id": 9000 + i}
            for n in range(1, prs + 1):
                pr = gh.pull_request(owner, "widgets", n)
                opened = copy.deepcopy(opened_example)
                opened.update(repository={**opened["repository"], **repository},
                              installation={"id": 100 + i}, number=n)
                opened["pull_request"].update(number=n)
                opened["pull_request"]["head"].update(sha=pr.head_oid, ref=pr.head_ref_name)
                opened["pull_request"]["base"].update(sha=pr.base_oid, ref=pr.base_ref_name)
                rounds[0].append(Delivery(100 + i, n, "pull_request",
                                          json.dumps(opened).encode()))
                for r, (name, conclusion) in enumerate(
                        (("compile", "action_required"), ("compile", "success"),
                         ("review", "success")), start=1):
                    job = copy.deepcopy(job_example)
                    job.update(repository={**job["repository"], **repository},
                               installation={"id": 100 + i})
                    job["workflow_job"].update(
                        id=i * 100_000 + n * 10 + r, run_id=i * 10_000 + n * 10 + r,
                        run_attempt=1, name=name, workflow_name="CI", head_sha=pr.head_oid,
                        conclusion=conclusion, status="completed")
                    rounds[r].append(Delivery(100 + i, n, "workflow_job",
                                              json.dumps(job).encode()))
    finally:
        gh.close()
    return [d for round_ in rounds for d in round_]


def create_database(server: str) -> str:
    import psycopg

    name = "app_scale_" + uuid.uuid4().hex[:12]
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    parts = urllib.parse.urlsplit(server)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


def drop_database(url: str, server: str) -> None:
    import psycopg

    name = urllib.parse.urlsplit(url).path.lstrip("/")
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def inbox_rows(inbox: str) -> list[tuple[str, str, float, float | None, str | None]]:
    sql = "SELECT delivery, state, received_at, finished_at, outcome FROM deliveries"
    if inbox.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(inbox) as conn:
            return list(conn.execute(sql).fetchall())
    conn = sqlite3.connect(inbox)
    try:
        return list(conn.execute(sql).fetchall())
    finally:
        conn.close()


def start_server(work: Path, n: int, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    log = (work / f"server-{n}.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ghattempt.app", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--log-level", "warning"],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {(work / f'server-{n}.log').read_text()}")
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a running process has used (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def seconds_of(at: str) -> float:
    """The emulator log's ISO time as seconds since the epoch."""
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def content_creating(entry: dict[str, Any]) -> bool:
    """Whether the emulator counted the request against the content limits."""
    if entry["kind"] == "rest":
        return entry["operation"] in REST_CONTENT_CREATING and entry["status"] < 400
    return bool(CONTENT_CREATING & set(entry["root_fields"])) and entry["status"] < 400


def run(row: Row, args: argparse.Namespace, root: Path, scale: float,
        hour: bool) -> Row:
    """One configuration on a fresh emulator and inbox, its secondary limits' windows
    ``scale`` times faster (the App's content budget too). ``hour``: measure one hour of
    GitHub's time (3600 / scale real seconds from the first acceptance) and stop;
    otherwise wait until every delivery is finished."""
    work = root / row.name.replace(" ", "-").replace("(", "").replace(")", "").replace(",", "")
    work.mkdir()
    key, public = key_pair(work)
    emulator, url = start_emulator(work, fixture(args.prs, public, row.limited, scale))
    servers: list[subprocess.Popen[bytes]] = []
    database = None
    try:
        mix = recorded_mix(url, args.prs)
        if row.alone:
            mix = [d for d in mix if d.installation != 101]
        httpx.post(f"{url}/_emulator/faults", json={"kind": "latency",
                                                     "latency_ms": args.latency}, timeout=10)
        (work / "phases.toml").write_text(PHASES)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GHATTEMPT_")}
        env.update(GHATTEMPT_APP_ID=str(APP_ID), GHATTEMPT_APP_PRIVATE_KEY_FILE=str(key),
                   GHATTEMPT_WEBHOOK_SECRET=SECRET, GHATTEMPT_GITHUB_API_URL=url + "/",
                   GHATTEMPT_APP_PHASES=str(work / "phases.toml"),
                   GHATTEMPT_APP_WORKERS=str(row.workers), GHATTEMPT_APP_CATCHUP_INTERVAL="0",
                   GHATTEMPT_HTTP_TIMEOUT="10", GHATTEMPT_APP_MAX_TRIES="100",
                   GHATTEMPT_APP_BUDGET_TIME_SCALE=str(scale))
        if row.backend == "PostgreSQL":
            database = create_database(args.postgres)
            env["GHATTEMPT_APP_DATABASE"] = database
            inbox = database
        else:
            inbox = str(work / "inbox.sqlite")
            env["GHATTEMPT_APP_STATE"] = inbox
        bases = []
        for n in range(row.replicas):
            proc, base = start_server(work, n, env)
            servers.append(proc)
            bases.append(base)
        clients = [httpx.Client(base_url=b, timeout=30) for b in bases]
        started = time.monotonic()
        for i, d in enumerate(mix):
            answer = clients[i % len(clients)].post(
                "/webhook", content=d.body, headers=signed(d.event, d.body, d.delivery))
            if answer.status_code != 202:
                raise RuntimeError(f"delivery {i}: {answer.status_code} {answer.text}")
        for c in clients:
            c.close()
        limited = {d.delivery for d in mix if row.limited and d.installation == 101}
        wanted = len(mix) - len(limited)
        deadline = started + (3600 / scale + 1 if hour else args.timeout)
        while True:
            rows = inbox_rows(inbox)
            finished = [r for r in rows if r[1] != "pending" and r[0] not in limited]
            if len(finished) >= wanted:
                break
            if time.monotonic() > deadline:
                if hour:
                    break
                raise RuntimeError(f"{row.name}: {len(finished)} of {wanted} finished after "
                                   f"{args.timeout} s; logs in {work}")
            time.sleep(0.5)
        row.seconds = time.monotonic() - started
        log = httpx.get(f"{url}/_emulator/requests", timeout=60).json()["requests"]
        row.limited_answers = sum(1 for e in log if e.get("secondary_limited"))
        opened = min(float(r[2]) for r in rows)
        end = opened + 3600 / scale
        row.hour_deliveries = sum(1 for r in rows if r[3] is not None and float(r[3]) < end)
        row.waiting = sum(1 for r in rows if r[3] is None or float(r[3]) >= end)
        app_content = sorted(seconds_of(e["at"]) for e in log
                             if e["actor"] != "alice" and content_creating(e))
        row.hour_content = sum(1 for t in app_content if opened <= t < end)
        # the points limits run in the scaled windows too, which makes them looser for the
        # reads, whose pace is not scaled: so each request's secondary points are counted
        # per content-creating request, and the minute's points worked out at the
        # content limit's pace
        app = [e for e in log if e["actor"] != "alice" and e["actor"] is not None]
        graphql_points = sum(5 if e["kind"] == "mutation" else 1 for e in app
                             if e["kind"] in ("query", "mutation"))
        rest_points = sum(1 if e["method"] == "GET" else 5 for e in app if e["kind"] == "rest")
        row.graphql_points_per_content = graphql_points / max(1, len(app_content))
        row.rest_points_per_content = rest_points / max(1, len(app_content))
        minute = 60 / scale
        row.busiest_minute = max((sum(1 for u in app_content if t <= u < t + minute)
                                  for t in app_content), default=0)
        done = [r for r in rows if r[1] != "pending"]
        counted = [r for r in done if r[0] not in limited]
        # the installations never rate-limited (all but the first), in every row
        first_installation = {d.delivery for d in mix if d.installation == 101}
        others = [r for r in done if r[0] not in first_installation]
        latencies = [float(r[3]) - float(r[2]) for r in done if r[3] is not None]
        other_latencies = [float(r[3]) - float(r[2]) for r in others if r[3] is not None]
        first = min(float(r[2]) for r in rows)
        last = max(float(r[3]) for r in counted if r[3] is not None)
        row.done = len(done)
        row.rate = len(counted) / (last - first)
        row.p50, row.p99 = quantile(latencies, 0.5), quantile(latencies, 0.99)
        row.others_p50 = quantile(other_latencies, 0.5)
        row.others_p99 = quantile(other_latencies, 0.99)
        row.cpu_app = sum(cpu_seconds(proc.pid) for proc in servers)
        row.cpu_emulator = cpu_seconds(emulator.pid)
        for entry in log:
            name = entry["operation"] or entry["path"]
            row.requests[name] = row.requests.get(name, 0) + 1
        # how long the emulator took to answer (the latency included): more than the
        # latency is queueing in the emulator or a starved machine
        answered = [float(e["duration_ms"]) / 1000 for e in log]
        row.answer_p50, row.answer_p90 = quantile(answered, 0.5), quantile(answered, 0.9)
        for r in done:
            outcome = json.loads(r[4] or "{}")
            kinds = [x["outcome"] for x in outcome.get("results", [])] or (
                ["error"] if "error" in outcome else ["none"])
            for kind in kinds:
                row.outcomes[kind] = row.outcomes.get(kind, 0) + 1
        return row
    finally:
        for proc in servers:
            stop(proc)
        emulator.terminate()
        emulator.wait(10)
        if database is not None and not args.keep:
            drop_database(database, args.postgres)
        elif database is not None:
            print(f"  inbox kept: {database}")


BUDGET_HOUR = max(n for _, n in CONTENT_WINDOWS)
BUDGET_MINUTE = min(n for _, n in CONTENT_WINDOWS)
GOAL_SHARE = 0.9
CAPACITY_SCALE = 3600


def budget_rows(args: argparse.Namespace, rows: list[Row], root: Path) -> int:
    """Deliveries in one hour of GitHub's time and the share of the App's content budget
    they used, with GitHub's limits on (their windows ``--scale`` times faster)."""
    print(f"{'configuration':22} {'deliveries an hour':>18} {'content-creating':>16} "
          f"{'budget used':>11} {'busiest minute':>14} {'secondary limits met':>20} "
          f"{'still waiting':>13} {'wall s':>7}  load")
    met = True
    for row in rows:
        run(row, args, root, args.scale, hour=True)
        share = row.hour_content / BUDGET_HOUR
        met = met and share >= GOAL_SHARE and row.limited_answers == 0 and row.waiting > 0
        print(f"{row.name:22} {row.hour_deliveries:18} {row.hour_content:16} "
              f"{share:10.0%} {row.busiest_minute:14} {row.limited_answers:20} "
              f"{row.waiting:13} {row.seconds:7.1f}  {load()}", flush=True)
        print(f"  outcomes of the deliveries finished: "
              f"{json.dumps(row.outcomes, sort_keys=True)}; secondary points per "
              f"content-creating request: GraphQL {row.graphql_points_per_content:.1f}, REST "
              f"{row.rest_points_per_content:.1f}, so at {BUDGET_MINUTE} content-creating "
              f"requests a minute {row.graphql_points_per_content * BUDGET_MINUTE:.0f} "
              f"GraphQL points a minute (limit 2,000) and "
              f"{row.rest_points_per_content * BUDGET_MINUTE:.0f} REST (limit 900)")
        if args.requests:
            total = sum(row.requests.values())
            print(f"  {total} GitHub requests, {total / max(row.done, 1):.1f} a delivery "
                  "finished: " + ", ".join(f"{k} {v}" for k, v in sorted(
                      row.requests.items(), key=lambda kv: -kv[1])))
    print(f"bound by GitHub's content limit for the App's one bot: {BUDGET_HOUR} "
          f"content-creating requests an hour ({BUDGET_MINUTE} a minute); goals: at least "
          f"{GOAL_SHARE:.0%} of it used while deliveries wait, 0 secondary limits met: "
          + ("met" if met else "NOT met"))
    print(f"load average after: {load()}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prs", type=int, default=None,
                        help="pull requests per installation (default 15; 10 with "
                             "--capacity)")
    parser.add_argument("--latency", type=int, default=100, help="ms before each request")
    parser.add_argument("--postgres", default=os.environ.get("GHATTEMPT_TEST_POSTGRES", ""),
                        help="a PostgreSQL server URL the benchmark may create databases on")
    parser.add_argument("--scale", type=int, default=20,
                        help="the secondary limits' windows (the emulator's and the App's "
                             "content budget) pass this many times faster: one hour of "
                             "GitHub's time in 3600 / scale seconds (default 20: 180 s)")
    parser.add_argument("--capacity", action="store_true",
                        help="the App's own capacity instead: every delivery to the end, "
                             f"the limits' windows {CAPACITY_SCALE} times faster (an hour's "
                             "budget every second), not a throughput GitHub allows")
    parser.add_argument("--only", nargs="*", default=None, help="run these rows only")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per row")
    parser.add_argument("--keep", action="store_true", help="keep the logs and databases")
    parser.add_argument("--requests", action="store_true",
                        help="print the GitHub requests each configuration made")
    args = parser.parse_args(argv)
    if args.prs is None:
        args.prs = 10 if args.capacity else 15
    if not EXAMPLES.is_file():
        print(f"missing {EXAMPLES}: run scripts/fetch-npm-fixtures", file=sys.stderr)
        return 2
    if args.capacity:
        rows = [Row("1 x 1 (SQLite)", 1, 1, "SQLite"), Row("1 x 4 (SQLite)", 1, 4, "SQLite"),
                Row("1 x 4 (PostgreSQL)", 1, 4, "PostgreSQL"),
                Row("3 x 4 (PostgreSQL)", 3, 4, "PostgreSQL"),
                Row("1 x 4 (SQLite), one rate-limited", 1, 4, "SQLite", limited=True),
                Row("1 x 4 (SQLite), the four alone", 1, 4, "SQLite", alone=True),
                Row("3 x 4 (PostgreSQL), one rate-limited", 3, 4, "PostgreSQL",
                    limited=True),
                Row("3 x 4 (PostgreSQL), the four alone", 3, 4, "PostgreSQL", alone=True)]
    else:
        rows = [Row("1 x 1 (SQLite)", 1, 1, "SQLite"), Row("1 x 4 (SQLite)", 1, 4, "SQLite"),
                Row("3 x 4 (PostgreSQL)", 3, 4, "PostgreSQL")]
    if not args.postgres:
        print("no --postgres (or GHATTEMPT_TEST_POSTGRES): the PostgreSQL rows are skipped",
              file=sys.stderr)
        rows = [r for r in rows if r.backend != "PostgreSQL"]
    if args.only:
        rows = [r for r in rows if r.name in args.only]
    scale = CAPACITY_SCALE if args.capacity else args.scale
    print(f"app_scale{' --capacity' if args.capacity else ''}: {args.prs * INSTALLATIONS} "
          f"pull requests x 4 deliveries = {args.prs * INSTALLATIONS * 4} across "
          f"{INSTALLATIONS} installations; emulator latency {args.latency} ms per request; "
          f"GitHub's limits on, the secondary windows {scale} x faster; {os.cpu_count()} "
          f"cores; load average {load()}; {sys.executable}")
    root = Path(tempfile.mkdtemp(prefix="app-scale-"))
    results: dict[str, Row] = {}
    try:
        if not args.capacity:
            return budget_rows(args, rows, root)
        print("the App's own capacity: with an hour of GitHub's content budget every second, "
              f"not a throughput GitHub allows (there {BUDGET_HOUR} content-creating "
              "requests an hour bind; run without --capacity)")
        header = (f"{'configuration':38} {'deliveries/s':>12} {'p50 s':>7} {'p99 s':>7} "
                  f"{'others p50':>10} {'others p99':>10} {'wall s':>7}  outcomes, load")
        print(header)
        for row in rows:
            run(row, args, root, scale, hour=False)
            results[row.name] = row
            print(f"{row.name:38} {row.rate:12.2f} {row.p50:7.2f} {row.p99:7.2f} "
                  f"{row.others_p50:10.2f} {row.others_p99:10.2f} {row.seconds:7.1f}  "
                  f"{json.dumps(row.outcomes, sort_keys=True)}, {load()}", flush=True)
            print(f"  CPU a delivery: App {row.cpu_app / max(row.done, 1) * 1000:.0f} ms, "
                  f"emulator {row.cpu_emulator / max(row.done, 1) * 1000:.0f} ms (setup "
                  f"included); GitHub's answers p50 {row.answer_p50 * 1000:.0f} ms, p90 "
                  f"{row.answer_p90 * 1000:.0f} ms; secondary limits met: "
                  f"{row.limited_answers}")
            if args.requests:
                total = sum(row.requests.values())
                print(f"  {total} GitHub requests, {total / max(row.done, 1):.1f} a delivery: "
                      + ", ".join(f"{k} {v}" for k, v in sorted(row.requests.items(),
                                                               key=lambda kv: -kv[1])))
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"logs kept in {root}")

    def ratio(a: str, b: str) -> str:
        if a in results and b in results:
            return f"{results[a].rate / results[b].rate:.2f}"
        return "not measured"

    def p99_change(limited: str, base: str) -> str:
        if limited in results and base in results:
            after, before = results[limited].others_p99, results[base].others_p99
            return f"{(after / before - 1) * 100:+.0f} % ({after:.2f} s vs {before:.2f} s)"
        return "not measured"

    print("goals:")
    print(f"  1 x 4 / 1 x 1 throughput (SQLite): {ratio('1 x 4 (SQLite)', '1 x 1 (SQLite)')} "
          "(goal >= 3)")
    print(f"  3 x 4 / 1 x 4 throughput (PostgreSQL): "
          f"{ratio('3 x 4 (PostgreSQL)', '1 x 4 (PostgreSQL)')} (goal >= 2.5); against "
          f"1 x 4 on SQLite: {ratio('3 x 4 (PostgreSQL)', '1 x 4 (SQLite)')}")
    for shape, backend in (("1 x 4", "SQLite"), ("3 x 4", "PostgreSQL")):
        base = f"{shape} ({backend})"
        limited, alone = f"{base}, one rate-limited", f"{base}, the four alone"
        print(f"  {shape}: the other four installations' p99 with the first rate-limited, "
              f"against the four alone: {p99_change(limited, alone)} (goal: unchanged "
              f"within 20 %); against the first not limited: {p99_change(limited, base)}")
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
