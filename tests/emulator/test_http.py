"""Over real HTTP on 127.0.0.1: the serve command, a restart that keeps state, the
admin endpoints, dropped connections, githubkit, and eight writer processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from githubkit import GitHub, TokenAuthStrategy

from ghattempt.emulator import DEFAULT_FIXTURE, Emulator, EmulatorProcess, EmulatorServer

from .conftest import ADD_COMMENT, CREATE_DISCUSSION, QUERIES, ROOT, valid

pytestmark = pytest.mark.network
JOURNAL = (QUERIES / "JournalPage.graphql").read_text()
WRITERS = 8

FIXTURE_TOML = (
    """
[limits]
# the tests here are not about rate limits: room for every writer, whatever the load
content_per_minute = 100000
content_per_hour = 100000
points_per_minute = 1000000
rest_points_per_minute = 1000000

[[actors]]
login = "github-actions"
kind = "Bot"
database_id = 41898282

[[actors]]
login = "octo-org"
kind = "Organization"

[[tokens]]
token = "ghs_writer"
actor = "github-actions"
role = "write"
rate_limit = 100000
"""
    + "".join(
        f"""
[[tokens]]
token = "ghs_w{i}"
actor = "github-actions"
role = "write"
rate_limit = 100000
"""
        for i in range(WRITERS)
    )
    + """
[[repositories]]
owner = "octo-org"
name = "widgets"
branches = [{name = "main", message = "Initial commit"},
            {name = "feature", message = "Change", from = "main"}]
