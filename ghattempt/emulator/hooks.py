"""A GitHub App's webhook deliveries: GitHub delivering, its delivery log, redelivery.

GitHub POSTs each event to the App's webhook URL, signed with the webhook secret,
records every attempt in the App's delivery log, keeps the log 3 days, and never
redelivers on its own; the App can list the log and ask for a redelivery (GitHub docs:
"REST API endpoints for GitHub App webhooks", "Handling failed webhook deliveries",
"Redelivering webhooks", "Troubleshooting webhooks", "Webhook events and payloads").

REST routes (the App's JWT, like ``GET /app``; :func:`ghattempt.emulator.apps.verify_jwt`):

- ``GET /app/hook/deliveries[?per_page=N&cursor=C&redelivery=true|false]``: 200, the
  log newest first as GitHub's ``hook-delivery-item`` objects (``id``, ``guid``,
  ``delivered_at``, ``redelivery``, ``duration``, ``status``, ``status_code``,
  ``event``, ``action``, ``installation_id``, ``repository_id``, ``throttled_at``),
  deliveries older than :data:`RETENTION` left out. ``per_page`` defaults to 30, at
  most 100 (outside 1..100: 422). While older deliveries remain, ``Link:
  <.../app/hook/deliveries?per_page=N&cursor=C>; rel="next"``; a cursor names the first
  delivery of its page (opaque to clients; one the emulator did not make: 400).
- ``POST /app/hook/deliveries/{delivery_id}/attempts``: 202 ``{}``; GitHub then sends
  the delivery again, in the background: a new log entry, new ``id``, same ``guid``
  (the ``X-GitHub-Delivery`` header), ``redelivery: true``. An unknown id, or another
  App's: 404. A delivery whose guid was first delivered more than :data:`RETENTION`
  ago: 422 (GitHub's wording for it is not documented; the emulator refuses it, the
  stricter reading of "you can redeliver webhook deliveries that occurred in the past 3
  days").

What the log records for an attempt: ``status`` ``OK`` and the ``status_code`` for a
2xx answer; ``Invalid HTTP Response: <code>`` for a 4xx or 5xx; ``timed out``
(``status_code`` 0) when no answer came within :data:`DELIVERY_TIMEOUT` (10 s, GitHub's
bound); ``failed to connect to network`` (``status_code`` 0) when the connection was
refused.

Each delivery carries GitHub's headers: ``X-GitHub-Event``, ``X-GitHub-Delivery``,
``X-GitHub-Hook-ID``, ``X-GitHub-Hook-Installation-Target-Type: integration``,
``X-GitHub-Hook-Installation-Target-ID`` (the App id), ``X-Hub-Signature`` (HMAC-SHA1)
and ``X-Hub-Signature-256`` (HMAC-SHA256 of the body), ``User-Agent:
GitHub-Hookshot/...``, ``Content-Type: application/json``.

Admin routes (GitHub has none):

- ``POST /_emulator/hooks {"app_id", "url", "secret"[, "events"]}``: the App's webhook and
  the events it subscribes to (GitHub delivers an event only to Apps subscribed to it;
  none by default, as for a new App). Of the events GitHub causes by itself, the
  emulator sends ``create`` and ``delete``: every branch or tag created or deleted through
  the API (REST ``git/refs``, GraphQL ``createRef``, ``updateRefs``, ``deleteRef``), by
  whoever wrote it, App or person, whatever its commit message says (``[skip ci]`` skips
  ``push`` and ``pull_request`` workflow runs only: GitHub docs, "Skipping workflow
  runs"), delivered in the background as GitHub delivers (GitHub docs, "Webhook events
  and payloads", ``create`` and ``delete``);
- ``POST /_emulator/hooks/deliveries {"app_id", "event", "payload"[, "guid"]}``: an event
  happens; GitHub delivers it now; the answer is its log entry;
- ``GET /_emulator/hooks/deliveries``: the whole log, oldest first, with each
  attempt's answer body.

:func:`route` answers these paths and ``None`` for every other one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
import time
import urllib.parse
import uuid
from typing import Any

import httpx

from . import apps
from . import errors as gh
from .state import State, iso

__all__ = ["DELIVERY_TIMEOUT", "RETENTION", "deliver", "ref_events", "route"]

RETENTION = 3 * 24 * 3600
"""Seconds GitHub keeps an App's deliveries listed and redeliverable (3 days on
github.com; GitHub Enterprise Server keeps 7)."""
DELIVERY_TIMEOUT = 10.0
"""Seconds GitHub waits for the webhook's answer ("Troubleshooting webhooks": "Timed
out")."""
PER_PAGE_DEFAULT = 30
PER_PAGE_MAX = 100
HOOKSHOT = "GitHub-Hookshot/emulator"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS app_hooks (
  app_id INTEGER PRIMARY KEY, url TEXT NOT NULL, secret TEXT NOT NULL,
  events TEXT NOT NULL DEFAULT '[]');
