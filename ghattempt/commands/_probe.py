"""``ghattempt probe``: the behaviours of GitHub the product relies on, checked live.

Shape::

    Probe(repository, category=None, discussion=None, writer=None, writer_id=None,
          run_id=None)
    probe(request, config, connection) -> ProbeReport
    ProbeReport(repository, observations, created, removed, left).ok / .failed / .to_dict()
    Observation(behaviour, expected, source, observed, verdict, relied)

The probe runs once with the token and repository a user will use, on a test category
(it opens a discussion there and deletes it at the end) or on a throwaway discussion
(``discussion``: it comments there and deletes its comments). It checks each behaviour
docs/emulator.md models and cites, as GitHub answers it on that repository: who the token
is, Discussions and the category, a comment and replies written and read back, the edit
flags, the replies' order, ``createCommitOnBranch`` refusing a stale head with
``STALE_DATA``, a ref created and deleted under the lease prefix and the rules that apply
to it, the rate-limit headers and budgets, the node-id format, the Actions API. Each is
one :class:`Observation`; a relied-on behaviour that does not hold makes the report fail
(a person must act: the command exits with the status of ``Fault.GITHUB_REFUSED``).
What the probe created is removed whatever happens; what could not be is listed.
"""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ghattempt.commands._connection import Connection, connect
from ghattempt.commands._errors import CommandError
from ghattempt.commands._requests import split_repository
from ghattempt.errors import Fault

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.github import GitHubProvider, Repository

__all__ = ["HOLDS", "FAILS", "ADVICE", "UNCHECKED", "Observation", "Probe", "ProbeReport",
           "probe"]

HOLDS, FAILS, ADVICE, UNCHECKED = "holds", "FAILS", "advice", "not checked"
"""The verdicts: the behaviour holds; it does not (relied on: a person must act); a
recommendation (not relied on); an earlier failure left nothing to check it with."""

LEASE_PREFIX = "refs/heads/ghattempt/lease/"
"""Where the writers' lease refs live (``ghattempt.core.lease_ref_name``)."""

DIRECT_WRITE_RULES = frozenset({
    "creation", "update", "pull_request", "required_status_checks", "required_signatures",
    "required_deployments", "merge_queue", "commit_message_pattern",
    "commit_author_email_pattern", "committer_email_pattern", "branch_name_pattern",
})
"""Ruleset rule types that refuse the lease's direct writes (creation, moves) to a
branch they target (docs/emulator.md, the `rulesets` row)."""

NEW_NODE_ID = re.compile(r"[A-Z]+_[A-Za-z0-9_-]+\Z")
"""GitHub's new node-id format: a type prefix, ``_``, base64url (``R_kgDO…``)."""

_SOURCES = {
    "identity": "GitHub's GraphQL schema (User.databaseId, Bot.databaseId); "
                "fullsend-ai/fullsend#1953",
    "discussions": "GitHub docs, \"Managing categories for discussions\"",
    "locked": "GitHub docs, \"Locking conversations\"; dessant/lock-threads README",
    "comments": "GitHub's GraphQL schema (addDiscussionComment); docs/emulator.md, "
                "\"Behaviour\"",
    "edits": "GitHub's GraphQL schema (Comment.lastEditedAt, includesCreatedEdit)",
    "order": "docs/emulator.md, \"Behaviour\" (comments and replies oldest first)",
    "stale": "ministryofjustice/modernisation-platform#11985; renovatebot/renovate#20281",
    "refs": "GitHub docs, \"REST API endpoints for Git references\"",
    "rules": "GitHub docs, \"Available rules for rulesets\", \"REST API endpoints for "
             "rules\"",
    "deletion": "GitHub docs, \"Available rules for rulesets\" (restrict deletions)",
    "headers": "GitHub docs, \"Rate limits for the REST API\" (checking the status of "
               "your rate limit)",
    "budgets": "GitHub docs, \"Rate limits and query limits for the GraphQL API\"",
    "node ids": "GitHub docs, \"Migrating GraphQL global node IDs\"",
    "actions": "GitHub docs, \"REST API endpoints for workflow runs\", \"Permissions for "
               "the GITHUB_TOKEN\"",
}


