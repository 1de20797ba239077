"""GraphQL requests and points of the store's writes, on the in-process emulator.

    .venv/bin/python benchmarks/append.py [--attempts 45] [--events 50] [--held 100]

Prints (goals from the store's brief in brackets):

* the open cost of a fresh writer process (``initialise``: repository check; finding the
  journal: one request per 100 discussions of the category);
* a cold single append by that fresh process (lease, capture, append, release) on an
  A x E journal [<= 5 requests, <= 6 points]; the lease ref exists already (the journal
  was created under the scope, which made it);
* 100 appends in one held scope [<= 1.2 requests per append];
* what a user meets as the journal fills: GitHub refuses comments on an issue past
  2,500 (discussions: the stricter reading, docs/emulator.md), so the store refuses the
  write that would pass ``[journal] max_comments`` (default 2,500) before sending it
  (``JournalFull``). The default journal (45 x 50: 2,295 comments and replies) is as
  large as leaves room for the appends above; the run then appends until the store
  refuses, and prints the refusal a user sees. A journal larger than GitHub allows is
  refused as an argument: no user can meet it.

Points are what the emulator charges per GitHub's documented GraphQL cost rules (and
1 per REST call). Not a timed test: wall times are printed for orientation only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "store"))

import harness as h  # noqa: E402

from ghattempt.core import build_attempt, build_event, render_body  # noqa: E402
from ghattempt.github import GitHubProvider, Usage  # noqa: E402
from ghattempt.store import JournalFull  # noqa: E402

CAP = 2500
"""The comments and replies one discussion takes (GitHub's cap on issues; the emulator's
default and ``[journal] max_comments``' default)."""


def seed(gh: GitHubProvider, attempts: int, events: int) -> tuple[object, str]:
    """A journal with ``attempts`` attempts of ``events`` events each, posted directly."""
    store = h.store(gh)
    journal = store.open_journal(1, "main")
    target = ""
    for n in range(attempts):
        root = build_attempt(intent=journal.intent, request_key=f"key-{n}",
                             generation=h.generation(n + 1), plan=h.PLAN, channel="stable",
                             expires_at=h.FAR, writer=store.writer, reader=h.READER,
                             at="2026-01-01T00:00:00Z")
        node = gh.add_comment(journal.discussion_id, render_body(root))
        prev = root.digest
        for seq in range(1, events + 1):
            ev = build_event(intent=journal.id, attempt=root.digest,
                             generation=root.generation_id, seq=seq, prev=prev,
                             key=f"e{seq}", phase="admission", status="waiting",
                             reason=f"step {seq}", writer=store.writer, reader=h.READER,
                             at="2026-01-01T00:00:00Z")
            gh.add_comment(journal.discussion_id, render_body(ev), reply_to_id=node.id)
            prev = ev.digest
        target = root.digest
    return journal, target


def delta(after: Usage, before: Usage) -> tuple[int, int, dict[str, int]]:
    ops = {k: v.requests - (before.by_operation[k].requests if k in before.by_operation else 0)
           for k, v in after.by_operation.items()}
    return (after.requests - before.requests, after.points - before.points,
            {k: v for k, v in ops.items() if v})


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--attempts", type=int, default=45)
    p.add_argument("--events", type=int, default=50)
    p.add_argument("--held", type=int, default=100)
    args = p.parse_args()
    needs = args.attempts * (1 + args.events) + 2 + args.held
    if needs > CAP:
        p.error(f"{args.attempts} x {args.events} with {args.held} held appends needs {needs} "
                f"comments and replies in one discussion; GitHub takes at most {CAP} (a user "
                "never meets such a journal: the store refuses the write past [journal] "
                "max_comments, docs/emulator.md)")
    emu = h.emulator()
    t0 = time.monotonic()
    journal, target = seed(h.provider(emu=emu, token=h.WRITER_TOKENS[9]), args.attempts,
                           args.events)
    print(f"seeded a {args.attempts} x {args.events} journal in "
          f"{time.monotonic() - t0:.1f} s")

    repo_id = h.repository_id(h.provider(emu=emu))
    for label in ("fresh process", "another fresh process"):
        gh = h.provider(emu=emu)
        u0 = gh.usage
        store = h.store(gh, repo_id=repo_id)
        found = store.find_journal(store.intent(1, "main"))
        assert found == journal
        u1 = gh.usage
        n, pts, ops = delta(u1, u0)
        print(f"open (initialise + find journal): {n} requests, {pts} points {ops}")
        t = time.monotonic()
        r = store.append(found, target, key=f"cold-{len(label)}", phase="admission",
                         status="waiting", reason="cold append")
        n, pts, ops = delta(gh.usage, u1)
        print(f"cold single append, {label}: {n} requests, {pts} points "
              f"(goal <= 5 / <= 6), {time.monotonic() - t:.2f} s, seq {r.event.seq} {ops}")

    gh = h.provider(emu=emu)
    store = h.store(gh)
    u0 = gh.usage
    t = time.monotonic()
    with store.session(journal) as s:  # type: ignore[arg-type]
        for i in range(args.held):
            s.append(target, key=f"held-{i}", phase="admission", status="waiting",
                     reason=f"held {i}")
    n, pts, ops = delta(gh.usage, u0)
    print(f"{args.held} appends in one held scope: {n} requests ({n / args.held:.2f} per "
          f"append, goal <= 1.2), {pts} points, {time.monotonic() - t:.1f} s {ops}")

    # what a user meets as the journal fills up
    written = 0
    try:
        with store.session(journal) as s:  # type: ignore[arg-type]
            while True:
                s.append(target, key=f"fill-{written}", phase="admission", status="waiting",
                         reason=f"fill {written}")
                written += 1
    except JournalFull as exc:
        print(f"filling up: {written} more appends, then the store refused the next before "
              f"sending it ({exc.held} of {exc.cap} comments and replies):\n  {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
