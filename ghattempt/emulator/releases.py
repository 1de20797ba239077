"""GitHub releases and their assets, as the REST API serves them (GitHub docs, "REST API
endpoints for releases" and "... for release assets"):

- ``GET /repos/{o}/{r}/releases/tags/{tag}``: the *published* release of that tag (a
  draft or a missing release: 404);
- ``GET .../releases/{release_id}``: one release (a draft only for writers);
- ``GET .../releases/{release_id}/assets``: its assets (``per_page`` at most 100, ``page``);
- ``GET .../releases/assets/{asset_id}``: one asset;
- ``POST .../releases`` (``tag_name``, ``name``, ``body``, ``draft``, ``prerelease``,
  ``target_commitish``): 201; ``contents: write``; a tag that has a release: 422
  ``already_exists``; a published release creates its tag at the target when missing;
- ``POST .../releases/{release_id}/assets?name=N`` (the upload, which GitHub serves on
  ``uploads.github.com``; the body is the file): 201; a name the release has: 422.

Each asset carries ``name``, ``size``, ``content_type``, ``state: uploaded`` and
``digest``: ``sha256:<hex>`` of its bytes, which GitHub computes at upload since June 2025
(GitHub changelog 2025-06-03, "Releases now expose digests for release assets"); an asset
uploaded before then has ``digest: null`` (admin ``digest: null``).

Admin (GitHub has no such route): ``POST /_emulator/releases {"repository", "tag",
"name", "draft", "prerelease", "assets": [{"name", "content" | "content_base64",
"content_type", "digest"?}]}`` answers the release's ``id``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.parse
from typing import Any

from . import errors as gh
from .exchange import json_object, paged
from .ids import node_id
from .state import State, iso

_SCHEMA = """
CREATE TABLE IF NOT EXISTS releases (
  id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, tag TEXT NOT NULL, name TEXT,
  body TEXT, draft INTEGER NOT NULL, prerelease INTEGER NOT NULL, target TEXT NOT NULL,
  author_id INTEGER, created_at REAL NOT NULL, published_at REAL);
CREATE TABLE IF NOT EXISTS release_assets (
  id INTEGER PRIMARY KEY, release_id INTEGER NOT NULL, name TEXT NOT NULL, label TEXT,
  content_type TEXT NOT NULL, size INTEGER NOT NULL, digest TEXT, data BLOB NOT NULL,
  uploader_id INTEGER, created_at REAL NOT NULL);
"""
NOT_FOUND = json.loads(gh.rest_body("Not Found", 404))


def setup(state: State) -> None:
    """Create the tables (idempotent)."""
    with state.lock:
        state.db.executescript(_SCHEMA)


def _invalid(resource: str, code: str, field: str) -> tuple[int, Any]:
    """GitHub's 422 "Validation Failed" with one error."""
    return 422, {"message": "Validation Failed",
                 "errors": [{"resource": resource, "code": code, "field": field}],
                 "documentation_url": "https://docs.github.com/rest/releases", "status": "422"}


def create_release(state: State, repo: Any, *, tag: str, name: str | None, body: str | None,
                   draft: bool, prerelease: bool, target: str | None, author_id: int | None,
                   now: float) -> tuple[int, Any]:
    """Create a release: (201, its id) or GitHub's 422 (tag missing, taken, unknown
    target)."""
    rid = int(repo["id"])
    if not tag:
        return _invalid("Release", "missing_field", "tag_name")
    if state.one("SELECT 1 FROM releases WHERE repo_id = ? AND tag = ?", rid, tag):
        return _invalid("Release", "already_exists", "tag_name")
    target = target or str(repo["default_branch"])
    head = state.ref(rid, f"refs/heads/{target}")
    oid = str(head["oid"]) if head is not None else (
        target if state.commit(rid, target) is not None else None)
    if oid is None:
        return _invalid("Release", "invalid", "target_commitish")
    with state.transaction() as db:
        ident = state.next_id()
        db.execute("INSERT INTO releases VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (ident, rid, tag, name, body, int(draft), int(prerelease), target,
                    author_id, now, None if draft else now))
        if not draft and state.ref(rid, f"refs/tags/{tag}") is None:
            state.set_ref(rid, f"refs/tags/{tag}", oid)
    return 201, ident


