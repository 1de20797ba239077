"""Refs and commits: ``Ref``, ``Commit``, ``Tree`` and the mutations that move refs
(``createRef``, ``updateRefs``, ``deleteRef``, ``createCommitOnBranch``).

``createRef`` refuses an existing name; ``updateRefs`` is all-or-nothing, ``beforeOid``
is compare-and-set (the zero oid: must not exist), a zero ``afterOid`` deletes, and
without ``force`` the new target must descend from the old; a failed update is a
generic error without ``type`` (GitHub's answer is not shown publicly; without a
``type`` a client cannot mistake it for another refusal). ``createCommitOnBranch``
checks ``expectedHeadOid`` and refuses a moved head with ``type: STALE_DATA``, as GitHub
does. Rulesets and branch protection (:mod:`.refpolicy`) refuse what they forbid first.
Commits made by ``createCommitOnBranch`` are committed by GitHub's web-flow identity and
verified (GitHub's schema, the mutation's description). Source: GitHub docs,
GraphQL mutations ``createRef``, ``updateRefs``, ``createCommitOnBranch``; "About
rulesets"; docs/emulator.md (the refs row) for the wording.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from typing import TYPE_CHECKING, Any

from . import git
from .errors import ResolverError
from .graph import Ctx, Info, _ctx, paginate, repository
from .ids import node_id
from .state import iso

if TYPE_CHECKING:
    from .resolvers import Repository

ZERO_OID = "0" * 40


def stale_head(expected: str) -> str:
    """GitHub's refusal of ``createCommitOnBranch`` when the branch is not at
    ``expectedHeadOid`` (``type: STALE_DATA``), as a response captured from GitHub shows
    it, two spaces after "did not." included (ministryofjustice/modernisation-platform#11985)."""
    return f'Expected branch to point to "{expected}" but it did not.  Pull and try again.'


def find_ref(ctx: Ctx, repo_id: int, name: str) -> Ref | None:
    candidates = [name] if name.startswith("refs/") else [f"refs/heads/{name}", f"refs/tags/{name}"]
    for candidate in candidates:
        row = ctx.state.ref(repo_id, candidate)
        if row is not None:
            return Ref(ctx, repo_id, candidate, str(row["oid"]))
    return None


def git_object(ctx: Ctx, repo_id: int, oid: str) -> Commit | Tree | None:
    row = ctx.state.commit(repo_id, oid)
    if row is not None:
        return Commit(ctx, repo_id, row)
    if ctx.state.tree(repo_id, oid) is not None:
        return Tree(ctx, repo_id, oid)
    return None


class Ref:
    __typename = "Ref"

    def __init__(self, ctx: Ctx, repo_id: int, qualified: str, oid: str) -> None:
        self._ctx = ctx
        self._repo_id = repo_id
        self._qualified = qualified
        self._oid = oid
        self.id = node_id("Ref", repo_id, qualified)
        parts = qualified.split("/")
        if qualified.startswith(("refs/heads/", "refs/tags/")) or len(parts) > 2:
            self.prefix = "/".join(parts[:2]) + "/"
            self.name = "/".join(parts[2:])
        else:
            self.prefix = "refs/"
            self.name = "/".join(parts[1:])

    def repository(self, info: Info) -> Repository:
        return repository(self._ctx, self._repo_id)

    def target(self, info: Info) -> Commit | Tree | None:
        return git_object(self._ctx, self._repo_id, self._oid)


class _GitObject:
    def __init__(self, ctx: Ctx, repo_id: int, oid: str) -> None:
        self._ctx = ctx
        self._repo_id = repo_id
        self.oid = oid
        self.abbreviatedOid = oid[:7]

    def repository(self, info: Info) -> Repository:
        return repository(self._ctx, self._repo_id)

    def commitResourcePath(self, info: Info) -> str:
        return f"/{self.repository(info).nameWithOwner}/commit/{self.oid}"

    def commitUrl(self, info: Info) -> str:
        return f"{self._ctx.server_url}{self.commitResourcePath(info)}"


class Tree(_GitObject):
    __typename = "Tree"

    def __init__(self, ctx: Ctx, repo_id: int, oid: str) -> None:
        super().__init__(ctx, repo_id, oid)
        self.id = node_id("Tree", repo_id, bytes.fromhex(oid))


class Commit(_GitObject):
    __typename = "Commit"

    def __init__(self, ctx: Ctx, repo_id: int, row: sqlite3.Row) -> None:
        super().__init__(ctx, repo_id, str(row["oid"]))
        self._row = row
        self.id = node_id("Commit", repo_id, bytes.fromhex(self.oid))
        self.message = row["message"]
        self.messageHeadline = str(row["message"]).split("\n", 1)[0]
        committer = json.loads(row["committer"])
        self.committedDate = iso(float(committer[2]))

    def url(self, info: Info) -> str:
        return self.commitUrl(info)

    def resourcePath(self, info: Info) -> str:
        return self.commitResourcePath(info)

    def tree(self, info: Info) -> Tree:
        return Tree(self._ctx, self._repo_id, str(self._row["tree"]))

    def parents(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        items: list[tuple[int, Any]] = []
        for i, oid in enumerate(json.loads(self._row["parents"])):
            obj = git_object(self._ctx, self._repo_id, oid)
            if isinstance(obj, Commit):
                items.append((i, obj))
        return paginate(items, first, after, last, before, info)


def _actor_signature(ctx: Ctx) -> tuple[str, str, int]:
    login = str(ctx.viewer["login"])
    ident = int(ctx.viewer["id"])
    if ctx.viewer["kind"] == "Bot":
        login = f"{login}[bot]"
    return (login, f"{ident}+{login}@users.noreply.github.com", int(ctx.now))


class RefMutations:
    """The ``Mutation`` fields that write refs and commits (mixed into ``MutationRoot``)."""

    def createRef(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        ctx = _ctx(info)
        repo = resolvers.node_of(ctx, input["repositoryId"], resolvers.Repository)
        ctx.require_contents("write")
        name = input["name"]
        if not name.startswith("refs/") or name.count("/") < 2 or name.endswith("/"):
            raise ResolverError(
                f"Reference name '{name}' is not fully qualified (refs/...).", "UNPROCESSABLE"
            )
        if ctx.state.commit(repo.databaseId, input["oid"]) is None:
            raise ResolverError(f"Object '{input['oid']}' does not exist.", "UNPROCESSABLE")
        ctx.refuse_ref_write(repo.databaseId, name, "creation", after=input["oid"])
        with ctx.state.transaction():
            if ctx.state.ref(repo.databaseId, name) is not None:
                raise ResolverError(
                    f'A ref named "{name}" already exists in the repository.', "UNPROCESSABLE"
                )
            ctx.state.set_ref(repo.databaseId, name, input["oid"])
        ctx.refs_changed.append((repo.databaseId, name, "create"))
        return {
            "clientMutationId": input.get("clientMutationId"),
            "ref": Ref(ctx, repo.databaseId, name, input["oid"]),
        }

    def updateRefs(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        """All updates apply or none does; ``beforeOid`` is compare-and-set (zero oid:
        the ref must not exist), a zero ``afterOid`` deletes, and without ``force`` the
        new target must descend from the current one."""
        ctx = _ctx(info)
        repo = resolvers.node_of(ctx, input["repositoryId"], resolvers.Repository)
        ctx.require_contents("write")
        st = ctx.state
        with st.transaction():
            plan: list[tuple[str, str | None]] = []
            for upd in input["refUpdates"]:
                name, after = upd["name"], upd["afterOid"]
                before = upd.get("beforeOid")
                current_row = st.ref(repo.databaseId, name)
                current = None if current_row is None else str(current_row["oid"])
                if before is not None:
                    expected = None if before == ZERO_OID else before
                    if current != expected:
                        raise ResolverError(
                            f"Could not update {name}: expected it at {before}, "
                            f"found {current or ZERO_OID}."
                        )
                if after == ZERO_OID:
                    if current is None:
                        raise ResolverError(f"Could not delete {name}: it does not exist.")
                    ctx.refuse_ref_write(repo.databaseId, name, "deletion")
                    plan.append((name, None))
                    continue
                if st.commit(repo.databaseId, after) is None:
                    raise ResolverError(f"Could not update {name}: object {after} does not exist.")
                forced = current is not None and not st.is_ancestor(repo.databaseId, current,
                                                                    after)
                if forced and not upd.get("force"):
                    raise ResolverError(f"Could not update {name}: update is not a fast forward.")
                ctx.refuse_ref_write(repo.databaseId, name,
                                     "creation" if current is None else "update",
                                     after=after, force=forced)
                plan.append((name, after))
            for name, target in plan:
                if target is None or st.ref(repo.databaseId, name) is None:
                    ctx.refs_changed.append(
                        (repo.databaseId, name, "delete" if target is None else "create"))
                st.set_ref(repo.databaseId, name, target)
        return {"clientMutationId": input.get("clientMutationId")}

    def deleteRef(self, info: Info, input: dict[str, Any]) -> dict[str, Any]:  # noqa: A002
        ctx = _ctx(info)
        ref = resolvers.node_of(ctx, input["refId"], Ref)
        ctx.require_contents("write")
        ctx.refuse_ref_write(ref._repo_id, ref._qualified, "deletion")
        ctx.state.set_ref(ref._repo_id, ref._qualified, None)
        ctx.refs_changed.append((ref._repo_id, ref._qualified, "delete"))
        return {"clientMutationId": input.get("clientMutationId")}

    def createCommitOnBranch(
        self,
        info: Info,
        input: dict[str, Any],  # noqa: A002
    ) -> dict[str, Any]:
        ctx = _ctx(info)
        branch = input["branch"]
        st = ctx.state
        if branch.get("id"):
            ref = resolvers.node_of(ctx, branch["id"], Ref)
            repo_id, qualified = ref._repo_id, ref._qualified
        else:
            nwo = branch.get("repositoryNameWithOwner") or ""
            owner, _, name = nwo.partition("/")
            row = st.repository_by_name(owner, name)
            if row is None or not branch.get("branchName"):
                raise ResolverError(
                    "A branch needs either an id or repositoryNameWithOwner and branchName.",
                    "UNPROCESSABLE",
                )
            repo_id = int(row["id"])
            bn = str(branch["branchName"])
            qualified = bn if bn.startswith("refs/heads/") else f"refs/heads/{bn}"
        ctx.require_contents("write")
        with st.transaction():
            head = st.ref(repo_id, qualified)
            if head is None:
                # GitHub's wording (github/gh-aw#22564); its type is not shown publicly
                raise ResolverError("Branch not found", "NOT_FOUND")
            expected = input["expectedHeadOid"]
            if str(head["oid"]) != expected and ctx.fidelity.stale_data:
                # the rules come first: a refused write says so, stale or not
                ctx.refuse_ref_write(repo_id, qualified, "update")
                raise ResolverError(stale_head(expected), "STALE_DATA")
            parent = st.commit(repo_id, str(head["oid"]))
            assert parent is not None
            tree_row = st.tree(repo_id, str(parent["tree"]))
            files: dict[str, str] = json.loads(tree_row["files"]) if tree_row else {}
            changes = input.get("fileChanges") or {}
            for deletion in changes.get("deletions") or []:
                if deletion["path"] not in files:
                    raise ResolverError(
                        f"A path was requested for deletion which does not exist as of "
                        f"commit oid `{expected}`",
                        "UNPROCESSABLE",
                    )
                del files[deletion["path"]]
            for addition in changes.get("additions") or []:
                try:
                    base64.b64decode(addition["contents"], validate=True)
                    git.tree_entries({addition["path"]: b""})
                except ValueError as exc:
                    raise ResolverError(str(exc), "UNPROCESSABLE") from exc
                files[addition["path"]] = addition["contents"]
            tree = st.add_tree(repo_id, files)
            msg = input["message"]
            message = msg["headline"] + (f"\n\n{msg['body']}" if msg.get("body") else "")
            sig = _actor_signature(ctx)
            # GitHub's schema: "The committer will be identical to that of commits
            # authored using the web interface" and the commit is "automatically signed by
            # GitHub if supported and will be marked as verified"
            web = ("GitHub", "noreply@github.com", sig[2])
            oid = st.add_commit(repo_id, tree, [str(head["oid"])], message, sig, web)
            st.set_verification(repo_id, oid, "valid")
            ctx.refuse_ref_write(repo_id, qualified, "update", after=oid)
            st.set_ref(repo_id, qualified, oid)
        commit_row = st.commit(repo_id, oid)
        assert commit_row is not None
        return {
            "clientMutationId": input.get("clientMutationId"),
            "commit": Commit(ctx, repo_id, commit_row),
            "ref": Ref(ctx, repo_id, qualified, oid),
        }


# last: resolvers imports this module's types, and these mutations use its node lookup
from . import resolvers  # noqa: E402
