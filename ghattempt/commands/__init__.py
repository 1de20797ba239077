"""The application layer: one typed request per use case, executed once for every face.

The command line (``ghattempt.cli``), the Action (``ghattempt.action``) and the App
(``ghattempt.app``) each turn their own input (arguments, ``INPUT_*``/``GITHUB_*``
variables, a routed webhook delivery) into the same request and call the same
:func:`execute`; none of them imports another, and none reaches the store or the
composition root but through here (docs/layout.md)::

    request = RecordEvent(target=Target("octo/app", 7), writer=CliWriter("alice"),
                     phase="build", status="succeeded")       # checked when built
    config = find_config(".github/ghattempt.toml", required=True)
    outcome = execute(request, config, Connection(token_env="GITHUB_TOKEN"))
    outcome.verdict, outcome.message, outcome.wrote
    plan(request, config, connection).planned                  # the same, nothing sent

=====================  =================================================================
requests (writing)     ``Admit``, ``RecordEvent``, ``OpenSuccessor``, ``Supersede``, ``Expire``,
                       ``Rollback`` (``Target``, ``Observed``, ``MaterialInput``);
                       ``RestoreLease`` (a person's restoration of a deleted lease ref)
a phase's work         ``Run`` -> ``RunOutcome`` (docs/run.md)
requests (reading)     ``Status``, ``Show``, ``CaptureJournal``
requests (checking)    ``Probe`` (``ProbeReport``, ``Observation``): GitHub's relied-on
                       behaviours, checked live on the user's repository
running                ``execute``, ``plan``, ``check``, ``WriteOutcome``, ``Reading``,
                       ``JournalPages``, ``Connection``, ``find_config``
keys                   ``request_key``, ``event_key``
errors                 ``CommandError``, ``RequestError``, ``NotYet``, ``NoJournal``,
                       ``PartWritten``
inputs                 ``materials_from``, ``public_text``, ``refuse_secrets``,
                       ``looks_secret``, ``secret_values``, ``split_repository``
reading helpers        ``reader_identity``, ``verdict_for``, ``reader_digest``,
                       ``journal_url``
a job's memory         ``memo_path``, ``recall``, ``remember``
=====================  =================================================================

Each name is imported from the module defining it on first use (PEP 562), so a reading
command never loads the store's writer side (cold start, tests/cli/test_startup.py).
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from ghattempt.config import LoadedConfig

    from ._connection import DEFAULT_SERVER_URL, Connection, connect, find_config, journal_url
    from ._errors import CommandError, NoJournal, NotYet, PartWritten, RequestError
    from ._keys import event_key, request_key
    from ._known import memo_path, recall, remember
    from ._probe import Observation, Probe, ProbeReport
    from ._reading import (
        JournalPages,
        Reading,
        capture,
        read,
        reader_digest,
        reader_identity,
        verdict_for,
    )
    from ._requests import (
        GRAPHQL_INT_MAX,
        Admit,
        CaptureJournal,
        Expire,
        MaterialInput,
        Observed,
        OpenSuccessor,
        ReadRequest,
        RecordEvent,
        RestoreLease,
        Rollback,
        Run,
        Show,
        Status,
        Supersede,
        Target,
        WriteRequest,
        check,
        materials_from,
        split_repository,
    )
    from ._run import RunOutcome
    from ._secrets import looks_secret, public_text, refuse_secrets, secret_values
    from ._writing import WriteOutcome, plan, restore_lease

_SUBMODULE = {
    **dict.fromkeys(("DEFAULT_SERVER_URL", "Connection", "connect", "journal_url",
                     "find_config"), "._connection"),
    **dict.fromkeys(("CommandError", "NoJournal", "NotYet", "PartWritten", "RequestError"),
                    "._errors"),
    **dict.fromkeys(("event_key", "request_key"), "._keys"),
    **dict.fromkeys(("Observation", "Probe", "ProbeReport"), "._probe"),
    **dict.fromkeys(("memo_path", "recall", "remember"), "._known"),
    **dict.fromkeys(("JournalPages", "Reading", "capture", "read", "reader_digest",
                     "reader_identity", "verdict_for"), "._reading"),
    **dict.fromkeys(("GRAPHQL_INT_MAX", "Admit", "CaptureJournal", "Expire", "MaterialInput",
                     "Observed", "ReadRequest", "RecordEvent", "RestoreLease", "Rollback",
                     "Run", "Show", "Status",
                     "OpenSuccessor", "Supersede", "Target", "WriteRequest", "check",
                     "materials_from", "split_repository"), "._requests"),
    **dict.fromkeys(("looks_secret", "public_text", "refuse_secrets", "secret_values"),
                    "._secrets"),
    **dict.fromkeys(("WriteOutcome", "plan", "restore_lease"), "._writing"),
    "RunOutcome": "._run",
}
"""Exported name -> the module defining it."""

__all__ = [
    "DEFAULT_SERVER_URL",
    "GRAPHQL_INT_MAX",
    "Admit",
    "CaptureJournal",
    "JournalPages",
    "CommandError",
    "Connection",
    "Expire",
    "MaterialInput",
    "NoJournal",
    "NotYet",
    "Observation",
    "Observed",
    "WriteOutcome",
    "PartWritten",
    "Probe",
    "ProbeReport",
    "ReadRequest",
    "Reading",
    "RecordEvent",
    "RequestError",
    "RestoreLease",
    "Rollback",
    "Run",
    "RunOutcome",
    "Show",
    "Status",
    "OpenSuccessor",
    "Supersede",
    "Target",
    "WriteRequest",
    "capture",
    "check",
    "connect",
    "event_key",
    "execute",
    "journal_url",
    "find_config",
    "looks_secret",
    "materials_from",
    "memo_path",
    "plan",
    "public_text",
    "read",
    "reader_digest",
    "reader_identity",
    "recall",
    "refuse_secrets",
    "remember",
    "request_key",
    "restore_lease",
    "secret_values",
    "split_repository",
    "verdict_for",
]


@_typing.overload
def execute(request: WriteRequest, config: LoadedConfig,
            connection: Connection) -> WriteOutcome: ...
@_typing.overload
def execute(request: Run, config: LoadedConfig, connection: Connection) -> RunOutcome: ...
@_typing.overload
def execute(request: Status | Show, config: LoadedConfig | None,
            connection: Connection) -> Reading: ...
@_typing.overload
def execute(request: Probe, config: LoadedConfig | None,
            connection: Connection) -> ProbeReport: ...
@_typing.overload
def execute(request: CaptureJournal, config: LoadedConfig | None,
            connection: Connection) -> JournalPages: ...
@_typing.overload
def execute(request: RestoreLease, config: LoadedConfig,
            connection: Connection) -> WriteOutcome: ...
def execute(request: _typing.Any, config: _typing.Any, connection: _typing.Any) -> _typing.Any:
    """Run one request under ``config`` (the loaded configuration; a reading may have
    none) through ``connection``: a writing request (and ``RestoreLease``) gives an
    :class:`WriteOutcome`, ``Status`` and ``Show`` a :class:`Reading`, ``CaptureJournal``
    the :class:`JournalPages`, ``Run`` a :class:`RunOutcome` (the phase's work run at most
    once: docs/run.md), ``Probe`` the :class:`ProbeReport` (it writes, on a throwaway
    discussion, and removes what it wrote).

    Every check that needs no request to GitHub runs first (the request's own when it
    was built, :func:`check` for what needs the configuration): an input error is raised
    before anything is sent.
    """
    from . import _probe, _requests

    if isinstance(request, _probe.Probe):
        return _probe.probe(request, config, connection)
    if isinstance(request, _requests.Status | _requests.Show | _requests.CaptureJournal):
        from . import _reading

        if isinstance(request, _requests.CaptureJournal):
            return _reading.capture(request, config, connection)
        return _reading.read(request, config, connection)
    if isinstance(request, _requests.Run):
        from . import _run

        return _run.run(request, config, connection)
    from . import _writing  # a reading never loads the writer side (cold start)

    if isinstance(request, _requests.RestoreLease):
        return _writing.restore_lease(request, config, connection)
    return _writing.write(request, config, connection)



def __getattr__(name: str) -> _typing.Any:
    """Import the module defining ``name`` (one of ``__all__``) and return the name.

    Raises:
        AttributeError: ``name`` is not exported here.
    """
    module = _SUBMODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
