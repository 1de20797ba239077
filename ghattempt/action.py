"""The Action's entry: ``python -m ghattempt.action`` (run by ``action.yml``).

Inputs arrive as environment variables (composite actions get no ``INPUT_*``; action.yml
passes each input through ``env:``), the runner's own variables give the defaults, and
the command runs through the same functions as the ``ghattempt`` CLI. docs/action.md is
the reference.

==========================  ========================================================
``GHATTEMPT_COMMAND``       admit, record, status, successor, supersede, expire, rollback,
                            plan
``GHATTEMPT_PLAN_COMMAND``  plan: the command to check and describe (default admit)
``GHATTEMPT_TOKEN``         the token (masked before anything is printed)
``GHATTEMPT_REPOSITORY``    owner/name (default ``GITHUB_REPOSITORY``)
``GHATTEMPT_PULL_REQUEST``  number (default: the triggering event's pull request)
``GHATTEMPT_BASE_REF``      base branch (default: the event's pull request base)
``GHATTEMPT_PHASE``         record: a plan phase, ``rollback`` or ``attempt``
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
``GHATTEMPT_MATERIALS``     record: JSON array of materials
``GHATTEMPT_CHANNEL``       release channel (default: the config's)
``GHATTEMPT_CONFIG``        config path relative to ``GITHUB_WORKSPACE``
``GHATTEMPT_REQUEST_KEY``   request key (default: rendered from the config)
``GHATTEMPT_SUMMARY``       ``full``, ``brief`` or ``none`` (default: ``full`` for admit
                            and status, ``brief`` for the other commands)
==========================  ========================================================

Outputs (``$GITHUB_OUTPUT``): ``status``, ``recovery``, ``attempt``, ``generation``,
``missing-phases`` (space-separated), ``missing-phases-json`` (a JSON array),
``next-phase``, ``ignored`` (a count), ``journal-url``, ``timeline`` (the path of the
journal's timeline page, in ``RUNNER_TEMP``) and, for ``plan``, ``plan-json`` (what the
command would write). The job summary
(``$GITHUB_STEP_SUMMARY``) is what ``summary`` asks for. The step's own detail (notes,
``::debug::`` lines per GitHub request when ``RUNNER_DEBUG`` or ``ACTIONS_STEP_DEBUG``
is set) is in one ``::group::``; a reconciled lost answer and a wait of more than 2 s
are ``::notice::`` lines; ignored records give a ``::warning::``; every failure
is one ``::error::`` annotation (with ``file=``/``line=`` when the configuration file
is at fault), with the CLI's exit status (docs/cli.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ghattempt.errors import Fault, GhattemptError
from ghattempt.github import DEFAULT_API_URL, DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from ghattempt.core import Verdict

__all__ = ["COMMANDS", "OUTPUTS", "SUMMARY_MODES", "action_inputs", "default_event_key",
           "in_action_words", "outputs_of"]

COMMANDS = ("admit", "record", "status", "successor", "supersede", "expire", "rollback",
            "plan")
PLANNABLE = ("admit", "record", "successor", "supersede", "expire", "rollback")
"""What ``command: plan`` can plan (input ``plan-command``): every writing command."""
OUTPUTS = ("status", "recovery", "attempt", "generation", "missing-phases",
           "missing-phases-json", "next-phase", "ignored", "journal-url", "timeline",
           "plan-json")
SUMMARY_MODES = ("full", "brief", "none")
TOKEN_ENV = "GHATTEMPT_TOKEN"  # noqa: S105 -- the variable's name, not a token
PULL_REQUEST_MAX = 2**31 - 1
"""GitHub's GraphQL ``Int`` is 32-bit: no pull request number is larger."""

