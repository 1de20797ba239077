"""A short, deterministic run of scripts/fuzz-reader (the long run is separate)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fuzz-reader"


def test_mutated_captures_always_end_in_one_verdict() -> None:
    loader = importlib.machinery.SourceFileLoader("fuzz_reader", str(SCRIPT))
    spec = importlib.util.spec_from_loader("fuzz_reader", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    counts = module.fuzz(seconds=60, seed=20260301, bundle_every=0, limit=400)
    assert sum(counts.values()) == 400
    assert len(counts) > 5  # the mutations reach past the first checks
