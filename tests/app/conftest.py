"""Shared helpers for the App tests: example payloads, signing, a running server."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import hmac
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
APP_ID = 12345
"""The App id of the tests' servers and of the emulator's App."""
INSTALLATION = 777
APP_DB_ID = 5550001
REPO = "octo-org/widgets"
EXAMPLES = ROOT / ".cache" / "npm" / "webhooks-examples" / "api.github.com" / "index.json"
SECRET = "test-webhook-secret-5b1f0c"

PHASES_TOML = """
merged_phase = "merge"
[[workflows]]
workflow = ".github/workflows/test.yml"
phase = "build"
[[workflows]]
workflow = "CodeQL"
job = "linters"
phase = "review"
"""


def _load_examples() -> dict[str, list[dict[str, Any]]]:
    if not EXAMPLES.is_file():
        message = (
            f"@octokit/webhooks-examples is missing ({EXAMPLES}); run scripts/fetch-npm-fixtures"
        )
        if os.environ.get("GHATTEMPT_REQUIRE_FIXTURES") == "1":
            pytest.fail(message + " (GHATTEMPT_REQUIRE_FIXTURES=1)")
        pytest.skip("SKIPPED LOUDLY: " + message)
    index = json.loads(EXAMPLES.read_text(encoding="utf-8"))
    return {entry["name"]: entry["examples"] for entry in index}


POSTGRES_ENV = "GHATTEMPT_TEST_POSTGRES"
"""The URL of a PostgreSQL server whose user may create databases (.ci/run starts one)."""


def _postgres_server() -> str:
    url = os.environ.get(POSTGRES_ENV, "")
    if not url:
        message = (f"{POSTGRES_ENV} is not set: name a PostgreSQL server the tests may create "
                   "databases on (.ci/run starts one)")
        if os.environ.get("GHATTEMPT_REQUIRE_FIXTURES") == "1":
            pytest.fail(message + " (GHATTEMPT_REQUIRE_FIXTURES=1)")
        pytest.skip("SKIPPED LOUDLY: " + message)
    return url


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The PostgreSQL server of ``GHATTEMPT_TEST_POSTGRES``."""
    return _postgres_server()


def database_url(server: str, name: str) -> str:
    """``server``'s URL naming the database ``name``."""
    import urllib.parse

    parts = urllib.parse.urlsplit(server)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