def add_asset(state: State, release_id: int, name: str, data: bytes, content_type: str,
              uploader_id: int | None, now: float, digest: str | None | bool = True
              ) -> tuple[int, Any]:
    """Attach an asset: (201, its id) or 422 for a name the release has. ``digest``
    True: GitHub's ``sha256:`` of the bytes; None: an asset from before digests."""
    if not name:
        return _invalid("ReleaseAsset", "missing_field", "name")
    if state.one("SELECT 1 FROM release_assets WHERE release_id = ? AND name = ?",
                 release_id, name):
        return _invalid("ReleaseAsset", "already_exists", "name")
    value = ("sha256:" + hashlib.sha256(data).hexdigest()) if digest is True else digest
    with state.transaction() as db:
        ident = state.next_id()
        db.execute("INSERT INTO release_assets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (ident, release_id, name, None, content_type, len(data),
                    value if isinstance(value, str) else None, data, uploader_id, now))
    return 201, ident


def _user(state: State, ident: Any) -> dict[str, Any] | None:
    row = state.actor(ident)
    if row is None:
        return None
    login = str(row["login"]) + ("[bot]" if row["kind"] == "Bot" else "")
    return {"login": login, "id": row["id"], "type": row["kind"]}


def _asset_json(emu: Any, full: str, tag: str, row: Any) -> dict[str, Any]:
    return {
        "url": f"{emu.api_url}/repos/{full}/releases/assets/{row['id']}",
        "browser_download_url": f"{emu.server_url}/{full}/releases/download/{tag}/"
                                f"{urllib.parse.quote(str(row['name']))}",
        "id": row["id"], "node_id": node_id("ReleaseAsset", 0, int(row["id"])),
        "name": row["name"], "label": row["label"], "state": "uploaded",
        "content_type": row["content_type"], "size": row["size"], "digest": row["digest"],
        "download_count": 0, "created_at": iso(row["created_at"]),
        "updated_at": iso(row["created_at"]), "uploader": _user(emu.state, row["uploader_id"]),
    }


def _release_json(emu: Any, full: str, row: Any) -> dict[str, Any]:
    base = f"{emu.api_url}/repos/{full}/releases/{row['id']}"
    assets = emu.state.all("SELECT * FROM release_assets WHERE release_id = ? ORDER BY id",
                           row["id"])
    return {
        "url": base, "html_url": f"{emu.server_url}/{full}/releases/tag/{row['tag']}",
        "assets_url": f"{base}/assets",
        "upload_url": f"https://uploads.github.com/repos/{full}/releases/{row['id']}/assets"
                      "{?name,label}",
        "tarball_url": f"{emu.api_url}/repos/{full}/tarball/{row['tag']}",
        "zipball_url": f"{emu.api_url}/repos/{full}/zipball/{row['tag']}",
        "id": row["id"], "node_id": node_id("Release", int(row["repo_id"]), int(row["id"])),
        "tag_name": row["tag"], "target_commitish": row["target"], "name": row["name"],
        "body": row["body"], "draft": bool(row["draft"]), "prerelease": bool(row["prerelease"]),
        "created_at": iso(row["created_at"]), "published_at": iso(row["published_at"]),
        "author": _user(emu.state, row["author_id"]),
        "assets": [_asset_json(emu, full, str(row["tag"]), a) for a in assets],
    }


