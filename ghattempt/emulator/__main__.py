"""``python -m ghattempt.emulator serve --port P --db FILE [--fixture F]``.

Prints ``listening on http://127.0.0.1:PORT`` (the real port when ``--port 0``) on
one line of stdout, then serves until interrupted. Without ``--fixture`` a new
database is seeded with the built-in default fixture.
"""

from __future__ import annotations

import argparse
import sys

from .app import Emulator
from .fixture import DEFAULT_FIXTURE, FixtureError
from .server import EmulatorServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ghattempt.emulator")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the emulator over HTTP on loopback")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=0)
    serve.add_argument("--db", default=":memory:", help="SQLite file (state survives restarts)")
    serve.add_argument("--fixture", help="TOML or JSON fixture applied to a new database")
    serve.add_argument("--server-url", default="https://github.com")
    args = parser.parse_args(argv)
    try:
        emulator = Emulator(
            args.db,
            args.fixture if args.fixture else DEFAULT_FIXTURE,
            server_url=args.server_url,
        )
    except FixtureError as exc:
        print(f"emulator: {exc}", file=sys.stderr)
        return 2
    server = EmulatorServer(emulator, args.host, args.port)
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