@pytest.fixture
def postgres(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database on the test server (dropped afterwards); its URL."""
    import psycopg

    name = "ghattempt_" + uuid.uuid4().hex[:16]
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield database_url(postgres_server, name)
    finally:
        with psycopg.connect(postgres_server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def examples() -> dict[str, list[dict[str, Any]]]:
    """Every example payload of @octokit/webhooks-examples, by event name."""
    return _load_examples()


@pytest.fixture(scope="session")
def example(examples: dict[str, list[dict[str, Any]]]) -> Callable[..., dict[str, Any]]:
    """``example(event, action, **match)``: a deep copy of the first matching payload."""

    def pick(event: str, action: str | None, **match: Any) -> dict[str, Any]:
        for payload in examples[event]:
            if payload.get("action") != action:
                continue
            if all(_dig(payload, k) == v for k, v in match.items()):
                return copy.deepcopy(payload)
        raise LookupError(f"no {event}/{action} example with {match}")

    return pick


def _dig(payload: dict[str, Any], dotted: str) -> Any:
    obj: Any = payload
    for part in dotted.split("__"):
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def sign(body: bytes, secret: str = SECRET) -> str:
    """The ``X-Hub-Signature-256`` GitHub sends for ``body``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def headers(event: str, body: bytes, delivery: str | None = None, **extra: str) -> dict[str, str]:
    """GitHub's delivery headers for a body, signed with the test secret."""
    return {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": sign(body),
        "Content-Type": "application/json",
        **extra,
    }


def encode(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()


def pr(example: Callable[..., dict[str, Any]], action: str, number: int,
       head: str | None = None) -> dict[str, Any]:
    """A ``pull_request`` example payload for pull request ``number`` (and ``head``)."""
    payload = example("pull_request", action)
    payload["number"] = payload["pull_request"]["number"] = number
    if head is not None:
        payload["pull_request"]["head"]["sha"] = head
    return payload


def wait_until(check: Callable[[], object], timeout: float = 60.0) -> None:
    """Poll ``check`` until it is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture(scope="session")
def rsa_pem(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A fresh RSA private key file for the App, and its PEM text."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    path = tmp_path_factory.mktemp("key") / "app.pem"
    path.write_text(pem)
    return path, pem


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _limit_files(n: int) -> Callable[[], None]:
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))

    return limit


@dataclass
class Server:
    """A ``python -m ghattempt.app serve`` subprocess on 127.0.0.1."""

    workdir: Path
    env: dict[str, str]
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    logs: list[Path] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def recording(self) -> Path:
        return Path(self.env["GHATTEMPT_APP_RECORDING"])

    @property
    def state(self) -> Path:
        return Path(self.env["GHATTEMPT_APP_STATE"])

    def start(self, port: int | None = None, *, open_files: int | None = None,
              **overrides: str) -> Server:
        """Start the server (on ``port``, else a free one; with at most ``open_files``
        file descriptors, else the test's limit)."""
        assert self.proc is None, "already running"
        self.port = port or free_port()
        env = {**self.env, **overrides}
        log = self.workdir / f"server-{len(self.logs)}.log"
        self.logs.append(log)
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "ghattempt.app",
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                ],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                preexec_fn=None if open_files is None else _limit_files(open_files),
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited {self.proc.returncode}: {self.log_text()}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.05)
        raise RuntimeError(f"server did not start: {self.log_text()}")

    def post(self, event: str, body: bytes, **kw: Any) -> httpx.Response:
        delivery = kw.pop("delivery", None)
        hdrs = kw.pop("headers", None) or headers(event, body, delivery)
        return httpx.post(self.url + "/webhook", content=body, headers=hdrs, timeout=10, **kw)

    def health(self) -> dict[str, Any]:
        return httpx.get(self.url + "/healthz", timeout=5).json()  # type: ignore[no-any-return]

    def wait_idle(self, timeout: float = 20) -> dict[str, int]:
        """Wait until no delivery is pending; returns the inbox counts."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            counts = self.health()["inbox"]
            if counts["pending"] == 0:
                return counts  # type: ignore[no-any-return]
            time.sleep(0.05)
        raise AssertionError(f"deliveries still pending: {self.health()}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.proc = None

    def wait_exit(self, timeout: float = 20) -> int:
        assert self.proc is not None
        code = self.proc.wait(timeout)
        self.proc = None
        return code

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            self.proc = None

    def log_text(self) -> str:
        return "\n".join(p.read_text(errors="replace") for p in self.logs if p.exists())


@pytest.fixture
def server_factory(tmp_path: Path, rsa_pem: tuple[Path, str]) -> Iterator[Callable[..., Server]]:
    """``server_factory(**env)``: a configured (not yet started) server; stopped at the end."""
    made: list[Server] = []

    def make(**env: str) -> Server:
        work = tmp_path / f"srv{len(made)}"
        work.mkdir()
        phases = work / "phases.toml"
        phases.write_text(PHASES_TOML)
        base = {k: v for k, v in os.environ.items() if not k.startswith("GHATTEMPT_APP")}
        base.update(
            GHATTEMPT_APP_ID=str(APP_ID),
            GHATTEMPT_APP_PRIVATE_KEY_FILE=str(rsa_pem[0]),
            GHATTEMPT_WEBHOOK_SECRET=SECRET,
            GHATTEMPT_APP_STATE=str(work / "inbox.sqlite"),
            GHATTEMPT_APP_PHASES=str(phases),
            GHATTEMPT_APP_SINK="ghattempt.app.recording:recording_sink",
            GHATTEMPT_APP_RECORDING=str(work / "recording.sqlite"),
            GHATTEMPT_APP_RETRY_BASE="0.05",
            GHATTEMPT_APP_CATCHUP_INTERVAL="0",  # no GitHub to catch up with
        )
        base.update(env)
        server = Server(workdir=work, env=base)
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop()


def app_fixture(pem: str, *, app_id: int = APP_ID, installation: int = INSTALLATION,
                database_id: int = APP_DB_ID) -> dict[str, Any]:
    """The emulator's default fixture with the App of ``pem`` (the private key's public
    half) registered, one installation, and the App's bot given ``database_id``."""
    from cryptography.hazmat.primitives import serialization

    from ghattempt.emulator import DEFAULT_FIXTURE

    key = serialization.load_pem_private_key(pem.encode(), password=None)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    fixture = copy.deepcopy(DEFAULT_FIXTURE)
    for actor in fixture["actors"]:
        if actor["login"] == "ghattempt-app":
            actor["database_id"] = database_id
    fixture["apps"] = [{"app_id": app_id, "slug": "ghattempt-app", "public_key": public,
                        "installations": [{"id": installation, "role": "write"}]}]
    # where a journal can be transferred to
    fixture["repositories"].append({"owner": "octo-org", "name": "widgets-archive",
                                    "categories": [{"name": "Old", "slug": "old"}]})
    return fixture


