"""``ghattempt run``: one phase's work, exactly once (docs/run.md).

Shape::

    request_of(args) -> Run     # the options as the typed request
    run(args) -> int            # execute it and print how it ended

Thin: the options become ``ghattempt.commands.Run`` (checked when built: a bad value is
exit 2 before anything is sent), ``ghattempt.commands.execute`` runs it, and
``ghattempt.render`` says how it ended. The work is ``-- COMMAND [ARG ...]``, run as an
argv; ``--verify CMD`` is a script run as a ``run:`` step runs one (the default shell),
or ``github-release:TAG``.

The writer: inside a GitHub Actions job (``GITHUB_ACTIONS=true`` with ``GITHUB_RUN_ID``
and ``GITHUB_RUN_ATTEMPT``) the job, ``{"kind":"actions",...}``, whose liveness the
Actions API tells; elsewhere the person, ``{"kind":"cli","actor"}`` (``--actor``, else
``GITHUB_ACTOR``, else the local user name), live until ``[run] stale_after`` or
``--takeover``.

Exit status: the work's when it ran (128 + N when the runner's signal N interrupted
it, recorded ``unknown``); 0 when skipped, settled or re-qualified; 1 refused; 4 busy
(a runner that may still be working holds the phase); 2 bad input, as every command.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
from typing import TYPE_CHECKING

from ghattempt.cli._context import connection

if TYPE_CHECKING:
    from ghattempt.commands import Run
    from ghattempt.core import Writer

__all__ = ["request_of", "run"]

_AMBIGUOUS = ("D20", "D21")
"""The rows after which a verify given runs (docs/run.md)."""


def _writer(args: argparse.Namespace) -> Writer:
    from ghattempt.core import ActionsWriter, CliWriter

    env = os.environ
    run_id, attempt = env.get("GITHUB_RUN_ID", ""), env.get("GITHUB_RUN_ATTEMPT", "")
    if env.get("GITHUB_ACTIONS") == "true" and run_id.isdigit() and attempt.isdigit():
        return ActionsWriter(run_id=int(run_id), run_attempt=int(attempt),
                             job=env.get("GITHUB_JOB") or "job",
                             workflow=env.get("GITHUB_WORKFLOW") or "workflow")
    return CliWriter(args.actor or env.get("GITHUB_ACTOR") or getpass.getuser())


def request_of(args: argparse.Namespace) -> Run:
    """The ``Run`` request of the options ``args``.

    Raises:
        CommandError, RequestError: (bad input) a value the request cannot take.
    """
    from ghattempt.commands import RequestError, Run, Target
    from ghattempt.work import Script

    work = tuple(args.work)
    if work[:1] == ("--",):
        work = work[1:]
    if not work:
        raise RequestError("run needs the work: -- COMMAND [ARG ...] after the options")
    verify: object = None
    if args.verify is not None:
        verify = args.verify if args.verify.startswith("github-release:") \
            else Script(args.verify)
    globs = tuple(g for group in (args.materials or ()) for g in group)
    target = Target(args.repository or "", args.pull_request, args.base_ref or None)
    return Run(target=target, writer=_writer(args), channel=args.channel,
               request_key=args.request_key, phase=args.phase, work=work, verify=verify,
               materials=globs, wait=args.wait, takeover=args.takeover,
               working_directory=args.working_directory, artifact_url=args.artifact_url,
               head=args.head)


def run(args: argparse.Namespace) -> int:
    """``ghattempt run``."""
    from ghattempt.cli._errors import EXIT_BY_FAULT
    from ghattempt.commands import execute, find_config
    from ghattempt.render import run_lines, run_outputs

    request = request_of(args)
    config = find_config(args.config, required=True)
    assert config is not None
    outcome = execute(request, config, connection(args))
    if args.json:
        # the work's (or verify's) standard output is ours and may end mid-line: the
        # outputs start a line of their own
        wrote = outcome.exit_code is not None or (
            args.verify is not None and any(r in _AMBIGUOUS for r in outcome.rows))
        sys.stdout.write(("\n" if wrote else "") + json.dumps(
            run_outputs(outcome), ensure_ascii=True, separators=(",", ":")) + "\n")
    else:
        for line in run_lines(outcome):  # standard output is the work's
            print(line, file=sys.stderr)
    sys.stdout.flush()
    fault = outcome.fault
    if fault is not None:
        return EXIT_BY_FAULT[fault]
    if outcome.outcome == "ran" and outcome.exit_code is not None:
        return outcome.exit_code
    return 0