# The CLI's options as the Action's inputs (and runner variables) name them: a message
# from the layers below speaks of options; the Action's user wrote inputs.
_INPUT_OF = {
    "--pull-request": "input 'pull-request'", "--base-ref": "input 'base-ref'",
    "--phase": "input 'phase'", "--status": "input 'status'", "--reason": "input 'reason'",
    "--start": "input 'start'", "--then-start": "input 'then-start'",
    "--key": "input 'key'", "--materials": "input 'materials'",
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
    """``message`` with the CLI's option names replaced by the Action's input names."""
    return _OPTION.sub(lambda m: _INPUT_OF.get(m.group(0), m.group(0)), message)


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
                from ghattempt.cli.shared import scrub

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
    if head and command not in ("record", "rollback"):
        raise ActionError("input 'head' is for commands 'record' and 'rollback' only")
    if not head:
        if command not in ("record", "rollback") or (phase, status) == ("attempt", "superseded") \
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
    status (a re-run of the same step in the same run attempt reuses it). Characters
    outside the key alphabet become ``-``; at most 128 characters (spec section 3 *key*).
    """
    parts = [env.get("GITHUB_RUN_ID", "0"), env.get("GITHUB_RUN_ATTEMPT", "1"),
             env.get("GITHUB_JOB", "job"), phase or "attempt", status]
    from ghattempt.core import key_from

    return key_from("gha:" + ":".join(parts))


def _notice(line: str) -> None:
    """The notice hook of every command (``ghattempt.cli._context.notice_hook``): a
    reconciled lost answer, or a wait of more than 2 s (what for, how long) before it
    starts, as one ``::notice::`` line."""
    from ghattempt.cli.shared import scrub

    command("notice", scrub(in_action_words(line), TOKEN_ENV), title="ghattempt")


def action_inputs(env: Mapping[str, str]) -> argparse.Namespace:
    """The CLI's options for one Action step, from the step's environment.

    Checks everything that needs no request: the command, the pull request number (1 to
    2**31-1, GraphQL's ``Int``), the keys (journal-v1 *key*), the head commit (*oid*), the
    summary mode, and that no identifying input holds a token (``ghattempt.cli._secrets``).

    Raises:
        ActionError: a missing or malformed input.
    """
    from ghattempt.core import is_digest, is_key

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
    if command == "rollback" and status not in ("started", "succeeded", "failed"):
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
    if attempt and not is_digest(attempt):
        raise ActionError("input 'attempt' must be an attempt id: sha256: and 64 lowercase "
                          "hex digits (the output 'attempt' of the admit step)")
    summary = env.get("GHATTEMPT_SUMMARY", "").strip() or (
        "full" if command in ("admit", "status") or planning else "brief")
    if summary not in SUMMARY_MODES:
        raise ActionError(f"input 'summary' must be one of {', '.join(SUMMARY_MODES)}, "
                          f"got {summary[:40]!r}")
    key = env.get("GHATTEMPT_KEY", "").strip()
    request_key = env.get("GHATTEMPT_REQUEST_KEY", "").strip()
    for name, value in (("key", key), ("request-key", request_key)):
        if value and not is_key(value):
            raise ActionError(f"input '{name}' must be 1-128 characters of A-Z a-z 0-9 . _ "
                              ": / @ + = - (a journal key)")
    if command in ("record", "rollback") and not key:
        key = default_event_key(env, "rollback" if command == "rollback" else phase, status)
    materials = env.get("GHATTEMPT_MATERIALS", "").strip() or None
    workspace = env.get("GITHUB_WORKSPACE", "") or os.getcwd()
    config = env.get("GHATTEMPT_CONFIG", "") or ".github/ghattempt.toml"
    repository = env.get("GHATTEMPT_REPOSITORY", "") or env.get("GITHUB_REPOSITORY", "")
    args = argparse.Namespace(
        command=command,
        repository=repository,
        api_url=env.get("GITHUB_API_URL", "") or DEFAULT_API_URL,
        server_url=env.get("GITHUB_SERVER_URL", "") or None,
        token_env=TOKEN_ENV,
        timeout=DEFAULT_TIMEOUT,
        discussion=None,
        pull_request=pull_request,
        base_ref=base or None,
        config=config,
        config_root=workspace,
        writer=None, writer_id=None, repository_id=None,
        max_records=1000, max_attempts=100,
        request_key=request_key or None,
        channel=env.get("GHATTEMPT_CHANNEL", "").strip() or None,
        phase=phase or None, status=status or None, start=start or None,
        start_key=default_event_key(env, start, "started") if start else None,
        then_start=then_start or None,
        then_start_key=default_event_key(env, then_start, "started") if then_start else None,
        attempt=attempt or None,
        head=_head(env, pr, command, phase, status, pull_request, repository),
        reason=env.get("GHATTEMPT_REASON", "") or None,
        key=key or None, materials=materials, authorization=None, actor=None,
        json=False, capture=None, summary=summary, planning=planning,
        actions_writer=None if command == "status" else _actions_writer(env),
        notice=_notice,
    )
    from ghattempt.cli.shared import CliError, refuse_secrets

    try:
        refuse_secrets(args, {"key": "input 'key'", "request_key": "input 'request-key'",
                              "channel": "input 'channel'", "base_ref": "input 'base-ref'"})
    except CliError as exc:
        raise ActionError(exc.message) from None
    return args


def _actions_writer(env: Mapping[str, str]) -> dict[str, Any]:
    """The runner's writer identity of a writing command (``status`` writes nothing and
    needs none).

    Raises:
        ActionError: ``GITHUB_RUN_ID`` or ``GITHUB_RUN_ATTEMPT`` missing or malformed.
    """
    return {
        "run_id": _int(env, "GITHUB_RUN_ID", "the workflow run id"),
        "run_attempt": _int(env, "GITHUB_RUN_ATTEMPT", "the run attempt"),
        "job": env.get("GITHUB_JOB", "") or "job",
        "workflow": env.get("GITHUB_WORKFLOW", "") or "workflow",
    }


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
    from ghattempt.cli.shared import next_phase

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


def _timeline(env: Mapping[str, str], args: argparse.Namespace, verdict: Verdict,
              pages: Any) -> str | None:
    """Write the journal's timeline page to ``RUNNER_TEMP``; its path, or None (no
    journal yet, no ``RUNNER_TEMP``, or the page could not be written: a note says why)."""
    path = _timeline_path(env)
    if path is None or pages is None:
        return None
    from ghattempt.cli.shared import timeline_page, write_page

    try:
        page, _lanes = timeline_page(pages, verdict, args, getattr(args, "loaded_config", None))
        write_page(path, page)
    except OSError as exc:
        print(f"ghattempt: note: the timeline page could not be written: {exc.strerror}",
              file=sys.stderr)
        return None
    return path


def _publish(env: Mapping[str, str], args: argparse.Namespace, verdict: Verdict,
             url: str | None, pages: Any, message: str = "", planned: Any = None) -> None:
    from ghattempt.cli.shared import markdown_summary

    plan = ""
    if planned is None:
        timeline = _timeline(env, args, verdict, pages)
        text = markdown_summary(verdict, url, mode=args.summary, command=args.command,
                                message=message, server_url=args.server_url)
    else:  # a plan: nothing was written, so no timeline of it
        from ghattempt.cli.shared import plan_json

        timeline = None
        plan = json.dumps(plan_json(args.command, planned), ensure_ascii=True,
                          separators=(",", ":"))
        text = plan_summary(args.command, planned, url, args.summary)
    out = env.get("GITHUB_OUTPUT", "")
    if out:
        _write_outputs(out, outputs_of(verdict, url, timeline, plan))
    summary = env.get("GITHUB_STEP_SUMMARY", "")
    if summary and text:
        from ghattempt.cli.shared import scrub

        with open(summary, "a", encoding="utf-8") as f:
            f.write(scrub_lines(text, scrub))


def plan_summary(command: str, outcome: Any, url: str | None, mode: str) -> str:
    """The job summary of ``command: plan``: that a real run would be allowed, then
    (``full``) each write with its record as the journal would hold it."""
    from ghattempt.cli.shared import plan_lines

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
        from ghattempt.cli.shared import ignored_text

        command("warning", ignored_text(verdict) + ": they do not count; the journal's "
                "timeline and summary show which", title="ghattempt")


def _outputs_after_failure(env: Mapping[str, str], args: argparse.Namespace, code: int,
                           exc: BaseException) -> None:
    """Outputs for ``if: failure()`` steps: the journal as it stands after a refusal or a
    GitHub error (read only, best effort), ``invalid``/``fail-closed`` for an invalid one.
    """
    out = env.get("GITHUB_OUTPUT", "")
    if not out:
        return
    if code == 3:
        empty = {name: "" for name in OUTPUTS}
        _write_outputs(out, empty | {"status": "invalid", "recovery": "fail-closed",
                                     "missing-phases-json": "[]", "ignored": "0"})
        return
    if code not in (1, 4) or args.command == "status":
        return
    from ghattempt.cli.shared import current_reading

    try:
        reading = current_reading(args)
    except Exception:  # noqa: BLE001 -- best effort; the step already failed with its error
        return
    _publish(env, args, reading.verdict, reading.url, reading.pages)


def _config_error(exc: BaseException) -> bool:
    """Annotate a configuration error on the file and line it is about; True if it was."""
    from ghattempt.config import ConfigError

    if not isinstance(exc, ConfigError):
        return False
    from ghattempt.cli.shared import scrub

    annotate_error(scrub(in_action_words(str(exc)), TOKEN_ENV), file=exc.path,
                   line=exc.line, col=exc.column)
    return True


def _prepare(args: argparse.Namespace) -> None:
    """Everything that needs no request: the configuration (kept in
    ``args.loaded_config`` for the command), the channel and, for ``record``, that the
    phase is in its plan.

    Raises:
        ConfigError, CliError: exit 2.
    """
    from ghattempt.cli.shared import check_plan, load_settings

    # status reads without a file too; a file that is there is read as a writer reads it
    # (its repository-relative path names it in an annotation)
    present = os.path.lexists(os.path.join(args.config_root, args.config))
    required = args.command != "status" or present
    cfg = load_settings(args.config, required=required, root=args.config_root)
    args.loaded_config = cfg
    if cfg is not None and args.command != "status":
        check_plan(args, cfg)


def run(env: Mapping[str, str]) -> int:
    """One Action step; returns the exit status (0 success, else the CLI's codes)."""
    mask([env.get(TOKEN_ENV, ""), env.get("GITHUB_TOKEN", "")])
    from ghattempt.cli.shared import EXIT_BY_FAULT, classify, install_notes, scrub

    install_notes(TOKEN_ENV)
    try:
        check_files(env)
        args = action_inputs(env)
    except ActionError as exc:
        annotate_error(scrub(str(exc), TOKEN_ENV))
        return EXIT_BY_FAULT[exc.fault]
    from ghattempt.cli.shared import memo_path, recall, remember

    memo = memo_path(env)  # where earlier steps of this job found the journal
    args.known = recall(memo, args.repository, args.pull_request, args.base_ref)
    pages: Any = None
    planned: Any = None
    group = False
    try:
        _prepare(args)
        label = f"plan {args.command}" if args.planning else args.command
        sys.stdout.write(f"::group::ghattempt {label}\n")
        sys.stdout.flush()
        group = True
        debug = _Debug() if debug_enabled(env) else None
        try:
            if debug is not None:
                debug.__enter__()
            if args.command == "status":
                from ghattempt.cli.shared import current_reading

                reading = current_reading(args)
                verdict, url, pages = reading.verdict, reading.url, reading.pages
                message = f"status {verdict.status}, recovery {verdict.recovery}"
            else:
                from ghattempt.cli.shared import perform

                outcome = perform(args.command, args, planning=args.planning)
                verdict, url, message = outcome.verdict, outcome.url, outcome.message
                pages = outcome.pages
                if args.planning:
                    planned = outcome
        finally:
            if debug is not None:
                debug.__exit__()
            sys.stdout.flush()
            sys.stderr.flush()
            sys.stdout.write("::endgroup::\n")
            sys.stdout.flush()
            group = False
    except Exception as exc:  # noqa: BLE001 -- every failure is one annotation
        if group:
            sys.stdout.write("::endgroup::\n")
        if _config_error(exc):
            return EXIT_BY_FAULT[Fault.BAD_INPUT]
        known = classify(exc)
        code, text = known if known is not None else (
            70, f"internal error {type(exc).__name__}: {exc}")
        if isinstance(exc, GhattemptError) and exc.fault is Fault.JOURNAL_INVALID:
            text = f"journal invalid, failing closed: {text}"
        annotate_error(scrub(in_action_words(text), TOKEN_ENV))
        _outputs_after_failure(env, args, code, exc)
        return code
    _publish(env, args, verdict, url, pages, scrub(message, TOKEN_ENV), planned)
    _warn_ignored(verdict)
    if planned is not None:
        from ghattempt.cli.shared import plan_lines

        print(scrub(f"ghattempt plan {args.command}: a real run would be allowed, nothing "
                    f"was written; journal {url or '-'}", TOKEN_ENV))
        for line in plan_lines(planned):
            print("  " + scrub(line, TOKEN_ENV))
        return 0
    remember(memo, args.repository, verdict)
    print(scrub(f"ghattempt {args.command}: {message}; journal {url or '-'}", TOKEN_ENV))
    if verdict.status == "invalid":
        annotate_error(scrub(f"journal invalid, failing closed: {verdict.reason}: "
                             f"{verdict.detail}", TOKEN_ENV))
        return verdict.exit_code or 3
    return 0


def main() -> int:
    """``python -m ghattempt.action``."""
    return run(os.environ)


if __name__ == "__main__":
    sys.exit(main())
