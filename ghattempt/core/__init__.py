"""The pure journal core: every rule of the wire contract, no I/O.

The contract is docs/journal-format.md; each module cites its sections.

Stdlib only; imports nothing else from the package. The reader bundle
(``readers/business-attempt.pyz``) is built from this package alone.
"""

from __future__ import annotations

from ._c14n import canonical, digest
from ._capture import Capture, parse_capture
from ._capture import check_input as check_input
from ._capture import reconstruct as reconstruct
from ._codes import FAILURE_CODES, JournalInvalid
from ._errors import Fault as Fault
from ._errors import GhattemptError as GhattemptError  # public as ghattempt.errors
from ._journal import (
    AttemptState,
    JournalState,
    PhaseState,
    Verdict,
    find_blocking,
    find_history,
    read_capture,
    read_journal,
)
from ._journal import invalid_verdict as invalid_verdict
from ._lease import (
    LEASE_HEADLINE,
    NO_WITNESS,
    Lease,
    Witness,
    build_lease,
    lease_ref_name,
    parse_lease,
    scope_key,
)
from ._records import (
    ActionsWriter,
    AppWriter,
    Attempt,
    CliWriter,
    Event,
    Generation,
    Intent,
    Material,
    Record,
    Writer,
    is_digest,
    is_key,
    is_oid,
    is_reason,
    markers,
    parse_body,
)
from ._rules import (
    ATTEMPT_STATUSES,
    PHASES,
    blocks_fresh_attempt,
    recovery_for,
)
from ._rules import PHASE_TERMINAL as PHASE_TERMINAL

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from typing import Any

    from ._build import (
        RecordValueError,
        build_attempt,
        build_event,
        build_generation,
        build_intent,
        build_material,
        check_attempt,
        check_event,
        key_from,
        next_event,
        record_block,
        render_body,
    )
    from ._codes import Failure
    from ._readback import READ_BACK_OUTCOMES, ReadBack, read_back
    from ._reader_main import run as _run_reader

    run_reader = _run_reader
    from ._requalify import (
        VERIFY_OUTCOMES,
        ObservedFile,
        ReleaseAsset,
        ReleaseCheck,
        Requalification,
        compare_release,
        file_material,
        material_id,
        material_path,
        readback_material,
        requalify,
        workspace_path_problem,
    )
    from ._rules import AttemptStatus
    from ._run import (
        DECISION_KINDS,
        LIVENESS,
        OUTCOMES,
        Decision,
        RunNeeds,
        RunRequest,
        Write,
        after_verify,
        after_work,
        decide,
        describe_writer,
        hand_commands,
        run_needs,
    )

_WRITER_SIDE = frozenset({"RecordValueError", "build_attempt", "build_event",
                          "build_generation", "build_intent", "build_material",
                          "check_attempt", "check_event", "key_from", "next_event",
                          "record_block", "render_body"})
_READ_BACK = frozenset({"READ_BACK_OUTCOMES", "ReadBack", "read_back"})
_RUN = frozenset({"DECISION_KINDS", "LIVENESS", "OUTCOMES", "Decision", "RunNeeds",
                  "RunRequest", "Write", "after_verify", "after_work", "decide",
                  "describe_writer", "hand_commands", "run_needs"})
_REQUALIFY = frozenset({"VERIFY_OUTCOMES", "ObservedFile", "ReleaseAsset", "ReleaseCheck",
                        "Requalification", "compare_release", "file_material", "material_id",
                        "material_path", "readback_material", "requalify",
                        "workspace_path_problem"})


def __getattr__(name: str) -> Any:
    """Load the builders, the read-back, the ``run`` step's decision table and
    re-qualification, and the ``Literal`` types ``Failure`` and ``AttemptStatus`` (which
    need ``typing``), on first use: the reader needs none of them (start-up); and
    ``run_reader``, the reader's one invocation (arguments and stdin to a verdict), for
    ``ghattempt read``."""
    from importlib import import_module

    if name in _WRITER_SIDE:
        source = import_module("._build", __name__)
    elif name in _READ_BACK:
        source = import_module("._readback", __name__)
    elif name in _RUN:
        source = import_module("._run", __name__)
    elif name in _REQUALIFY:
        source = import_module("._requalify", __name__)
    elif name == "run_reader":
        value = import_module("._reader_main", __name__).run
        globals()[name] = value
        return value
    elif name in ("Failure", "AttemptStatus"):
        source = import_module("._codes" if name == "Failure" else "._rules", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(source, name)
    globals()[name] = value
    return value


# Importable from here too, outside the curated namespace below: ``check_input``,
# ``reconstruct``, ``invalid_verdict``, ``PHASE_TERMINAL`` and ``run_reader``, the reader's
# own steps, which the command line's ``read`` and ``show`` reuse.
__all__ = [
    "Capture",
    "parse_capture",
    "read_capture",
    "LEASE_HEADLINE",
    "NO_WITNESS",
    "READ_BACK_OUTCOMES",
    "ReadBack",
    "read_back",
    "DECISION_KINDS",
    "LIVENESS",
    "OUTCOMES",
    "Decision",
    "RunNeeds",
    "RunRequest",
    "Write",
    "after_verify",
    "after_work",
    "decide",
    "describe_writer",
    "hand_commands",
    "run_needs",
    "VERIFY_OUTCOMES",
    "ObservedFile",
    "ReleaseAsset",
    "ReleaseCheck",
    "Requalification",
    "compare_release",
    "file_material",
    "material_id",
    "material_path",
    "readback_material",
    "requalify",
    "workspace_path_problem",
    "Lease",
    "Witness",
    "build_lease",
    "lease_ref_name",
    "parse_lease",
    "scope_key",
    "key_from",
    "is_digest",
    "is_key",
    "is_oid",
    "is_reason",
    "markers",
    "ATTEMPT_STATUSES",
    "FAILURE_CODES",
    "PHASES",
    "ActionsWriter",
    "AppWriter",
    "Attempt",
    "AttemptState",
    "AttemptStatus",
    "CliWriter",
    "Event",
    "Failure",
    "Generation",
    "Intent",
    "JournalInvalid",
    "JournalState",
    "Material",
    "PhaseState",
    "Record",
    "RecordValueError",
    "Verdict",
    "Writer",
    "blocks_fresh_attempt",
    "build_attempt",
    "build_event",
    "build_generation",
    "build_intent",
    "build_material",
    "check_attempt",
    "check_event",
    "next_event",
    "record_block",
    "render_body",
    "canonical",
    "digest",
    "find_blocking",
    "find_history",
    "parse_body",
    "read_journal",
    "recovery_for",
]
