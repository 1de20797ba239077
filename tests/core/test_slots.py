"""The core's slotted value classes (``ghattempt/core/_slots.py``): the behaviour the
records, states and verdict rely on, compared with ``dataclasses`` where they agree."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import ClassVar

import pytest

from ghattempt.core import Verdict
from ghattempt.core._records import ActionsWriter, Material
from ghattempt.core._slots import FrozenInstanceError, field, frozen, mutable, replace
from ghattempt.core.testing import Scenario


@frozen
class Point:
    x: int
    y: int = 0
    label: str = field(default="", compare=False)
    kind: ClassVar[str] = "point"


@mutable
class Cell:
    value: int
    note: str | None = None


@dataclasses.dataclass(frozen=True)
class DataPoint:
    x: int
    y: int = 0
    label: str = dataclasses.field(default="", compare=False)


def test_init_binds_like_a_def_with_the_fields_as_parameters() -> None:
    assert (Point(1).x, Point(1).y, Point(1).label) == (1, 0, "")
    p = Point(1, 2, "a")
    assert (p.x, p.y, p.label) == (1, 2, "a")
    assert Point(y=3, x=1) == Point(1, 3)
    assert Point(1, label="b").label == "b"
    with pytest.raises(TypeError, match="missing argument 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="takes 3 arguments, 4 given"):
        Point(1, 2, "a", 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="two values for 'x'"):
        Point(1, x=2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected argument 'z'"):
        Point(1, z=2)  # type: ignore[call-arg]


def test_class_variables_are_not_fields_and_slots_hold_the_fields() -> None:
    assert Point.__match_args__ == ("x", "y", "label")
    assert Point.__slots__ == ("x", "y", "label")  # type: ignore[attr-defined]
    assert Point.kind == "point" and Point(1).kind == "point"
    assert not hasattr(Point(1), "__dict__")
    assert Point.__qualname__ == "Point" and Point.__module__ == __name__
    assert Point.__init__.__qualname__ == "Point.__init__"


def test_equality_and_hash_match_dataclasses() -> None:
    pairs = [((1, 2, "a"), (1, 2, "b")), ((1, 2, "a"), (1, 3, "a")), ((1,), (1, 0))]
    for left, right in pairs:
        mine = Point(*left) == Point(*right)  # type: ignore[arg-type]
        theirs = DataPoint(*left) == DataPoint(*right)  # type: ignore[arg-type]
        assert mine == theirs, (left, right)
        if mine:
            assert hash(Point(*left)) == hash(Point(*right))  # type: ignore[arg-type]
    assert Point(1) != DataPoint(1)  # type: ignore[comparison-overlap]
    assert Point(1).__eq__(object()) is NotImplemented
    assert {Point(1, 2, "a"), Point(1, 2, "b")} == {Point(1, 2)}


def test_frozen_refuses_assignment_and_deletion_and_mutable_allows_it() -> None:
    p = Point(1)
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x'"):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del p.y
    with pytest.raises(AttributeError):
        p.other = 1  # type: ignore[attr-defined]
    assert p.x == 1
    c = Cell(1)
    c.value = 2
    assert c == Cell(2) and c.note is None
    assert Cell.__hash__ is None


def test_repr_names_every_field() -> None:
    assert repr(Point(1, 2, "a")) == "Point(x=1, y=2, label='a')"
    assert repr(Cell(3)) == "Cell(value=3, note=None)"


def test_copy_pickle_and_replace_keep_values_and_frozenness() -> None:
    p = Point(1, 2, "a")
    for other in (copy.copy(p), copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert other == p and other.label == "a" and other is not p
        with pytest.raises(FrozenInstanceError):
            other.x = 5  # type: ignore[misc]
    assert replace(p, y=5) == Point(1, 5, "a")
    with pytest.raises(TypeError, match="no field 'z'"):
        replace(p, z=1)
    w = ActionsWriter(1, 2, "job", "wf")
    assert pickle.loads(pickle.dumps(w)) == w and copy.copy(w) == w


def test_the_verdict_leaves_its_journal_and_current_attempt_out_of_equality() -> None:
    s = Scenario()
    a = s.attempt(plan=("admission",))
    a.event("admission", "started")
    verdict = s.read()
    bare = replace(verdict, journal=None, current=None)
    assert bare == verdict  # unhashable, as its attempts are dicts
    assert isinstance(verdict, Verdict) and verdict.journal is not None
    m = a.material("m")
    assert isinstance(m, Material) and replace(m, bytes=m.bytes + 1) != m


def test_bad_class_definitions_are_refused() -> None:
    with pytest.raises(TypeError, match="without a default follows"):
        @frozen
        class Bad:
            a: int = 0
            b: int  # type: ignore[misc]

    class Base:
        pass

    with pytest.raises(TypeError, match="no base class"):
        @frozen
        class Derived(Base):
            a: int


def test_a_written_init_must_take_the_fields_in_order() -> None:
    @mutable
    class Fast:
        a: int
        b: str

        def __init__(self, a: int, b: str) -> None:
            self.a = a
            self.b = b

    assert Fast(1, "x") == Fast(a=1, b="x") and repr(Fast(1, "x")).endswith(".Fast(a=1, b='x')")
    with pytest.raises(TypeError, match=r"must take the fields \('a', 'b'\) in order"):
        @mutable
        class Wrong:
            a: int
            b: str

            def __init__(self, b: str, a: int) -> None:
                self.a = a
                self.b = b