categories = [{name = "Release journal", slug = "release-journal"}]
pull_requests = [{number = 7, title = "Change", head = "feature", base = "main"}]
"""
)


class Served:
    def __init__(self, tmp: Path) -> None:
        self.db = tmp / "emu.db"
        self.fixture = tmp / "fixture.toml"
        self.fixture.write_text(FIXTURE_TOML)
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> str:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ghattempt.emulator",
                "serve",
                "--port",
                "0",
                "--db",
                str(self.db),
                "--fixture",
                str(self.fixture),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        assert line.startswith("listening on http://127.0.0.1:"), line
        self.url = line.split()[-1]
        return self.url

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = Served(tmp_path)
    s.start()
    try:
        yield s
    finally:
        s.stop()


def github(base_url: str, token: str = "ghs_writer") -> GitHub:
    return GitHub(
        TokenAuthStrategy(token), base_url=base_url, http_cache=False, auto_retry=False, timeout=10
    )


def _repo(gh: GitHub) -> dict:
    return gh.graphql.request(
        valid(
            'query { repository(owner: "octo-org", name: "widgets") { id'
            " discussionCategories(first: 5) { nodes { id } }"
            " pullRequest(number: 7) { headRefOid } } }"
        )
    )["repository"]


def test_serve_restart_keeps_state_and_githubkit_works(served: Served) -> None:
    gh = github(f"{served.url}/api/v3/")  # GHES layout: GraphQL at /api/graphql
    repo = _repo(gh)
    d = gh.graphql.request(
        valid(CREATE_DISCUSSION),
        {
            "r": repo["id"],
            "c": repo["discussionCategories"]["nodes"][0]["id"],
            "title": "PR #7",
            "body": "intent",
        },
    )["createDiscussion"]["discussion"]
    assert d["number"] == 8  # after pull request #7
    gh.graphql.request(valid(ADD_COMMENT), {"d": d["id"], "body": "root", "to": None})
    commit = gh.rest.git.create_commit(
        "octo-org", "widgets", message="lease", tree="4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    ).parsed_data
    served.stop()
    served.start()
    gh2 = github(f"{served.url}/")  # github.com layout: GraphQL at /graphql
    again = _repo(gh2)
    assert again == repo  # same ids; the fixture was not applied twice
    page = gh2.graphql.request(
        valid(JOURNAL), {"owner": "octo-org", "name": "widgets", "number": 8}
    )
    nodes = page["repository"]["discussion"]["comments"]["nodes"]
    assert [n["body"] for n in nodes] == ["root"]
    assert gh2.rest.git.get_commit("octo-org", "widgets", commit.sha).parsed_data.sha == commit.sha


def test_admin_faults_over_http_and_dropped_connection(served: Served) -> None:
    gh = github(f"{served.url}/")
    repo = _repo(gh)
    d = gh.graphql.request(
        valid(CREATE_DISCUSSION),
        {
            "r": repo["id"],
            "c": repo["discussionCategories"]["nodes"][0]["id"],
            "title": "t",
            "body": "b",
        },
    )["createDiscussion"]["discussion"]
    admin = httpx.Client(base_url=served.url, timeout=10)
    r = admin.post(
        "/_emulator/faults",
        json={
            "kind": "lose_response",
            "operation": "addDiscussionComment",
            "drop": True,
            "count": 1,
        },
    )
    assert r.status_code == 201
    r = admin.post(
        "/_emulator/faults",
        json={
            "rules": [
                {
                    "kind": "lose_response",
                    "operation": "addDiscussionComment",
                    "status": 504,
                    "nth": 2,
                    "count": 1,
                }
            ]
        },
    )
    assert r.status_code == 201
    client = httpx.Client(
        base_url=served.url, timeout=10, headers={"Authorization": "bearer ghs_writer"}
    )
    payload = {
        "query": valid(ADD_COMMENT),
        "variables": {"d": d["id"], "body": "dropped", "to": None},
    }
    with pytest.raises(httpx.TransportError):
        client.post("/graphql", json=payload)
    payload["variables"]["body"] = "timed out"
    assert client.post("/graphql", json=payload).status_code == 504
    payload["variables"]["body"] = "fine"
    assert client.post("/graphql", json=payload).status_code == 200
    rules = admin.get("/_emulator/faults").json()["rules"]
    assert [(r["seen"], r["fired"]) for r in rules] == [(3, 1), (3, 1)]
    state = admin.get("/_emulator/state").json()
    bodies = [c["body"] for c in state["repositories"][0]["discussions"][0]["comments"]]
    assert bodies == ["dropped", "timed out", "fine"]  # both lost responses had committed
    log = admin.get("/_emulator/requests").json()["requests"]
    assert [e["status"] for e in log if e["root_fields"] == ["addDiscussionComment"]] == [
        0,
        504,
        200,
    ]
    first_id = rules[0]["id"]
    remaining = admin.delete(f"/_emulator/faults/{first_id}").json()["rules"]
    assert [r["id"] for r in remaining] == [rules[1]["id"]]
    assert admin.delete("/_emulator/faults").json() == {"rules": []}
    r = admin.post("/_emulator/clock", json={"advance": 60})
    assert r.status_code == 200
    bad = admin.post("/_emulator/faults", json={"kind": "nope"})
    assert bad.status_code == 400 and "unknown fault kind" in bad.json()["message"]


WRITER_QUERY = """mutation($d: ID!, $b: String!) {
  addDiscussionComment(input: {discussionId: $d, body: $b}) { comment { id } } }"""
WRITER = textwrap.dedent(
    """
    import json, sys, httpx
    url, token, discussion, q = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[5]
    n = int(sys.argv[4])
    ids = []
    with httpx.Client(base_url=url, timeout=30, headers={"Authorization": "bearer " + token}) as c:
        for i in range(n):
            variables = {"d": discussion, "b": token + "-" + str(i)}
            r = c.post("/graphql", json={"query": q, "variables": variables})
            r.raise_for_status()
            ids.append(r.json()["data"]["addDiscussionComment"]["comment"]["id"])
    print(json.dumps(ids))
    """
)


def test_eight_writer_processes(served: Served) -> None:
    gh = github(f"{served.url}/")
    repo = _repo(gh)
    d = gh.graphql.request(
        valid(CREATE_DISCUSSION),
        {
            "r": repo["id"],
            "c": repo["discussionCategories"]["nodes"][0]["id"],
            "title": "t",
            "body": "b",
        },
    )["createDiscussion"]["discussion"]
    per = 10
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WRITER,
                served.url,
                f"ghs_w{i}",
                d["id"],
                str(per),
                valid(WRITER_QUERY),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(WRITERS)
    ]
    ids = []
    for p in procs:
        out, _ = p.communicate(timeout=60)
        assert p.returncode == 0
        ids += json.loads(out)
    assert len(ids) == len(set(ids)) == WRITERS * per
    seen = []
    after = None
    while True:
        page = gh.graphql.request(
            valid(JOURNAL),
            {
                "owner": "octo-org",
                "name": "widgets",
                "number": d["number"],
                "after": after,
                "roots": 50,
                "replies": 1,
            },
        )
        conn = page["repository"]["discussion"]["comments"]
        seen += [n["id"] for n in conn["nodes"]]
        if not conn["pageInfo"]["hasNextPage"]:
            break
        after = conn["pageInfo"]["endCursor"]
    assert sorted(seen) == sorted(ids)
    assert conn["totalCount"] == WRITERS * per


def test_client_timeout_while_the_mutation_lands(tmp_path: Path) -> None:
    """The ambiguous outcome: the client gives up, the write still commits."""
    emu = Emulator(str(tmp_path / "e.db"), DEFAULT_FIXTURE)
    emu.add_fault(
        {
            "kind": "latency",
            "operation": "addDiscussionComment",
            "latency_ms": 800,
            "after_commit": True,
            "count": 1,
        }
    )
    with EmulatorServer(emu) as server:
        gh = github(f"{server.url}/", token="ghs_actions")
        repo = gh.graphql.request(
            valid(
                'query { repository(owner: "octo-org", name: "widgets") { id'
                " discussionCategories(first: 5) { nodes { id } } } }"
            )
        )["repository"]
        d = gh.graphql.request(
            valid(CREATE_DISCUSSION),
            {
                "r": repo["id"],
                "c": repo["discussionCategories"]["nodes"][0]["id"],
                "title": "t",
                "body": "b",
            },
        )["createDiscussion"]["discussion"]
        impatient = httpx.Client(
            base_url=server.url, timeout=0.3, headers={"Authorization": "bearer ghs_actions"}
        )
        with pytest.raises(httpx.ReadTimeout):
            impatient.post(
                "/graphql",
                json={
                    "query": valid(ADD_COMMENT),
                    "variables": {"d": d["id"], "body": "late", "to": None},
                },
            )
        # the server commits, then answers 0.8 s later; on a loaded machine the commit
        # itself may come late, so look until it shows (bounded) instead of sleeping once
        bodies: list[str] = []
        deadline = time.monotonic() + 30
        while not bodies and time.monotonic() < deadline:
            time.sleep(0.1)
            page = gh.graphql.request(
                valid(JOURNAL), {"owner": "octo-org", "name": "widgets", "number": d["number"]}
            )
            bodies = [n["body"] for n in page["repository"]["discussion"]["comments"]["nodes"]]
        assert bodies == ["late"]


def test_chunked_request_body(tmp_path: Path) -> None:
    emu = Emulator(fixture=DEFAULT_FIXTURE)
    with EmulatorServer(emu) as server:
        body = json.dumps({"query": valid("{ viewer { login } }")}).encode()

        def chunks():
            yield body[:10]
            yield body[10:]

        r = httpx.post(
            f"{server.url}/graphql",
            content=chunks(),
            timeout=10,
            headers={"Authorization": "bearer ghp_alice"},
        )
        assert r.json() == {"data": {"viewer": {"login": "alice"}}}


def test_fixture_command_prints_the_default_fixture() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ghattempt.emulator", "fixture"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == json.loads(json.dumps(DEFAULT_FIXTURE))


def test_emulator_process_helper() -> None:
    with EmulatorProcess() as emu:
        gh = github(f"{emu.url}/", token="ghs_actions")
        before = gh.graphql.request(valid("{ viewer { login } }"))
        emu.add_fault({"kind": "fail", "operation": "Probe", "count": 1})
        r = httpx.post(
            f"{emu.url}/graphql",
            json={"query": valid("query Probe { viewer { login } }")},
            headers={"Authorization": "bearer ghs_actions"},
            timeout=10,
        )
        assert r.status_code == 502
        assert emu.requests()[-1]["faults"] == ["fail"]
        url = emu.url
        emu.restart()
        assert (
            emu.url != "" and emu.state()["repositories"][0]["nameWithOwner"] == "octo-org/widgets"
        )
        assert (
            github(f"{emu.url}/", token="ghs_actions").graphql.request(
                valid("{ viewer { login } }")
            )
            == before
        )
        assert url.startswith("http://127.0.0.1:")


def test_in_thread_server_and_github_dot_com_layout(tmp_path: Path) -> None:
    emu = Emulator(str(tmp_path / "e.db"), DEFAULT_FIXTURE)
    with EmulatorServer(emu) as server:
        r = httpx.post(
            f"{server.url}/graphql",
            json={"query": "{ viewer { login } }"},
            headers={"Authorization": "token ghp_alice"},
            timeout=10,
        )
        assert r.json() == {"data": {"viewer": {"login": "alice"}}}
        assert r.headers["x-ratelimit-resource"] == "graphql"
        r = httpx.post(
            f"{server.url}/graphql",
            json={"query": "{ viewer { login } }"},
            headers={"Authorization": "bearer wrong"},
            timeout=10,
        )
        assert r.status_code == 401 and r.json()["message"] == "Bad credentials"


def test_serve_on_a_port_in_use_says_to_pick_another(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from ghattempt.emulator.__main__ import main

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"emulator: cannot listen on 127.0.0.1 port {port}: " in err
    assert "pass another --port (0 picks a free one)" in err
