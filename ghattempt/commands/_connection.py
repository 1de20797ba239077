"""How a command reaches GitHub, and the configuration it runs under.

Shape::

    Connection(api_url, token_env, timeout, server_url, notice, progress, known,
               provider, repository_id, adapt)
    connect(connection, *, timeout=None, mutation_interval=None) -> GitHubProvider
    find_config(path, *, required, root=None) -> LoadedConfig | None
    journal_url(server_url, repository, number) -> str

Tokens are read from the environment variable ``token_env`` names (default
``GITHUB_TOKEN``), never from a command line, so they stay out of ``ps`` and shell
history. The App hands over a provider of its own (an installation's, App-authenticated)
with the repository's node id from the delivery; a command then neither connects nor
looks the repository up by name.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ghattempt.commands._errors import CommandError
from ghattempt.errors import Fault

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.exclusive import ExclusiveAdapter, RefLease
    from ghattempt.github import GitHubProvider
    from ghattempt.store import Known

__all__ = ["DEFAULT_SERVER_URL", "Connection", "connect", "find_config", "journal_url"]

DEFAULT_SERVER_URL = "https://github.com"


@dataclass(frozen=True, slots=True)
class Connection:
    """How a command reaches GitHub.

    Attributes:
        api_url: the REST base (``https://api.github.com/``, ``https://HOST/api/v3/``).
        token_env: the environment variable holding the token.
        timeout: one request's client timeout, seconds (a writer's is at most the lease's
            ``request_timeout``).
        server_url: the web base of journal URLs and of material URLs.
        notice: told one line per reconciled lost answer and per wait of more than 2 s.
        progress: ``progress(provider, what)``, a context manager shown while a journal is
            captured (the command line's ticker); None: nothing shown.
        known: where an earlier step of the job found the journal (checked, never
            believed unchecked: ``ghattempt.store.Known``).
        provider: an authenticated provider used as it is (the App's, for one
            installation) instead of one made from the token; the caller closes it.
        repository_id: with ``provider``: the repository's node id (from the delivery).
        adapt: wraps each writer scope's lease (the App keeps leases across a burst).
    """

    api_url: str | None = None
    token_env: str = "GITHUB_TOKEN"  # noqa: S105 -- the variable's name, not a token
    timeout: float | None = None
    server_url: str | None = None
    notice: Callable[[str], None] | None = None
    progress: Callable[[GitHubProvider, str], AbstractContextManager[object]] | None = None
    known: Known | None = None
    provider: GitHubProvider | None = None
    repository_id: str | None = None
    adapt: Callable[[RefLease], ExclusiveAdapter] | None = None

    def tell(self, line: str) -> None:
        """One notice line (:attr:`notice`), if anyone listens."""
        if self.notice is not None:
            self.notice(line)


def connect(connection: Connection, *, timeout: float | None = None,
            mutation_interval: float | None = None) -> GitHubProvider:
    """A provider for ``connection.api_url`` with the token from ``connection.token_env``
    (``timeout``: instead of the connection's); its waits of more than 2 s are told to
    the connection's notice hook.

    Raises:
        CommandError: (bad input) the token variable is unset, or the timeout is no
            finite number of seconds > 0.
    """
    name = connection.token_env or "GITHUB_TOKEN"
    token = os.environ.get(name, "")
    if not token:
        raise CommandError(Fault.BAD_INPUT,
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
    seconds = float((timeout if timeout is not None else connection.timeout)
                    or DEFAULT_TIMEOUT)
    if not math.isfinite(seconds) or seconds <= 0:
        raise CommandError(Fault.BAD_INPUT,
                           "--timeout must be a finite number of seconds > 0")
    api = connection.api_url or DEFAULT_API_URL
    if not api.endswith("/"):
        api += "/"
    # imported once the options are known good: a usage error does not load githubkit
    from ghattempt.github import GitHubProvider, ProviderConfig, TokenAuth

    return GitHubProvider(ProviderConfig(auth=TokenAuth(token), base_url=api,
                                         timeout=seconds,
                                         connect_timeout=min(DEFAULT_CONNECT_TIMEOUT,
                                                             seconds),
                                         mutation_interval=interval,
                                         notice=connection.notice))


def find_config(path: str, *, required: bool, root: str | None = None) -> LoadedConfig | None:
    """The consumer configuration at ``path`` (relative to ``root`` or the current
    directory); None when it is not ``required`` and ``path`` is the default one
    (``.github/ghattempt.toml``) and holds no file. Any other path must name the file.

    Raises:
        ConfigError: the file is unreadable or invalid (exit 2, its one-line message).
        CommandError: (bad input) ``path`` is not the default and names nothing.
    """
    from ghattempt.config import DEFAULT_CONFIG_PATH
    from ghattempt.config import load_config as load

    full = Path(root, path) if root else Path(path)
    if not required and not full.is_file():
        if Path(path) == Path(DEFAULT_CONFIG_PATH):
            return None
        if not full.exists():
            raise CommandError(Fault.BAD_INPUT,
                               f"{path}: configuration file not found (looked in {full}); "
                               "pass the path of your configuration file, or leave it out "
                               f"to read {DEFAULT_CONFIG_PATH} when there is one")
    if not required and (full.is_absolute() or ".." in Path(path).parts):
        # A reader only takes [writer] from the file, and records nothing: any readable
        # path will do (a writer's path is recorded, so it must be repository-relative).
        return load(full.name, root=str(full.parent))
    return load(path, root=root)


def journal_url(server_url: str | None, repository: str, number: int) -> str:
    """The journal Discussion's web URL: ``<server>/<owner>/<name>/discussions/<n>``."""
    base = (server_url or DEFAULT_SERVER_URL).rstrip("/")
    return f"{base}/{repository}/discussions/{number}"


# Public as ghattempt.commands (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    Connection, connect, find_config, journal_url,
):
    _exported.__module__ = "ghattempt.commands"
del _exported