CREATE TABLE IF NOT EXISTS hook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT, app_id INTEGER NOT NULL, guid TEXT NOT NULL,
  delivered_at REAL NOT NULL, redelivery INTEGER NOT NULL, duration REAL NOT NULL,
  status TEXT NOT NULL, status_code INTEGER NOT NULL, event TEXT NOT NULL, action TEXT,
  installation_id INTEGER, repository_id INTEGER, url TEXT NOT NULL,
  payload TEXT NOT NULL, response TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS hook_deliveries_guid ON hook_deliveries (app_id, guid);
"""
_CURSOR = re.compile(r"v1_([0-9]{1,18})")


def _setup(state: State) -> None:
    """Create the tables on first use (idempotent)."""
    if state.one("SELECT 1 FROM sqlite_master WHERE name = 'hook_deliveries'") is None:
        with state.transaction() as db:
            for statement in (s.strip() for s in _SCHEMA.split(";")):
                if statement:
                    db.execute(statement)
    with state.lock:
        have = {r["name"] for r in state.db.execute("PRAGMA table_info(app_hooks)")}
        if "events" not in have:  # a database made before subscriptions were kept
            state.db.execute("ALTER TABLE app_hooks ADD COLUMN events TEXT NOT NULL "
                             "DEFAULT '[]'")


def ref_events(emu: Any, changes: list[tuple[int, str, str]], sender: Any) -> None:
    """GitHub's ``create`` and ``delete`` events for refs a request created or deleted
    (repository id, full ref name, ``create``/``delete``), sent in the background to every
    App whose webhook subscribes to them. Only branches and tags have such events."""
    if not changes:
        return
    state: State = emu.state
    _setup(state)
    hooks = state.all("SELECT * FROM app_hooks")
    for repo_id, ref, action in changes:
        kind = ("branch" if ref.startswith("refs/heads/") else
                "tag" if ref.startswith("refs/tags/") else None)
        if kind is None:
            continue
        for hook in hooks:
            if action not in json.loads(hook["events"]):
                continue
            payload = _ref_payload(state, int(hook["app_id"]), repo_id, ref, kind, action,
                                   sender)
            if payload is not None:
                threading.Thread(target=_deliver_quietly,
                                 args=(emu, int(hook["app_id"]), action, payload),
                                 name="emulator-ref-event", daemon=True).start()


def _deliver_quietly(emu: Any, app_id: int, event: str, payload: dict[str, Any]) -> None:
    try:
        deliver(emu, app_id, event, payload)
    except Exception:  # noqa: BLE001 - a hook removed meanwhile, a closed database
        return


def _ref_payload(state: State, app_id: int, repo_id: int, ref: str, kind: str, action: str,
                 sender: Any) -> dict[str, Any] | None:
    """The ``create``/``delete`` payload (GitHub docs, "Webhook events and payloads")."""
    repo = state.repository(repo_id)
    owner = state.actor(int(repo["owner_id"])) if repo is not None else None
    if repo is None or owner is None:
        return None
    inst = state.one("SELECT id FROM installations WHERE app_id = ? ORDER BY id", app_id)
    full = f"{owner['login']}/{repo['name']}"
    login = str(sender["login"]) + ("[bot]" if sender["kind"] == "Bot" else "")
    payload: dict[str, Any] = {
        "ref": ref.split("/", 2)[2], "ref_type": kind, "pusher_type": "user",
        "repository": {"id": repo_id, "name": repo["name"], "full_name": full,
                       "private": bool(repo["private"]),
                       "owner": {"login": owner["login"], "id": owner["id"],
                                 "type": owner["kind"]},
                       "default_branch": repo["default_branch"]},
        "sender": {"login": login, "id": sender["id"], "type": sender["kind"]},
    }
    if action == "create":
        payload["master_branch"] = repo["default_branch"]
        payload["description"] = None
    if inst is not None:
        payload["installation"] = {"id": inst["id"]}
    return payload


def _item(row: Any) -> dict[str, Any]:
    """A log row as GitHub's ``hook-delivery-item``."""
    return {
        "id": row["id"],
        "guid": row["guid"],
        "delivered_at": iso(row["delivered_at"]),
        "redelivery": bool(row["redelivery"]),
        "duration": round(float(row["duration"]), 3),
        "status": row["status"],
        "status_code": row["status_code"],
        "event": row["event"],
        "action": row["action"],
        "installation_id": row["installation_id"],
        "repository_id": row["repository_id"],
        "throttled_at": None,
    }