@dataclass(frozen=True, slots=True)
class Probe:
    """Check, on ``repository``, the behaviours the product relies on.

    Attributes:
        repository: ``owner/name``.
        category: the discussion category to open a throwaway discussion in (default:
            the configuration's ``journal.category``).
        discussion: instead, a throwaway discussion's number to comment on.
        writer, writer_id: the writer the token must be (default: the configuration's
            ``[writer]``, else ``github-actions``).
        run_id: a workflow run to read through the Actions API (default: run 1, whose
            404 shows the access as well as its 200).
    """

    repository: str
    category: str | None = None
    discussion: int | None = None
    writer: str | None = None
    writer_id: int | None = None
    run_id: int | None = None

    def __post_init__(self) -> None:
        split_repository(self.repository)
        if self.writer is not None:
            from ghattempt.github.identity import login_problem

            problem = login_problem(self.writer)
            if problem is not None:
                raise CommandError(Fault.BAD_INPUT, f"--writer: {problem[0]}; {problem[1]}")
        if self.category is not None and not self.category.strip():
            raise CommandError(Fault.BAD_INPUT, "--category must not be empty")
        for name in ("discussion", "writer_id", "run_id"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise CommandError(Fault.BAD_INPUT,
                                   f"--{name.replace('_', '-')} must be a number >= 1")


@dataclass(frozen=True, slots=True)
class Observation:
    """One behaviour: what the product expects (and the source docs/emulator.md cites),
    what GitHub did, and the verdict (:data:`HOLDS`, :data:`FAILS`, :data:`ADVICE`,
    :data:`UNCHECKED`); ``relied``: the product relies on it."""

    behaviour: str
    expected: str
    source: str
    observed: str
    verdict: str
    relied: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {"behaviour": self.behaviour, "expected": self.expected,
                "source": self.source, "observed": self.observed, "verdict": self.verdict,
                "relied": self.relied}


@dataclass(frozen=True, slots=True)
class ProbeReport:
    """The probe's observations on ``repository``; what it created, removed and could
    not remove (``left``, each with what to do)."""

    repository: str
    host: str
    observations: tuple[Observation, ...]
    created: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    left: tuple[str, ...] = ()

    @property
    def failed(self) -> tuple[Observation, ...]:
        """The relied-on behaviours that do not hold."""
        return tuple(o for o in self.observations if o.relied and o.verdict == FAILS)

    @property
    def ok(self) -> bool:
        return not self.failed

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON a user can attach to an issue (no token in it)."""
        return {"probe": 1, "repository": self.repository, "host": self.host,
                "ok": self.ok, "failed": [o.behaviour for o in self.failed],
                "observations": [o.to_dict() for o in self.observations],
                "created": list(self.created), "removed": list(self.removed),
                "left": list(self.left)}


@dataclass
class _Run:
    """The probe's working state: observations so far and what to clean up."""

    gh: GitHubProvider
    owner: str
    name: str
    seen: list[Observation] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)
    undo: list[tuple[str, Callable[[], None]]] = field(default_factory=list)

    def see(self, behaviour: str, expected: str, source: str, observed: str, holds: bool,
            *, relied: bool = True) -> bool:
        verdict = HOLDS if holds else (FAILS if relied else ADVICE)
        self.seen.append(Observation(behaviour, expected, _SOURCES[source], observed,
                                     verdict, relied))
        return holds

    def skip(self, behaviour: str, expected: str, source: str, why: str) -> None:
        self.seen.append(Observation(behaviour, expected, _SOURCES[source],
                                     f"not checked: {why}", UNCHECKED))

    def made(self, what: str, undo: Callable[[], None]) -> None:
        self.created.append(what)
        self.undo.append((what, undo))

    def clean(self) -> None:
        from ghattempt.github import GitHubError

        for what, undo in reversed(self.undo):
            try:
                undo()
            except GitHubError as exc:
                self.left.append(f"{what}: not removed ({_said(exc)}); remove it by hand")
            else:
                self.removed.append(what)
        self.undo.clear()


def _said(exc: BaseException, permission: str | None = None) -> str:
    """GitHub's refusal in one line; with ``permission``, the ``permissions:`` key a
    refusal for want of access asks for."""
    text = " ".join(str(exc).split())[:300]
    if permission and ("not accessible" in text or "FORBIDDEN" in text
                       or getattr(exc, "status", None) == 403):
        text += f"; give the token `{permission}` (a workflow's permissions:, an App's " \
                "permissions)"
    return text


