"""Writer commands: ``admit``, ``record``, ``successor``, ``supersede``, ``expire``,
``rollback``.

Shape::

    perform(command: str, args) -> WriteOutcome          # shared by the CLI and the Action
    check_plan(args, cfg) -> None                        # before any request
    WriteOutcome(verdict: Verdict, url: str, message: str, wrote: bool, pages)
    admit(args) / record(args) / successor(args) / expire(args) / rollback(args) -> int

Every write goes through the business attempt store (``ghattempt.store``) under a
``RefLease`` writer scope on the repository (docs/store.md; architecture, "Exclusion"):
the store captures and replays the journal with the core, refuses what the reader
would refuse, and reconciles an unknown outcome by reading back the same key. Nothing
here decides a rule; this module only gathers the inputs:

- the repository's node id (GitHub's, looked up by name);
- the generation (ADR 0006): the pull request's head commit and its tree, the
  configuration file's path, git blob oid and content digest (read from the checkout:
  ``--config`` relative to the working directory, ``GITHUB_WORKSPACE`` in Actions), and
  the observed base branch and commit;
- the channel's plan, the request key (rendered from the configuration unless given),
  ``expires_at`` = GitHub's clock + ``attempt.expires_after``;
- the writer: ``{"kind":"actions",...}`` in Actions, ``{"kind":"cli","actor"}`` otherwise.

``record`` and ``rollback`` write on the request key's chain tip; with ``--attempt ID``
or ``--head SHA`` (the Action's ``attempt`` and ``head``) they first check that the tip
is that attempt, or of that head (:func:`_check_target`), so a step of a run for an
earlier attempt never writes on a newer one.
"""

from __future__ import annotations

import getpass
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ghattempt.cli._context import (
    connect,
    journal_url,
    load_settings,
    notice_hook,
    split_repository,
)
from ghattempt.cli._errors import CliError
from ghattempt.errors import Fault

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.core import AttemptState, Generation, JournalState, Material, Verdict, Writer
    from ghattempt.github import GitHubProvider, PullRequest
    from ghattempt.store import BusinessAttemptStore, Journal, Planned, Session

__all__ = ["PLANNABLE", "WriteOutcome", "admit", "check_plan", "expire", "perform", "plan",
           "plan_json", "plan_lines", "record", "rollback", "successor", "supersede"]


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """What a write did: the verdict read right after it, the journal URL, a one-line
    message, whether anything was written (False: the same operation was there), and
    the pages the verdict was read from (for the timeline page)."""

    verdict: Verdict
    url: str
    message: str
    wrote: bool
    pages: Any = None
    planned: tuple[Planned, ...] | None = None
    """For a plan (``perform(..., planning=True)``): what the command would write, in
    order (the lease first); None for a command that wrote."""


@dataclass
class _Ctx:
    args: Any
    cfg: LoadedConfig
    gh: GitHubProvider
    owner: str
    name: str
    repository_id: str
    store: BusinessAttemptStore
    pull_request: int
    base_ref: str
    pull: PullRequest | None = None  # as read at start, when it was
    planning: bool = False  # build and check every write, send none (``plan``)

    @property
    def repository(self) -> str:
        return f"{self.owner}/{self.name}"

    def open(self) -> Any:
        """The store's :meth:`open` (find or create the journal, hold its scope), or for
        a plan its planning session."""
        if self.planning:
            return self.store.plan(self.pull_request, self.base_ref, create=True)
        return self.store.open(self.pull_request, self.base_ref)

    def session(self, journal: Journal) -> Any:
        """The store's :meth:`session` on ``journal``, or for a plan its planning
        session."""
        if self.planning:
            return self.store.plan(self.pull_request, self.base_ref)
        return self.store.session(journal)


