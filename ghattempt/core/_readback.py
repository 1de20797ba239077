"""What a read-back means: a write whose answer was lost, judged on a fresh capture.

A writer that sent a record and got no answer (a timeout, a 502/504, a connection reset
after sending) cannot know whether GitHub committed it. It captures the journal again
and asks :func:`read_back` what the capture says about that one record (architecture
notes, "The writer protocol", step 5):

=============  ==============================================================  =========
outcome        the capture holds                                               next
=============  ==============================================================  =========
``landed``     the record itself (same digest)                                 done
``absent``     neither the record nor anything built where it would stand      send the
                                                                               same bytes
``conflict``   another record under the event's idempotency key                refuse
``moved``      another record where this one would stand: the attempt's head   refuse
               moved past the event's ``prev``, or another attempt of the
               request key with the same predecessor (a fork)
``vanished``   no longer the attempt the event belongs to                      refuse
=============  ==============================================================  =========

Only ``absent`` allows a resend, and only of the very same bytes (the record is never
rebuilt: a new ``at`` or key would be a second operation). The caller still proves it
holds the writer scope before resending. Pure: no I/O, stdlib only.
"""

from __future__ import annotations

from ._records import Attempt, Event
from ._value import value

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from ._journal import JournalState

LANDED = "landed"
ABSENT = "absent"
CONFLICT = "conflict"
MOVED = "moved"
VANISHED = "vanished"

READ_BACK_OUTCOMES = (LANDED, ABSENT, CONFLICT, MOVED, VANISHED)
"""Every outcome :func:`read_back` gives, in the order of the module table."""


@value
class ReadBack:
    """The meaning of a capture for one record whose write's answer was lost.

    Attributes:
        outcome: one of :data:`READ_BACK_OUTCOMES`.
        record: the digest of the record that was sent.
        found: the digest of the record standing in its place (``conflict``: the one
            holding the key; ``moved``: the new head, or the other attempt), else None.
        detail: one sentence saying what the capture showed.
    """

    outcome: str
    record: str
    found: str | None
    detail: str

    @property
    def resend(self) -> bool:
        """True only for ``absent``: the same bytes may be sent again."""
        return self.outcome == ABSENT


def read_back(state: JournalState, record: Attempt | Event) -> ReadBack:
    """What ``state`` (a capture made after the answer was lost) says about ``record``.

    Args:
        state: the replayed journal of a capture made after the write was sent.
        record: the attempt root or event record whose write's answer was lost.

    Returns:
        A :class:`ReadBack` (see the module table).

    Raises:
        TypeError: ``record`` is neither an attempt nor an event record.
    """
    digest = record.digest
    if isinstance(record, Event):
        return _event(state, record)
    if not isinstance(record, Attempt):
        raise TypeError(f"read_back takes an attempt or event record, not {type(record)!r}")
    if state.attempt(digest) is not None:
        return ReadBack(LANDED, digest, None, f"attempt {digest} is in the journal")
    for other in state.attempts:
        if (other.request_key == record.request_key
                and other.predecessor == record.predecessor):
            return ReadBack(MOVED, digest, other.id,
                            f"attempt {other.id} of request key {record.request_key} with "
                            "the same predecessor is in the journal instead")
    return ReadBack(ABSENT, digest, None, f"attempt {digest} is not in the journal")


def _event(state: JournalState, event: Event) -> ReadBack:
    digest = event.digest
    attempt = state.attempt(event.attempt)
    if attempt is None:
        return ReadBack(VANISHED, digest, None, f"attempt {event.attempt} of event {digest} "
                        "is no longer in the journal")
    found = attempt.event_by_key(event.key)
    if found is not None:
        if found.digest == digest:
            return ReadBack(LANDED, digest, None, f"event {digest} (key {event.key}) is in "
                            "the journal")
        return ReadBack(CONFLICT, digest, found.digest, f"key {event.key} holds event "
                        f"{found.digest}, not {digest}")
    if attempt.head_digest != event.prev:
        return ReadBack(MOVED, digest, attempt.head_digest,
                        f"the head of attempt {event.attempt} moved from {event.prev} to "
                        f"{attempt.head_digest}")
    return ReadBack(ABSENT, digest, None, f"event {digest} (key {event.key}) is not in the "
                    "journal and the head of its attempt is unchanged")


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    ReadBack, read_back,
):
    _exported.__module__ = "ghattempt.core"
del _exported
