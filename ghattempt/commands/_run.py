"""``run``: the phase's work exactly once, a thin I/O loop over the core's table.

Shape::

    run(request: Run, config, connection) -> RunOutcome      # commands.execute
    RunOutcome(outcome, exit_code, attempt, row, message, materials, ...)

The decision is the core's (``ghattempt.core.decide``, docs/run.md); this module only
reads, writes and runs. Inside one hold of the writer scope it reads the journal, asks
``run_needs`` what else the decision needs (the liveness of the runner a ``started``
record names, the workspace files re-qualification compares), reads those, calls
``decide`` and writes the decision's writes in that same hold; when the decision says
``again`` it decides again on the journal as written, still in the hold. It leaves the
scope only to run the work (a ``run`` decision) or the verify (an ``ambiguous`` one),
then enters it again and records how that ended (``after_work``, ``after_verify``):
never check, release, then act. A ``busy`` decision with ``wait`` left sleeps outside
the scope (with backoff) and decides again.

Liveness (``_liveness``): a runner that is this step's own writer identity has ended
(the core says so); an Actions writer's run attempt (and its job, by name) is read over
the Actions REST API with the same token (``actions: read``; a refusal for a missing
permission is one error naming the ``permissions:`` key); a command-line writer is live
until ``[run] stale_after`` seconds after its record, or ``takeover``; an App delivery
cannot be told (busy) unless ``takeover``.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ghattempt.commands._connection import Connection, journal_url
from ghattempt.commands._errors import CommandError, PartWritten, RequestError
from ghattempt.commands._requests import Run
from ghattempt.errors import Fault, GhattemptError

if TYPE_CHECKING:
    from ghattempt.config import Channel, LoadedConfig
    from ghattempt.core import (
        Decision,
        Generation,
        JournalState,
        Material,
        ObservedFile,
        RunRequest,
        Verdict,
        Write,
        Writer,
    )
    from ghattempt.store import Session
    from ghattempt.work import WorkResult

    from ._writing import _Where

__all__ = ["RunOutcome", "run"]

_MAX_DECISIONS = 12
"""Decisions one hold may take (each ``again`` opens, supersedes or re-qualifies; a
chain of them ends well before this)."""
_BACKOFF_FIRST = 1.0
_BACKOFF_CAP = 30.0

_OUTCOME_FAULT = {"refused": Fault.REFUSED, "busy": Fault.SCOPE_BUSY}
"""The kind of fault a step that did not do the work ends with."""


@dataclass(frozen=True)
class RunOutcome:
    """How a ``run`` step ended.

    Attributes:
        outcome: ``ran``, ``skipped``, ``settled``, ``requalified``, ``refused``, ``busy``.
        exit_code: the work's exit status when it ran (128 + N for a signal), else None.
        attempt: the attempt decided on (None when there is none).
        row: the decision table's row that ended the step (``D15``, ``V1``, ``W2``).
        message: what the step did, one line.
        rows: every row taken, in order.
        materials: the materials recorded by this step (or re-qualified) for the phase.
        recovery: for ``refused``/``busy``, the selector (``reconcile:P``, ``wait:P``).
        commands: for a phase left ambiguous, the ``ghattempt record`` commands that
            settle it by hand.
        signal: the runner's signal that interrupted the work (``SIGTERM``), else None.
        url: the journal's URL.
        wrote: whether this step wrote anything.
    """

    outcome: str
    exit_code: int | None
    attempt: str | None
    row: str
    message: str
    rows: tuple[str, ...] = ()
    materials: tuple[Material, ...] = ()
    recovery: str | None = None
    commands: tuple[str, ...] = ()
    signal: str | None = None
    url: str = ""
    wrote: bool = False
    verdict: Verdict | None = field(default=None, repr=False)

    @property
    def fault(self) -> Fault | None:
        """The kind of fault of a step that did not do the work (``refused``: REFUSED,
        ``busy``: SCOPE_BUSY), or whose work exited 0 without the files its
        ``materials`` name (W4: BAD_INPUT); else None. Each face maps it to its exit
        status; otherwise the step's is the work's when it ran, else 0."""
        if self.row == "W4":  # the work exited 0 but made no file a glob names
            return Fault.BAD_INPUT
        return _OUTCOME_FAULT.get(self.outcome)

    @property
    def missing_phases(self) -> tuple[str, ...]:
        """The current attempt's plan phases not yet succeeded, after the step."""
        return self.verdict.missing_phases if self.verdict is not None else ()

    @property
    def next_phase(self) -> str:
        """The phase the journal's recovery names (``continue:P``, ``wait:P``,
        ``reconcile:P``), else empty: what the next step of the workflow runs."""
        if self.verdict is None:
            return ""
        kind, _, phase = self.verdict.recovery.partition(":")
        return phase if kind in ("continue", "wait", "reconcile") else ""


