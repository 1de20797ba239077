"""The writing use cases, executed once for every face.

Shape::

    write(request: WriteRequest, config, connection) -> WriteOutcome   # commands.execute
    plan(request: WriteRequest, config, connection) -> WriteOutcome    # nothing is sent
    WriteOutcome(verdict, url, message, wrote, capture, planned)

Every write goes through the business attempt store (``ghattempt.store``), built by the
composition root (``ghattempt.compose``), under a ``RefLease`` writer scope on the
repository (docs/store.md): the store captures and replays the journal with the core,
refuses what the reader would refuse, and reconciles an unknown outcome by reading back
the same key. Nothing here decides a rule of the journal; a command gathers what the
store needs:

- the repository's node id (GitHub's, looked up by name; or the delivery's);
- the generation (ADR 0006): the pull request's head commit and its tree (read from
  GitHub, or as a delivery observed them), the configuration's path, git blob oid and
  content digest, and the observed base branch and commit; built in :func:`_generation`;
- the channel's plan, the request key (``ghattempt.commands._keys``), ``expires_at`` =
  GitHub's clock + ``attempt.expires_after``.

``plan`` runs the same command code with the store's planning session in place of the
writing one (:class:`_Planning`, a strategy, not a flag): every write is built and
checked, none is sent, and :attr:`WriteOutcome.planned` lists them (the lease first).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ghattempt.commands._connection import Connection, connect, journal_url
from ghattempt.commands._errors import CommandError, NotYet, PartWritten
from ghattempt.commands._keys import request_key
from ghattempt.commands._requests import (
    Admit,
    Expire,
    OpenSuccessor,
    RecordEvent,
    RestoreLease,
    Rollback,
    Supersede,
    Target,
    WriteRequest,
    _phase_after,
    check,
)
from ghattempt.errors import Fault

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.core import AttemptState, Capture, Generation, JournalState, Material, Verdict
    from ghattempt.github import GitHubProvider, PullRequest
    from ghattempt.store import BusinessAttemptStore, Journal, Planned, Session

__all__ = ["WriteOutcome", "plan", "restore_lease", "write"]


class WriteOutcome:
    """What a write did (or, planned, would do): the verdict read right after it (read
    on first use, from the session's capture), the journal URL, a one-line message,
    whether anything was written (False: the same operation was there already), the
    capture the verdict is read from (for the timeline page), and for a plan what it
    would write, in order (the lease first); None for a command that wrote."""

    __slots__ = ("_read", "_verdict", "capture", "message", "planned", "url", "wrote")

    def __init__(self, read: Callable[[], Verdict], url: str, message: str, wrote: bool,
                 capture: Capture | None = None,
                 planned: tuple[Planned, ...] | None = None) -> None:
        self._read = read
        self._verdict: Verdict | None = None
        self.url = url
        self.message = message
        self.wrote = wrote
        self.capture = capture
        self.planned = planned

    @property
    def verdict(self) -> Verdict:
        """The reader's verdict on the journal after the command."""
        if self._verdict is None:
            self._verdict = self._read()
        return self._verdict

    def said(self, message: str) -> WriteOutcome:
        """The same outcome with another message."""
        said = WriteOutcome(self._read, self.url, message, self.wrote, self.capture,
                            self.planned)
        said._verdict = self._verdict
        return said

    def __repr__(self) -> str:
        return f"WriteOutcome(message={self.message!r}, wrote={self.wrote}, url={self.url!r})"


# ------------------------------------------------------------------------- strategies


class _Writes(Protocol):
    """Where a command's writes go: sessions of the writing store, or its planning one."""

    def open(self, pull_request: int, base_ref: str) -> AbstractContextManager[Session]:
        """Find or create the journal, and hold its scope."""
        ...

    def session(self, journal: Journal) -> AbstractContextManager[Session]:
        """Hold the scope of ``journal``."""
        ...


class _Writing:
    """The store's sessions: every write is sent."""

    def __init__(self, store: BusinessAttemptStore) -> None:
        self._store = store

    def open(self, pull_request: int, base_ref: str) -> AbstractContextManager[Session]:
        return self._store.open(pull_request, base_ref)

    def session(self, journal: Journal) -> AbstractContextManager[Session]:
        return self._store.session(journal)


class _Planning:
    """The store's planning sessions: every write is built and checked, then listed in
    ``Session.planned`` instead of being sent."""

    def __init__(self, store: BusinessAttemptStore) -> None:
        self._store = store

    def open(self, pull_request: int, base_ref: str) -> AbstractContextManager[Session]:
        return self._store.plan(pull_request, base_ref, create=True)

    def session(self, journal: Journal) -> AbstractContextManager[Session]:
        intent = journal.intent
        return self._store.plan(intent.pull_request, intent.base_ref)


# ---------------------------------------------------------------------------- context


@dataclass
class _Where:
    """One request's GitHub access, configuration, store and where its writes go."""

    request: WriteRequest | RestoreLease
    cfg: LoadedConfig
    gh: GitHubProvider
    store: BusinessAttemptStore
    connection: Connection
    repository_id: str
    base_ref: str
    pull: PullRequest | None  # as read at start, when it was
    writes: _Writes

    @property
    def repository(self) -> str:
        return self.request.target.repository

    @property
    def pull_request(self) -> int:
        return self.request.target.pull_request

    def key(self, target: Target | None = None, base_ref: str | None = None) -> str:
        """The request key of ``target`` (default: the request's) into ``base_ref``."""
        pull_request = (target or self.request.target).pull_request
        return request_key(self.cfg, given=self.request.request_key,
                           repository_id=self.repository_id, pull_request=pull_request,
                           base_ref=base_ref or self.base_ref, channel=self.request.channel)

    def expires_at(self) -> str:
        now = self.gh.last_server_time or time.time()
        seconds = now + self.cfg.settings.attempt.expires_after
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(seconds)))


