"""The curated public namespace of ghattempt.app."""

from __future__ import annotations

import inspect

import ghattempt.app as app
from ghattempt.app.sink import JournalSink


def test_all_names_exist_and_are_documented():
    assert sorted(app.__all__) == sorted(set(app.__all__))
    for name in app.__all__:
        obj = getattr(app, name)
        assert inspect.getdoc(obj), f"{name} has no docstring"


def test_recording_sink_satisfies_the_protocol(tmp_path):
    from ghattempt.app.recording import RecordingSink

    assert isinstance(RecordingSink(tmp_path / "r.sqlite"), JournalSink)
    assert not isinstance(object(), JournalSink)


def test_requests_are_frozen_slotted_records():
    import dataclasses

    import pytest

    from ghattempt.app import sink

    for cls in (sink.IntentRef, sink.GenerationRef, sink.AppWriter, sink.OpenIntent,
                sink.SupersedeAndAdmit, sink.PhaseResult, sink.CancelAttempt,
                sink.TamperingReport, sink.SinkResult):
        assert dataclasses.is_dataclass(cls) and "__slots__" in vars(cls), cls
    writer = sink.AppWriter(1, "d")
    with pytest.raises(dataclasses.FrozenInstanceError):
        writer.delivery = "other"  # type: ignore[misc]
