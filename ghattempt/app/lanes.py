"""Which deliveries keep their order: the lane of a delivery, a pure decision.

A *lane* is the inbox's unit of order. The deliveries of one lane are handled one at a
time, in the order the inbox committed them; deliveries of different lanes are handled
at the same time by the worker pool. A delivery that waits (rate limit, busy writer
scope, GitHub down) holds back its own lane only.

The lane is decided when the delivery is accepted (:func:`decide`):

=====================================  ==============================================
event                                  lane
=====================================  ==============================================
``pull_request``                       ``pr:<repository node id>:<number>``: every
                                       writer scope of the pull request (one per base
                                       branch; an ``edited`` base change touches two)
``workflow_run``, ``workflow_job``     the lane of the pull request whose
                                       ``pull_request`` delivery, accepted earlier,
                                       named the run's head commit (:class:`Claim`);
                                       otherwise ``head:<repository node id>:<sha>``
``discussion``, ``discussion_comment`` ``discussion:<repository node id>:<number>``
a payload lacking those fields         ``delivery:<delivery id>`` (routing fails it)
=====================================  ==============================================

Why a run goes to its pull request's lane only through an earlier claim, and never by
the pull requests a ``workflow_run`` payload lists: GitHub does not deliver in order
("Troubleshooting webhooks": deliveries may arrive in a different order than the
events took place). A result that arrives before its pull request's ``synchronize``
waits for the attempt at its head (:attr:`~ghattempt.app.sink.Outcome.NOT_YET`); in
the pull request's own lane it would wait in front of the very ``synchronize`` it
needs. So it takes a lane of its own, and waits there.

A lane holds every writer scope its deliveries write to, so the deliveries of one
scope never run concurrently within one App (they would meet each other's lease).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Claim", "Decision", "decide", "pull_request_lane"]


@dataclass(frozen=True, slots=True)
class Claim:
    """A pull request delivery's head: later runs of ``head_sha`` join ``lane``."""

    repository_id: str
    head_sha: str
    lane: str


@dataclass(frozen=True, slots=True)
class Decision:
    """Where an accepted delivery goes.

    Attributes:
        lane: the lane, when the payload alone decides it.
        head: ``(repository node id, head sha)`` of a run whose lane is the one claimed
            for that head, if any; ``lane`` is then the fallback (``head:...``).
        claims: heads this delivery claims for its lane.
    """

    lane: str
    head: tuple[str, str] | None = None
    claims: tuple[Claim, ...] = ()


def _text(obj: Any, *path: str) -> str | None:
    for name in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(name)
    return obj if isinstance(obj, str) and obj else None


def _number(obj: Any, *path: str) -> int | None:
    for name in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(name)
    if isinstance(obj, bool) or not isinstance(obj, int) or obj < 1:
        return None
    return obj


def pull_request_lane(repository_id: str, number: int) -> str:
    """The lane of one pull request's deliveries."""
    return f"pr:{repository_id}:{number}"


def decide(event: str, payload: Mapping[str, Any], delivery: str) -> Decision:
    """The lane of one delivery (module table); never raises.

    Args:
        event: the ``X-GitHub-Event`` header.
        payload: the parsed body.
        delivery: the ``X-GitHub-Delivery`` id (the lane of a payload that names
            nothing).
    """
    alone = Decision(f"delivery:{delivery}")
    repository = _text(payload, "repository", "node_id")
    if repository is None:
        return alone
    if event == "pull_request":
        number = _number(payload, "pull_request", "number")
        if number is None:
            return alone
        lane = pull_request_lane(repository, number)
        head = _text(payload, "pull_request", "head", "sha")
        claims = (Claim(repository, head, lane),) if head is not None else ()
        return Decision(lane, claims=claims)
    if event in ("workflow_run", "workflow_job"):
        head = _text(payload, event, "head_sha")
        if head is None:
            return alone
        return Decision(f"head:{repository}:{head}", head=(repository, head))
    if event in ("discussion", "discussion_comment"):
        number = _number(payload, "discussion", "number")
        if number is None:
            return alone
        return Decision(f"discussion:{repository}:{number}")
    return alone