@contextmanager
def _where(request: WriteRequest | RestoreLease, config: LoadedConfig, connection: Connection,
           writes: Callable[[BusinessAttemptStore], _Writes]) -> Iterator[_Where]:
    from ghattempt.compose import writing_store

    target = request.target
    if connection.provider is not None:
        # the App: an installation's provider, the repository's id from the delivery
        if connection.repository_id is None or target.base_ref is None:
            raise CommandError(Fault.BAD_INPUT, "a provider given without the repository's "
                               "node id or the base branch")
        store = writing_store(connection.provider, config, request.writer,
                              repository=target.repository,
                              repository_id=connection.repository_id,
                              notice=connection.notice, server_url=connection.server_url,
                              adapt=connection.adapt)
        if isinstance(request, Admit) and request.opened_at is not None:
            store.pull_request_opened(target.pull_request, request.opened_at)
        yield _Where(request, config, connection.provider, store, connection,
                     connection.repository_id, target.base_ref, None, writes(store))
        return
    from ghattempt.core import lease_ref_name

    lease = config.settings.lease
    timeout = min(float(connection.timeout or lease.request_timeout), lease.request_timeout)
    known = connection.known
    with connect(connection, timeout=timeout,
                 mutation_interval=config.settings.pacing.write_interval) as gh:
        # one request: who the token is on this host (viewer), the repository, the pull
        # request's base when none was given, and the journal where an earlier step of
        # the job found it (the store checks it: ghattempt.store.Known)
        base_ref = target.base_ref
        start = gh.writer_read(
            target.owner, target.name,
            pull_request=None if base_ref else target.pull_request,
            lease=None if known is None else lease_ref_name(known.intent,
                                                            known.repository_id),
            number=None if known is None else known.number)
        repo = start.repository
        if not base_ref:
            assert start.pull_request is not None
            base_ref = start.pull_request.base_ref_name
        store = writing_store(gh, config, request.writer, repository=repo.name_with_owner,
                              repository_id=repo.id, known=repo, notice=connection.notice,
                              server_url=connection.server_url,
                              check_writer=not isinstance(request, RestoreLease))
        if start.pull_request is not None:  # the category scan stops before it was opened
            store.pull_request_opened(target.pull_request, start.pull_request.created_at)
        if known is not None and (known.pull_request, known.base_ref) == (
                target.pull_request, base_ref):
            store.prime(start, known)
        yield _Where(request, config, gh, store, connection, repo.id, base_ref,
                     start.pull_request, writes(store))