def _signatures(secret: str, body: bytes) -> dict[str, str]:
    key = secret.encode()
    return {
        "X-Hub-Signature": "sha1=" + hmac.new(key, body, hashlib.sha1).hexdigest(),
        "X-Hub-Signature-256": "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest(),
    }


def _number(payload: Any, *path: str) -> int | None:
    for name in path:
        payload = payload.get(name) if isinstance(payload, dict) else None
    return payload if isinstance(payload, int) and not isinstance(payload, bool) else None


def deliver(emu: Any, app_id: int, event: str, payload: dict[str, Any], *,
            guid: str | None = None, redelivery: bool = False) -> dict[str, Any]:
    """GitHub delivers ``event`` to the App's webhook now; returns the log entry.

    Raises:
        LookupError: the App has no webhook (``POST /_emulator/hooks``).
    """
    state: State = emu.state
    _setup(state)
    hook = state.one("SELECT * FROM app_hooks WHERE app_id = ?", app_id)
    if hook is None:
        raise LookupError(f"app {app_id} has no webhook: POST /_emulator/hooks first")
    guid = guid or str(uuid.uuid4())
    body = json.dumps(payload, separators=(",", ":")).encode()
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": guid,
        "X-GitHub-Hook-ID": str(app_id),
        "X-GitHub-Hook-Installation-Target-Type": "integration",
        "X-GitHub-Hook-Installation-Target-ID": str(app_id),
        "User-Agent": HOOKSHOT,
        "Content-Type": "application/json",
        **_signatures(str(hook["secret"]), body),
    }
    delivered_at = emu.clock.now()
    started = time.monotonic()
    try:
        answer = httpx.post(str(hook["url"]), content=body, headers=headers,
                            timeout=DELIVERY_TIMEOUT)
    except httpx.TimeoutException:
        status, code, response = "timed out", 0, ""
    except httpx.TransportError:
        status, code, response = "failed to connect to network", 0, ""
    else:
        code = answer.status_code
        status = "OK" if 200 <= code < 300 else f"Invalid HTTP Response: {code}"
        response = answer.text[:65536]
    duration = time.monotonic() - started
    action = payload.get("action") if isinstance(payload.get("action"), str) else None
    with state.transaction() as db:
        cur = db.execute(
            "INSERT INTO hook_deliveries (app_id, guid, delivered_at, redelivery, duration, "
            "status, status_code, event, action, installation_id, repository_id, url, "
            "payload, response) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (app_id, guid, delivered_at, int(redelivery), duration, status, code, event,
             action, _number(payload, "installation", "id"),
             _number(payload, "repository", "id"), str(hook["url"]), body.decode(), response),
        )
        row = db.execute("SELECT * FROM hook_deliveries WHERE id = ?",
                         (cur.lastrowid,)).fetchone()
    return {**_item(row), "response": row["response"]}


def _app(emu: Any, req: Any) -> tuple[Any, Any]:
    """The App the request's JWT authenticates, or ``None`` and the refusal."""
    scheme, _, credential = req.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not credential.strip():
        return None, emu._json(req, 401, gh.REQUIRES_AUTH)
    app, refusal = apps.verify_jwt(emu.state, credential.strip(), emu.clock.now())
    if app is None:
        return None, emu._json(req, *refusal)
    return app, None


def _error(emu: Any, req: Any, status: int, message: str) -> Any:
    return emu._json(req, status, gh.rest_body(message, status))