def probe(request: Probe, config: LoadedConfig | None, connection: Connection) -> ProbeReport:
    """Run the probe (module docstring).

    Raises:
        CommandError: (bad input) no category to open a discussion in.
        GitHubError: the repository cannot be read at all, GitHub is unavailable or a
            rate limit was met (nothing the probe observes: retrying can help).
    """
    from ghattempt.commands._reading import reader_identity

    owner, name = split_repository(request.repository)
    category = request.category or (config.settings.journal.category if config else None)
    if request.discussion is None and not category:
        raise CommandError(Fault.BAD_INPUT, "no category: pass --category SLUG (a test "
                           "category to open a throwaway discussion in) or --discussion N")
    # writes paced as the writers pace theirs: the configuration's [pacing], else GitHub's
    pace = config.settings.pacing.write_interval if config is not None else None
    gh = connection.provider or connect(connection, mutation_interval=pace)
    host = gh.config.base_url
    run = _Run(gh, owner, name)
    try:
        repo = gh.repository(owner, name)
        writer, writer_id = reader_identity(request.writer, request.writer_id, config,
                                            repo.viewer)
        _identity(run, repo, writer, writer_id, host)
        cat_id = _discussions(run, repo, category, request.discussion)
        view = _probe_read(run, cat_id)
        _locked(run, view, category)
        _node_ids(run, repo, view)
        _thread(run, repo, cat_id, request.discussion)
        _lease(run, repo)
        _actions(run, request.run_id)
        _budgets(run, view)
    finally:
        run.clean()
        if connection.provider is None:
            gh.close()
    return ProbeReport(request.repository, host, tuple(run.seen), tuple(run.created),
                       tuple(run.removed), tuple(run.left))


def _identity(run: _Run, repo: Repository, writer: str, writer_id: int | None,
              host: str) -> None:
    viewer = repo.viewer
    expected = (f"GraphQL viewer is the configured writer {writer}"
                + (f" (databaseId {writer_id})" if writer_id is not None else "")
                + ", with a databaseId")
    if viewer is None:
        run.see("token identity", expected, "identity", "viewer not answered", False)
        return
    from ghattempt.github.identity import writer_mismatch

    mismatch = writer_mismatch(writer, writer_id, viewer, host)
    run.see("token identity", expected, "identity",
            f"{viewer.login} (databaseId {viewer.database_id})"
            + (f": {mismatch}" if mismatch else ""), mismatch is None)


def _discussions(run: _Run, repo: Repository, category: str | None,
                 discussion: int | None) -> str | None:
    """Discussions enabled and the category there: the category's id, or None."""
    run.see("Discussions enabled", "hasDiscussionsEnabled true", "discussions",
            str(repo.has_discussions).lower(), repo.has_discussions)
    if category is None:
        return None
    found = next((c for c in repo.categories if c.slug == category), None) or next(
        (c for c in repo.categories if c.name.casefold() == category.casefold()), None)
    slugs = ", ".join(c.slug for c in repo.categories) or "none"
    run.see("journal category present", f"a discussion category {category!r}",
            "discussions", f"{found.slug} ({found.name})" if found else
            f"absent (slugs: {slugs}); create it in the repository's Discussions settings",
            found is not None)
    return found.id if found else None


def _probe_read(run: _Run, cat_id: str | None) -> Any:
    """The ``ProbeRead`` answer, or None (no category; or refused: then the row says so)."""
    from ghattempt.github import GitHubRefused

    if cat_id is None:
        return None
    try:
        return run.gh.probe_read(run.owner, run.name, cat_id)
    except GitHubRefused as exc:
        run.see("journals not locked", _LOCK_EXPECTED, "locked",
                f"the category's discussions could not be read: {_said(exc)}", False)
        return None


_LOCK_EXPECTED = "no journal of the category locked (a locked journal refuses bot comments)"


def _locked(run: _Run, view: Any, category: str | None) -> None:
    expected = _LOCK_EXPECTED
    if view is None:
        if not any(o.behaviour == "journals not locked" for o in run.seen):
            run.skip("journals not locked", expected, "locked", "no category")
        return
    numbers = ", ".join(f"#{n}" for n in view.locked)
    run.see("journals not locked", expected, "locked",
            f"{len(view.locked)} of {view.discussions} locked"
            + (f" ({numbers}): unlock them and exclude the category {category!r} from any "
               "lock bot (dessant/lock-threads locks after 365 days by default)"
               if view.locked else ""), not view.locked)


def _node_ids(run: _Run, repo: Repository, view: Any) -> None:
    ids = {"repository": repo.id}
    if view is not None:
        ids["viewer"] = view.viewer_id
    legacy = [f"{k} {v}" for k, v in ids.items() if not NEW_NODE_ID.fullmatch(v)]
    run.see("node-id format", "new-format node ids (R_kgDO…, BOT_kgDO…) with "
            "X-Github-Next-Global-ID: 1", "node ids",
            "legacy: " + ", ".join(legacy) if legacy else
            ", ".join(f"{k} {v}" for k, v in ids.items()), not legacy)


