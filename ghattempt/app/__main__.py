"""``python -m ghattempt.app``: run or inspect the webhook server.

Commands:

- ``serve [--host H] [--port P] [--log-level L]``: run the server (configuration from
  the environment, see docs/app.md);
- ``inbox [--requeue-failed]``: print the inbox counts (``GHATTEMPT_APP_STATE``), and
  optionally put failed deliveries back to pending.

Exit status: 0 success, 2 bad arguments or configuration.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "serve":
            from ghattempt.app.server import serve

            serve(args.host, args.port, log_level=args.log_level)
            return 0
        state = os.environ.get("GHATTEMPT_APP_STATE", "")
        if not state:
            raise ConfigurationError("GHATTEMPT_APP_STATE is not set: name the inbox file")
        from ghattempt.app.inbox import Inbox

        inbox = Inbox(Path(state))
        requeued = inbox.requeue_failed() if args.requeue_failed else 0
        print(json.dumps({"inbox": inbox.counts(), "requeued": requeued}))
        return 0
    except ConfigurationError as exc:
        print(f"ghattempt app: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
