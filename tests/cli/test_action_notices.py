"""The Action's ``::notice::`` lines: a lost answer reconciled, and a wait of more than
2 s announced before it starts (what for, how long). Over the HTTP emulator, the lost
answer made by its ``lose_response`` fault."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

from .conftest import World
from .test_action_commands import TOKEN, cli_env, run


def _timed(world: World, tmp: Path, command: str, **inputs: str) -> list[tuple[float, str]]:
    """Run one step; each stdout line with the seconds since the start it arrived at."""
    out = tmp / f"out-{command}-{time.monotonic_ns()}"
    out.write_text("")
    env = cli_env(
        GITHUB_ACTIONS="true", GITHUB_RUN_ID="4242", GITHUB_RUN_ATTEMPT="1",
        GITHUB_JOB="release", GITHUB_WORKFLOW="release", GITHUB_REPOSITORY="octo-org/widgets",
        GITHUB_API_URL=world.api_url, GITHUB_WORKSPACE=str(world.workspace),
        GITHUB_OUTPUT=str(out), GHATTEMPT_COMMAND=command, GHATTEMPT_TOKEN=TOKEN,
        GHATTEMPT_PULL_REQUEST="1", PYTHONUNBUFFERED="1")
    for name, value in inputs.items():
        env["GHATTEMPT_" + name.upper()] = value
    start = time.monotonic()
    lines: list[tuple[float, str]] = []
    with subprocess.Popen([sys.executable, "-m", "ghattempt.action"], env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append((time.monotonic() - start, line.rstrip("\n")))
        assert proc.wait(120) == 0, "\n".join(x for _, x in lines)
    lines.append((time.monotonic() - start, "<exit>"))
    return lines


def test_a_reconciled_lost_answer_and_the_quiet_period_after_it_are_notices(
        tmp_path: Path) -> None:
    (tmp_path / "world").mkdir()
    world = World(tmp_path / "world")
    try:
        assert run(world, tmp_path, "admit").rc == 0
        world.emulator.add_fault({"kind": "lose_response", "operation": "addDiscussionComment",
                                  "count": 1})
        lost = _timed(world, tmp_path, "record", phase="admission", status="started")
        notices = [x for _, x in lost if x.startswith("::notice")]
        assert len(notices) == 1, lost
        assert notices[0].startswith("::notice title=ghattempt::the answer to writing event ")
        assert "was lost; reading the journal back after" in notices[0]
        assert "showed it landed" in notices[0]
        assert "ghattempt: notice:" not in "\n".join(x for _, x in lost)  # once, as ::notice::

        # The answer was lost, so the release keeps the scope quiet until that write's
        # window has surely closed; the next step waits for it and says so first.
        quiet = _timed(world, tmp_path, "record", phase="admission", status="succeeded")
        waits = [(t, x) for t, x in quiet if x.startswith("::notice")]
        assert len(waits) == 1, quiet
        at, line = waits[0]
        m = re.fullmatch(r"::notice title=ghattempt::waiting up to (\d+) s for writer scope "
                         r"\w+: \S+ \(fencing token \d+\) released it and stays quiet until "
                         r"\S+ by GitHub's clock", line)
        assert m is not None, line
        seconds = int(m.group(1))
        assert seconds > 2
        end = quiet[-1][0]
        # told before the wait, not after it: the step went on for most of those seconds
        assert end - at >= seconds - 3, (at, end, seconds)
    finally:
        world.close()
