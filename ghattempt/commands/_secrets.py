"""No secret in what is written: values that would be stored verbatim are checked first.

Shape::

    secret_values(token_env: str | None) -> list[str]      # the token values in the env
    looks_secret(value: str, token_env: str | None) -> bool
    refuse_secrets(values: dict[str, object], token_env, where) -> None   # RequestError
    public_text(text: str | None, token_env: str | None) -> str | None  # a reason, redacted

A record is a public comment and a lease holder a commit message: GitHub masks secrets
in logs, never there. Free text (a reason) is redacted before it is written
(:func:`public_text`); a value that *identifies* something (an idempotency key, a request
key, an actor, a channel, an authorization id, a base branch, a material's fields)
cannot be redacted without changing what it names, so a value equal to the token,
holding it, or shaped like a GitHub token or key (``ghattempt.github.redact``) is refused
before any request, with exit 2 and a message that names the field, never the value.
The readers refuse the same way the one field their verdict echoes (the request key).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ghattempt.commands._errors import RequestError

__all__ = ["looks_secret", "public_text", "refuse_secrets", "secret_values"]


def secret_values(token_env: str | None = None) -> list[str]:
    """The token values of the environment (``token_env``, GITHUB_TOKEN, GHATTEMPT_TOKEN)."""
    names = {token_env or "GITHUB_TOKEN", "GITHUB_TOKEN", "GHATTEMPT_TOKEN"}
    return [v for v in (os.environ.get(n, "") for n in sorted(names)) if v]


def looks_secret(value: str, token_env: str | None = None) -> bool:
    """True when ``value`` holds a token of the environment or is token- or key-shaped."""
    from ghattempt.github import redact

    return redact(value, secret_values(token_env)) != value


def refuse_secrets(values: Mapping[str, object], token_env: str | None = None,
                   where: str = "written into the journal") -> None:
    """Refuse every value of ``values`` (the field's public name, as an option -> its
    value) that looks secret; ``where`` says where it would be echoed (a reader's
    verdict prints its request key).

    Raises:
        RequestError: naming the field, never the value.
    """
    for option, value in values.items():
        if isinstance(value, str) and value and looks_secret(value, token_env):
            raise RequestError(f"{option} holds a token or key (or a value shaped like one); "
                               f"it would be {where} verbatim: pass another value, and "
                               "revoke the token if it was a real one")


def public_text(text: str | None, token_env: str | None = None) -> str | None:
    """``text`` for a record (a public comment): the token's value and every token-shaped
    string replaced by ``[redacted]`` (a reason copied from a failing step's log may hold
    one; GitHub masks secrets in logs, never in comments). None for None or ``""``."""
    if not text:
        return None
    from ghattempt.github import redact

    return redact(text, secret_values(token_env))


# Public as ghattempt.commands (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    looks_secret, public_text, refuse_secrets, secret_values,
):
    _exported.__module__ = "ghattempt.commands"
del _exported