def _generation(w: _Where) -> Generation:
    """The pull request's current generation (ADR 0006: source, tree, config, base): as
    the request observed it, else read from GitHub."""
    from ghattempt.compose import generation

    observed = getattr(w.request, "observed", None)
    if observed is not None:
        return generation(w.cfg, source_commit=observed.head, tree=observed.tree,
                          base_ref=w.base_ref, base_commit=observed.base_commit)
    target = w.request.target
    pr = w.pull
    if pr is None:
        pr = w.gh.pull_request(target.owner, target.name, target.pull_request)
        w.store.pull_request_opened(target.pull_request, pr.created_at)
    if pr.base_ref_name != w.base_ref:
        raise CommandError(Fault.BAD_INPUT, f"pull request #{target.pull_request} targets "
                           f"{pr.base_ref_name}, not {w.base_ref}")
    # the tree came with the pull request (read at start: its head ref, at its head
    # commit); else read the head ref
    tree = pr.head_tree_oid or ""
    ref = None
    if not tree:
        ref = w.gh.ref(target.owner, target.name, f"refs/heads/{pr.head_ref_name}")
        tree = ref.commit.tree_oid if ref is not None and ref.commit is not None else ""
    if not tree or (ref is not None and ref.target_oid != pr.head_oid):
        raise CommandError(Fault.GITHUB_UNAVAILABLE,
                           f"the head of pull request #{target.pull_request} moved while it "
                           "was read (or its branch is in a fork); run the command again")
    return generation(w.cfg, source_commit=pr.head_oid, tree=tree,
                      base_ref=pr.base_ref_name, base_commit=pr.base_oid)


def _tip(w: _Where, s: Session, key: str, *, out_of_order: bool = False) -> AttemptState:
    tip = s.state.tip(key)
    if tip is None:
        message = f"no attempt for request key {key} yet; admit one first"
        if out_of_order:
            raise NotYet(f"{message} (journal #{s.journal.number})")
        raise CommandError(Fault.REFUSED, message)
    return tip


def _find(w: _Where, target: Target | None = None, base_ref: str | None = None, *,
          out_of_order: bool = False) -> Journal:
    pull_request = (target or w.request.target).pull_request
    base = base_ref or w.base_ref
    journal = w.store.locate(pull_request, base)
    if journal is None:
        message = f"no journal for pull request #{pull_request} into {base} yet; admit opens it"
        if out_of_order:
            raise NotYet(message)
        raise CommandError(Fault.REFUSED, message)
    return journal


