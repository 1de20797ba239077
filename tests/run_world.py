"""A journal that ``run`` steps act on, for tests of the decision table: each write a
decision asks for is built with the core's builders, checked with ``check_event`` /
``check_attempt`` (a refusal fails the test) and posted, as a writer would."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ghattempt.core import (
    ActionsWriter,
    CliWriter,
    Decision,
    JournalState,
    ObservedFile,
    RunRequest,
    Write,
    Writer,
    after_verify,
    after_work,
    check_attempt,
    check_event,
    decide,
    file_material,
    readback_material,
)
from ghattempt.core.testing import AttemptHandle, Scenario, sample_generation, time_at

KEY = "merge/pr-42@main"
PLAN = ("build", "publication")
URL = "https://github.com/octo-org/widgets/actions/runs/77"
ME = ActionsWriter(run_id=500, run_attempt=1, job="release", workflow="release.yml")
OTHER = ActionsWriter(run_id=400, run_attempt=2, job="release", workflow="release.yml")
PERSON = CliWriter(actor="octocat")
NEW_EXPIRY = "2026-03-28T00:00:00Z"
"""The expires_at of attempts a step opens: later than every ``now`` the tests use."""


def observed(path: str, content: bytes) -> ObservedFile:
    return ObservedFile(path, len(content), "sha256:" + hashlib.sha256(content).hexdigest())


def request(phase: str = "build", *, generation: int = 1, plan: Sequence[str] = PLAN,
            writer: Writer = ME, now: str | None = None, head: str | None = None,
            key: str = KEY) -> RunRequest:
    return RunRequest(key, sample_generation(generation), phase, tuple(plan), writer,
                      now or time_at(100), head)


class RefusedWrite(AssertionError):
    """A decision asked for a write the core's checks refuse."""


@dataclass
class World:
    """A Scenario whose writes come from decisions."""

    scenario: Scenario = field(default_factory=Scenario)
    counter: int = 0
    expires_at: str = "2026-03-20T00:00:00Z"

    def journal(self, key: str = KEY) -> JournalState:
        verdict = self.scenario.read(request_key=key)
        assert verdict.journal is not None, verdict
        assert verdict.exit_code == 0, verdict
        return verdict.journal

    def handle(self, attempt_id: str) -> AttemptHandle:
        return next(h for h in self.scenario.attempts if h.id == attempt_id)

    def attempt(self, *, generation: int = 1, plan: Sequence[str] = PLAN,
                predecessor: AttemptHandle | None = None, key: str = KEY,
                expires_at: str | None = None) -> AttemptHandle:
        return self.scenario.attempt(request_key=key, plan=plan,
                                     generation=sample_generation(generation),
                                     predecessor=predecessor,
                                     expires_at=expires_at or self.expires_at)

    def apply(self, writes: Iterable[Write], req: RunRequest) -> None:
        for write in writes:
            journal = self.journal(req.request_key)
            self.counter += 1
            if write.record == "attempt":
                assert write.generation is not None, write
                # as the wiring does: a new attempt expires after now (expires_after)
                h = self.scenario.attempt(request_key=req.request_key, plan=req.plan,
                                          generation=write.generation,
                                          predecessor=write.attempt, post=False,
                                          expires_at=max(self.expires_at, NEW_EXPIRY))
                failure = check_attempt(journal, h.record)
                if failure is not None:
                    raise RefusedWrite(f"{failure}: attempt after {write.attempt}")
                h.root = self.scenario.fixture.root(h.record)
                self.scenario.written.append(h.record.digest)
                continue
            assert write.attempt is not None
            h = self.handle(write.attempt)
            event = h.build(write.phase, write.status or "", write.reason,
                            materials=write.materials, key=f"run:{self.counter}",
                            writer=req.writer, at=req.now)
            failure = check_event(journal, event)
            if failure is not None:
                raise RefusedWrite(f"{failure}: {write}")
            h.post(event)
            h.events.append(event)
            self.scenario.written.append(event.digest)

    def step(self, req: RunRequest, *, liveness: str = "ended",
             files: Iterable[ObservedFile] = (), verify: str | None = None,
             exit_code: int = 0, signal: str | None = None,
             produced: Iterable[ObservedFile] = (),
             missing: str | None = None) -> list[Decision]:
        """Play one ``run`` step to its end; returns every decision taken, in order."""
        taken: list[Decision] = []
        files = tuple(files)
        for _ in range(8):
            decision = decide(self.journal(req.request_key), req, liveness=liveness,
                              observed=files)
            taken.append(decision)
            self.apply(decision.writes, req)
            if decision.kind == "ambiguous":
                assert decision.attempt is not None
                state = self.journal(req.request_key).attempt(decision.attempt)
                assert state is not None
                readback = readback_material(req.phase, b"in place\n", attempt=state, url=URL)
                follow = after_verify(decision, verify, readback)
                taken.append(follow)
                self.apply(follow.writes, req)
                if not follow.again:
                    return taken
                continue
            if decision.kind == "run":
                assert decision.attempt is not None
                state = self.journal(req.request_key).attempt(decision.attempt)
                assert state is not None
                materials = [file_material(o, phase=req.phase, attempt=state, url=URL)
                             for o in produced]
                follow = after_work(decision, exit_code=exit_code, signal=signal,
                                    error_line="boom", materials=materials,
                                    writer=req.writer, missing=missing)
                taken.append(follow)
                self.apply(follow.writes, req)
                return taken
            if not decision.again:
                return taken
        raise AssertionError(f"the step did not end: {[d.row for d in taken]}")
