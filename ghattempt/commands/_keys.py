"""The two keys a request writes under, each derived here and nowhere else.

Shape::

    request_key(config, *, given, repository_id, pull_request, base_ref, channel) -> str
    event_key(writer: Writer, phase: str, status: str) -> str

The *request key* names the chain of attempts a request belongs to (journal-v1 section
4, attempt ``request_key``): the one a request gives, else ``attempt.request_key`` of
the configuration rendered for the intent and the channel (docs/configuration.md). The
writers (the command line, the Action, the App) and the readers (``status``, ``show``,
the Action's outputs) ask :func:`request_key`; so a reader reads the chain its writers
write.

An *event key* is the idempotency key of one event (section 3 *key*; the idempotency
note in docs/decisions.md): the one a request gives, else :func:`event_key` of the
writer, the phase and the status, so the same step run again reuses it and two steps
never share one. In Actions it names the run, its attempt and the job
(``gha:<run id>:<run attempt>:<job>:<phase>:<status>``); elsewhere the writer's lease
holder label (``cli:<actor>:<phase>:<status>``, ``app-<id>:<phase>:<status>``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.core import Writer

__all__ = ["event_key", "request_key"]


def request_key(config: LoadedConfig, *, given: str | None, repository_id: str,
                pull_request: int, base_ref: str, channel: str | None = None) -> str:
    """The request key of a request: ``given``, else the configuration's
    ``attempt.request_key`` rendered for the intent and ``channel`` (None: the default
    channel).

    Raises:
        ConfigError: no such channel, or the template renders no *key* (exit 2).
    """
    if given:
        return given
    return config.request_key(repository_id=repository_id, pull_request=pull_request,
                              base_ref=base_ref, channel=channel)


def event_key(writer: Writer, phase: str, status: str) -> str:
    """The idempotency key of ``writer``'s event ``phase`` ``status`` when the request
    names none (``phase``: a plan phase, ``attempt`` or ``rollback``). Characters outside
    the key alphabet become ``-``; at most 128 characters (``ghattempt.core.key_from``).
    """
    from ghattempt.core import ActionsWriter, key_from

    if isinstance(writer, ActionsWriter):
        parts = [str(writer.run_id), str(writer.run_attempt), writer.job, phase or "attempt",
                 status]
        return key_from("gha:" + ":".join(parts))
    from ghattempt.compose import holder_label

    return key_from(f"{holder_label(writer).replace('/', ':')}:{phase}:{status}")


# Public as ghattempt.commands (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    event_key, request_key,
):
    _exported.__module__ = "ghattempt.commands"
del _exported
