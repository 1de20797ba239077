"""What every command that talks to GitHub shares: where, who, with which settings.

Shape::

    split_repository(text: str | None) -> tuple[str, str]          # raises CliError(2)
    load_settings(path: str, *, required: bool) -> LoadedConfig | None
    connect(args) -> GitHubProvider                                # token from the env
    notice_hook(args) -> Callable[[str], None]                     # one line per notice
    reader_identity(args, cfg, viewer) -> tuple[str, int | None]   # --writer, --writer-id
    journal_url(server_url, repository, number) -> str
    Progress(provider, what)                                        # stderr ticker

Tokens are read from the environment variable ``--token-env`` names (default
``GITHUB_TOKEN``), never from the command line, so they stay out of ``ps`` and shell
history.
"""

from __future__ import annotations

import math
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ghattempt.cli._errors import CliError
from ghattempt.errors import Fault

if TYPE_CHECKING:
    from collections.abc import Callable

    from ghattempt.config import LoadedConfig
    from ghattempt.github import GitHubProvider, Identity

__all__ = [
    "DEFAULT_SERVER_URL",
    "Progress",
    "connect",
    "journal_url",
    "load_settings",
    "notice_hook",
    "reader_identity",
    "split_repository",
]

DEFAULT_SERVER_URL = "https://github.com"
_REPO = re.compile(r"([A-Za-z0-9_.-]{1,100})/([A-Za-z0-9_.-]{1,100})")


def split_repository(text: str | None) -> tuple[str, str]:
    """``owner/name`` -> ``(owner, name)``.

    Raises:
        CliError: (2) missing or not ``owner/name``.
    """
    if not text:
        raise CliError(Fault.BAD_INPUT, "no repository: pass --repository OWNER/NAME or set "
                          "GITHUB_REPOSITORY")
    m = _REPO.fullmatch(text)
    if m is None:
        raise CliError(Fault.BAD_INPUT, f"--repository must be OWNER/NAME, got {text!r}")
    return m.group(1), m.group(2)


def load_settings(path: str, *, required: bool, root: str | None = None) -> LoadedConfig | None:
    """The consumer configuration at ``path`` (relative to ``root`` or the current
    directory); None when it is not ``required`` and ``path`` is the default one
    (``.github/ghattempt.toml``) and holds no file. Any other path must name the file.

    Raises:
        ConfigError: the file is unreadable or invalid (exit 2, its one-line message).
        CliError: (2) ``path`` is not the default and names nothing.
    """
    from ghattempt.config import DEFAULT_CONFIG_PATH, load_config

    full = Path(root, path) if root else Path(path)
    if not required and not full.is_file():
        if Path(path) == Path(DEFAULT_CONFIG_PATH):
            return None
        if not full.exists():
            raise CliError(Fault.BAD_INPUT,
                           f"{path}: configuration file not found (looked in {full}); pass "
                              "the path of your configuration file, or leave it out to read "
                              f"{DEFAULT_CONFIG_PATH} when there is one")
    if not required and (full.is_absolute() or ".." in Path(path).parts):
        # A reader only takes [writer] from the file, and records nothing: any readable
        # path will do (a writer's path is recorded, so it must be repository-relative).
        return load_config(full.name, root=str(full.parent))
    return load_config(path, root=root)


def notice_hook(args: Any) -> Callable[[str], None]:
    """The command's notice hook: ``args.notice`` when the caller set one (the Action
    entry does), else a printer of ``ghattempt: notice:`` lines on stderr."""
    hook = getattr(args, "notice", None)
    if callable(hook):
        return hook  # type: ignore[no-any-return]
    from ghattempt.cli._errors import notice_printer

    printer: Callable[[str], None] = notice_printer(getattr(args, "token_env", None))
    return printer