def _thread(run: _Run, repo: Repository, cat_id: str | None, number: int | None) -> None:
    """Open (or use) a throwaway discussion, comment, reply twice, edit the second reply,
    and read it all back."""
    from ghattempt.github import GitHubRefused

    gh = run.gh
    expected = "a comment and two replies land, read back as written, by the token's account"
    try:
        if number is None:
            if cat_id is None:
                raise _NotChecked("no journal category")
            d = gh.create_discussion(repo.id, cat_id, "ghattempt probe (safe to delete)",
                                     "Opened by `ghattempt probe`, deleted when it ends.")
            number, discussion_id = d.number, d.id
            run.made(f"discussion #{number}", lambda: gh.delete_discussion(discussion_id))
        else:
            discussion_id = gh.thread(run.owner, run.name, number).id
        # on a discussion the user named the probe deletes its comments; in its own
        # discussion they go with it
        named = not run.created
        tag = secrets.token_hex(4)
        root = gh.add_comment(discussion_id, f"ghattempt probe {tag}: comment")
        if named:
            run.made(f"comment {root.id}", lambda: gh.delete_comment(root.id))
        replies = []
        for i in (1, 2):
            reply = gh.add_comment(discussion_id, f"ghattempt probe {tag}: reply {i}",
                                   reply_to_id=root.id)
            replies.append(reply.id)
            if named:
                run.made(f"reply {reply.id}", functools.partial(gh.delete_comment, reply.id))
    except (GitHubRefused, _NotChecked) as exc:
        locked = ""
        if number is not None and isinstance(exc, GitHubRefused):
            try:
                locked = " (the discussion is locked)" if gh.thread(
                    run.owner, run.name, number).locked else ""
            except GitHubRefused:
                pass
        if isinstance(exc, _NotChecked):
            run.skip("comment and replies written", expected, "comments", str(exc))
        else:
            run.see("comment and replies written", expected, "comments",
                    f"refused: {_said(exc, None if locked else 'discussions: write')}"
                    f"{locked}", False)
        run.skip("edit flags", _EDIT_EXPECTED, "edits", "nothing written")
        run.skip("replies oldest first", _ORDER_EXPECTED, "order", "nothing written")
        return
    _read_back(run, number, root.id, replies, tag, expected)


class _NotChecked(Exception):
    """An earlier failure left nothing to check a behaviour with."""


_EDIT_EXPECTED = ("a new comment has lastEditedAt null and includesCreatedEdit false; an "
                  "edit sets both")
_ORDER_EXPECTED = "replies come oldest first"


def _read_back(run: _Run, number: int, root_id: str, reply_ids: list[str], tag: str,
               expected: str) -> None:
    gh = run.gh
    before = _find(gh.thread(run.owner, run.name, number), root_id)
    viewer = gh.repository(run.owner, run.name).viewer
    author = viewer.author_login if viewer else None
    if before is None:
        run.see("comment and replies written", expected, "comments",
                "the comment is not in the discussion when read back", False)
        run.skip("edit flags", _EDIT_EXPECTED, "edits", "comment not read back")
        run.skip("replies oldest first", _ORDER_EXPECTED, "order", "comment not read back")
        return
    bodies = [before.body] + [r.body for r in before.replies]
    wanted = [f"ghattempt probe {tag}: comment", f"ghattempt probe {tag}: reply 1",
              f"ghattempt probe {tag}: reply 2"]
    ours = [r for r in before.replies if r.id in reply_ids]
    same = sorted(bodies) == sorted(wanted) and len(ours) == 2 and all(
        c.author_login == author and c.author_database_id is not None
        for c in (before, *ours))
    run.see("comment and replies written", expected, "comments",
            f"{len(bodies)} read back, author {before.author_login} (databaseId "
            f"{before.author_database_id})" + ("" if same else f": got {bodies!r}"), same)
    order = [r.id for r in ours]
    run.see("replies oldest first", _ORDER_EXPECTED, "order",
            "oldest first" if order == reply_ids else "newest first", order == reply_ids)
    fresh = all(c.last_edited_at is None and not c.includes_created_edit
                for c in (before, *ours))
    gh.edit_comment(reply_ids[1], f"ghattempt probe {tag}: reply 2, edited")
    after = _find(gh.thread(run.owner, run.name, number), root_id)
    edited = next((r for r in (after.replies if after else ()) if r.id == reply_ids[1]), None)
    traced = edited is not None and edited.last_edited_at is not None \
        and edited.includes_created_edit
    run.see("edit flags", _EDIT_EXPECTED, "edits",
            f"new: {'unmarked' if fresh else 'marked as edited'}; after an edit: "
            + ("lastEditedAt set, includesCreatedEdit true" if traced else
               "no trace (lastEditedAt null or includesCreatedEdit false)"),
            fresh and traced)