def _writer(args: Any) -> Writer:
    from ghattempt.core import ActionsWriter, CliWriter

    actions = getattr(args, "actions_writer", None)
    if actions:
        return ActionsWriter(**actions)
    actor = getattr(args, "actor", None) or os.environ.get("GITHUB_ACTOR") or getpass.getuser()
    return CliWriter(actor)


# Options whose values are written verbatim (records, the lease holder): never a token.
_VERBATIM = {"actor": "--actor", "key": "--key", "request_key": "--request-key",
             "channel": "--channel", "authorization": "--authorization",
             "base_ref": "--base-ref"}


def check_plan(args: Any, cfg: LoadedConfig) -> None:
    """What a write can be refused for without asking GitHub: the channel exists and,
    for ``record``, the phase is ``attempt``, ``rollback`` or in the channel's plan.

    Raises:
        ConfigError: no such channel (exit 2).
        CliError: (2) a phase outside the plan.
    """
    channel = cfg.channel(getattr(args, "channel", None))
    phase = getattr(args, "phase", None)
    if args.command == "record" and phase not in (None, "attempt", "rollback") \
            and phase not in channel.plan:
        raise CliError(Fault.BAD_INPUT, f"--phase {phase[:40]!r} is not in the plan of channel "
                          f"{channel.name!r} ({cfg.path}): use one of "
                          f"{', '.join(channel.plan)}, 'attempt' or 'rollback'")
    start = getattr(args, "start", None)
    if args.command == "admit" and start is not None and start not in channel.plan:
        raise CliError(Fault.BAD_INPUT, f"--start {start[:40]!r} is not in the plan of channel "
                          f"{channel.name!r} ({cfg.path}): use one of "
                          f"{', '.join(channel.plan)}")
    then = getattr(args, "then_start", None)
    if args.command == "record" and then is not None:
        follows = _phase_after(channel.plan, phase)
        status = getattr(args, "status", None)
        if status != "succeeded" and then == follows:
            raise CliError(Fault.BAD_INPUT, f"--then-start {then[:40]!r} needs --status "
                           f"succeeded, not {str(status)[:40]!r}: the next phase starts once "
                           "this one has succeeded")
        if then != follows:
            after = (f"the phase after {phase!r} in the plan of channel {channel.name!r} is "
                     f"{follows!r}" if follows else f"{str(phase)[:40]!r} has no next phase in "
                     f"the plan of channel {channel.name!r}")
            raise CliError(Fault.BAD_INPUT, f"--then-start {then[:40]!r} needs --status "
                           f"succeeded and the next phase of the plan ({cfg.path}): {after}")


@contextmanager
def _context(args: Any, planning: bool = False) -> Iterator[_Ctx]:
    from ghattempt.cli._secrets import refuse_secrets
    from ghattempt.compose import writing_store
    from ghattempt.core import lease_ref_name

    cfg = getattr(args, "loaded_config", None) or load_settings(
        args.config, required=True, root=getattr(args, "config_root", None))
    assert cfg is not None
    owner, name = split_repository(args.repository)
    if args.pull_request is None:
        raise CliError(Fault.BAD_INPUT, "which pull request? pass --pull-request N")
    if args.pull_request < 1:
        raise CliError(Fault.BAD_INPUT, "--pull-request must be a number >= 1")
    refuse_secrets(args, _VERBATIM)
    check_plan(args, cfg)
    writer = _writer(args)
    lease = cfg.settings.lease
    args.timeout = min(float(args.timeout or lease.request_timeout), lease.request_timeout)
    notice = notice_hook(args)
    known = getattr(args, "known", None)
    with connect(args, mutation_interval=cfg.settings.pacing.write_interval) as gh:
        # one request: who the token is on this host (viewer), the repository, the pull
        # request's base when none was given, and the journal where an earlier step of
        # the job found it (the store checks it: ghattempt.store.Known)
        base_ref = args.base_ref
        start = gh.writer_read(
            owner, name, pull_request=None if base_ref else args.pull_request,
            lease=None if known is None else lease_ref_name(known.intent,
                                                            known.repository_id),
            number=None if known is None else known.number)
        repo = start.repository
        if not base_ref:
            assert start.pull_request is not None
            base_ref = start.pull_request.base_ref_name
        store = writing_store(gh, cfg, writer, repository=repo.name_with_owner,
                              repository_id=repo.id, known=repo, notice=notice,
                              server_url=getattr(args, "server_url", None) or None)
        if start.pull_request is not None:  # the category scan stops before it was opened
            store.pull_request_opened(args.pull_request, start.pull_request.created_at)
        if known is not None and (known.pull_request, known.base_ref) == (args.pull_request,
                                                                          base_ref):
            store.prime(start, known)
        yield _Ctx(args, cfg, gh, owner, name, repo.id, store, args.pull_request, base_ref,
                   start.pull_request, planning)


