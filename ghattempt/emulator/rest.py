# mypy: disable-error-code="misc"
# (each method types ``self`` as the Emulator it is mixed into: mypy cannot check a
# mixin's self type against the class that composes it)
"""GitHub's REST routes the emulator serves, except the git database's (:mod:`.rest_git`):
the repository, file contents, check runs, branches and their classic protection
(:mod:`.protection`), the rules of a branch and a ruleset, the rate limit, and the App
routes that take a JWT (:mod:`.apps`); workflow runs and jobs (:mod:`.actions`) and
releases (:mod:`.releases`) are dispatched from here, since every REST path shares its
repository lookup and its 404. Each answers GitHub's JSON and status codes."""

from __future__ import annotations

import json
import re
import urllib.parse
from typing import TYPE_CHECKING, Any

from . import actions, apps, git, hooks, protection, releases, rulesets
from . import errors as gh
from .exchange import Reply, Request, paged
from .ids import legacy_node_id, node_id
from .limits import REST_CONTENT_CREATING

if TYPE_CHECKING:
    from .app import Emulator


class Rest:
    """The REST routes other than the git database's."""

    def _app_route(self: Emulator, req: Request, parts: list[str]) -> Reply | None:
        """Routes that take an App's JWT instead of a token; None for other routes."""
        is_app = parts[:1] == ["app"] and (
            (parts == ["app"] and req.method == "GET")
            or (
                len(parts) == 4
                and parts[1] == "installations"
                and parts[3] == "access_tokens"
                and req.method == "POST"
            )
        )
        is_repo_installation = (
            len(parts) == 4 and parts[0] == "repos" and parts[3] == "installation"
        )
        if not (is_app or is_repo_installation):
            return None
        scheme, _, credential = req.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not credential.strip():
            reply = self._json(req, 401, gh.REQUIRES_AUTH)
            return self._log_request(req, reply, None, "rest")
        app, refusal = apps.verify_jwt(self.state, credential.strip(), self.clock.now())
        if app is None:
            return self._log_request(req, self._json(req, *refusal), None, "rest")
        if parts == ["app"]:
            status, body = 200, apps.app_json(self.state, app, self.server_url)
            name = "apps/get-authenticated"
        elif is_repo_installation:
            found = apps.installation_for(self.state, app)
            repo = self.state.repository_by_name(parts[1], parts[2])
            if found is None or repo is None:
                status, body = 404, json.loads(gh.rest_body("Not Found", 404))
            else:
                status, body = 200, found
            name = "apps/get-repo-installation"
        else:
            try:
                installation_id = int(parts[2])
            except ValueError:
                installation_id = -1
            status, body = apps.create_installation_token(
                self.state, app, installation_id, req.body, self.clock.now()
            )
            name = "apps/create-installation-access-token"
        return self._log_request(req, self._json(req, status, body), name, "rest")

    def _rest(self: Emulator, req: Request, route: str) -> Reply:
        parts = [p for p in route.split("/") if p]
        answered = self._app_route(req, parts)
        if answered is not None:
            return answered
        denied = self._authenticate(req)
        if denied is not None:
            return self._log_request(req, denied, None, "rest")
        if parts == ["rate_limit"] and req.method == "GET":
            # costs no primary budget but counts against the secondary limit (GitHub
            # docs, "Rate limits for the REST API", checking the status)
            reply = self._secondary_limit(req, 1, 0, "core") or self._rate_limit_rest(req)
            return self._log_request(req, reply, "rate-limit/get", "rest")
        repo, rest = self._repository_route(parts)
        if repo is not None or (len(parts) >= 3 and parts[0] == "repos"):
            if repo is None or (repo["private"] and req.token["role"] == "none"):
                return self._log_request(
                    req,
                    self._json(req, 404, gh.rest_body("Not Found", 404), resource="core"),
                    None,
                    "rest",
                )
            if parts[0] == "repos" and not self._current_name(repo, parts[1], parts[2]):
                return self._log_request(req, self._moved(req, route, repo, rest), None, "rest")
            if rest == [] and req.method == "GET":
                return self._rest_op(req, "repos/get", lambda: self._repo_json(repo))
            if rest == ["git", "commits"] and req.method == "POST":
                return self._rest_op(
                    req, "git/create-commit", lambda: self._create_commit(req, repo)
                )
            if len(rest) == 3 and rest[:2] == ["git", "commits"] and req.method == "GET":
                return self._rest_op(req, "git/get-commit", lambda: self._get_commit(repo, rest[2]))
            if len(rest) >= 2 and rest[0] == "contents" and req.method == "GET":
                path = "/".join(rest[1:])
                return self._rest_op(
                    req, "repos/get-content", lambda: self._contents(req, repo, path)
                )
            for domain in (actions, releases):
                found = domain.rest(self, req, repo, rest)
                if found is not None:
                    return self._rest_op(req, found[0], found[1])
            if len(rest) >= 2 and rest[0] == "branches" and req.method == "GET":
                names = [urllib.parse.unquote(p) for p in rest[1:]]
                if names[-1] == "protection" and len(names) > 1:
                    return self._rest_op(req, "repos/get-branch-protection",
                                         lambda: self._protection(req, repo, "/".join(names[:-1])))
                return self._rest_op(req, "repos/get-branch",
                                     lambda: self._branch(repo, "/".join(names)))
            if rest == ["check-runs"] and req.method == "POST":
                return self._rest_op(
                    req, "checks/create", lambda: self._create_check_run(req, repo)
                )
            if (
                len(rest) == 3
                and rest[0] == "commits"
                and rest[2] == "check-runs"
                and req.method == "GET"
            ):
                return self._rest_op(
                    req, "checks/list-for-ref", lambda: self._list_check_runs(repo, rest[1])
                )
            if len(rest) >= 3 and rest[:2] == ["rules", "branches"] and req.method == "GET":
                branch = "/".join(urllib.parse.unquote(p) for p in rest[2:])
                return self._rest_op(
                    req, "repos/get-branch-rules", lambda: self._branch_rules(req, repo, branch)
                )
            if len(rest) == 2 and rest[0] == "rulesets" and req.method == "GET":
                return self._rest_op(
                    req, "repos/get-repo-ruleset", lambda: self._ruleset(req, repo, rest[1])
                )
            if len(rest) >= 3 and rest[:2] == ["git", "ref"] and req.method == "GET":
                name = "refs/" + "/".join(rest[2:])
                return self._rest_op(req, "git/get-ref", lambda: self._get_ref(repo, name))
            if rest == ["git", "refs"] and req.method == "POST":
                return self._rest_op(
                    req, "git/create-ref", lambda: self._write_ref(req, repo, None)
                )
            if len(rest) >= 3 and rest[:2] == ["git", "refs"] and req.method in ("PATCH", "DELETE"):
                name = "refs/" + "/".join(rest[2:])
                op = "git/update-ref" if req.method == "PATCH" else "git/delete-ref"
                return self._rest_op(req, op, lambda: self._write_ref(req, repo, name))
        reply = self._json(req, 404, gh.rest_body("Not Found", 404), resource="core")
        return self._log_request(req, reply, None, "rest")

    def _repository_route(self: Emulator, parts: list[str]) -> tuple[Any, list[str]]:
        """The repository a REST path names and the rest of the path: ``repos/{owner}/
        {repo}/...`` (an old name resolves too) or ``repositories/{id}/...`` (where
        GitHub's redirects point); (None, []) for other paths or no such repository."""
        if len(parts) >= 3 and parts[0] == "repos":
            return self.state.repository_by_name(parts[1], parts[2]), parts[3:]
        if len(parts) >= 2 and parts[0] == "repositories" and parts[1].isdigit():
            return self.state.repository(int(parts[1])), parts[2:]
        return None, []

    def _current_name(self: Emulator, repo: Any, owner: str, name: str) -> bool:
        """Whether ``owner/name`` is the repository's name now (not one it had)."""
        now = self.state.repository_by_name(owner, name, follow_renames=False)
        return now is not None and int(now["id"]) == int(repo["id"])

    def _moved(self: Emulator, req: Request, route: str, repo: Any, rest: list[str]) -> Reply:
        """GitHub's answer to a REST request naming a repository by an old name (renamed
        or transferred): 301 for GET/HEAD, 307 (method and body kept) otherwise, with
        ``location`` at ``/repositories/{id}`` plus the rest of the path. Sources:
        octokit/fixtures scenario rename-repository (301, its body and location),
        stephencelis/ghi#300 and matrix-org/go-neb#141 (307 for other methods). The
        location keeps the request's host, so a client on loopback stays there."""
        host = req.headers.get("host", "")
        if not host:
            base = self.api_url
        elif host.rsplit(":", 1)[0].strip("[]") in ("127.0.0.1", "localhost", "::1"):
            base = f"http://{host}"
        else:
            base = f"https://{host}"
        prefix = req.path[: len(req.path) - len(route)] if req.path.endswith(route) else ""
        target = f"{base}{prefix}/repositories/{repo['id']}" + "".join(f"/{p}" for p in rest)
        if req.query:
            target += f"?{req.query}"
        status = 301 if req.method in ("GET", "HEAD") else 307
        body = {"message": "Moved Permanently" if status == 301 else "Temporary Redirect",
                "url": target, "documentation_url": "https://docs.github.com/v3/#http-redirects"}
        return self._json(req, status, body, {"location": target}, resource="core")

    def _rest_op(self: Emulator, req: Request, name: str, run: Any) -> Reply:
        names = frozenset({"rest", name})
        budget = self._budget(req.token, "core")
        refused = self._pre_faults(req, names, max(0, self._limit(req.token) - budget.used))
        if refused is not None:
            return self._log_request(req, refused, name, "rest")
        writing = req.method != "GET"
        creating = name in REST_CONTENT_CREATING
        refused = self._secondary_limit(req, 5 if writing else 1, int(creating), "core")
        if refused is not None:
            return self._log_request(req, refused, name, "rest")
        too_quickly = self._submitted_too_quickly(req, names, creating)
        if too_quickly is False:
            return self._log_request(req, self._json(req, 422, _too_quickly(name),
                                                     resource="core"), name, "rest")
        with self.state.lock:
            if budget.used + 1 > self._limit(req.token):
                return self._log_request(req, self._rest_rate_limited(req), name, "rest")
            budget.used += 1
            status, body = run()
        if too_quickly and status < 300:  # landed, answered as refused
            status, body = 422, _too_quickly(name)
        hooks.ref_events(self, req.refs_changed, req.viewer)
        lost = self._post_faults(req)
        reply = lost if lost is not None else self._json(req, status, body, resource="core")
        return self._log_request(req, reply, name, "rest", cost=1)

    def _repo_json(self: Emulator, repo: Any) -> tuple[int, Any]:
        owner = self.state.actor(int(repo["owner_id"]))
        assert owner is not None
        full = f"{owner['login']}/{repo['name']}"
        legacy = bool(repo["legacy_node_id"]) and self.fidelity.legacy_node_ids
        return 200, {
            "id": repo["id"],
            # REST answers a pre-migration object's legacy node_id (the header is a
            # GraphQL one; the stricter reading of GitHub's migration guide)
            "node_id": (
                legacy_node_id("Repository", int(repo["id"]))
                if legacy
                else node_id("Repository", int(repo["id"]))
            ),
            "name": repo["name"],
            "full_name": full,
            "private": bool(repo["private"]),
            "owner": {
                "login": owner["login"],
                "id": owner["id"],
                "node_id": node_id(str(owner["kind"]), int(owner["id"])),
                "type": owner["kind"],
            },
            "html_url": f"{self.server_url}/{full}",
            "url": f"{self.api_url}/repos/{full}",
            "default_branch": repo["default_branch"],
            "has_discussions": bool(repo["has_discussions"]),
        }

    def _branch(self: Emulator, repo: Any, branch: str) -> tuple[int, Any]:
        """``GET .../branches/{branch}``: the branch, ``protected`` and the protection
        summary any reader gets (404 "Branch not found" for a missing branch)."""
        rid = int(repo["id"])
        ref = self.state.ref(rid, f"refs/heads/{branch}")
        if ref is None:
            return 404, json.loads(gh.rest_body("Branch not found", 404))
        found = protection.rule_for(self.state, rid, branch) \
            if self.fidelity.branch_protection else None
        return 200, protection.branch_summary(self.api_url, self._full(repo), branch,
                                              str(ref["oid"]), found)

    def _protection(self: Emulator, req: Request, repo: Any, branch: str) -> tuple[int, Any]:
        """``GET .../branches/{branch}/protection``: the admin role only (an App needs
        Administration read, which a ``GITHUB_TOKEN`` never has: 403); 404 "Branch not
        found" or "Branch not protected"."""
        if req.token["role"] != "admin":
            if req.viewer["kind"] == "Bot":
                return 403, json.loads(gh.rest_body(
                    "Resource not accessible by integration", 403))
            return 404, json.loads(gh.rest_body("Not Found", 404))
        rid = int(repo["id"])
        if self.state.ref(rid, f"refs/heads/{branch}") is None:
            return 404, json.loads(gh.rest_body("Branch not found", 404))
        found = protection.rule_for(self.state, rid, branch) \
            if self.fidelity.branch_protection else None
        if found is None:
            return 404, json.loads(gh.rest_body("Branch not protected", 404))
        return 200, protection.protection_json(self.api_url, self._full(repo), branch,
                                               found[2])

    def _full(self: Emulator, repo: Any) -> str:
        owner = self.state.actor(int(repo["owner_id"]))
        return f"{owner['login'] if owner else '?'}/{repo['name']}"

    def _commit_for(self: Emulator, repo: Any, ref: str) -> Any:
        rid = int(repo["id"])
        if re.fullmatch(r"[0-9a-f]{40}", ref):
            return self.state.commit(rid, ref)
        for name in (ref, f"refs/heads/{ref}", f"refs/tags/{ref}"):
            row = self.state.ref(rid, name) if name.startswith("refs/") else None
            if row is not None:
                return self.state.commit(rid, str(row["oid"]))
        return None

    def _contents(self: Emulator, req: Request, repo: Any, path: str) -> tuple[int, Any]:
        """``GET /repos/{o}/{r}/contents/{path}?ref=``: one file of a commit's tree
        (base64 ``content``, ``sha`` = the git blob oid); 404 when absent."""
        from urllib.parse import parse_qs

        ref = (parse_qs(req.query).get("ref") or [str(repo["default_branch"])])[0]
        commit = self._commit_for(repo, ref)
        tree = self.state.tree(int(repo["id"]), str(commit["tree"])) if commit else None
        files = json.loads(tree["files"]) if tree is not None else {}
        if path not in files:
            return 404, json.loads(gh.rest_body("Not Found", 404))
        import base64

        data = base64.b64decode(files[path])
        return 200, {
            "type": "file",
            "encoding": "base64",
            "size": len(data),
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "content": base64.encodebytes(data).decode("ascii"),
            "sha": git.blob_id(data),
        }

    def _create_check_run(self: Emulator, req: Request, repo: Any) -> tuple[int, Any]:
        """``POST /repos/{o}/{r}/check-runs`` (``name``, ``head_sha``, ``status``,
        ``conclusion``, ``output``); kept in memory, listed per commit."""
        try:
            data = json.loads(req.body or b"null")
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict) or not all(
            isinstance(data.get(k), str) for k in ("name", "head_sha")
        ):
            return 422, json.loads(gh.rest_body("Invalid request.", 422))
        if self.state.commit(int(repo["id"]), data["head_sha"]) is None:
            return 422, json.loads(gh.rest_body("No commit found for SHA", 422))
        with self.state.lock:
            run = {
                "id": len(self._check_runs) + 1,
                "repo_id": int(repo["id"]),
                "name": data["name"],
                "head_sha": data["head_sha"],
                "status": data.get("status", "queued"),
                "conclusion": data.get("conclusion"),
                "output": data.get("output") or {},
                "external_id": data.get("external_id") or "",
                "app": {"slug": str(req.viewer["login"])},
            }
            self._check_runs.append(run)
        return 201, {k: v for k, v in run.items() if k != "repo_id"}

    def _branch_rules(self: Emulator, req: Request, repo: Any, branch: str) -> tuple[int, Any]:
        """``GET .../rules/branches/{branch}``: the rules that apply to the branch, paged
        by ``per_page`` (default 30, at most 100) and ``page`` (GitHub docs, "REST API
        endpoints for rules", Get rules for a branch); none while the ``rulesets``
        switch is off (no ruleset is enforced then)."""
        with self.state.lock:
            rules = rulesets.branch_rules(self.state, int(repo["id"]), branch) \
                if self.fidelity.rulesets else []
        return 200, paged(req.query, rules)

    def _ruleset(self: Emulator, req: Request, repo: Any, ident: str) -> tuple[int, Any]:
        """``GET .../rulesets/{id}``: one ruleset with ``current_user_can_bypass``
        (GitHub docs, "REST API endpoints for rules", Get a repository ruleset)."""
        with self.state.lock:
            found = rulesets.ruleset_json(self.state, int(repo["id"]), int(ident),
                                          str(req.viewer["login"])) if ident.isdigit() else None
        if found is None:
            return 404, json.loads(gh.rest_body("Not Found", 404))
        return 200, found

    def _passing_checks(self: Emulator, repo_id: int, oid: str) -> frozenset[str]:
        """The names of the check runs on commit ``oid`` that concluded ``success``."""
        with self.state.lock:
            return frozenset(str(r["name"]) for r in self._check_runs
                             if r["repo_id"] == repo_id and r["head_sha"] == oid
                             and r["conclusion"] == "success")

    def _list_check_runs(self: Emulator, repo: Any, ref: str) -> tuple[int, Any]:
        commit = self._commit_for(repo, ref)
        sha = str(commit["oid"]) if commit is not None else ref
        with self.state.lock:
            runs = [
                {k: v for k, v in r.items() if k != "repo_id"}
                for r in self._check_runs
                if r["repo_id"] == int(repo["id"]) and r["head_sha"] == sha
            ]
        return 200, {"total_count": len(runs), "check_runs": runs}


def _too_quickly(operation: str) -> dict[str, Any]:
    """REST's "was submitted too quickly": 422 "Validation Failed" with a custom error
    (GitHub's REST shape for validation errors; the resource named is the emulator's)."""
    resource = {"git/create-commit": "Commit", "git/create-ref": "Reference",
                "repos/create-release": "Release",
                "repos/upload-release-asset": "ReleaseAsset"}.get(operation, "Resource")
    return {"message": "Validation Failed",
            "errors": [{"resource": resource, "code": "custom",
                        "message": "was submitted too quickly"}],
            "documentation_url": "https://docs.github.com/rest", "status": "422"}


def route(emu: Emulator, req: Request, path: str) -> Reply | None:
    """Every REST route (it answers 404 for the paths it does not serve, as GitHub does)."""
    return emu._rest(req, path)
