"""Value classes: one small generator in place of ``dataclasses`` (docs/reader.md, Speed).

``@value`` makes a class of annotated fields a slotted value class, the way
``@dataclass(frozen=True, slots=True)`` would, with only what the core uses:

- the fields are the class's annotated names, in order; a field with a value in the
  class body takes it as its default (defaults must be immutable);
- ``__init__(self, <fields>)``, positional or keyword, is built once per class from
  the field names (the one piece of generated code);
- ``__eq__`` compares the fields of two instances of the same class (those named in
  ``eq_excludes`` aside); ``__hash__`` hashes the same fields; ``__repr__`` shows them;
- frozen (the default): assigning or deleting an attribute raises
  ``FrozenInstanceError``; ``frozen=False`` gives a mutable class without ``__hash__``;
- ``replace(obj, **changes)`` is a copy with some fields changed, as with ``dataclasses``.

Non-annotated class attributes (``kind = "actions"``) stay class attributes, as with
``dataclasses``. The class is rebuilt with ``__slots__``, so its methods must not use
``super()`` without arguments or ``__class__``.

Why not ``dataclasses``: importing it (with ``inspect``, ``ast`` and ``re``) and
decorating each class was most of the reader's start-up beyond compiling its sources,
and its frozen ``__init__`` sets each field through ``object.__setattr__``, which is
slow once per record.
"""

from __future__ import annotations

from operator import attrgetter

from ._errors import Fault, GhattemptError

TYPE_CHECKING = False  # spares importing typing at run time (reader start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T", bound=type)
    V = TypeVar("V")
else:
    def dataclass_transform(**_: object) -> Callable[[T], T]:
        return lambda function: function


class FrozenInstanceError(GhattemptError, AttributeError):
    """An assignment to, or deletion of, an attribute of a frozen value: a misuse by the
    caller (``fault``: bad input)."""

    fault = Fault.BAD_INPUT


def _refuse_set(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r} of a frozen "
                              f"{type(self).__name__}")


def _refuse_delete(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r} of a frozen "
                              f"{type(self).__name__}")


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    compared = self.__value_compared__
    return compared(self) == compared(other)


def _hash(self: Any) -> int:
    return hash(self.__value_compared__(self))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__value_fields__)
    return f"{type(self).__qualname__}({shown})"


@dataclass_transform(frozen_default=True)
def value(cls: T | None = None, /, *, frozen: bool = True,
          eq_excludes: tuple[str, ...] = ()) -> Any:
    """Make ``cls`` a slotted value class (see the module docstring).

    Use as ``@value`` or ``@value(frozen=False)`` / ``@value(eq_excludes=(...))``.
    """
    def build(cls: type) -> type:
        fields = tuple(cls.__dict__.get("__annotations__", {}))
        namespace = {k: v for k, v in cls.__dict__.items()
                     if k not in fields and k not in ("__dict__", "__weakref__")}
        defaults = {f: cls.__dict__[f] for f in fields if f in cls.__dict__}
        compared = tuple(f for f in fields if f not in eq_excludes)
        namespace.update(__slots__=fields, __value_fields__=fields,
                         __match_args__=fields, __eq__=_eq, __repr__=_repr,
                         __value_compared__=staticmethod(_fields_of(compared)))
        if frozen:
            namespace.update(__setattr__=_refuse_set, __delattr__=_refuse_delete,
                             __hash__=_hash)
        else:
            namespace["__hash__"] = None
        made = type(cls)(cls.__name__, cls.__bases__, namespace)
        made.__init__ = _make_init(made, fields, defaults)  # type: ignore[misc]
        return made

    return build if cls is None else build(cls)


def replace(obj: V, /, **changes: Any) -> V:
    """A copy of the value ``obj`` with the named fields changed (``dataclasses.replace``).

    Raises:
        TypeError: a name in ``changes`` is not a field of ``obj``.
    """
    fields = type(obj).__value_fields__  # type: ignore[attr-defined]
    unknown = changes.keys() - set(fields)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    return type(obj)(**{f: changes[f] if f in changes else getattr(obj, f) for f in fields})


def _fields_of(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """A function returning the tuple of the named attributes (always a tuple)."""
    get = attrgetter(*names) if names else (lambda obj: ())
    return get if len(names) != 1 else (lambda obj: (get(obj),))


def _make_init(cls: type, fields: tuple[str, ...], defaults: dict[str, Any]) -> Any:
    """Build ``__init__`` for ``fields``: each argument stored into its slot through the
    slot's own descriptor (so a frozen class's ``__setattr__`` is not involved)."""
    params = ", ".join(f"{f}=_d_{f}" if f in defaults else f for f in fields)
    body = "".join(f"    _s_{f}(self, {f})\n" for f in fields) or "    pass\n"
    scope: dict[str, Any] = {f"_s_{f}": cls.__dict__[f].__set__ for f in fields}
    scope.update({f"_d_{f}": v for f, v in defaults.items()})
    exec(f"def __init__(self, {params}):\n{body}", scope)  # noqa: S102 -- field names only
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init