def _check_target(state: JournalState, tip: AttemptState, request: RecordEvent | Rollback) -> None:
    """``attempt`` and ``head``: what the step's work was for. ``record`` and
    ``rollback`` write on the request key's chain tip; a step of a run for an earlier
    attempt (a re-run, or a slow run finishing after a push superseded its attempt or
    after a successor followed its failure) would otherwise write on the newer attempt,
    and a record in a journal is never removed. So the tip must be the attempt
    ``attempt`` names, and of the head ``head`` names: its generation's
    ``source_commit`` (ADR 0006: a generation is the exact source commit, tree,
    configuration and base; a push makes a new one, and ``supersede`` makes its attempt
    the tip). Checked in the writer scope, before anything is written, for a plan too.
    Neither given: no check (the tip, as always).

    With ``RecordEvent.out_of_order`` (a webhook delivery), a tip of another head is
    :class:`NotYet` while no attempt of the journal had ``head`` (its push may be
    delivered later), and refused as an earlier attempt's head otherwise.

    Raises:
        CommandError: (refused) the tip is another attempt, or of another head.
        NotYet: as above.
    """
    attempt = request.attempt
    if attempt is not None and tip.id != attempt:
        named = state.attempt(attempt)
        if named is not None and named.request_key != tip.request_key:
            raise CommandError(Fault.REFUSED, f"attempt {attempt} is of request key "
                               f"{named.request_key}, not {tip.request_key}, the key this "
                               "step writes under: nothing was recorded; pass that key's "
                               "channel (or --request-key), or the attempt id of this key")
        was = f"it is {named.status}" if named is not None else "no attempt of this journal"
        raise CommandError(Fault.REFUSED, f"the current attempt of request key "
                           f"{tip.request_key} is {tip.id}, not {attempt} ({was}), the "
                           "attempt this step's work was for: nothing was recorded; re-run "
                           "the workflow to work on the current attempt")
    head = request.head
    at = tip.attempt.generation.source_commit
    if head is None or at == head:
        return
    if isinstance(request, RecordEvent) and request.out_of_order:
        if any(a.attempt.generation.source_commit == head for a in state.attempts):
            raise CommandError(Fault.REFUSED, f"the current attempt {tip.id} is at head {at}, "
                               f"not {head}: that is an earlier attempt's head")
        raise NotYet(f"the current attempt {tip.id} is at head {at}, not {head}")
    raise CommandError(Fault.REFUSED, f"attempt {tip.id} is of head {at[:12]}, not "
                       f"{head[:12]}, the head this step's work was done on: this step's run "
                       "is for an older (or other) head of the pull request; nothing was "
                       "recorded: re-run the workflow for the current head (if this is the "
                       "current head, the attempt is the stale one: supersede it first)")


def _outcome(w: _Where, s: Session, key: str, message: str, wrote: bool) -> WriteOutcome:
    """What a command did (or, in a plan, would do), read from the session's capture."""
    capture, store = s.capture, w.store
    number = s.journal.number
    url = journal_url(w.connection.server_url, w.repository, number) if number else ""
    return WriteOutcome(lambda: store.read(capture, key), url, message, wrote, capture,
                        s.planned)


def _materials(request: RecordEvent, state: AttemptState) -> tuple[Material, ...]:
    """The request's materials, each of the attempt it is written on unless it names
    one (checked when the request was built)."""
    from ghattempt.core import Material, build_material

    out: list[Material] = []
    for m in request.materials:
        if m.attempt is not None or m.generation is not None:
            out.append(Material(m.id, m.kind, m.bytes, m.digest, m.attempt, m.generation,
                                m.url))
        else:
            out.append(build_material(attempt=state, id=m.id, kind=m.kind, size=m.bytes,
                                      digest=m.digest, url=m.url))
    return tuple(out)


# ------------------------------------------------------------------------- commands


def _admit(w: _Where) -> WriteOutcome:
    request = w.request
    assert isinstance(request, Admit)
    key = w.key()
    generation = _generation(w)
    # find or create the journal and hold its scope: one hold for both
    with w.writes.open(w.pull_request, w.base_ref) as s:
        return _admit_in(w, s, key, generation, request.authorization, request.start,
                         request.start_key)


def _admit_in(w: _Where, s: Session, key: str, generation: Generation,
              authorization: str | None, start: str | None = None,
              start_key: str | None = None) -> WriteOutcome:
    """ADR-038 admission. A blocking attempt of this very generation (and authorization)
    is the same admission already made: reported, not repeated; any other blocking
    attempt makes the store refuse (``Blocked``, refused)."""
    channel = w.cfg.channel(w.request.channel)
    blocking = s.find_blocking(key)
    if blocking is not None and blocking.generation_id == generation.id \
            and blocking.attempt.authorization == authorization:
        return _started(w, s, key, blocking, f"attempt {blocking.id} for {key} is already "
                        f"admitted ({blocking.status})", False, start, start_key)
    if start is not None and start != channel.plan[0]:
        # a fresh attempt has no phase done: only its plan's first can start
        raise CommandError(Fault.BAD_INPUT, f"--start {start}: a new attempt of channel "
                           f"{channel.name} begins with {channel.plan[0]} (its plan: "
                           f"{' '.join(channel.plan)}); start {channel.plan[0]}, or name the "
                           f"channel whose plan begins with {start}; no attempt was admitted")
    state = s.admit(request_key=key, generation=generation, plan=channel.plan,
                    channel=channel.name, expires_at=w.expires_at(),
                    authorization=authorization)
    return _started(w, s, key, state, f"admitted attempt {state.id} for {key}", True, start,
                    start_key)


