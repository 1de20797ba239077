"""Slotted value classes for the core, without the ``dataclasses`` module.

``@frozen`` and ``@mutable`` turn an annotated class body into a class with
``__slots__``, ``__init__`` (fields in order, defaults allowed), ``__repr__``,
``__eq__`` (same class, fields marked ``compare=False`` left out), ``__match_args__``
and, for ``@frozen``, ``__hash__`` over the compared fields and ``__setattr__`` /
``__delattr__`` raising ``FrozenInstanceError`` (an ``AttributeError``). ``ClassVar``
annotations are class attributes, not fields. A default must not be of an unhashable
(mutable) type: every instance would share it (``ValueError``, as in ``dataclasses``).
Type checkers treat both decorators as ``dataclasses.dataclass`` (PEP 681
``dataclass_transform``).

Why not ``dataclasses``: the reader bundle starts a new process for every read, and
importing ``dataclasses`` (with ``inspect``, ``ast``, ``dis``, ``tokenize``) and
generating a dozen frozen dataclasses cost about 10 ms of a start-up budget of about 20
(docs/reader.md, "Speed"). Here every method is a shared function: a class costs one
``type()`` call.

Classes built here must be plain: no base class other than ``object``, annotations as
strings (``from __future__ import annotations``). A ``@mutable`` class may write its own
``__init__`` (a plain function taking exactly the fields, in order); a ``@frozen`` one may
not. Anything else is refused with a ``TypeError`` when the class is built.
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:
    def dataclass_transform(**_kwargs):
        """Runtime no-op of ``typing.dataclass_transform`` (spares importing typing)."""
        return lambda fn: fn


class FrozenInstanceError(AttributeError):
    """Raised on assigning to or deleting a field of a ``@frozen`` instance."""


_MISSING = object()
_BUILT: set[type] = set()  # every class made by @frozen / @mutable
_VARARGS = 0x04 | 0x08  # inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


class _Field:
    """A field's default and whether it takes part in ``__eq__``/``__hash__``."""

    __slots__ = ("default", "compare")

    def __init__(self, default: object, compare: bool) -> None:
        self.default = default
        self.compare = compare


def field(*, default: Any = _MISSING, compare: bool = True) -> Any:
    """A field with a ``default`` (optional) that ``compare=False`` leaves out of
    ``__eq__`` and ``__hash__``; use as ``name: T = field(default=..., compare=False)``."""
    return _Field(default, compare)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: type[_T]) -> type[_T]:
    """An immutable slotted value class (see the module docstring)."""
    return _build(cls, True)


@dataclass_transform(field_specifiers=(field,))
def mutable(cls: type[_T]) -> type[_T]:
    """A mutable slotted value class: no ``__hash__``, fields assignable."""
    return _build(cls, False)


def _replace(obj: _T, **changes: Any) -> _T:
    """A copy of ``obj`` (built by ``@frozen``/``@mutable``) with ``changes`` applied.

    Raises ``TypeError`` naming an unknown field, or when ``obj`` was not built here.
    Type checkers see it as ``dataclasses.replace``, whose plugin checks the names and
    types of ``changes`` against the class's fields."""
    if type(obj) not in _BUILT:
        raise TypeError(f"replace() takes a @frozen or @mutable instance, not "
                        f"{type(obj).__name__}")
    names: tuple[str, ...] = obj.__match_args__  # type: ignore[attr-defined]
    unknown = set(changes) - set(names)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field {sorted(unknown)[0]!r}")
    values = {name: changes[name] if name in changes else getattr(obj, name)
              for name in names}
    return type(obj)(**values)


if TYPE_CHECKING:
    from dataclasses import replace as replace
else:
    replace = _replace


def slot_setters(cls: type, names: tuple[str, ...]) -> list[Callable[[object, object], None]]:
    """The slot setters of ``cls``'s fields, which must be ``names`` in order: for the
    hand-written constructors of the reader's hot path (one setter call per field, no
    generic ``__init__`` loop). Raises ``ImportError`` when the fields changed."""
    if getattr(cls, "__match_args__", None) != names:
        raise ImportError(f"{cls.__name__}'s fields changed: update its hot-path maker")
    return [getattr(cls, name).__set__ for name in names]