def _request_key(ctx: _Ctx) -> str:
    if ctx.args.request_key:
        return str(ctx.args.request_key)
    return ctx.cfg.request_key(repository_id=ctx.repository_id, pull_request=ctx.pull_request,
                               base_ref=ctx.base_ref, channel=ctx.args.channel)


def _generation(ctx: _Ctx) -> Generation:
    """The pull request's current generation (ADR 0006: source, tree, config, base)."""
    from ghattempt.compose import generation

    pr = ctx.pull
    if pr is None:
        pr = ctx.gh.pull_request(ctx.owner, ctx.name, ctx.pull_request)
        ctx.store.pull_request_opened(ctx.pull_request, pr.created_at)
    if pr.base_ref_name != ctx.base_ref:
        raise CliError(Fault.BAD_INPUT,
                       f"pull request #{ctx.pull_request} targets {pr.base_ref_name}, "
                          f"not {ctx.base_ref}")
    # the tree came with the pull request (WriterRead: its head ref, at its head commit);
    # else read the head ref
    tree = pr.head_tree_oid or ""
    ref = None
    if not tree:
        ref = ctx.gh.ref(ctx.owner, ctx.name, f"refs/heads/{pr.head_ref_name}")
        tree = ref.commit.tree_oid if ref is not None and ref.commit is not None else ""
    if not tree or (ref is not None and ref.target_oid != pr.head_oid):
        raise CliError(Fault.GITHUB_UNAVAILABLE,
                       f"the head of pull request #{ctx.pull_request} moved while it was "
                          "read (or its branch is in a fork); run the command again")
    return generation(ctx.cfg, source_commit=pr.head_oid, tree=tree,
                      base_ref=pr.base_ref_name, base_commit=pr.base_oid)


def _expires_at(ctx: _Ctx) -> str:
    now = ctx.gh.last_server_time or time.time()
    seconds = now + ctx.cfg.settings.attempt.expires_after
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(seconds)))


def _tip(session: Session, key: str) -> AttemptState:
    tip = session.state.tip(key)
    if tip is None:
        raise CliError(Fault.REFUSED, f"no attempt for request key {key} yet; admit one first")
    return tip


