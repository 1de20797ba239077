"""The ``ghattempt`` command line.

Shape::

    main(argv: list[str] | None = None) -> int     # the console script; returns the exit status
    build_parser() -> argparse.ArgumentParser

Commands (``ghattempt COMMAND --help`` for each; docs/cli.md has the reference):

=================  ==================================================================
``status``         capture a journal and show the current attempt (table, or ``--json``)
``show``           write the journal's timeline as one self-contained HTML page (``--html``)
``capture``        write the journal's JournalPage/RepliesPage responses (reader stdin)
``read``           the reader itself: same arguments, output and exit codes as the bundle
``admit``          open the journal if needed and admit an attempt (ADR-038 preflight)
``record``         append an event: phase, status, reason, key, materials
``successor``      admit the successor of a failed/cancelled/expired/rolled-back attempt
``supersede``      supersede the current attempt by one for the pull request's new generation
``expire``         expire a pending attempt whose ``expires_at`` has passed
``rollback``       record a rollback (started/succeeded/failed) of a succeeded attempt
``run``            a phase's work exactly once: admit, skip, settle, resume (docs/run.md)
``plan``           ``plan COMMAND ...``: check a writer command, say what it would write
``restore-lease``  a person restores a journal's deleted lease ref, after checking it
``verify-material`` check retrieved bytes against a material reference
``emulator serve`` the embedded GitHub over HTTP on loopback
``app serve``      the GitHub App webhook server
``app send``       sign and post a webhook delivery (``probot receive``), for trying the App
``config check``   check ``.github/ghattempt.toml``: each problem with file, line and fix
``config schema``  print the JSON Schema of ``.github/ghattempt.toml``
``demo``           a pull request's whole life against the emulator, checked end to end
=================  ==================================================================

Exit status (every command): 0 success (for ``status``/``read``: a valid journal, any
status); 1 refused (the journal forbids the write, or bytes do not match); 2 usage error,
bad input or configuration; 3 the journal is invalid (fail closed); 4 GitHub could not
be reached or refused the request (auth, not found, rate limit, outcome unknown);
70 internal error (a defect); 130 interrupted.

Cold start: this module imports only the standard library; each command imports what it
needs (githubkit, graphql-core, ...) when it runs.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

__all__ = ["EXIT_CODES", "build_parser", "main"]

EXIT_CODES = {
    0: "success (status/read: a valid journal, whatever its status)",
    1: "refused: the journal forbids this write, or the bytes do not match",
    2: "usage error, bad input or bad configuration",
    3: "the journal is invalid: fail closed",
    4: "try again later: GitHub unreachable or rate limited, another writer holds the "
       "journal, or a write's outcome is unknown (run the same command with the same --key)",
    5: "a person must act: GitHub refused (credentials, a missing permission, not found, a "
       "ruleset or branch protection, a locked journal); retrying alone does not help",
    70: "internal error (a defect; GHATTEMPT_DEBUG=1 prints the traceback)",
    130: "interrupted",
}

_EPILOG = "exit status:\n" + "\n".join(f"  {code:<4}{text}" for code, text in EXIT_CODES.items())

_ENV_NOTE = ("environment: GITHUB_TOKEN (token), GITHUB_API_URL (API base), "
             "GITHUB_REPOSITORY (owner/name), GITHUB_SERVER_URL (web base for material URLs)")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


GRAPHQL_INT_MAX = 2**31 - 1
"""GitHub's GraphQL ``Int`` is 32-bit: a larger pull request or discussion number names
nothing (GraphQL spec, "Int")."""


class _Parser(argparse.ArgumentParser):
    """argparse, with every usage error as one line and no secret in it.

    argparse prints the usage and ``PROG: error: MESSAGE`` (its message quotes the bad
    value, e.g. a token pasted into ``--discussion``); this prints
    ``ghattempt: error: MESSAGE (see PROG --help)`` with the message scrubbed, exit 2.
    """

    def error(self, message: str) -> NoReturn:
        from ghattempt.render import scrub

        token_env = None
        argv = sys.argv[1:]
        if "--token-env" in argv[:-1]:
            token_env = argv[argv.index("--token-env") + 1]
        clean = scrub(message, token_env)
        sys.stderr.write(f"ghattempt: error: {clean} (see {self.prog} --help)\n")
        sys.exit(2)


def _number(text: str) -> int:
    """A pull request or discussion number: ASCII digits, 1 to 2**31-1."""
    if not (text.isascii() and text.isdigit()) or len(text) > 10 \
            or not 1 <= int(text) <= GRAPHQL_INT_MAX:
        raise argparse.ArgumentTypeError(f"must be a number from 1 to {GRAPHQL_INT_MAX}")
    return int(text)


def _token_env(text: str) -> str:
    """``--token-env NAME``: the name of an environment variable, never a token (also what
    ``--token VALUE`` becomes: argparse completes it to ``--token-env``)."""
    from ghattempt.github import redact

    if redact(text) != text:
        raise argparse.ArgumentTypeError(
            "takes the name of the environment variable holding the token, and this value "
            "is shaped like a token: tokens are never taken on the command line (they "
            "would show in the process list and shell history); export it as GITHUB_TOKEN, "
            "and revoke it if it was a real one")
    return text


def _count(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 16 or int(text) < 1:
        raise argparse.ArgumentTypeError("must be a whole number >= 1")
    return int(text)


def _seconds(text: str) -> float:
    """A request timeout: a finite number of seconds > 0 (``0``, ``inf`` and ``nan`` are
    not timeouts)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value <= 0 or value > 3600:
        raise argparse.ArgumentTypeError("must be a number of seconds > 0 and at most 3600")
    return value


