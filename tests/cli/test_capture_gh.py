"""``readers/capture-gh.py`` through a fake ``gh`` that forwards to the emulator over
loopback: a journal whose one attempt root has more than 100 replies reads the same as
the capture of ``ghattempt capture``."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import BUNDLE, CONFIG, ROOT, cli_env

SCRIPT = ROOT / "readers" / "capture-gh.py"
EVENTS = 161        # 50 in the JournalPage, then RepliesPages of 100 and 11

FAKE_GH = """\
#!{python}
# gh api graphql -f NAME=STRING -F NAME=TYPED, answered by the emulator at $FAKE_GH_URL.
import json, os, sys, urllib.error, urllib.request
args = sys.argv[1:]
assert args[:2] == ["api", "graphql"], args
with open(os.environ["FAKE_GH_LOG"], "a") as log:
    log.write(json.dumps(args[2:]) + "\\n")
query, variables, i = None, {{}}, 2
while i < len(args):
    flag, pair = args[i], args[i + 1]
    name, value = pair.split("=", 1)
    if flag == "-F":
        value = {{"true": True, "false": False, "null": None}}.get(
            value, int(value) if value.isdigit() else value)
    elif flag != "-f":
        sys.exit("fake gh: unknown flag " + flag)
    if name == "query":
        query = value
    else:
        variables[name] = value
    i += 2
request = urllib.request.Request(
    os.environ["FAKE_GH_URL"] + "/graphql",
    data=json.dumps({{"query": query, "variables": variables}}).encode(),
    headers={{"Authorization": "bearer " + os.environ["GH_TOKEN"],
              "Content-Type": "application/json"}})
try:
    body = urllib.request.urlopen(request, timeout=30).read()
except urllib.error.HTTPError as exc:
    sys.stderr.write("gh: HTTP %d\\n" % exc.code)
    sys.exit(1)
