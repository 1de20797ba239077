"""Who writes: the token's identity on its host, and the one rule for writer logins.

GitHub names one account two ways. GraphQL shows a bot (an App's, or the Actions bot
behind ``GITHUB_TOKEN``) as the author ``login`` without a suffix (``github-actions``,
``my-app``), REST and ``viewer`` add ``[bot]`` (``github-actions[bot]``). A personal
access token is a ``User``. Journal records count by the GraphQL author login and its
``databaseId`` (journal-v1 section 6), and the Actions bot's ``databaseId`` differs per
host (41898282 on github.com, another number on each GitHub Enterprise Server), so a
writer learns its identity from the host it writes to (GraphQL ``viewer { login
databaseId }``, which installation tokens may ask: fullsend-ai/fullsend#1953) and never
assumes github.com's.

Light on purpose (no httpx, no githubkit): the configuration and the command line check
logins with :func:`login_problem` before anything else is imported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["ACTIONS_LOGIN", "BOT_SUFFIX", "LOGIN", "Identity", "login_problem",
           "writer_mismatch"]

BOT_SUFFIX = "[bot]"
"""What REST and ``viewer`` add to a bot's login; GraphQL authors never carry it."""

ACTIONS_LOGIN = "github-actions"
"""The GraphQL author login of the Actions bot (``GITHUB_TOKEN``) on every host."""

LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}\Z")
"""GitHub logins and App slugs: alphanumerics and single hyphens, at most 39 characters."""


def _q(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def login_problem(login: str) -> tuple[str, str] | None:
    """What is wrong with ``login`` as a writer's GraphQL login, or None.

    Returns:
        ``(problem, fix)``: one phrase each, e.g. ``('"x[bot]" carries the REST suffix
        [bot]', 'use the bare GraphQL login "x"')``; the configuration, the store and the
        command line all say exactly these.
    """
    if login.endswith(BOT_SUFFIX):
        bare = login[: -len(BOT_SUFFIX)]
        return (f"{_q(login)} carries the REST suffix {BOT_SUFFIX}",
                f"use the bare GraphQL login {_q(bare)}")
    if not LOGIN.match(login):
        return (f"{_q(login)} is not a GitHub login",
                "use letters, digits and single hyphens (at most 39 characters)")
    return None


@dataclass(frozen=True, slots=True)
class Identity:
    """A token's account on its host, as GraphQL ``viewer`` answers it.

    Attributes:
        login: the viewer's login (``github-actions[bot]`` for ``GITHUB_TOKEN``,
            ``my-app[bot]`` for an App installation, the user's login for a personal
            access token).
        database_id: the account's ``databaseId`` (REST ``id``) on that host.
    """

    login: str
    database_id: int

    @property
    def is_bot(self) -> bool:
        """True for an App's or the Actions bot's account."""
        return self.login.endswith(BOT_SUFFIX)

    @property
    def author_login(self) -> str:
        """The login GraphQL shows as the author of what this token writes."""
        return self.login[: -len(BOT_SUFFIX)] if self.is_bot else self.login


def writer_mismatch(login: str, database_id: int | None, identity: Identity,
                    host: str) -> str | None:
    """Why a configured writer is not the token's account, or None when it is.

    Args:
        login: the configured GraphQL login (``[writer] login``).
        database_id: the configured ``databaseId``, or None (then the login decides).
        identity: the token's account, learned from ``host``.
        host: where the identity was learned (for the message).

    Returns:
        One sentence for an error: the records this token writes would not count for a
        reader of ``login``, so nothing may be written.
    """
    if identity.author_login == login and database_id in (None, identity.database_id):
        return None
    configured = login if database_id is None else f"{login} (databaseId {database_id})"
    return (f"the token is {identity.author_login} (databaseId {identity.database_id}) on "
            f"{host}, not the configured writer {configured}: its records would not count "
            "for a reader of that writer. Use the writer's token, or configure [writer] "
            f"login = {identity.author_login!r}"
            + (f" and database_id = {identity.database_id}" if database_id is not None else ""))
