"""Static conformance of the adapters to the protocols; checked by mypy, never called."""

from __future__ import annotations

from ._memory import InMemoryExclusive, InMemoryOwner
from ._protocol import ExclusiveAdapter, LocalClock, Owner, RefBackend, SystemClock
from ._reflease import RefLease, RefOwner
from .testing import FakeClock, MemoryRefBackend, ScaledClock, SqliteRefBackend


def _conforms(  # pragma: no cover - a type check only
    ref_lease: RefLease,
    in_memory: InMemoryExclusive,
    ref_owner: RefOwner,
    memory_owner: InMemoryOwner,
    memory_backend: MemoryRefBackend,
    sqlite_backend: SqliteRefBackend,
    system_clock: SystemClock,
    fake_clock: FakeClock,
    scaled_clock: ScaledClock,
) -> None:
    adapters: list[ExclusiveAdapter] = [ref_lease, in_memory]
    owners: list[Owner] = [ref_owner, memory_owner]
    backends: list[RefBackend] = [memory_backend, sqlite_backend]
    clocks: list[LocalClock] = [system_clock, fake_clock, scaled_clock]
    del adapters, owners, backends, clocks
