"""Edge cases of the core's slotted value classes (``ghattempt/core/_slots.py``) held
against the ``dataclasses`` behaviour they replace (``frozen=True, slots=True``)."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import typing
import weakref
from typing import ClassVar

import pytest

from ghattempt.core import Verdict
from ghattempt.core._capture import reconstruct
from ghattempt.core._journal import PhaseState
from ghattempt.core._rules import ReplayState
from ghattempt.core._slots import field, frozen, mutable, replace
from ghattempt.core.testing import Scenario


@frozen
class One:
    x: float


@dataclasses.dataclass(frozen=True, slots=True)
class DataOne:
    x: float


@frozen
class Uncompared:
    note: str = field(default="", compare=False)


@dataclasses.dataclass(frozen=True, slots=True)
class DataUncompared:
    note: str = dataclasses.field(default="", compare=False)


def test_one_compared_field_compares_and_hashes_as_a_dataclass() -> None:
    nan = float("nan")
    assert (One(nan) == One(nan)) == (DataOne(nan) == DataOne(nan))  # same object: equal
    assert (One(nan) == One(float("nan"))) == (DataOne(nan) == DataOne(float("nan")))
    assert hash(One(1.5)) == hash(DataOne(1.5))


def test_a_class_with_no_compared_field_builds_and_all_its_instances_are_equal() -> None:
    assert (Uncompared("a") == Uncompared("b")) == (DataUncompared("a") == DataUncompared("b"))
    assert hash(Uncompared("a")) == hash(DataUncompared("b"))


def test_a_mutable_default_is_refused_as_dataclasses_refuse_it() -> None:
    for default in ([], {}, set()):
        with pytest.raises(ValueError, match="mutable default .* shared by every instance"):
            @mutable
            class Shared:
                items: object = default
    @frozen
    class Fine:
        items: tuple[int, ...] = ()
        names: frozenset[str] = frozenset()

    assert Fine().items == () and Fine.__match_args__ == ("items", "names")


def test_class_variables_are_recognised_however_classvar_is_spelled() -> None:
    @frozen
    class Spelled:
        a: typing.ClassVar[int] = 1
        b: ClassVar[str] = "b"
        c: typing.ClassVar = 3
        x: int = 0

    assert Spelled.__match_args__ == ("x",)
    assert (Spelled.a, Spelled.b, Spelled.c, Spelled().x) == (1, "b", 3, 0)


def test_init_names_a_misspelt_argument_before_the_one_it_leaves_missing() -> None:
    # Verdict(status=..., reson=...): the typo is the news, not the missing 'reason'.
    with pytest.raises(TypeError, match=r"Verdict\(\) got an unexpected argument 'reson'"):
        Verdict(status="running", reson=None)  # type: ignore[call-arg]


def test_init_names_every_missing_argument() -> None:
    with pytest.raises(TypeError, match=r"Verdict\(\) missing arguments 'reason', 'intent', "):
        Verdict(status="running")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"One\(\) missing argument 'x'$"):
        One()  # type: ignore[call-arg]


def test_replace_refuses_an_object_that_is_not_a_slotted_value() -> None:
    with pytest.raises(TypeError, match=r"replace\(\) takes a @frozen or @mutable instance, "
                                        r"not DataOne"):
        replace(DataOne(1.0), x=2.0)
    with pytest.raises(TypeError, match="One has no field 'y'"):
        replace(One(1.0), y=2.0)


def _core_values() -> dict[str, object]:
    """One instance of every core value class, from a real read (nested states too)."""
    s = Scenario()
    a = s.attempt(plan=("admission", "build"))
    a.event("admission", "started")
    a.event("admission", "succeeded")
    material = a.material("m")
    verdict = s.read()
    capture = reconstruct(s.pages())
    assert verdict.journal is not None and verdict.current is not None
    attempt = verdict.current
    event = attempt.events[0]
    return {
        "Verdict": verdict, "JournalState": verdict.journal, "AttemptState": attempt,
        "Attempt": attempt.attempt, "Event": event, "Material": material,
        "Capture": capture, "Comment": capture.body,
        "ReplayState": ReplayState(("a",), "x", {"a": ("started", None)}, None, 1),
        "PhaseState": PhaseState("started", None),
    }


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_core_value_survives_pickling_at_every_protocol(protocol: int) -> None:
    for name, value in _core_values().items():
        back = pickle.loads(pickle.dumps(value, protocol))
        assert type(back) is type(value) and back == value, name
        if name not in ("Verdict", "JournalState"):  # a frozenset's repr follows its history
            assert repr(back) == repr(value), name


def test_every_core_value_survives_copy_and_deepcopy() -> None:
    for name, value in _core_values().items():
        shallow, deep = copy.copy(value), copy.deepcopy(value)
        assert shallow == value and deep == value, name
        first = type(value).__match_args__[0]  # type: ignore[attr-defined]
        assert getattr(shallow, first) is getattr(value, first), name
    verdict = _core_values()["Verdict"]
    assert isinstance(verdict, Verdict)
    deep = copy.deepcopy(verdict)
    assert deep.journal is not verdict.journal and deep.journal == verdict.journal


def test_match_statements_bind_fields_by_position_and_keyword() -> None:
    verdict = _core_values()["Verdict"]
    match verdict:
        case Verdict(status, reason, request_key=key):
            assert (status, reason, key) == ("running", None, "merge/pr-42@main")
        case _:
            pytest.fail("no match")
    match PhaseState("failed", "timeout"):
        case PhaseState("failed", reason):
            assert reason == "timeout"
        case _:
            pytest.fail("no match")


def test_weakref_vars_and_subclasses_behave_as_slotted_dataclasses() -> None:
    verdict = _core_values()["Verdict"]
    assert isinstance(verdict, Verdict)
    for value in (verdict, DataOne(1.0)):  # neither has __weakref__ nor __dict__
        with pytest.raises(TypeError):
            weakref.ref(value)
        with pytest.raises(TypeError):
            vars(value)

    class Sub(Verdict):
        pass

    sub = Sub(*[getattr(verdict, n) for n in Verdict.__match_args__])
    assert sub != verdict and sub.status == verdict.status  # exact class, as dataclasses
    with pytest.raises(AttributeError):
        sub.status = "done"  # type: ignore[misc]


def test_a_written_init_is_refused_where_it_could_not_work() -> None:
    with pytest.raises(TypeError, match=r"Locked: only a @mutable class may write __init__"):
        @frozen
        class Locked:
            a: int

            def __init__(self, a: int) -> None:
                self.a = a  # would raise FrozenInstanceError at every construction

    with pytest.raises(TypeError, match=r"Odd.__init__ must be a plain function"):
        @mutable
        class Odd:
            a: int
            __init__ = staticmethod(lambda a: None)  # type: ignore[assignment]

    for extra in ("*, b: int = 0", "*rest: int", "**rest: int"):
        namespace: dict[str, object] = {}
        exec(f"def __init__(self, a, {extra}):\n    self.a = a\n", namespace)  # noqa: S102
        with pytest.raises(TypeError, match=r"must take the fields \('a',\) in order"):
            mutable(type("Loose", (), {"__annotations__": {"a": "int"},
                                       "__init__": namespace["__init__"]}))
