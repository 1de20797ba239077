"""GitHub Apps: the JWT → installation-token exchange.

An App (fixture ``[[apps]]``) has an id, a slug (its Bot login) and an RSA public
key. A client signs a JWT with the private key (RS256, ``iss`` = app id, lifetime at
most 10 minutes) and calls ``POST /app/installations/{id}/access_tokens``; the answer
is an installation token (``ghs_…``, valid one hour) that acts as the App's bot with
the installation's role and permissions. ``GET /app`` and
``GET /repos/{owner}/{repo}/installation`` answer to the JWT as well.
Source: GitHub docs, "Authenticating as a GitHub App" and "Generating an installation
access token for a GitHub App".
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from typing import Any

import jwt

from .state import State, iso

SCHEMA = """
CREATE TABLE IF NOT EXISTS apps (
  id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, actor_id INTEGER NOT NULL,
  public_key TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS installations (
  id INTEGER PRIMARY KEY, app_id INTEGER NOT NULL, role TEXT NOT NULL,
  discussions TEXT NOT NULL, contents TEXT NOT NULL, rate_limit INTEGER NOT NULL);
"""
TOKEN_LIFETIME = 3600
MAX_JWT_LIFETIME = 600
CLOCK_DRIFT = 60
JWT_DOCS = "https://docs.github.com/rest"


def setup(state: State) -> None:
    with state.lock:
        state.db.executescript(SCHEMA)
        columns = {r["name"] for r in state.db.execute("PRAGMA table_info(tokens)")}
        if "expires_at" not in columns:
            state.db.execute("ALTER TABLE tokens ADD COLUMN expires_at REAL")
        columns = {r["name"] for r in state.db.execute("PRAGMA table_info(installations)")}
        if "actions" not in columns:  # the Actions permission (workflow runs and jobs)
            state.db.execute("ALTER TABLE installations ADD COLUMN actions TEXT NOT NULL "
                             "DEFAULT 'read'")


def add_app(state: State, app_id: int, slug: str, public_key: str) -> None:
    """Register an App; its Bot actor ``slug`` is created if missing.

    Raises:
        ValueError: the key is not a PEM public key jwt can use.
    """
    try:
        jwt.algorithms.RSAAlgorithm(jwt.algorithms.RSAAlgorithm.SHA256).prepare_key(public_key)
    except Exception as exc:  # noqa: BLE001 - any key problem is the fixture's
        raise ValueError(f"app {slug!r}: public_key is not a usable RSA PEM key") from exc
    with state.transaction() as db:
        actor = state.actor_by_login(slug)
        actor_id = (
            int(actor["id"]) if actor is not None else state.add_actor(slug, "Bot", None, None)
        )
        db.execute("INSERT INTO apps VALUES (?, ?, ?, ?)", (app_id, slug, actor_id, public_key))


def add_installation(
    state: State,
    installation_id: int,
    app_id: int,
    role: str,
    discussions: str,
    contents: str,
    rate_limit: int,
    actions: str = "read",
) -> None:
    with state.transaction() as db:
        db.execute(
            "INSERT INTO installations (id, app_id, role, discussions, contents, rate_limit, "
            "actions) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (installation_id, app_id, role, discussions, contents, rate_limit, actions),
        )


def _error(status: int, message: str) -> tuple[int, Any]:
    return status, {"message": message, "documentation_url": JWT_DOCS, "status": str(status)}


def verify_jwt(state: State, token: str, now: float) -> tuple[sqlite3.Row | None, tuple[int, Any]]:
    """The App a JWT authenticates, or None and GitHub's 401 answer."""
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
        app = state.one("SELECT * FROM apps WHERE id = ?", int(claims["iss"]))
    except (jwt.PyJWTError, KeyError, TypeError, ValueError):
        return None, _error(401, "A JSON web token could not be decoded")
    if app is None:
        return None, _error(401, "Integration not found")
    try:
        jwt.decode(
            token,
            str(app["public_key"]),
            algorithms=["RS256"],
            options={"verify_exp": False, "verify_iat": False, "verify_nbf": False},
        )
    except jwt.PyJWTError:
        return None, _error(401, "A JSON web token could not be decoded")
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, int) or exp <= now:
        return None, _error(
            401,
            "'Expiration time' claim ('exp') must be a numeric value representing the "
            "future time at which the assertion expires",
        )
    if not isinstance(iat, int) or iat > now + CLOCK_DRIFT:
        return None, _error(
            401,
            "'Issued at' claim ('iat') must be an Integer representing the time that the "
            "assertion was issued",
        )
    if exp - iat > MAX_JWT_LIFETIME:
        return None, _error(401, "'Expiration time' claim ('exp') is too far in the future")
    return app, (0, None)


def create_installation_token(
    state: State, app: sqlite3.Row, installation_id: int, body: bytes, now: float
) -> tuple[int, Any]:
    """``POST /app/installations/{id}/access_tokens``: 201 with the token."""
    inst = state.one(
        "SELECT * FROM installations WHERE id = ? AND app_id = ?", installation_id, app["id"]
    )
    if inst is None:
        return _error(404, "Not Found")
    try:
        request = json.loads(body) if body else {}
    except ValueError:
        return _error(400, "Problems parsing JSON")
    permissions = {"metadata": "read"}
    granted = {"discussions": inst["discussions"], "contents": inst["contents"],
               "actions": inst["actions"]}
    for name, level in granted.items():
        if level != "none":
            permissions[name] = str(level)
    asked = request.get("permissions") if isinstance(request, dict) else None
    if isinstance(asked, dict):
        for name, level in asked.items():
            have = permissions.get(name)
            if have is None or (level == "write" and have != "write"):
                return _error(
                    422, "The permissions requested are not granted to this installation."
                )
        permissions = {k: str(v) for k, v in asked.items()} | {"metadata": "read"}
    token = "ghs_" + secrets.token_urlsafe(27)[:36]
    with state.transaction() as db:
        db.execute(
            "INSERT INTO tokens (token, actor_id, role, discussions, contents, rate_limit, "
            "installation_id, expires_at, actions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                token,
                app["actor_id"],
                inst["role"],
                permissions.get("discussions", "none"),
                permissions.get("contents", "none"),
                inst["rate_limit"],
                installation_id,
                now + TOKEN_LIFETIME,
                permissions.get("actions", "none"),
            ),
        )
    return 201, {
        "token": token,
        "expires_at": iso(now + TOKEN_LIFETIME),
        "permissions": permissions,
        "repository_selection": "all",
    }


def app_json(state: State, app: sqlite3.Row, server_url: str) -> dict[str, Any]:
    """``GET /app``: the App itself."""
    return {
        "id": app["id"],
        "slug": app["slug"],
        "name": app["slug"],
        "html_url": f"{server_url}/apps/{app['slug']}",
        "permissions": {"discussions": "write", "contents": "write", "metadata": "read"},
        "events": [],
    }


def installation_for(state: State, app: sqlite3.Row) -> dict[str, Any] | None:
    """``GET /repos/{o}/{r}/installation``: the App's (single) installation."""
    inst = state.one("SELECT * FROM installations WHERE app_id = ? ORDER BY id", app["id"])
    if inst is None:
        return None
    return {
        "id": inst["id"],
        "app_id": app["id"],
        "app_slug": app["slug"],
        "target_type": "Organization",
    }
