"""``ghattempt config check [FILE]`` and ``ghattempt config schema``.

``check`` reads the file the way every writer does (``ghattempt.config.check_config``:
the parser itself, table by table) and prints each problem on one line as
``FILE:LINE:COLUMN: KEY: problem; fix`` (``FILE: ...`` when the file does not hold the
key, e.g. a missing one), with the token's value and every token-shaped string replaced
by ``[redacted]``; exit 0 for a good file, 2 otherwise. ``schema`` prints the
JSON Schema generated from the key table (``ghattempt.config.json_schema``).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from ghattempt.cli._errors import CliError
from ghattempt.errors import Fault

__all__ = ["config_check", "config_schema"]


def _read(path: str) -> bytes:
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise CliError(Fault.BAD_INPUT,
                       f"{path}: {exc.strerror}; give the path of the configuration "
                          "file (default .github/ghattempt.toml)") from None
    if not stat.S_ISREG(mode):
        kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else \
            "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise CliError(Fault.BAD_INPUT, f"{path} is {kind}; give the configuration file itself")
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise CliError(Fault.BAD_INPUT, f"{path}: {exc.strerror}; check its permissions") from None


def config_check(args: Any) -> int:
    """Print each problem of ``args.file``; 0 when there is none."""
    from ghattempt.config import check_config
    from ghattempt.render import scrub

    data = _read(args.file)
    shown = args.file.replace("\\", "/")
    # The recorded path must be repository-relative; any readable path may be checked.
    rel = shown if not (Path(shown).is_absolute() or ".." in Path(shown).parts) \
        else Path(shown).name
    problems = sorted(check_config(data, path=rel),
                      key=lambda e: (e.line is None, e.line or 0, e.column or 0))
    for e in problems:
        where = f"{shown}:{e.line}:{e.column or 1}" if e.line is not None else shown
        what = f"{e.key}: " if e.key else ""
        # a value quoted from the file (a token pasted as writer.login) is redacted
        print(scrub(f"{where}: {what}{e.problem}; {e.fix}"))
    if not problems:
        print(f"{shown}: ok")
        return 0
    print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in {shown}",
          file=sys.stderr)
    return 2


def config_schema(args: Any) -> int:
    """Print the JSON Schema of the configuration file."""
    from ghattempt.config import json_schema

    sys.stdout.write(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n")
    return 0
