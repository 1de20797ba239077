"""``verify-material``: do retrieved bytes match a material reference?

A material binds a byte count and a ``sha256:`` digest of the bytes (spec journal-v1
section 4, material; ADR 0006: "the internal material verifier checks retrieved
bytes; storing a reference alone does not prove retrieval"). The reference comes from
the command line (``--bytes``/``--digest``), a JSON object (``--material``), or the
journal itself (``--id`` looked up in a ``--capture`` the reader accepts).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from typing import Any

from ghattempt.cli._errors import CliError
from ghattempt.core import is_digest
from ghattempt.errors import Fault

__all__ = ["file_digest", "verify_material"]



def file_digest(path: str) -> tuple[int, str]:
    """``(byte count, "sha256:<hex>")`` of a file (``-``: stdin), read in 1 MiB blocks."""
    h = hashlib.sha256()
    size = 0
    with contextlib.ExitStack() as stack:
        stream = sys.stdin.buffer if path == "-" else stack.enter_context(open(path, "rb"))
        while block := stream.read(1 << 20):
            h.update(block)
            size += len(block)
    return size, "sha256:" + h.hexdigest()


def _expected(args: Any) -> tuple[str, int, str]:
    if args.material:
        try:
            m = json.loads(args.material)
        except (ValueError, RecursionError) as exc:
            raise CliError(Fault.BAD_INPUT, f"--material is not JSON ({exc})") from None
        if not isinstance(m, dict) or type(m.get("bytes")) is not int \
                or not isinstance(m.get("digest"), str):
            raise CliError(Fault.BAD_INPUT,
                           '--material must be an object with "bytes" (integer) and '
                              '"digest" (sha256:<hex>)')
        return str(m.get("id", "material")), int(m["bytes"]), str(m["digest"])
    if args.id:
        if not args.capture:
            raise CliError(Fault.BAD_INPUT, "--id needs --capture FILE (and --repository-id)")
        from ghattempt.core import Capture, JournalInvalid, parse_capture, read_capture

        with open(args.capture, "rb") as f:
            try:
                value = json.loads(f.read().decode("utf-8"))
            except (ValueError, RecursionError) as exc:
                raise CliError(Fault.BAD_INPUT, f"{args.capture}: not UTF-8 JSON ({exc})") from None
        # the capture file is parsed here, where it is read (or why it is none: the
        # verdict names it)
        try:
            capture: Capture | JournalInvalid = parse_capture(value)
        except JournalInvalid as exc:
            capture = exc
        repo = args.repository_id or (
            capture.repository_id if isinstance(capture, Capture) else "")
        verdict = read_capture(capture, writer=args.writer, writer_id=args.writer_id,
                               repository_id=repo, server_url=args.server_url)
        if verdict.journal is None:
            raise CliError(Fault.JOURNAL_INVALID if verdict.exit_code == 3 else Fault.BAD_INPUT,
                           f"the capture is not a valid journal: {verdict.reason}: "
                           f"{verdict.detail}")
        found = verdict.journal.materials.get(args.id)
        if found is None:
            raise CliError(Fault.REFUSED, f"the journal cites no material {args.id!r}")
        return found.id, found.bytes, found.digest
    if args.size is None or args.digest is None:
        raise CliError(Fault.BAD_INPUT,
                       "give the expected reference: --bytes N --digest sha256:<hex>, "
                          "--material JSON, or --id ID --capture FILE")
    return "material", args.size, args.digest


def verify_material(args: Any) -> int:
    """Exit 0 when FILE has the reference's byte count and digest, 1 when not."""
    ident, size, digest = _expected(args)
    if size < 0 or not is_digest(digest):
        raise CliError(Fault.BAD_INPUT,
                       "the expected digest must be sha256:<64 lowercase hex> and the "
                          "byte count >= 0")
    got_size, got_digest = file_digest(args.file)
    if (got_size, got_digest) == (size, digest):
        print(f"ok: {args.file} matches {ident}: {size} bytes, {digest}")
        return 0
    what = []
    if got_size != size:
        what.append(f"{got_size} bytes, expected {size}")
    if got_digest != digest:
        what.append(f"digest {got_digest}, expected {digest}")
    raise CliError(Fault.REFUSED, f"{args.file} does not match {ident}: {'; '.join(what)}")
