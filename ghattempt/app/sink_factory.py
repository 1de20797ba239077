"""Building the journal sink named by ``GHATTEMPT_APP_SINK`` (``module:callable``).

The callable takes the :class:`~ghattempt.app.settings.AppSettings` and returns a
:class:`~ghattempt.app.sink.JournalSink`. The default, :func:`store_sink`, is the
business attempt store; :func:`ghattempt.app.recording.recording_sink` is the
recording test double.
"""

from __future__ import annotations

import importlib

from ghattempt.app.settings import AppSettings, ConfigurationError
from ghattempt.app.sink import JournalSink

__all__ = ["load_sink", "store_sink"]


def store_sink(settings: AppSettings) -> JournalSink:
    """The journal sink backed by the business attempt store.

    Raises:
        ConfigurationError: this build has no store adapter for the App yet; name
            another sink with ``GHATTEMPT_APP_SINK``.
    """
    raise ConfigurationError(
        "the business attempt store adapter for the App is not part of this build: "
        "set GHATTEMPT_APP_SINK to a 'module:callable' that returns a JournalSink"
    )


def load_sink(settings: AppSettings) -> JournalSink:
    """Import and call ``settings.sink``; check that the result is a JournalSink.

    Raises:
        ConfigurationError: the module or callable cannot be found, or the result lacks
            a JournalSink method.
    """
    module_name, _, attr = settings.sink.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"GHATTEMPT_APP_SINK: cannot import {module_name!r}: {exc}"
        ) from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ConfigurationError(f"GHATTEMPT_APP_SINK: {settings.sink!r} is not a callable")
    sink = factory(settings)
    if not isinstance(sink, JournalSink):
        raise ConfigurationError(
            f"GHATTEMPT_APP_SINK: {settings.sink!r} returned {type(sink).__name__}, which "
            "lacks a JournalSink method"
        )
    return sink
