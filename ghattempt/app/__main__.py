"""``python -m ghattempt.app``: run or inspect the webhook server.

Commands:

- ``serve [--host H] [--port P] [--log-level L]``: run the server (configuration from
  the environment, see docs/app.md);
- ``inbox [--requeue-failed]``: print the inbox counts (``GHATTEMPT_APP_STATE`` or
  ``GHATTEMPT_APP_DATABASE``), and optionally put failed deliveries back to pending;
- ``migrate``: create the inbox, or bring its schema up to date, and print the versions
  (the server does it too when it starts).

Exit status: 0 success, 2 bad arguments or configuration.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ghattempt.app.settings import ConfigurationError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ghattempt.app")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the webhook server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info",
                       choices=["critical", "error", "warning", "info", "debug"])
    inbox = commands.add_parser("inbox", help="show the durable inbox")
    inbox.add_argument("--requeue-failed", action="store_true")
    commands.add_parser("migrate", help="create the inbox or bring its schema up to date")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "serve":
            from ghattempt.app.server import serve

            serve(args.host, args.port, log_level=args.log_level)
            return 0
        from ghattempt.app.inbox import SCHEMA_VERSION, InboxUnavailable, open_inbox
        from ghattempt.app.settings import load_inbox_location

        location = load_inbox_location()
        try:
            inbox = open_inbox(location)
        except InboxUnavailable as exc:
            raise ConfigurationError(str(exc)) from None
        try:
            if args.command == "migrate":
                print(json.dumps({"schema": SCHEMA_VERSION, "was": inbox.schema_found}))
                return 0
            requeued = inbox.requeue_failed() if args.requeue_failed else 0
            print(json.dumps({"inbox": inbox.counts(), "requeued": requeued}))
        finally:
            inbox.close()
        return 0
    except ConfigurationError as exc:
        print(f"ghattempt app: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
