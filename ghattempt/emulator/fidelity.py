"""Fidelity switches: GitHub behaviours the emulator models, each of which a test may
turn off (or, for the ones GitHub applies only to some accounts, on).

The defaults are GitHub's: what GitHub always does is on. Each switch is documented,
with its source, in docs/emulator.md ("What GitHub does, and where it is written").

``locked_conversations``  a locked discussion refuses comments and replies by a bot
                   (an App installation token or the Actions ``GITHUB_TOKEN``) whatever
                   its permissions; people need ``write``. Off: any token with
                   ``write`` may comment.
``viewer_permission``  ``Repository.viewerPermission`` is null for a bot token. Off: the
                   token's role, as for people.
``legacy_node_ids``  objects created before GitHub's node-id migration (fixture
                   ``legacy_node_id = true``) answer their legacy id unless the request
                   carries ``X-Github-Next-Global-ID: 1``. Off: always the new format.
``rulesets``       a repository's rulesets refuse ref creation, update and deletion on
                   the refs they target. Off: rulesets are kept but not enforced.
``branch_protection``  classic branch protection rules refuse the writes their settings
                   forbid. Off: kept but not enforced.
``stale_data``     ``createCommitOnBranch`` refuses an ``expectedHeadOid`` that is not the
                   branch's head (``STALE_DATA``). Off (a misbehaving GitHub for a
                   probe): the commit lands on the current head.
``edit_flags``     editing a comment sets ``lastEditedAt`` and ``includesCreatedEdit``.
                   Off (misbehaving): an edit leaves no trace in them.
``replies_oldest_first``  comments and replies come oldest first. Off (misbehaving):
                   newest first.
``rate_limit_headers``  every authenticated answer carries the ``x-ratelimit-*``
                   headers. Off (misbehaving, as behind a proxy that strips them): none.
``secondary_limits``  the secondary limits (points a minute, content creation) are
                   enforced. Off: not counted at all (a test or benchmark that must not
                   meet them says so by turning this off).
``replica_lag_ms`` every discussion and comment stays invisible to every reader (every
                   process, every token) for this long after it was created, while refs
                   and commits read current (git storage is not the database). 0: off.
``actions_budget`` every ``GITHUB_TOKEN`` (a token of the Actions bot) of one repository
                   shares one primary budget of 1,000 points (GraphQL) and 1,000
                   requests (REST) an hour, whatever its own ``rate_limit``. Off: each
                   token has its own ``rate_limit``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

ACTIONS_BUDGET = 1000
"""GitHub's primary limit for ``GITHUB_TOKEN``: 1,000 an hour per repository."""


@dataclass(frozen=True, slots=True)
class Fidelity:
    """The fidelity switches in force (module docstring). Immutable: change them with
    :meth:`changed` (``Emulator.set_fidelity`` does)."""

    locked_conversations: bool = True
    viewer_permission: bool = True
    legacy_node_ids: bool = True
    rulesets: bool = True
    replica_lag_ms: int = 0
    actions_budget: bool = False
    branch_protection: bool = True
    stale_data: bool = True
    edit_flags: bool = True
    replies_oldest_first: bool = True
    rate_limit_headers: bool = True
    secondary_limits: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise ValueError(f"fidelity {f.name} must be true or false, not {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"fidelity {f.name} must be an integer >= 0, not {value!r}")

    def changed(self, changes: dict[str, Any]) -> Fidelity:
        """A copy with ``changes`` applied.

        Raises:
            ValueError: an unknown switch (the message names the known ones) or a value
                of the wrong type.
        """
        known = {f.name for f in fields(self)}
        unknown = set(changes) - known
        if unknown:
            raise ValueError(f"unknown fidelity switch(es) {sorted(unknown)}; "
                             f"use {sorted(known)}")
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


__all__ = ["ACTIONS_BUDGET", "Fidelity"]
