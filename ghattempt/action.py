"""The Action's entry: ``python -m ghattempt.action`` (run by ``action.yml``).

Inputs arrive as environment variables (composite actions get no ``INPUT_*``; action.yml
passes each input through ``env:``), the runner's own variables give the defaults; the
step turns them into the typed request of ``ghattempt.commands`` and runs it with
``ghattempt.commands.execute``, as the ``ghattempt`` CLI runs its own (neither imports
the other: docs/layout.md). docs/action.md is the reference.

==========================  ========================================================
``GHATTEMPT_COMMAND``       run, admit, record, status, successor, supersede, expire,
                            rollback, plan
``GHATTEMPT_PLAN_COMMAND``  plan: the command to check and describe (default admit)
``GHATTEMPT_TOKEN``         the token (masked before anything is printed)
``GHATTEMPT_REPOSITORY``    owner/name (default ``GITHUB_REPOSITORY``)
``GHATTEMPT_PULL_REQUEST``  number (default: the triggering event's pull request)
``GHATTEMPT_BASE_REF``      base branch (default: the event's pull request base)
``GHATTEMPT_PHASE``         run: the phase whose work the step does; record: a plan
                            phase, ``rollback`` or ``attempt``
``GHATTEMPT_RUN``           run: the phase's work, a script run as a ``run:`` step runs
                            it (``GHATTEMPT_SHELL``, ``GHATTEMPT_WORKING_DIRECTORY``)
``GHATTEMPT_SHELL``         run: the shell of the work and verify scripts (a ``run:``
                            step's ``shell``; default ``bash -e {0}``)
``GHATTEMPT_WORKING_DIRECTORY``  run: where the scripts run, relative to the workspace
``GHATTEMPT_VERIFY``        run: a script that settles an ended run's phase (exit 0 in
                            place, 1 absent), or ``github-release:TAG``
``GHATTEMPT_WAIT``          run: seconds to wait beside a live run of the phase
``GHATTEMPT_ARTIFACT_URL``  run: the URL recorded for the materials (the artifact's)
``GHATTEMPT_STATUS``        record/rollback: the event status
``GHATTEMPT_START``         admit: a plan phase whose ``started`` admit records too
``GHATTEMPT_THEN_START``    record, status succeeded: the plan's next phase, whose
                            ``started`` the step records too
``GHATTEMPT_ATTEMPT``       record/rollback: the attempt id the step's work was for (the
                            admit step's output ``attempt``); refused when the current
                            attempt is another
``GHATTEMPT_HEAD``          record/rollback: the pull request head commit the step's work
                            was done on (default: the event's ``pull_request.head.sha``);
                            refused when the current attempt is of another head
``GHATTEMPT_REASON``        why (required for waiting failed cancelled superseded ...)
``GHATTEMPT_KEY``           event idempotency key (default: run, attempt, job, phase,
                            status)
``GHATTEMPT_MATERIALS``     run: globs, one a line; record: JSON array of materials
``GHATTEMPT_CHANNEL``       release channel (default: the config's)
``GHATTEMPT_CONFIG``        config path relative to ``GITHUB_WORKSPACE``
``GHATTEMPT_REQUEST_KEY``   request key (default: rendered from the config)
``GHATTEMPT_SUMMARY``       ``full``, ``brief`` or ``none`` (default: ``full`` for admit
                            and status, ``brief`` for the other commands)
``GHATTEMPT_CATEGORY``      probe: the test category to open its throwaway discussion in
                            (default: the configuration's ``journal.category``)
==========================  ========================================================

Outputs (``$GITHUB_OUTPUT``): for ``run``, ``outcome``, ``exit-code`` and
``materials-json`` too; ``status``, ``recovery``, ``attempt``, ``generation``,
``missing-phases`` (space-separated), ``missing-phases-json`` (a JSON array),
``next-phase``, ``ignored`` (a count), ``journal-url``, ``timeline`` (the path of the
journal's timeline page, in ``RUNNER_TEMP``) and, for ``plan``, ``plan-json`` (what the
command would write); ``probe`` writes ``probe-report`` only (the path of its
observations as JSON, in ``RUNNER_TEMP``). The job summary
(``$GITHUB_STEP_SUMMARY``) is what ``summary`` asks for. The step's own detail (notes,
``::debug::`` lines per GitHub request when ``RUNNER_DEBUG`` or ``ACTIONS_STEP_DEBUG``
is set) is in one ``::group::``; a reconciled lost answer and a wait of more than 2 s
are ``::notice::`` lines; ignored records give a ``::warning::``; every failure
is one ``::error::`` annotation (with ``file=``/``line=`` when the configuration file
is at fault), with the exit status of :data:`EXIT_BY_FAULT` (the CLI's statuses,
docs/cli.md).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ghattempt.errors import Fault, GhattemptError
from ghattempt.github import DEFAULT_API_URL, DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from pathlib import Path

    from ghattempt.commands import Connection, Run, RunOutcome, Status, WriteOutcome, WriteRequest
    from ghattempt.config import LoadedConfig
    from ghattempt.core import ActionsWriter, Capture, JournalInvalid, Verdict

__all__ = ["COMMANDS", "EXIT_BY_FAULT", "OUTPUTS", "SUMMARY_MODES", "ActionStep", "action_inputs",
           "default_event_key", "in_action_words", "outputs_of"]

COMMANDS = ("run", "admit", "record", "status", "successor", "supersede", "expire",
            "rollback", "plan", "probe")
PLANNABLE = ("admit", "record", "successor", "supersede", "expire", "rollback")
"""What ``command: plan`` can plan (input ``plan-command``): every writing command."""
OUTPUTS = ("outcome", "exit-code", "materials-json", "status", "recovery", "attempt",
           "generation", "missing-phases", "missing-phases-json", "next-phase", "ignored",
           "journal-url", "timeline", "plan-json", "probe-report")
RUN_INPUTS = ("run", "shell", "working-directory", "verify", "wait", "artifact-url")
"""The inputs of ``command: run`` only."""
SUMMARY_MODES = ("full", "brief", "none")
TOKEN_ENV = "GHATTEMPT_TOKEN"  # noqa: S105 -- the variable's name, not a token
PULL_REQUEST_MAX = 2**31 - 1
"""GitHub's GraphQL ``Int`` is 32-bit: no pull request number is larger."""
EXIT_INTERNAL = 70
"""An unexpected exception: a defect of ghattempt."""