def _check_target(state: JournalState, tip: AttemptState, args: Any) -> None:
    """``--attempt ID`` and ``--head SHA``: what the step's work was for. ``record`` and
    ``rollback`` write on the request key's chain tip; a step of a run for an earlier
    attempt (a re-run, or a slow run finishing after a push superseded its attempt or
    after a successor followed its failure) would otherwise write on the newer attempt,
    and a record in a journal is never removed. So the tip must be the attempt
    ``--attempt`` names, and of the head ``--head`` names: its generation's
    ``source_commit`` (ADR 0006: a generation is the exact source commit, tree,
    configuration and base; a push makes a new one, and ``supersede`` makes its attempt
    the tip). Checked in the writer scope, before anything is written, for a plan too.
    Neither given: no check (the tip, as always).

    Raises:
        CliError: (1) the tip is another attempt, or of another head.
    """
    attempt: str | None = getattr(args, "attempt", None)
    if attempt is not None and tip.id != attempt:
        named = state.attempt(attempt)
        if named is not None and named.request_key != tip.request_key:
            raise CliError(Fault.REFUSED, f"attempt {attempt} is of request key "
                           f"{named.request_key}, not {tip.request_key}, the key this step "
                           "writes under: nothing was recorded; pass that key's channel (or "
                           "--request-key), or the attempt id of this key")
        was = f"it is {named.status}" if named is not None else "no attempt of this journal"
        raise CliError(Fault.REFUSED, f"the current attempt of request key {tip.request_key} "
                       f"is {tip.id}, not {attempt} ({was}), the attempt this step's work was "
                       "for: nothing was recorded; re-run the workflow to work on the "
                       "current attempt")
    head: str | None = getattr(args, "head", None)
    at = tip.attempt.generation.source_commit
    if head is not None and at != head:
        raise CliError(Fault.REFUSED, f"attempt {tip.id} is of head {at[:12]}, not {head[:12]}, "
                       "the head this step's work was done on: this step's run is for an "
                       "older (or other) head of the pull request; nothing was recorded: "
                       "re-run the workflow for the current head (if this is the current "
                       "head, the attempt is the stale one: supersede it first)")


def _find(ctx: _Ctx) -> Journal:
    journal = ctx.store.locate(ctx.pull_request, ctx.base_ref)
    if journal is None:
        raise CliError(Fault.REFUSED, f"no journal for pull request #{ctx.pull_request} into "
                          f"{ctx.base_ref} yet; admit opens it")
    return journal


def _outcome(ctx: _Ctx, s: Session, key: str, message: str, wrote: bool) -> WriteOutcome:
    """What a command did (or, in a plan, would do), read from the session's pages."""
    verdict = ctx.store.read(s.pages, key)
    number = s.journal.number
    url = journal_url(getattr(ctx.args, "server_url", None), ctx.repository, number) \
        if number else ""
    return WriteOutcome(verdict, url, message, wrote, s.pages, s.planned)


def _materials(ctx: _Ctx, state: AttemptState) -> tuple[Material, ...]:
    from ghattempt.core import Material, build_material

    text = ctx.args.materials
    if not text:
        return ()
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError as exc:
            raise CliError(Fault.BAD_INPUT, f"--materials {text}: {text[1:]!r} is not UTF-8 "
                              f"({str(exc)[:100]}); give a UTF-8 JSON file") from None
        except OSError as exc:
            raise CliError(Fault.BAD_INPUT, f"--materials {text}: cannot read {text[1:]!r} "
                              f"({exc.strerror}); give @FILE of a readable JSON file or the "
                              "JSON array itself") from None
    try:
        items = json.loads(text)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise CliError(Fault.BAD_INPUT,
                       f"--materials is not UTF-8 JSON ({str(exc)[:100]})") from None
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise CliError(Fault.BAD_INPUT, "--materials must be a JSON array of objects")
    out: list[Material] = []
    from ghattempt.cli._secrets import looks_secret

    for i, m in enumerate(items):
        if any(isinstance(v, str) and looks_secret(v, getattr(ctx.args, "token_env", None))
               for v in m.values()):
            raise CliError(Fault.BAD_INPUT,
                           f"--materials[{i}] holds a token or key (or a value shaped like "
                              "one); a material is written into the journal verbatim")
        try:
            if "attempt" in m or "generation" in m:
                out.append(Material(m["id"], m["kind"], m["bytes"], m["digest"], m["attempt"],
                                    m["generation"], m["url"]))
            else:
                out.append(build_material(attempt=state, id=m["id"], kind=m["kind"],
                                          size=m["bytes"], digest=m["digest"], url=m["url"]))
        except KeyError as exc:
            raise CliError(Fault.BAD_INPUT,
                           f"--materials[{i}] lacks {exc}; give id, kind, bytes, digest "
                              "and url") from None
        except (TypeError, ValueError) as exc:
            raise CliError(Fault.BAD_INPUT, f"--materials[{i}]: {exc}") from None
    return tuple(out)