# ------------------------------------------------------------------------ checking


def _check(request: Run, config: LoadedConfig, token_env: str | None) -> Channel:
    """What needs the configuration: the channel, the phase in its plan, no token in a
    verbatim value.

    Raises:
        RequestError, ConfigError: (bad input) before any request to GitHub.
    """
    request.refuse_secrets(token_env)
    channel = config.channel(request.channel)
    if request.phase not in channel.plan:
        raise RequestError(f"--phase {request.phase!r} is not in the plan of channel "
                           f"{channel.name!r} ({config.path}): use one of "
                           f"{', '.join(channel.plan)}")
    return channel


# ------------------------------------------------------------------------- the loop


class _Step:
    """One ``run`` step's state across its holds of the writer scope."""

    def __init__(self, w: _Where, request: Run, channel: Channel) -> None:
        self.w = w
        self.request = request
        self.channel = channel
        self.key = w.key()
        self.generation: Generation = _generation(w)
        self.root, self.where = _places(request)
        self.rows: list[str] = []
        self.wrote = False
        self.counter = 0
        self.busy_hint = ""
        """For a busy step beside a command-line runner: until when it is taken as
        running, and how a person ends that (``--takeover``)."""
        self.secrets = _secrets(request, w.connection.token_env)

    # -- reading

    def now(self) -> str:
        seconds = self.w.gh.last_server_time or time.time()
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(seconds)))

    def run_request(self) -> RunRequest:
        from ghattempt.core import RunRequest

        return RunRequest(self.key, self.generation, self.request.phase, self.channel.plan,
                          self.request.writer, self.now(), self.request.head)

    def decide(self, journal: JournalState) -> Decision:
        from ghattempt.core import LIVENESS, decide, run_needs
        from ghattempt.work import observe

        req = self.run_request()
        needs = run_needs(journal, req)
        liveness: str = LIVENESS[2]  # unknown (not asked: no runner matters)
        self.busy_hint = ""
        if needs.runner is not None and not needs.own:
            liveness = self._liveness(journal, needs.runner, needs.attempt, needs.phase,
                                      needs.status)
        observed = observe(needs.paths, root=self.root) if needs.paths else ()
        decision = decide(journal, req, liveness=liveness, observed=observed)
        self.rows.append(decision.row)
        return decision

    def _liveness(self, journal: JournalState, runner: Writer, attempt: str | None,
                  phase: str | None, status: str | None) -> str:
        from ghattempt.core import LIVENESS, ActionsWriter, CliWriter

        live, ended, unknown = LIVENESS
        takeover = self.request.takeover
        if isinstance(runner, ActionsWriter):
            alive = self._actions_alive(runner)
            if alive is None:
                return ended if takeover else unknown
            return live if alive else ended
        if isinstance(runner, CliWriter):
            if takeover or status == "unknown":
                # an ``unknown`` is written once the runner has ended: by the runner on its
                # way out (a signal, W1), or by a step that took it as ended (D20)
                return ended
            at = _record_time(journal, attempt, phase)
            stale_after = self.w.cfg.settings.run.stale_after
            if at is not None and _epoch(self.now()) - _epoch(at) >= stale_after:
                return ended
            until = "" if at is None else " until " + time.strftime(
                "%Y-%m-%dT%H:%M:%SZ", time.gmtime(_epoch(at) + stale_after))
            self.busy_hint = (f"a command-line run is taken as running{until} ([run] "
                              "stale_after); if it is not, run `ghattempt run` again "
                              "with --takeover (and --verify, to settle its effect)")
            return live
        return ended if takeover else unknown

    def _actions_alive(self, runner: Writer) -> bool | None:
        """Whether the Actions run attempt (and its job) that ``runner`` names still runs,
        from the Actions REST API; None when GitHub does not say (no such run here)."""
        from ghattempt.core import ActionsWriter
        from ghattempt.github import AuthFailed, NotFound

        assert isinstance(runner, ActionsWriter)
        target = self.request.target
        try:
            status = self.w.gh.run_attempt_status(target.owner, target.name, runner.run_id,
                                                  runner.run_attempt)
            if status.completed:
                return False
            jobs = self.w.gh.run_attempt_jobs(target.owner, target.name, runner.run_id,
                                              runner.run_attempt)
        except NotFound:
            return None
        except AuthFailed as exc:
            raise CommandError(Fault.GITHUB_REFUSED, "GitHub refused to say whether run "
                               f"{runner.run_id} attempt {runner.run_attempt} is still "
                               f"running ({exc}): the token needs the Actions read "
                               "permission; add `actions: read` under the job's (or the "
                               "workflow's) `permissions:` key") from None
        named = [j for j in jobs if j.name == runner.job]
        if len(named) == 1 and named[0].completed:
            return False
        return True

    # -- writing

    def apply(self, s: Session, writes: Sequence[Write]) -> None:
        from ghattempt.commands._keys import event_key

        for i, write in enumerate(writes):
            if write.record == "attempt":
                assert write.generation is not None
                s.admit(request_key=self.key, generation=write.generation,
                        plan=self.channel.plan, channel=self.channel.name,
                        expires_at=self.w.expires_at(), predecessor=write.attempt)
                self.wrote = True
                continue
            assert write.attempt is not None and write.status is not None
            if write.phase is None and write.status == "superseded":
                after = writes[i + 1] if i + 1 < len(writes) else None
                gen = after.generation if after is not None else None
                key = f"supersede:{gen.id}" if gen is not None else event_key(
                    self.request.writer, "attempt", "superseded")
            elif write.phase is None and write.status == "expired":
                key = "expire"  # the key a separate ``expire`` step uses
            else:
                key = event_key(self.request.writer, write.phase or "attempt", write.status)
            result = s.append(write.attempt, key=key, phase=write.phase, status=write.status,
                              reason=write.reason, materials=write.materials)
            self.wrote = self.wrote or not result.replayed

    def url(self, s: Session) -> str:
        number = s.journal.number
        return journal_url(self.w.connection.server_url, self.w.repository, number) \
            if number else ""

    def material_url(self, s: Session) -> str:
        """Where the materials' bytes are kept: the artifact given, else the run (an
        Actions writer), else the journal."""
        from ghattempt.core import ActionsWriter

        if self.request.artifact_url:
            return self.request.artifact_url
        writer = self.request.writer
        server = (self.w.connection.server_url or "https://github.com").rstrip("/")
        if isinstance(writer, ActionsWriter):
            return f"{server}/{self.w.repository}/actions/runs/{writer.run_id}"
        return self.url(s) or f"{server}/{self.w.repository}/pull/{self.w.pull_request}"

    def outcome(self, s: Session, d: Decision, *, exit_code: int | None = None,
                materials: tuple[Material, ...] = (), signal: str | None = None,
                message: str | None = None) -> RunOutcome:
        verdict = self.w.store.read(s.capture, self.key)
        outcome = d.outcome or "refused"
        if message is None and d.kind == "busy" and self.busy_hint:
            message = f"{d.reason}; {self.busy_hint}"
        return RunOutcome(outcome, exit_code, d.attempt, d.row, message or d.reason,
                          tuple(self.rows), materials, d.recovery, d.commands, signal,
                          self.url(s), self.wrote, verdict)


