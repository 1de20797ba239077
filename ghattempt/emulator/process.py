"""Run the emulator in its own process, for tests whose clients are other processes.

>>> with EmulatorProcess(db="/tmp/emu.db") as emu:   # doctest: +SKIP
...     emu.url                                      # http://127.0.0.1:PORT
...     emu.add_fault({"kind": "lose_response", "operation": "addDiscussionComment"})

``restart()`` stops and starts it on the same database (a new port). The process is
``python -m ghattempt.emulator serve``; only the process this object started is ever
signalled.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from .fixture import DEFAULT_FIXTURE


class EmulatorProcess:
    """An emulator server in a child process.

    Args:
        db: SQLite file (default: a new file in a temporary directory).
        fixture: a fixture dict or a TOML/JSON path (default ``DEFAULT_FIXTURE``).
        server_url: the web URL objects' ``url`` fields start with.
        startup_timeout: seconds to wait for the "listening on" line.
        fidelity: fidelity switches set at every start (``serve --fidelity``).

    Raises:
        RuntimeError: the child exited or printed something else instead of its URL.
    """

    def __init__(
        self,
        db: str | Path | None = None,
        fixture: dict[str, Any] | str | Path | None = None,
        *,
        server_url: str = "https://github.com",
        startup_timeout: float = 30.0,
        fidelity: dict[str, Any] | None = None,
    ) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="ghattempt-emulator-")
        self.db = Path(db) if db is not None else Path(self._tmp.name) / "emulator.db"
        if fixture is None or isinstance(fixture, dict):
            path = Path(self._tmp.name) / "fixture.json"
            path.write_text(json.dumps(fixture if fixture is not None else DEFAULT_FIXTURE))
            self.fixture = path
        else:
            self.fixture = Path(fixture)
        self.server_url = server_url
        self.startup_timeout = startup_timeout
        self.fidelity = dict(fidelity or {})
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> EmulatorProcess:
        argv = [
            sys.executable, "-m", "ghattempt.emulator", "serve", "--port", "0",
            "--db", str(self.db), "--fixture", str(self.fixture),
            "--server-url", self.server_url,
            *(a for k, v in self.fidelity.items()
              for a in ("--fidelity", f"{k}={str(v).lower() if isinstance(v, bool) else v}")),
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.stop()
            raise RuntimeError(f"emulator did not start: {line!r}")
        self.url = line.split()[-1]
        return self

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()
            self.proc = None

    def restart(self) -> EmulatorProcess:
        self.stop()
        return self.start()

    def admin(self, method: str, path: str, body: Any = None) -> Any:
        """Call an ``/_emulator/...`` route; returns the decoded JSON answer.

        Raises:
            httpx.HTTPStatusError: the emulator refused the request.
        """
        response = httpx.request(method, f"{self.url}/_emulator/{path}", json=body, timeout=10)
        response.raise_for_status()
        return response.json()

    def add_fault(self, rule: dict[str, Any]) -> int:
        return int(self.admin("POST", "faults", rule)["ids"][0])

    def clear_faults(self) -> None:
        self.admin("DELETE", "faults")

    def set_fidelity(self, changes: dict[str, Any]) -> dict[str, Any]:
        """Turn fidelity switches on or off in the running server (until it stops);
        returns the switches in force."""
        result: dict[str, Any] = self.admin("POST", "fidelity", changes)["fidelity"]
        return result

    def state(self) -> dict[str, Any]:
        result: dict[str, Any] = self.admin("GET", "state")
        return result

    def requests(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.admin("GET", "requests")["requests"]
        return result

    def __enter__(self) -> EmulatorProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._tmp.cleanup()
