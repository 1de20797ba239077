"""``ghattempt probe``: check, on the user's repository, the behaviours of GitHub the
product relies on (``ghattempt.commands.Probe``); print one table; ``--json FILE`` writes
the observations for an issue. Exit 0 when every relied-on behaviour holds, else the
status of a GitHub refusal (a person must act: ``EXIT_BY_FAULT[Fault.GITHUB_REFUSED]``).
"""

from __future__ import annotations

import argparse
import shutil
import sys

from ghattempt.cli._context import connection

__all__ = ["probe"]


def probe(args: argparse.Namespace) -> int:
    from ghattempt.cli._errors import EXIT_BY_FAULT
    from ghattempt.commands import Probe, execute, find_config
    from ghattempt.errors import Fault
    from ghattempt.render import probe_json, probe_table

    request = Probe(repository=args.repository or "", category=args.category,
                    discussion=args.discussion, writer=args.writer,
                    writer_id=args.writer_id, run_id=args.run_id)
    config = find_config(args.config, required=False)
    report = execute(request, config, connection(args))
    if args.json:
        text = probe_json(report, args.token_env)
        if args.json == "-":
            sys.stdout.write(text)
        else:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(text)
    if args.json != "-":
        width = shutil.get_terminal_size((120, 24)).columns
        sys.stdout.write(probe_table(report, width, args.token_env))
    return 0 if report.ok else EXIT_BY_FAULT[Fault.GITHUB_REFUSED]
