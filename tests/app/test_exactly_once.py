"""Property: whatever the redeliveries, replays and crash points, each effect happens once."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ghattempt.app.inbox import Admission, open_inbox
from ghattempt.app.phases import PhaseMap
from ghattempt.app.recording import RecordingSink, read_effects
from ghattempt.app.sink import SinkRequest, SinkResult
from ghattempt.app.worker import Worker

from .conftest import _load_examples


class Crash(BaseException):
    """The process dies: nothing after this point of the worker runs."""


class CrashingSink:
    """A recording sink that dies right before or right after chosen calls apply."""

    def __init__(self, inner: RecordingSink, crash_at: set[int], after: bool) -> None:
        self.inner = inner
        self.crash_at = crash_at
        self.after = after
        self.calls = 0

    def _call(self, name: str, request: SinkRequest) -> SinkResult:
        self.calls += 1
        crash = self.calls in self.crash_at
        if crash and not self.after:
            raise Crash
        result: SinkResult = getattr(self.inner, name)(request)
        if crash:
            raise Crash
        return result

    def open_intent(self, r):
        return self._call("open_intent", r)

    def supersede_and_admit(self, r):
        return self._call("supersede_and_admit", r)

    def record_phase(self, r):
        return self._call("record_phase", r)

    def cancel(self, r):
        return self._call("cancel", r)

    def report_tampering(self, r):
        return self._call("report_tampering", r)


def _bodies() -> list[tuple[str, bytes]]:
    """Twelve distinct pull request deliveries (4 pull requests x 3 actions)."""
    examples = _load_examples()
    out = []
    for n in range(1, 5):
        for action in ("opened", "synchronize", "closed"):
            p = copy.deepcopy(next(e for e in examples["pull_request"] if e["action"] == action))
            p["number"] = p["pull_request"]["number"] = n
            out.append(("pull_request", json.dumps(p).encode()))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    plan=st.lists(
        st.tuples(st.integers(0, 11), st.sampled_from(["same-id", "new-id"])),
        min_size=1,
        max_size=20,
    ),
    crash_at=st.sets(st.integers(1, 25), max_size=4),
    after=st.booleans(),
)
def test_each_delivery_has_one_effect_whatever_happens(plan, crash_at, after):
    bodies = _bodies()
    with tempfile.TemporaryDirectory() as tmp:
        inbox = open_inbox(Path(tmp) / "inbox.sqlite")
        rec = Path(tmp) / "rec.sqlite"
        sink = CrashingSink(RecordingSink(rec), crash_at, after)
        accepted: set[int] = set()
        for i, (index, how) in enumerate(plan):
            event, body = bodies[index]
            delivery = f"d{index}" if how == "same-id" else f"d{index}-again{i}"
            result = inbox.accept(delivery, event, json.loads(body)["action"], body)
            if index in accepted:
                assert result.admission in (Admission.DUPLICATE, Admission.REPLAY)
            else:
                assert result.admission is Admission.NEW
                accepted.add(index)
        restarts = 0
        while True:
            worker = Worker(inbox, sink, app_id=1, phase_map=PhaseMap())  # a (re)start
            try:
                while worker.run_once() is None:
                    pass
                break
            except Crash:
                restarts += 1
                assert restarts <= len(crash_at)
        assert inbox.counts() == {"pending": 0, "done": len(accepted), "failed": 0}
        effects = read_effects(rec)
        assert len(effects) == len(accepted)
        assert len({(e["scope"], e["key"]) for e in effects}) == len(effects)
        sink.inner._conn.close()
        inbox.close()
