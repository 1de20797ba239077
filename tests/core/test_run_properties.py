"""The decision table is total and safe: every reachable state of an attempt (for a
two-phase plan, with every liveness, own and other writers, fresh attempts and
successors, the current and other generations) is decided by a row; every write a
decision asks for is one ``check_event``/``check_attempt`` accepts; ``run`` is never
decided while the phase is started by a runner that may be live."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from run_world import ME, OTHER, PERSON, PLAN, URL, World, observed, request
from strategies import journals

from ghattempt.core import Decision, JournalState, RunRequest, decide, file_material
from ghattempt.core._rules import ReplayState, apply, refusal
from ghattempt.core._run import DECISIONS, VERIFY_ROWS, WORK_ROWS
from ghattempt.core.testing import time_at

TAR = observed("dist/widgets.tar.gz", b"tarball")
STATUSES = ("started", "waiting", "succeeded", "failed", "cancelled", "superseded", "unknown")


class _Step:
    def __init__(self, phase: str | None, status: str) -> None:
        self.phase = phase
        self.status = status
        self.at = "2026-03-30T00:00:00Z" if status == "expired" else "2026-03-01T00:00:00Z"


Seq = tuple[tuple[str | None, str], ...]


def reachable(plan: tuple[str, ...] = PLAN, depth: int = 6) -> list[Seq]:
    """One event sequence per distinct replay state of an attempt with ``plan``."""
    moves = [(p, s) for p in plan for s in STATUSES] + [
        ("rollback", s) for s in ("started", "succeeded", "failed")] + [
        (None, s) for s in ("expired", "cancelled", "superseded")]
    seen: dict[Any, tuple[tuple[str | None, str], ...]] = {}
    frontier: list[tuple[tuple[str | None, str], ...]] = [()]
    for _ in range(depth):
        following = []
        for seq in frontier:
            state = ReplayState.start(plan, "2026-03-20T00:00:00Z")
            for phase, status in seq:
                apply(state, _Step(phase, status), "r")
            key = (tuple(sorted((k, v[0]) for k, v in state.last.items())),
                   state.overall and state.overall[0], state.events > 0)
            if key in seen:
                continue
            seen[key] = seq
            for move in moves:
                step = _Step(*move)
                if refusal(state, step) is None:
                    following.append((*seq, move))
        frontier = following
    return list(seen.values())


def check(decision: Decision, journal: JournalState, req: RunRequest, liveness: str,
          own: bool) -> None:
    """What no decision may ever be."""
    tip = journal.tip(req.request_key)
    if tip is None or tip.generation_id != req.generation.id:
        assert decision.kind not in ("run", "ambiguous", "skip", "requalify"), decision
        return
    last = tip.last.get(req.phase, (None,))[0]
    if decision.kind == "run":
        assert last in (None, "waiting"), decision
        if last == "waiting":
            assert liveness == "ended" or own, decision
    if last in ("started", "unknown") and liveness in ("live", "unknown") and not own:
        assert decision.kind not in ("run", "ambiguous", "requalify"), decision


def play(world: World, req: RunRequest, *, liveness: str, files: tuple[Any, ...],
         verify: str | None, exit_code: int, signal: str | None,
         rows: set[str], missing: str | None = None) -> None:
    original = world.step

    taken = original(req, liveness=liveness, files=files, verify=verify,
                     exit_code=exit_code, signal=signal, produced=(TAR,), missing=missing)
    rows.update(d.row for d in taken)


def build(prefix: str, seq: tuple[tuple[str | None, str], ...], writer: Any) -> World:
    w = World()
    predecessor = None
    if prefix == "successor":
        a = w.attempt(generation=1)
        a.event("build", "started", writer=OTHER)
        state = w.journal().attempt(a.id)
        assert state is not None
        a.event("build", "succeeded", writer=OTHER,
                materials=[file_material(TAR, phase="build", attempt=state, url=URL)])
        a.run(("publication", "started"), ("publication", "failed"))
        predecessor = a
    elif prefix == "after-old":
        a = w.attempt(generation=2)
        a.event(None, "superseded", "new generation")
        predecessor = a
    tip = w.attempt(generation=1, predecessor=predecessor)
    for phase, status in seq:
        kwargs: dict[str, Any] = {"writer": writer}
        if status == "expired":
            kwargs["at"] = w.expires_at
        tip.event(phase, status, **kwargs)
    return w


def cases() -> Iterator[tuple[str, tuple[tuple[str | None, str], ...], Any]]:
    for prefix, seq in itertools.product(("fresh", "successor", "after-old"), reachable()):
        writers = (OTHER, ME) if any(s in ("started", "waiting", "unknown")
                                     for _, s in seq) else (OTHER,)
        for writer in writers:
            yield prefix, seq, writer


def test_every_reachable_state_is_decided_and_every_write_is_accepted() -> None:
    rows: set[str] = set()
    follow = itertools.cycle([("present", 0, None, None), ("absent", 1, None, None),
                              ("neither", 143, "SIGTERM", None), (None, 0, None, None),
                              ("present", 0, None, "materials glob 'dist/*' matches no "
                               "file")])
    states = 0
    for prefix, seq, writer in cases():
        states += 1
        nows = (time_at(100), "2026-03-25T00:00:00Z") if not seq else (time_at(100),)
        for phase, generation, liveness, now in itertools.product(
                ("build", "publication", "merge"), (1, 2, 3), ("live", "ended", "unknown"),
                nows):
            if prefix != "after-old" and generation == 2:
                continue
            req = request(phase, generation=generation, now=now)
            w = build(prefix, seq, writer)
            journal = w.journal()
            for files in ((TAR,), ()):
                decision = decide(journal, req, liveness=liveness, observed=files)
                check(decision, journal, req, liveness, writer == ME)
            verify, exit_code, signal, missing = next(follow)
            play(w, req, liveness=liveness, files=(TAR,), verify=verify,
                 exit_code=exit_code, signal=signal, rows=rows, missing=missing)
    assert states > 60
    # the request variations no journal state gives: another head, no journal at all
    w = World()
    rows.add(decide(w.journal(), request(head="f" * 40), liveness="ended").row)
    rows.add(decide(None, request(), liveness="ended").row)
    expected = {f"D{n}" for n in range(1, len(DECISIONS) + 1)} | {
        f"V{n}" for n in range(1, len(VERIFY_ROWS) + 1)} | {
        f"W{n}" for n in range(1, len(WORK_ROWS) + 1)}
    assert expected - rows == set()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(drawn=journals(), data=st.data())
def test_decisions_on_drawn_journals_only_ask_for_accepted_records(drawn: Any,
                                                                   data: Any) -> None:
    """Any valid journal (``strategies.journals``), any request: a few steps played to
    their end; ``World.apply`` fails the test on any write the core would refuse."""
    w = World(scenario=drawn.scenario)
    key = drawn.request_key
    for _ in range(data.draw(st.integers(1, 3))):
        journal = w.journal(key)
        tip = journal.tip(key)
        plans = [PLAN, ("admission", "build", "merge", "publication")]
        if tip is not None:
            plans.append(tip.attempt.plan)
        plan = data.draw(st.sampled_from(plans))
        phases = (*plan, "review")
        if tip is not None and data.draw(st.booleans()):
            phases = tip.attempt.plan
        phase = data.draw(st.sampled_from(phases))
        generations = [1, 2, 3]
        gen = data.draw(st.sampled_from(generations))
        writer = data.draw(st.sampled_from((ME, OTHER, PERSON, drawn.scenario.writer)))
        req = request(phase, generation=gen, plan=plan, writer=writer, key=key,
                      now=data.draw(st.sampled_from((time_at(10), time_at(400)))))
        if tip is not None and data.draw(st.booleans()):
            # the tip's own generation: the same-generation rows
            req = RunRequest(key, tip.attempt.generation, phase, plan, writer, req.now)
        liveness = data.draw(st.sampled_from(("live", "ended", "unknown")))
        files = data.draw(st.sampled_from(((), (TAR,))))
        decision = decide(journal, req, liveness=liveness, observed=files)
        own = writer != PERSON and any(
            e.writer == writer for s in journal.attempts for e in s.events)
        check(decision, journal, req, liveness, own)
        w.step(req, liveness=liveness, files=files,
               verify=data.draw(st.sampled_from(("present", "absent", "neither", None))),
               exit_code=data.draw(st.sampled_from((0, 1, 143))),
               signal=data.draw(st.sampled_from((None, "SIGTERM"))), produced=(TAR,))