_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|PRIVATE_?KEY"
                          r"|ACCESS_?KEY|AUTH(?!OR)|CREDENTIAL", re.IGNORECASE)
"""Names of environment variables whose values the work's error line never shows: a
workflow passes its secrets to the work in ``env:`` (``NODE_AUTH_TOKEN``,
``TWINE_PASSWORD``); GitHub masks them in the log, never in a comment."""
_SECRET_MIN = 8
"""Shorter values are not scrubbed (``AUTH_MODE=none`` would blank every ``none``)."""


def _secrets(request: Run, token_env: str | None) -> tuple[str, ...]:
    """The values scrubbed from the work's kept error line (a ``failed`` reason, a public
    comment): the tokens of the environment (:func:`secret_values`, as every record's
    text is scrubbed of them), and every value of the work's environment whose name says
    it is a secret."""
    from ._secrets import secret_values

    env = request.env if request.env is not None else os.environ
    named = sorted({v for k, v in env.items()
                    if _SECRET_NAME.search(k) and len(v) >= _SECRET_MIN}, key=len,
                   reverse=True)  # the longest first: one that holds another goes whole
    return tuple(dict.fromkeys((*secret_values(token_env), *named)))


def _places(request: Run) -> tuple[str, str]:
    """The workspace (real path) and where the work and the verify run (an absolute
    working directory wins)."""
    env = request.env if request.env is not None else os.environ
    root = os.path.realpath(request.workspace or env.get("GITHUB_WORKSPACE") or os.getcwd())
    return root, os.path.join(root, request.working_directory or "")