def _public(args: Any, text: str | None) -> str | None:
    """``text`` for a record (a public comment): the token's value and every token-shaped
    string replaced by ``[redacted]`` (a reason copied from a failing step's log may hold
    one; GitHub masks secrets in logs, never in comments)."""
    if not text:
        return None
    from ghattempt.github import redact

    names = {getattr(args, "token_env", None) or "GITHUB_TOKEN", "GITHUB_TOKEN",
             "GHATTEMPT_TOKEN"}
    return redact(text, [os.environ.get(name, "") for name in names])


def _event_key(args: Any, writer: Writer, phase: str, status: str) -> str:
    if getattr(args, "key", None):
        return str(args.key)
    return _derived_key(writer, phase, status)


def _derived_key(writer: Writer, phase: str, status: str) -> str:
    """The key a ``record --phase PHASE --status STATUS`` step without ``--key`` uses."""
    from ghattempt.compose import holder_label
    from ghattempt.core import key_from

    who = holder_label(writer).replace("/", ":")

    return key_from(f"{who}:{phase}:{status}")


# ------------------------------------------------------------------------- commands


def _admit(ctx: _Ctx) -> WriteOutcome:
    """ADR-038 admission. A blocking attempt of this very generation (and authorization)
    is the same admission already made: reported, not repeated; any other blocking
    attempt makes the store refuse (``Blocked``, exit 1)."""
    key = _request_key(ctx)
    channel = ctx.cfg.channel(ctx.args.channel)
    generation = _generation(ctx)
    # find or create the journal and hold its scope: one hold for both
    with ctx.open() as s:
        blocking = s.find_blocking(key)
        if blocking is not None and blocking.generation_id == generation.id \
                and blocking.attempt.authorization == ctx.args.authorization:
            return _started(ctx, s, key, blocking, f"attempt {blocking.id} for {key} is "
                            f"already admitted ({blocking.status})", False)
        start = getattr(ctx.args, "start", None)
        if start is not None and start != channel.plan[0]:
            # a fresh attempt has no phase done: only its plan's first can start
            raise CliError(Fault.BAD_INPUT, f"--start {start}: a new attempt of channel "
                           f"{channel.name} begins with {channel.plan[0]} (its plan: "
                           f"{' '.join(channel.plan)}); start {channel.plan[0]}, or name the "
                           f"channel whose plan begins with {start}; no attempt was admitted")
        state = s.admit(request_key=key, generation=generation, plan=channel.plan,
                        channel=channel.name, expires_at=_expires_at(ctx),
                        authorization=ctx.args.authorization)
        return _started(ctx, s, key, state, f"admitted attempt {state.id} for {key}", True)


def _started(ctx: _Ctx, s: Session, key: str, state: AttemptState, message: str,
             wrote: bool) -> WriteOutcome:
    """``--start PHASE``: the phase's ``started`` under the admission's hold."""
    phase = getattr(ctx.args, "start", None)
    if phase is None:
        return _outcome(ctx, s, key, message, wrote)
    ekey = getattr(ctx.args, "start_key", None) or _derived_key(
        ctx.store.writer, phase, "started")
    return _start(ctx, s, key, state, phase, ekey, message, wrote)


_STARTED_BEFORE = frozenset({"started", "succeeded"})
"""NEXT's last status when an earlier run's record of it (under another key) stands for
this step's ``started``: the phase is under way or done."""
_STILL_GOING = frozenset({"running", "succeeded"})
"""Attempt statuses in which that earlier record is the whole answer; in any other (a
failed, cancelled or waiting attempt...) the ``started`` is appended and the replay rules
answer as they answer a separate ``record --status started`` step."""