def _started(w: _Where, s: Session, key: str, state: AttemptState, message: str, wrote: bool,
             phase: str | None, start_key: str | None) -> WriteOutcome:
    """``admit``'s ``start``: the phase's ``started`` under the admission's hold."""
    if phase is None:
        return _outcome(w, s, key, message, wrote)
    from ghattempt.commands._keys import event_key

    ekey = start_key or event_key(w.request.writer, phase, "started")
    return _start(w, s, key, state, phase, ekey, message, wrote)


_STARTED_BEFORE = frozenset({"started", "succeeded"})
"""NEXT's last status when an earlier run's record of it (under another key) stands for
this step's ``started``: the phase is under way or done."""
_STILL_GOING = frozenset({"running", "succeeded"})
"""Attempt statuses in which that earlier record is the whole answer; in any other (a
failed, cancelled or waiting attempt...) the ``started`` is appended and the replay rules
answer as they answer a separate ``record --status started`` step."""


def _start(w: _Where, s: Session, key: str, state: AttemptState, phase: str, ekey: str,
           message: str, wrote: bool) -> WriteOutcome:
    """``phase``'s ``started`` in the hold of the step that asked for it (``admit``'s
    ``start``, ``record``'s ``then_start``), under ``ekey``, the key a separate ``record
    --phase PHASE --status started`` step would use, so either replays the other. A
    running (or succeeded) attempt whose ``phase`` is already started or succeeded under
    another key (an earlier run's) gets none (:data:`_STARTED_BEFORE`,
    :data:`_STILL_GOING`): running again never doubles it."""
    state = s.attempt(state.id)
    if phase in state.last and all(e.key != ekey for e in state.events) \
            and state.last[phase][0] in _STARTED_BEFORE \
            and state.status in _STILL_GOING:
        status = state.last[phase][0]
        return _outcome(w, s, key, f"{message}; {phase} already recorded ({status})", wrote)
    from ghattempt.errors import GhattemptError
    from ghattempt.store import RefusedByRules

    try:
        result = s.append(state.id, key=ekey, phase=phase, status="started")
    except GhattemptError as exc:
        if not wrote:
            raise
        # what was written stands: say so, beside what became of the start
        raise PartWritten(exc, f"{message}, and that stands; but {phase} started",
                          "; nothing else was written" if isinstance(exc, RefusedByRules)
                          else "") from None
    what = "already recorded" if result.replayed else "recorded"
    extra = f" after {result.sends} sends" if result.sends > 1 else ""
    return _outcome(w, s, key, f"{message}; {what} {phase} started (seq "
                    f"{result.event.seq}, key {ekey}){extra}", wrote or not result.replayed)


def _successor(w: _Where) -> WriteOutcome:
    """Open the successor of the key's chain tip; a pending tip of this generation that
    already succeeds a non-blocking attempt is that successor (a re-run), reported."""
    request = w.request
    assert isinstance(request, OpenSuccessor)
    key = w.key()
    generation = _generation(w)
    journal = _find(w)
    with w.writes.session(journal) as s:
        tip = _tip(w, s, key)
        if tip.predecessor is not None and tip.status == "pending" \
                and tip.generation_id == generation.id:
            pred = s.state.attempt(tip.predecessor)
            if pred is not None and not pred.blocks:
                return _outcome(w, s, key, f"successor {tip.id} is already admitted", False)
        channel = w.cfg.channel(request.channel or tip.attempt.channel)
        result = s.successor(tip.id, generation=generation, plan=channel.plan,
                             channel=channel.name, expires_at=w.expires_at(),
                             authorization=request.authorization)
        return _outcome(w, s, key, f"admitted successor {result.attempt.id} of {tip.id}",
                        True)


