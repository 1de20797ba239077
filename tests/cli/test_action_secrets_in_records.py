"""A secret in a reason never reaches the journal (a public comment), only ``[redacted]``."""

from __future__ import annotations

from pathlib import Path

from .conftest import World
from .test_action import TOKEN, run_action

SHAPED = "ghp_" + "Zz9" * 12  # token-shaped, not the step's own token


def test_a_reason_holding_the_token_is_recorded_redacted(tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        assert run_action(w, tmp_path, "admit").rc == 0
        assert run_action(w, tmp_path, "record", phase="admission", status="started").rc == 0
        step = run_action(w, tmp_path, "record", phase="admission", status="failed",
                          reason=f"push refused for {TOKEN} and {SHAPED}; see log")
        assert step.rc == 0, step.stdout + step.stderr
        bodies = [c["body"] for d in w.emulator.snapshot()["repositories"][0]["discussions"]
                  for c in d["comments"] if "body" in c]
        printed = [line for line in step.stdout.splitlines()
                   if not line.startswith("::add-mask::")]  # masking needs the value
        text = "\n".join(bodies + printed) + step.stderr + step.summary
        assert TOKEN not in text and SHAPED not in text
        status = run_action(w, tmp_path, "status")
        assert status.outputs["status"] == "failed"
        assert "push refused for [redacted] and [redacted]; see log" in "\n".join(bodies)
    finally:
        w.close()