def _key(text: str) -> str:
    """A journal-v1 *key* (section 3): 1-128 characters of ``A-Z a-z 0-9 . _ : / @ + = -``."""
    from ghattempt.core import is_key

    if not is_key(text):
        raise argparse.ArgumentTypeError("must be 1-128 characters of A-Z a-z 0-9 . _ : / @ "
                                         "+ = -")
    return text


def _head(text: str) -> str:
    """A commit SHA: a journal-v1 *oid* (section 3), 40 lowercase hex digits (64 in a
    SHA-256 repository), the shape of a generation's ``source_commit``."""
    from ghattempt.core import is_oid

    if not is_oid(text):
        raise argparse.ArgumentTypeError("must be a commit SHA: 40 lowercase hex digits (64 "
                                         "in a SHA-256 repository)")
    return text


_HEAD_HELP = ("pull request head commit this step's work was done on: refused (exit 1, "
              "nothing written) when the current attempt is of another head, e.g. after a "
              "push superseded it (default: no check)")


def _attempt_id(text: str) -> str:
    """An attempt id: a journal-v1 *digest* (section 3), ``sha256:`` and 64 lowercase hex
    digits, as ``admit`` prints it (the Action's output ``attempt``)."""
    from ghattempt.core import is_digest

    if not is_digest(text):
        raise argparse.ArgumentTypeError("must be an attempt id: sha256: and 64 lowercase hex "
                                         "digits, as admit prints it")
    return text


_ATTEMPT_HELP = ("id of the attempt this step's work was for (admit prints it): refused "
                 "(exit 1, nothing written) when the request key's current attempt is "
                 "another, e.g. its successor after it failed or was superseded (default: "
                 "no check)")


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name, "")
    return value if value else default


def _add_connection(p: argparse.ArgumentParser) -> None:
    from ghattempt.github import DEFAULT_API_URL, DEFAULT_TIMEOUT  # stdlib only: no httpx

    g = p.add_argument_group("GitHub")
    g.add_argument("--repository", metavar="OWNER/NAME", default=_env("GITHUB_REPOSITORY"),
                   help="repository of the journal (env GITHUB_REPOSITORY)")
    g.add_argument("--api-url", metavar="URL",
                   default=_env("GITHUB_API_URL", DEFAULT_API_URL),
                   help="REST API base: https://api.github.com/ or https://HOST/api/v3/ "
                        "(env GITHUB_API_URL)")
    g.add_argument("--token-env", metavar="NAME", default="GITHUB_TOKEN", type=_token_env,
                   help="environment variable holding the token (default GITHUB_TOKEN); "
                        "tokens are never taken on the command line")
    g.add_argument("--timeout", metavar="SECONDS", type=_seconds, default=DEFAULT_TIMEOUT,
                   help=f"client timeout of one request (default {DEFAULT_TIMEOUT:g}; GitHub "
                        "ends requests at 10 s)")


