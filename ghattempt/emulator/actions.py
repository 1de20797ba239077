"""GitHub Actions workflow runs, their attempts and jobs, as the REST API serves them.

The emulator runs no workflows: a test registers a run (admin), which has attempts
(``run_attempt`` 1, 2, ... for re-runs), each with jobs; it starts them and ends them.
REST (GitHub docs, "REST API endpoints for workflow runs" and "... for workflow jobs"):

- ``GET /repos/{o}/{r}/actions/runs/{run_id}``: the run as its latest attempt shows it;
- ``GET .../actions/runs/{run_id}/attempts/{attempt_number}``: that attempt;
- ``GET .../actions/runs/{run_id}/attempts/{attempt_number}/jobs``: ``{total_count,
  jobs}`` (``per_page`` at most 100, ``page``);
- ``GET .../actions/jobs/{job_id}``: one job.

``status`` is one of ``requested``, ``queued``, ``in_progress``, ``waiting``,
``pending``, ``completed``; ``conclusion`` (null until completed) one of ``success``,
``failure``, ``neutral``, ``cancelled``, ``skipped``, ``timed_out``,
``action_required``. A token that carries permissions (an App's, a ``GITHUB_TOKEN``) needs
``actions: read``: without it, 403 "Resource not accessible by integration" (GitHub
docs, the endpoints' "Fine-grained access tokens" sections: "Actions" repository
permissions, read). An unknown run, attempt or job: 404.

Admin (GitHub has no such routes): ``POST /_emulator/runs`` registers a run (``repository``,
``run_id``, ``path``, ``name``, ``head_sha``, optional ``status`` (default ``completed``,
as before runs had states), ``conclusion``, ``jobs`` (names), ``event``, ``head_branch``);
``POST /_emulator/runs/{run_id}/attempts`` starts a re-run (a new attempt, ``jobs``);
``POST /_emulator/runs/{run_id}/end`` ends the latest attempt (``conclusion``; its
unfinished jobs end ``cancelled`` when the run is cancelled, else with the same
conclusion); ``POST /_emulator/jobs/{job_id}`` sets one job's ``status`` and
``conclusion``. Each takes ``repository`` (``owner/name``).
"""

from __future__ import annotations

import json
from typing import Any

from . import errors as gh
from .exchange import paged
from .ids import node_id
from .state import State, iso

STATUSES = ("requested", "queued", "in_progress", "waiting", "pending", "completed")
CONCLUSIONS = ("success", "failure", "neutral", "cancelled", "skipped", "timed_out",
               "action_required")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS workflow_runs (
  repo_id INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT NOT NULL, path TEXT NOT NULL,
  head_sha TEXT NOT NULL, head_branch TEXT, event TEXT NOT NULL,
  run_number INTEGER NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (repo_id, id));
CREATE TABLE IF NOT EXISTS run_attempts (
  repo_id INTEGER NOT NULL, run_id INTEGER NOT NULL, attempt INTEGER NOT NULL,
  status TEXT NOT NULL, conclusion TEXT, started_at REAL NOT NULL, updated_at REAL NOT NULL,
  PRIMARY KEY (repo_id, run_id, attempt));
CREATE TABLE IF NOT EXISTS workflow_jobs (
  id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, run_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, conclusion TEXT,
  created_at REAL NOT NULL, started_at REAL, completed_at REAL);
"""


def setup(state: State) -> None:
    """Create the tables (idempotent)."""
    with state.lock:
        state.db.executescript(_SCHEMA)


def _check(status: str, conclusion: str | None) -> None:
    if status not in STATUSES:
        raise ValueError(f"run status must be one of {STATUSES}, not {status!r}")
    if conclusion is not None and conclusion not in CONCLUSIONS:
        raise ValueError(f"conclusion must be one of {CONCLUSIONS}, not {conclusion!r}")
    if (status == "completed") != (conclusion is not None):
        raise ValueError("a completed run or job has a conclusion, and only a completed one")


def add_run(state: State, repo_id: int, run_id: int, *, path: str, name: str, head_sha: str,
            now: float, status: str = "completed", conclusion: str | None = None,
            jobs: list[str] | tuple[str, ...] = (), event: str = "push",
            head_branch: str | None = None) -> None:
    """Register run ``run_id`` with its first attempt and its ``jobs`` (names); a
    completed run without a ``conclusion`` concluded ``success``.

    A run registered again under the same id replaces the first.

    Raises:
        ValueError: an unknown status or conclusion.
    """
    if status == "completed" and conclusion is None:
        conclusion = "success"
    _check(status, conclusion)
    with state.transaction() as db:
        for table, column in (("workflow_runs", "id"), ("run_attempts", "run_id"),
                              ("workflow_jobs", "run_id")):  # registered again: replaced
            db.execute(f"DELETE FROM {table} WHERE repo_id = ? AND {column} = ?",  # noqa: S608
                       (repo_id, run_id))
        number = db.execute("SELECT COUNT(*) FROM workflow_runs WHERE repo_id = ?",
                            (repo_id,)).fetchone()[0] + 1
        db.execute("INSERT INTO workflow_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (repo_id, run_id, name, path, head_sha, head_branch, event, number, now))
        _attempt(state, repo_id, run_id, 1, status, conclusion, jobs, now)


def _attempt(state: State, repo_id: int, run_id: int, attempt: int, status: str,
             conclusion: str | None, jobs: Any, now: float) -> None:
    """An attempt and its jobs (job ids from the emulator's id counter, large like
    GitHub's); the caller holds a transaction."""
    db = state.db
    db.execute("INSERT INTO run_attempts VALUES (?, ?, ?, ?, ?, ?, ?)",
               (repo_id, run_id, attempt, status, conclusion, now, now))
    for job in jobs:
        db.execute("INSERT INTO workflow_jobs (id, repo_id, run_id, attempt, name, status, "
                   "conclusion, created_at, started_at, completed_at) VALUES "
                   "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (state.next_id(), repo_id, run_id, attempt, str(job), status, conclusion,
                    now,
                    None if status in ("queued", "requested", "waiting", "pending") else now,
                    now if status == "completed" else None))


