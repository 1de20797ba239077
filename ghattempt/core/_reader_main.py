"""The reader CLI (docs/journal-format.md sections 6 and 10).

``python3 business-attempt.pyz --writer LOGIN --repository-id ID [...] < capture.json``
prints one JSON verdict and a newline on stdout; exit 0 valid, 3 invalid, 2
``bad_input``/``bad_arguments``. Any stdin, random bytes included, ends in one verdict.
The reader reads its own bundle (for its digest) and stdin, writes only stdout/stderr,
and never touches the network.
"""

from __future__ import annotations

import json
import os
import sys
from hashlib import sha256

from ._args import parse_argv, request_key_of
from ._c14n import decode_json
from ._codes import JournalInvalid
from ._journal import Verdict, invalid_verdict, read_with

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from typing import BinaryIO

USAGE = """\
usage: business-attempt.pyz --writer LOGIN --repository-id ID [--writer-id N]
       [--request-key KEY] [--server-url URL] [--max-records N] [--max-attempts N]
       [--require-witness] < capture.json

Reads a captured attempt journal (GraphQL JournalPage/RepliesPage/LeaseRef responses,
one JSON object or an array of them) on stdin and prints one JSON verdict, then a
newline.

arguments (each flag and its value are separate tokens):
  --writer LOGIN        only unedited, undeleted comments by this login count (required)
  --repository-id ID    the repository's GraphQL node id (required)
  --writer-id N         the author's databaseId must also be N
  --request-key KEY     select the attempt chain of this request key (needed when the
                        journal holds several keys)
  --server-url URL      GitHub server material URLs must start with
                        (default https://github.com)
  --max-records N       most events per attempt (default 1000)
  --max-attempts N      most attempts per journal (default 100)
  --require-witness     a capture without the writer scope's lease ref is rolled_back
  --help                print this help and exit 0

output: {"reader","status","reason","intent","request_key","attempt","generation",
         "missing_phases","recovery","attempts","ignored","detail"}
  status   pending running waiting reconciling succeeded failed cancelled superseded
           expired rolling-back rolled-back rollback-failed empty invalid
  recovery admit continue:<phase> wait:<phase> reconcile:<phase> none successor
           new-generation manual fail-closed

exit status: 0 valid journal (any status), 3 invalid journal (reason says why),
             2 bad_input or bad_arguments.
"""


def own_digest() -> str | None:
    """``"sha256:"`` + hex SHA-256 of the bundle this module runs from; None from source."""
    archive = getattr(globals().get("__loader__"), "archive", None)
    if not isinstance(archive, str):
        return None
    try:
        with open(archive, "rb") as f:
            return "sha256:" + sha256(f.read()).hexdigest()
    except OSError:
        return None


def run(argv: list[str], stdin: BinaryIO, reader: str | None) -> tuple[Verdict | None, str]:
    """Evaluate one invocation; returns (verdict, "") or (None, usage) for ``--help``."""
    if "--help" in argv:
        return None, USAGE
    try:
        opts = parse_argv(argv)
    except JournalInvalid as exc:
        return invalid_verdict(exc.code, exc.detail, request_key_of(argv), reader), ""
    try:
        value = decode_json(stdin.read().decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        return invalid_verdict("bad_input", f"stdin is not UTF-8 JSON ({str(exc)[:100]})",
                               opts.request_key, reader), ""
    return read_with(value, opts, reader), ""


def main(argv: list[str] | None = None) -> int:
    """Entry point: prints the verdict (or usage) and returns the exit status."""
    args = sys.argv[1:] if argv is None else argv
    reader = own_digest()
    try:
        verdict, usage = run(args, sys.stdin.buffer, reader)
    except Exception as exc:  # noqa: BLE001 -- any input ends in one verdict
        verdict = invalid_verdict("bad_input", f"the reader could not read stdin "
                                  f"({type(exc).__name__})", None, reader)
        usage = ""
    if verdict is None:
        return 0 if _emit(usage.encode("ascii")) else 2
    out = json.dumps(verdict.to_json(), ensure_ascii=True, separators=(",", ":"))
    return verdict.exit_code if _emit(out.encode("ascii") + b"\n") else 2


def _emit(data: bytes) -> bool:
    """Write ``data`` to stdout and flush. When stdout is closed or cannot take it (a full
    device, a closed pipe), say so in one line on stderr, point stdout at the null device
    (so that the interpreter's own flush at exit prints no traceback either) and return
    False: the caller then exits 2 with no verdict delivered."""
    try:
        out = sys.stdout.buffer
        out.write(data)
        out.flush()
        return True
    except (AttributeError, OSError, ValueError) as exc:
        problem = ("stdout is closed" if sys.stdout is None
                   else f"{type(exc).__name__}: {exc}"[:200])
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (AttributeError, OSError, ValueError):
        pass
    try:
        sys.stderr.write(f"business-attempt: cannot write the verdict to stdout ({problem})\n")
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        pass
    return False

if __name__ == "__main__":
    sys.exit(main())
