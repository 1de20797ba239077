"""What one ``run`` step does: the decision table, pure (docs/run.md).

Theory of operation
-------------------
A ``run`` step is asked to do the work of one phase P for the current generation of a
pull request. Inside the writer scope, on the journal it has just read, it calls
``decide``; the answer is a ``Decision``: what to write (``writes``, in order), whether
to read and decide again after writing (``again``: an attempt was opened, superseded
or given up, or earlier phases were re-qualified), and what the step's ``outcome`` is.

``DECISIONS`` is the table: the first row whose condition holds decides. Rows cite the
design decision or the part of the wire contract they follow: ADR 0006, ADR-038 and the
idempotency note (docs/decisions.md), and "format §N", section N of
docs/journal-format.md. Two follow-up tables finish what a decision starts:

- ``VERIFY_ROWS`` (``after_verify``): an ``ambiguous`` phase (started or unknown, its
  runner ended) is settled by the step's ``verify``: in place, proven absent, or
  neither (a person settles it with the commands ``hand_commands`` prints);
- ``WORK_ROWS`` (``after_work``): a ``run`` decision's work ended with an exit status,
  or was interrupted by a signal the runner sent (recorded ``unknown``, never
  ``failed``: its effect may have happened).

Inputs computed elsewhere: the *liveness* of the runner a ``started``/``unknown``/
``waiting`` record names (``run_needs`` says which writer; ``LIVE``, ``ENDED`` or
``UNKNOWN``: from the Actions API, or a CLI's ``stale_after``/``--takeover``), and the
files now in the workspace (``run_needs`` says which paths) for re-qualification
(``ghattempt.core._requalify``). A record written by this very step's writer identity
(same Actions run, run attempt and job, or the same App delivery) was written by an
earlier step of this job, which has ended: its liveness is ``ENDED`` whatever was
passed. A command-line writer names a person, not a process, so this rule does not
apply to it.

The decision is taken on one read, inside one hold of the writer scope: the caller
writes ``writes`` in that same hold (never check, release, then act), leaves the scope
only to run the work or the verify, and re-enters it to record the result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from ._journal import AttemptState, JournalState
from ._records import ActionsWriter, AppWriter, Event, Generation, Material, Writer
from ._requalify import (
    ABSENT,
    NEITHER,
    PRESENT,
    ObservedFile,
    Requalification,
    requalify,
    same_generation_chain,
    wanted_paths,
)
from ._rules import PHASES
from ._value import value

LIVE = "live"
"""The runner is still running: never run beside it."""
ENDED = "ended"
"""The runner has ended (its job or run attempt completed, or it was this job's own
earlier step)."""
UNKNOWN = "unknown"
"""Whether the runner still runs cannot be told (the API did not answer, no permission,
a CLI writer within ``stale_after``): treated as live."""
LIVENESS = (LIVE, ENDED, UNKNOWN)

ADMIT = "admit"
SUPERSEDE = "supersede"
SKIP = "skip"
REFUSE = "refuse"
BUSY = "busy"
AMBIGUOUS = "ambiguous"
SUCCESSOR = "successor"
REQUALIFY = "requalify"
RUN = "run"
SETTLE = "settle"
RECORD = "record"
DECISION_KINDS = (ADMIT, SUPERSEDE, SKIP, REFUSE, BUSY, AMBIGUOUS, SUCCESSOR, REQUALIFY,
                  RUN, SETTLE, RECORD)
"""Every ``Decision.kind``: the nine of ``DECISIONS``, then ``settle`` (a verify found
the effect in place) and ``record`` (a result to write: the work's, or verified absent)."""

OUTCOMES = ("ran", "skipped", "settled", "requalified", "refused", "busy")
"""The step's output ``outcome`` when a decision ends the step."""

_REASON_MAX = 1024
_OTHER_BLOCKING_DONE = frozenset({"reconciling", "rolling-back", "rollback-failed", "succeeded"})
_NOT_BLOCKING = frozenset({"failed", "cancelled", "superseded", "expired", "rolled-back"})
_IN_FLIGHT = frozenset({"started", "waiting", "unknown"})
_NOT_LIVE = frozenset({LIVE, UNKNOWN})


@value
class RunRequest:
    """What a ``run`` step asks: the phase's work, once, for the current generation.

    ``plan`` is the channel's plan (an attempt it opens gets it); ``writer`` this step's
    writer identity; ``now`` the current UTC time (``YYYY-MM-DDTHH:MM:SSZ``, GitHub's
    clock) that an expiry is judged by; ``head`` the pull request head commit the step's
    work is done on (a checkout), or None when the step cannot tell.
    """

    request_key: str
    generation: Generation
    phase: str
    plan: tuple[str, ...]
    writer: Writer
    now: str
    head: str | None = None


@value
class Write:
    """One record the step writes, in the order given, in the same hold of the scope.

    ``record`` is ``"attempt"`` (an attempt root with the request's plan and
    ``generation``: the request's, or for the successor of an attempt of the current
    generation that attempt's own, which after a merge keeps the merged one; ``attempt``
    is its predecessor, None for the first; its ``expires_at`` is the caller's, later
    than the request's ``now``, or the next decision expires it) or ``"event"``
    (appended to ``attempt``, with ``phase`` — None for an attempt-level event —
    ``status``, ``reason`` and ``materials``).
    """

    record: str
    attempt: str | None
    phase: str | None = None
    status: str | None = None
    reason: str | None = None
    materials: tuple[Material, ...] = ()
    generation: Generation | None = None


@value
class Decision:
    """What the step does now (a row of ``DECISIONS``, ``VERIFY_ROWS`` or ``WORK_ROWS``).

    ``row`` names it (``D12``, ``V1``, ``W3``); ``kind`` is one of ``DECISION_KINDS``;
    ``reason`` says why in a sentence naming the attempt, phase and runner; ``phase`` is
    the step's phase and ``attempt`` the attempt decided on (None when there is none).
    ``writes`` are written in order; ``again``: read the journal and ``decide`` again
    after writing. ``outcome`` is the step's output when this decision ends it (one of
    ``OUTCOMES``), else None. For ``refuse`` and ``busy``: ``recovery`` is the
    selector (``reconcile:P``, ``wait:P``...) and ``names`` the phase the refusal names;
    ``commands`` are the ``ghattempt record`` commands that settle an ambiguous phase by
    hand. ``requalified`` lists the phases re-qualified.
    """

    row: str
    kind: str
    reason: str
    phase: str
    attempt: str | None
    writes: tuple[Write, ...] = ()
    again: bool = False
    outcome: str | None = None
    recovery: str | None = None
    names: str | None = None
    commands: tuple[str, ...] = ()
    requalified: tuple[Requalification, ...] = ()


@value
class RunNeeds:
    """What ``decide`` needs read before it is called, for ``run_needs``'s request.

    ``runner`` is the writer whose liveness matters (the writer of the ``started``,
    ``waiting`` or ``unknown`` record of ``phase`` in ``attempt``), None when none does;
    ``own`` says it is this step's own writer identity (its liveness is ``ENDED``);
    ``paths`` are the workspace files whose bytes re-qualification compares.
    """

    runner: Writer | None
    attempt: str | None
    phase: str | None
    status: str | None
    own: bool
    paths: tuple[str, ...]


def _short(attempt_id: str | None) -> str:
    return "none" if attempt_id is None else attempt_id[7:19]


def describe_writer(writer: Writer) -> str:
    """The writer in words: which run, run attempt and job (or App delivery, or actor)."""
    if isinstance(writer, ActionsWriter):
        return (f"run {writer.run_id} attempt {writer.run_attempt}, job {writer.job} "
                f"(workflow {writer.workflow})")
    if isinstance(writer, AppWriter):
        return f"app {writer.app_id} delivery {writer.delivery}"
    return f"{writer.actor} (command line)"


def _bounded(text: str) -> str:
    text = " ".join(text.split()) or "-"
    return text if len(text) <= _REASON_MAX else text[:_REASON_MAX - 1] + "\u2026"


def _last_record(state: AttemptState, phase: str, statuses: Iterable[str]) -> Event | None:
    wanted = frozenset(statuses)
    for event in reversed(state.events):
        if event.phase == phase and event.status in wanted:
            return event
    return None


class _Facts:
    """What the rows look at, read once from the journal and the request."""

    def __init__(self, journal: JournalState | None, request: RunRequest,
                 liveness: str = UNKNOWN,
                 observed: Mapping[str, ObservedFile] | None = None) -> None:
        self.journal = journal
        self.request = request
        self.phase = request.phase
        self.gen = request.generation.id
        tip = journal.tip(request.request_key) if journal is not None else None
        self.tip = tip
        self.status: str = tip.status if tip is not None else "empty"
        self.same = tip is not None and (tip.generation_id == self.gen or self._merged(tip))
        self.plan: tuple[str, ...] = tip.attempt.plan if tip is not None and self.same \
            else request.plan
        self.last: str | None = None
        self.earlier: str | None = None  # first earlier plan phase not succeeded
        self.open: str | None = None  # the tip's first plan phase not succeeded
        if tip is not None:
            self.open = next((p for p in tip.attempt.plan
                              if tip.last.get(p, ("",))[0] != "succeeded"), None)
        if tip is not None and self.same and self.phase in self.plan:
            self.last = tip.last.get(self.phase, (None, None))[0]
            self.earlier = next((p for p in self.plan[:self.plan.index(self.phase)]
                                 if tip.last.get(p, ("",))[0] != "succeeded"), None)
        self.runner, self.runner_phase, self.runner_status = self._runner()
        self.own = (self.runner is not None and self.runner.kind != "cli"
                    and self.runner == request.writer)
        self.liveness = ENDED if self.own else liveness
        self.observed: Mapping[str, ObservedFile] = observed or {}
        self._requalified: dict[str, Requalification] = {}

    def _merged(self, tip: AttemptState) -> bool:
        """After ``merge`` succeeded in the chain, the merged generation is final for
        the tip and its successors: a merged pull request's head cannot move, and its
        base moves with the merge itself."""
        journal = self.journal
        assert journal is not None
        state: AttemptState | None = tip
        seen: set[str] = set()
        while state is not None and state.id not in seen:
            seen.add(state.id)
            if state.last.get("merge", ("",))[0] == "succeeded":
                gen = state.attempt.generation
                return (state.generation_id == tip.generation_id
                        and gen.source_commit == self.request.generation.source_commit
                        and gen.tree == self.request.generation.tree)
            state = journal.attempt(state.predecessor) if state.predecessor else None
        return False

    def _runner(self) -> tuple[Writer | None, str | None, str | None]:
        tip = self.tip
        if tip is None:
            return None, None, None
        phase: str | None
        if tip.status in _NOT_BLOCKING:
            # an attempt ended while a phase was in flight: that phase's runner matters
            phase = self.open
            status = tip.last.get(phase, (None, None))[0] if phase is not None else None
            if status != "started":
                return None, None, None
        elif self.same:
            phase = self.phase
            status = self.last
        else:
            phase = self.open
            status = tip.last.get(phase, (None, None))[0] if phase is not None else None
        if phase is None or status not in ("started", "waiting", "unknown"):
            return None, None, None
        if status == "unknown":
            event = _last_record(tip, phase, ("started",)) or _last_record(
                tip, phase, ("unknown",))
        else:
            event = _last_record(tip, phase, (status,))
        assert event is not None
        return event.writer, phase, status

    @property
    def stale(self) -> bool:
        """The step's generation is that of an earlier attempt of the chain: it was
        already replaced, so the step read an older head (or a head came back)."""
        if self.tip is None or self.journal is None:
            return False
        return bool(same_generation_chain(self.journal, self.tip, self.gen))

    @property
    def successor(self) -> bool:
        """The tip succeeds an attempt of its own generation (re-qualification applies)."""
        return (self.tip is not None and self.journal is not None
                and bool(same_generation_chain(self.journal, self.tip,
                                               self.tip.generation_id)))

    def requalification(self, phase: str) -> Requalification:
        found = self._requalified.get(phase)
        if found is None:
            assert self.tip is not None and self.journal is not None
            found = requalify(self.journal, self.tip, phase, self.observed)
            self._requalified[phase] = found
        return found

    def open_earlier(self) -> tuple[str, ...]:
        """Plan phases before P that are not ``succeeded`` in the tip, in plan order."""
        tip = self.tip
        assert tip is not None
        return tuple(p for p in self.plan[:self.plan.index(self.phase)]
                     if tip.last.get(p, ("",))[0] != "succeeded")

    def earlier_requalify(self) -> bool:
        """Every open earlier phase has no record in the tip and is re-qualified."""
        tip = self.tip
        if tip is None or not self.successor:
            return False
        return all(p not in tip.last and self.requalification(p).requalified
                   for p in self.open_earlier())

    def first_not_requalified(self) -> tuple[str, str]:
        """The first open earlier phase and why it must run (or what it waits on)."""
        tip = self.tip
        assert tip is not None and self.earlier is not None
        for p in self.open_earlier():
            seen = tip.last.get(p)
            if seen is not None:
                return p, f"{p} is {seen[0]} in attempt {_short(tip.id)}, not succeeded"
            if self.successor:
                req = self.requalification(p)
                if not req.requalified:
                    return p, req.detail
            else:
                return p, f"{p} has not run in attempt {_short(tip.id)}"
        return self.earlier, f"{self.earlier} is not succeeded"


# --------------------------------------------------------------------- the rows


def _decision(row: str, kind: str, facts: _Facts, reason: str, **fields: object) -> Decision:
    tip = facts.tip
    return Decision(row, kind, _bounded(reason), facts.phase,
                    tip.id if tip is not None else None, **fields)  # type: ignore[arg-type]


def _describe_generation_change(old: Generation, new: Generation) -> str:
    parts = []
    if old.source_commit != new.source_commit:
        parts.append(f"head {old.source_commit[:12]} -> {new.source_commit[:12]}")
    if old.tree != new.tree and old.source_commit == new.source_commit:
        parts.append("tree changed")
    if (old.config_path, old.config_blob, old.config_digest) != (
            new.config_path, new.config_blob, new.config_digest):
        parts.append("configuration changed")
    if (old.base_ref, old.base_commit) != (new.base_ref, new.base_commit):
        parts.append(f"base {old.base_commit[:12]} -> {new.base_commit[:12]}")
    return "; ".join(parts) or "generation changed"


def _refuse(row: str, facts: _Facts, reason: str, *, recovery: str | None = None,
            names: str | None = None, writes: tuple[Write, ...] = (),
            commands: tuple[str, ...] = ()) -> Decision:
    return _decision(row, REFUSE, facts, reason, outcome="refused", recovery=recovery,
                     names=names, writes=writes, commands=commands)


def _head_moved(f: _Facts, row: str) -> Decision:
    assert f.request.head is not None
    return _refuse(row, f, f"this step's work is of head {f.request.head[:12]}, but the pull "
                   f"request's head is {f.request.generation.source_commit[:12]}: a newer "
                   "push replaced it, and the run of that push does this phase")


def _not_in_plan(f: _Facts, row: str) -> Decision:
    where = f"attempt {_short(f.tip.id)}" if f.same and f.tip is not None else "the channel"
    return _refuse(row, f, f"{f.phase} is not a phase of the plan of {where} "
                   f"({' '.join(f.plan)})", names=f.phase)


def _admit(f: _Facts, row: str) -> Decision:
    tip = f.tip
    if tip is None:
        return _decision(row, ADMIT, f, f"no attempt for {f.request.request_key} yet: admit "
                         "one for the current generation",
                         writes=(Write("attempt", None, generation=f.request.generation),),
                         again=True)
    change = _describe_generation_change(tip.attempt.generation, f.request.generation)
    return _decision(row, ADMIT, f, f"attempt {_short(tip.id)} is {tip.status} and of another "
                     f"generation ({change}): admit its successor for the current generation",
                     writes=(Write("attempt", tip.id, generation=f.request.generation),),
                     again=True)


def _stale(f: _Facts, row: str) -> Decision:
    assert f.tip is not None
    head = f.request.generation.source_commit[:12]
    tip_head = f.tip.attempt.generation.source_commit[:12]
    return _refuse(row, f, f"the step's generation (head {head}) is that of an earlier attempt "
                   f"of this chain, already replaced by attempt {_short(f.tip.id)} (head "
                   f"{tip_head}): "
                   "this step read an older head; re-run it so it reads the current one",
                   recovery="new-generation")


def _tip_recovery(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None
    phase = tip.recovery.partition(":")[2] or None
    if tip.status == "succeeded":
        what = (f"attempt {_short(tip.id)} of head {tip.attempt.generation.source_commit[:12]} "
                "succeeded (the request is delivered); a new generation needs it rolled "
                "back first")
    elif tip.status == "reconciling":
        what = (f"attempt {_short(tip.id)} of another generation has {phase} unknown: "
                "settle it before a new generation supersedes it")
    else:
        what = f"attempt {_short(tip.id)} is {tip.status}; no step may act on it"
    return _refuse(row, f, what, recovery=tip.recovery, names=phase)


def _busy(f: _Facts, row: str) -> Decision:
    assert f.runner is not None and f.runner_phase is not None
    state = "is still running" if f.liveness == LIVE else "may still be running"
    return _decision(row, BUSY, f, f"{f.runner_phase} is {f.runner_status} by "
                     f"{describe_writer(f.runner)}, which {state}: never run beside it",
                     outcome="busy", recovery=f"wait:{f.runner_phase}",
                     names=f.runner_phase)


def _ended_reason(f: _Facts) -> str:
    assert f.runner is not None and f.tip is not None
    own = " (an earlier step of this job)" if f.own else ""
    return (f"{f.runner_phase} was started by {describe_writer(f.runner)}{own} in attempt "
            f"{_short(f.tip.id)}, which ended without a result: its effect may have happened")


def _other_ambiguous(f: _Facts, row: str) -> Decision:
    assert f.tip is not None and f.runner_phase is not None
    reason = _ended_reason(f)
    return _refuse(row, f, f"{reason}; settle it before a new generation supersedes "
                   f"attempt {_short(f.tip.id)}", recovery=f"reconcile:{f.runner_phase}",
                   names=f.runner_phase,
                   writes=(Write("event", f.tip.id, f.runner_phase, "unknown",
                                 _bounded(reason)),),
                   commands=hand_commands(f.journal, f.tip, f.runner_phase))


def _ended_in_flight(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None and f.runner_phase is not None
    return _refuse(row, f, f"attempt {_short(tip.id)} is {tip.status}, but {_ended_reason(f)}: "
                   "a person checks whether it did, then opens the successor by hand "
                   "(and, if it did, records the phase succeeded there)",
                   recovery="manual", names=f.runner_phase,
                   commands=successor_commands(f.journal, tip, f.runner_phase))


def _supersede(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None
    change = _describe_generation_change(tip.attempt.generation, f.request.generation)
    return _decision(row, SUPERSEDE, f, f"attempt {_short(tip.id)} ({tip.status}) is of an "
                     f"older generation ({change}): supersede it and admit the current one",
                     writes=(Write("event", tip.id, None, "superseded",
                                   _bounded(f"new generation: {change}")),
                             Write("attempt", tip.id, generation=f.request.generation)), again=True)


def _successor(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None
    return _decision(row, SUCCESSOR, f, f"attempt {_short(tip.id)} is {tip.status} (it does "
                     "not block): open its successor for this generation and decide there",
                     writes=(Write("attempt", tip.id, generation=tip.attempt.generation),),
                     again=True)


def _expire(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None
    return _decision(row, SUCCESSOR, f, f"attempt {_short(tip.id)} is pending past its "
                     f"expires_at {tip.attempt.expires_at}: record it expired (it never ran) "
                     "and open its successor",
                     writes=(Write("event", tip.id, None, "expired",
                                   f"expired at {tip.attempt.expires_at} before any phase "
                                   "started"),
                             Write("attempt", tip.id, generation=tip.attempt.generation)),
                     again=True)


def _skip(f: _Facts, row: str) -> Decision:
    assert f.tip is not None
    return _decision(row, SKIP, f, f"{f.phase} already succeeded in attempt "
                     f"{_short(f.tip.id)}: the work is not run", outcome="skipped")


def _requalify_earlier(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None
    done = [f.requalification(p) for p in f.open_earlier()]
    own = f.requalification(f.phase) if f.phase not in tip.last else None
    if own is not None and own.requalified:
        done.append(own)
    writes = tuple(Write("event", tip.id, r.phase, "succeeded", None, r.materials)
                   for r in done)
    names = ", ".join(r.phase for r in done)
    finished = own is not None and own.requalified
    return _decision(row, REQUALIFY, f, f"{names} re-qualified in successor {_short(tip.id)} "
                     "from the retained materials of an earlier attempt of this generation",
                     writes=writes, again=not finished,
                     outcome="requalified" if finished else None, requalified=tuple(done))


def _requalify_own(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None
    r = f.requalification(f.phase)
    return _decision(row, REQUALIFY, f, r.detail + f" in successor {_short(tip.id)}: the work "
                     "is not run",
                     writes=(Write("event", tip.id, f.phase, "succeeded", None, r.materials),),
                     outcome="requalified", requalified=(r,))


def _earlier_open(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None
    phase, why = f.first_not_requalified()
    seen = tip.last.get(phase, (None, None))[0]
    recovery = {"unknown": f"reconcile:{phase}", "waiting": f"wait:{phase}"}.get(
        seen or "", f"continue:{phase}")
    return _refuse(row, f, f"{f.phase} needs {phase} first: {why}", recovery=recovery,
                   names=phase)


def _ambiguous(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None
    reason = _ended_reason(f)
    writes = () if f.last == "unknown" else (
        Write("event", tip.id, f.phase, "unknown", _bounded(reason)),)
    return _decision(row, AMBIGUOUS, f, reason + "; settle it with verify", writes=writes,
                     names=f.phase, recovery=f"reconcile:{f.phase}",
                     commands=hand_commands(f.journal, tip, f.phase))


def _run(f: _Facts, row: str) -> Decision:
    tip = f.tip
    assert tip is not None
    again = ""
    if f.successor and f.last is None:
        again = f" ({f.requalification(f.phase).detail})"
    return _decision(row, RUN, f, f"record {f.phase} started in attempt {_short(tip.id)}, "
                     f"then run the work{again}",
                     writes=(Write("event", tip.id, f.phase, "started"),))


Guard = Callable[[_Facts], bool]
Make = Callable[[_Facts, str], Decision]


DECISIONS: tuple[tuple[str, str, str, str, Guard, Make], ...] = (
    # (when, decision, the step writes, why -- with its source, guard, make)
    ("the step's work is of another head than the pull request's (a newer push)",
     REFUSE, "nothing",
     "ADR 0006: the exact source commit identifies a generation; the run of the newer "
     "head does its phases (as `record --head`)",
     lambda f: f.request.head is not None and f.request.head != f.request.generation.source_commit,
     _head_moved),
    ("P is not a phase of the plan (the current attempt's, else the channel's)",
     REFUSE, "nothing",
     "format §8: a record of a phase outside the plan is "
     "`undeclared_phase`",
     lambda f: f.phase not in f.plan, _not_in_plan),
    ("no attempt for the request key", ADMIT, "an attempt root (no predecessor)",
     "format §9: nothing blocks a fresh attempt; the key is the one `admit` uses, so the "
     "two never double it", lambda f: f.tip is None, _admit),
    ("tip of another generation; the step's generation is an earlier attempt's of the "
     "chain", REFUSE, "nothing",
     "ADR 0006: generations are immutable; a generation once replaced never comes back on "
     "a stale read", lambda f: not f.same and f.stale, _stale),
    ("tip of another generation, reconciling, rolling-back, rollback-failed or succeeded",
     REFUSE, "nothing",
     "ADR-038: RECONCILIATION, ROLLING_BACK, ROLLBACK_FAILED and VERIFIED block; "
     "format §8: reconciling refuses `superseded`",
     lambda f: not f.same and f.status in _OTHER_BLOCKING_DONE, _tip_recovery),
    ("tip failed, cancelled, superseded, expired or rolled-back while its open phase is "
     "started by a runner live or that cannot be told", BUSY, "nothing (outcome `busy`)",
     "the idempotency note, 3: never act beside a living runner; a successor would run "
     "the phase beside it", lambda f: f.tip is not None and f.status in _NOT_BLOCKING
     and f.runner_status == "started" and f.liveness in _NOT_LIVE, _busy),
    ("tip failed, cancelled, superseded, expired or rolled-back while its open phase is "
     "started by a runner that ended", REFUSE,
     "nothing; prints the commands that open the successor by hand",
     "the idempotency note, 3: a stop after dispatch proves the effect absent only when "
     "authoritative recovery confirms it; the ended attempt takes no `unknown` (format "
     "§8: `rewritten_terminal`)", lambda f: f.tip is not None and f.status in _NOT_BLOCKING
     and f.runner_status == "started", _ended_in_flight),
    ("tip of another generation; its open phase started or waiting by a runner live or "
     "that cannot be told", BUSY, "nothing (outcome `busy`)",
     "the idempotency note, 3: never act beside a living runner; superseding it would "
     "make its result `rewritten_terminal`",
     lambda f: not f.same and f.runner_status in ("started", "waiting")
     and f.liveness in _NOT_LIVE, _busy),
    ("tip of another generation; its open phase started by a runner that ended",
     REFUSE, "`unknown` for that phase of the tip",
     "the idempotency note, 3: a started effect whose runner died is ambiguous; format "
     "§8: an unknown outcome is reconciled, never abandoned",
     lambda f: not f.same and f.runner_status == "started", _other_ambiguous),
    ("tip of another generation, pending, running or waiting", SUPERSEDE,
     "attempt-level `superseded` on the tip (reason: what changed), then an attempt root "
     "succeeding it; decide again",
     "ADR 0006: a new source or base requires a new generation; supersession retains a "
     "reason; format §9: `superseded` does not block",
     lambda f: not f.same and f.status in ("pending", "running", "waiting"), _supersede),
    ("tip of another generation, failed, cancelled, superseded, expired or rolled-back",
     ADMIT, "an attempt root succeeding the tip; decide again",
     "format §9 / ADR-038: these do not block; material of another generation is not "
     "re-qualified", lambda f: not f.same and f.status in _NOT_BLOCKING, _admit),
    ("current attempt rolling-back, rollback-failed or superseded", REFUSE, "nothing",
     "ADR-038: ROLLING_BACK and ROLLBACK_FAILED block; format §10: `superseded` recovers "
     "by a new generation",
     lambda f: f.status in ("rolling-back", "rollback-failed", "superseded"), _tip_recovery),
    ("current attempt failed, cancelled, expired or rolled-back", SUCCESSOR,
     "an attempt root succeeding it; decide again (re-qualification there)",
     "ADR-038: FAILED, EXPIRED, ROLLED_BACK do not block; ADR 0006: recovery opens a "
     "successor with no inherited success",
     lambda f: f.status in ("failed", "cancelled", "expired", "rolled-back"), _successor),
    ("current attempt pending and past its expires_at", SUCCESSOR,
     "attempt-level `expired`, then an attempt root succeeding it; decide again",
     "ADR-038: no transition into executing skips the unexpired check; format §8: "
     "`expired` only while pending",
     lambda f: f.status == "pending" and f.tip is not None
     and f.request.now >= f.tip.attempt.expires_at, _expire),
    ("P succeeded in the current attempt", SKIP, "nothing (outcome `skipped`)",
     "format §8: a succeeded phase is never written again; ADR-038: VERIFIED blocks a "
     "second application", lambda f: f.last == "succeeded", _skip),
    ("an earlier plan phase not succeeded; in a successor, each such phase has no record "
     "and is re-qualified", REQUALIFY,
     "`succeeded` for each, citing the predecessor's materials (and for P when it "
     "re-qualifies too: outcome `requalified`); else decide again",
     "ADR 0006, Materials: recovery qualifies retained material (by its bytes) under "
     "the successor's rules; format §4: a material's attempt may be a predecessor",
     lambda f: f.earlier is not None and f.earlier_requalify(),
     _requalify_earlier),
    ("an earlier plan phase not succeeded", REFUSE, "nothing",
     "ADR 0006: every phase requires successful predecessors (format §8: "
     "`missing_predecessor`)", lambda f: f.earlier is not None, _earlier_open),
    ("P has no record; in a successor whose predecessor of this generation succeeded P "
     "with materials now in the workspace byte for byte", REQUALIFY,
     "`succeeded` for P citing them (outcome `requalified`)",
     "ADR 0006, Materials (as above); a phase without file materials always runs again",
     lambda f: f.last is None and f.successor
     and f.requalification(f.phase).requalified, _requalify_own),
    ("P started, unknown or waiting by a runner live or that cannot be told", BUSY,
     "nothing (outcome `busy`)",
     "the idempotency note, 3; never run the work beside a living runner",
     lambda f: f.last in _IN_FLIGHT and f.liveness in _NOT_LIVE, _busy),
    ("P started by a runner that ended", AMBIGUOUS,
     "`unknown` naming the run, run attempt and job; then verify (`VERIFY_ROWS`)",
     "the idempotency note, 3: a timeout after dispatch is ambiguous: recover it under "
     "the same identity by authoritative read-back, never retry it",
     lambda f: f.last == "started", _ambiguous),
    ("P unknown, its runner ended", AMBIGUOUS, "nothing; then verify (`VERIFY_ROWS`)",
     "format §8: unknown resolves only to succeeded, failed or unknown",
     lambda f: f.last == "unknown", _ambiguous),
    ("P has no record, or is waiting by a runner that ended", RUN,
     "`started` for P; the work runs outside the scope; then `WORK_ROWS`",
     "the idempotency note, 2: the claim is written inside the uniqueness boundary",
     lambda f: f.last in (None, "waiting"), _run),
)
"""The decision table: the first row whose guard holds decides (docs/run.md)."""


def _check(request: RunRequest, liveness: str) -> None:
    if request.phase not in PHASES:
        raise ValueError(f"{request.phase!r} is not a phase ({' '.join(PHASES)})")
    if liveness not in LIVENESS:
        raise ValueError(f"liveness {liveness!r} is not one of {', '.join(LIVENESS)}")
    if not request.plan or any(p not in PHASES for p in request.plan):
        raise ValueError(f"plan {request.plan!r} is not a plan of phases")


def run_needs(journal: JournalState | None, request: RunRequest) -> RunNeeds:
    """What to read before ``decide``: whose liveness, and which workspace files.

    Raises:
        ValueError: the request's phase or plan is not of phases.
    """
    _check(request, UNKNOWN)
    f = _Facts(journal, request)
    paths: tuple[str, ...] = ()
    if journal is not None and f.tip is not None and f.same and f.phase in f.plan:
        tip = f.tip
        wanted = [p for p in f.plan[:f.plan.index(f.phase) + 1]
                  if tip.last.get(p, ("",))[0] != "succeeded"
                  or tip.status in ("failed", "cancelled", "expired", "rolled-back")]
        paths = wanted_paths(journal, tip, tip.generation_id, wanted)
    return RunNeeds(f.runner, f.tip.id if f.runner is not None and f.tip is not None else None,
                    f.runner_phase, f.runner_status, f.own, paths)


def decide(journal: JournalState | None, request: RunRequest, *, liveness: str,
           observed: Iterable[ObservedFile] | Mapping[str, ObservedFile] = ()) -> Decision:
    """The decision of ``DECISIONS`` for ``request`` on ``journal`` (None: no journal yet).

    ``liveness`` is that of ``run_needs(journal, request).runner`` (any value when it
    is None); ``observed`` the workspace files at ``run_needs(...).paths`` (and any the
    step's own ``materials`` globs found).

    Raises:
        ValueError: the request's phase or plan is not of phases, or ``liveness`` is not
            one of ``LIVENESS``.
    """
    _check(request, liveness)
    files = dict(observed) if isinstance(observed, Mapping) else {o.path: o for o in observed}
    facts = _Facts(journal, request, liveness, files)
    for number, (_, _, _, _, guard, make) in enumerate(DECISIONS, 1):
        if guard(facts):
            return make(facts, f"D{number}")
    raise RuntimeError(f"no row of the decision table decides phase {request.phase} on an "
                       f"attempt {facts.status} with the phase {facts.last}")


# ------------------------------------------------------------------ after a verify


def hand_commands(journal: JournalState | None, attempt: AttemptState,
                  phase: str) -> tuple[str, ...]:
    """The two ``ghattempt record`` commands that settle ``phase`` of ``attempt`` by
    hand: ``succeeded`` when a person found the effect in place, ``failed`` when they
    proved it absent."""
    where = ""
    if journal is not None:
        where = (f" --pull-request {journal.intent.pull_request} --base-ref "
                 f"{_quote(journal.intent.base_ref)}")
    base = (f"ghattempt record{where} --request-key {attempt.request_key} --attempt "
            f"{attempt.id} --phase {phase}")
    return (f"{base} --status succeeded",
            f"{base} --status failed --reason 'verified absent by hand: WHAT WAS CHECKED'")


def successor_commands(journal: JournalState | None, attempt: AttemptState,
                       phase: str) -> tuple[str, ...]:
    """The commands that open ``attempt``'s successor by hand, and record ``phase``
    succeeded there when a person found its effect in place."""
    where = ""
    if journal is not None:
        where = (f" --pull-request {journal.intent.pull_request} --base-ref "
                 f"{_quote(journal.intent.base_ref)}")
    key = f" --request-key {attempt.request_key}"
    return (f"ghattempt successor{where}{key}",
            f"ghattempt record{where}{key} --phase {phase} --status succeeded")


def _quote(text: str) -> str:
    if text and all(c.isascii() and (c.isalnum() or c in "._/+-=:@") for c in text):
        return text
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _verify_present(d: Decision, row: str, readback: Material | None) -> Decision:
    assert d.attempt is not None
    return Decision(row, SETTLE, _bounded(f"settled by verify: {d.phase} is in place "
                                          f"(attempt {_short(d.attempt)}); the work is not run"),
                    d.phase, d.attempt,
                    (Write("event", d.attempt, d.phase, "succeeded", None,
                           () if readback is None else (readback,)),), outcome="settled")


def _verify_absent(d: Decision, row: str, readback: Material | None) -> Decision:
    assert d.attempt is not None
    reason = _bounded(f"verified absent by verify after: {d.reason}")
    return Decision(row, RECORD, reason, d.phase, d.attempt,
                    (Write("event", d.attempt, d.phase, "failed", reason),), again=True)


def _verify_neither(d: Decision, row: str, readback: Material | None,
                    what: str) -> Decision:
    return Decision(row, REFUSE, _bounded(f"{d.reason}; {what}: settle it by hand"), d.phase,
                    d.attempt, outcome="refused", recovery=f"reconcile:{d.phase}",
                    names=d.phase, commands=d.commands)


VERIFY_ROWS: tuple[tuple[str | None, str, str, str,
                         Callable[[Decision, str, Material | None], Decision]], ...] = (
    (PRESENT, SETTLE, "`succeeded` for P with the verify's stdout as a `readback` material "
     "(outcome `settled`)",
     "the idempotency note, 3: authoritative recovery confirms the effect",
     _verify_present),
    (ABSENT, RECORD, "`failed` for P (reason: verified absent); decide again (a successor "
     "runs it)", "ADR-038: FAILED is proven zero effect and does not block a fresh attempt",
     _verify_absent),
    (NEITHER, REFUSE, "nothing; prints the `ghattempt record` commands that settle it",
     "never re-run an effect on a guess; format §10: `reconcile:P`",
     lambda d, row, rb: _verify_neither(d, row, rb, "verify could not tell")),
    (None, REFUSE, "nothing; prints the `ghattempt record` commands that settle it",
     "never re-run an effect on a guess; format §10: `reconcile:P`",
     lambda d, row, rb: _verify_neither(d, row, rb, "no verify was given")),
)
"""After an ``ambiguous`` decision: the verify's outcome (``present``, ``absent``,
``neither``; None: no verify given) -> what to write."""


def after_verify(decision: Decision, outcome: str | None,
                 readback: Material | None = None) -> Decision:
    """The row of ``VERIFY_ROWS`` for an ``ambiguous`` decision's verify ``outcome``
    (None when the step has no verify); ``readback`` is the verify's stdout material.

    Raises:
        ValueError: ``decision`` is not ``ambiguous``, or ``outcome`` is not a verify
            outcome.
    """
    if decision.kind != AMBIGUOUS:
        raise ValueError(f"after_verify follows an ambiguous decision, not {decision.kind}")
    for number, (when, _, _, _, make) in enumerate(VERIFY_ROWS, 1):
        if when == outcome:
            return make(decision, f"V{number}", readback)
    raise ValueError(f"verify outcome {outcome!r} is not one of present, absent, neither")


# -------------------------------------------------------------------- after the work


def _work_interrupted(d: Decision, row: str, code: int, signal: str | None,
                      line: str | None, materials: Sequence[Material],
                      writer: Writer | None, missing: str | None) -> Decision:
    assert d.attempt is not None
    who = f" in {describe_writer(writer)}" if writer is not None else ""
    reason = _bounded(f"the runner was cancelled ({signal}) while {d.phase}'s work ran{who}: "
                      "its effect may have happened; settle it with verify")
    return Decision(row, RECORD, reason, d.phase, d.attempt,
                    (Write("event", d.attempt, d.phase, "unknown", reason),), outcome="ran")


def _work_succeeded(d: Decision, row: str, code: int, signal: str | None,
                    line: str | None, materials: Sequence[Material],
                    writer: Writer | None, missing: str | None) -> Decision:
    assert d.attempt is not None
    return Decision(row, RECORD, f"{d.phase}'s work exited 0", d.phase, d.attempt,
                    (Write("event", d.attempt, d.phase, "succeeded", None, tuple(materials)),),
                    outcome="ran")


def _work_failed(d: Decision, row: str, code: int, signal: str | None,
                 line: str | None, materials: Sequence[Material],
                 writer: Writer | None, missing: str | None) -> Decision:
    assert d.attempt is not None
    reason = _bounded(f"exit {code}: {line}" if line else f"exit {code}")
    return Decision(row, RECORD, reason, d.phase, d.attempt,
                    (Write("event", d.attempt, d.phase, "failed", reason),), outcome="ran")


def _work_unmade(d: Decision, row: str, code: int, signal: str | None,
                 line: str | None, materials: Sequence[Material],
                 writer: Writer | None, missing: str | None) -> Decision:
    assert d.attempt is not None
    reason = _bounded(f"{d.phase}'s work exited 0 but {missing}: its effect may have "
                      "happened; settle it with verify")
    return Decision(row, RECORD, reason, d.phase, d.attempt,
                    (Write("event", d.attempt, d.phase, "unknown", reason),), outcome="ran")


WorkMake = Callable[[Decision, str, int, "str | None", "str | None", Sequence[Material],
                     "Writer | None", "str | None"], Decision]

WORK_ROWS: tuple[tuple[str, str, str, Callable[[int, str | None, str | None], bool],
                       WorkMake], ...] = (
    ("interrupted by a signal the runner sent (SIGINT, SIGTERM)",
     "`unknown` for P naming the signal and the runner (never `failed` or `cancelled`)",
     "the idempotency note, 3: a worker stopped after dispatch proves nothing",
     lambda code, signal, missing: signal is not None, _work_interrupted),
    ("exit status 0", "`succeeded` for P with its materials",
     "format §4: materials bind bytes and digest to the producing attempt",
     lambda code, signal, missing: code == 0 and missing is None, _work_succeeded),
    ("any other exit status", "`failed` for P: the exit status and the last line of its "
     "error output (bounded, secrets scrubbed)",
     "ADR-038: a failed phase does not block a fresh attempt",
     lambda code, signal, missing: code != 0, _work_failed),
    ("exit status 0, but a `materials` glob matched no file", "`unknown` for P naming the "
     "glob (never `succeeded` without its materials, never `failed`)",
     "the idempotency note, 3: the effect may have happened (a publication); format §4: "
     "a success binds its materials",
     lambda code, signal, missing: code == 0 and missing is not None, _work_unmade),
)
"""After a ``run`` decision's work: how it ended -> what to write."""


def after_work(decision: Decision, *, exit_code: int, signal: str | None = None,
               error_line: str | None = None, materials: Sequence[Material] = (),
               writer: Writer | None = None, missing: str | None = None) -> Decision:
    """The row of ``WORK_ROWS`` for a ``run`` decision's work.

    ``signal`` names the signal the runner sent us (``SIGTERM``) when the step was
    interrupted; ``error_line`` is the last non-empty line of the work's error output,
    already bounded and scrubbed of secrets; ``materials`` the files to cite on
    success; ``writer`` this step's writer, named in an ``unknown`` reason; ``missing``
    says which ``materials`` glob matched no file after the work exited 0.

    Raises:
        ValueError: ``decision`` is not ``run``.
    """
    if decision.kind != RUN:
        raise ValueError(f"after_work follows a run decision, not {decision.kind}")
    for number, (_, _, _, guard, make) in enumerate(WORK_ROWS, 1):
        if guard(exit_code, signal, missing):
            return make(decision, f"W{number}", exit_code, signal, error_line, materials,
                        writer, missing)
    raise RuntimeError("unreachable: the work rows cover every exit")


# ------------------------------------------------------------------------ docs


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def decision_table_markdown() -> str:
    """``DECISIONS``, ``VERIFY_ROWS`` and ``WORK_ROWS`` as Markdown tables (docs/run.md
    shows them; a test keeps them in step)."""
    lines = ["| # | when | decision | the step writes | why |",
             "| --- | --- | --- | --- | --- |"]
    for number, (when, kind, writes, why, _, _) in enumerate(DECISIONS, 1):
        lines.append(f"| D{number} | {_cell(when)} | **{kind}** | {_cell(writes)} | "
                     f"{_cell(why)} |")
    lines += ["", "After an **ambiguous** decision, the verify's outcome:", "",
              "| # | verify | decision | the step writes | why |",
              "| --- | --- | --- | --- | --- |"]
    shown = {PRESENT: "exit 0: present", ABSENT: "exit 1: absent",
             NEITHER: "any other exit: neither", None: "no verify given"}
    for number, (outcome, kind, writes, why, _) in enumerate(VERIFY_ROWS, 1):
        lines.append(f"| V{number} | {shown[outcome]} | **{kind}** | {_cell(writes)} | "
                     f"{_cell(why)} |")
    lines += ["", "After a **run** decision, how the work ended:", "",
              "| # | the work | the step writes | why |", "| --- | --- | --- | --- |"]
    for number, (ended, writes, why, _, _) in enumerate(WORK_ROWS, 1):
        lines.append(f"| W{number} | {_cell(ended)} | {_cell(writes)} | {_cell(why)} |")
    return "\n".join(lines) + "\n"


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    Decision, RunNeeds, RunRequest, Write, after_verify, after_work, decide,
    describe_writer, hand_commands, run_needs,
):
    _exported.__module__ = "ghattempt.core"
del _exported