def _build(cls: type[_T], is_frozen: bool) -> type[_T]:
    if cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__}: value classes take no base class")
    namespace = dict(cls.__dict__)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    annotations: dict[str, object] = namespace.get("__annotations__", {})
    names: list[str] = []
    defaults: dict[str, object] = {}
    compared: list[str] = []
    for name, annotation in annotations.items():
        if not isinstance(annotation, str):
            raise TypeError(f"{cls.__name__}.{name}: annotations must be strings "
                            "(from __future__ import annotations)")
        if annotation.partition("[")[0].rpartition(".")[2].strip() == "ClassVar":
            continue  # ClassVar, typing.ClassVar, t.ClassVar[...]
        value = namespace.pop(name, _MISSING)
        compare = True
        if isinstance(value, _Field):
            compare = value.compare
            value = value.default
        if value is not _MISSING:
            if type(value).__hash__ is None:  # as dataclasses refuse it
                raise ValueError(f"{cls.__name__}.{name}: mutable default "
                                 f"{type(value).__name__} would be shared by every instance; "
                                 "use an immutable one (None, a tuple, a frozenset)")
            defaults[name] = value
        elif defaults:
            raise TypeError(f"{cls.__name__}.{name}: a field without a default follows "
                            "one with a default")
        names.append(name)
        if compare:
            compared.append(name)
    fields = tuple(names)
    namespace["__slots__"] = fields
    namespace["__match_args__"] = fields
    key = _key(compared)
    namespace["__eq__"] = _eq(key)
    namespace["__repr__"] = _repr(fields)
    if is_frozen:
        namespace["__hash__"] = _hash(key)
        namespace["__setattr__"] = _refuse_set
        namespace["__delattr__"] = _refuse_delete
    else:
        namespace["__hash__"] = None
    namespace["__getstate__"] = _getstate(fields)
    namespace["__qualname__"] = cls.__qualname__
    made: type[_T] = type(cls.__name__, (object,), namespace)
    setters = [getattr(made, name).__set__ for name in fields]
    written = namespace.get("__init__")
    if written is None:
        made.__init__ = _init(made, fields, defaults, setters)  # type: ignore[method-assign]
    else:
        # A @mutable class may write its own (for speed on a hot path): same parameters,
        # in order, and no others. A @frozen one could not assign its fields.
        if is_frozen:
            raise TypeError(f"{cls.__name__}: only a @mutable class may write __init__ "
                            "(a @frozen one refuses self.field = ...); drop it")
        code = getattr(written, "__code__", None)
        if code is None:
            raise TypeError(f"{cls.__name__}.__init__ must be a plain function")
        if (code.co_varnames[1:code.co_argcount] != fields or code.co_kwonlyargcount
                or code.co_flags & _VARARGS):
            raise TypeError(f"{cls.__name__}.__init__ must take the fields {fields} in order")
    made.__setstate__ = _setstate(setters)  # type: ignore[attr-defined]
    _BUILT.add(made)
    return made


def _init(cls: type, fields: tuple[str, ...], defaults: dict[str, object],
          setters: list[Callable[[object, object], None]]) -> Callable[..., None]:
    """``__init__(self, *fields)``: all fields positionally sets each slot once (the fast
    case); otherwise arguments bind as in a ``def`` with these parameters, or
    ``TypeError`` names the first unexpected argument, else every missing one, else the
    repeated one."""
    count = len(fields)
    name = cls.__qualname__

    def __init__(self: object, *args: object, **kwargs: object) -> None:
        if len(args) == count and not kwargs:
            for setter, value in zip(setters, args, strict=True):
                setter(self, value)
            return
        if len(args) > count:
            raise TypeError(f"{name}() takes {count} arguments, {len(args)} given")
        unexpected = [key for key in kwargs if key not in fields]
        if unexpected:  # first, as Python does: a misspelt name also leaves one missing
            raise TypeError(f"{name}() got an unexpected argument {unexpected[0]!r}")
        missing = [field_name for field_name in fields[len(args):]
                   if field_name not in kwargs and field_name not in defaults]
        if missing:
            raise TypeError(f"{name}() missing argument{'s' if len(missing) > 1 else ''} "
                            + ", ".join(map(repr, missing)))
        for i, field_name in enumerate(fields):
            if i < len(args):
                if field_name in kwargs:
                    raise TypeError(f"{name}() got two values for {field_name!r}")
                value = args[i]
            elif field_name in kwargs:
                value = kwargs[field_name]
            else:
                value = defaults[field_name]
            setters[i](self, value)

    __init__.__qualname__ = f"{name}.__init__"
    return __init__


def _key(compared: list[str]) -> Callable[[object], tuple[object, ...]]:
    """The tuple of the compared fields, as ``dataclasses`` compares and hashes them: a
    tuple even of one field (tuples compare items by identity first, so a field holding
    NaN equals itself) or of none (all instances equal)."""
    if len(compared) > 1:
        return attrgetter(*compared)
    if compared:
        one = attrgetter(compared[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _eq(key: Callable[[object], object]) -> Callable[[object, object], object]:
    def __eq__(self: object, other: object) -> object:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented
    return __eq__


def _hash(key: Callable[[object], object]) -> Callable[[object], int]:
    def __hash__(self: object) -> int:
        return hash(key(self))
    return __hash__


def _repr(fields: tuple[str, ...]) -> Callable[[object], str]:
    def __repr__(self: object) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in fields)
        return f"{type(self).__qualname__}({inner})"
    return __repr__


def _getstate(fields: tuple[str, ...]) -> Callable[[object], tuple[object, ...]]:
    def __getstate__(self: object) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in fields)
    return __getstate__


def _setstate(setters: list[Callable[[object, object], None]]
              ) -> Callable[[object, tuple[object, ...]], None]:
    def __setstate__(self: object, state: tuple[object, ...]) -> None:
        for setter, value in zip(setters, state, strict=True):
            setter(self, value)
    return __setstate__


def _refuse_set(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r} of a frozen "
                              f"{type(self).__name__}")


def _refuse_delete(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r} of a frozen "
                              f"{type(self).__name__}")