def _add_journal(p: argparse.ArgumentParser, *, reader: bool = True,
                 writes: bool = False) -> None:
    g = p.add_argument_group("journal")
    if writes:
        # A writer finds (or opens) the journal of the pull request's intent itself.
        g.add_argument("--pull-request", metavar="N", type=_number, required=True,
                       help="pull request whose journal to write (required)")
        p.set_defaults(discussion=None)
    else:
        g.add_argument("--discussion", metavar="N", type=_number,
                       help="number of the journal Discussion")
        g.add_argument("--pull-request", metavar="N", type=_number,
                       help="pull request whose journal to use (with --base-ref; looked up "
                            "instead of --discussion)")
    g.add_argument("--base-ref", metavar="BRANCH",
                   help="base branch of the pull request (default: the pull request's)")
    g.add_argument("--config", metavar="PATH", default=".github/ghattempt.toml",
                   help="consumer configuration, relative to the checkout's root (default "
                        ".github/ghattempt.toml; its path, blob and digest are part of the "
                        "generation)" if writes else
                        "consumer configuration (default .github/ghattempt.toml); its "
                        "[writer] gives --writer/--writer-id when absent")
    if reader:
        r = p.add_argument_group("reading")
        r.add_argument("--writer", metavar="LOGIN",
                       help="login whose unedited records count (default: config, else "
                            "github-actions)")
        r.add_argument("--repository-id", metavar="ID",
                       help="repository node id the capture must be of (default: the id "
                            "the capture reports)")
        r.add_argument("--writer-id", metavar="N", type=_count,
                       help="databaseId the writer must also have (default: config)")
        r.add_argument("--request-key", metavar="KEY", type=_key,
                       help="request key whose chain is current (default: with a config, "
                            "attempt.request_key rendered for --channel)")
        r.add_argument("--channel", metavar="NAME",
                       help="release channel whose request key to read (default: "
                            "attempt.default_channel of the config)")
        r.add_argument("--server-url", metavar="URL", default=_env("GITHUB_SERVER_URL"),
                       help="web base material URLs must start with (env GITHUB_SERVER_URL; "
                            "default https://github.com)")
        r.add_argument("--max-records", metavar="N", type=_count, default=1000,
                       help="most events per attempt (default 1000)")
        r.add_argument("--max-attempts", metavar="N", type=_count, default=100,
                       help="most attempts per journal (default 100)")