def _generation(w: _Where) -> Generation:
    from ._writing import _generation as read_generation

    return read_generation(w)


def _epoch(at: str) -> float:
    import calendar

    return float(calendar.timegm(time.strptime(at, "%Y-%m-%dT%H:%M:%SZ")))


def _record_time(journal: JournalState, attempt: str | None, phase: str | None) -> str | None:
    """When the newest ``started``/``unknown``/``waiting`` record of ``phase`` in
    ``attempt`` was written."""
    state = journal.attempt(attempt) if attempt is not None else None
    if state is None:
        return None
    for event in reversed(state.events):
        if event.phase == phase and event.status in ("started", "unknown", "waiting"):
            return event.at
    return None


def run(request: Run, config: LoadedConfig, connection: Connection) -> RunOutcome:
    """Run one ``run`` step (module docstring).

    Raises:
        RequestError, ConfigError, WorkInputError: (bad input) before anything is
            written, or (a materials glob, a shell) before the work runs.
        CommandError: (GitHub refused) the token may not read the Actions API.
        store and GitHub errors as every writing command.
    """
    from ghattempt.work import check_work

    from ._writing import _where, _Writing

    channel = _check(request, config, connection.token_env)
    # a work (or verify) that cannot start is bad input before anything is written:
    # after ``started`` it would leave the phase to a runner that never ran
    _, where = _places(request)
    check_work(request.work, env=request.env, working_directory=where)
    if request.verify is not None and request.release_tag is None:
        check_work(request.verify, env=request.env, working_directory=where)
    with _where(request, config, connection, _Writing) as w:  # type: ignore[arg-type]
        step = _Step(w, request, channel)
        return _loop(step)