def _latest(state: State, repo_id: int, run_id: int) -> Any:
    return state.one("SELECT * FROM run_attempts WHERE repo_id = ? AND run_id = ? "
                     "ORDER BY attempt DESC LIMIT 1", repo_id, run_id)


def rerun(state: State, repo_id: int, run_id: int, jobs: list[str], now: float) -> int:
    """Start the run's next attempt (a re-run), in progress; returns its number.

    Raises:
        ValueError: no such run, or its latest attempt has not completed.
    """
    latest = _latest(state, repo_id, run_id)
    if latest is None:
        raise ValueError(f"no run {run_id}")
    if latest["status"] != "completed":
        raise ValueError(f"run {run_id} attempt {latest['attempt']} has not completed")
    with state.transaction():
        _attempt(state, repo_id, run_id, int(latest["attempt"]) + 1, "in_progress", None,
                 jobs, now)
    return int(latest["attempt"]) + 1


def end_run(state: State, repo_id: int, run_id: int, conclusion: str, now: float) -> None:
    """End the run's latest attempt with ``conclusion`` (``cancelled``: its unfinished
    jobs are cancelled too; otherwise they end with the same conclusion).

    Raises:
        ValueError: no such run, an unknown conclusion.
    """
    _check("completed", conclusion)
    latest = _latest(state, repo_id, run_id)
    if latest is None:
        raise ValueError(f"no run {run_id}")
    with state.transaction() as db:
        db.execute("UPDATE run_attempts SET status = 'completed', conclusion = ?, "
                   "updated_at = ? WHERE repo_id = ? AND run_id = ? AND attempt = ?",
                   (conclusion, now, repo_id, run_id, latest["attempt"]))
        db.execute("UPDATE workflow_jobs SET status = 'completed', conclusion = ?, "
                   "completed_at = ?, started_at = coalesce(started_at, ?) WHERE repo_id = ? "
                   "AND run_id = ? AND attempt = ? AND status != 'completed'",
                   (conclusion, now, now, repo_id, run_id, latest["attempt"]))


def set_job(state: State, job_id: int, status: str, conclusion: str | None,
            now: float) -> None:
    """Set a job's ``status`` (and ``conclusion`` when completed).

    Raises:
        ValueError: no such job, a bad status or conclusion.
    """
    _check(status, conclusion)
    with state.transaction() as db:
        row = db.execute("SELECT * FROM workflow_jobs WHERE id = ?", (job_id,)).fetchone()
        if row is None:
            raise ValueError(f"no job {job_id}")
        db.execute("UPDATE workflow_jobs SET status = ?, conclusion = ?, "
                   "started_at = coalesce(started_at, ?), completed_at = ? WHERE id = ?",
                   (status, conclusion,
                    None if status in ("queued", "requested", "waiting", "pending") else now,
                    now if status == "completed" else None, job_id))


def _run_json(api: str, web: str, full: str, run: Any, attempt: Any) -> dict[str, Any]:
    """GitHub's ``workflow-run`` object (the fields a client reads to follow a run)."""
    base = f"{api}/repos/{full}/actions/runs/{run['id']}"
    return {
        "id": run["id"], "name": run["name"],
        "node_id": node_id("WorkflowRun", int(run["repo_id"]), int(run["id"])),
        "head_branch": run["head_branch"], "head_sha": run["head_sha"], "path": run["path"],
        "display_title": run["name"], "run_number": run["run_number"], "event": run["event"],
        "status": attempt["status"], "conclusion": attempt["conclusion"],
        "run_attempt": attempt["attempt"], "url": base,
        "html_url": f"{web}/{full}/actions/runs/{run['id']}",
        "jobs_url": f"{base}/jobs", "created_at": iso(run["created_at"]),
        "updated_at": iso(attempt["updated_at"]),
        "run_started_at": iso(attempt["started_at"]),
        "previous_attempt_url": (f"{base}/attempts/{attempt['attempt'] - 1}"
                                 if attempt["attempt"] > 1 else None),
    }


