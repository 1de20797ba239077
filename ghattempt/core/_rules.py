"""Phases, statuses and the replay rules of one attempt (docs/journal-format.md sections
4 and 8-10).

Theory of operation
-------------------
An attempt walks its *plan*, an ordered subsequence of ``PHASES``. Each event names a
plan phase (``phase`` set), the rollback (``"rollback"``) or the attempt itself
(``phase`` null). Replay keeps, per plan phase, the last status seen, plus the last
attempt-level or rollback outcome. From that state ``derive_status`` reads the
attempt's status with the precedence of section 8:

    attempt-level / rollback outcome > failed|cancelled|superseded phase
    > all succeeded > some phase unknown (reconciling) > first open phase waiting
    > no event (pending) > running

Before a record is applied, ``TRANSITIONS`` is consulted top to bottom; the first row
whose guard holds refuses the record with its code. A record no row refuses is
applied. Terminal results are never rewritten: recovery opens a successor.
An ``unknown`` outcome is reconciled, never abandoned or retried under a new identity
(section 8: reconciling blocks, and refuses an attempt-level cancel).

``BLOCKING`` is section 9's classification, the single source of truth for whether an
attempt blocks a fresh attempt at the same request key (section 9), and
``recovery_for`` maps a status to the one recovery selector of section 10.
"""

from __future__ import annotations

from ._value import value

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Literal, Protocol

    from ._codes import Failure

    # The same statuses as ATTEMPT_STATUSES, in the same order (tests/core/test_api.py)
    AttemptStatus = Literal["pending", "running", "waiting", "reconciling", "succeeded",
                            "failed", "cancelled", "superseded", "expired", "rolling-back",
                            "rolled-back", "rollback-failed"]

    class Step(Protocol):
        """A record offered to replay: its phase (None: attempt-level), status and time.

        ``Event`` is one; anything with these attributes will do.
        """

        @property
        def phase(self) -> str | None: ...  # noqa: D102

        @property
        def status(self) -> str: ...  # noqa: D102

        @property
        def at(self) -> str: ...  # noqa: D102

    Guard = Callable[[str, Step, "ReplayState"], bool]

PHASES: tuple[str, ...] = ("admission", "build", "review", "warrant", "merge", "publication",
                           "distribution", "next-development")
"""The admitted phase order (section 4)."""

ROLLBACK = "rollback"
"""The ``phase`` value of rollback events (section 4, event)."""

PHASE_STATUSES = frozenset({"started", "waiting", "succeeded", "failed", "cancelled",
                            "superseded", "unknown"})
ROLLBACK_STATUSES = frozenset({"started", "succeeded", "failed"})
ATTEMPT_LEVEL_STATUSES = frozenset({"expired", "cancelled", "superseded"})

ATTEMPT_STATUSES: tuple[AttemptStatus, ...] = (
    "pending", "running", "waiting", "reconciling", "succeeded", "failed", "cancelled",
    "superseded", "expired", "rolling-back", "rolled-back", "rollback-failed")
"""Every attempt status (section 8)."""
_AS_STATUS: dict[str, AttemptStatus] = {status: status for status in ATTEMPT_STATUSES}

TERMINAL: frozenset[str] = frozenset({"expired", "cancelled", "superseded", "failed",
                                      "rolled-back", "rollback-failed"})
"""Attempt statuses after which every record is ``rewritten_terminal`` (section 8)."""

PHASE_TERMINAL = frozenset({"succeeded", "failed", "cancelled", "superseded"})
"""A phase with one of these last statuses is never written again (section 8)."""

BLOCKING: Mapping[str, bool] = {
    # Section 9: an outcome unresolved or not unwound blocks.
    "pending": True,  # PREPARED: its real-world outcome is unresolved
    "running": True,  # EXECUTING: a send may be in flight
    "waiting": True,  # still in flight, parked on a person or a check
    "reconciling": True,  # RECONCILIATION: ambiguous by definition
    "succeeded": True,  # VERIFIED: re-applying needs an explicit rollback first
    "rolling-back": True,  # ROLLING_BACK: unwind in flight
    "rollback-failed": True,  # ROLLBACK_FAILED: needs manual reconciliation
    "failed": False,  # FAILED: proven zero effect
    "cancelled": False,
    "superseded": False,
    "expired": False,  # EXPIRED: could never have executed
    "rolled-back": False,  # ROLLED_BACK: verified revert to baseline
}


def blocks_fresh_attempt(status: str) -> bool:
    """True when an attempt in ``status`` blocks a fresh attempt at its request key.

    The single source of truth for section 9's classification.

    Raises:
        KeyError: ``status`` is not an attempt status.
    """
    return BLOCKING[status]


