"""Where the journals of a job are: what one Action step learned, for the next steps.

Each step of a release job is a process of its own. Without a memory, every step would
read who the token is, the repository and the pull request, then the scope's lease ref
(to learn the journal's number), then the journal: three reads before it writes. A step
that ended well writes down where the journal was (repository node id, pull request,
base branch, intent id, Discussion number) in ``$RUNNER_TEMP/ghattempt-journals.json``
(the runner empties ``RUNNER_TEMP`` at the start and end of every job); the next step
reads all of it in one request (``WriterRead``) and the store believes none of it
unchecked (``BusinessAttemptStore.prime``): a part GitHub contradicts is read as if
nothing were known. Outside Actions (no ``RUNNER_TEMP``) nothing is kept.

Shape::

    memo_path(env) -> Path | None
    recall(path, repository, pull_request, base_ref) -> Known | None
    remember(path, repository, verdict) -> None
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ghattempt.core import Verdict
    from ghattempt.store import Known

__all__ = ["MEMO", "memo_path", "recall", "remember"]

MEMO = "ghattempt-journals.json"
"""The file in ``RUNNER_TEMP`` holding where the job's journals are."""


def memo_path(env: Mapping[str, str]) -> Path | None:
    """``$RUNNER_TEMP/ghattempt-journals.json``, or None outside a runner."""
    temp = env.get("RUNNER_TEMP", "")
    return Path(temp, MEMO) if temp and Path(temp).is_dir() else None


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def recall(path: Path | None, repository: str, pull_request: int,
           base_ref: str | None) -> Known | None:
    """What an earlier step of the job wrote down for ``repository`` and ``pull_request``
    (and ``base_ref`` when given), or None."""
    if path is None:
        return None
    entry = _load(path).get(f"{repository}#{pull_request}")
    if not isinstance(entry, dict):
        return None
    from ghattempt.store import Known

    try:
        known = Known(str(entry["repository_id"]), int(pull_request),
                      str(entry["base_ref"]), str(entry["intent"]), int(entry["number"]))
    except (KeyError, TypeError, ValueError):
        return None
    if base_ref and base_ref != known.base_ref:
        return None
    return known


def remember(path: Path | None, repository: str, verdict: Verdict) -> None:
    """Write down where the journal the verdict read is (best effort: a step never fails
    for its memory)."""
    journal = verdict.journal
    if path is None or journal is None:
        return
    intent = journal.intent
    data = _load(path)
    data[f"{repository}#{intent.pull_request}"] = {
        "repository_id": journal.repository_id, "base_ref": intent.base_ref,
        "intent": intent.digest, "number": journal.discussion_number}
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        return


# Public as ghattempt.commands (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    memo_path, recall, remember,
):
    _exported.__module__ = "ghattempt.commands"
del _exported