def _list(emu: Any, req: Any, app: Any) -> Any:
    query = urllib.parse.parse_qs(req.query)
    raw = query.get("per_page", [str(PER_PAGE_DEFAULT)])[0]
    if not raw.isdigit() or not 1 <= int(raw) <= PER_PAGE_MAX:
        return _error(emu, req, 422, f"per_page must be between 1 and {PER_PAGE_MAX}")
    per_page = int(raw)
    before = None
    if "cursor" in query:
        found = _CURSOR.fullmatch(query["cursor"][0])
        if found is None:
            return _error(emu, req, 400, "Bad Request")
        before = int(found.group(1))
    where = ["app_id = ?", "delivered_at >= ?"]
    args: list[Any] = [app["id"], emu.clock.now() - RETENTION]
    if before is not None:
        where.append("id <= ?")
        args.append(before)
    if "redelivery" in query:
        where.append("redelivery = ?")
        args.append(int(query["redelivery"][0] == "true"))
    rows = emu.state.all(
        f"SELECT * FROM hook_deliveries WHERE {' AND '.join(where)} "  # noqa: S608
        "ORDER BY id DESC LIMIT ?", *args, per_page + 1)
    page, rest = rows[:per_page], rows[per_page:]
    extra = {}
    if rest:
        link = (f"{emu.api_url}/app/hook/deliveries?per_page={per_page}"
                f"&cursor=v1_{rest[0]['id']}")
        extra["link"] = f'<{link}>; rel="next"'
    return emu._json(req, 200, [_item(r) for r in page], extra)


def _redeliver(emu: Any, req: Any, app: Any, ident: str) -> Any:
    row = emu.state.one("SELECT * FROM hook_deliveries WHERE id = ? AND app_id = ?",
                        int(ident) if ident.isdigit() else -1, app["id"])
    if row is None:
        return _error(emu, req, 404, "Not Found")
    first = emu.state.one("SELECT MIN(delivered_at) AS at FROM hook_deliveries WHERE "
                          "app_id = ? AND guid = ?", app["id"], row["guid"])
    if first["at"] < emu.clock.now() - RETENTION:
        return _error(emu, req, 422, "Validation Failed")
    payload = json.loads(row["payload"])
    threading.Thread(
        target=deliver, args=(emu, int(app["id"]), str(row["event"]), payload),
        kwargs={"guid": str(row["guid"]), "redelivery": True},
        name="emulator-redelivery", daemon=True).start()
    return emu._json(req, 202, {})


def _admin(emu: Any, req: Any, parts: list[str]) -> Any:
    try:
        data = json.loads(req.body) if req.body else {}
        if parts == ["hooks"] and req.method == "POST":
            events = [str(e) for e in data.get("events", [])]
            with emu.state.transaction() as db:
                db.execute("INSERT INTO app_hooks (app_id, url, secret, events) VALUES "
                           "(?, ?, ?, ?) ON CONFLICT (app_id) DO UPDATE SET url = excluded.url, "
                           "secret = excluded.secret, events = excluded.events",
                           (int(data["app_id"]), str(data["url"]), str(data["secret"]),
                            json.dumps(events)))
            return emu._json(req, 201, {"ok": True})
        if parts == ["hooks", "deliveries"] and req.method == "POST":
            entry = deliver(emu, int(data["app_id"]), str(data["event"]), dict(data["payload"]),
                            guid=data.get("guid"))
            return emu._json(req, 201, entry)
        if parts == ["hooks", "deliveries"] and req.method == "GET":
            rows = emu.state.all("SELECT * FROM hook_deliveries ORDER BY id")
            return emu._json(req, 200, {"deliveries": [
                {**_item(r), "app_id": r["app_id"], "response": r["response"]} for r in rows]})
    except (ValueError, TypeError, KeyError, LookupError) as exc:
        return emu._json(req, 400, {"message": f"bad admin request: {exc}"})
    return None


def route(emu: Any, req: Any, path: str) -> Any:
    """Answer the routes of this module (module docstring); ``None`` for other paths."""
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["_emulator"] and parts[1:2] == ["hooks"]:
        _setup(emu.state)
        return _admin(emu, req, parts[1:])
    listing = parts == ["app", "hook", "deliveries"] and req.method == "GET"
    attempts = (len(parts) == 5 and parts[:3] == ["app", "hook", "deliveries"]
                and parts[4] == "attempts" and req.method == "POST")
    if not (listing or attempts):
        return None
    _setup(emu.state)
    app, refusal = _app(emu, req)
    if app is None:
        return emu._log_request(req, refusal, None, "rest")
    if listing:
        return emu._log_request(req, _list(emu, req, app), "apps/list-webhook-deliveries",
                                "rest")
    return emu._log_request(req, _redeliver(emu, req, app, parts[3]),
                            "apps/redeliver-webhook-delivery", "rest")
