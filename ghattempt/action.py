"""The Action's entry: ``python -m ghattempt.action`` (run by ``action.yml``).

Inputs arrive as environment variables (composite actions get no ``INPUT_*``; action.yml
passes each input through ``env:``), the runner's own variables give the defaults, and
the command runs through the same functions as the ``ghattempt`` CLI. docs/action.md is
the reference.

==========================  ========================================================
``GHATTEMPT_COMMAND``       admit, record, status, successor, expire, rollback
``GHATTEMPT_TOKEN``         the token (masked before anything is printed)
``GHATTEMPT_REPOSITORY``    owner/name (default ``GITHUB_REPOSITORY``)
``GHATTEMPT_PULL_REQUEST``  number (default: the triggering event's pull request)
``GHATTEMPT_BASE_REF``      base branch (default: the event's pull request base)
``GHATTEMPT_PHASE``         record: a plan phase, ``rollback`` or ``attempt``
``GHATTEMPT_STATUS``        record/rollback: the event status
``GHATTEMPT_REASON``        why (required for waiting failed cancelled superseded ...)
``GHATTEMPT_KEY``           event idempotency key (default: run, attempt, job, phase,
                            status)
``GHATTEMPT_MATERIALS``     record: JSON array of materials
``GHATTEMPT_CHANNEL``       release channel (default: the config's)
``GHATTEMPT_CONFIG``        config path relative to ``GITHUB_WORKSPACE``
``GHATTEMPT_REQUEST_KEY``   request key (default: rendered from the config)
==========================  ========================================================

Outputs (``$GITHUB_OUTPUT``): ``status``, ``recovery``, ``attempt``, ``generation``,
``missing-phases`` (space-separated), ``journal-url``. The job summary
(``$GITHUB_STEP_SUMMARY``) holds a Markdown table of the verdict, a Mermaid diagram of
the current attempt's phases and the journal's records. An invalid journal fails the
step with an ``::error::`` annotation (fail closed); so does any other error, with the
CLI's exit status (docs/cli.md).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ghattempt.core import Verdict

__all__ = ["COMMANDS", "OUTPUTS", "action_inputs", "default_event_key", "main"]

COMMANDS = ("admit", "record", "status", "successor", "expire", "rollback")
OUTPUTS = ("status", "recovery", "attempt", "generation", "missing-phases", "journal-url")
TOKEN_ENV = "GHATTEMPT_TOKEN"  # noqa: S105 -- the variable's name, not a token


class ActionError(Exception):
    """An input problem: one ``::error::`` line, exit 2."""


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


def annotate_error(message: str) -> None:
    """An ``::error::`` annotation (one line; secrets already scrubbed by the caller)."""
    sys.stdout.write(f"::error title={_escape_property('ghattempt')}::"
                     f"{_escape_data(message)}\n")
    sys.stdout.flush()


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


def action_inputs(env: Mapping[str, str]) -> argparse.Namespace:
    """The CLI's options for one Action step, from the step's environment.

    Raises:
        ActionError: a missing or malformed input.
    """
    command = env.get("GHATTEMPT_COMMAND", "").strip()
    if command not in COMMANDS:
        raise ActionError(f"input 'command' must be one of {', '.join(COMMANDS)}, "
                          f"got {command!r}")
    event = _event(env)
    found = event.get("pull_request")
    pr: dict[str, Any] = found if isinstance(found, dict) else {}
    pr_number = env.get("GHATTEMPT_PULL_REQUEST", "") or str(pr.get("number") or "")
    pull_request = _count(pr_number)
    if pull_request is None and pr_number:
        raise ActionError(f"input 'pull-request' must be a number >= 1, got {pr_number[:40]!r}")
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
    key = env.get("GHATTEMPT_KEY", "").strip()
    if command in ("record", "rollback") and not key:
        key = default_event_key(env, "rollback" if command == "rollback" else phase, status)
    materials = env.get("GHATTEMPT_MATERIALS", "").strip() or None
    workspace = env.get("GITHUB_WORKSPACE", "") or os.getcwd()
    config = env.get("GHATTEMPT_CONFIG", "") or ".github/ghattempt.toml"
    return argparse.Namespace(
        command=command,
        repository=env.get("GHATTEMPT_REPOSITORY", "") or env.get("GITHUB_REPOSITORY", ""),
        api_url=env.get("GITHUB_API_URL", "") or "https://api.github.com/",
        server_url=env.get("GITHUB_SERVER_URL", "") or None,
        token_env=TOKEN_ENV,
        timeout=30.0,
        discussion=None,
        pull_request=pull_request,
        base_ref=base or None,
        config=config,
        config_root=workspace,
        writer=None, writer_id=None, repository_id=None,
        max_records=1000, max_attempts=100,
        request_key=env.get("GHATTEMPT_REQUEST_KEY", "").strip() or None,
        channel=env.get("GHATTEMPT_CHANNEL", "").strip() or None,
        phase=phase or None, status=status or None,
        reason=env.get("GHATTEMPT_REASON", "") or None,
        key=key or None, materials=materials, authorization=None, actor=None,
        json=False, capture=None,
        actions_writer=None if command == "status" else _actions_writer(env),
    )


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


def outputs_of(verdict: Verdict, url: str | None) -> dict[str, str]:
    """The step outputs for a verdict (empty strings for absent values)."""
    return {"status": verdict.status, "recovery": verdict.recovery,
            "attempt": verdict.attempt or "", "generation": verdict.generation or "",
            "missing-phases": " ".join(verdict.missing_phases), "journal-url": url or ""}


def _publish(env: Mapping[str, str], verdict: Verdict, url: str | None) -> None:
    from ghattempt.cli._render import markdown_summary

    out = env.get("GITHUB_OUTPUT", "")
    if out:
        _write_outputs(out, outputs_of(verdict, url))
    summary = env.get("GITHUB_STEP_SUMMARY", "")
    if summary:
        with open(summary, "a", encoding="utf-8") as f:
            f.write(markdown_summary(verdict, url))


def _outputs_after_failure(env: Mapping[str, str], args: argparse.Namespace, code: int,
                           exc: BaseException) -> None:
    """Outputs for ``if: failure()`` steps: the journal as it stands after a refusal or a
    GitHub error (read only, best effort), ``invalid``/``fail-closed`` for an invalid one.
    """
    out = env.get("GITHUB_OUTPUT", "")
    if not out:
        return
    if code == 3:
        _write_outputs(out, {"status": "invalid", "recovery": "fail-closed", "attempt": "",
                             "generation": "", "missing-phases": "", "journal-url": ""})
        return
    if code not in (1, 4) or args.command == "status":
        return
    from ghattempt.cli._reading import current_verdict

    try:
        verdict, url = current_verdict(args)
    except Exception:  # noqa: BLE001 -- best effort; the step already failed with its error
        return
    _publish(env, verdict, url)


def run(env: Mapping[str, str]) -> int:
    """One Action step; returns the exit status (0 success, else the CLI's codes)."""
    mask([env.get(TOKEN_ENV, ""), env.get("GITHUB_TOKEN", "")])
    from ghattempt.cli._errors import classify, install_notes, scrub

    install_notes(TOKEN_ENV)
    try:
        args = action_inputs(env)
    except ActionError as exc:
        annotate_error(scrub(str(exc), TOKEN_ENV))
        return 2
    from ghattempt.cli._known import memo_path, recall, remember

    memo = memo_path(env)  # where earlier steps of this job found the journal
    args.known = recall(memo, args.repository, args.pull_request, args.base_ref)
    try:
        if args.command == "status":
            from ghattempt.cli._reading import current_verdict

            verdict, url = current_verdict(args)
            message = f"status {verdict.status}, recovery {verdict.recovery}"
        else:
            from ghattempt.cli._writing import perform

            outcome = perform(args.command, args)
            verdict, url, message = outcome.verdict, outcome.url, outcome.message
    except Exception as exc:  # noqa: BLE001 -- every failure is one annotation
        known = classify(exc)
        code, text = known if known is not None else (
            70, f"internal error {type(exc).__name__}: {exc}")
        if code == 3:
            text = f"journal invalid, failing closed: {text}"
        annotate_error(scrub(text, TOKEN_ENV))
        _outputs_after_failure(env, args, code, exc)
        return code
    _publish(env, verdict, url)
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
