"""Writer commands: ``admit``, ``record``, ``successor``, ``supersede``, ``expire``,
``rollback``, ``plan COMMAND``, and a person's ``restore-lease``.

Shape::

    request_of(command: str, args) -> WriteRequest     # the options as a typed request
    admit(args) / record(args) / successor(args) / supersede(args) / expire(args) /
        rollback(args) / plan(args) -> int

Each command turns its options into the request of ``ghattempt.commands`` (checked when
built: a bad value is exit 2 before anything is sent), loads ``--config`` and runs it
with ``ghattempt.commands.execute`` (``plan``: ``ghattempt.commands.plan``, the same
command writing nothing), then prints the outcome. The writer is ``{"kind":"cli",
"actor"}``: ``--actor``, else ``GITHUB_ACTOR``, else the local user name.
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
    from ghattempt.commands import WriteOutcome, WriteRequest
    from ghattempt.config import LoadedConfig

__all__ = ["admit", "expire", "plan", "record", "request_of", "restore_lease", "rollback",
           "successor", "supersede"]


def request_of(command: str, args: argparse.Namespace) -> WriteRequest:
    """The request of writer command ``command`` with the options ``args``.

    Raises:
        CommandError, RequestError: (bad input) a value the request cannot take.
    """
    from ghattempt.commands import (
        Admit,
        Expire,
        OpenSuccessor,
        RecordEvent,
        Rollback,
        Supersede,
        Target,
        materials_from,
        public_text,
    )
    from ghattempt.core import CliWriter

    token_env = args.token_env
    target = Target(args.repository or "", args.pull_request, args.base_ref or None)
    writer = CliWriter(args.actor or os.environ.get("GITHUB_ACTOR") or getpass.getuser())
    common = {"target": target, "writer": writer, "channel": args.channel,
              "request_key": args.request_key}
    reason = public_text(getattr(args, "reason", None), token_env)
    if command == "admit":
        return Admit(**common, authorization=args.authorization, start=args.start)
    if command == "record":
        return RecordEvent(**common, phase=args.phase, status=args.status, reason=reason,
                      key=args.key, materials=materials_from(args.materials, token_env),
                      then_start=args.then_start, attempt=args.attempt, head=args.head)
    if command == "successor":
        return OpenSuccessor(**common, authorization=args.authorization)
    if command == "supersede":
        return Supersede(**common, reason=reason)
    if command == "expire":
        return Expire(**common, reason=reason)
    if command == "rollback":
        return Rollback(**common, status=args.status, reason=reason, key=args.key,
                        attempt=args.attempt, head=args.head)
    raise AssertionError(f"no writer command {command!r}")


def _config(args: argparse.Namespace) -> LoadedConfig:
    from ghattempt.commands import find_config

    config = find_config(args.config, required=True)
    assert config is not None
    return config


def _perform(command: str, args: argparse.Namespace) -> WriteOutcome:
    from ghattempt.commands import execute

    request = request_of(command, args)
    return execute(request, _config(args), connection(args))


def plan(args: argparse.Namespace) -> int:
    """``ghattempt plan COMMAND ...``: check everything ``COMMAND`` needs and say what it
    would write, writing nothing. Exit 0 when a real run would be allowed; otherwise the
    error (and exit status) the real run would end with."""
    from ghattempt.commands import plan as plan_request
    from ghattempt.render import plan_json, plan_lines

    command: str = args.plan_command
    request = request_of(command, args)
    outcome = plan_request(request, _config(args), connection(args))
    if args.json:
        out = json.dumps(plan_json(command, outcome), ensure_ascii=True,
                         separators=(",", ":"))
        sys.stdout.write(out + "\n")
    else:
        print(f"plan {command}: a real run would be allowed ({outcome.message})")
        for line in plan_lines(outcome):
            print(f"  {line}")
    return 0


def _cli(command: str, args: argparse.Namespace) -> int:
    outcome = _perform(command, args)
    if args.json:
        out = json.dumps(outcome.verdict.to_json(), ensure_ascii=True, separators=(",", ":"))
        sys.stdout.write(out + "\n")
    else:
        v = outcome.verdict
        print(f"{outcome.message}\nstatus {v.status}, recovery {v.recovery}; "
              f"journal {outcome.url}")
    return 0 if outcome.verdict.exit_code == 0 else outcome.verdict.exit_code


def admit(args: argparse.Namespace) -> int:
    """``ghattempt admit``."""
    return _cli("admit", args)


def record(args: argparse.Namespace) -> int:
    """``ghattempt record``."""
    return _cli("record", args)


def successor(args: argparse.Namespace) -> int:
    """``ghattempt successor``."""
    return _cli("successor", args)


def supersede(args: argparse.Namespace) -> int:
    """``ghattempt supersede``."""
    return _cli("supersede", args)


def expire(args: argparse.Namespace) -> int:
    """``ghattempt expire``."""
    return _cli("expire", args)


def rollback(args: argparse.Namespace) -> int:
    """``ghattempt rollback``."""
    return _cli("rollback", args)


def restore_lease(args: argparse.Namespace) -> int:
    """``ghattempt restore-lease``: the options as a
    :class:`~ghattempt.commands.RestoreLease`, run by ``execute``; prints what was
    restored and the journal's status read with it."""
    from ghattempt.commands import RestoreLease, Target, execute, public_text

    target = Target(args.repository or "", args.pull_request, args.base_ref or None)
    request = RestoreLease(target=target,
                           actor=args.actor or os.environ.get("GITHUB_ACTOR")
                           or getpass.getuser(),
                           records=args.records, last=args.last,
                           reason=public_text(args.reason, args.token_env) or "")
    outcome = execute(request, _config(args), connection(args))
    v = outcome.verdict
    print(f"{outcome.message}\nstatus {v.status}, recovery {v.recovery}; "
          f"journal {outcome.url}")
    return 0 if v.exit_code == 0 else v.exit_code
