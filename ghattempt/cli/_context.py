"""What every command that talks to GitHub takes from its arguments: where and how.

Shape::

    connection(args) -> Connection      # --api-url, --token-env, --timeout, --server-url

Tokens are read from the environment variable ``--token-env`` names (default
``GITHUB_TOKEN``), never from the command line, so they stay out of ``ps`` and shell
history. Notices (a reconciled lost answer, a wait of more than 2 s) are
``ghattempt: notice:`` lines on standard error; a capture shows a ticker there
(``ghattempt.render.Progress``).
"""

from __future__ import annotations

import argparse

from ghattempt.cli._errors import notice_printer
from ghattempt.commands import Connection

__all__ = ["connection"]


def connection(args: argparse.Namespace) -> Connection:
    """How the command reaches GitHub, from its options (a command without one of them
    takes the default)."""
    from ghattempt.render import Progress

    token_env = getattr(args, "token_env", None) or "GITHUB_TOKEN"
    return Connection(api_url=getattr(args, "api_url", None), token_env=token_env,
                      timeout=getattr(args, "timeout", None),
                      server_url=getattr(args, "server_url", None) or None,
                      notice=notice_printer(token_env), progress=Progress)
