"""One clear line per error, the exit status for it, and no secret in either.

Shape::

    CliError(code: int, message: str)        # raised by commands: usage (2), refused (1) ...
    guarded(run: Callable[[], int], token_env: str | None) -> int

``guarded`` runs a command and turns every error into ``ghattempt: error: <message>`` on
stderr and the exit status of ``ghattempt.cli.EXIT_CODES``. Messages pass through the
provider's redaction (token-shaped strings and the token's value are replaced) before
printing. A traceback is printed only for an unexpected exception and only when
``GHATTEMPT_DEBUG=1``; otherwise its one line says so (exit 70).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

__all__ = ["EXIT_INTERNAL", "CliError", "classify", "guarded", "install_notes", "scrub"]

EXIT_INTERNAL = 70
"""An unexpected exception: a defect of ghattempt (BSD sysexits ``EX_SOFTWARE``)."""


class CliError(Exception):
    """An error a command reports as one line with its exit status.

    Attributes:
        code: the exit status (1 refused, 2 usage/input/config, 3 invalid journal,
            4 GitHub).
        message: what was wrong and what to do, one line, no secret.
    """

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def scrub(text: str, token_env: str | None = None) -> str:
    """``text`` with token-shaped strings, and the token's own value, replaced."""
    secrets = []
    for name in {token_env or "GITHUB_TOKEN", "GITHUB_TOKEN", "GHATTEMPT_TOKEN"}:
        value = os.environ.get(name, "")
        if value:
            secrets.append(value)
    from ghattempt.github._redact import redact

    return " ".join(redact(text, secrets).split())


def classify(exc: BaseException) -> tuple[int, str] | None:
    """The exit status and message for a known error, or None for an unexpected one."""
    if isinstance(exc, CliError):
        return exc.code, exc.message
    mod = type(exc).__module__
    if mod.startswith("ghattempt.config") or type(exc).__name__ == "ConfigError":
        return 2, str(exc)
    if "ghattempt.github.errors" in sys.modules:
        from ghattempt.github import errors as gh

        if isinstance(exc, gh.InputError):
            return 2, str(exc)
        if isinstance(exc, gh.AmbiguousOutcome):
            return 4, (f"{exc} (the outcome is unknown: run the same command again with the "
                       "same --key to read it back and reconcile)")
        if isinstance(exc, gh.RateLimited):
            return 4, f"{exc} (rate limited: retry after {exc.retry_after} s)"
        if isinstance(exc, gh.NotFound):
            return 4, (f"{exc} (check --repository or GITHUB_REPOSITORY, --discussion or "
                       "--pull-request, and that the token can read the repository)")
        if isinstance(exc, gh.GitHubError):
            # The transport names its own setting; on the command line it is --api-url.
            return 4, str(exc).replace("check base_url", "check --api-url (env GITHUB_API_URL)")
    if "ghattempt.store" in sys.modules:
        from ghattempt.cli._store import classify_store_error

        found = classify_store_error(exc)
        if found is not None:
            return found
    if "ghattempt.exclusive" in sys.modules:
        from ghattempt import exclusive

        if isinstance(exc, exclusive.ScopeBusy):
            return 4, f"{exc} (another writer holds the journal; try again later)"
        if isinstance(exc, exclusive.ExclusionError):
            return 4, str(exc)
    if isinstance(exc, OSError):
        if exc.filename:
            return 2, (f"{exc.filename}: {exc.strerror or exc}; check the path and its "
                       "permissions")
        return 2, str(exc)
    return None


class _Scrubbed:
    def __init__(self, token_env: str | None) -> None:
        self.token_env = token_env

    def filter(self, record: object) -> bool:
        import logging

        assert isinstance(record, logging.LogRecord)
        record.msg = scrub(record.getMessage(), self.token_env)
        record.args = None
        return True


def install_notes(token_env: str | None) -> None:
    """Print warnings of ``ghattempt.*`` loggers as scrubbed ``ghattempt: note:`` lines."""
    import logging

    root = logging.getLogger("ghattempt")
    for old in [h for h in root.handlers if getattr(h, "ghattempt_notes", False)]:
        root.removeHandler(old)
    handler = logging.StreamHandler(sys.stderr)
    handler.ghattempt_notes = True  # type: ignore[attr-defined]
    handler.setFormatter(logging.Formatter("ghattempt: note: %(message)s"))
    handler.addFilter(_Scrubbed(token_env))
    level = logging.WARNING if os.environ.get("GHATTEMPT_DEBUG") != "1" else logging.DEBUG
    # the handler's own level too: a child logger set to DEBUG for the Action's ::debug::
    # lines must not also print them here
    handler.setLevel(level)
    root.addHandler(handler)
    root.setLevel(level)


def guarded(run: Callable[[], int], token_env: str | None = None) -> int:
    """Run a command; print one ``ghattempt: error: ...`` line for any error.

    Warnings of the layers below (a retry, a wait for a rate limit) are printed as
    ``ghattempt: note: ...`` lines, scrubbed like errors.
    """
    install_notes(token_env)
    try:
        return run()
    except KeyboardInterrupt:
        print("ghattempt: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 -- every error ends in one line
        known = classify(exc)
        if known is None:
            if os.environ.get("GHATTEMPT_DEBUG") == "1":
                import traceback

                traceback.print_exc()
            code, message = EXIT_INTERNAL, (f"internal error {type(exc).__name__}: {exc} "
                                            "(set GHATTEMPT_DEBUG=1 for a traceback)")
        else:
            code, message = known
        print(f"ghattempt: error: {scrub(message, token_env)}", file=sys.stderr)
        return code
