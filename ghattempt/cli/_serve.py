"""``emulator serve`` and ``app serve``: hand over to the layers that serve."""

from __future__ import annotations

from typing import Any

from ghattempt.errors import Fault

__all__ = ["app_serve", "emulator_serve"]


def emulator_serve(args: Any) -> int:
    """Run ``python -m ghattempt.emulator serve`` with the same options (docs/emulator.md)."""
    from ghattempt.emulator.__main__ import main

    argv = ["serve", "--host", args.host, "--port", str(args.port), "--db", args.db,
            "--server-url", args.server_url]
    if args.fixture:
        argv += ["--fixture", args.fixture]
    for switch in getattr(args, "fidelity", None) or ():
        argv += ["--fidelity", switch]
    return main(argv)


def app_serve(args: Any) -> int:
    """Run the webhook server (``ghattempt.app.serve``); configuration errors exit 2."""
    from ghattempt.app.server import serve
    from ghattempt.app.settings import ConfigurationError
    from ghattempt.cli._errors import CliError

    try:
        serve(args.host, args.port, log_level=args.log_level)
    except ConfigurationError as exc:
        raise CliError(Fault.BAD_INPUT, f"app: {exc}") from None
    return 0