def _start(ctx: _Ctx, s: Session, key: str, state: AttemptState, phase: str, ekey: str,
           message: str, wrote: bool) -> WriteOutcome:
    """``phase``'s ``started`` in the hold of the step that asked for it (``admit
    --start``, ``record --then-start``), under ``ekey``, the key a separate ``record
    --phase PHASE --status started`` step would use, so either replays the other. A
    running (or succeeded) attempt whose ``phase`` is already started or succeeded under
    another key (an earlier run's) gets none (:data:`_STARTED_BEFORE`,
    :data:`_STILL_GOING`): running again never doubles it."""
    state = s.attempt(state.id)
    if phase in state.last and all(e.key != ekey for e in state.events) \
            and state.last[phase][0] in _STARTED_BEFORE \
            and state.status in _STILL_GOING:
        status = state.last[phase][0]
        return _outcome(ctx, s, key, f"{message}; {phase} already recorded ({status})", wrote)
    from ghattempt.errors import GhattemptError
    from ghattempt.store import RefusedByRules

    try:
        result = s.append(state.id, key=ekey, phase=phase, status="started")
    except GhattemptError as exc:
        if not wrote:
            raise
        from ghattempt.cli._errors import cli_message

        # what was written stands: say so, beside what became of the start
        after = "; nothing else was written" if isinstance(exc, RefusedByRules) else ""
        raise CliError(exc.fault, f"{message}, and that stands; but {phase} started: "
                       f"{cli_message(exc)}{after}") from None
    what = "already recorded" if result.replayed else "recorded"
    extra = f" after {result.sends} sends" if result.sends > 1 else ""
    return _outcome(ctx, s, key, f"{message}; {what} {phase} started (seq "
                    f"{result.event.seq}, key {ekey}){extra}", wrote or not result.replayed)


def _successor(ctx: _Ctx) -> WriteOutcome:
    """Open the successor of the key's chain tip; a pending tip of this generation that
    already succeeds a non-blocking attempt is that successor (a re-run), reported."""
    key = _request_key(ctx)
    generation = _generation(ctx)
    journal = _find(ctx)
    with ctx.session(journal) as s:
        tip = _tip(s, key)
        if tip.predecessor is not None and tip.status == "pending" \
                and tip.generation_id == generation.id:
            pred = s.state.attempt(tip.predecessor)
            if pred is not None and not pred.blocks:
                return _outcome(ctx, s, key, f"successor {tip.id} is already "
                                "admitted", False)
        channel = ctx.cfg.channel(ctx.args.channel or tip.attempt.channel)
        result = s.successor(tip.id, generation=generation, plan=channel.plan,
                             channel=channel.name, expires_at=_expires_at(ctx),
                             authorization=getattr(ctx.args, "authorization", None))
        return _outcome(ctx, s, key, f"admitted successor "
                        f"{result.attempt.id} of {tip.id}", True)


def _supersede(ctx: _Ctx) -> WriteOutcome:
    """A new generation (a push, a moved base): the key's chain tip is recorded
    ``superseded`` and an attempt for the current generation succeeds it, in one scope."""
    key = _request_key(ctx)
    generation = _generation(ctx)
    journal = _find(ctx)
    reason = (_public(ctx.args, ctx.args.reason)
              or f"new generation: head {generation.source_commit[:12]}")
    with ctx.session(journal) as s:
        tip = _tip(s, key)
        if tip.generation_id == generation.id:
            raise CliError(Fault.REFUSED, f"attempt {tip.id} is already of the current generation "
                              "(same head, tree, config and base): nothing to supersede")
        channel = ctx.cfg.channel(ctx.args.channel or tip.attempt.channel)
        state = s.supersede(tip.id, generation=generation, reason=reason,
                            expires_at=_expires_at(ctx), plan=channel.plan,
                            channel=channel.name)
        return _outcome(ctx, s, key, f"superseded {tip.id}; admitted "
                        f"{state.id} for the new generation", True)