def _job_json(api: str, web: str, full: str, run: Any, job: Any) -> dict[str, Any]:
    """GitHub's ``job`` object."""
    return {
        "id": job["id"], "run_id": job["run_id"],
        "run_url": f"{api}/repos/{full}/actions/runs/{job['run_id']}",
        "run_attempt": job["attempt"],
        "node_id": node_id("CheckRun", int(job["repo_id"]), int(job["id"])),
        "head_sha": run["head_sha"], "head_branch": run["head_branch"],
        "url": f"{api}/repos/{full}/actions/jobs/{job['id']}",
        "html_url": f"{web}/{full}/actions/runs/{job['run_id']}/job/{job['id']}",
        "status": job["status"], "conclusion": job["conclusion"],
        "created_at": iso(job["created_at"]), "started_at": iso(job["started_at"]),
        "completed_at": iso(job["completed_at"]), "name": job["name"],
        "workflow_name": run["name"], "steps": [], "labels": ["ubuntu-latest"],
        "runner_id": None, "runner_name": None, "runner_group_id": None,
        "runner_group_name": None,
    }


NOT_FOUND = json.loads(gh.rest_body("Not Found", 404))


def rest(emu: Any, req: Any, repo: Any, rest: list[str]) -> tuple[str, Any] | None:
    """The Actions routes: (operation name, a callable answering (status, body)), or None
    for another path."""
    if req.method != "GET" or rest[:1] != ["actions"]:
        return None
    rid = int(repo["id"])
    owner = emu.state.actor(int(repo["owner_id"]))
    full = f"{owner['login']}/{repo['name']}"

    def allowed() -> tuple[int, Any] | None:
        if req.viewer["kind"] == "Bot" and req.token["actions"] == "none":
            return 403, json.loads(gh.rest_body("Resource not accessible by integration", 403))
        return None

    def run_row(run_id: str) -> Any:
        return emu.state.one("SELECT * FROM workflow_runs WHERE repo_id = ? AND id = ?",
                             rid, int(run_id)) if run_id.isdigit() else None

    def attempt_row(run_id: str, number: str | None) -> Any:
        if number is None:
            return _latest(emu.state, rid, int(run_id))
        return emu.state.one("SELECT * FROM run_attempts WHERE repo_id = ? AND run_id = ? "
                             "AND attempt = ?", rid, int(run_id), int(number)) \
            if number.isdigit() else None

    def one_run(run_id: str, number: str | None = None) -> tuple[int, Any]:
        refused = allowed()
        if refused is not None:
            return refused
        run = run_row(run_id)
        attempt = attempt_row(run_id, number) if run is not None else None
        if attempt is None:
            return 404, NOT_FOUND
        return 200, _run_json(emu.api_url, emu.server_url, full, run, attempt)

    def jobs(run_id: str, number: str) -> tuple[int, Any]:
        refused = allowed()
        if refused is not None:
            return refused
        run = run_row(run_id)
        if run is None or attempt_row(run_id, number) is None:
            return 404, NOT_FOUND
        rows = emu.state.all("SELECT * FROM workflow_jobs WHERE repo_id = ? AND run_id = ? "
                             "AND attempt = ? ORDER BY id", rid, int(run_id), int(number))
        window = paged(req.query, rows)
        return 200, {"total_count": len(rows),
                     "jobs": [_job_json(emu.api_url, emu.server_url, full, run, j)
                              for j in window]}

    def one_job(job_id: str) -> tuple[int, Any]:
        refused = allowed()
        if refused is not None:
            return refused
        job = emu.state.one("SELECT * FROM workflow_jobs WHERE repo_id = ? AND id = ?", rid,
                            int(job_id)) if job_id.isdigit() else None
        run = run_row(str(job["run_id"])) if job is not None else None
        if job is None or run is None:
            return 404, NOT_FOUND
        return 200, _job_json(emu.api_url, emu.server_url, full, run, job)

    if len(rest) == 3 and rest[1] == "runs":
        return "actions/get-workflow-run", lambda: one_run(rest[2])
    if len(rest) == 5 and rest[1] == "runs" and rest[3] == "attempts":
        return "actions/get-workflow-run-attempt", lambda: one_run(rest[2], rest[4])
    if len(rest) == 6 and rest[1] == "runs" and rest[3] == "attempts" and rest[5] == "jobs":
        return ("actions/list-jobs-for-workflow-run-attempt",
                lambda: jobs(rest[2], rest[4]))
    if len(rest) == 3 and rest[1] == "jobs":
        return "actions/get-job-for-workflow-run", lambda: one_job(rest[2])
    return None


def jobs_of(state: State, repo_id: int, run_id: int, attempt: int) -> list[dict[str, Any]]:
    """The jobs of one attempt (``id``, ``name``, ``status``), for admin answers."""
    return [{"id": r["id"], "name": r["name"], "status": r["status"]} for r in state.all(
        "SELECT * FROM workflow_jobs WHERE repo_id = ? AND run_id = ? AND attempt = ? "
        "ORDER BY id", repo_id, run_id, attempt)]


__all__ = ["CONCLUSIONS", "STATUSES", "add_run", "end_run", "jobs_of", "rerun", "rest",
           "set_job", "setup"]
