# mypy: disable-error-code="misc"
# (each method types ``self`` as the Emulator it is mixed into: mypy cannot check a
# mixin's self type against the class that composes it)
"""Admin operations on the emulator's GitHub: what a maintainer or another actor does
on github.com (edit, delete or minimize a comment; delete, move or transfer a discussion;
rename or transfer a repository; open a pull request; add a ruleset; add a token or a
workflow run), the state snapshot and request log, and the ``/_emulator/...`` routes that
reach them over HTTP.
GitHub has no such routes; docs/emulator.md lists them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from . import actions, hooks, protection, refpolicy, releases, rulesets
from .discussions import delete_comment, edit_comment, minimize_comment
from .exchange import Reply, Request
from .ids import decode_node_id, node_id
from .state import iso

if TYPE_CHECKING:
    from .app import Emulator

LOCK_REASONS = ("OFF_TOPIC", "RESOLVED", "SPAM", "TOO_HEATED")
"""GitHub's ``LockReason`` enum (GraphQL schema)."""


class Admin:
    """The admin operations (``/_emulator/...`` and their Python forms); GitHub has no
    such routes."""

    def request_log(self: Emulator) -> list[dict[str, Any]]:
        with self._log_lock:
            return [e.as_dict() for e in self._log]

    def clear_request_log(self: Emulator) -> None:
        with self._log_lock:
            self._log.clear()

    def tamper(
        self: Emulator, action: str, node: str, actor: str = "ghost", body: str | None = None
    ) -> None:
        """Another actor edits, deletes or minimizes a comment, or edits a discussion's
        body (by node id). The effect is what readers see after a moderator or the
        author acted on GitHub; ``actor`` is informational.

        Raises:
            ValueError: unknown action, an action a discussion does not take, or
                ``node`` is not an existing comment or discussion.
        """
        decoded = decode_node_id(node)
        if decoded is None or decoded.typename not in ("DiscussionComment", "Discussion"):
            raise ValueError(f"{node!r} is not a DiscussionComment or Discussion id")
        table = "comments" if decoded.typename == "DiscussionComment" else "discussions"
        ident = int(decoded.payload[-1])
        with self.state.transaction():
            if self.state.one(f"SELECT id FROM {table} WHERE id = ?", ident) is None:  # noqa: S608
                raise ValueError(f"{decoded.typename} {node!r} does not exist")
            self._tamper_row(action, decoded.typename, ident, body)

    def _tamper_row(
        self: Emulator, action: str, typename: str, ident: int, body: str | None
    ) -> None:
        now = self.clock.now()
        text = body or "edited by another actor"
        if typename == "Discussion":
            if action != "edit":
                raise ValueError(f"a discussion can only be edited, not {action!r}")
            with self.state.transaction() as db:
                db.execute(
                    "UPDATE discussions SET body = ?, last_edited_at = ?, updated_at = ?, "
                    "includes_created_edit = 1 WHERE id = ?",
                    (text, now, now, ident),
                )
        elif action == "edit":
            edit_comment(self.state, ident, text, now)
        elif action == "delete":
            delete_comment(self.state, ident, now)
        elif action == "minimize":
            minimize_comment(self.state, ident, "outdated", True)
        else:
            raise ValueError(f"unknown tamper action {action!r}; use edit, delete or minimize")

    def add_token(
        self: Emulator,
        token: str,
        actor: str,
        role: str = "write",
        *,
        discussions: str = "write",
        contents: str = "write",
        rate_limit: int = 5000,
        kind: str = "User",
        actions: str = "read",
    ) -> None:
        """Add (or replace) a token for ``actor``, creating the actor (of ``kind``) if
        new; ``discussions``, ``contents``, ``actions``: the permissions it carries.
        Raises ValueError for an unknown role or access level."""
        with self.state.transaction():
            row = self.state.actor_by_login(actor)
            actor_id = (
                int(row["id"]) if row is not None else self.state.add_actor(actor, kind, None, None)
            )
            self.state.add_token(token, actor_id, role, discussions, contents, rate_limit, None,
                                 actions=actions)

    def rename_repository(self: Emulator, name_with_owner: str, new_name: str) -> None:
        """Rename a repository: its node id stays, the old name keeps resolving (until
        another repository takes it). Raises ValueError when the repository does not
        exist or its owner has a repository of that name."""
        owner, _, name = name_with_owner.partition("/")
        row = self.state.repository_by_name(owner, name, follow_renames=False)
        if row is None:
            raise ValueError(f"no repository {name_with_owner!r}")
        self._name_free(owner, new_name, int(row["id"]))
        self.state.rename_repository(int(row["id"]), new_name)

    def _name_free(self: Emulator, owner: str, name: str, repo_id: int) -> None:
        taken = self.state.repository_by_name(owner, name, follow_renames=False)
        if taken is not None and int(taken["id"]) != repo_id:
            raise ValueError(f"{owner}/{name} already exists")

    def _repository(self: Emulator, name_with_owner: str) -> Any:
        owner, _, name = name_with_owner.partition("/")
        row = self.state.repository_by_name(owner, name)
        if row is None:
            raise ValueError(f"no repository {name_with_owner!r}")
        return row

    def transfer_repository(self: Emulator, name_with_owner: str, new_owner: str) -> None:
        """Transfer a repository to another owner (an existing User or Organization):
        its node id stays, the old owner/name keeps resolving. Raises ValueError for an
        unknown repository or owner, or when the new owner has a repository of that
        name."""
        repo = self._repository(name_with_owner)
        owner = self.state.actor_by_login(new_owner)
        if owner is None or owner["kind"] == "Bot":
            raise ValueError(f"no user or organization {new_owner!r}")
        self._name_free(str(owner["login"]), str(repo["name"]), int(repo["id"]))
        self.state.transfer_repository(int(repo["id"]), int(owner["id"]))

    def open_pull_request(
        self: Emulator,
        name_with_owner: str,
        head: str,
        base: str,
        title: str = "",
        author: str | None = None,
    ) -> int:
        """Open a pull request from branch ``head`` into ``base`` now (``createdAt`` is
        the emulator clock's time) and return its number, the repository's next number.
        Raises ValueError for an unknown repository, branch or author, ``head`` equal to
        ``base``, or an open pull request of the same head and base (GitHub: "A pull
        request already exists")."""
        repo = self._repository(name_with_owner)
        repo_id = int(repo["id"])
        if head == base:
            raise ValueError("head and base are the same branch")
        oids = {}
        for branch in (head, base):
            ref = self.state.ref(repo_id, f"refs/heads/{branch}")
            if ref is None:
                raise ValueError(f"no branch {branch!r} in {name_with_owner}")
            oids[branch] = str(ref["oid"])
        if self.state.one(
            "SELECT id FROM pull_requests WHERE repo_id = ? AND head_ref = ? AND base_ref = ?"
            " AND state = 'OPEN'", repo_id, head, base) is not None:
            raise ValueError(f"a pull request from {head} into {base} is already open")
        author_id = None
        if author is not None:
            row = self.state.actor_by_login(author)
            if row is None:
                raise ValueError(f"no actor {author!r}")
            author_id = int(row["id"])
        number = self.state.take_number(repo_id)
        with self.state.transaction() as db:
            db.execute(
                "INSERT INTO pull_requests VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (self.state.next_id(), repo_id, number, title or f"Pull request {number}",
                 "", author_id, head, oids[head], base, oids[base], "OPEN",
                 self.clock.now()),
            )
        return number

    def add_ruleset(
        self: Emulator,
        repository: str,
        name: str,
        include: list[str],
        rules: list[Any],
        bypass: list[str] | tuple[str, ...] = (),
        exclude: list[str] | tuple[str, ...] = (),
    ) -> int:
        """Add a ruleset to ``repository`` (``owner/name``): ``include`` ref patterns
        (less those ``exclude`` matches),
        ``rules`` (names or ``{type, parameters}``, :data:`.rulesets.RULES`), ``bypass``
        logins exempt from it (never ``github-actions``: GitHub refuses it). Returns its
        id. Raises ValueError for a bad ruleset."""
        repo = self._repository(repository)
        return rulesets.add_ruleset(
            self.state, int(repo["id"]), name, list(include), list(rules), list(bypass),
            list(exclude)
        )

    def _discussion_row(self: Emulator, node: str) -> Any:
        decoded = decode_node_id(node)
        if decoded is None or decoded.typename != "Discussion":
            raise ValueError(f"{node!r} is not a Discussion id")
        row = self.state.one("SELECT * FROM discussions WHERE id = ?", int(decoded.payload[-1]))
        if row is None:
            raise ValueError(f"Discussion {node!r} does not exist")
        return row

    def delete_discussion(self: Emulator, node: str) -> None:
        """Delete a discussion and every comment in it (a maintainer deleted it on
        GitHub: ``discussion(number)`` and ``node`` answer NOT_FOUND from then on)."""
        row = self._discussion_row(node)
        with self.state.transaction() as db:
            db.execute("DELETE FROM comments WHERE discussion_id = ?", (row["id"],))
            db.execute("DELETE FROM discussions WHERE id = ?", (row["id"],))

    def move_discussion(self: Emulator, node: str, category: str) -> None:
        """Move a discussion to another category (by slug) of its repository."""
        row = self._discussion_row(node)
        cat = self.state.one(
            "SELECT * FROM categories WHERE repo_id = ? AND slug = ?", row["repo_id"], category
        )
        if cat is None:
            raise ValueError(f"no category {category!r} in the discussion's repository")
        with self.state.transaction() as db:
            db.execute(
                "UPDATE discussions SET category_id = ?, updated_at = ? WHERE id = ?",
                (cat["id"], self.clock.now(), row["id"]),
            )

    def transfer_discussion(
        self: Emulator, node: str, repository: str, category: str | None = None
    ) -> int:
        """Transfer a discussion to another repository (``owner/name``), into
        ``category`` (a slug; default its first category). It takes the next number
        there and keeps its node id; the old number answers NOT_FOUND. Returns the new
        number. As on GitHub (docs, "Managing discussions"), only between repositories
        of one owner, and never from a private repository to a public one.

        Raises:
            ValueError: no such discussion, repository or category; the same
                repository; another owner; private to public.
        """
        row = self._discussion_row(node)
        target = self._repository(repository)
        tid = int(target["id"])
        if tid == int(row["repo_id"]):
            raise ValueError("the discussion is already in that repository")
        source = self.state.repository(int(row["repo_id"]))
        assert source is not None
        if int(source["owner_id"]) != int(target["owner_id"]):
            raise ValueError("GitHub transfers discussions only between repositories of "
                             "one owner")
        if source["private"] and not target["private"]:
            raise ValueError("GitHub does not transfer a discussion from a private "
                             "repository to a public one")
        cat = self.state.one(
            "SELECT * FROM categories WHERE repo_id = ? AND (? IS NULL OR slug = ?) ORDER BY id",
            tid,
            category,
            category,
        )
        if cat is None:
            raise ValueError(f"{repository} has no discussion category {category or ''}".strip())
        with self.state.transaction() as db:
            number = self.state.take_number(tid)
            db.execute(
                "UPDATE discussions SET id_repo = coalesce(id_repo, repo_id), repo_id = ?, "
                "number = ?, category_id = ?, updated_at = ? WHERE id = ?",
                (tid, number, cat["id"], self.clock.now(), row["id"]),
            )
        return number

    def snapshot(self: Emulator) -> dict[str, Any]:
        """The whole state as JSON-ready data (ids in GitHub's node-id format)."""
        st = self.state
        with st.lock:
            repos = []
            for r in st.all("SELECT * FROM repositories ORDER BY id"):
                rid = int(r["id"])
                owner = st.actor(int(r["owner_id"]))
                discussions = []
                for d in st.all("SELECT * FROM discussions WHERE repo_id = ? ORDER BY id", rid):
                    did = int(d["id_repo"] if d["id_repo"] is not None else rid)
                    comments = [
                        {
                            "id": node_id("DiscussionComment", did, int(c["id"])),
                            "reply_to": None
                            if c["reply_to"] is None
                            else node_id("DiscussionComment", did, int(c["reply_to"])),
                            "author": (st.actor(c["author_id"]) or {"login": None})["login"],
                            "body": c["body"],
                            "created_at": iso(c["created_at"]),
                            "last_edited_at": iso(c["last_edited_at"]),
                            "deleted_at": iso(c["deleted_at"]),
                            "is_minimized": bool(c["is_minimized"]),
                            "visible_at": iso(c["visible_at"]),
                        }
                        for c in st.all(
                            "SELECT * FROM comments WHERE discussion_id = ? ORDER BY id", d["id"]
                        )
                    ]
                    discussions.append(
                        {
                            "id": node_id("Discussion", did, int(d["id"])),
                            "number": d["number"],
                            "category": d["category_id"]
                            and node_id("DiscussionCategory", rid, int(d["category_id"])),
                            "title": d["title"],
                            "locked": bool(d["locked"]),
                            "comments": comments,
                        }
                    )
                repos.append(
                    {
                        "id": node_id("Repository", rid),
                        "databaseId": rid,
                        "nameWithOwner": f"{owner['login'] if owner else '?'}/{r['name']}",
                        "categories": [
                            {
                                "id": node_id("DiscussionCategory", rid, int(c["id"])),
                                "slug": c["slug"],
                            }
                            for c in st.all("SELECT * FROM categories WHERE repo_id = ?", rid)
                        ],
                        "pull_requests": [
                            {"id": node_id("PullRequest", rid, int(p["id"])), "number": p["number"]}
                            for p in st.all("SELECT * FROM pull_requests WHERE repo_id = ?", rid)
                        ],
                        "refs": {
                            f["name"]: f["oid"]
                            for f in st.all(
                                "SELECT * FROM refs WHERE repo_id = ? ORDER BY name", rid
                            )
                        },
                        "discussions": discussions,
                    }
                )
            return {"now": iso(self.clock.now()), "repositories": repos}

    def add_workflow_run(
        self: Emulator, repository: str, run_id: int, path: str, name: str, head_sha: str,
        *, status: str = "completed", conclusion: str | None = None,
        jobs: list[str] | tuple[str, ...] = (), event: str = "push",
        head_branch: str | None = None,
    ) -> list[dict[str, Any]]:
        """Register a workflow run (the emulator runs no workflows): its first attempt
        in ``status`` (a completed run without ``conclusion`` succeeded) with ``jobs``
        (names). Returns the jobs (``id``, ``name``, ``status``). ``repository`` is
        ``owner/name``; :mod:`.actions` serves it."""
        repo = self._repository(repository)
        actions.add_run(self.state, int(repo["id"]), int(run_id), path=path, name=name,
                        head_sha=head_sha, now=self.clock.now(), status=status,
                        conclusion=conclusion, jobs=list(jobs), event=event,
                        head_branch=head_branch)
        return actions.jobs_of(self.state, int(repo["id"]), int(run_id), 1)

    def rerun_workflow(self: Emulator, repository: str, run_id: int,
                       jobs: list[str] | tuple[str, ...] = ()) -> dict[str, Any]:
        """Re-run a completed run: its next attempt starts, in progress, with ``jobs``.
        Returns ``{"run_attempt", "jobs"}``."""
        repo = self._repository(repository)
        attempt = actions.rerun(self.state, int(repo["id"]), int(run_id), list(jobs),
                                self.clock.now())
        return {"run_attempt": attempt,
                "jobs": actions.jobs_of(self.state, int(repo["id"]), int(run_id), attempt)}

    def end_workflow_run(self: Emulator, repository: str, run_id: int,
                         conclusion: str = "success") -> None:
        """End a run's latest attempt (``cancelled`` cancels its unfinished jobs)."""
        repo = self._repository(repository)
        actions.end_run(self.state, int(repo["id"]), int(run_id), conclusion,
                        self.clock.now())

    def set_workflow_job(self: Emulator, job_id: int, status: str,
                         conclusion: str | None = None) -> None:
        """Set one job's ``status`` (and ``conclusion`` when ``completed``)."""
        actions.set_job(self.state, int(job_id), status, conclusion, self.clock.now())

    def add_release(self: Emulator, repository: str, tag: str, *, name: str | None = None,
                    draft: bool = False, prerelease: bool = False,
                    assets: list[dict[str, Any]] | tuple[dict[str, Any], ...] = ()) -> int:
        """Publish a release (a draft with ``draft``) with ``assets`` (``name``,
        ``content`` or ``content_base64``, ``content_type``, ``digest``: None for an
        asset from before GitHub's digests); returns its id (:mod:`.releases`)."""
        return releases.admin_release(self, repository, {
            "tag": tag, "name": name, "draft": draft, "prerelease": prerelease,
            "assets": list(assets)})

    def add_branch_protection(self: Emulator, repository: str, pattern: str,
                              **settings: Any) -> int:
        """Protect the branches matching ``pattern`` (classic branch protection,
        :mod:`.protection`); returns the rule's id."""
        repo = self._repository(repository)
        return protection.add_protection(self.state, int(repo["id"]), pattern, settings)

    def lock_discussion(self: Emulator, node: str, reason: str | None = None) -> None:
        """Lock a discussion as a lock bot does (dessant/lock-threads locks with no
        reason for discussions); ``reason`` one of GitHub's ``LockReason`` values."""
        if reason is not None and reason not in LOCK_REASONS:
            raise ValueError(f"lock reason must be one of {LOCK_REASONS}")
        row = self._discussion_row(node)
        with self.state.transaction() as db:
            db.execute("UPDATE discussions SET locked = 1, lock_reason = ? WHERE id = ?",
                       (reason, row["id"]))

    def unlock_discussion(self: Emulator, node: str) -> None:
        """Unlock a discussion."""
        row = self._discussion_row(node)
        with self.state.transaction() as db:
            db.execute("UPDATE discussions SET locked = 0, lock_reason = NULL WHERE id = ?",
                       (row["id"],))

    def delete_ref(self: Emulator, repository: str, ref: str, actor: str) -> None:
        """``actor`` (a login with a token of ``contents: write``, or any collaborator)
        deletes ``ref`` (``refs/heads/...``) as on github.com: the repository's rulesets
        and branch protection apply to them (a ``deletion`` rule refuses it); GitHub
        sends the ``delete`` event. Raises ValueError with GitHub's refusal."""
        repo = self._repository(repository)
        rid = int(repo["id"])
        who = self.state.actor_by_login(actor)
        if who is None:
            raise ValueError(f"no actor {actor!r}")
        if self.state.ref(rid, ref) is None:
            raise ValueError(f"{repository} has no ref {ref}")
        token = self.state.one("SELECT role FROM tokens WHERE actor_id = ? ORDER BY "
                               "rowid LIMIT 1", who["id"])
        refusal = refpolicy.check(self.state, self.fidelity, rid, ref, "deletion", who,
                                  str(token["role"]) if token else "maintain")
        if refusal is not None:
            raise ValueError(refusal.rest()[1]["message"])
        self.state.set_ref(rid, ref, None)
        hooks.ref_events(self, [(rid, ref, "delete")], who)

    def set_discussions_enabled(self: Emulator, repository: str, enabled: bool) -> None:
        """Turn the repository's Discussions on or off (Settings, Features)."""
        repo = self._repository(repository)
        with self.state.transaction() as db:
            db.execute("UPDATE repositories SET has_discussions = ? WHERE id = ?",
                       (int(enabled), repo["id"]))

    def _admin_more(self: Emulator, req: Request, route: str, data: Any) -> Reply | None:
        """Workflow runs and jobs, releases, branch protection, ref deletion and the
        repository's Discussions switch; None for other routes."""
        parts = [p for p in route.split("/") if p][1:]
        if req.method != "POST":
            return None
        if parts == ["runs"]:
            jobs = self.add_workflow_run(
                str(data["repository"]), int(data["run_id"]), str(data.get("path", "")),
                str(data.get("name", "")), str(data.get("head_sha", "")),
                status=str(data.get("status", "completed")),
                conclusion=data.get("conclusion"), jobs=list(data.get("jobs", [])),
                event=str(data.get("event", "push")), head_branch=data.get("head_branch"))
            return self._json(req, 201, {"ok": True, "run_attempt": 1, "jobs": jobs})
        if len(parts) == 3 and parts[0] == "runs" and parts[2] == "attempts":
            return self._json(req, 201, self.rerun_workflow(
                str(data["repository"]), int(parts[1]), list(data.get("jobs", []))))
        if len(parts) == 3 and parts[0] == "runs" and parts[2] == "end":
            self.end_workflow_run(str(data["repository"]), int(parts[1]),
                                  str(data.get("conclusion", "success")))
            return self._json(req, 200, {"ok": True})
        if len(parts) == 2 and parts[0] == "jobs":
            self.set_workflow_job(int(parts[1]), str(data["status"]), data.get("conclusion"))
            return self._json(req, 200, {"ok": True})
        if parts == ["releases"]:
            ident = releases.admin_release(self, str(data["repository"]), dict(data))
            return self._json(req, 201, {"id": ident})
        if parts == ["branch-protection"]:
            settings = {k: v for k, v in data.items() if k not in ("repository", "pattern")}
            ident = self.add_branch_protection(str(data["repository"]), str(data["pattern"]),
                                               **settings)
            return self._json(req, 201, {"id": ident})
        if parts == ["refs"] and data.get("action") == "delete":
            self.delete_ref(str(data["repository"]), str(data["ref"]), str(data["actor"]))
            return self._json(req, 200, {"ok": True})
        if parts == ["repository"]:
            self.set_discussions_enabled(str(data["repository"]),
                                         bool(data["has_discussions"]))
            return self._json(req, 200, {"ok": True})
        return None

    def _admin(self: Emulator, req: Request, route: str) -> Reply:
        try:
            data = json.loads(req.body) if req.body else {}
        except ValueError:
            return self._json(req, 400, {"message": "body is not JSON"})
        try:
            if route == "/_emulator/faults":
                if req.method == "GET":
                    return self._json(req, 200, {"rules": self.faults.describe()})
                if req.method == "DELETE":
                    self.clear_faults()
                    return self._json(req, 200, {"rules": []})
                if req.method == "POST":
                    rules = data.get("rules", [data]) if isinstance(data, dict) else data
                    ids = [self.add_fault(dict(r)) for r in rules]
                    return self._json(req, 201, {"ids": ids})
            if route.startswith("/_emulator/faults/") and req.method == "DELETE":
                self.remove_fault(int(route.rsplit("/", 1)[1]))
                return self._json(req, 200, {"rules": self.faults.describe()})
            if route == "/_emulator/state" and req.method == "GET":
                return self._json(req, 200, self.snapshot())
            if route == "/_emulator/requests":
                if req.method == "DELETE":
                    self.clear_request_log()
                    return self._json(req, 200, {"requests": []})
                return self._json(req, 200, {"requests": self.request_log()})
            if route == "/_emulator/clock" and req.method == "POST":
                self.clock.advance(float(data.get("advance", 0)))
                return self._json(req, 200, {"now": iso(self.clock.now())})
            if route == "/_emulator/tokens" and req.method == "POST":
                self.add_token(
                    str(data["token"]),
                    str(data["actor"]),
                    str(data.get("role", "write")),
                    discussions=str(data.get("discussions", "write")),
                    contents=str(data.get("contents", "write")),
                    rate_limit=int(data.get("rate_limit", 5000)),
                    kind=str(data.get("kind", "User")),
                    actions=str(data.get("actions", "read")),
                )
                return self._json(req, 201, {"ok": True})
            answered = self._admin_more(req, route, data)
            if answered is not None:
                return answered
            if route == "/_emulator/rename" and req.method == "POST":
                self.rename_repository(str(data["repository"]), str(data["name"]))
                return self._json(req, 200, {"ok": True})
            if route == "/_emulator/transfer" and req.method == "POST":
                self.transfer_repository(str(data["repository"]), str(data["owner"]))
                return self._json(req, 200, {"ok": True})
            if route == "/_emulator/fidelity":
                if req.method == "POST":
                    self.set_fidelity(dict(data))
                return self._json(req, 200, {"fidelity": self.fidelity.as_dict()})
            if route == "/_emulator/pulls" and req.method == "POST":
                number = self.open_pull_request(
                    str(data["repository"]),
                    str(data["head"]),
                    str(data["base"]),
                    str(data.get("title", "")),
                    data.get("author"),
                )
                return self._json(req, 201, {"number": number})
            if route == "/_emulator/rulesets" and req.method == "POST":
                ident = self.add_ruleset(
                    str(data["repository"]),
                    str(data["name"]),
                    list(data["include"]),
                    list(data["rules"]),
                    list(data.get("bypass", [])),
                    list(data.get("exclude", [])),
                )
                return self._json(req, 201, {"id": ident})
            if route == "/_emulator/discussion" and req.method == "POST":
                action, node = str(data["action"]), str(data["node"])
                if action == "delete":
                    self.delete_discussion(node)
                    return self._json(req, 200, {"ok": True})
                if action == "move":
                    self.move_discussion(node, str(data["category"]))
                    return self._json(req, 200, {"ok": True})
                if action == "lock":
                    self.lock_discussion(node, data.get("reason"))
                    return self._json(req, 200, {"ok": True})
                if action == "unlock":
                    self.unlock_discussion(node)
                    return self._json(req, 200, {"ok": True})
                if action == "transfer":
                    number = self.transfer_discussion(
                        node, str(data["repository"]), data.get("category")
                    )
                    return self._json(req, 200, {"ok": True, "number": number})
                raise ValueError(
                    f"unknown discussion action {action!r}; use delete, move, transfer, "
                    "lock or unlock"
                )
            if route == "/_emulator/tamper" and req.method == "POST":
                self.tamper(
                    str(data["action"]),
                    str(data["node"]),
                    str(data.get("actor", "ghost")),
                    data.get("body"),
                )
                return self._json(req, 200, {"ok": True})
        except (ValueError, TypeError, KeyError) as exc:
            return self._json(req, 400, {"message": f"bad admin request: {exc}"})
        return self._json(req, 404, {"message": f"no admin route {req.method} {route}"})


def route(emu: Emulator, req: Request, path: str) -> Reply | None:
    """The ``/_emulator/...`` routes; None for any other path."""
    return emu._admin(req, path) if path.startswith("/_emulator/") else None