def connect(args: Any, *, mutation_interval: float | None = None) -> GitHubProvider:
    """A provider for ``--api-url`` with the token from ``--token-env``; its waits of
    more than 2 s are told to the command's notice hook (:func:`notice_hook`).

    Raises:
        CliError: (2) the token variable is unset.
        InputError: a bad API URL or timeout (exit 2).
    """
    name = getattr(args, "token_env", None) or "GITHUB_TOKEN"
    token = os.environ.get(name, "")
    if not token:
        raise CliError(Fault.BAD_INPUT,
                       f"no token: environment variable {name} is empty; export the "
                          "token there (or name another variable with --token-env, which "
                          "takes a variable's name: tokens are never taken on the command "
                          "line)")
    from ghattempt.github import (
        DEFAULT_API_URL,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_TIMEOUT,
        DEFAULT_WRITE_INTERVAL,
    )

    interval = DEFAULT_WRITE_INTERVAL if mutation_interval is None else mutation_interval
    timeout = float(getattr(args, "timeout", DEFAULT_TIMEOUT) or DEFAULT_TIMEOUT)
    if not math.isfinite(timeout) or timeout <= 0:
        raise CliError(Fault.BAD_INPUT, "--timeout must be a finite number of seconds > 0")
    api = getattr(args, "api_url", None) or DEFAULT_API_URL
    if not api.endswith("/"):
        api += "/"
    # imported once the options are known good: a usage error does not load githubkit
    from ghattempt.github import GitHubProvider, ProviderConfig, TokenAuth

    return GitHubProvider(ProviderConfig(auth=TokenAuth(token), base_url=api, timeout=timeout,
                                         connect_timeout=min(DEFAULT_CONNECT_TIMEOUT, timeout),
                                         mutation_interval=interval,
                                         notice=notice_hook(args)))


def reader_identity(args: Any, cfg: LoadedConfig | None,
                    viewer: Identity | None = None) -> tuple[str, int | None]:
    """``(--writer, --writer-id)``: the options, else the config's ``[writer]``, else
    ``github-actions`` (the config's own defaults). Without a databaseId, the token's
    own (``viewer``, learned from the configured host) when the token is that writer:
    the Actions bot's id differs per host, so none is assumed.

    Raises:
        CliError: (2) ``--writer`` is not a GraphQL login (REST's ``[bot]`` suffix, for
            one), with the configuration's own message.
    """
    writer = getattr(args, "writer", None)
    writer_id = getattr(args, "writer_id", None)
    if writer:
        from ghattempt.github.identity import login_problem

        problem = login_problem(writer)
        if problem is not None:
            raise CliError(Fault.BAD_INPUT, f"--writer: {problem[0]}; {problem[1]}")
    elif cfg is not None:
        writer, writer_id = cfg.settings.writer.login, cfg.settings.writer.database_id
    else:
        from ghattempt.config import WriterSettings

        default = WriterSettings()
        writer, writer_id = default.login, default.database_id
    if writer_id is None and viewer is not None and viewer.author_login == writer:
        writer_id = viewer.database_id
    return writer, writer_id


def journal_url(server_url: str | None, repository: str, number: int) -> str:
    """The journal Discussion's web URL: ``<server>/<owner>/<name>/discussions/<n>``."""
    base = (server_url or DEFAULT_SERVER_URL).rstrip("/")
    return f"{base}/{repository}/discussions/{number}"


class Progress:
    """A stderr ticker for long GitHub work: shown at once on a TTY, else after 1 s.

    Use as a context manager; it reads ``provider.usage.requests`` every half second.
    Disabled with ``GHATTEMPT_PROGRESS=0``.
    """

    def __init__(self, provider: GitHubProvider, what: str, *, delay: float = 1.0) -> None:
        self._provider = provider
        self._what = what
        tty = sys.stderr.isatty()
        self._delay = 0.0 if tty else delay
        self._tty = tty
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False
        self._start = 0.0

    def __enter__(self) -> Progress:
        if os.environ.get("GHATTEMPT_PROGRESS") == "0":
            return self
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._thread.start()
        return self

    def _line(self) -> str:
        n = self._provider.usage.requests
        return f"{self._what}: {n} request{'s' if n != 1 else ''}, " \
               f"{time.monotonic() - self._start:.1f} s"

    def _tick(self) -> None:
        if self._stop.wait(self._delay):
            return
        while True:
            self._shown = True
            end = "\r" if self._tty else "\n"
            sys.stderr.write(self._line() + end)
            sys.stderr.flush()
            if self._stop.wait(0.5 if self._tty else 2.0):
                return

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._shown:
            sys.stderr.write(self._line() + " done\n")
            sys.stderr.flush()


# Public as ghattempt.cli.shared (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
load_settings.__module__ = "ghattempt.cli.shared"