EXIT_BY_FAULT: dict[Fault, int] = {
    Fault.REFUSED: 1,
    Fault.BAD_INPUT: 2,
    Fault.JOURNAL_INVALID: 3,
    Fault.GITHUB_UNAVAILABLE: 4,
    Fault.GITHUB_REFUSED: 5,
    Fault.OUTCOME_UNKNOWN: 4,
    Fault.SCOPE_BUSY: 4,
    Fault.OWNERSHIP_LOST: 4,
}
"""The Action's one table from kind of fault to the step's exit status (the same
statuses as the command line's, docs/errors.md)."""

# The CLI's options as the Action's inputs (and runner variables) name them: a message
# from the layers below speaks of options; the Action's user wrote inputs.
_INPUT_OF = {
    "--pull-request": "input 'pull-request'", "--base-ref": "input 'base-ref'",
    "--phase": "input 'phase'", "--status": "input 'status'", "--reason": "input 'reason'",
    "--start": "input 'start'", "--then-start": "input 'then-start'",
    "--key": "input 'key'", "--materials": "input 'materials'",
    "--attempt": "input 'attempt'", "--head": "input 'head'",
    "--verify": "input 'verify'", "--wait": "input 'wait'",
    "--working-directory": "input 'working-directory'",
    "--artifact-url": "input 'artifact-url'",
    "--channel": "input 'channel'", "--config": "input 'config'",
    "--request-key": "input 'request-key'", "--repository": "input 'repository'",
    "--actor": "GITHUB_RUN_ID", "--api-url": "GITHUB_API_URL",
    "--server-url": "GITHUB_SERVER_URL", "--token-env": "input 'token'",
    "--writer": "the configuration's writer.login",
    "--writer-id": "the configuration's writer.database_id",
}
_OPTION = re.compile(r"--[a-z][a-z-]*")


class ActionError(GhattemptError):
    """An input problem: one ``::error::`` line, exit 2."""

    fault = Fault.BAD_INPUT


def _escape_data(text: str) -> str:
    """Workflow-command data escaping (actions/toolkit ``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def mask(values: list[str]) -> None:
    """``::add-mask::`` every secret value before anything else is printed."""
    for value in values:
        if value:
            for line in value.splitlines():
                if line.strip():
                    sys.stdout.write(f"::add-mask::{_escape_data(line)}\n")
    sys.stdout.flush()


def in_action_words(message: str) -> str:
    """``message`` with the CLI's option names replaced by the Action's input names (the
    Action names a journal by its pull request only: no ``--discussion``), except inside
    backticks: a command line a person is to run (``ghattempt restore-lease
    --pull-request 7 ...``) stays as it is."""
    message = message.replace("--discussion or --pull-request", "--pull-request")
    parts = message.split("`")
    return "`".join(part if n % 2 else _OPTION.sub(
        lambda m: _INPUT_OF.get(m.group(0), m.group(0)), part) for n, part in enumerate(parts))


def command(name: str, message: str, **props: str | int | None) -> None:
    """One workflow command line: ``::NAME k=v,...::MESSAGE`` (toolkit escaping)."""
    given = ",".join(f"{k}={_escape_property(str(v))}" for k, v in props.items()
                     if v is not None)
    sys.stdout.write(f"::{name}{' ' + given if given else ''}::{_escape_data(message)}\n")
    sys.stdout.flush()


def annotate_error(message: str, **where: str | int | None) -> None:
    """An ``::error::`` annotation (one line; secrets already scrubbed by the caller);
    ``where`` may give ``file``, ``line`` and ``col``."""
    command("error", message, **where, title="ghattempt")


class _Debug:
    """``::debug::`` lines for each GitHub request (the transport's per-request log lines:
    document name, HTTP status, rate-limit cost; never a body, headers or a token)."""

    def __init__(self) -> None:
        import logging

        class Handler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                from ghattempt.render import scrub

                command("debug", scrub(record.getMessage(), TOKEN_ENV))

        self.handler = Handler(logging.DEBUG)
        self.logger = logging.getLogger("ghattempt.github")

    def __enter__(self) -> _Debug:
        import logging

        self.logger.addHandler(self.handler)
        self.level = self.logger.level
        self.logger.setLevel(logging.DEBUG)
        return self

    def __exit__(self, *exc: object) -> None:
        self.logger.removeHandler(self.handler)
        self.logger.setLevel(self.level)


def _debugging(env: Mapping[str, str]) -> AbstractContextManager[object]:
    """:class:`_Debug` when the step runs with debug logging (``debug_enabled``), else a
    context that does nothing."""
    return _Debug() if debug_enabled(env) else nullcontext()


def _connection(env: Mapping[str, str]) -> Connection:
    """How a step reaches GitHub: the runner's API and web URLs, the token in
    ``TOKEN_ENV``, notices as annotations."""
    from ghattempt.commands import Connection

    return Connection(api_url=env.get("GITHUB_API_URL", "") or DEFAULT_API_URL,
                      token_env=TOKEN_ENV, timeout=DEFAULT_TIMEOUT,
                      server_url=env.get("GITHUB_SERVER_URL", "") or None, notice=_notice)


class _Opening:
    """A stream whose first non-empty write opens its :class:`_Group`."""

    def __init__(self, group: _Group, stream: Any) -> None:
        self._group, self._stream = group, stream

    def write(self, text: str) -> int:
        if text:
            self._group.open()
        return int(self._stream.write(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Group:
    """The step's detail in one ``::group::``, opened at the first line written inside it
    (notes, notices, ``::debug::`` lines), so that a step with nothing to say shows no
    empty fold; ``::endgroup::`` only when it was opened."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.opened = False

    def __enter__(self) -> _Group:
        from ghattempt.render import install_notes

        self.out, self.err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = _Opening(self, self.out), _Opening(self, self.err)
        install_notes(TOKEN_ENV)  # its handler writes to the stream of its making: this one
        return self

    def open(self) -> None:
        if not self.opened:
            self.opened = True
            self.err.flush()
            self.out.write(f"::group::{self.label}\n")
            self.out.flush()

    def __exit__(self, *exc: object) -> None:
        from ghattempt.render import install_notes

        sys.stdout, sys.stderr = self.out, self.err
        install_notes(TOKEN_ENV)
        self.out.flush()
        self.err.flush()
        if self.opened:
            self.out.write("::endgroup::\n")
            self.out.flush()