def _supersede(w: _Where) -> WriteOutcome:
    """A new generation (a push, a moved base): the key's chain tip is recorded
    ``superseded`` and an attempt for the current generation succeeds it, in one scope.
    (``or_admit``, ``superseded``: :class:`~ghattempt.commands.Supersede`.)"""
    request = w.request
    assert isinstance(request, Supersede)
    if request.superseded is not None:
        return _supersede_elsewhere(w, request, request.superseded)
    key = w.key()
    generation = _generation(w)
    reason = request.reason or f"new generation: head {generation.source_commit[:12]}"
    if request.or_admit:
        with w.writes.open(w.pull_request, w.base_ref) as s:
            tip = s.state.tip(key)
            if tip is None or not tip.blocks:
                return _admit_in(w, s, key, generation, None)
            if tip.generation_id == generation.id:
                return _outcome(w, s, key, f"attempt {tip.id} is at this generation", False)
            return _supersede_in(w, s, key, tip, generation, reason)
    journal = _find(w)
    with w.writes.session(journal) as s:
        tip = _tip(w, s, key)
        if tip.generation_id == generation.id:
            raise CommandError(Fault.REFUSED, f"attempt {tip.id} is already of the current "
                               "generation (same head, tree, config and base): nothing to "
                               "supersede")
        return _supersede_in(w, s, key, tip, generation, reason)


def _supersede_in(w: _Where, s: Session, key: str, tip: AttemptState, generation: Generation,
                  reason: str) -> WriteOutcome:
    request = w.request
    assert isinstance(request, Supersede)
    channel = w.cfg.channel(request.channel or tip.attempt.channel)
    state = s.supersede(tip.id, generation=generation, reason=reason,
                        expires_at=w.expires_at(), plan=channel.plan, channel=channel.name,
                        key=request.key)
    return _outcome(w, s, key, f"superseded {tip.id}; admitted {state.id} for the new "
                    "generation", True)


def _supersede_elsewhere(w: _Where, request: Supersede, old: Target) -> WriteOutcome:
    """The base branch changed: the old base's journal records ``superseded`` on its
    current attempt when that blocks (nothing when there is no journal or no blocking
    attempt), then the new base's journal admits the generation (opened if missing)."""
    base = old.base_ref or w.base_ref
    old_key = w.key(old, base)
    generation = _generation(w)
    journal = w.store.locate(old.pull_request, base)
    if journal is None:
        notes = f"no journal for #{old.pull_request} into {base}"
    else:
        with w.writes.session(journal) as s:
            tip = s.state.tip(old_key)
            if tip is None or not tip.blocks:
                notes = f"nothing to supersede into {base}"
            else:
                s.append(tip.id, key=request.key or f"supersede:{generation.id}",
                         phase=None, status="superseded", reason=request.reason
                         or f"base branch changed from {base} to {w.base_ref}")
                notes = f"superseded {tip.id} into {base}"
    key = w.key()
    with w.writes.open(w.pull_request, w.base_ref) as s:
        admitted = _admit_in(w, s, key, generation, None)
    return admitted.said(f"{notes}; {admitted.message}")