def statuses_for(phase: str | None) -> frozenset[str]:
    """Statuses an event may carry for ``phase`` (section 4, event)."""
    if phase is None:
        return ATTEMPT_LEVEL_STATUSES
    if phase == ROLLBACK:
        return ROLLBACK_STATUSES
    return PHASE_STATUSES


_ROLLBACK_OUTCOME = {"started": "rolling-back", "succeeded": "rolled-back",
                     "failed": "rollback-failed"}


@value(frozen=False)
class ReplayState:
    """Mutable replay state of one attempt (section 8).

    ``last`` maps each plan phase that has a record to ``(status, reason)`` of its
    last record; ``overall`` is the attempt-level or rollback outcome with its reason
    (None before any); ``events`` counts applied records.
    """

    plan: tuple[str, ...]
    expires_at: str
    last: dict[str, tuple[str, str | None]]
    overall: tuple[str, str | None] | None = None
    events: int = 0

    @classmethod
    def start(cls, plan: tuple[str, ...], expires_at: str) -> ReplayState:
        """The state of an attempt with no event."""
        return cls(plan, expires_at, {})


def derive_status(state: ReplayState) -> tuple[AttemptStatus, str | None, str | None]:
    """Return ``(status, reason, phase)`` of an attempt from its replay state (section 8).

    ``reason`` is that of the record that set the status (section 10: waiting, unknown,
    failed, cancelled, superseded, expired, or the failed rollback), else None.
    ``phase`` is the phase the recovery selector names (first not-succeeded plan
    phase, the first ``unknown`` one when reconciling, ``rollback`` when rolling back),
    else None.
    """
    if state.overall is not None:
        status, reason = state.overall
        if status == "rolling-back":
            return "rolling-back", None, ROLLBACK
        if status == "rolled-back":
            return "rolled-back", None, None
        return _AS_STATUS[status], reason, None
    last = state.last
    first_open: str | None = None
    first_unknown: tuple[str, str | None] | None = None
    for phase in state.plan:
        seen = last.get(phase)
        if seen is None:
            if first_open is None:
                first_open = phase
            continue
        status, reason = seen
        if status in ("failed", "cancelled", "superseded"):
            return _AS_STATUS[status], reason, None
        if status == "succeeded":
            continue
        if first_open is None:
            first_open = phase
        if status == "unknown" and first_unknown is None:
            first_unknown = (phase, reason)
    if first_open is None:
        return "succeeded", None, None
    if first_unknown is not None:
        return "reconciling", first_unknown[1], first_unknown[0]
    seen = last.get(first_open)
    if seen is not None and seen[0] == "waiting":
        return "waiting", seen[1], first_open
    if state.events == 0:
        return "pending", None, first_open
    return "running", None, first_open




def _kind(step: Step) -> str:
    """Which rows of ``TRANSITIONS`` can apply: attempt-level, rollback or a plan phase."""
    return "attempt" if step.phase is None else "rollback" if step.phase == ROLLBACK else "plan"


def _later_has_record(s: str, step: Step, st: ReplayState) -> bool:
    last = st.last
    for phase in st.plan[st.plan.index(step.phase) + 1:]:
        if phase in last:
            return True
    return False


def _earlier_open(s: str, step: Step, st: ReplayState) -> bool:
    last = st.last
    for phase in st.plan[:st.plan.index(step.phase)]:
        seen = last.get(phase)
        if seen is None or seen[0] != "succeeded":
            return True
    return False


def _phase_terminal(s: str, step: Step, st: ReplayState) -> bool:
    seen = st.last.get(step.phase) if step.phase is not None else None
    return seen is not None and seen[0] in PHASE_TERMINAL


def _unknown_not_resolved(s: str, step: Step, st: ReplayState) -> bool:
    seen = st.last.get(step.phase) if step.phase is not None else None
    return (seen is not None and seen[0] == "unknown"
            and step.status not in ("succeeded", "failed", "unknown"))


_ANY: frozenset[str] = frozenset(ATTEMPT_STATUSES)

