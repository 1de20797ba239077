"""A recording :class:`~ghattempt.app.sink.JournalSink`: the test double of the store.

It writes every call (with the process that made it), and every effect once per
(intent, key), to a SQLite file, so a test can inspect what servers running in other
processes did. Like the real store,
it is idempotent by key: a second call with an applied key answers
:attr:`~ghattempt.app.sink.Outcome.ALREADY_APPLIED` and adds no effect.

Selected with ``GHATTEMPT_APP_SINK=ghattempt.app.recording:recording_sink`` and
configured by environment:

- ``GHATTEMPT_APP_RECORDING``: the SQLite file (required);
- ``GHATTEMPT_APP_RECORDING_DELAY``: seconds to wait before applying each call;
- ``GHATTEMPT_APP_RECORDING_UNAVAILABLE``: raise ``SinkUnavailable`` for the first N
  calls (counted in the file, so across restarts);
- ``GHATTEMPT_APP_RECORDING_CRASH=after-apply``: kill the process with SIGKILL right
  after an effect is committed (before the server can mark the delivery done).

Not for production: it writes nothing to GitHub.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from ghattempt.app.settings import AppSettings, ConfigurationError
from ghattempt.app.sink import (
    CancelAttempt,
    IntentRef,
    OpenIntent,
    Outcome,
    PhaseResult,
    SinkRequest,
    SinkResult,
    SinkUnavailable,
    SupersedeAndAdmit,
    TamperingReport,
)

__all__ = ["RecordingSink", "read_calls", "read_effects", "recording_sink"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT, method TEXT NOT NULL, scope TEXT NOT NULL,
    key TEXT NOT NULL, outcome TEXT NOT NULL, request TEXT NOT NULL, at REAL NOT NULL,
    pid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS effects (
    id INTEGER PRIMARY KEY AUTOINCREMENT, method TEXT NOT NULL, scope TEXT NOT NULL,
    key TEXT NOT NULL, request TEXT NOT NULL, UNIQUE (scope, key));
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


def _scope(intent: IntentRef) -> str:
    return f"{intent.repository_id}#{intent.pull_request}@{intent.base_ref}"


class RecordingSink:
    """Records calls and effects in ``path`` (see the module docstring)."""

    def __init__(
        self,
        path: Path,
        *,
        delay: float = 0.0,
        unavailable: int = 0,
        crash_after_apply: bool = False,
    ) -> None:
        self.path = path
        self.delay = delay
        self.unavailable = unavailable
        self.crash_after_apply = crash_after_apply
        self._lock = threading.Lock()
        # one connection for the sink's life: closing the last connection of a WAL
        # database checkpoints it, which would cost more than the write itself
        self._conn = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL: a committed effect survives the process being killed (the tests'
        # crash); only an operating-system crash could lose the last ones
        self._conn.execute("PRAGMA synchronous=NORMAL")
        with self._conn:
            self._conn.executescript(_SCHEMA)

    def _apply(self, method: str, scope: str, request: SinkRequest) -> SinkResult:
        if self.delay:
            time.sleep(self.delay)
        body = json.dumps(dataclasses.asdict(request), sort_keys=True)
        with self._lock, self._conn as conn:
            if self._take_outage(conn):
                conn.execute(
                    "INSERT INTO calls (method, scope, key, outcome, request, at, pid) "
                    "VALUES (?, ?, ?, 'unavailable', ?, ?, ?)",
                    (method, scope, request.key, body, time.time(), os.getpid()),
                )
                outcome = None
            else:
                cur = conn.execute(
                    "INSERT INTO effects (method, scope, key, request) VALUES "
                    "(?, ?, ?, ?) ON CONFLICT (scope, key) DO NOTHING",
                    (method, scope, request.key, body),
                )
                outcome = Outcome.APPLIED if cur.rowcount == 1 else Outcome.ALREADY_APPLIED
                conn.execute(
                    "INSERT INTO calls (method, scope, key, outcome, request, at, pid) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (method, scope, request.key, outcome.value, body, time.time(),
                     os.getpid()),
                )
        if outcome is None:
            raise SinkUnavailable("recording sink: simulated outage")
        if self.crash_after_apply and outcome is Outcome.APPLIED:
            os.kill(os.getpid(), signal.SIGKILL)
        return SinkResult(outcome)

    def _take_outage(self, conn: sqlite3.Connection) -> bool:
        """Whether this call is one of the first ``unavailable`` ones (counted in the file)."""
        if not self.unavailable:
            return False
        row = conn.execute("SELECT value FROM counters WHERE name = 'unavailable'").fetchone()
        seen = row[0] if row else 0
        if seen >= self.unavailable:
            return False
        conn.execute(
            "INSERT INTO counters VALUES ('unavailable', ?) ON CONFLICT (name) "
            "DO UPDATE SET value = excluded.value",
            (seen + 1,),
        )
        return True

    def open_intent(self, request: OpenIntent) -> SinkResult:
        """Record an admission."""
        return self._apply("open_intent", _scope(request.intent), request)

    def supersede_and_admit(self, request: SupersedeAndAdmit) -> SinkResult:
        """Record a supersession and admission."""
        return self._apply("supersede_and_admit", _scope(request.admit), request)

    def record_phase(self, request: PhaseResult) -> SinkResult:
        """Record a phase result."""
        return self._apply("record_phase", _scope(request.intent), request)

    def cancel(self, request: CancelAttempt) -> SinkResult:
        """Record a cancellation."""
        return self._apply("cancel", _scope(request.intent), request)

    def report_tampering(self, request: TamperingReport) -> SinkResult:
        """Record a tampering report."""
        scope = f"{request.repository_id}/discussions/{request.discussion_number}"
        return self._apply("report_tampering", scope, request)


def recording_sink(settings: AppSettings) -> RecordingSink:
    """Build a :class:`RecordingSink` from the ``GHATTEMPT_APP_RECORDING*`` variables.

    Raises:
        ConfigurationError: ``GHATTEMPT_APP_RECORDING`` is unset or a value is malformed.
    """
    path = os.environ.get("GHATTEMPT_APP_RECORDING", "")
    if not path:
        raise ConfigurationError("GHATTEMPT_APP_RECORDING is not set: name the recording file")
    try:
        delay = float(os.environ.get("GHATTEMPT_APP_RECORDING_DELAY", "") or 0)
        unavailable = int(os.environ.get("GHATTEMPT_APP_RECORDING_UNAVAILABLE", "") or 0)
    except ValueError:
        raise ConfigurationError(
            "GHATTEMPT_APP_RECORDING_DELAY must be seconds and "
            "GHATTEMPT_APP_RECORDING_UNAVAILABLE an integer"
        ) from None
    crash = os.environ.get("GHATTEMPT_APP_RECORDING_CRASH", "")
    if crash not in ("", "after-apply"):
        raise ConfigurationError("GHATTEMPT_APP_RECORDING_CRASH must be 'after-apply' or unset")
    return RecordingSink(
        Path(path), delay=delay, unavailable=unavailable, crash_after_apply=crash == "after-apply"
    )


def _rows(path: Path, sql: str) -> list[dict[str, Any]]:
    conn = sqlite3.connect(path, timeout=10)
    try:
        conn.row_factory = sqlite3.Row
        return [
            {**dict(r), "request": json.loads(r["request"])} for r in conn.execute(sql).fetchall()
        ]
    finally:
        conn.close()


def read_effects(path: Path) -> list[dict[str, Any]]:
    """Every effect recorded in ``path``, in order: ``{method, scope, key, request}``."""
    return _rows(path, "SELECT method, scope, key, request FROM effects ORDER BY id")


def read_calls(path: Path) -> list[dict[str, Any]]:
    """Every call recorded in ``path``, in order: ``{method, scope, key, outcome, request,
    pid}`` (``pid``: the process that made it)."""
    return _rows(path, "SELECT method, scope, key, outcome, request, pid FROM calls "
                       "ORDER BY id")