@dataclass
class Emu:
    """``python -m ghattempt.emulator serve`` (a subprocess) with the App of the tests'
    key registered (``APP_ID``, installation ``INSTALLATION``), and alice's client."""

    url: str
    proc: subprocess.Popen[bytes]
    gh: Any  # ghattempt.github.GitHubProvider
    repository_id: str

    def admin(self, route: str, body: dict[str, Any] | None = None) -> Any:
        """POST (GET without a body) to an admin route; its JSON answer."""
        if body is None:
            r = httpx.get(f"{self.url}/_emulator/{route}", timeout=30)
        else:
            r = httpx.post(f"{self.url}/_emulator/{route}", json=body, timeout=30)
        assert r.status_code in (200, 201), r.text
        return r.json()

    def state(self) -> Any:
        return httpx.get(f"{self.url}/_emulator/state", timeout=10).json()

    def pull(self) -> Any:
        return self.gh.pull_request("octo-org", "widgets", 1)

    def journal_number(self) -> int:
        state = httpx.get(f"{self.url}/_emulator/state", timeout=10).json()
        (repo,) = [r for r in state["repositories"] if r["id"] == self.repository_id]
        numbers = [d["number"] for d in repo["discussions"]]
        assert len(numbers) == 1, numbers
        return int(numbers[0])

    def verdict(self, request_key: str = "pr-1:main:release") -> Any:
        from ghattempt.core import read_journal

        pages = list(self.gh.capture("octo-org", "widgets", self.journal_number()).pages)
        return read_journal(pages, writer="ghattempt-app", repository_id=self.repository_id,
                            writer_id=APP_DB_ID, request_key=request_key), pages

    def check_runs(self, sha: str) -> list[dict[str, Any]]:
        r = httpx.get(f"{self.url}/repos/{REPO}/commits/{sha}/check-runs",
                      headers={"authorization": "token ghp_alice"}, timeout=10)
        return r.json()["check_runs"]  # type: ignore[no-any-return]

    def commit(self, path: str, data: bytes) -> str:
        head = self.pull().head_oid
        c = self.gh.create_commit_on_branch(REPO, "feature", expected_head_oid=head,
                                            headline=f"change {path}", additions={path: data})
        return c.oid


@contextlib.contextmanager
def running_emulator(workdir: Path, fixture: dict[str, Any]) -> Iterator[Emu]:
    """``python -m ghattempt.emulator serve`` on ``fixture`` (its database and log in
    ``workdir``), with alice's client; terminated at the end."""
    from ghattempt.github import GitHubProvider, ProviderConfig, TokenAuth

    fx = workdir / "fixture.json"
    fx.write_text(json.dumps(fixture))
    err = (workdir / "emulator.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ghattempt.emulator", "serve", "--port", "0",
         "--db", str(workdir / "emu.db"), "--fixture", str(fx)],
        stdout=subprocess.PIPE, stderr=err, cwd=ROOT)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode()
    assert line.startswith("listening on "), line
    url = line.split()[-1]
    gh = GitHubProvider(ProviderConfig(auth=TokenAuth("ghp_alice"), base_url=url + "/",
                                       mutation_interval=0.0, timeout=10))
    try:
        yield Emu(url, proc, gh, gh.repository("octo-org", "widgets").id)
    finally:
        gh.close()
        proc.terminate()
        proc.wait(10)
        err.close()


@pytest.fixture
def emu(tmp_path: Path, rsa_pem: tuple[Path, str]) -> Iterator[Emu]:
    with running_emulator(tmp_path, app_fixture(rsa_pem[1])) as running:
        yield running
