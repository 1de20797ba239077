"""docs/app.md's quickstart runs as written: the emulator, the App server with the store,
two signed deliveries by ``ghattempt app send``, and the journal read back.

The commands are taken from the document's code block; only the install line is left
out (this environment has the extras), ``.venv/bin`` is this interpreter's folder, and
the ports are free ones. Everything listens on 127.0.0.1.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.network, pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def commands() -> list[str]:
    text = (ROOT / "docs" / "app.md").read_text()
    block = text.split("## Quickstart against the emulator", 1)[1].split("```bash\n", 1)[1]
    return block.split("```", 1)[0].strip().splitlines()


@pytest.mark.timeout(400)
def test_the_quickstart_runs_in_under_ten_commands(tmp_path: Path) -> None:
    lines = commands()
    assert len(lines) < 10
    assert lines[0].startswith("python3 -m venv .venv && .venv/bin/pip install")
    bin_dir = str(Path(sys.executable).parent)
    emu, app = free_port(), free_port()
    script = ["set -euo pipefail", "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT"]
    for line in lines[1:]:
        line = line.replace(".venv/bin/", bin_dir + "/")
        line = line.replace("examples/", f"{ROOT}/examples/")
        line = line.replace("8001", str(emu)).replace("8000", str(app))
        script.append(line)
    # the App's environment names the emulator's port too
    script.insert(3, f"sed -i 's/:8001\\//:{emu}\\//' qs/app.env")
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, text=True,
                          capture_output=True, timeout=380)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert out.count("-> HTTP 202") == 2, out[-3000:]
    status = done.stdout.split("journal ", 1)[1] if "journal " in done.stdout else ""
    assert "running" in done.stdout and "continue:review" in done.stdout, out[-3000:]
    assert "pr-1:main:release" in done.stdout
    assert "build" in status and "succeeded" in status and "app 12345" in status
