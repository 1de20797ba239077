"""A writer process for the store's multi-process tests (run as a script).

    python tests/store/writer.py --url URL --token T --attempt ID --keys k1,k2,...
        [--exclusion lease|none] [--kill-at STEP --kill-key KEY] [--per-session N]
        [--acquire-timeout SECONDS] [--lag]

Appends one ``admission waiting`` event per key (reason = key) to attempt ID of the
journal of PR #1 into main, in sessions of ``--per-session`` appends. With ``--kill-at``
the process sends itself SIGKILL when the store reports STEP during the append of
KEY. Prints one JSON line per append; exits 3 with the failure code when the journal
fails closed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness as h  # noqa: E402

from ghattempt.store import JournalInvalidError  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--attempt", required=True)
    p.add_argument("--keys", required=True)
    p.add_argument("--exclusion", choices=("lease", "none"), default="lease")
    p.add_argument("--kill-at")
    p.add_argument("--kill-key")
    p.add_argument("--per-session", type=int, default=1)
    p.add_argument("--acquire-timeout", type=float, default=h.settings().acquire_timeout)
    p.add_argument("--lag", action="store_true",
                   help="the emulator's replicas lag: re-read for up to about 10 s")
    args = p.parse_args()
    current = {"key": None}

    def observer(step: str) -> None:
        if args.kill_at and step == args.kill_at and current["key"] == args.kill_key:
            os.kill(os.getpid(), signal.SIGKILL)

    gh = h.provider(url=args.url, token=args.token, lag=args.lag)
    repo_id = h.repository_id(gh)
    # waiters poll the lease ref gently: 8 writers share one emulator on 2 cores, and
    # every poll takes server time from the holder
    adapter = (h.NoExclusion() if args.exclusion == "none"
               else h.lease(gh, repo_id, backoff_initial=0.15, backoff_max=1.0,
                            acquire_timeout=args.acquire_timeout))
    store = h.store(gh, adapter, repo_id=repo_id, observer=observer)
    journal = store.open_journal(1, "main")
    keys = args.keys.split(",")
    try:
        for start in range(0, len(keys), args.per_session):
            current["key"] = keys[start]
            with store.session(journal) as s:
                for key in keys[start:start + args.per_session]:
                    current["key"] = key
                    r = s.append(args.attempt, key=key, phase="admission", status="waiting",
                                 reason=key)
                    print(json.dumps({"key": key, "seq": r.event.seq,
                                      "replayed": r.replayed, "sends": r.sends}), flush=True)
            current["key"] = None
    except JournalInvalidError as exc:
        print(json.dumps({"invalid": exc.code}), flush=True)
        return 3
    usage = gh.usage
    print(json.dumps({"requests": usage.requests, "points": usage.points}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