TRANSITIONS: tuple[tuple[str, Failure, str, frozenset[str], Guard], ...] = (
    # (rule, code, records it concerns, attempt statuses it concerns,
    #  guard(attempt status before, record, state)) -- section 8 in its order.
    # "any" rows concern every record; _ANY every attempt status.
    ("terminal attempt takes no record", "rewritten_terminal", "any", TERMINAL,
     lambda s, r, st: True),
    ("succeeded attempt takes only rollback started", "rewritten_terminal", "any",
     frozenset({"succeeded"}),
     lambda s, r, st: not (r.phase == ROLLBACK and r.status == "started")),
    ("rolling-back takes only rollback succeeded/failed", "illegal_transition", "any",
     frozenset({"rolling-back"}),
     lambda s, r, st: not (r.phase == ROLLBACK and r.status in ("succeeded", "failed"))),
    ("reconciling refuses attempt-level cancelled/superseded", "illegal_transition",
     "attempt", frozenset({"reconciling"}),
     lambda s, r, st: r.status in ("cancelled", "superseded")),
    ("expired only while pending and at >= expires_at", "illegal_transition", "attempt", _ANY,
     lambda s, r, st: r.status == "expired" and not (s == "pending" and r.at >= st.expires_at)),
    ("rollback only from succeeded or rolling-back", "illegal_transition", "rollback",
     _ANY - {"succeeded", "rolling-back"}, lambda s, r, st: True),
    ("phase not in the plan", "undeclared_phase", "plan", _ANY,
     lambda s, r, st: r.phase not in st.plan),
    ("a later plan phase already has a record", "out_of_order_phase", "plan", _ANY,
     _later_has_record),
    ("phase result is terminal", "rewritten_terminal", "plan", _ANY, _phase_terminal),
    ("an earlier plan phase has not succeeded", "missing_predecessor", "plan", _ANY,
     _earlier_open),
    ("unknown resolves only to succeeded, failed or unknown", "illegal_transition", "plan",
     _ANY, _unknown_not_resolved),
)
"""Section 8 as one table: the first row that concerns the record and the attempt's
status, and whose guard holds, refuses the record with its code."""

# The rows each (record kind, attempt status) pair must consult, in table order.
_ROWS = {(kind, status): tuple((rule, code, guard)
                               for rule, code, concerns, statuses, guard in TRANSITIONS
                               if concerns in ("any", kind) and status in statuses)
         for kind in ("attempt", "rollback", "plan") for status in ATTEMPT_STATUSES}


def refusal(state: ReplayState, step: Step) -> tuple[Failure, str] | None:
    """Return ``(code, rule)`` of the first ``TRANSITIONS`` row refusing ``step``, or None
    when no row refuses it (section 8)."""
    status = derive_status(state)[0]
    for rule, code, guard in _ROWS[_kind(step), status]:
        if guard(status, step, state):
            return code, f"{rule} (attempt {status}, record {step.phase} {step.status})"
    return None


def apply(state: ReplayState, step: Step, reason: str | None) -> None:
    """Apply a record that ``refusal`` accepted to ``state`` (section 8)."""
    state.events += 1
    if step.phase is None:
        state.overall = (step.status, reason)
    elif step.phase == ROLLBACK:
        state.overall = (_ROLLBACK_OUTCOME[step.status], reason)
    else:
        state.last[step.phase] = (step.status, reason)


def missing_phases(state: ReplayState) -> tuple[str, ...]:
    """Plan phases whose last status is not ``succeeded``, in plan order (section 10)."""
    return tuple(p for p in state.plan if state.last.get(p, ("",))[0] != "succeeded")


RECOVERY: Mapping[str, str] = {
    "pending": "continue:{phase}",
    "running": "continue:{phase}",
    "rolling-back": "continue:rollback",
    "waiting": "wait:{phase}",
    "reconciling": "reconcile:{phase}",
    "succeeded": "none",
    "failed": "successor",
    "cancelled": "successor",
    "expired": "successor",
    "rolled-back": "successor",
    "superseded": "new-generation",
    "rollback-failed": "manual",
    "empty": "admit",
    "invalid": "fail-closed",
}
"""Section 10: the one recovery selector of each status."""


def recovery_for(status: str, phase: str | None = None) -> str:
    """Return the recovery selector for ``status`` (section 10); ``phase`` fills ``{phase}``.

    Raises:
        KeyError: ``status`` is not a verdict status.
        ValueError: the selector needs a phase and none was given.
    """
    template = RECOVERY[status]
    if "{phase}" in template:
        if phase is None:
            raise ValueError(f"recovery for {status} names a phase; none given")
        return template.replace("{phase}", phase)
    return template


def transition_table_markdown() -> str:
    """``TRANSITIONS`` as a Markdown table (for the docs, which a test keeps in sync)."""
    lines = ["| # | record | attempt status | rule | code |",
             "| --- | --- | --- | --- | --- |"]
    for number, (rule, code, concerns, statuses, _) in enumerate(TRANSITIONS, 1):
        shown = ("any" if statuses == _ANY else
                 "not " + ", ".join(sorted(_ANY - statuses)) if len(statuses) > len(_ANY) / 2
                 else ", ".join(sorted(statuses)))
        lines.append(f"| {number} | {concerns} | {shown} | {rule} | `{code}` |")
    return "\n".join(lines) + "\n"


def __getattr__(name: str) -> object:
    """``AttemptStatus`` at run time (``Literal`` of ``ATTEMPT_STATUSES``), on first use."""
    if name == "AttemptStatus":
        from typing import Literal

        return Literal[ATTEMPT_STATUSES]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    blocks_fresh_attempt, recovery_for,
):
    _exported.__module__ = "ghattempt.core"
del _exported
