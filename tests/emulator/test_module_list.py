"""docs/emulator.md names every module of ghattempt/emulator, and only those."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_docs_name_every_emulator_module():
    text = (ROOT / "docs" / "emulator.md").read_text(encoding="utf-8")
    start = text.index("The code follows GitHub's domains")
    section = text[start:text.index("Routes come from `ROUTE_MODULES`", start)]
    named = set(re.findall(r"`([A-Za-z_]\w*\.(?:py|graphql))`", section))
    package = ROOT / "ghattempt" / "emulator"
    present = {p.name for p in package.glob("*.py")} | {p.name for p in package.glob("*.graphql")}
    assert sorted(present - named) == [], "modules docs/emulator.md does not name"
    assert sorted(named - present) == [], "docs/emulator.md names modules that do not exist"
