#!/usr/bin/env python3
"""Capture an attempt journal with ``gh api graphql`` for the reader bundle.

Usage::

    python3 capture-gh.py --repository OWNER/NAME --discussion N [--queries DIR] [-o FILE]

Runs the shipped queries (``JournalPage.graphql``, ``RepliesPage.graphql`` and
``LeaseRef.graphql`` from ``--queries``, default ``ghattempt/github/graphql`` next to this
script's ``readers/`` directory) through ``gh api graphql`` (docs/journal-format.md
section 5): a first JournalPage of one comment names the journal's intent, so that the
writer scope's lease ref can be read (``LeaseRef``) *before* the journal pages; then every
JournalPage while ``comments.pageInfo.hasNextPage`` is true, and RepliesPage for every
attempt root whose ``replies.pageInfo.hasNextPage`` is true, until it is false. Prints
the LeaseRef response and the pages as one JSON array: the reader's stdin. Pages that
disagree (the journal grew while it was read), or that hold fewer records than the
lease ref's witness names (GitHub's replicas lag), are read again, lease ref first, at
most three times in all.

Standard library only; ``gh`` must be on PATH and authenticated (``GH_TOKEN`` or
``GITHUB_TOKEN`` in a workflow; ``GH_HOST`` for GitHub Enterprise Server).

Exit status: 0 written; 2 bad arguments or query files; 4 ``gh`` failed, GitHub
answered with errors, or the pages kept disagreeing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PAGE = 100          # roots and replies per page (GitHub's maximum for a connection)
ROUNDS = 3          # whole captures tried while the pages disagree
DEFAULT_QUERIES = Path(__file__).resolve().parent.parent / "ghattempt" / "github" / "graphql"


class CaptureError(Exception):
    """A capture that cannot be completed; ``code`` is the exit status."""

    def __init__(self, message: str, code: int = 4) -> None:
        super().__init__(message)
        self.code = code


def gh_graphql(gh: str, query: str, fields: list[tuple[str, str]],
               typed: list[tuple[str, str]]) -> dict[str, Any]:
    """One ``gh api graphql`` call: ``-f`` string fields, ``-F`` typed fields."""
    argv = [gh, "api", "graphql", "-f", f"query={query}"]
    for name, value in fields:
        argv += ["-f", f"{name}={value}"]
    for name, value in typed:
        argv += ["-F", f"{name}={value}"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=120, check=False)
    except FileNotFoundError:
        raise CaptureError(f"{gh!r} not found; install the GitHub CLI or pass --gh PATH",
                           2) from None
    except subprocess.TimeoutExpired:
        raise CaptureError("gh api graphql did not answer within 120 s; run the capture "
                           "again") from None
    try:
        response = json.loads(done.stdout)
    except ValueError:
        response = None
    if isinstance(response, dict) and response.get("errors"):
        first = response["errors"][0]
        message = first.get("message", first) if isinstance(first, dict) else first
        raise CaptureError(f"GitHub answered with errors: {message}; check --repository, "
                           "--discussion and the token's discussions: read permission")
    if done.returncode != 0 or not isinstance(response, dict):
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = lines[-1] if lines else f"exit {done.returncode}"
        raise CaptureError(f"gh api graphql failed: {detail}; check `gh auth status` "
                           "(GH_TOKEN or GITHUB_TOKEN) and the repository name")
    return response


def capture_once(gh: str, queries: dict[str, str], owner: str, name: str,
                 number: int) -> tuple[list[dict[str, Any]], bool]:
    """Every page of one pass, and whether they agree (counts and totals)."""
    pages: list[dict[str, Any]] = []
    roots: dict[str, int] = {}
    root_totals: set[int] = set()
    replies: dict[str, set[str]] = {}
    reply_totals: dict[str, set[int]] = {}
    after: str | None = None
    while True:
        fields = [("owner", owner), ("name", name)] + ([("after", after)] if after else [])
        page = gh_graphql(gh, queries["JournalPage"], fields,
                          [("number", str(number)), ("roots", str(PAGE)),
                           ("replies", str(PAGE))])
        pages.append(page)
        repository = (page.get("data") or {}).get("repository")
        discussion = repository.get("discussion") if isinstance(repository, dict) else None
        if not isinstance(discussion, dict):
            raise CaptureError(f"no discussion #{number} in {owner}/{name}; check "
                               "--repository and --discussion (the journal-url output)")
        comments = discussion["comments"]
        root_totals.add(comments["totalCount"])
        for root in comments["nodes"]:
            roots[root["id"]] = 1
            thread = root["replies"]
            replies.setdefault(root["id"], set()).update(n["id"] for n in thread["nodes"])
            reply_totals.setdefault(root["id"], set()).add(thread["totalCount"])
            cursor = thread["pageInfo"]
            while cursor["hasNextPage"]:
                more = gh_graphql(gh, queries["RepliesPage"],
                                  [("id", root["id"]), ("after", cursor["endCursor"])],
                                  [("replies", str(PAGE))])
                pages.append(more)
                node = (more.get("data") or {}).get("node")
                if not isinstance(node, dict):
                    raise CaptureError(f"comment {root['id']} vanished while it was read; "
                                       "run the capture again")
                thread = node["replies"]
                replies[root["id"]].update(n["id"] for n in thread["nodes"])
                reply_totals[root["id"]].add(thread["totalCount"])
                cursor = thread["pageInfo"]
        if not comments["pageInfo"]["hasNextPage"]:
            break
        after = comments["pageInfo"]["endCursor"]
    agree = len(root_totals) == 1 and len(roots) == next(iter(root_totals))
    for root_id, totals in reply_totals.items():
        agree = agree and len(totals) == 1 and len(replies[root_id]) == next(iter(totals))
    return pages, agree


def record_line(body: str) -> dict[str, Any] | None:
    """The record of a body's ``<!-- ghattempt:v1 -->`` block, if it parses (the reader
    checks it properly; this only counts)."""
    text = body.replace("\r\n", "\n")
    at = text.find("<!-- ghattempt:v1 -->\n```json\n")
    if at < 0:
        return None
    start = at + len("<!-- ghattempt:v1 -->\n```json\n")
    try:
        record = json.loads(text[start:text.find("\n", start)])
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def scope_ref(page: dict[str, Any]) -> tuple[str, str] | None:
    """``(repository id, lease ref name)`` of the journal a JournalPage shows: the scope
    key is the first 40 hex digits of the SHA-256 of the canonical
    ``{"intent", "repository"}`` (docs/journal-format.md section 1). None when the body
    holds no record with a digest."""
    repository = page["data"]["repository"]
    intent = record_line(repository["discussion"]["body"] or "")
    if intent is None or not isinstance(intent.get("digest"), str):
        return None
    scope = json.dumps({"intent": intent["digest"], "repository": repository["id"]},
                       sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    key = hashlib.sha256(scope.encode("utf-8")).hexdigest()[:40]
    return repository["id"], f"refs/heads/ghattempt/lease/{key}"


def witnessed(lease_page: dict[str, Any] | None) -> int:
    """The ``head.records`` of a LeaseRef response's lease record (0 when none)."""
    lease = ((lease_page or {}).get("data") or {}).get("repository", {}).get("lease")
    message = ((lease or {}).get("target") or {}).get("message")
    if not isinstance(message, str):
        return 0
    try:
        record = json.loads(message.replace("\r\n", "\n").strip().rsplit("\n", 1)[-1])
        records = record["head"]["records"]
    except (ValueError, KeyError, TypeError, IndexError):
        return 0
    return records if isinstance(records, int) else 0


