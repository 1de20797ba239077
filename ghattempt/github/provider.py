"""``GitHubProvider``: every GitHub call the journal, the store and the ref lease make.

Sync, one instance per thread. Methods take and return small frozen records
(:mod:`ghattempt.github.models`); errors are those of :mod:`ghattempt.github.errors`.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any
from urllib.parse import quote

from ..core import ReleaseAsset
from .capture import PAGE_SIZE, CaptureResult, capture_pages
from .config import ProviderConfig
from .documents import described, document
from .errors import (
    AmbiguousOutcome,
    GitHubError,
    GitHubRefused,
    InputError,
    NotFound,
    UnexpectedAnswer,
)
from .identity import Identity
from .models import (
    EMPTY_TREE,
    Budget,
    Comment,
    Commit,
    Discussion,
    DiscussionCategory,
    DiscussionSummary,
    ProbeView,
    PullRequest,
    Ref,
    Repository,
    RunStatus,
    Thread,
    ThreadComment,
    WriterStart,
)
from .transport import Transport, check_segment
from .usage import Usage

__all__ = ["GitHubProvider"]

BODY_LIMIT = 65_536
"""GitHub's largest comment or discussion body, in characters (architecture, storage facts)."""

_OID_LENGTHS = (40, 64)


def _oid(value: str, what: str) -> str:
    if (not isinstance(value, str) or len(value) not in _OID_LENGTHS
            or any(c not in "0123456789abcdef" for c in value)):
        raise InputError(f"{what} must be a lowercase hex Git object id, got {value!r}")
    return value