def _record(ctx: _Ctx) -> WriteOutcome:
    key = _request_key(ctx)
    journal = _find(ctx)
    phase_arg: str = ctx.args.phase
    phase = None if phase_arg == "attempt" else phase_arg
    status: str = ctx.args.status
    with ctx.session(journal) as s:
        tip = _tip(s, key)
        _check_target(s.state, tip, ctx.args)
        then = getattr(ctx.args, "then_start", None)
        if then is not None:
            _check_then_start(tip, phase_arg, then)
        ekey = _event_key(ctx.args, ctx.store.writer, phase_arg, status)
        result = s.append(tip.id, key=ekey, phase=phase, status=status,
                          reason=_public(ctx.args, ctx.args.reason),
                          materials=_materials(ctx, tip))
        what = "already recorded" if result.replayed else "recorded"
        extra = f" after {result.sends} sends" if result.sends > 1 else ""
        message = f"{what} {phase_arg} {status} (seq {result.event.seq}, key {ekey}){extra}"
        if then is None:
            return _outcome(ctx, s, key, message, not result.replayed)
        # --then-start: the next phase's started in this same hold (checked by check_plan)
        tkey = getattr(ctx.args, "then_start_key", None) or _derived_key(
            ctx.store.writer, then, "started")
        return _start(ctx, s, key, tip, then, tkey, message, not result.replayed)


def _phase_after(plan: Sequence[str], phase: str | None) -> str | None:
    """The phase right after ``phase`` in ``plan``; None for the last one or a name that
    is not a phase of it."""
    return plan[plan.index(phase) + 1] if phase in plan[:-1] else None


def _check_then_start(tip: AttemptState, phase: str, then: str) -> None:
    """``--then-start`` against the plan the attempt itself records (the configuration's
    channel was checked before any request; a request key shared by channels can name an
    attempt of another plan): NEXT must follow ``phase`` there, before anything is written.

    Raises:
        CliError: (2) ``then`` is not the phase after ``phase`` in the attempt's plan.
    """
    plan = tip.attempt.plan
    follows = _phase_after(plan, phase)
    if then != follows:
        after = (f"the phase after {phase!r} is {follows!r}" if follows
                 else f"{phase[:40]!r} has no next phase there")
        raise CliError(Fault.BAD_INPUT, f"--then-start {then[:40]!r} is not the next phase of "
                       f"attempt {tip.id}'s plan ({', '.join(plan)}): {after}; nothing was "
                       "written")


def _expire(ctx: _Ctx) -> WriteOutcome:
    key = _request_key(ctx)
    journal = _find(ctx)
    reason = _public(ctx.args, ctx.args.reason) or "expired before it was confirmed"
    with ctx.session(journal) as s:
        tip = _tip(s, key)
        if tip.status == "expired":
            return _outcome(ctx, s, key, f"attempt {tip.id} is already expired",
                            False)
        result = s.expire(tip.id, expected_head=tip.head_digest, reason=reason)
        return _outcome(ctx, s, key, f"expired attempt {tip.id}",
                        not result.replayed)


def _rollback(ctx: _Ctx) -> WriteOutcome:
    key = _request_key(ctx)
    journal = _find(ctx)
    status: str = ctx.args.status
    with ctx.session(journal) as s:
        tip = _tip(s, key)
        _check_target(s.state, tip, ctx.args)
        ekey = _event_key(ctx.args, ctx.store.writer, "rollback", status)
        result = s.rollback(tip.id, key=ekey, status=status,
                            reason=_public(ctx.args, ctx.args.reason))
        what = "already recorded" if result.replayed else "recorded"
        return _outcome(ctx, s, key, f"{what} rollback {status} on {tip.id}",
                        not result.replayed)


_COMMANDS = {"admit": _admit, "successor": _successor, "supersede": _supersede,
             "record": _record, "expire": _expire, "rollback": _rollback}