def _add_writer(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("writer identity (recorded in the record's writer field)")
    g.add_argument("--actor", metavar="NAME", default=_env("GITHUB_ACTOR"),
                   help="person running the CLI: writer {kind: cli, actor} "
                        "(env GITHUB_ACTOR; default: the local user name)")
    g.add_argument("--channel", metavar="NAME",
                   help="release channel (default: attempt.default_channel of the config)")
    g.add_argument("--server-url", metavar="URL", default=_env("GITHUB_SERVER_URL"),
                   help="web base of the journal URL and of material URLs (env "
                        "GITHUB_SERVER_URL; default https://github.com)")


_REASON_HELP = {
    "supersede": "why (default: 'new generation: head <12 hex>')",
    "expire": "why (default: 'expired before it was confirmed')",
    "rollback": "why (required with --status failed)",
}


def _sub(subs: Any, name: str, help_: str,
         description: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subs.add_parser(
        name, help=help_, description=textwrap.fill(description, 79), epilog=_EPILOG,
        formatter_class=_Formatter)
    return parser


def _add_writers(subs: Any, *, planning: bool = False) -> None:
    """The writer commands' parsers (also under ``plan``, with the same options)."""
    p = _sub(subs, "admit", "admit an attempt (opening the journal if needed)",
             "Open the intent's journal if there is none, then admit an attempt for the "
             "pull request's current generation. Refused while an attempt at the request "
             "key blocks (ADR-038); a presented authorization id is compared with every "
             "past attempt.")
    _add_connection(p)
    _add_journal(p, reader=False, writes=True)
    _add_writer(p)
    p.add_argument("--request-key", metavar="KEY", type=_key,
                       help="default: rendered from the config")
    p.add_argument("--authorization", metavar="ID", help="authorization id presented")
    p.add_argument("--start", metavar="PHASE",
                   help="also record PHASE (of the plan) started, in the same hold of the "
                        "writer scope, with the key 'record --phase PHASE --status started' "
                        "would use")
    p.add_argument("--json", action="store_true", help=_json_help(planning))

    p = _sub(subs, "record", "append an event to the current attempt",
             "Append one event (phase, status, reason, materials) to the current attempt "
             "of the request key. A re-run with the same --key is a no-op once it landed; "
             "an unknown outcome is read back and reconciled, never re-sent under a new key.")
    _add_connection(p)
    _add_journal(p, reader=False, writes=True)
    _add_writer(p)
    p.add_argument("--request-key", metavar="KEY", type=_key,
                       help="default: rendered from the config")
    p.add_argument("--phase", required=True, metavar="PHASE",
                   help="a plan phase, 'rollback', or 'attempt' for an attempt-level event")
    p.add_argument("--status", required=True, metavar="STATUS",
                   help="started waiting succeeded failed cancelled superseded unknown "
                        "(attempt-level: expired cancelled superseded)")
    p.add_argument("--reason", metavar="TEXT",
                   help="required for waiting failed cancelled superseded expired unknown")
    p.add_argument("--key", metavar="KEY", type=_key,
                   help="idempotency key of the event (default: derived from the writer, "
                        "phase and status, so a re-run reuses it)")
    p.add_argument("--materials", metavar="JSON",
                   help='JSON array of {"id","kind","bytes","digest","url"} (attempt and '
                        "generation are filled in), or @FILE")
    p.add_argument("--then-start", metavar="PHASE",
                   help="with --status succeeded: also record PHASE, the next phase of the "
                        "plan, started, in the same hold of the writer scope, with the key "
                        "'record --phase PHASE --status started' would use")
    p.add_argument("--attempt", metavar="ID", type=_attempt_id, help=_ATTEMPT_HELP)
    p.add_argument("--head", metavar="SHA", type=_head, help=_HEAD_HELP)
    p.add_argument("--json", action="store_true", help=_json_help(planning))

    for name, help_, desc in (
        ("successor", "admit the successor of a finished attempt",
         "Admit a fresh attempt succeeding the current one (failed, cancelled, expired, "
         "rolled back or superseded); it inherits no success."),
        ("supersede", "supersede the current attempt by one for the new generation",
         "After a push (or a moved base): record the current attempt 'superseded' and admit "
         "an attempt for the pull request's current generation as its successor, under one "
         "hold of the writer lease."),
        ("expire", "expire a pending attempt past its expires_at",
         "Record the attempt-level 'expired' event of a pending attempt whose expires_at "
         "has passed (GitHub's clock)."),
        ("rollback", "record a rollback of a succeeded attempt",
         "Record rollback started / succeeded / failed on the current attempt."),
    ):
        p = _sub(subs, name, help_, desc)
        _add_connection(p)
        _add_journal(p, reader=False, writes=True)
        _add_writer(p)
        p.add_argument("--request-key", metavar="KEY", type=_key,
                       help="default: rendered from the config")
        if name in _REASON_HELP:
            p.add_argument("--reason", metavar="TEXT", help=_REASON_HELP[name])
        if name == "rollback":
            p.add_argument("--status", required=True, choices=["started", "succeeded", "failed"])
            p.add_argument("--key", metavar="KEY", type=_key,
                           help="idempotency key of the event")
            p.add_argument("--attempt", metavar="ID", type=_attempt_id, help=_ATTEMPT_HELP)
            p.add_argument("--head", metavar="SHA", type=_head, help=_HEAD_HELP)
        if name == "successor":
            p.add_argument("--authorization", metavar="ID", help="authorization id presented")
        p.add_argument("--json", action="store_true", help=_json_help(planning))


def _wait(text: str) -> float:
    """``run --wait``: seconds from 0 to 21600 (GitHub's job limit)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or not 0 <= value <= 21600:
        raise argparse.ArgumentTypeError("must be a number of seconds from 0 to 21600")
    return value


def _add_run(subs: Any) -> None:
    p = _sub(subs, "run", "run a phase's work exactly once (admit, skip, settle, resume)",
             "Do phase PHASE's work for the pull request's current generation, at most once: "
             "admit an attempt when there is none, skip a phase that succeeded, wait beside "
             "(or refuse next to) a runner that may still be working, settle a phase whose "
             "runner ended without a result with --verify, open the successor of a failed "
             "attempt and re-qualify retained --materials there byte for byte, otherwise "
             "record started, run COMMAND and record how it ended. Every decision is taken "
             "in the writer scope on the read it builds on (docs/run.md). Exit status: the "
             "work's when it ran, but 2 when it exited 0 and a --materials glob matched "
             "no file (the phase is recorded unknown); 0 skipped, settled or requalified; "
             "1 refused; 4 busy.")
    _add_connection(p)
    _add_journal(p, reader=False, writes=True)
    _add_writer(p)
    p.add_argument("--request-key", metavar="KEY", type=_key,
                   help="default: rendered from the config")
    p.add_argument("--phase", required=True, metavar="PHASE",
                   help="the phase whose work this is (of the channel's plan)")
    p.add_argument("--verify", metavar="CMD",
                   help="how to tell whether an interrupted phase's effect is in place: a "
                        "script run as a run: step runs it (exit 0 in place, 1 absent, "
                        "anything else cannot tell), or github-release:TAG (the release read "
                        "back and compared with --materials)")
    p.add_argument("--materials", metavar="GLOB", nargs="+", action="append",
                   help="files the phase makes, relative to the workspace: recorded with "
                        "their bytes and sha256 when the work exits 0; in a successor the "
                        "phase is re-qualified when they are there byte for byte")
    p.add_argument("--wait", metavar="SECONDS", type=_wait, default=0.0,
                   help="wait up to SECONDS (re-reading with backoff) beside a runner that "
                        "may still be working, then answer busy (default 0)")
    p.add_argument("--takeover", action="store_true",
                   help="take a phase started by a command-line writer (or a runner whose "
                        "liveness cannot be told) as ended: records unknown, then --verify")
    p.add_argument("--working-directory", metavar="DIR",
                   help="where the work and verify run, relative to the workspace")
    p.add_argument("--artifact-url", metavar="URL",
                   help="permanent URL of the materials' bytes (the run's artifact); "
                        "default: the run, else the journal")
    p.add_argument("--head", metavar="SHA", type=_head, help=_HEAD_HELP)
    p.add_argument("--json", action="store_true",
                   help="print the step's outputs (outcome, exit-code, attempt, next-phase, "
                        "missing-phases-json, materials-json) as one JSON object")
    p.add_argument("work", metavar="-- COMMAND [ARG ...]", nargs=argparse.REMAINDER,
                   help="the work, run as an argv after --")


def _json_help(planning: bool) -> str:
    return ("print the plan as JSON (each write's record, the verdict after them)"
            if planning else "print the resulting verdict as JSON")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command (argparse only; nothing else imported)."""
    parser = _Parser(
        prog="ghattempt", formatter_class=_Formatter,
        description=textwrap.fill("Record and read business attempts at a release pipeline, "
                                  "kept as a hash-chained journal in GitHub Discussions.", 79)
        + "\n\n" + textwrap.fill(_ENV_NOTE, 79),
        epilog=_EPILOG)
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = _sub(subs, "status", "show the current attempt of a journal",
             "Capture the journal and read it with the reader's own rules. Prints a table "
             "of the verdict and of every attempt's events; --json prints the reader's "
             "verdict object instead (exactly what `read` would print).")
    _add_connection(p)
    _add_journal(p)
    p.add_argument("--json", action="store_true", help="print the reader's verdict as JSON")
    p.add_argument("--capture", metavar="FILE",
                   help="read this capture file instead of GitHub ('-' for stdin)")

    p = _sub(subs, "show", "write a journal's timeline as one HTML page",
             "Capture the journal (or read --capture) and write its timeline: every attempt "
             "on a time axis, each phase a bar from its first record to its result, "
             "coloured by status, successor and supersede links, the generation that "
             "changed, ignored and tampered records marked, links to the runs. One "
             "self-contained file: no script, no network, no external font. Exit status "
             "as `status` (3 for an invalid journal, whose page is still written).")
    _add_connection(p)
    _add_journal(p)
    p.add_argument("--html", metavar="FILE", required=True,
                   help="file to write the page to ('-' for stdout)")
    p.add_argument("--capture", metavar="FILE",
                   help="read this capture file instead of GitHub ('-' for stdin)")

    p = _sub(subs, "config", "check the consumer configuration",
             "Check .github/ghattempt.toml, or print its JSON Schema.")
    csubs = p.add_subparsers(dest="config_command", metavar="SUBCOMMAND", required=True)
    c = _sub(csubs, "check", "check a configuration file; print each problem",
             "Parse FILE (default .github/ghattempt.toml) exactly as every writer does and "
             "print each problem as FILE:LINE:COLUMN: KEY: problem; fix (one line each). "
             "Exit 0 when the file is good, 2 when not.")
    c.add_argument("file", metavar="FILE", nargs="?", default=".github/ghattempt.toml",
                   help="the file (default .github/ghattempt.toml)")
    c = _sub(csubs, "schema", "print the JSON Schema of the configuration",
             "Print the JSON Schema (draft 2020-12) of .github/ghattempt.toml, generated from "
             "the key table of ghattempt.config; editors read it through a `#:schema` "
             "comment (docs/configuration.md).")

    p = _sub(subs, "capture", "write a journal's pages for the reader",
             "Write every JournalPage and RepliesPage response of the journal (spec "
             "journal-v1 section 5) as one JSON array: the reader's stdin.")
    _add_connection(p)
    _add_journal(p, reader=False)
    p.add_argument("--output", "-o", metavar="FILE", default="-",
                   help="file to write (default '-': stdout)")

    subs.add_parser("read", help="the reader (same arguments, output and exit codes as "
                    "readers/business-attempt.pyz); `ghattempt read --help`", add_help=False)

    _add_writers(subs)
    _add_run(subs)

    p = _sub(subs, "plan", "check a writer command and say what it would write",
             "Run every check COMMAND makes (the configuration, who the token is and its "
             "access, the discussion category, the journal, whether the repository's "
             "rulesets let the token create and move the lease ref, the journal's rules "
             "for each record) and print what it would write, writing nothing. Exit 0 "
             "when a real run would be allowed; otherwise the exit status and error the "
             "real run would end with.")
    psubs = p.add_subparsers(dest="plan_command", metavar="COMMAND", required=True)
    _add_writers(psubs, planning=True)

    p = _sub(subs, "probe", "check on your repository what ghattempt relies on GitHub for",
             "Run once with the token and repository you will use: open a throwaway "
             "discussion in a test category (or comment on --discussion N), write a comment "
             "and two replies, edit one, create a ref under refs/heads/ghattempt/lease/, "
             "move it with createCommitOnBranch and try a stale head, read the rules on the "
             "lease prefix, the Actions API, the rate-limit headers and budgets, and remove "
             "what was created. Prints one table: behaviour, expected (with its source), "
             "observed, verdict. Exit 0 when every relied-on behaviour holds; otherwise the "
             "status of a GitHub refusal (a person must act; each failing row says what).")
    _add_connection(p)
    g = p.add_argument_group("probe")
    g.add_argument("--category", metavar="SLUG",
                   help="discussion category to open the throwaway discussion in (default: "
                        "journal.category of --config; use a test category)")
    g.add_argument("--discussion", metavar="N", type=_number,
                   help="comment on this throwaway discussion instead (its comments are "
                        "deleted at the end)")
    g.add_argument("--config", metavar="PATH", default=".github/ghattempt.toml",
                   help="consumer configuration: its journal.category and [writer] "
                        "(default .github/ghattempt.toml, if there)")
    g.add_argument("--writer", metavar="LOGIN",
                   help="the writer the token must be (default: config, else "
                        "github-actions)")
    g.add_argument("--writer-id", metavar="N", type=_count,
                   help="the databaseId the writer must have (default: config)")
    g.add_argument("--run-id", metavar="N", type=_count, default=_env("GITHUB_RUN_ID"),
                   help="workflow run to read through the Actions API (env GITHUB_RUN_ID; "
                        "default: run 1, whose 404 shows the access too)")
    g.add_argument("--json", metavar="FILE",
                   help="also write the observations as JSON to FILE ('-': stdout, "
                        "instead of the table), to attach to an issue")
    p = _sub(subs, "restore-lease", "restore a journal's deleted lease ref (a person)",
             "A journal that holds records and whose lease ref (the witness of its head) "
             "was deleted is refused by every writer: nothing can prove no newer record "
             "was deleted first. Once a person has checked the journal against what "
             "really happened, this restores the lease ref witnessing exactly the head "
             "they name (--records, --last: the refusal prints the journal's head now), "
             "and refuses, writing nothing, when the journal holds another head. The "
             "restoration is recorded in the lease branch's history (who, --reason, which "
             "head). The token needs contents: write; it need not be the writer's.")
    _add_connection(p)
    _add_journal(p, reader=False, writes=True)
    g = p.add_argument_group("restoration")
    g.add_argument("--records", metavar="K", type=_number, required=True,
                   help="distinct records the journal holds (the intent not counted)")
    g.add_argument("--last", metavar="DIGEST", required=True,
                   help="digest of the journal's newest record (sha256:...)")
    g.add_argument("--reason", metavar="TEXT", required=True,
                   help="what was checked and why the lease is restored (recorded)")
    g.add_argument("--actor", metavar="NAME", default=_env("GITHUB_ACTOR"),
                   help="who restores it (env GITHUB_ACTOR; default: the local user name)")
    g.add_argument("--server-url", metavar="URL", default=_env("GITHUB_SERVER_URL"),
                   help="web base of the journal URL (env GITHUB_SERVER_URL)")

    p = _sub(subs, "verify-material", "check bytes against a material reference",
             "Hash FILE and compare its byte count and sha256 digest with a material: given "
             "directly (--bytes/--digest), as a JSON reference (--material), or by id from a "
             "capture (--capture with the reading options). Exit 0 when they match, 1 when "
             "not.")
    p.add_argument("file", metavar="FILE", help="the retrieved bytes ('-' for stdin)")
    p.add_argument("--bytes", dest="size", metavar="N", type=int, help="expected byte count")
    p.add_argument("--digest", metavar="DIGEST", help="expected sha256:<hex>")
    p.add_argument("--material", metavar="JSON", help="a material reference (JSON object)")
    p.add_argument("--id", metavar="ID", help="material id to look up in --capture")
    p.add_argument("--capture", metavar="FILE", help="capture file to find --id in")
    p.add_argument("--writer", metavar="LOGIN", default="github-actions",
                   help="with --capture: login whose records count (default github-actions)")
    p.add_argument("--writer-id", metavar="N", type=int,
                   help="with --capture: databaseId the writer must also have")
    p.add_argument("--repository-id", metavar="ID", help="repository node id (with --capture)")
    p.add_argument("--server-url", metavar="URL", default=_env("GITHUB_SERVER_URL"),
                   help="with --capture: web base material URLs must start with (env "
                        "GITHUB_SERVER_URL; default https://github.com)")

    p = _sub(subs, "emulator", "the embedded GitHub", "The embedded GitHub emulator.")
    esubs = p.add_subparsers(dest="emulator_command", metavar="SUBCOMMAND", required=True)
    e = _sub(esubs, "serve", "serve the emulator over HTTP on loopback",
             "Serve the emulator; prints 'listening on http://127.0.0.1:PORT' then serves "
             "until interrupted.")
    e.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; keep it on loopback: the "
                        "admin routes take no credentials)")
    e.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    e.add_argument("--db", default=":memory:", help="SQLite file (state survives restarts)")
    e.add_argument("--fixture", help="TOML or JSON fixture for a new database (default: the "
                   "built-in one: octo-org/widgets, pull request #1, token ghs_actions; see "
                   "docs/emulator.md)")
    e.add_argument("--server-url", default="https://github.com",
                   help="web URL the emulated objects' url fields start with")
    e.add_argument("--fidelity", action="append", default=[], metavar="SWITCH=VALUE",
                   help="set a fidelity switch, e.g. replica_lag_ms=2000 or "
                   "locked_conversations=false (repeatable; docs/emulator.md)")

    p = _sub(subs, "app", "the GitHub App webhook server", "The GitHub App webhook server.")
    asubs = p.add_subparsers(dest="app_command", metavar="SUBCOMMAND", required=True)
    a = _sub(asubs, "serve", "run the webhook server",
             "Run the webhook server (configuration from the environment: GHATTEMPT_APP_*; "
             "see docs/app.md).")
    a.add_argument("--host", default="127.0.0.1", help="address to listen on (default "
                   "127.0.0.1)")
    a.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    a.add_argument("--log-level", default="info",
                   choices=["critical", "error", "warning", "info", "debug"],
                   help="server log level (default info)")

    a = _sub(asubs, "send", "sign and post a webhook delivery to the App",
             "Read FIXTURE (a webhook payload as JSON), sign it with the webhook secret "
             "(X-Hub-Signature-256: HMAC-SHA256, as GitHub does) and POST it to the App's "
             "webhook URL with the X-GitHub-Event EVENT and a fresh X-GitHub-Delivery id, "
             "like `probot receive`. Prints the answer's status line; exit 0 for 2xx, 4 "
             "otherwise.")
    a.add_argument("event", metavar="EVENT", help="webhook event name, e.g. workflow_job")
    a.add_argument("fixture", metavar="FIXTURE", help="JSON payload file ('-' for stdin)")
    a.add_argument("--url", metavar="URL", default="http://127.0.0.1:8000/webhook",
                   help="webhook URL (default http://127.0.0.1:8000/webhook)")
    a.add_argument("--secret-env", metavar="NAME", default="GHATTEMPT_WEBHOOK_SECRET",
                   help="environment variable holding the webhook secret (default "
                        "GHATTEMPT_WEBHOOK_SECRET; NAME_FILE may name a file holding it)")
    a.add_argument("--delivery", metavar="ID", help="X-GitHub-Delivery (default: a new UUID)")
    a.add_argument("--timeout", metavar="SECONDS", type=_seconds, default=30.0,
                   help="request timeout (default 30)")

    p = _sub(subs, "demo", "run a pull request's whole life against the emulator",
             "Start the emulator over HTTP, drive a pull request through every phase with "
             "the Action's entry point (a superseded first generation, a publication whose "
             "response is lost after commit), capture the journal, read it with the reader "
             "bundle in a separate process and check the outcome.")
    p.add_argument("--keep", metavar="DIR", help="keep the database and captures in DIR")
    p.add_argument("--quiet", action="store_true",
                   help="print only the timeline page's path and the final line")
    p.add_argument("--html", metavar="FILE",
                   help="where to write the journal's timeline page (default: timeline.html "
                        "in --keep DIR, else a new file in the temporary directory)")
    return parser


_EXTRAS = {
    "emulator": ("emulator serve", "emulator", ("graphql", "jwt")),
    "demo": ("demo", "emulator", ("graphql", "jwt")),
    "app serve": ("app serve", "app", ("starlette", "uvicorn", "jwt")),
}
"""Commands that need an optional extra (pyproject.toml): what the user ran, the extra,
the modules it brings that the command imports."""


def _need_extra(args: argparse.Namespace) -> None:
    """Exit 2 naming the extra to install when a command's optional modules are missing.

    Raises:
        CliError: (2) a module of the command's extra is not installed.
    """
    command = args.command
    if command == "app":
        command = f"app {args.app_command}"
    need = _EXTRAS.get(command)
    if need is None:
        return
    import importlib.util

    what, extra, modules = need
    for module in modules:
        if importlib.util.find_spec(module) is None:
            from ghattempt.cli._errors import CliError
            from ghattempt.errors import Fault

            raise CliError(Fault.BAD_INPUT,
                           f"`ghattempt {what}` needs the {extra} extra (module {module} is "
                           "not installed): in the checkout you installed ghattempt from, "
                           f"run pip install '.[{extra}]' (the README's \"Installing the "
                           "package\")")


_HANDLERS: dict[str, tuple[str, str]] = {
    "emulator serve": ("ghattempt.cli._serve", "emulator_serve"),
    "app serve": ("ghattempt.cli._serve", "app_serve"),
    "app send": ("ghattempt.cli._send", "app_send"),
    "config check": ("ghattempt.cli._config", "config_check"),
    "config schema": ("ghattempt.cli._config", "config_schema"),
    "status": ("ghattempt.cli._reading", "status"),
    "capture": ("ghattempt.cli._reading", "capture"),
    "show": ("ghattempt.cli._reading", "show"),
    "demo": ("ghattempt.demo", "run_demo_command"),
    "plan": ("ghattempt.cli._writing", "plan"),
    "run": ("ghattempt.cli._run_step", "run"),
    "probe": ("ghattempt.cli._probe", "probe"),
    "restore-lease": ("ghattempt.cli._writing", "restore_lease"),
    "verify-material": ("ghattempt.cli._material", "verify_material"),
}
"""Command (with its subcommand, where it has them) -> the module and function doing it,
imported only when that command runs (a reading never loads the writer side: cold
start). Every other command is a writer of ``ghattempt.cli._writing`` by its own name."""


def _run(args: argparse.Namespace) -> int:
    import importlib

    _need_extra(args)
    command: str = args.command
    sub = getattr(args, f"{command}_command", None)  # emulator, app and config have them
    key = f"{command} {sub}" if sub else command
    module, name = _HANDLERS.get(key, ("ghattempt.cli._writing", command))
    handler: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module),
                                                           name)
    return handler(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status (see ``EXIT_CODES``)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "read":
        from ghattempt.cli._reading import read

        return read(args_list[1:])
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.version:
        from ghattempt import __version__

        print(f"ghattempt {__version__}")
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    from ghattempt.cli._errors import guarded

    return guarded(lambda: _run(args), getattr(args, "token_env", None))