def _record(w: _Where) -> WriteOutcome:
    request = w.request
    assert isinstance(request, RecordEvent)
    key = w.key()
    late = request.out_of_order
    journal = _find(w, out_of_order=late)
    phase, status = request.phase, request.status
    with w.writes.session(journal) as s:
        tip = _tip(w, s, key, out_of_order=late)
        _check_target(s.state, tip, request)
        plan = tip.attempt.plan
        if request.event_phase not in (None, "rollback") and phase not in plan:
            raise CommandError(Fault.REFUSED, f"phase {phase} is not in the plan of attempt "
                               f"{tip.id} ({', '.join(plan)}): nothing was written")
        then = request.then_start
        if then is not None:
            _check_then_start(tip, phase, then)
        ekey = request.event_key()
        if request.yields_to_steps and request.event_phase is not None:
            by_steps = recorded_by_steps(s.state, tip, phase, request.run_id)
            if by_steps is not None and all(e.key != ekey for e in tip.events):
                return _outcome(w, s, key, f"{phase} {status} not recorded: {by_steps}",
                                False)
        result = s.append(tip.id, key=ekey, phase=request.event_phase, status=status,
                          reason=request.reason, materials=_materials(request, tip))
        what = "already recorded" if result.replayed else "recorded"
        extra = f" after {result.sends} sends" if result.sends > 1 else ""
        message = f"{what} {phase} {status} (seq {result.event.seq}, key {ekey}){extra}"
        if then is None:
            return _outcome(w, s, key, message, not result.replayed)
        # then_start: the next phase's started in this same hold (checked by check())
        from ghattempt.commands._keys import event_key

        tkey = request.then_start_key or event_key(request.writer, then, "started")
        return _start(w, s, key, tip, then, tkey, message, not result.replayed)


def recorded_by_steps(state: JournalState, tip: AttemptState, phase: str,
                      run_id: int | None) -> str | None:
    """Why a result the App would report for ``phase`` is the workflow's own to record,
    or None when the App records it (docs/app.md, "Beside `run`"). The App records
    nothing for ``phase`` when

    - the current attempt ``tip`` has a record of ``phase`` by a writer that is not an
      App (a ``run`` or ``record`` step, a person): those steps report the phase, and a
      second reporter would double their result (another key) or contradict it (a job
      killed during ``run``'s work concludes ``failure`` or ``cancelled``, while its
      effect may have happened: ``run`` settles that ``started`` as ``unknown``, never
      ``failed``; another run's job that found the phase busy fails while the work is
      still running);
    - or any attempt of the request key has a record of ``phase`` written by a step of
      workflow run ``run_id``: that run reported the phase itself, even if the current
      attempt is a successor opened since (its conclusion arrives late).

    Decided on the journal read in the writer scope's hold, like every write.
    """
    from ghattempt.core import ActionsWriter, AppWriter

    for event in tip.events:
        if event.phase == phase and not isinstance(event.writer, AppWriter):
            return (f"attempt {tip.id[:19]} has {phase} {event.status} (seq {event.seq}) "
                    f"by {event.writer.kind} writer, not an App: the workflow's steps "
                    "record this phase")
    if run_id is None:
        return None
    for attempt in state.attempts:
        if attempt.request_key != tip.request_key:
            continue
        for event in attempt.events:
            if event.phase == phase and isinstance(event.writer, ActionsWriter) \
                    and event.writer.run_id == run_id:
                return (f"workflow run {run_id} recorded {phase} {event.status} itself "
                        f"(attempt {attempt.id[:19]}, seq {event.seq})")
    return None


def _check_then_start(tip: AttemptState, phase: str, then: str) -> None:
    """``then_start`` against the plan the attempt itself records (the configuration's
    channel was checked before any request; a request key shared by channels can name an
    attempt of another plan): NEXT must follow ``phase`` there, before anything is written.

    Raises:
        CommandError: (bad input) ``then`` is not the phase after ``phase`` in the
            attempt's plan.
    """
    plan = tip.attempt.plan
    follows = _phase_after(plan, phase)
    if then != follows:
        after = (f"the phase after {phase!r} is {follows!r}" if follows
                 else f"{phase[:40]!r} has no next phase there")
        raise CommandError(Fault.BAD_INPUT, f"--then-start {then[:40]!r} is not the next "
                           f"phase of attempt {tip.id}'s plan ({', '.join(plan)}): {after}; "
                           "nothing was written")


def _expire(w: _Where) -> WriteOutcome:
    request = w.request
    assert isinstance(request, Expire)
    key = w.key()
    journal = _find(w)
    reason = request.reason or "expired before it was confirmed"
    with w.writes.session(journal) as s:
        tip = _tip(w, s, key)
        if tip.status == "expired":
            return _outcome(w, s, key, f"attempt {tip.id} is already expired", False)
        result = s.expire(tip.id, expected_head=tip.head_digest, reason=reason)
        return _outcome(w, s, key, f"expired attempt {tip.id}", not result.replayed)


