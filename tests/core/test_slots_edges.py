"""Edge cases of the core's slotted value classes (``ghattempt/core/_slots.py``) held
against the ``dataclasses`` behaviour they replace (``frozen=True, slots=True``)."""

from __future__ import annotations

import dataclasses
import typing
from typing import ClassVar

import pytest

from ghattempt.core import Verdict
from ghattempt.core._slots import field, frozen, mutable, replace


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
