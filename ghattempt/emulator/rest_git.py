# mypy: disable-error-code="misc"
# (each method types ``self`` as the Emulator it is mixed into: mypy cannot check a
# mixin's self type against the class that composes it)
"""The REST routes of the git database: ``POST``/``GET .../git/commits``, ``GET
.../git/ref/{ref}``, ``POST .../git/refs``, ``PATCH``/``DELETE .../git/refs/{ref}``.

Commits get the oid git computes; refs move fast-forward unless ``force``; REST has no
compare-and-set (GraphQL ``updateRefs`` has). Rulesets and branch protection refuse ref
writes with GitHub's 422 (:mod:`.refpolicy`). A commit made by a bot (an App's token, a
``GITHUB_TOKEN``) without ``author``, ``committer`` or ``signature`` is signed by GitHub and
verified; any other is ``unsigned`` (GitHub docs, "About commit signature verification",
signature verification for bots). Source: GitHub docs, "REST API endpoints for Git
database" (commits, references)."""

from __future__ import annotations

import email.utils
import json
from typing import TYPE_CHECKING, Any

from . import errors as gh
from . import refpolicy
from .exchange import Request, json_object
from .ids import node_id
from .state import iso

if TYPE_CHECKING:
    from .app import Emulator


class RestGit:
    """The REST routes of the git database: commits and refs."""

    def _commit_json(self: Emulator, repo: Any, row: Any) -> dict[str, Any]:
        owner = self.state.actor(int(repo["owner_id"]))
        assert owner is not None
        full = f"{owner['login']}/{repo['name']}"
        api = f"{self.api_url}/repos/{full}/git/commits"

        def person(sig: list[Any]) -> dict[str, Any]:
            return {"name": sig[0], "email": sig[1], "date": iso(float(sig[2]))}

        return {
            "sha": row["oid"],
            "node_id": node_id("Commit", int(repo["id"]), bytes.fromhex(row["oid"])),
            "url": f"{api}/{row['oid']}",
            "html_url": f"{self.server_url}/{full}/commit/{row['oid']}",
            "author": person(json.loads(row["author"])),
            "committer": person(json.loads(row["committer"])),
            "tree": {
                "sha": row["tree"],
                "url": f"{self.api_url}/repos/{full}/git/trees/{row['tree']}",
            },
            "message": row["message"],
            "parents": [
                {"sha": p, "url": f"{api}/{p}", "html_url": f"{self.server_url}/{full}/commit/{p}"}
                for p in json.loads(row["parents"])
            ],
            "verification": _verification(self.state.verification(int(repo["id"]),
                                                                  str(row["oid"])),
                                          json.loads(row["committer"])),
        }

    def _get_commit(self: Emulator, repo: Any, sha: str) -> tuple[int, Any]:
        row = self.state.commit(int(repo["id"]), sha.lower())
        if row is None:
            return 404, json.loads(gh.rest_body("Not Found", 404))
        return 200, self._commit_json(repo, row)

    def _create_commit(self: Emulator, req: Request, repo: Any) -> tuple[int, Any]:
        """``POST /repos/{o}/{r}/git/commits``: message, tree, parents (and optional
        author/committer); answers 201 with the commit, or 422/403 as GitHub does."""
        refused = _contents_write_refusal(req)
        if refused is not None:
            return refused
        data = json_object(req.body)
        if data is None:
            return 400, json.loads(gh.rest_body("Problems parsing JSON", 400))
        for key in ("message", "tree"):
            if not isinstance(data.get(key), str):
                return 422, json.loads(
                    gh.rest_body(f'Invalid request.\n\n"{key}" wasn\'t supplied.', 422)
                )
        parents = data.get("parents", [])
        if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
            return 422, json.loads(
                gh.rest_body(
                    "Invalid request.\n\nFor 'properties/parents', not an array of strings.", 422
                )
            )
        rid = int(repo["id"])
        if self.state.tree(rid, data["tree"]) is None:
            return 422, json.loads(gh.rest_body("Tree SHA does not exist", 422))
        for p in parents:
            if self.state.commit(rid, p) is None:
                return 422, json.loads(
                    gh.rest_body("Parent SHA does not exist or is not a commit object", 422)
                )
        login = str(req.viewer["login"]) + ("[bot]" if req.viewer["kind"] == "Bot" else "")
        now = int(self.clock.now())
        default = (login, f"{req.viewer['id']}+{login}@users.noreply.github.com", now)

        def sig(value: Any) -> tuple[str, str, int]:
            if not isinstance(value, dict):
                return default
            when = value.get("date")
            ts = now
            if isinstance(when, str):
                try:
                    ts = int(email.utils.parsedate_to_datetime(when).timestamp())
                except (TypeError, ValueError):
                    try:
                        from datetime import datetime

                        ts = int(datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp())
                    except ValueError:
                        ts = now
            return (str(value.get("name", default[0])), str(value.get("email", default[1])), ts)

        author = sig(data.get("author"))
        committer = sig(data.get("committer")) if data.get("committer") else author
        oid = self.state.add_commit(rid, data["tree"], parents, data["message"], author, committer)
        custom = any(data.get(k) for k in ("author", "committer", "signature"))
        if req.viewer["kind"] == "Bot" and not custom:
            self.state.set_verification(rid, oid, "valid")  # signed by GitHub for the bot
        elif data.get("signature"):
            self.state.set_verification(rid, oid, "unknown_key")  # none is verified here
        row = self.state.commit(rid, oid)
        return 201, self._commit_json(repo, row)

    def _ref_json(self: Emulator, repo: Any, name: str, oid: str) -> dict[str, Any]:
        owner = self.state.actor(int(repo["owner_id"]))
        assert owner is not None
        base = f"{self.api_url}/repos/{owner['login']}/{repo['name']}/git"
        return {
            "ref": name,
            "node_id": node_id("Ref", int(repo["id"]), name),
            "url": f"{base}/{name}",
            "object": {"sha": oid, "type": "commit", "url": f"{base}/commits/{oid}"},
        }

    def _get_ref(self: Emulator, repo: Any, name: str) -> tuple[int, Any]:
        """``GET /repos/{o}/{r}/git/ref/{ref}``: one ref by its full name."""
        row = self.state.ref(int(repo["id"]), name)
        if row is None:
            return 404, json.loads(gh.rest_body("Not Found", 404))
        return 200, self._ref_json(repo, name, str(row["oid"]))

    def _write_ref(self: Emulator, req: Request, repo: Any, name: str | None) -> tuple[int, Any]:
        """``POST .../git/refs`` (``ref``, ``sha``), ``PATCH .../git/refs/{ref}``
        (``sha``, ``force``: a non-fast-forward needs it) and ``DELETE``. REST has no
        compare-and-set; use GraphQL ``updateRefs`` with ``beforeOid`` for that."""
        refused = _contents_write_refusal(req)
        if refused is not None:
            return refused
        rid = int(repo["id"])
        if req.method == "DELETE":
            assert name is not None
            if self.state.ref(rid, name) is None:
                return 422, json.loads(gh.rest_body("Reference does not exist", 422))
            refused = self._ref_refusal(req, rid, name, "deletion")
            if refused is not None:
                return refused
            self.state.set_ref(rid, name, None)
            req.refs_changed.append((rid, name, "delete"))
            return 204, b""
        try:
            data = json.loads(req.body or b"null")
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("sha"), str):
            return 422, json.loads(gh.rest_body('Invalid request.\n\n"sha" wasn\'t supplied.', 422))
        sha = str(data["sha"])
        if self.state.commit(rid, sha) is None:
            return 422, json.loads(gh.rest_body("Object does not exist", 422))
        if name is None:
            ref = data.get("ref")
            if not isinstance(ref, str) or not ref.startswith("refs/") or ref.count("/") < 2:
                return 422, json.loads(gh.rest_body("Reference name must start with 'refs/'", 422))
            if self.state.ref(rid, ref) is not None:
                return 422, json.loads(gh.rest_body("Reference already exists", 422))
            refused = self._ref_refusal(req, rid, ref, "creation", after=sha)
            if refused is not None:
                return refused
            self.state.set_ref(rid, ref, sha)
            req.refs_changed.append((rid, ref, "create"))
            return 201, self._ref_json(repo, ref, sha)
        current = self.state.ref(rid, name)
        if current is None:
            return 422, json.loads(gh.rest_body("Reference does not exist", 422))
        fast_forward = self.state.is_ancestor(rid, str(current["oid"]), sha)
        if not data.get("force") and not fast_forward:
            return 422, json.loads(gh.rest_body("Update is not a fast forward", 422))
        refused = self._ref_refusal(req, rid, name, "update", after=sha,
                                    force=not fast_forward)
        if refused is not None:
            return refused
        self.state.set_ref(rid, name, sha)
        return 200, self._ref_json(repo, name, sha)

    def _ref_refusal(
        self: Emulator, req: Request, repo_id: int, ref: str, action: str, *,
        after: str | None = None, force: bool = False,
    ) -> tuple[int, Any] | None:
        """GitHub's 422 for a REST ref write a ruleset or branch protection forbids;
        None when allowed."""
        refusal = refpolicy.check(self.state, self.fidelity, repo_id, ref, action,
                                  req.viewer, str(req.token["role"]), after=after,
                                  force=force, passing=self._passing_checks)
        return None if refusal is None else refusal.rest()


def _verification(reason: str, committer: list[Any]) -> dict[str, Any]:
    """The REST ``verification`` object: ``verified`` for ``reason`` ``valid``. The
    emulator keeps no signature text (``signature``, ``payload``: null)."""
    valid = reason == "valid"
    return {"verified": valid, "reason": reason, "signature": None, "payload": None,
            "verified_at": iso(float(committer[2])) if valid else None}


def _contents_write_refusal(req: Request) -> tuple[int, Any] | None:
    """GitHub's 403 when the token may not write contents; None when it may."""
    if req.token["contents"] == "write" and req.token["role"] in ("write", "maintain", "admin"):
        return None
    kind = "integration" if req.viewer["kind"] == "Bot" else "personal access token"
    return 403, json.loads(gh.rest_body(f"Resource not accessible by {kind}", 403))