def perform(command: str, args: Any, *, planning: bool = False) -> WriteOutcome:
    """Run one writer command with ``args`` (the CLI's options, or the Action's).

    With ``planning`` (``ghattempt plan``), every step of the command runs as it would
    (configuration, who the token is, the category, the journal, the core's checks of
    each record) and every write is built, then left unsent: ``WriteOutcome.planned``
    lists them (the lease ref's first, checked against the repository's rulesets) and
    the verdict is the one after them. What a real run would be refused for is raised
    as the real run would raise it.

    Raises:
        CliError, ConfigError, store errors (``RefusedByRules`` exit 1,
        ``JournalInvalidError`` exit 3, ...), GitHub errors (exit 4).
    """
    with _context(args, planning) as ctx:
        return _COMMANDS[command](ctx)


PLANNABLE = ("admit", "record", "successor", "supersede", "expire", "rollback")
"""The commands ``plan`` can plan: every writer command."""


def plan_lines(outcome: WriteOutcome) -> list[str]:
    """What a plan says, one line each: the writes, then where the journal would stand."""
    lines = [f"would write {p.kind}: {p.what}" for p in outcome.planned or ()]
    if len(lines) == 1:
        lines.append("no record would be written (the same operation is in the journal)")
    v = outcome.verdict
    lines.append(f"then: status {v.status}, recovery {v.recovery}")
    return lines


def plan_json(command: str, outcome: WriteOutcome) -> dict[str, Any]:
    """The plan as JSON: the command, each write (its kind, line and record as the
    journal holds it) and the verdict after them."""
    writes = [{"kind": p.kind, "what": p.what,
               "record": p.record.to_dict() if p.record is not None else None}
              for p in outcome.planned or ()]
    return {"command": command, "allowed": True, "message": outcome.message,
            "writes": writes, "verdict": outcome.verdict.to_json()}


def plan(args: Any) -> int:
    """``ghattempt plan COMMAND ...``: check everything ``COMMAND`` needs and say what it
    would write, writing nothing. Exit 0 when a real run would be allowed; otherwise the
    error (and exit status) the real run would end with."""
    command: str = args.plan_command
    args.command = command  # the checks before any request are the command's own
    outcome = perform(command, args, planning=True)
    if args.json:
        out = json.dumps(plan_json(command, outcome), ensure_ascii=True,
                         separators=(",", ":"))
        sys.stdout.write(out + "\n")
    else:
        print(f"plan {command}: a real run would be allowed ({outcome.message})")
        for line in plan_lines(outcome):
            print(f"  {line}")
    return 0


def _cli(command: str, args: Any) -> int:
    outcome = perform(command, args)
    if args.json:
        out = json.dumps(outcome.verdict.to_json(), ensure_ascii=True, separators=(",", ":"))
        sys.stdout.write(out + "\n")
    else:
        v = outcome.verdict
        print(f"{outcome.message}\nstatus {v.status}, recovery {v.recovery}; "
              f"journal {outcome.url}")
    return 0 if outcome.verdict.exit_code == 0 else outcome.verdict.exit_code


def admit(args: Any) -> int:
    """``ghattempt admit``."""
    return _cli("admit", args)


def record(args: Any) -> int:
    """``ghattempt record``."""
    return _cli("record", args)


def successor(args: Any) -> int:
    """``ghattempt successor``."""
    return _cli("successor", args)


def supersede(args: Any) -> int:
    """``ghattempt supersede``."""
    return _cli("supersede", args)


def expire(args: Any) -> int:
    """``ghattempt expire``."""
    return _cli("expire", args)


def rollback(args: Any) -> int:
    """``ghattempt rollback``."""
    return _cli("rollback", args)


# Public as ghattempt.cli.shared (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    check_plan, perform, plan_json, plan_lines,
):
    _exported.__module__ = "ghattempt.cli.shared"
del _exported
