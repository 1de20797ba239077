"""One vocabulary for ghattempt's protocols with retries: the steps a pure machine asks
for, the results it is fed, its rules as a table, and the one loop that drives it.

The lease's machines (``ghattempt.exclusive``: acquire, renew, release) and the store's
(``ghattempt.store``: the append of one record, the capture that must meet the witness)
are written in it. Standard library only, no I/O, no clock.
"""

from ._steps import (
    NOTICE_AFTER,
    Answered,
    Conflict,
    Done,
    Failed,
    Limited,
    Lost,
    Machine,
    Read,
    Refuse,
    Result,
    Rule,
    Send,
    Sleep,
    Step,
    TableMachine,
    drive,
    wait,
)

__all__ = [
    "NOTICE_AFTER",
    "Answered",
    "Conflict",
    "Done",
    "Failed",
    "Limited",
    "Lost",
    "Machine",
    "Read",
    "Refuse",
    "Result",
    "Rule",
    "Send",
    "Sleep",
    "Step",
    "TableMachine",
    "drive",
    "wait",
]