sys.stdout.write(body.decode())
sys.exit(1 if json.loads(body).get("errors") else 0)
"""


def _fixture() -> dict[str, Any]:
    from ghattempt.emulator import DEFAULT_FIXTURE

    data = copy.deepcopy(DEFAULT_FIXTURE)
    data["tokens"].append({"token": "ghs_bulk", "actor": "github-actions", "role": "write",
                           "rate_limit": 1_000_000})
    data["limits"] = {"content_per_minute": 100_000, "content_per_hour": 1_000_000,
                      "points_per_minute": 1_000_000, "rest_points_per_minute": 1_000_000}
    return data


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """An emulator over HTTP holding one journal: one attempt with ``EVENTS`` events."""
    from ghattempt.core import ActionsWriter, Generation
    from ghattempt.emulator import Emulator, EmulatorServer
    from ghattempt.exclusive import InMemoryExclusive
    from ghattempt.github import GitHubProvider, ProviderConfig, TokenAuth
    from ghattempt.store import BusinessAttemptStore, JournalOptions

    tmp = tmp_path_factory.mktemp("capture_gh")
    emu = Emulator(str(tmp / "emu.sqlite3"), _fixture())
    server = EmulatorServer(emu).start()
    try:
        gh = GitHubProvider(ProviderConfig(auth=TokenAuth("ghs_bulk"),
                                           base_url=server.url + "/", timeout=10,
                                           connect_timeout=10, mutation_interval=0.0))
        repo = gh.repository("octo-org", "widgets")
        store = BusinessAttemptStore(
            gh, JournalOptions(repository="octo-org/widgets", repository_id=repo.id,
                               category="release-journal", writer_login="github-actions",
                               writer_id=41898282),
            exclusive=InMemoryExclusive(), writer=ActionsWriter(101, 1, "release", "Release"),
            reader="sha256:" + "ab" * 32)
        store.initialise()
        journal = store.open_journal(1, "main")
        generation = Generation(
            source_commit="1" * 40, tree="2" * 40, config_path=".github/ghattempt.toml",
            config_blob="3" * 40, config_digest="sha256:" + "4" * 64, base_ref="main",
            base_commit="5" * 40)
        with store.session(journal) as s:
            attempt = s.admit(request_key="pr-1:main:stable", generation=generation,
                              plan=("admission", "build"), channel="stable",
                              expires_at="2099-01-01T00:00:00Z", authorization=None)
            for i in range(EVENTS):
                waiting = i % 2 == 1
                s.append(attempt.id, key=f"admission/{i}", phase="admission",
                         status="waiting" if waiting else "started",
                         reason=f"round {i}" if waiting else None)
        workspace = tmp / "workspace"
        (workspace / ".github").mkdir(parents=True)
        (workspace / ".github" / "ghattempt.toml").write_text(CONFIG)
        bindir = tmp / "bin"
        bindir.mkdir()
        fake = bindir / "gh"
        fake.write_text(FAKE_GH.format(python=sys.executable))
        fake.chmod(0o755)
        yield {"url": server.url, "number": journal.number, "repository_id": repo.id,
               "workspace": workspace, "bin": bindir, "log": tmp / "gh.log"}
    finally:
        server.stop()


def _script(served: dict[str, Any], *args: str) -> subprocess.CompletedProcess[bytes]:
    env = cli_env(PATH=f"{served['bin']}{os.pathsep}{os.environ['PATH']}",
                  FAKE_GH_URL=served["url"], FAKE_GH_LOG=str(served["log"]),
                  GH_TOKEN="ghs_actions", GITHUB_REPOSITORY="octo-org/widgets")
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          env=env, timeout=120, cwd=served["workspace"])


def _read(capture: bytes, repository_id: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, str(BUNDLE), "--writer", "github-actions",
                           "--writer-id", "41898282", "--repository-id", repository_id],
                          input=capture, capture_output=True, timeout=60)


def test_capture_gh_reads_as_ghattempt_capture(served: dict[str, Any]) -> None:
    served["log"].write_text("")
    ours = _script(served, "--discussion", str(served["number"]))
    assert ours.returncode == 0, ours.stderr
    pages = json.loads(ours.stdout)
    calls = [json.loads(line) for line in served["log"].read_text().splitlines()]
    replies_pages = [c for c in calls if "RepliesPage" in c[1]]
    lease_refs = [c for c in calls if "query LeaseRef" in c[c.index("-f") + 1]]
    # a first JournalPage of one comment (to name the lease ref), the LeaseRef, the pages
    assert len(lease_refs) == 1 and "lease" in pages[0]["data"]["repository"]
    assert len(pages) == len(calls) - 1 == 2 + len(replies_pages) and len(replies_pages) >= 1
    assert all(c[c.index("-f") + 1].startswith("query=") for c in calls)
    reference = subprocess.run(
        [sys.executable, "-m", "ghattempt.cli", "capture", "--discussion",
         str(served["number"])], capture_output=True, timeout=120, cwd=served["workspace"],
        env=cli_env(GITHUB_TOKEN="ghs_actions", GITHUB_API_URL=served["url"] + "/",
                    GITHUB_REPOSITORY="octo-org/widgets"))
    assert reference.returncode == 0, reference.stderr
    mine, theirs = _read(ours.stdout, served["repository_id"]), _read(
        reference.stdout, served["repository_id"])
    assert mine.returncode == theirs.returncode == 0, mine.stdout
    assert mine.stdout == theirs.stdout
    verdict = json.loads(mine.stdout)
    assert verdict["status"] == "running" and verdict["recovery"] == "continue:admission"


def test_without_the_replies_pages_the_reader_fails_closed(served: dict[str, Any]) -> None:
    # The check above cannot pass by accident: the first page alone is incomplete.
    ours = _script(served, "--discussion", str(served["number"]))
    first_page_only = json.dumps(json.loads(ours.stdout)[:2]).encode()  # lease ref, page 1
    out = _read(first_page_only, served["repository_id"])
    assert out.returncode == 3 and json.loads(out.stdout)["reason"] == "incomplete"


def test_errors_are_one_line(served: dict[str, Any], tmp_path: Path) -> None:
    missing = _script(served, "--discussion", "999")
    assert missing.returncode == 4
    lines = missing.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("capture-gh.py: error: "), lines
    assert "#999" in lines[0] or "999" in lines[0]
    no_queries = _script(served, "--discussion", "1", "--queries", str(tmp_path))
    assert no_queries.returncode == 2
    assert "JournalPage.graphql" in no_queries.stderr.decode()
    no_gh = _script(served, "--discussion", "1", "--gh", str(tmp_path / "nothing"))
    assert no_gh.returncode == 2 and b"not found" in no_gh.stderr