def _find(thread: Any, comment_id: str) -> Any:
    return next((c for c in thread.comments if c.id == comment_id), None)


def _lease(run: _Run, repo: Repository) -> None:
    """A ref under the lease prefix: created on a REST root commit, moved by
    createCommitOnBranch, refused on a stale head, the rules that apply, deleted."""
    from ghattempt.github import GitHubRefused, RefConflict

    gh = run.gh
    branch = f"ghattempt/lease/probe-{secrets.token_hex(4)}"
    ref_name = f"refs/heads/{branch}"
    created = f"a ref {LEASE_PREFIX}probe-… created on an API commit"
    stale_expected = ("createCommitOnBranch with a stale expectedHeadOid answers STALE_DATA "
                      "and writes nothing")
    _rules(run, branch)
    try:
        base = gh.create_commit(run.owner, run.name, message="ghattempt probe", parents=())
        ref = gh.create_ref(repo.id, ref_name, base.oid)
    except GitHubRefused as exc:
        run.see("lease ref created", created, "refs",
                f"refused: {_said(exc, 'contents: write')}", False)
        run.skip("lease ref moved", "createCommitOnBranch moves the ref", "refs", "no ref")
        run.skip("stale head refused", stale_expected, "stale", "no ref")
        run.skip("lease ref deleted", "the probe's own ref can be deleted", "refs", "no ref")
        return
    run.made(f"ref {ref_name}", lambda: gh.delete_ref(ref.id))
    run.see("lease ref created", created, "refs", f"{ref_name} at {base.oid[:12]}", True)
    try:
        protected = gh.branch_protected(run.owner, run.name, branch)
    except GitHubRefused:
        protected = False
    moved_expected = "createCommitOnBranch with the ref's head as expectedHeadOid moves it"
    remedy = ("; a classic branch protection rule covers the lease prefix (the rulesets API "
              "does not show it): narrow its pattern so that it leaves out ghattempt/lease/"
              if protected else "")
    try:
        moved = gh.create_commit_on_branch(f"{run.owner}/{run.name}", branch,
                                           expected_head_oid=base.oid,
                                           headline="ghattempt probe: moved")
    except GitHubRefused as exc:
        run.see("lease ref moved", moved_expected, "refs",
                f"refused: {_said(exc, 'contents: write')}{remedy}", False)
        run.skip("stale head refused", stale_expected, "stale", "the ref could not be moved")
    else:
        run.see("lease ref moved", moved_expected, "refs",
                f"moved to {moved.oid[:12]}"
                + (" (a classic branch protection rule covers it and let the write through)"
                   if protected else ""), True)
        try:
            gh.create_commit_on_branch(f"{run.owner}/{run.name}", branch,
                                       expected_head_oid=base.oid,
                                       headline="ghattempt probe: stale")
        except RefConflict as exc:
            run.see("stale head refused", stale_expected, "stale",
                    f"STALE_DATA: {_said(exc)[:120]}", True)
        except GitHubRefused as exc:
            run.see("stale head refused", stale_expected, "stale",
                    f"refused, not as STALE_DATA: {_said(exc)}", False)
        else:
            run.see("stale head refused", stale_expected, "stale",
                    f"landed on the moved head {moved.oid[:12]}: a stale write was accepted",
                    False)
    # delete it now, so that the observation is the deletion's own
    run.undo = [(w, u) for w, u in run.undo if w != f"ref {ref_name}"]
    try:
        gh.delete_ref(ref.id)
    except GitHubRefused as exc:
        run.left.append(f"ref {ref_name}: not removed ({_said(exc)}); delete it as an "
                        "admin (a rule protects it)")
        run.see("lease ref deleted", "the probe's own ref can be deleted (a rule that "
                "protects lease refs from deletion keeps it: then delete it as an admin)",
                "refs", f"refused: {_said(exc)}", True, relied=False)
    else:
        run.removed.append(f"ref {ref_name}")
        gone = gh.ref(run.owner, run.name, ref_name) is None
        run.see("lease ref deleted", "the probe's own ref can be deleted", "refs",
                "deleted" if gone else "still there after deleteRef", gone, relied=False)


