"""The verify recipes of docs/run.md ("Recipes"), run as ``run`` runs a verify (a
``run:`` step's default shell, ``ghattempt.work.run_verify``) against local stand-ins on
127.0.0.1: each answers present (exit 0), absent (exit 1) and cannot tell (any other
exit) where the recipe says it does."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ghattempt.work import Script, run_verify

pytestmark = pytest.mark.network
DOCS = Path(__file__).resolve().parents[2] / "docs" / "run.md"


def recipe(title: str) -> str:
    """The bash block right after the bold ``title`` in docs/run.md's recipes."""
    text = DOCS.read_text()
    at = text.index(f"**{title}**", text.index("### Recipes"))
    match = re.compile(r"```bash\n(.*?)```", re.S).search(text, at)
    assert match is not None, title
    return match.group(1)


class Stand:
    """A registry stand-in: each path answers what the test put there."""

    def __init__(self) -> None:
        self.answers: dict[str, tuple[int, bytes, dict[str, str]]] = {}
        stand = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self, body: bool) -> None:
                status, data, headers = stand.answers.get(self.path, (404, b"{}", {}))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self.answer(True)

            def do_HEAD(self) -> None:  # noqa: N802
                self.answer(False)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def put(self, path: str, status: int, body: Any = b"", **headers: str) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.answers[path] = (status, data, headers)


@pytest.fixture
def stand() -> Iterator[Stand]:
    s = Stand()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


def verify(title: str, cwd: Path, **env: str) -> tuple[str, int]:
    clean = {k: v for k, v in os.environ.items()
             if k.lower() not in ("http_proxy", "https_proxy", "all_proxy")
             and not k.startswith(("GITHUB_", "GHATTEMPT_"))}
    clean.update(NO_PROXY="127.0.0.1", no_proxy="127.0.0.1", **env)
    result = run_verify(Script(recipe(title)), env=clean, working_directory=str(cwd))
    return result.outcome, result.work.exit_code


def test_npm(stand: Stand, tmp_path: Path) -> None:
    env = {"NPM_REGISTRY": stand.url, "PACKAGE": "@octo/widgets", "VERSION": "1.2.0"}
    assert verify("npm", tmp_path, **env) == ("absent", 1)
    stand.put("/@octo%2fwidgets/1.2.0", 200, {"version": "1.2.0"})
    assert verify("npm", tmp_path, **env) == ("present", 0)
    stand.put("/@octo%2fwidgets/1.2.0", 503)
    assert verify("npm", tmp_path, **env) == ("neither", 3)
    assert verify("npm", tmp_path, **{**env, "NPM_REGISTRY": "http://127.0.0.1:9"}) == (
        "neither", 3)


def test_pypi(stand: Stand, tmp_path: Path) -> None:
    env = {"PYPI_URL": stand.url, "PACKAGE": "widgets", "VERSION": "1.2.0"}
    (tmp_path / "dist").mkdir()
    wheel = b"wheel bytes"
    (tmp_path / "dist" / "widgets-1.2.0-py3-none-any.whl").write_bytes(wheel)
    assert verify("PyPI", tmp_path, **env) == ("absent", 1)
    files = [{"filename": "widgets-1.2.0-py3-none-any.whl",
              "digests": {"sha256": hashlib.sha256(wheel).hexdigest()}}]
    stand.put("/pypi/widgets/1.2.0/json", 200, {"urls": files})
    assert verify("PyPI", tmp_path, **env) == ("present", 0)
    files[0]["digests"]["sha256"] = "0" * 64
    stand.put("/pypi/widgets/1.2.0/json", 200, {"urls": files})
    assert verify("PyPI", tmp_path, **env) == ("neither", 3)
    stand.put("/pypi/widgets/1.2.0/json", 500)
    assert verify("PyPI", tmp_path, **env) == ("neither", 3)


def test_crates_io(stand: Stand, tmp_path: Path) -> None:
    env = {"CRATES_API": stand.url, "CRATE": "widgets", "VERSION": "1.2.0"}
    assert verify("crates.io", tmp_path, **env) == ("absent", 1)
    crate = b"crate bytes"
    (tmp_path / "target" / "package").mkdir(parents=True)
    (tmp_path / "target" / "package" / "widgets-1.2.0.crate").write_bytes(crate)
    path = "/api/v1/crates/widgets/1.2.0"
    stand.put(path, 200, {"version": {"checksum": hashlib.sha256(crate).hexdigest()}})
    assert verify("crates.io", tmp_path, **env) == ("present", 0)
    stand.put(path, 200, {"version": {"checksum": "0" * 64}})
    assert verify("crates.io", tmp_path, **env) == ("neither", 3)
    stand.put(path, 200, {"unexpected": True})
    assert verify("crates.io", tmp_path, **env) == ("neither", 3)


def test_a_container_registry(stand: Stand, tmp_path: Path) -> None:
    digest = "sha256:" + "ab" * 32
    env = {"REGISTRY_URL": stand.url, "IMAGE": "octo-org/widgets", "TAG": "1.2.0",
           "EXPECTED_DIGEST": digest}
    assert verify("A container registry", tmp_path, **env) == ("absent", 1)
    path = "/v2/octo-org/widgets/manifests/1.2.0"
    stand.put(path, 200, b"", **{"Docker-Content-Digest": digest})
    assert verify("A container registry", tmp_path, **env) == ("present", 0)
    stand.put(path, 200, b"", **{"Docker-Content-Digest": "sha256:" + "cd" * 32})
    assert verify("A container registry", tmp_path, **env) == ("neither", 3)
    stand.put(path, 401)
    assert verify("A container registry", tmp_path, **env) == ("neither", 3)


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True, env={**os.environ, "GIT_AUTHOR_NAME": "t",
                                          "GIT_AUTHOR_EMAIL": "t@example.com",
                                          "GIT_COMMITTER_NAME": "t",
                                          "GIT_COMMITTER_EMAIL": "t@example.com"}
                          ).stdout.strip()


def test_a_git_tag(tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    remote.mkdir()
    git("init", "-q", "-b", "main", cwd=remote)
    git("commit", "-q", "--allow-empty", "-m", "one", cwd=remote)
    first = git("rev-parse", "HEAD", cwd=remote)
    git("commit", "-q", "--allow-empty", "-m", "two", cwd=remote)
    env = {"REMOTE": str(remote), "TAG": "v1.2.0", "EXPECTED_SHA": first}
    assert verify("A Git tag", tmp_path, **env) == ("absent", 1)
    git("tag", "-a", "v1.2.0", "-m", "release", first, cwd=remote)  # annotated: peeled
    assert verify("A Git tag", tmp_path, **env) == ("present", 0)
    git("tag", "v1.3.0", cwd=remote)  # lightweight, on the other commit
    assert verify("A Git tag", tmp_path, **{**env, "TAG": "v1.3.0"}) == ("neither", 3)
    assert verify("A Git tag", tmp_path, **{**env, "REMOTE": str(tmp_path / "gone")}) == (
        "neither", 3)