def _rollback(w: _Where) -> WriteOutcome:
    request = w.request
    assert isinstance(request, Rollback)
    key = w.key()
    journal = _find(w)
    with w.writes.session(journal) as s:
        tip = _tip(w, s, key)
        _check_target(s.state, tip, request)
        result = s.rollback(tip.id, key=request.event_key(), status=request.status,
                            reason=request.reason)
        what = "already recorded" if result.replayed else "recorded"
        return _outcome(w, s, key, f"{what} rollback {request.status} on {tip.id}",
                        not result.replayed)


_COMMANDS: dict[type, Callable[[_Where], WriteOutcome]] = {
    Admit: _admit, RecordEvent: _record, OpenSuccessor: _successor, Supersede: _supersede,
    Expire: _expire, Rollback: _rollback}


def _run(request: WriteRequest, config: LoadedConfig, connection: Connection,
         writes: Callable[[BusinessAttemptStore], _Writes]) -> WriteOutcome:
    check(request, config, connection.token_env)
    with _where(request, config, connection, writes) as w:
        return _COMMANDS[type(request)](w)


def write(request: WriteRequest, config: LoadedConfig, connection: Connection) -> WriteOutcome:
    """Run one writing request under ``config``, through ``connection``.

    What needs no request to GitHub is checked first (:func:`~ghattempt.commands.check`):
    an input error is raised before anything is sent.

    Raises:
        RequestError, CommandError, ConfigError (bad input, refused), NotYet (a request
        that may come out of order, before what it builds on), store errors
        (``RefusedByRules``: refused, ``JournalInvalidError``: journal invalid, ...),
        GitHub errors.
    """
    return _run(request, config, connection, _Writing)


def plan(request: WriteRequest, config: LoadedConfig, connection: Connection) -> WriteOutcome:
    """What ``request`` would write, writing nothing: every step runs as it would
    (configuration, who the token is, the category, the journal, the core's checks of
    each record) with the store's planning session in place of its writing one, and
    every write is built, then left unsent: :attr:`WriteOutcome.planned` lists them (the
    lease ref's first, checked against the repository's rulesets) and the verdict is the
    one after them. What a real run would be refused for is raised as the real run
    would raise it (:func:`write`)."""
    return _run(request, config, connection, _Planning)


def restore_lease(request: RestoreLease, config: LoadedConfig,
                  connection: Connection) -> WriteOutcome:
    """A person's restoration of a journal's deleted lease ref after checking its history
    (:class:`~ghattempt.commands.RestoreLease`; the store's ``restore_lease``): the ref
    witnessing exactly the head named, or refused (nothing written) when the journal
    holds another head, when the ref is there, or when there is no journal.

    Raises:
        RequestError: a value that holds the token of ``connection.token_env``.
        store errors: ``RefusedByRules`` (``head_differs``: refused),
            ``StoreInputError`` (bad input), GitHub errors.
    """
    from ghattempt.core import Witness

    request.refuse_secrets(connection.token_env)
    with _where(request, config, connection, _Writing) as w:
        restored = w.store.restore_lease(
            w.pull_request, w.base_ref, head=Witness(request.records, request.last),
            reason=request.reason, restorer=request.actor)
        number = restored.journal.number
        store, journal = w.store, restored.journal
        message = (f"restored lease ref {restored.ref} at {restored.oid[:12]}, witnessing "
                   f"{request.records} records of journal #{number}, the newest "
                   f"{request.last}; recorded in its parent commit {restored.note[:12]} "
                   f"(who, why, which head)")
        return WriteOutcome(lambda: store.verdict(journal),
                            journal_url(w.connection.server_url, w.repository, number),
                            message, True)


# Public as ghattempt.commands (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    WriteOutcome, plan, restore_lease,
):
    _exported.__module__ = "ghattempt.commands"
del _exported
