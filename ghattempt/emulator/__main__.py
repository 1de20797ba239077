"""``python -m ghattempt.emulator serve --port P --db FILE [--fixture F]``.

Prints ``listening on http://127.0.0.1:PORT`` (the real port when ``--port 0``) on
one line of stdout, then serves until interrupted. Without ``--fixture`` a new
database is seeded with the built-in default fixture, which
``python -m ghattempt.emulator fixture`` prints as JSON (a starting point for your own).
"""

from __future__ import annotations

import argparse
import json
import sys

from .app import Emulator
from .fixture import DEFAULT_FIXTURE, FixtureError
from .server import EmulatorServer


def _switches(pairs: list[str]) -> dict[str, object]:
    """``["replica_lag_ms=2000", "rulesets=false"]`` -> switches. Raises ValueError."""
    out: dict[str, object] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"--fidelity {pair!r}: write SWITCH=VALUE")
        low = value.strip().lower()
        out[name.strip()] = (low == "true") if low in ("true", "false") else int(value)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ghattempt.emulator")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the emulator over HTTP on loopback")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0)
    serve.add_argument("--db", default=":memory:", help="SQLite file (state survives restarts)")
    serve.add_argument("--fixture", help="TOML or JSON fixture applied to a new database")
    serve.add_argument("--server-url", default="https://github.com")
    serve.add_argument("--content-per-minute", type=int, default=None,
                       help="secondary content-creation limit per token and minute "
                            "(default: the fixture's [limits], else GitHub's 80)")
    serve.add_argument("--content-per-hour", type=int, default=None,
                       help="secondary content-creation limit per token and hour "
                            "(default: the fixture's [limits], else GitHub's 500)")
    serve.add_argument("--fidelity", action="append", default=[], metavar="SWITCH=VALUE",
                       help="set a fidelity switch, e.g. replica_lag_ms=2000 or "
                            "locked_conversations=false (repeatable; docs/emulator.md)")
    sub.add_parser("fixture", help="print the built-in default fixture as JSON")
    args = parser.parse_args(argv)
    if args.command == "fixture":
        print(json.dumps(DEFAULT_FIXTURE, indent=2))
        return 0
    try:
        emulator = Emulator(
            args.db,
            args.fixture if args.fixture else DEFAULT_FIXTURE,
            server_url=args.server_url,
            content_per_minute=args.content_per_minute,
            content_per_hour=args.content_per_hour,
            fidelity=_switches(args.fidelity),
        )
    except (FixtureError, ValueError) as exc:
        print(f"emulator: {exc}", file=sys.stderr)
        return 2
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"emulator: warning: serving on {args.host}; the admin routes take no "
            "credentials, keep it on loopback",
            file=sys.stderr,
        )
    try:
        server = EmulatorServer(emulator, args.host, args.port)
    except OSError as exc:
        print(f"emulator: cannot listen on {args.host} port {args.port}: {exc.strerror}; pass "
              "another --port (0 picks a free one)", file=sys.stderr)
        return 2
    print(f"listening on {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