def _loop(step: _Step) -> RunOutcome:
    request, w = step.request, step.w
    deadline = time.monotonic() + request.wait
    pause = _BACKOFF_FIRST
    journal_ref = None
    while True:
        enter = (w.writes.open(w.pull_request, w.base_ref) if journal_ref is None
                 else w.writes.session(journal_ref))
        with enter as s:
            journal_ref = s.journal
            for _ in range(_MAX_DECISIONS):
                d = step.decide(s.state)
                step.apply(s, d.writes)
                if d.again:
                    continue
                break
            else:
                raise CommandError(Fault.REFUSED, "the run step took "
                                   f"{_MAX_DECISIONS} decisions in one hold without an end "
                                   f"({' '.join(step.rows)}); nothing more was written")
            if d.kind == "busy" and time.monotonic() + pause <= deadline:
                pass  # leave the scope, wait, decide again
            elif d.kind == "ambiguous":
                if request.verify is None:
                    from ghattempt.core import after_verify

                    follow = after_verify(d, None)
                    step.rows.append(follow.row)
                    return step.outcome(s, follow)
                # leave the scope to run the verify
            elif d.kind == "run":
                pass  # leave the scope to run the work
            else:
                return step.outcome(s, d, materials=_cited(d))
        if d.kind == "busy":
            time.sleep(pause)
            pause = min(pause * 2, _BACKOFF_CAP)
            continue
        if d.kind == "ambiguous":
            result = _verify(step, d, journal_ref)
            if result is not None:
                return result
            continue  # verified absent: decide again (a successor runs it)
        return _work(step, d, journal_ref)


def _cited(d: Decision) -> tuple[Material, ...]:
    """The materials a decision's writes cite for the step's phase (re-qualified)."""
    out: list[Material] = []
    for write in d.writes:
        if write.phase == d.phase and write.status == "succeeded":
            out += write.materials
    return tuple(out)


def _work(step: _Step, d: Decision, journal_ref: object) -> RunOutcome:
    """Run the work outside the scope, then record how it ended in a new hold."""
    from ghattempt.work import WorkInputError, collect_materials, run_work

    request = step.request
    result = run_work(request.work, env=request.env, working_directory=step.where,
                      secrets=step.secrets)
    observed: tuple[ObservedFile, ...] = ()
    missing: str | None = None
    if result.exit_code == 0 and result.signal is None and request.materials:
        try:
            observed = collect_materials(request.materials, root=step.root)
        except WorkInputError as exc:
            missing = str(exc)
    recorded: list[bool] = []
    try:
        return _record_work(step, d, journal_ref, result, observed, missing, recorded)
    except GhattemptError as exc:
        if recorded:  # the result landed; what failed came after (leaving the scope)
            raise
        if exc.fault is Fault.REFUSED:
            # the phase was settled while the work ran (a --takeover beside a living
            # runner, a record by hand): what the work did is said, nothing overwritten
            raise CommandError(Fault.REFUSED, f"{request.phase}'s work ran and exited "
                               f"{result.exit_code}, but the journal no longer takes its "
                               f"result ({exc}); nothing more was recorded: compare what "
                               "the work did with the journal") from None
        # the journal became unwritable while the work ran (locked, its lease ref
        # deleted, GitHub down): say what the work did, so a person can settle it
        raise _unrecorded(request.phase, result, exc) from None


def _unrecorded(phase: str, result: WorkResult, exc: GhattemptError) -> PartWritten:
    how = (f"was interrupted ({result.signal}, exit {result.exit_code})" if result.signal
           else f"exited {result.exit_code}")
    return PartWritten(exc, f"{phase}'s work ran and {how}, but its result is not "
                       "recorded",
                       "; once that is fixed, settle the phase: the step again with a "
                       "verify (a person's step with --takeover), or `ghattempt record` "
                       "by hand")