def rest(emu: Any, req: Any, repo: Any, rest: list[str]) -> tuple[str, Any] | None:
    """The release routes: (operation name, a callable answering (status, body)), or
    None for another path."""
    if rest[:1] != ["releases"]:
        return None
    state: State = emu.state
    rid = int(repo["id"])
    owner = state.actor(int(repo["owner_id"]))
    full = f"{owner['login'] if owner else '?'}/{repo['name']}"
    writer = req.token["role"] in ("write", "maintain", "admin")
    can_write = writer and req.token["contents"] == "write"

    def release(ident: str) -> Any:
        row = state.one("SELECT * FROM releases WHERE repo_id = ? AND id = ?", rid,
                        int(ident)) if ident.isdigit() else None
        return None if row is None or (row["draft"] and not writer) else row

    def by_tag(tag: str) -> tuple[int, Any]:
        row = state.one("SELECT * FROM releases WHERE repo_id = ? AND tag = ? AND draft = 0",
                        rid, tag)
        return (404, NOT_FOUND) if row is None else (200, _release_json(emu, full, row))

    def one(ident: str) -> tuple[int, Any]:
        row = release(ident)
        return (404, NOT_FOUND) if row is None else (200, _release_json(emu, full, row))

    def assets(ident: str) -> tuple[int, Any]:
        row = release(ident)
        if row is None:
            return 404, NOT_FOUND
        return 200, paged(req.query, _release_json(emu, full, row)["assets"])

    def asset(ident: str) -> tuple[int, Any]:
        row = state.one("SELECT a.*, r.tag, r.draft FROM release_assets a JOIN releases r ON "
                        "r.id = a.release_id WHERE r.repo_id = ? AND a.id = ?", rid,
                        int(ident)) if ident.isdigit() else None
        if row is None or (row["draft"] and not writer):
            return 404, NOT_FOUND
        return 200, _asset_json(emu, full, str(row["tag"]), row)

    def forbidden() -> tuple[int, Any]:
        who = "integration" if req.viewer["kind"] == "Bot" else "personal access token"
        return 403, json.loads(gh.rest_body(f"Resource not accessible by {who}", 403))

    def create() -> tuple[int, Any]:
        if not can_write:
            return forbidden()
        data = json_object(req.body)
        if data is None:
            return 400, json.loads(gh.rest_body("Problems parsing JSON", 400))
        status, out = create_release(
            state, repo, tag=str(data.get("tag_name") or ""), name=data.get("name"),
            body=data.get("body"), draft=bool(data.get("draft")),
            prerelease=bool(data.get("prerelease")), target=data.get("target_commitish"),
            author_id=int(req.viewer["id"]), now=emu.clock.now())
        if status != 201:
            return status, out
        return 201, one(str(out))[1]

    def upload(ident: str) -> tuple[int, Any]:
        if not can_write:
            return forbidden()
        row = release(ident)
        if row is None:
            return 404, NOT_FOUND
        name = (urllib.parse.parse_qs(req.query).get("name") or [""])[0]
        status, out = add_asset(state, int(row["id"]), name, req.body,
                                req.headers.get("content-type", "application/octet-stream"),
                                int(req.viewer["id"]), emu.clock.now())
        if status != 201:
            return status, out
        return 201, asset(str(out))[1]

    if req.method == "GET":
        if len(rest) == 3 and rest[1] == "tags":
            return "repos/get-release-by-tag", lambda: by_tag(urllib.parse.unquote(rest[2]))
        if len(rest) == 3 and rest[1] == "assets":
            return "repos/get-release-asset", lambda: asset(rest[2])
        if len(rest) == 2:
            return "repos/get-release", lambda: one(rest[1])
        if len(rest) == 3 and rest[2] == "assets":
            return "repos/list-release-assets", lambda: assets(rest[1])
    if req.method == "POST":
        if len(rest) == 1:
            return "repos/create-release", create
        if len(rest) == 3 and rest[2] == "assets":
            return "repos/upload-release-asset", lambda: upload(rest[1])
    return None


def admin_release(emu: Any, repository: str, data: dict[str, Any]) -> int:
    """The admin route's release with its assets; returns its id.

    Raises:
        ValueError: an unknown repository, a taken tag, a bad asset.
    """
    owner, _, name = repository.partition("/")
    repo = emu.state.repository_by_name(owner, name)
    if repo is None:
        raise ValueError(f"no repository {repository!r}")
    author = emu.state.actor_by_login(str(data.get("author", owner)))
    status, out = create_release(
        emu.state, repo, tag=str(data.get("tag", "")), name=data.get("name"),
        body=data.get("body"), draft=bool(data.get("draft")),
        prerelease=bool(data.get("prerelease")), target=data.get("target"),
        author_id=None if author is None else int(author["id"]), now=emu.clock.now())
    if status != 201:
        raise ValueError(f"release not created: {out}")
    for a in data.get("assets", []):
        raw = (base64.b64decode(a["content_base64"]) if "content_base64" in a
               else str(a.get("content", "")).encode())
        status, err = add_asset(emu.state, int(out), str(a["name"]), raw,
                                str(a.get("content_type", "application/octet-stream")),
                                None if author is None else int(author["id"]),
                                emu.clock.now(), a.get("digest", True))
        if status != 201:
            raise ValueError(f"asset {a.get('name')!r} not added: {err}")
    return int(out)


__all__ = ["add_asset", "admin_release", "create_release", "rest", "setup"]
