"""No secret in what is written: values that would be stored verbatim are checked first.

Shape::

    secret_values(token_env: str | None) -> list[str]     # the token values in the env
    looks_secret(value: str, token_env: str | None) -> bool
    refuse_secrets(args, names: dict[str, str]) -> None   # raises CliError(2)

A record is a public comment and a lease holder a commit message: GitHub masks secrets
in logs, never there. Free text (a reason) is redacted where it is written
(``_writing._public``); a value that *identifies* something (an idempotency key, a
request key, an actor, a channel, an authorization id, a material id or URL) cannot be
redacted without changing what it names, so a value equal to the token, holding it, or
shaped like a GitHub token or key (``ghattempt.github.redact``) is refused before any
request, with exit 2 and a message that does not repeat it. The readers refuse the same
way the one option their verdict echoes (``--request-key``).
"""

from __future__ import annotations

import os
from typing import Any

from ghattempt.cli._errors import CliError
from ghattempt.errors import Fault

__all__ = ["looks_secret", "refuse_secrets", "secret_values"]


def secret_values(token_env: str | None = None) -> list[str]:
    """The token values of the environment (``token_env``, GITHUB_TOKEN, GHATTEMPT_TOKEN)."""
    names = {token_env or "GITHUB_TOKEN", "GITHUB_TOKEN", "GHATTEMPT_TOKEN"}
    return [v for v in (os.environ.get(n, "") for n in sorted(names)) if v]


def looks_secret(value: str, token_env: str | None = None) -> bool:
    """True when ``value`` holds a token of the environment or is token- or key-shaped."""
    from ghattempt.github import redact

    return redact(value, secret_values(token_env)) != value


def refuse_secrets(args: Any, names: dict[str, str],
                   where: str = "written into the journal") -> None:
    """Refuse every attribute of ``args`` named in ``names`` (attribute -> option name as
    the user wrote it) whose value looks secret; ``where`` says where it would be echoed
    (a reader's verdict prints its request key).

    Raises:
        CliError: (2) naming the option, never the value.
    """
    token_env = getattr(args, "token_env", None)
    for attr, option in names.items():
        value = getattr(args, attr, None)
        if isinstance(value, str) and value and looks_secret(value, token_env):
            raise CliError(Fault.BAD_INPUT,
                           f"{option} holds a token or key (or a value shaped like one); "
                              f"it would be {where} verbatim: pass another "
                              "value, and revoke the token if it was a real one")


# Public as ghattempt.cli.shared (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
refuse_secrets.__module__ = "ghattempt.cli.shared"