def debug_enabled(env: Mapping[str, str]) -> bool:
    """The runner's step debug logging: ``RUNNER_DEBUG=1`` (set on a re-run with debug
    logging) or the ``ACTIONS_STEP_DEBUG`` secret or variable ``true``."""
    return env.get("RUNNER_DEBUG", "") == "1" or \
        env.get("ACTIONS_STEP_DEBUG", "").strip().lower() == "true"


def _event(env: Mapping[str, str]) -> dict[str, Any]:
    path = env.get("GITHUB_EVENT_PATH", "")
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _head(env: Mapping[str, str], pr: Mapping[str, Any], command: str, phase: str,
          status: str, pull_request: int, repository: str) -> str | None:
    """The head commit a ``record`` or ``rollback`` step's work was done on (the CLI's
    ``--head``): input ``head``, else the event's ``pull_request.head.sha`` when the
    step is about the event's pull request (its number, in ``GITHUB_REPOSITORY``). Not
    the event's for ``phase: attempt``, ``status: superseded``: that record is written
    by the run of a newer head, about the attempt of an older one. None: no check.

    Raises:
        ActionError: ``head`` given to another command, or not a commit SHA (journal-v1
            *oid*, section 3).
    """
    from ghattempt.core import is_oid

    head: object = env.get("GHATTEMPT_HEAD", "").strip()
    where = "input 'head'"
    if head and command not in ("record", "rollback", "run"):
        raise ActionError("input 'head' is for commands 'run', 'record' and 'rollback' only")
    if not head:
        if command not in ("record", "rollback", "run") \
                or (phase, status) == ("attempt", "superseded") \
                or pr.get("number") != pull_request \
                or repository.lower() != env.get("GITHUB_REPOSITORY", "").lower():
            return None
        found = pr.get("head")
        head = found.get("sha") if isinstance(found, dict) else None
        if head is None:
            return None
        where = "the event's pull_request.head.sha (the default of input 'head')"
    if not is_oid(head):
        raise ActionError(f"{where} must be a commit SHA: 40 lowercase hex digits (64 in a "
                          "SHA-256 repository)")
    return str(head)


def _count(text: str) -> int | None:
    """``text`` as an integer in [1, 2**53-1] written in ASCII decimal digits, else None
    (journal-v1 section 3, *count*; ``"\u00b2"`` passes ``str.isdigit`` but not ``int``).
    """
    if not (text.isascii() and text.isdigit()) or len(text) > 16:
        return None
    value = int(text)
    return value if 1 <= value <= 2**53 - 1 else None


def _int(env: Mapping[str, str], name: str, what: str) -> int:
    value = env.get(name, "")
    number = _count(value)
    if number is None:
        raise ActionError(f"{name} must be a number >= 1 ({what}), got {value[:40]!r}")
    return number


def default_event_key(env: Mapping[str, str], phase: str, status: str) -> str:
    """The default idempotency key of an event: run id, run attempt, job, phase and
    status (a re-run of the same step in the same run attempt reuses it), as
    ``ghattempt.commands.event_key`` derives it for the runner's writer. Characters
    outside the key alphabet become ``-``; at most 128 characters (spec section 3 *key*).

    Raises:
        ActionError: ``GITHUB_RUN_ID`` or ``GITHUB_RUN_ATTEMPT`` missing or malformed.
    """
    from ghattempt.commands import event_key

    return event_key(_actions_writer(env), phase, status)


def _notice(line: str) -> None:
    """The notice hook of every command (``ghattempt.commands.Connection.notice``): a
    reconciled lost answer, or a wait of more than 2 s (what for, how long) before it
    starts, as one ``::notice::`` line."""
    from ghattempt.render import scrub

    command("notice", scrub(in_action_words(line), TOKEN_ENV), title="ghattempt")


@dataclass(frozen=True)
class ActionStep:
    """One Action step, from its environment: the command it runs (for ``plan``, the
    command it plans), its typed request, where the configuration is, how it reaches
    GitHub and what its job summary shows.

    Attributes:
        command: ``status`` or a writing command.
        planning: ``command: plan``: plan ``command``, write nothing.
        request: the request of ``ghattempt.commands`` (``Status`` for ``status``).
        summary: ``full``, ``brief`` or ``none``.
        config: the configuration's path, relative to ``workspace``.
        workspace: ``GITHUB_WORKSPACE`` (else the working directory).
        connection: the API URL, the token's variable, the web base, the notice hook.
    """

    command: str
    planning: bool
    request: WriteRequest | Status | Run
    summary: str
    config: str
    workspace: str
    connection: Connection

    @property
    def repository(self) -> str:
        """The repository ``owner/name`` the step is about."""
        from ghattempt.commands import Status

        if isinstance(self.request, Status):
            return self.request.repository or ""
        return self.request.target.repository

    @property
    def pull_request(self) -> int:
        """The pull request the step is about."""
        from ghattempt.commands import Status

        if isinstance(self.request, Status):
            assert self.request.pull_request is not None
            return self.request.pull_request
        return self.request.target.pull_request

    @property
    def base_ref(self) -> str | None:
        """Its base branch, when the step names one."""
        from ghattempt.commands import Status

        if isinstance(self.request, Status):
            return self.request.base_ref
        return self.request.target.base_ref


