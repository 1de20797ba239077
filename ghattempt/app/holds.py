"""Keeping writer scopes across a burst of one lane's deliveries.

A worker that has several due deliveries of one lane asks the sink to hold it
(``sink.hold(lane)``, :mod:`ghattempt.app.worker`). The store sink then keeps each
writer scope it enters during the burst: the first write to a scope acquires its lease,
the following ones find it held (:meth:`Owner.assert_owner` renews it when it runs
short), and the lease is released once, when the burst ends. A burst of ``n`` results
for one journal costs one acquisition and one release instead of ``n`` of each.

A scope whose block ends with an error is let go at once, with that error (the lease
adapter decides, as without a burst, whether the scope stays quiet for its margin), and
a later delivery of the burst acquires it again.

Holds are per thread: a burst runs in one worker thread, and other threads' requests
meanwhile go through the adapter unchanged.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TypeVar

from ghattempt.exclusive import ExclusiveAdapter, Owner, RefSnapshot, Scope

__all__ = ["BurstHolds"]

T = TypeVar("T")


class _Burst:
    """The scopes one burst keeps: scope -> (the adapter's block, its owner)."""

    def __init__(self) -> None:
        self.kept: dict[Scope, tuple[AbstractContextManager[Owner], Owner]] = {}

    def let_go(self, scope: Scope, exc: BaseException | None) -> None:
        block, _ = self.kept.pop(scope)
        if exc is None:
            block.__exit__(None, None, None)
        else:
            block.__exit__(type(exc), exc, exc.__traceback__)

    def end(self) -> None:
        errors: list[BaseException] = []
        for scope in list(self.kept):
            try:
                self.let_go(scope, None)
            except Exception as exc:  # release the others first
                errors.append(exc)
        if errors:
            raise errors[0]


class _Kept:
    """An :class:`~ghattempt.exclusive.ExclusiveAdapter` that keeps what it acquires
    until the burst ends."""

    def __init__(self, burst: _Burst, inner: ExclusiveAdapter) -> None:
        self._burst = burst
        self._inner = inner

    @property
    def request_timeout(self) -> float:
        return self._inner.request_timeout

    def ref_name(self, scope: Scope) -> str:
        return self._inner.ref_name(scope)

    def preview(self, scope: Scope, *, observed: RefSnapshot | None = None) -> str:
        return self._inner.preview(scope, observed=observed)

    @contextlib.contextmanager
    def hold(self, scope: Scope, *, observed: RefSnapshot | None = None) -> Iterator[Owner]:
        # ``observed`` is not passed on: the first acquisition of a burst reads the ref
        entry = self._burst.kept.get(scope)
        if entry is None:
            block = self._inner.hold(scope)
            owner = block.__enter__()
            entry = (block, owner)
            self._burst.kept[scope] = entry
        try:
            yield entry[1]
        except BaseException as exc:
            self._burst.let_go(scope, exc)
            raise

    def run(self, scope: Scope, fn: Callable[[Owner], T]) -> T:
        with self.hold(scope) as owner:
            return fn(owner)


class BurstHolds:
    """The bursts of every worker thread of one sink."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextlib.contextmanager
    def hold(self, lane: str) -> Iterator[None]:
        """Keep the scopes this thread enters until the block ends (``lane`` names the
        burst in errors only). Nested holds join the outer one.

        Raises:
            whatever releasing a kept scope raised, after every scope was released.
        """
        if getattr(self._local, "burst", None) is not None:
            yield
            return
        burst = _Burst()
        self._local.burst = burst
        try:
            yield
        finally:
            self._local.burst = None
            burst.end()

    def adapter(self, inner: ExclusiveAdapter) -> ExclusiveAdapter:
        """``inner``, or, inside this thread's burst, ``inner`` keeping its scopes."""
        burst: _Burst | None = getattr(self._local, "burst", None)
        return inner if burst is None else _Kept(burst, inner)