def _body(value: str, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(f"{what} must be a non-empty string")
    if len(value) > BODY_LIMIT:
        raise InputError(f"{what} has {len(value)} characters; GitHub accepts {BODY_LIMIT}")
    return value


def _qualified(name: str) -> str:
    if not isinstance(name, str) or not name.startswith("refs/") or ".." in name:
        raise InputError(f"ref name must be fully qualified (refs/heads/x), got {name!r}")
    return name


def _shape(op: str, value: Any, *path: str) -> Any:
    """``value[path[0]][path[1]]...``; KeyError naming the path when a level is missing or
    null (turned into UnexpectedAnswer or AmbiguousOutcome by ``_answer``)."""
    for key in path:
        if not isinstance(value, dict) or value.get(key) is None:
            raise KeyError(f"{op} answer lacks {'.'.join(path)}")
        value = value[key]
    return value


class GitHubProvider:
    """GitHub access for ghattempt over GraphQL (and one REST call), built on githubkit.

    Example::

        with GitHubProvider(ProviderConfig(auth=TokenAuth.from_env())) as gh:
            repo = gh.repository("octo", "app")
            pages = gh.capture_journal("octo", "app", 7)
    """

    def __init__(self, config: ProviderConfig) -> None:
        self._config = config
        self._transport = Transport(config)

    def __repr__(self) -> str:
        return f"GitHubProvider(base_url={self._config.base_url!r}, auth={self._config.auth!r})"

    def __enter__(self) -> GitHubProvider:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connections."""
        self._transport.close()

    @property
    def config(self) -> ProviderConfig:
        return self._config

    @property
    def usage(self) -> Usage:
        """Requests and points spent so far, in total and by operation."""
        return self._transport.usage

    def pace(self) -> float:
        """Wait until the next mutation may go without pacing; returns the
        seconds waited. Call it before the last ownership check (writer protocol step 4)
        so that no pacing wait falls between that check and the send."""
        return self._transport.pace()

    @property
    def last_server_time(self) -> float | None:
        """GitHub's clock at the last answer, POSIX seconds from its ``Date`` header (a
        lease is timed by GitHub's clock, not ours); None before any answer."""
        return self._transport.last_date

    def _query(self, name: str, variables: Mapping[str, Any]) -> dict[str, Any]:
        return self._transport.graphql(document(name), variables)

    def _data(self, name: str, variables: Mapping[str, Any]) -> dict[str, Any]:
        data = self._query(name, variables).get("data")
        if not isinstance(data, dict):
            raise KeyError(f"{name} answer has no data")
        return data

    @contextmanager
    def _answer(self, name: str, variables: Mapping[str, Any], *,
                rest_path: str | None = None) -> Iterator[None]:
        """Read GitHub's answer inside this block: a missing field or a wrong type becomes
        :class:`UnexpectedAnswer` for a read, and :class:`AmbiguousOutcome` (carrying the
        exact bytes sent) for a mutation, which may have committed."""
        try:
            yield
        except GitHubError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            detail = f"{type(exc).__name__}: {exc}"[:200]
            if rest_path is None and not document(name).is_mutation:
                raise UnexpectedAnswer(
                    f"{described(name)}: GitHub's answer has an unexpected shape ({detail})",
                    operation=name) from None
            if rest_path is None:
                doc = document(name)
                body = self._transport.encode({"query": doc.text, "variables": dict(variables),
                                               "operationName": name})
                url = self._config.graphql_url
            else:
                body, url = self._transport.encode(variables), rest_path
            raise AmbiguousOutcome(
                f"{described(name)}: GitHub's answer lacks the result ({detail}); it may have "
                "committed. Read back before sending the same bytes again.",
                operation=name, variables=dict(variables), body=body,
                reason="answer without the expected result", url=url) from None

    # -- repositories -----------------------------------------------------------------

    def repository(self, owner: str, name: str) -> Repository:
        """The repository's node id, databaseId, name and discussion categories, and who
        the token is on this host (``Repository.viewer``), in one request.

        Raises:
            NotFound: no such repository, or not visible to these credentials.
        """
        variables = {"owner": check_segment(owner, "owner"),
                     "name": check_segment(name, "repository")}
        with self._answer("RepositoryLookup", variables):
            return _repository_of(self._data("RepositoryLookup", variables), owner, name,
                                  "RepositoryLookup")

    def writer_read(self, owner: str, name: str, *, pull_request: int | None = None,
                    lease: str | None = None, number: int | None = None) -> WriterStart:
        """What a writer reads at start, in one ``WriterRead`` request: the repository and
        who the token is (as :meth:`repository`), the pull request when ``pull_request``
        is given, and, when ``lease`` and ``number`` say where the journal is, the lease
        ref and the journal's first page with the lease member (a JournalPage of spec
        journal-v1 section 5, to hand to :meth:`capture_with_lease` as ``first_page``).

        A journal that is not there (no such discussion) is read as not asked for: the
        request is made again without it.

        Raises:
            NotFound: no such repository, or no such pull request.
        """
        variables: dict[str, Any] = {
            "owner": check_segment(owner, "owner"), "name": check_segment(name, "repository")}
        if pull_request is not None:
            variables.update(pullRequest=_positive(pull_request, "pull_request"),
                             withPullRequest=True)
        if lease is not None and number is not None:
            variables.update(lease=_qualified(lease), number=_positive(number, "number"),
                             withJournal=True, roots=PAGE_SIZE, replies=PAGE_SIZE)
        with self._answer("WriterRead", variables):
            try:
                response = self._query("WriterRead", variables)
            except NotFound:
                if not variables.get("withJournal"):
                    raise
                # no such discussion (any more): what was known was wrong; read the rest
                variables["withJournal"] = False
                response = self._query("WriterRead", variables)
            data = response.get("data")
            if not isinstance(data, dict):
                raise KeyError("WriterRead answer has no data")
            repository = _repository_of(data, owner, name, "WriterRead")
            repo = data["repository"]
            pull = None
            if pull_request is not None:
                pr = repo.get("pullRequest")
                if not isinstance(pr, dict):
                    raise NotFound(f"{owner}/{name} has no pull request #{pull_request}",
                                   operation="WriterRead")
                head = ((pr.get("headRef") or {}).get("target") or {})
                tree = (head.get("tree") or {}).get("oid") if head.get(
                    "oid") == pr["headRefOid"] else None
                pull = PullRequest(id=pr["id"], number=pr["number"], state=pr["state"],
                                   head_ref_name=pr["headRefName"], head_oid=pr["headRefOid"],
                                   base_ref_name=pr["baseRefName"], base_oid=pr["baseRefOid"],
                                   head_tree_oid=tree or None,
                                   created_at=pr.get("createdAt"))
            ref = _lease_ref(repo.get("lease")) if "lease" in repo else None
            page = response if isinstance(repo.get("discussion"), dict) else None
            return WriterStart(repository, pull, ref, page, self._transport.last_date)

    def repository_by_id(self, repository_id: str) -> Repository:
        """The repository with this node id (survives renames and transfers).

        Raises:
            NotFound: the id names no repository visible to these credentials.
        """
        variables = {"id": repository_id}
        with self._answer("RepositoryById", variables):
            repo = self._data("RepositoryById", variables).get("node")
            if not isinstance(repo, dict) or "nameWithOwner" not in repo:
                raise NotFound(f"no repository with node id {repository_id!r}",
                               operation="RepositoryById")
            return Repository(repo["id"], int(repo["databaseId"]), repo["nameWithOwner"])

    def discussion_category(self, owner: str, name: str, category: str) -> DiscussionCategory:
        """The discussion category whose slug equals ``category``, else whose name does
        (names compared case-insensitively).

        Raises:
            NotFound: no such category (the message lists the slugs there are).
        """
        repo = self.repository(owner, name)
        for cat in repo.categories:
            if cat.slug == category:
                return cat
        for cat in repo.categories:
            if cat.name.casefold() == category.casefold():
                return cat
        known = ", ".join(c.slug for c in repo.categories) or "none"
        raise NotFound(
            f"{owner}/{name} has no discussion category {category!r} (slugs: {known}); "
            "enable Discussions and create the category first", operation="RepositoryLookup")

    def pull_request(self, owner: str, name: str, number: int) -> PullRequest:
        """A pull request's head oid and base ref + oid.

        Raises:
            NotFound: no such pull request.
        """
        variables = {"owner": check_segment(owner, "owner"),
                     "name": check_segment(name, "repository"),
                     "number": _positive(number, "number")}
        with self._answer("PullRequestLookup", variables):
            data = self._data("PullRequestLookup", variables)
            pr = (data.get("repository") or {}).get("pullRequest")
            if not isinstance(pr, dict):
                raise NotFound(f"{owner}/{name} has no pull request #{number}",
                               operation="PullRequestLookup")
            return PullRequest(
                id=pr["id"], number=pr["number"], state=pr["state"],
                head_ref_name=pr["headRefName"], head_oid=pr["headRefOid"],
                base_ref_name=pr["baseRefName"], base_oid=pr["baseRefOid"],
                created_at=pr.get("createdAt"),
            )

    # -- journals ---------------------------------------------------------------------

    def category_discussions(self, owner: str, name: str,
                             category_id: str) -> Iterator[DiscussionSummary]:
        """Every discussion of a category, newest first (``createdAt`` descending), 100 a
        request (``CategoryDiscussions``).

        Does not use search (its index lags behind new discussions). Lazy: stop iterating
        to stop paging.

        Raises:
            NotFound: no such repository.
        """
        after: str | None = None
        while True:
            variables = {
                "owner": check_segment(owner, "owner"), "name": check_segment(name, "repository"),
                "categoryId": category_id, "after": after, "first": 100}
            with self._answer("CategoryDiscussions", variables):
                repo = self._data("CategoryDiscussions", variables).get("repository")
                if not isinstance(repo, dict):
                    raise NotFound(f"repository {owner}/{name} not found",
                                   operation="CategoryDiscussions")
                conn = _shape("CategoryDiscussions", repo, "discussions")
                page = []
                for d in conn.get("nodes") or []:
                    if not isinstance(d, dict):
                        continue
                    author = d.get("author") if isinstance(d.get("author"), dict) else None
                    page.append(DiscussionSummary(
                        d["id"], int(d["number"]), d.get("title") or "", d.get("body") or "",
                        d.get("lastEditedAt") is not None or bool(d.get("includesCreatedEdit")),
                        author.get("login") if author else None,
                        author.get("databaseId") if author else None,
                        d.get("createdAt"), d.get("locked") is True))
            yield from page
            info = conn.get("pageInfo") or {}
            cursor = info.get("endCursor")
            if not info.get("hasNextPage") or not cursor or cursor == after:
                return
            after = cursor

    def capture_with_lease(self, owner: str, name: str, number: int, lease: str, *,
                           expect_comment_ids: Iterable[str] = (),
                           start: WriterStart | None = None) -> CaptureResult:
        """:meth:`capture` whose first page also reads the lease ref ``lease`` and the
        discussion's category (``JournalPageLease``): the ``lease`` member of spec
        journal-v1 section 5, which the reader checks the journal against (the witness).

        Args:
            start: a :meth:`writer_read` answer holding that first page, already read:
                the capture starts from it, and reads the first page itself only for a
                re-read.

        Raises:
            NotFound: no such repository or discussion.
            ReadLagExceeded: as for :meth:`capture`.
        """
        qualified = _qualified(lease)
        given = [start.page] if start is not None and start.page is not None else []

        def send(op: str, variables: dict[str, Any]) -> dict[str, Any]:
            if op == "JournalPage" and variables.get("after") is None:
                if given:
                    return given.pop()
                return self._query("JournalPageLease", {**variables, "lease": qualified})
            return self._query(op, variables)

        check_segment(owner, "owner")
        check_segment(name, "repository")
        _positive(number, "number")
        return capture_pages(send, owner, name, number, expect=frozenset(expect_comment_ids),
                             policy=self._config.retry, sleep=self._config.sleep)

    def lease_ref(self, owner: str, name: str, qualified_name: str) -> tuple[Ref | None,
                                                                              dict[str, Any]]:
        """The lease ref and its commit message (``LeaseRef``, spec journal-v1 section 5),
        or None when absent; with the raw response (a capture may hold it).

        Raises:
            NotFound: no such repository.
        """
        variables = {"owner": check_segment(owner, "owner"),
                     "name": check_segment(name, "repository"),
                     "lease": _qualified(qualified_name)}
        with self._answer("LeaseRef", variables):
            response = self._query("LeaseRef", variables)
            repo = (response.get("data") or {}).get("repository")
            if not isinstance(repo, dict):
                raise NotFound(f"repository {owner}/{name} not found", operation="LeaseRef")
            return _lease_ref(repo.get("lease")), response

    def create_discussion(self, repository_id: str, category_id: str, title: str,
                          body: str) -> Discussion:
        """``createDiscussion``: a new journal. Paced; never retried after sending.

        Raises:
            AmbiguousOutcome: sent, outcome unknown.
        """
        variables = {"repositoryId": repository_id, "categoryId": category_id,
                     "title": _body(title, "title"), "body": _body(body, "body")}
        with self._answer("CreateDiscussion", variables):
            data = self._data("CreateDiscussion", variables)
            d = _shape("CreateDiscussion", data, "createDiscussion", "discussion")
            return Discussion(d["id"], d["number"], d["url"], d["createdAt"], *_author(d))

    def add_comment(self, discussion_id: str, body: str,
                    reply_to_id: str | None = None) -> Comment:
        """``addDiscussionComment``: an attempt root (``reply_to_id`` None) or an event.

        Paced; never retried after sending. A node GitHub cannot resolve yet (just
        created) is retried within ``RetryPolicy.lag_attempts``: GitHub resolves ids
        before executing, so nothing was written.

        Raises:
            AmbiguousOutcome: sent, outcome unknown; ``.body`` holds the exact bytes.
        """
        variables = {"discussionId": discussion_id, "body": _body(body, "body"),
                     "replyToId": reply_to_id}
        with self._answer("AddDiscussionComment", variables):
            data = self._data("AddDiscussionComment", variables)
            c = _shape("AddDiscussionComment", data, "addDiscussionComment", "comment")
            return Comment(c["id"], c["createdAt"], c["url"], *_author(c))

    def capture_journal(self, owner: str, name: str, number: int, *,
                        expect_comment_ids: Iterable[str] = ()) -> list[dict[str, Any]]:
        """Every JournalPage and RepliesPage response of discussion ``number`` (spec 5),
        raw (``{"data": ...}``), in request order: the reader's stdin as a JSON array.

        Args:
            expect_comment_ids: node ids just written (comments, or the discussion); the
                journal is read again, whole, with bounded backoff until all are visible
                and the pages agree.

        Raises:
            NotFound: no such repository or discussion.
            ReadLagExceeded: still not settled after ``RetryPolicy.lag_attempts`` reads.
        """
        return list(self.capture(owner, name, number,
                                 expect_comment_ids=expect_comment_ids).pages)

    def capture_journal_by_id(self, repository_id: str, number: int, *,
                              expect_comment_ids: Iterable[str] = ()) -> list[dict[str, Any]]:
        """As :meth:`capture_journal`, for a repository given by node id (one extra request
        resolves its current name).

        Raises:
            NotFound: the id or the discussion is unknown.
            UnexpectedAnswer: the captured repository id is not ``repository_id`` (renamed
                in between); capture again.
        """
        repo = self.repository_by_id(repository_id)
        pages = self.capture_journal(repo.owner, repo.name, number,
                                     expect_comment_ids=expect_comment_ids)
        got = pages[0]["data"]["repository"]["id"]
        if got != repository_id:
            raise UnexpectedAnswer(
                f"JournalPage: {repo.name_with_owner} is now repository {got}, not "
                f"{repository_id} (renamed or transferred while capturing); capture again",
                operation="JournalPage")
        return pages

    def capture(self, owner: str, name: str, number: int, *,
                expect_comment_ids: Iterable[str] = ()) -> CaptureResult:
        """As :meth:`capture_journal`, returning the :class:`CaptureResult` (pages, seen
        ids, how many whole reads it took)."""
        check_segment(owner, "owner")
        check_segment(name, "repository")
        _positive(number, "number")
        return capture_pages(
            self._query, owner, name, number,
            expect=frozenset(expect_comment_ids), policy=self._config.retry,
            sleep=self._config.sleep)

    def resend(self, outcome: AmbiguousOutcome) -> dict[str, Any]:
        """Send an ambiguous mutation's exact bytes again (writer protocol step 5: only
        after a read-back found it absent, while still the owner with an unchanged head).

        Returns:
            GraphQL: the response's ``data`` (e.g. ``{"addDiscussionComment": {...}}``);
            REST: the JSON body.

        Raises:
            AmbiguousOutcome: again unclear; carries the same bytes.
            GitHubError: as for the first send.
        """
        payload = self._transport.resend(outcome)
        if outcome.url == self._config.graphql_url:
            data = payload.get("data") if isinstance(payload, dict) else None
            if not isinstance(data, dict):  # pragma: no cover - decide() answers ambiguous
                raise AmbiguousOutcome(
                    f"{outcome.document}: GitHub's answer has no data", operation=outcome.document,
                    variables=outcome.variables, body=outcome.body, reason="no data",
                    method=outcome.method, url=outcome.url)
            return data
        return payload if isinstance(payload, dict) else {"value": payload}

    # -- files ------------------------------------------------------------------------

    def repository_file(self, owner: str, name: str, path: str, ref: str) -> bytes:
        """A file's bytes at ``ref`` (a commit oid), through the authenticated REST contents
        API (``GET /repos/{owner}/{repo}/contents/{path}?ref=``; base64, files up to 1 MB).

        Raises:
            InputError: ``path`` is empty, absolute or climbs out (``..``).
            NotFound: no such file at that commit.
            GitHubRefused: the answer is not one base64 file (a directory, a symlink, or a
                file larger than the JSON contents API returns).
        """
        parts = path.split("/")
        if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise InputError(f"file path must be relative without '.' or '..', got {path!r}")
        route = "GET /repos/{owner}/{repo}/contents/{path}"
        quoted = "/".join(quote(p, safe="") for p in parts)
        out = self._transport.rest(
            "GET", route, f"repos/{check_segment(owner, 'owner')}/"
            f"{check_segment(name, 'repository')}/contents/{quoted}?ref={_oid(ref, 'ref')}", {})
        if (not isinstance(out, dict) or out.get("type") != "file"
                or out.get("encoding") != "base64" or not isinstance(out.get("content"), str)):
            raise GitHubRefused(f"{route}: {path} at {ref} is not a base64 file answer (a "
                                "directory, a symlink, or larger than 1 MB)", operation=route)
        try:
            return base64.b64decode(out["content"].replace("\n", ""), validate=True)
        except ValueError:
            raise GitHubRefused(f"{route}: the content of {path} is not base64",
                                operation=route) from None

    # -- refs (the lease) -------------------------------------------------------------

    def ref(self, owner: str, name: str, qualified_name: str) -> Ref | None:
        """The ref and its target commit (message included), or None when absent."""
        variables = {"owner": check_segment(owner, "owner"),
                     "name": check_segment(name, "repository"),
                     "qualifiedName": _qualified(qualified_name)}
        with self._answer("RefLookup", variables):
            repo = self._data("RefLookup", variables).get("repository")
            if not isinstance(repo, dict):
                raise NotFound(f"repository {owner}/{name} not found", operation="RefLookup")
            ref = repo.get("ref")
            if not isinstance(ref, dict):
                return None
            target = ref.get("target") or {}
            commit = None
            if "message" in target:
                parents = tuple(p["oid"]
                                for p in ((target.get("parents") or {}).get("nodes") or []))
                commit = Commit(target["oid"], target["message"],
                                (target.get("tree") or {}).get("oid", ""), parents,
                                target.get("committedDate", ""))
            return Ref(ref["id"], ref["prefix"] + ref["name"], target.get("oid", ""), commit)

    def create_ref(self, repository_id: str, qualified_name: str, oid: str) -> Ref:
        """``createRef``: GitHub refuses when the ref exists (compare-and-set on absence).

        Raises:
            GraphQLRefused: GitHub refused; its wording for a ref that exists already is
                not documented and a ruleset refuses with the same type, so read the ref
                back to tell which (``ghattempt/store/_github.py``).
            AmbiguousOutcome: sent, outcome unknown.
        """
        variables = {"repositoryId": repository_id, "name": _qualified(qualified_name),
                     "oid": _oid(oid, "oid")}
        with self._answer("CreateRef", variables):
            r = _shape("CreateRef", self._data("CreateRef", variables), "createRef", "ref")
            return Ref(r["id"], r["prefix"] + r["name"], r["target"]["oid"])

    def update_ref(self, repository_id: str, qualified_name: str, *, after_oid: str,
                   before_oid: str | None, force: bool = False) -> None:
        """``updateRefs`` with one update; with ``before_oid`` it is a compare-and-set.

        Raises:
            RefConflict: GitHub answered ``STALE_DATA``.
            GraphQLRefused: any other refusal (GitHub's answer to a failed precondition is
                not shown publicly): read the ref back to tell a lost compare-and-set.
            AmbiguousOutcome: sent, outcome unknown.
        """
        update: dict[str, Any] = {"name": _qualified(qualified_name),
                                  "afterOid": _oid(after_oid, "after_oid"), "force": force}
        if before_oid is not None:
            update["beforeOid"] = _oid(before_oid, "before_oid")
        variables = {"repositoryId": repository_id, "refUpdates": [update]}
        with self._answer("UpdateRefs", variables):
            _shape("UpdateRefs", self._data("UpdateRefs", variables), "updateRefs")

    def delete_ref(self, ref_id: str) -> None:
        """``deleteRef`` by the ref's node id."""
        variables = {"refId": ref_id}
        with self._answer("DeleteRef", variables):
            _shape("DeleteRef", self._data("DeleteRef", variables), "deleteRef")

    def create_commit(self, owner: str, name: str, *, message: str, parents: Iterable[str],
                      tree: str = EMPTY_TREE,
                      author: Mapping[str, str] | None = None) -> Commit:
        """REST ``POST /repos/{owner}/{repo}/git/commits``: a commit object on no branch
        (the lease commit: empty tree, state in the message).

        Args:
            author: ``{"name", "email", "date"}``; with a fixed date a resend yields the
                same commit oid, so a read-back can recognise it.

        Raises:
            AmbiguousOutcome: sent, outcome unknown (a duplicate commit object is harmless).
        """
        body: dict[str, Any] = {"message": _body(message, "message"), "tree": _oid(tree, "tree"),
                                "parents": [_oid(p, "parent") for p in parents]}
        if author is not None:
            body["author"] = dict(author)
            body["committer"] = dict(author)
        path = (f"repos/{check_segment(owner, 'owner')}/{check_segment(name, 'repository')}"
                "/git/commits")
        route = "POST /repos/{owner}/{repo}/git/commits"
        out = self._transport.rest("POST", route, path, body)
        with self._answer(route, body, rest_path=path):
            return Commit(out["sha"], out.get("message", message),
                          (out.get("tree") or {}).get("sha", tree),
                          tuple(p.get("sha", "") for p in out.get("parents") or []),
                          (out.get("committer") or {}).get("date", ""))

    def create_commit_on_branch(self, name_with_owner: str, branch: str, *,
                                expected_head_oid: str, headline: str, body: str = "",
                                additions: Mapping[str, bytes] | None = None,
                                deletions: Iterable[str] = ()) -> Commit:
        """``createCommitOnBranch``: commit onto ``branch`` only if its head is still
        ``expected_head_oid``.

        Raises:
            RefConflict: the branch moved (``STALE_DATA``).
            NotFound: no such branch ("Branch not found").
            AmbiguousOutcome: sent, outcome unknown.
        """
        variables: dict[str, Any] = {
            "branch": {"repositoryNameWithOwner": name_with_owner, "branchName": branch},
            "expectedHeadOid": _oid(expected_head_oid, "expected_head_oid"),
            "message": {"headline": _body(headline, "headline"), "body": body},
            "fileChanges": None,
        }
        if additions or deletions:
            variables["fileChanges"] = {
                "additions": [{"path": p, "contents": base64.b64encode(c).decode("ascii")}
                              for p, c in (additions or {}).items()],
                "deletions": [{"path": p} for p in deletions],
            }
        with self._answer("CreateCommitOnBranch", variables):
            data = self._data("CreateCommitOnBranch", variables)
            c = _shape("CreateCommitOnBranch", data, "createCommitOnBranch", "commit")
            return Commit(c["oid"], c.get("message", headline),
                          committed_date=c.get("committedDate", ""))

    # -- the probe (ghattempt probe) ---------------------------------------------------

    def probe_read(self, owner: str, name: str, category_id: str) -> ProbeView:
        """``ProbeRead``: who the token is (node id included), the GraphQL budget, and
        which of the category's newest 100 discussions are locked.

        Raises:
            NotFound: no such repository.
        """
        variables = {"owner": check_segment(owner, "owner"),
                     "name": check_segment(name, "repository"), "categoryId": category_id}
        with self._answer("ProbeRead", variables):
            data = self._data("ProbeRead", variables)
            repo = data.get("repository")
            if not isinstance(repo, dict):
                raise NotFound(f"repository {owner}/{name} not found", operation="ProbeRead")
            viewer = data["viewer"]
            budget = data.get("rateLimit") or {}
            conn = repo["discussions"]
            nodes = [d for d in conn.get("nodes") or [] if isinstance(d, dict)]
            db = viewer.get("databaseId")
            return ProbeView(
                viewer["id"], viewer["login"], db if isinstance(db, int) else None,
                budget.get("limit"), budget.get("remaining"), budget.get("resetAt"),
                int(conn.get("totalCount") or len(nodes)),
                tuple(int(d["number"]) for d in nodes if d.get("locked")))

    def thread(self, owner: str, name: str, number: int) -> Thread:
        """``ProbeDiscussion``: discussion ``number``'s first 10 comments and their first
        10 replies as GitHub orders them.

        Raises:
            NotFound: no such repository or discussion.
        """
        variables = {"owner": check_segment(owner, "owner"),
                     "name": check_segment(name, "repository"),
                     "number": _positive(number, "number")}
        with self._answer("ProbeDiscussion", variables):
            data = self._data("ProbeDiscussion", variables)
            d = (data.get("repository") or {}).get("discussion")
            if not isinstance(d, dict):
                raise NotFound(f"{owner}/{name} has no discussion #{number}",
                               operation="ProbeDiscussion")

            def one(c: Mapping[str, Any]) -> ThreadComment:
                replies = ((c.get("replies") or {}).get("nodes") or [])
                return ThreadComment(c["id"], c.get("body") or "", c.get("lastEditedAt"),
                                     bool(c.get("includesCreatedEdit")), *_author(c),
                                     tuple(one(r) for r in replies if isinstance(r, dict)))

            comments = (d.get("comments") or {}).get("nodes") or []
            return Thread(d["id"], bool(d.get("locked")),
                          tuple(one(c) for c in comments if isinstance(c, dict)))

    def edit_comment(self, comment_id: str, body: str) -> None:
        """``updateDiscussionComment``: replace a comment's body."""
        variables = {"commentId": comment_id, "body": _body(body, "body")}
        with self._answer("UpdateDiscussionComment", variables):
            _shape("UpdateDiscussionComment", self._data("UpdateDiscussionComment", variables),
                   "updateDiscussionComment")

    def delete_comment(self, comment_id: str) -> None:
        """``deleteDiscussionComment``: delete a comment or reply."""
        variables = {"id": comment_id}
        with self._answer("DeleteDiscussionComment", variables):
            _shape("DeleteDiscussionComment", self._data("DeleteDiscussionComment", variables),
                   "deleteDiscussionComment")

    def delete_discussion(self, discussion_id: str) -> None:
        """``deleteDiscussion``: delete a discussion and everything in it (triage access)."""
        variables = {"id": discussion_id}
        with self._answer("DeleteDiscussion", variables):
            _shape("DeleteDiscussion", self._data("DeleteDiscussion", variables),
                   "deleteDiscussion")

    def branch_protected(self, owner: str, name: str, branch: str) -> bool:
        """REST ``GET /repos/{owner}/{repo}/branches/{branch}``: whether classic branch
        protection covers the branch (``protected``; the rulesets API does not show it).

        Raises:
            NotFound: no such branch.
        """
        route = "GET /repos/{owner}/{repo}/branches/{branch}"
        path = "/".join(quote(part, safe="") for part in branch.split("/"))
        out = self._rest_get(owner, name, route, f"branches/{path}")
        return bool(out.get("protected")) if isinstance(out, dict) else False

    def rate_limit(self) -> tuple[Budget, ...]:
        """REST ``GET /rate_limit``: every primary budget GitHub reports
        (``resources``: ``core``, ``graphql``, ...); costs no primary budget."""
        route = "GET /rate_limit"
        out = self._transport.rest("GET", route, "rate_limit", {})
        resources = out.get("resources") if isinstance(out, dict) else None
        if not isinstance(resources, dict):
            raise UnexpectedAnswer(f"{route}: GitHub's answer has no resources",
                                   operation=route)
        return tuple(Budget(k, int(v["limit"]), int(v["remaining"]), int(v["reset"]))
                     for k, v in sorted(resources.items())
                     if isinstance(v, dict) and {"limit", "remaining", "reset"} <= v.keys())

    # -- files and checks (REST) ------------------------------------------------------

    def file_contents(self, owner: str, name: str, path: str,
                      ref: str | None = None) -> tuple[bytes, str] | None:
        """REST ``GET /repos/{owner}/{repo}/contents/{path}?ref={ref}``: one file's raw
        bytes and git blob oid at ``ref`` (a commit sha or branch; None: the default
        branch), or None when there is no such file (GitHub answers 404). Files up to
        1 MB (GitHub's limit for ``content`` in this answer).

        Raises:
            InputError: ``path`` is empty, absolute or holds ``..``.
            GitHubRefused: the answer is not a file, or not base64.
        """
        if (not isinstance(path, str) or not path or path.startswith("/")
                or ".." in path.split("/")):
            raise InputError(f"path must be repository-relative, got {path!r}")
        route = "GET /repos/{owner}/{repo}/contents/{path}"
        url = (f"repos/{check_segment(owner, 'owner')}/{check_segment(name, 'repository')}"
               f"/contents/{quote(path)}" + (f"?ref={quote(ref, safe='')}" if ref else ""))
        try:
            out = self._transport.rest("GET", route, url, {})
        except NotFound:
            return None
        if (not isinstance(out, dict) or out.get("type") != "file"
                or out.get("encoding") != "base64" or not isinstance(out.get("sha"), str)):
            raise GitHubRefused(f"{route}: {path} at {ref} is not a file GitHub sent whole",
                                operation=route)
        try:
            data = base64.b64decode(str(out.get("content", "")), validate=False)
        except ValueError:
            raise GitHubRefused(f"{route}: content is not base64", operation=route) from None
        return data, out["sha"]

    def _rest_get(self, owner: str, name: str, route: str, tail: str) -> Any:
        """REST ``GET /repos/{owner}/{repo}/<tail>`` (``route``: the template, for logs
        and errors): GitHub's JSON answer."""
        url = (f"repos/{check_segment(owner, 'owner')}/{check_segment(name, 'repository')}"
               f"/{tail}")
        return self._transport.rest("GET", route, url, {})

    def commit(self, owner: str, name: str, oid: str) -> Commit:
        """REST ``GET /repos/{owner}/{repo}/git/commits/{sha}``: a commit and its tree.

        Raises:
            NotFound: the repository has no such commit.
        """
        route = "GET /repos/{owner}/{repo}/git/commits/{sha}"
        out = self._rest_get(owner, name, route, f"git/commits/{_oid(oid, 'oid')}")
        tree = (out.get("tree") or {}).get("sha") if isinstance(out, dict) else None
        if not isinstance(tree, str):
            raise GitHubRefused(f"{route}: GitHub's answer has no tree", operation=route)
        return Commit(out.get("sha", oid), out.get("message", ""), tree,
                      tuple(p.get("sha", "") for p in out.get("parents") or []),
                      (out.get("committer") or {}).get("date", ""))

    def workflow_run_path(self, owner: str, name: str, run_id: int) -> str | None:
        """REST ``GET /repos/{owner}/{repo}/actions/runs/{run_id}``: the run's workflow
        file (``.github/workflows/x.yml``), or None when GitHub does not say
        (``workflow_job`` payloads name the workflow, not its file).

        Raises:
            NotFound: no such run.
        """
        route = "GET /repos/{owner}/{repo}/actions/runs/{run_id}"
        out = self._rest_get(owner, name, route,
                             f"actions/runs/{_positive(run_id, 'run_id')}")
        path = out.get("path") if isinstance(out, dict) else None
        return path if isinstance(path, str) and path else None

    def run_attempt_status(self, owner: str, name: str, run_id: int,
                           attempt: int) -> RunStatus:
        """REST ``GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt}``:
        that attempt's ``status`` and ``conclusion`` (``actions: read``).

        Raises:
            NotFound: no such run or attempt.
            AuthFailed: the token lacks ``actions: read`` (403).
        """
        route = "GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}"
        out = self._rest_get(owner, name, route,
                             f"actions/runs/{_positive(run_id, 'run_id')}/attempts/"
                             f"{_positive(attempt, 'attempt')}")
        return _run_status(out, route)

    def run_attempt_jobs(self, owner: str, name: str, run_id: int,
                         attempt: int) -> tuple[RunStatus, ...]:
        """REST ``GET .../actions/runs/{run_id}/attempts/{attempt}/jobs``: the first 100
        jobs of that attempt, each with its ``name``, ``status`` and ``conclusion``.

        Raises:
            NotFound, AuthFailed: as :meth:`run_attempt_status`.
        """
        route = ("GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/"
                 "{attempt_number}/jobs")
        out = self._rest_get(owner, name, route,
                             f"actions/runs/{_positive(run_id, 'run_id')}/attempts/"
                             f"{_positive(attempt, 'attempt')}/jobs?per_page=100")
        jobs = out.get("jobs") if isinstance(out, dict) else None
        if not isinstance(jobs, list):
            raise GitHubRefused(f"{route}: GitHub's answer has no jobs", operation=route)
        return tuple(_run_status(j, route, job=True) for j in jobs)

    def release_assets(self, owner: str, name: str, tag: str) -> tuple[ReleaseAsset, ...] | None:
        """REST ``GET /repos/{owner}/{repo}/releases/tags/{tag}``: the assets (name, size,
        ``digest`` where GitHub serves one) of the published release of ``tag``, or None
        when there is none (404: no release, or only a draft).

        Raises:
            InputError: an empty tag.
        """
        if not isinstance(tag, str) or not tag:
            raise InputError("a release tag must not be empty")
        route = "GET /repos/{owner}/{repo}/releases/tags/{tag}"
        try:
            out = self._rest_get(owner, name, route, f"releases/tags/{quote(tag, safe='')}")
        except NotFound:
            return None
        assets = out.get("assets") if isinstance(out, dict) else None
        if not isinstance(assets, list):
            raise GitHubRefused(f"{route}: GitHub's answer has no assets", operation=route)
        found: list[ReleaseAsset] = []
        for a in assets:
            if not isinstance(a, dict) or not isinstance(a.get("name"), str) \
                    or type(a.get("size")) is not int:
                raise GitHubRefused(f"{route}: an asset without a name or size",
                                    operation=route)
            digest = a.get("digest")
            found.append(ReleaseAsset(a["name"], a["size"],
                                      digest if isinstance(digest, str) else None))
        return tuple(found)

    def branch_rules(self, owner: str, name: str, branch: str) -> list[dict[str, Any]]:
        """REST ``GET /repos/{owner}/{repo}/rules/branches/{branch}``: every active rule
        that applies to a branch of that name (it need not exist), from rulesets of any
        level, each as GitHub's object (``type``, ``ruleset_source_type``,
        ``ruleset_source``, ``ruleset_id``, ``parameters``); the first 100 rules."""
        route = "GET /repos/{owner}/{repo}/rules/branches/{branch}"
        path = "/".join(quote(part, safe="") for part in branch.split("/"))
        out = self._rest_get(owner, name, route, f"rules/branches/{path}?per_page=100")
        return [r for r in out if isinstance(r, dict)] if isinstance(out, list) else []

    def branch_protection(self, owner: str, name: str,
                          branch: str) -> tuple[bool, dict[str, Any] | None] | None:
        """Classic branch protection of an existing branch, which the rules API does not
        list: REST ``GET /repos/{owner}/{repo}/branches/{branch}`` (any reader:
        ``protected`` and the status checks), then, when protected,
        ``GET .../branches/{branch}/protection`` (its settings; the admin role only: a
        ``GITHUB_TOKEN`` gets 403). None: no such branch; ``(protected, settings)``,
        ``settings`` None when this token may not read them (then the summary's status
        checks only, as ``{"required_status_checks": {...}}``)."""
        path = "/".join(quote(part, safe="") for part in branch.split("/"))
        route = "GET /repos/{owner}/{repo}/branches/{branch}"
        try:
            out = self._rest_get(owner, name, route, f"branches/{path}")
        except NotFound:
            return None
        if not isinstance(out, dict) or not out.get("protected"):
            return False, None
        route = "GET /repos/{owner}/{repo}/branches/{branch}/protection"
        try:
            settings = self._rest_get(owner, name, route, f"branches/{path}/protection")
        except GitHubRefused:  # 403 without Administration read, 404 "not protected"
            summary = (out.get("protection") or {}).get("required_status_checks") or {}
            contexts = summary.get("contexts") or []
            return True, ({"required_status_checks": {"contexts": list(contexts)}, "partial": True}
                          if contexts else None)
        return True, settings if isinstance(settings, dict) else None

    def repository_ruleset(self, owner: str, name: str, ruleset_id: int) -> dict[str, Any]:
        """REST ``GET /repos/{owner}/{repo}/rulesets/{ruleset_id}``: one ruleset as
        GitHub's object, with ``current_user_can_bypass`` (``always``,
        ``pull_requests_only``, ``never``; given by this repository-level route only).

        Raises:
            NotFound: no such ruleset for this repository.
        """
        route = "GET /repos/{owner}/{repo}/rulesets/{ruleset_id}"
        out = self._rest_get(owner, name, route,
                             f"rulesets/{_positive(ruleset_id, 'ruleset_id')}")
        return out if isinstance(out, dict) else {}

    def check_runs(self, owner: str, name: str, ref: str) -> list[dict[str, Any]]:
        """REST ``GET /repos/{owner}/{repo}/commits/{ref}/check-runs``: the first 100
        check runs on a commit, each as GitHub's object (``id``, ``name``,
        ``external_id``, ``conclusion``, ...)."""
        route = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"
        out = self._rest_get(owner, name, route,
                             f"commits/{quote(ref, safe='')}/check-runs?per_page=100")
        runs = out.get("check_runs") if isinstance(out, dict) else None
        return [r for r in runs if isinstance(r, dict)] if isinstance(runs, list) else []

    def create_check_run(self, owner: str, name: str, *, head_sha: str, check_name: str,
                         conclusion: str, title: str, summary: str,
                         external_id: str = "", details_url: str | None = None) -> int:
        """REST ``POST /repos/{owner}/{repo}/check-runs``: a completed check run on
        ``head_sha`` (needs the App's Checks write permission; only Apps can create
        check runs). Returns the check run's id.

        Args:
            conclusion: GitHub's conclusions: ``failure``, ``success``, ``neutral``, ...
            title, summary: the run's ``output`` (summary up to 65,535 characters).
            external_id: the caller's reference (e.g. the idempotency key).

        Raises:
            AmbiguousOutcome: sent, outcome unknown (a second check run is harmless).
        """
        body: dict[str, Any] = {
            "name": _body(check_name, "check_name"), "head_sha": _oid(head_sha, "head_sha"),
            "status": "completed", "conclusion": conclusion, "external_id": external_id,
            "output": {"title": _body(title, "title")[:255],
                       "summary": _body(summary, "summary")[:65_535]},
        }
        if details_url:
            body["details_url"] = details_url
        route = "POST /repos/{owner}/{repo}/check-runs"
        url = (f"repos/{check_segment(owner, 'owner')}/{check_segment(name, 'repository')}"
               "/check-runs")
        out = self._transport.rest("POST", route, url, body)
        run_id = out.get("id") if isinstance(out, dict) else None
        if not isinstance(run_id, int):
            raise GitHubRefused(f"{route}: GitHub's answer has no id", operation=route)
        return run_id


def _repository_of(data: Mapping[str, Any], owner: str, name: str, op: str) -> Repository:
    """The :class:`Repository` (with ``viewer``) of a ``RepositoryLookup`` or
    ``WriterRead`` answer's ``data``."""
    repo = data.get("repository")
    if not isinstance(repo, dict):
        raise NotFound(f"repository {owner}/{name} not found", operation=op)
    cats = tuple(
        DiscussionCategory(c["id"], c["name"], c["slug"])
        for c in ((repo.get("discussionCategories") or {}).get("nodes") or [])
        if isinstance(c, dict)
    )
    viewer = data.get("viewer")
    identity = (Identity(viewer["login"], int(viewer["databaseId"]))
                if isinstance(viewer, dict) else None)
    return Repository(repo["id"], int(repo["databaseId"]), repo["nameWithOwner"], cats,
                      bool(repo.get("hasDiscussionsEnabled", True)),
                      repo.get("viewerPermission"), identity)


def _author(node: Mapping[str, Any]) -> tuple[str | None, int | None]:
    author = node.get("author")
    if not isinstance(author, dict):
        return None, None
    db = author.get("databaseId")
    return author.get("login"), db if isinstance(db, int) else None


def _lease_ref(raw: Any) -> Ref | None:
    if not isinstance(raw, dict):
        return None
    target = raw.get("target") or {}
    commit = Commit(target["oid"], target["message"]) if "message" in target else None
    return Ref(raw.get("id", ""), raw["prefix"] + raw["name"], target.get("oid", ""), commit)


def _positive(value: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InputError(f"{what} must be an integer >= 1, got {value!r}")
    return value


def _run_status(out: Any, route: str, *, job: bool = False) -> RunStatus:
    """A run attempt's or job's ``status``, ``conclusion`` and ``name`` from GitHub's
    object."""
    status = out.get("status") if isinstance(out, dict) else None
    if not isinstance(status, str):
        raise GitHubRefused(f"{route}: GitHub's answer has no status", operation=route)
    conclusion = out.get("conclusion")
    named = out.get("name") if job else None
    return RunStatus(status, conclusion if isinstance(conclusion, str) else None,
                     named if isinstance(named, str) else None)