def action_inputs(env: Mapping[str, str]) -> ActionStep:
    """One Action step's request, from the step's environment.

    Checks everything that needs no request: the command, the pull request number (1 to
    2**31-1, GraphQL's ``Int``), which inputs the command takes, the head commit (*oid*)
    and attempt id, the summary mode; then the request checks its own fields when it is
    built (keys, statuses, reasons, materials, and that no identifying input holds a
    token: ``ghattempt.commands``).

    Raises:
        ActionError: a missing or malformed input.
    """
    from ghattempt.commands import CommandError

    command = env.get("GHATTEMPT_COMMAND", "").strip()
    if command not in COMMANDS:
        raise ActionError(f"input 'command' must be one of {', '.join(COMMANDS)}, "
                          f"got {command[:40]!r}")
    planning = command == "plan"
    if planning:  # every check below is the planned command's own
        command = env.get("GHATTEMPT_PLAN_COMMAND", "").strip() or "admit"
        if command not in PLANNABLE:
            raise ActionError(f"input 'plan-command' must be one of {', '.join(PLANNABLE)}, "
                              f"got {command[:40]!r}")
    elif env.get("GHATTEMPT_PLAN_COMMAND", "").strip():
        raise ActionError("input 'plan-command' is for command 'plan' only")
    event = _event(env)
    found = event.get("pull_request")
    pr: dict[str, Any] = found if isinstance(found, dict) else {}
    pr_number = env.get("GHATTEMPT_PULL_REQUEST", "").strip() or str(pr.get("number") or "")
    pull_request = _count(pr_number)
    if pull_request is not None and pull_request > PULL_REQUEST_MAX:
        pull_request = None
    if pull_request is None and pr_number:
        raise ActionError(f"input 'pull-request' must be a number from 1 to "
                          f"{PULL_REQUEST_MAX}, got {pr_number[:40]!r}")
    if pull_request is None:
        raise ActionError("input 'pull-request' is empty and the triggering event has no "
                          "pull request: pass pull-request (a number)")
    event_base = pr.get("base")
    event_ref = event_base.get("ref") if isinstance(event_base, dict) else None
    base = env.get("GHATTEMPT_BASE_REF", "") or (event_ref if isinstance(event_ref, str) else "")
    phase = env.get("GHATTEMPT_PHASE", "").strip()
    status = env.get("GHATTEMPT_STATUS", "").strip()
    if command == "record" and (not phase or not status):
        raise ActionError("command 'record' needs the inputs 'phase' and 'status'")
    _check_run_inputs(env, command, phase)
    if command == "rollback" and not status:
        raise ActionError("command 'rollback' needs input 'status': started, succeeded or "
                          "failed")
    start = env.get("GHATTEMPT_START", "").strip()
    if start and command != "admit":
        raise ActionError("input 'start' is for command 'admit' only")
    then_start = env.get("GHATTEMPT_THEN_START", "").strip()
    if then_start and command != "record":
        raise ActionError("input 'then-start' is for command 'record' only")
    attempt = env.get("GHATTEMPT_ATTEMPT", "").strip()
    if attempt and command not in ("record", "rollback"):
        raise ActionError("input 'attempt' is for commands 'record' and 'rollback' only")
    from ghattempt.core import is_digest

    if attempt and not is_digest(attempt):
        raise ActionError("input 'attempt' must be an attempt id: sha256: and 64 lowercase "
                          "hex digits (the output 'attempt' of the admit step)")
    summary = env.get("GHATTEMPT_SUMMARY", "").strip() or (
        "full" if command in ("admit", "status") or planning else "brief")
    if summary not in SUMMARY_MODES:
        raise ActionError(f"input 'summary' must be one of {', '.join(SUMMARY_MODES)}, "
                          f"got {summary[:40]!r}")
    repository = env.get("GHATTEMPT_REPOSITORY", "") or env.get("GITHUB_REPOSITORY", "")
    head = _head(env, pr, command, phase, status, pull_request, repository)
    server_url = env.get("GITHUB_SERVER_URL", "") or None
    connection = _connection(env)
    try:
        request = _request(env, command, repository, pull_request, base or None, phase,
                           status, start, then_start, attempt, head, server_url)
    except CommandError as exc:
        from ghattempt.render import error_message

        raise ActionError(in_action_words(error_message(exc))) from None
    return ActionStep(command=command, planning=planning, request=request, summary=summary,
                config=env.get("GHATTEMPT_CONFIG", "") or ".github/ghattempt.toml",
                workspace=env.get("GITHUB_WORKSPACE", "") or os.getcwd(),
                connection=connection)


def _request(env: Mapping[str, str], command: str, repository: str, pull_request: int,
             base_ref: str | None, phase: str, status: str, start: str, then_start: str,
             attempt: str, head: str | None, server_url: str | None
             ) -> WriteRequest | Status | Run:
    """The step's request (``ghattempt.commands``), built from its inputs.

    Raises:
        CommandError: a value the request refuses (its message names the option).
    """
    from ghattempt import commands

    request_key = env.get("GHATTEMPT_REQUEST_KEY", "").strip() or None
    channel = env.get("GHATTEMPT_CHANNEL", "").strip() or None
    if command == "status":
        return commands.Status(repository=repository, pull_request=pull_request,
                               base_ref=base_ref, request_key=request_key, channel=channel,
                               server_url=server_url)
    target = commands.Target(repository, pull_request, base_ref)
    common: dict[str, Any] = {"target": target, "writer": _actions_writer(env),
                              "channel": channel, "request_key": request_key}
    key = env.get("GHATTEMPT_KEY", "").strip() or None
    reason = commands.public_text(env.get("GHATTEMPT_REASON", ""), TOKEN_ENV)
    if command == "run":
        return _run_request(env, common, phase, head)
    if command == "admit":
        return commands.Admit(**common, start=start or None)
    if command == "record":
        materials = commands.materials_from(env.get("GHATTEMPT_MATERIALS", "").strip(),
                                            TOKEN_ENV)
        return commands.RecordEvent(**common, phase=phase, status=status, reason=reason, key=key,
                               materials=materials, then_start=then_start or None,
                               attempt=attempt or None, head=head)
    if command == "rollback":
        return commands.Rollback(**common, status=status, reason=reason, key=key,
                                 attempt=attempt or None, head=head)
    if command == "successor":
        return commands.OpenSuccessor(**common)
    if command == "supersede":
        return commands.Supersede(**common, reason=reason)
    return commands.Expire(**common, reason=reason)


def _check_run_inputs(env: Mapping[str, str], command: str, phase: str) -> None:
    """``command: run`` needs ``phase`` and ``run`` and takes none of the inputs of
    ``record``; the inputs of ``run`` are for ``run`` only.

    Raises:
        ActionError: an input missing, or given to a command that does not take it.
    """
    if command != "run":
        given = [name for name in RUN_INPUTS
                 if env.get("GHATTEMPT_" + name.upper().replace("-", "_"), "").strip()]
        if given:
            raise ActionError(f"input '{given[0]}' is for command 'run' only")
        return
    if not phase or not env.get("GHATTEMPT_RUN", "").strip():
        raise ActionError("command 'run' needs the inputs 'phase' (the phase whose work the "
                          "step does) and 'run' (its work, a script as a run: step's)")
    for name in ("status", "reason", "key", "then-start", "attempt"):
        if env.get("GHATTEMPT_" + name.upper().replace("-", "_"), "").strip():
            raise ActionError(f"input '{name}' is not for command 'run': run decides what "
                              "it records from the journal (docs/run.md)")


