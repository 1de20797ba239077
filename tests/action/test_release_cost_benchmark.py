"""benchmarks/release_cost.py plays the example release workflow step by step: it must
understand every condition of that workflow (it stopped at the first one once the
workflow moved to ``missing-phases-json``)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _benchmark():
    spec = importlib.util.spec_from_file_location("release_cost",
                                                  ROOT / "benchmarks" / "release_cost.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_condition_of_the_example_release_is_understood() -> None:
    bench = _benchmark()
    steps = bench.steps()
    plan = ["admission", "build", "review"]
    outputs = {"admit": {"missing-phases-json": json.dumps(plan)}}
    ran = [s["name"] for s in steps if bench.runs(s, outputs)]
    assert ran[0] == "admission: admit the attempt"
    assert "build: succeeded; review: started" in ran
    assert not any(n.startswith(("build: started", "review: started")) for n in ran)
    assert not any(n.startswith("warrant") for n in ran)
    assert "Record the phase in progress as failed" not in ran
    assert ran[-1] == "Show the attempt status"
    by_name = {s["name"]: s for s in steps}
    then = bench.inputs_of(by_name["build: succeeded; review: started"], 7, outputs)
    assert then["then-start"] == "review" and then["pull-request"] == "7"
    last = bench.inputs_of(by_name["review: succeeded; warrant: started"], 7, outputs)
    assert last["then-start"] == ""  # warrant is not due: no started


def test_a_rerun_starts_the_phase_after_one_done_before_in_its_own_step() -> None:
    bench = _benchmark()
    steps = bench.steps()
    outputs = {"admit": {"missing-phases-json": json.dumps(["review", "warrant"])}}
    ran = [s["name"] for s in steps if bench.runs(s, outputs)]
    assert "review: started (when build was done by an earlier run)" in ran
    assert "review: succeeded; warrant: started" in ran
    assert "warrant: started (when review was done by an earlier run)" not in ran


def test_releases_an_hour_are_the_least_of_githubs_hourly_limits_and_name_it() -> None:
    bench = _benchmark()
    releases, binding = bench.per_hour({"points": 48, "rest": 1, "content": 37})
    assert releases == 13 and binding.startswith("content-creating requests (500 an hour")
    releases, binding = bench.per_hour({"points": 100, "rest": 1, "content": 10})
    assert releases == 10 and binding.startswith("GraphQL points (1,000 an hour")