def records_held(pages: list[dict[str, Any]]) -> int:
    """Distinct attempt and event records in unedited, undeleted comments of ``pages``,
    whoever wrote them: at least what the reader will count."""
    digests = set()
    for page in pages:
        data = page.get("data") or {}
        if "node" in data:
            nodes = (data["node"] or {}).get("replies", {}).get("nodes", [])
        else:
            roots = data["repository"]["discussion"]["comments"]["nodes"]
            nodes = roots + [r for root in roots for r in root["replies"]["nodes"]]
        for node in nodes:
            if node.get("lastEditedAt") or node.get("includesCreatedEdit") or node.get("deletedAt"):
                continue
            record = record_line(node.get("body") or "")
            if record is not None and record.get("type") in ("attempt", "event"):
                digests.add(str(record.get("digest")))
    return len(digests)


def capture(gh: str, queries: dict[str, str], owner: str, name: str,
            number: int) -> list[dict[str, Any]]:
    """The lease ref, then pages that agree and hold every record its witness names;
    read again at most ``ROUNDS`` times in all."""
    first = gh_graphql(gh, queries["JournalPage"], [("owner", owner), ("name", name)],
                       [("number", str(number)), ("roots", "1"), ("replies", "1")])
    repository = (first.get("data") or {}).get("repository")
    if not isinstance(repository, dict) or not isinstance(repository.get("discussion"), dict):
        raise CaptureError(f"no discussion #{number} in {owner}/{name}; check "
                           "--repository and --discussion (the journal-url output)")
    scope = scope_ref(first)
    problem = "kept disagreeing"
    for _ in range(ROUNDS):
        lease = None if scope is None else gh_graphql(
            gh, queries["LeaseRef"], [("owner", owner), ("name", name), ("lease", scope[1])], [])
        pages, agree = capture_once(gh, queries, owner, name, number)
        if agree and records_held(pages) >= witnessed(lease):
            return ([] if lease is None else [lease]) + pages
        problem = "kept disagreeing" if not agree else "kept holding fewer records than the witness"
    raise CaptureError(f"the pages of {owner}/{name}#{number} {problem} in {ROUNDS} reads "
                       "(the journal is being written, or GitHub lags); run the capture again")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="capture-gh.py",
        description="Capture an attempt journal with `gh api graphql` and print the "
                    "JSON array the reader (business-attempt.pyz) reads on stdin.")
    parser.add_argument("--repository", metavar="OWNER/NAME",
                        default=os.environ.get("GITHUB_REPOSITORY"),
                        help="repository of the journal (default $GITHUB_REPOSITORY)")
    parser.add_argument("--discussion", metavar="N", type=int, required=True,
                        help="the journal Discussion's number (end of the journal-url)")
    parser.add_argument("--queries", metavar="DIR", type=Path, default=DEFAULT_QUERIES,
                        help="directory holding JournalPage.graphql, RepliesPage.graphql and "
                             f"LeaseRef.graphql (default {DEFAULT_QUERIES})")
    parser.add_argument("--gh", metavar="PATH", default="gh", help="the gh executable")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the array to FILE instead of stdout")
    args = parser.parse_args(argv)
    try:
        if not args.repository or args.repository.count("/") != 1:
            raise CaptureError("give --repository OWNER/NAME (or set GITHUB_REPOSITORY)", 2)
        if args.discussion < 1:
            raise CaptureError("--discussion must be a number >= 1", 2)
        owner, name = args.repository.split("/")
        queries = {}
        for query in ("JournalPage", "RepliesPage", "LeaseRef"):
            path = args.queries / f"{query}.graphql"
            try:
                queries[query] = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise CaptureError(f"cannot read {path} ({exc.strerror}); pass --queries DIR "
                                   "holding the shipped .graphql files", 2) from None
        pages = capture(args.gh, queries, owner, name, args.discussion)
    except CaptureError as exc:
        print(f"capture-gh.py: error: {exc}", file=sys.stderr)
        return exc.code
    text = json.dumps(pages, ensure_ascii=False) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {len(pages)} pages to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