def _rules(run: _Run, branch: str) -> None:
    from ghattempt.github import GitHubRefused

    gh = run.gh
    expected = ("no rule refusing direct writes (creation, update, pull request, status "
                "checks, signatures, metadata) targets refs/heads/ghattempt/lease/**, or "
                "the token may bypass it")
    try:
        rules = gh.branch_rules(run.owner, run.name, branch)
    except GitHubRefused as exc:
        run.see("rules on the lease prefix", expected, "rules",
                f"could not be read: {_said(exc)}", False)
        return
    bypass: dict[int, str] = {}
    blocking: list[str] = []
    for rule in rules:
        kind = str(rule.get("type"))
        if kind not in DIRECT_WRITE_RULES:
            continue
        rid = rule.get("ruleset_id")
        if isinstance(rid, int) and rid not in bypass:
            try:
                bypass[rid] = str(gh.repository_ruleset(run.owner, run.name, rid).get(
                    "current_user_can_bypass") or "never")
            except GitHubRefused:
                bypass[rid] = "unknown"
        if bypass.get(rid) != "always" if isinstance(rid, int) else True:
            blocking.append(f"{kind} (ruleset {rid})")
    kinds = sorted({str(r.get("type")) for r in rules})
    run.see("rules on the lease prefix", expected, "rules",
            ("none" if not kinds else "rules: " + ", ".join(kinds))
            + (f"; refusing the lease's writes: {', '.join(blocking)}: exclude "
               "refs/heads/ghattempt/lease/** from those rulesets (a GITHUB_TOKEN cannot "
               "bypass a ruleset)" if blocking else ""), not blocking)
    protected = "deletion" in kinds
    run.see("lease refs protected from deletion", "a ruleset with a deletion rule "
            "(\"restrict deletions\") targets refs/heads/ghattempt/lease/** (it does not "
            "refuse the lease's own writes)", "deletion",
            "yes" if protected else "no: add a ruleset targeting "
            "refs/heads/ghattempt/lease/** with only \"Restrict deletions\" (a deleted "
            "lease ref leaves a journal whose head cannot be proved)", protected,
            relied=False)


def _actions(run: _Run, run_id: int | None) -> None:
    from ghattempt.github import AuthFailed, NotFound

    run_id = run_id or 1
    expected = ("the token may read workflow runs (permissions: actions: read), for run "
                f"{run_id}")
    try:
        run.gh.workflow_run_path(run.owner, run.name, run_id)
    except NotFound:
        run.see("Actions API readable", expected, "actions",
                f"run {run_id} not found (404): readable", True)
    except AuthFailed as exc:
        run.see("Actions API readable", expected, "actions",
                f"refused: {_said(exc)}; add `actions: read` to the workflow's "
                "permissions: (or the App's)", False)
    else:
        run.see("Actions API readable", expected, "actions", f"run {run_id} read",
                True)


def _budgets(run: _Run, view: Any) -> None:
    from ghattempt.github import GitHubRefused

    state = run.gh.usage.rate_limit
    headers = state.limit is not None and state.remaining is not None \
        and state.reset is not None
    run.see("rate-limit headers", "x-ratelimit-limit, -remaining, -reset on every answer",
            "headers", f"limit {state.limit}, remaining {state.remaining}, reset "
            f"{state.reset} ({state.resource})" if headers else "absent", headers)
    try:
        budgets = run.gh.rate_limit()
    except GitHubRefused as exc:
        run.see("remaining budgets", "GET /rate_limit answers every primary budget",
                "budgets", f"refused: {_said(exc)}", False)
        return
    spent = [b.name for b in budgets if b.name in ("core", "graphql") and b.remaining == 0]
    graphql = f"; GraphQL rateLimit {view.budget_remaining} of {view.budget_limit}" \
        if view is not None and view.budget_limit is not None else ""
    run.see("remaining budgets", "core and graphql budgets reported, not spent", "budgets",
            ", ".join(f"{b.name} {b.remaining}/{b.limit}" for b in budgets
                      if b.name in ("core", "graphql")) + graphql
            + (f": spent ({', '.join(spent)}), wait for the reset" if spent else ""),
            bool(budgets) and not spent)


# Public as ghattempt.commands (README.md, "Layout"), as the other requests are.
for _exported in (Observation, Probe, ProbeReport):
    _exported.__module__ = "ghattempt.commands"
del _exported