def work_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment the work and the verify of ``command: run`` get: the step's, as a
    ``run:`` step would see it, without the Action's own ``GHATTEMPT_*`` variables (the
    token among them: the work gets no token it was not given through ``env:``)."""
    return {k: v for k, v in env.items() if not k.startswith("GHATTEMPT_")}


_SECONDS = re.compile(r"[0-9]{1,6}(?:\.[0-9]{1,3})?")


def _run_request(env: Mapping[str, str], common: dict[str, Any], phase: str,
                 head: str | None) -> Run:
    """``command: run``'s request (``ghattempt.commands.Run``): the script of input
    ``run`` with input ``shell``, input ``verify`` (``github-release:TAG`` as given, else
    a script with the same shell), the ``materials`` globs one a line, ``wait``,
    ``working-directory``, ``artifact-url``; the work's environment is the step's
    (:func:`work_environment`).

    Raises:
        ActionError: ``wait`` not a number of seconds, a shell the runner would refuse.
        CommandError: a value the request refuses.
    """
    from ghattempt import commands
    from ghattempt.work import Script, WorkInputError, shell_command

    shell = env.get("GHATTEMPT_SHELL", "").strip() or None
    work_env = work_environment(env)
    try:  # the runner's own check of the shell, before anything is read or written
        shell_command(shell, "{0}", work_env)
    except WorkInputError as exc:
        raise ActionError(f"input 'shell': {exc}") from None
    verify_text = env.get("GHATTEMPT_VERIFY", "")
    verify: Any = None
    if verify_text.strip().startswith("github-release:"):
        verify = verify_text.strip()
    elif verify_text.strip():
        verify = Script(verify_text, shell)
    globs = tuple(line.strip() for line in env.get("GHATTEMPT_MATERIALS", "").splitlines()
                  if line.strip() and not line.strip().startswith("#"))
    wait_text = env.get("GHATTEMPT_WAIT", "").strip() or "0"
    if not _SECONDS.fullmatch(wait_text):
        raise ActionError(f"input 'wait' must be a number of seconds (e.g. 300), got "
                          f"{wait_text[:40]!r}")
    return commands.Run(**common, phase=phase,
                        work=Script(env.get("GHATTEMPT_RUN", ""), shell), verify=verify,
                        materials=globs, wait=float(wait_text),
                        working_directory=env.get("GHATTEMPT_WORKING_DIRECTORY", "").strip()
                        or None,
                        workspace=env.get("GITHUB_WORKSPACE", "") or None,
                        artifact_url=env.get("GHATTEMPT_ARTIFACT_URL", "").strip() or None,
                        head=head, env=work_env)


def _actions_writer(env: Mapping[str, str]) -> ActionsWriter:
    """The runner's writer identity of a writing command (``status`` writes nothing and
    needs none).

    Raises:
        ActionError: ``GITHUB_RUN_ID`` or ``GITHUB_RUN_ATTEMPT`` missing or malformed.
    """
    from ghattempt.core import ActionsWriter

    return ActionsWriter(
        run_id=_int(env, "GITHUB_RUN_ID", "the workflow run id"),
        run_attempt=_int(env, "GITHUB_RUN_ATTEMPT", "the run attempt"),
        job=env.get("GITHUB_JOB", "") or "job",
        workflow=env.get("GITHUB_WORKFLOW", "") or "workflow",
    )


def _write_outputs(path: str, values: Mapping[str, str]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        for name, value in values.items():
            if "\n" in value or "\r" in value:
                delim = f"ghattempt_{secrets.token_hex(8)}"
                f.write(f"{name}<<{delim}\n{value}\n{delim}\n")
            else:
                f.write(f"{name}={value}\n")


def outputs_of(verdict: Verdict, url: str | None, timeline: str | None = None,
               plan: str = "") -> dict[str, str]:
    """The step outputs for a verdict (empty strings for absent values; ``plan``: the
    plan's JSON, for ``command: plan``)."""
    from ghattempt.render import next_phase

    return {"status": verdict.status, "recovery": verdict.recovery,
            "attempt": verdict.attempt or "", "generation": verdict.generation or "",
            "missing-phases": " ".join(verdict.missing_phases),
            "missing-phases-json": json.dumps(list(verdict.missing_phases),
                                              separators=(",", ":")),
            "next-phase": next_phase(verdict), "ignored": str(verdict.ignored),
            "journal-url": url or "", "timeline": timeline or "", "plan-json": plan}


def check_files(env: Mapping[str, str]) -> None:
    """``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` can be appended to (checked before
    anything is read or written, so a step never writes a record it cannot report).

    Raises:
        ActionError: one names the file and why.
    """
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        path = env.get(name, "")
        if not path:
            continue
        try:
            if os.path.isdir(path):
                raise IsADirectoryError(21, "Is a directory")
            with open(path, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            raise ActionError(f"{name} ({path[:200]}) cannot be written: "
                              f"{exc.strerror or exc}; the runner sets it to a writable "
                              "file: do not override it") from None


def _timeline_path(env: Mapping[str, str]) -> str | None:
    base = env.get("RUNNER_TEMP", "")
    if not base or not os.path.isdir(base):
        return None
    run = "-".join(_safe(env.get(n, "")) or "0" for n in ("GITHUB_RUN_ID",
                                                         "GITHUB_RUN_ATTEMPT", "GITHUB_JOB"))
    return os.path.join(base, f"ghattempt-timeline-{run}.html")


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text)[:60]


def _timeline(env: Mapping[str, str], step: ActionStep, verdict: Verdict,
              capture: Capture | JournalInvalid | None,
              config: LoadedConfig | None) -> str | None:
    """Write the journal's timeline page to ``RUNNER_TEMP``; its path, or None (no
    journal yet, no ``RUNNER_TEMP``, or the page could not be written: a note says why)."""
    path = _timeline_path(env)
    if path is None or capture is None:
        return None
    from ghattempt.commands import reader_identity
    from ghattempt.render import timeline_page, write_page

    try:
        writer, writer_id = reader_identity(None, None, config)
        page, _lanes = timeline_page(capture, verdict, writer=writer, writer_id=writer_id,
                                     server_url=step.connection.server_url)
        write_page(path, page)
    except OSError as exc:
        print(f"ghattempt: note: the timeline page could not be written: {exc.strerror}",
              file=sys.stderr)
        return None
    return path


def _publish(env: Mapping[str, str], step: ActionStep, verdict: Verdict, url: str | None,
             capture: Capture | JournalInvalid | None, config: LoadedConfig | None,
             message: str = "", planned: WriteOutcome | None = None) -> None:
    from ghattempt.render import markdown_summary

    plan = ""
    if planned is None:
        timeline = _timeline(env, step, verdict, capture, config)
        text = markdown_summary(verdict, url, mode=step.summary, command=step.command,
                                message=message, server_url=step.connection.server_url)
    else:  # a plan: nothing was written, so no timeline of it
        from ghattempt.render import plan_json

        timeline = None
        plan = json.dumps(plan_json(step.command, planned), ensure_ascii=True,
                          separators=(",", ":"))
        text = plan_summary(step.command, planned, url, step.summary)
    out = env.get("GITHUB_OUTPUT", "")
    if out:
        try:
            _write_outputs(out, outputs_of(verdict, url, timeline, plan))
        except OSError as exc:
            raise StepFileError("GITHUB_OUTPUT", out, exc) from None
    summary = env.get("GITHUB_STEP_SUMMARY", "")
    if summary and text:
        from ghattempt.render import scrub

        try:
            with open(summary, "a", encoding="utf-8") as f:
                f.write(scrub_lines(text, scrub))
        except OSError as exc:
            raise StepFileError("GITHUB_STEP_SUMMARY", summary, exc) from None


class StepFileError(GhattemptError):
    """``$GITHUB_OUTPUT`` or ``$GITHUB_STEP_SUMMARY`` could not be written after the step
    did its work (a full runner disk): ``variable``, ``path`` and the ``OSError``. Its
    kind is the one whose exit status says "a person must act" (5): retrying the step
    cannot help until the runner is fixed."""

    fault = Fault.GITHUB_REFUSED

    def __init__(self, variable: str, path: str, error: OSError) -> None:
        super().__init__(f"{variable} ({path[:200]}) could not be written: "
                         f"{error.strerror or error}")
        self.variable = variable


EXIT_STEP_FILES = EXIT_BY_FAULT[StepFileError.fault]
"""The status of a step whose work is done but whose outputs or job summary could not be
written: 5, a person must act (the runner's disk); the work itself stands."""


def _unreported(step: ActionStep, exc: StepFileError, url: str | None) -> int:
    """One ``::error::`` line for a step whose outputs or summary could not be written:
    what stands in the journal, what is missing, what to do; returns the exit status."""
    from ghattempt.render import scrub

    if step.planning or step.command == "status":
        done = (f"ghattempt {'plan ' if step.planning else ''}{step.command} read the "
                "journal and wrote nothing")
        again = "Free space on the runner and run the step again"
    else:
        done = (f"ghattempt {step.command}: the journal holds this step's records (they "
                f"landed; journal {url or '-'})")
        again = ("Free space on the runner; running the step again with the same key "
                 "reads the records back and writes nothing twice")
    annotate_error(scrub(f"{done}, but {exc}: the step's outputs or summary are missing. "
                         f"{again}", TOKEN_ENV))
    return EXIT_STEP_FILES


def plan_summary(command: str, outcome: Any, url: str | None, mode: str) -> str:
    """The job summary of ``command: plan``: that a real run would be allowed, then
    (``full``) each write with its record as the journal would hold it."""
    from ghattempt.render import plan_lines

    if mode == "none":
        return ""
    where = f" · [journal]({url})" if url else ""
    head = f"**ghattempt plan {command}**: a real run would be allowed; nothing was written{where}"
    if mode == "brief":
        return head + "\n"
    lines = [f"### ghattempt plan {command}", "", head, ""]
    lines += [f"- {line}" for line in plan_lines(outcome)]
    for p in outcome.planned or ():
        if p.record is not None:
            lines += ["", f"{p.kind} record:", "", "```json",
                      json.dumps(p.record.to_dict(), ensure_ascii=True, indent=1), "```"]
    return "\n".join(lines) + "\n"


def scrub_lines(text: str, scrub: Any) -> str:
    """``scrub`` (which also folds whitespace) applied line by line, keeping the lines."""
    return "\n".join(scrub(line, TOKEN_ENV) if line.strip() else line
                     for line in text.split("\n"))


def _warn_ignored(verdict: Verdict) -> None:
    if verdict.ignored:
        from ghattempt.render import ignored_text

        command("warning", ignored_text(verdict) + ": they do not count; the journal's "
                "timeline and summary show which", title="ghattempt")


def _reading(step: ActionStep) -> Status:
    """The reading request of a step: its own for ``status``; for a writing command, the
    journal it writes, under the same request key or channel."""
    from ghattempt.commands import Status

    request = step.request
    if isinstance(request, Status):
        return request
    target = request.target
    return Status(repository=target.repository, pull_request=target.pull_request,
                  base_ref=target.base_ref, request_key=request.request_key,
                  channel=request.channel, server_url=step.connection.server_url)


def _outputs_after_failure(env: Mapping[str, str], step: ActionStep, code: int,
                           why: str = "") -> None:
    """Outputs for ``if: failure()`` steps: the journal as it stands after a refusal or a
    GitHub error (read only, best effort), ``invalid``/``fail-closed`` for an invalid one;
    the job summary says why the step failed (``why``: its error line) above the journal.
    """
    out = env.get("GITHUB_OUTPUT", "")
    if not out:
        return
    if code == 3:
        empty = {name: "" for name in OUTPUTS}
        try:
            _write_outputs(out, empty | {"status": "invalid", "recovery": "fail-closed",
                                         "missing-phases-json": "[]", "ignored": "0"})
        except OSError:
            pass  # best effort: the step already failed with its one error line
        return
    if code not in (1, 4, 5) or step.command == "status":
        return
    from ghattempt.commands import execute, find_config

    try:
        config = find_config(step.config, required=False, root=step.workspace)
        reading = execute(_reading(step), config, step.connection)
    except Exception:  # noqa: BLE001 -- best effort; the step already failed with its error
        return
    failed = "refused, nothing written" if code == EXIT_BY_FAULT[Fault.REFUSED] \
        else "failed"
    try:
        _publish(env, step, reading.verdict, reading.url, reading.capture, reading.cfg,
                 f"{failed}: {why}" if why else "")
    except StepFileError:
        pass  # best effort, as above


def _config_error(exc: BaseException) -> bool:
    """Annotate a configuration error on the file and line it is about; True if it was."""
    from ghattempt.config import ConfigError

    if not isinstance(exc, ConfigError):
        return False
    from ghattempt.render import scrub

    annotate_error(scrub(in_action_words(str(exc)), TOKEN_ENV), file=exc.path,
                   line=exc.line, col=exc.column)
    return True


def _prepare(step: ActionStep) -> LoadedConfig | None:
    """Everything that needs no request: the configuration and, for a writing command,
    what its request needs of it (the channel; for ``record``, that the phase is in its
    plan: ``ghattempt.commands.check``).

    Raises:
        ConfigError, CommandError: exit 2.
    """
    from ghattempt.commands import Run, Status, check, find_config

    # status reads without a file too; a file that is there is read as a writer reads it
    # (its repository-relative path names it in an annotation)
    present = os.path.lexists(os.path.join(step.workspace, step.config))
    required = step.command != "status" or present
    config = find_config(step.config, required=required, root=step.workspace)
    if config is not None and not isinstance(step.request, Status | Run):
        check(step.request, config, TOKEN_ENV)  # run checks its own first (execute)
    return config


def _classify(exc: BaseException) -> tuple[int, str]:
    """The step's exit status (:data:`EXIT_BY_FAULT`) and its error's line."""
    if isinstance(exc, GhattemptError):
        from ghattempt.render import error_message

        text = error_message(exc)
        if exc.fault is Fault.JOURNAL_INVALID:
            text = f"journal invalid, failing closed: {text}"
        return EXIT_BY_FAULT[exc.fault], text
    if isinstance(exc, OSError):
        if exc.filename:
            return 2, (f"{exc.filename}: {exc.strerror or exc}; check the path and its "
                       "permissions")
        return 2, str(exc)
    return EXIT_INTERNAL, f"internal error {type(exc).__name__}: {exc}"


def probe_step(env: Mapping[str, str]) -> int:
    """``command: probe`` (``ghattempt.commands.Probe``): the relied-on behaviours checked
    on this repository with this token; the table on the log, one ``::error::`` per
    behaviour that does not hold, the Markdown table in the job summary, the JSON report
    in ``RUNNER_TEMP`` (output ``probe-report``). Exit 0 when every relied-on behaviour
    holds, else the status of a GitHub refusal (a person must act)."""
    from ghattempt.commands import CommandError, Probe, execute, find_config
    from ghattempt.render import probe_json, probe_markdown, probe_table, scrub

    for name in ("PULL_REQUEST", "PHASE", "STATUS", "PLAN_COMMAND", "START", "THEN_START",
                 "ATTEMPT", "HEAD", "REASON", "KEY", "MATERIALS", "REQUEST_KEY",
                 *(name.upper().replace("-", "_") for name in RUN_INPUTS)):
        if env.get(f"GHATTEMPT_{name}", "").strip():
            input_name = name.lower().replace("_", "-")
            annotate_error(f"input '{input_name}' is not for command 'probe' (it takes "
                           "repository, token, category, config and summary)")
            return EXIT_BY_FAULT[Fault.BAD_INPUT]
    summary = env.get("GHATTEMPT_SUMMARY", "").strip() or "full"
    run_id = env.get("GITHUB_RUN_ID", "").strip()
    workspace = env.get("GITHUB_WORKSPACE", "") or os.getcwd()
    try:
        if summary not in SUMMARY_MODES:
            raise ActionError(f"input 'summary' must be one of {', '.join(SUMMARY_MODES)}, "
                              f"got {summary[:40]!r}")
        request = Probe(repository=env.get("GHATTEMPT_REPOSITORY", "")
                        or env.get("GITHUB_REPOSITORY", ""),
                        category=env.get("GHATTEMPT_CATEGORY", "").strip() or None,
                        run_id=int(run_id) if run_id.isdigit() and int(run_id) > 0 else None)
        config = find_config(env.get("GHATTEMPT_CONFIG", "") or ".github/ghattempt.toml",
                             required=False, root=workspace)
        with _Group("ghattempt probe"), _debugging(env):
            report = execute(request, config, _connection(env))
    except Exception as exc:  # noqa: BLE001 -- every failure is one annotation
        if _config_error(exc):
            return EXIT_BY_FAULT[Fault.BAD_INPUT]
        if isinstance(exc, CommandError):
            from ghattempt.render import error_message

            exc = ActionError(in_action_words(error_message(exc)).replace(
                "pass --category SLUG", "set input 'category'").replace(
                "--discussion N", "a test category"))
        code, text = _classify(exc)
        annotate_error(scrub(in_action_words(text), TOKEN_ENV))
        return code
    sys.stdout.write(probe_table(report, token_env=TOKEN_ENV))
    for failed in report.failed:
        command("error", scrub(f"{failed.behaviour}: {failed.observed}", TOKEN_ENV),
                title="ghattempt probe")
    path = os.path.join(env["RUNNER_TEMP"], "ghattempt-probe.json") \
        if env.get("RUNNER_TEMP") else ""
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(probe_json(report, TOKEN_ENV))
    out = env.get("GITHUB_OUTPUT", "")
    if out:
        _write_outputs(out, {"probe-report": path})
    step_summary = env.get("GITHUB_STEP_SUMMARY", "")
    if step_summary and summary != "none":
        with open(step_summary, "a", encoding="utf-8") as f:
            text = probe_markdown(report, TOKEN_ENV)
            if summary == "brief":
                text = text.rstrip("\n").rsplit("\n", 1)[-1] + "\n"
            f.write(text)
    return 0 if report.ok else EXIT_BY_FAULT[Fault.GITHUB_REFUSED]


def run(env: Mapping[str, str]) -> int:
    """One Action step; returns the exit status (0 success, else :data:`EXIT_BY_FAULT`;
    for ``command: run``, :func:`run_exit_status`: the work's when it ran)."""
    mask([env.get(TOKEN_ENV, ""), env.get("GITHUB_TOKEN", "")])
    from ghattempt.render import install_notes, scrub

    install_notes(TOKEN_ENV)
    try:
        check_files(env)
        if env.get("GHATTEMPT_COMMAND", "").strip() == "probe":
            return probe_step(env)
        step = action_inputs(env)
    except ActionError as exc:
        annotate_error(scrub(str(exc), TOKEN_ENV))
        return EXIT_BY_FAULT[exc.fault]
    from ghattempt.commands import Status, memo_path, recall, remember

    memo = memo_path(env)  # where earlier steps of this job found the journal
    step = replace(step, connection=replace(
        step.connection, known=recall(memo, step.repository, step.pull_request,
                                      step.base_ref)))
    capture: Capture | JournalInvalid | None = None
    planned: WriteOutcome | None = None
    config: LoadedConfig | None = None
    try:
        config = _prepare(step)
        if step.command == "run":
            return _run_phase(env, step, config, memo)
        label = f"plan {step.command}" if step.planning else step.command
        with _Group(f"ghattempt {label}"), _debugging(env):
            if isinstance(step.request, Status):
                from ghattempt.commands import execute

                reading = execute(step.request, config, step.connection)
                verdict, url, capture = reading.verdict, reading.url, reading.capture
                message = f"status {verdict.status}, recovery {verdict.recovery}"
            else:
                from ghattempt.commands import Run, execute, plan

                assert config is not None and not isinstance(step.request, Run)
                run_request = plan if step.planning else execute
                outcome = run_request(step.request, config, step.connection)
                verdict, url, message = outcome.verdict, outcome.url, outcome.message
                capture = outcome.capture
                if step.planning:
                    planned = outcome
    except Exception as exc:  # noqa: BLE001 -- every failure is one annotation
        if _config_error(exc):
            return EXIT_BY_FAULT[Fault.BAD_INPUT]
        code, text = _classify(exc)
        annotate_error(scrub(in_action_words(text), TOKEN_ENV))
        _outputs_after_failure(env, step, code, scrub(in_action_words(text), TOKEN_ENV))
        return code
    # status: the summary shows status and recovery itself (never "status: status x")
    told = "" if isinstance(step.request, Status) else scrub(message, TOKEN_ENV)
    try:
        _publish(env, step, verdict, url, capture, config, told, planned)
    except StepFileError as exc:
        remember(memo, step.repository, verdict)
        return _unreported(step, exc, url)
    _warn_ignored(verdict)
    if planned is not None:
        from ghattempt.render import plan_lines

        print(scrub(f"ghattempt plan {step.command}: a real run would be allowed, nothing "
                    f"was written; journal {url or '-'}", TOKEN_ENV))
        for line in plan_lines(planned):
            print("  " + scrub(line, TOKEN_ENV))
        return 0
    remember(memo, step.repository, verdict)
    print(scrub(f"ghattempt {step.command}: {message}; journal {url or '-'}", TOKEN_ENV))
    if verdict.status == "invalid":
        annotate_error(scrub(f"journal invalid, failing closed: {verdict.reason}: "
                             f"{verdict.detail}", TOKEN_ENV))
        return verdict.exit_code or 3
    return 0


def run_outputs(outcome: RunOutcome, timeline: str | None = None) -> dict[str, str]:
    """The step outputs of ``command: run``: the journal's after the step (empty when it
    has none yet), then the run's own (``ghattempt.render.run_outputs``, as the command
    line gives them): ``outcome``, ``exit-code`` (empty unless the work ran),
    ``materials-json``, and ``attempt`` (the attempt decided on), ``next-phase``,
    ``missing-phases-json`` and, for ``refused``/``busy``, ``recovery``."""
    from ghattempt.render import run_outputs as of_run

    verdict = outcome.verdict
    values = ({name: "" for name in OUTPUTS} | {"missing-phases-json": "[]", "ignored": "0"}
              if verdict is None else outputs_of(verdict, outcome.url or None, timeline))
    ran = of_run(outcome)
    values.update({name: ran[name] for name in ("outcome", "exit-code", "materials-json",
                                                "next-phase", "missing-phases-json")})
    for name in ("attempt", "recovery"):
        values[name] = ran[name] or values[name]
    return values


def run_exit_status(outcome: RunOutcome) -> int:
    """The exit status of a ``command: run`` step: the work's when it ran; else 0, or
    :data:`EXIT_BY_FAULT` of the outcome's kind of fault (refused 1, busy 4; the work
    exited 0 without the files its materials name: 2)."""
    fault = outcome.fault
    if fault is not None:
        return EXIT_BY_FAULT[fault]
    if outcome.exit_code is not None:
        return int(outcome.exit_code)
    return 0


def _run_phase(env: Mapping[str, str], step: ActionStep, config: LoadedConfig | None,
               memo: Path | None) -> int:
    """``command: run``: execute the request (the work's output passes straight through,
    no group around it), then the outputs, the job summary, the result line and the exit
    status (:func:`run_exit_status`)."""
    from ghattempt.commands import Run, execute, remember
    from ghattempt.render import markdown_summary, scrub

    request = step.request
    assert config is not None and isinstance(request, Run)
    try:
        with _debugging(env):
            outcome = execute(request, config, step.connection)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    verdict = outcome.verdict
    message = scrub(outcome.message, TOKEN_ENV)
    unreported: StepFileError | None = None
    out = env.get("GITHUB_OUTPUT", "")
    summary = env.get("GITHUB_STEP_SUMMARY", "")
    try:
        if out:
            try:
                _write_outputs(out, run_outputs(outcome))
            except OSError as exc:
                raise StepFileError("GITHUB_OUTPUT", out, exc) from None
        if summary and verdict is not None:
            text = markdown_summary(verdict, outcome.url or None, mode=step.summary,
                                    command=f"run {request.phase}",
                                    message=f"{outcome.outcome}: {message}",
                                    server_url=step.connection.server_url)
            if text:
                try:
                    with open(summary, "a", encoding="utf-8") as f:
                        f.write(scrub_lines(text, scrub))
                except OSError as exc:
                    raise StepFileError("GITHUB_STEP_SUMMARY", summary, exc) from None
    except StepFileError as exc:
        unreported = exc
    if verdict is not None:
        _warn_ignored(verdict)
        remember(memo, step.repository, verdict)
    for line in outcome.commands:
        print("  " + scrub(line, TOKEN_ENV))
    code = run_exit_status(outcome)
    phase = request.phase
    print(scrub(f"ghattempt run {phase}: {outcome.outcome} ({outcome.row}): {message}; "
                f"journal {outcome.url or '-'}", TOKEN_ENV))
    if outcome.fault is not None:
        annotate_error(scrub(in_action_words(f"{phase} {outcome.outcome}: {message}"),
                             TOKEN_ENV))
    elif code != 0:
        annotate_error(scrub(f"the work of {phase} exited {code}: {message}", TOKEN_ENV))
    if unreported is not None:
        # the records landed; the step's own status stands when it already says failure
        lost = _unreported(step, unreported, outcome.url or None)
        return code if code != 0 else lost
    return code


def main() -> int:
    """``python -m ghattempt.action``."""
    return run(os.environ)


if __name__ == "__main__":
    sys.exit(main())