def _record_work(step: _Step, d: Decision, journal_ref: object, result: WorkResult,
                 observed: tuple[ObservedFile, ...], missing: str | None,
                 recorded: list[bool]) -> RunOutcome:
    """Record how the work ended (``after_work``) in a new hold of the scope; appends to
    ``recorded`` once the writes landed."""
    from ghattempt.core import after_work, file_material

    request, w = step.request, step.w
    exit_code, error_line = result.exit_code, result.error_line
    with w.writes.session(journal_ref) as s:  # type: ignore[arg-type]
        assert d.attempt is not None
        state = s.attempt(d.attempt)
        url = step.material_url(s)
        materials = tuple(file_material(o, phase=request.phase, attempt=state, url=url)
                          for o in observed)
        follow = after_work(d, exit_code=exit_code, signal=result.signal,
                            error_line=error_line, materials=materials,
                            writer=request.writer, missing=missing)
        step.rows.append(follow.row)
        try:
            step.apply(s, follow.writes)
        except ValueError as exc:
            if follow.row != "W2" or not materials:
                raise
            # more files than one comment can cite (GitHub's 65,536 characters): the
            # success cannot be bound to its materials, and the effect may have
            # happened: as W4, unknown naming the globs
            missing = (f"materials {', '.join(map(repr, request.materials))} match "
                       f"{len(materials)} files, more than one record can cite ({exc}); "
                       "cite an archive of them, or fewer files")
            materials = ()
            follow = after_work(d, exit_code=exit_code, signal=result.signal,
                                error_line=error_line, materials=(),
                                writer=request.writer, missing=missing)
            step.rows[-1] = follow.row
            step.apply(s, follow.writes)
        recorded.append(True)
        return step.outcome(s, follow, exit_code=exit_code, materials=materials,
                            signal=result.signal)


def _verify(step: _Step, d: Decision, journal_ref: object) -> RunOutcome | None:
    """Run the verify outside the scope, then record what it found in a new hold;
    None when the phase was recorded absent, or was settled by someone else while the
    verify ran (decide again)."""
    from ghattempt.core import after_verify, readback_material

    request, w = step.request, step.w
    content, outcome, why = _read_back(step)
    with w.writes.session(journal_ref) as s:  # type: ignore[arg-type]
        assert d.attempt is not None
        # what the verify found is written only on the journal it was asked about: the
        # phase still ambiguous in the same attempt (a person, or another run's step,
        # may have settled it meanwhile: then decide again on what is there now)
        fresh = step.decide(s.state)
        if fresh.kind != "ambiguous" or fresh.attempt != d.attempt:
            return None
        state = s.attempt(d.attempt)
        readback = readback_material(request.phase, content, attempt=state,
                                     url=step.material_url(s)) if outcome == "present" \
            else None
        follow = after_verify(d, outcome, readback)
        step.rows.append(follow.row)
        step.apply(s, follow.writes)
        if follow.again:
            return None
        # what the verify saw, for the person who settles it by hand
        message = f"{follow.reason} ({why})" if outcome == "neither" and why else None
        return step.outcome(s, follow, materials=() if readback is None else (readback,),
                            message=message)


def _read_back(step: _Step) -> tuple[bytes, str, str]:
    """The verify's standard output (or the release read back), its outcome:
    ``present``, ``absent`` or ``neither``, and what it found in words."""
    from ghattempt.work import run_verify

    request = step.request
    tag = request.release_tag
    if tag is not None:
        return _release(step, tag)
    result = run_verify(request.verify, env=request.env, working_directory=step.where,
                        secrets=step.secrets)
    why = f"the verify exited {result.work.exit_code}" + (
        f": {result.work.error_line}" if result.work.error_line else "")
    return result.work.stdout or b"", result.outcome, why


def _release(step: _Step, tag: str) -> tuple[bytes, str, str]:
    """``github-release:TAG``: the release read back with the step's token and compared
    with the phase's files (its ``materials`` globs, in the workspace now:
    ``ghattempt.core.compare_release``). A phase without materials compares nothing: a
    release of the tag is then in place."""
    from ghattempt.core import compare_release
    from ghattempt.work import WorkInputError, collect_materials

    request, w = step.request, step.w
    target = request.target
    assets = w.gh.release_assets(target.owner, target.name, tag)
    try:
        expected = collect_materials(request.materials, root=step.root)
    except WorkInputError:
        if assets is None:
            expected = ()
        else:  # the files to compare are gone: the release cannot be compared
            return (compare_release(tag, assets, ()).readback, "neither",
                    f"release {tag} exists, but the materials files to compare it with "
                    "are not in the workspace")
    check = compare_release(tag, assets, expected)
    return check.readback, check.outcome, check.detail


# Public as ghattempt.commands (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    RunOutcome,
):
    _exported.__module__ = "ghattempt.commands"
del _exported
