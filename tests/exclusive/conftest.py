from __future__ import annotations

import pytest

from ghattempt.core import NO_WITNESS, Witness
from ghattempt.exclusive import LeaseSettings, RefLease, Scope
from ghattempt.exclusive.testing import FakeClock, MemoryRefBackend

INTENT = "sha256:" + "ab" * 32
SCOPE = Scope(repository_id="R_kgDOLease1", intent_id=INTENT)
OTHER_SCOPE = Scope(repository_id="R_kgDOLease2", intent_id=INTENT)

# margin = 20 + 10 + 5 = 35 s; minimum lease = 35 + 40 + 1 = 76 s; renew window = 22 s,
# so assert_owner() renews once 57 s or less are left.
SETTINGS = LeaseSettings(
    lease_seconds=120,
    request_timeout=20.0,
    server_bound=10.0,
    clock_skew=5.0,
    acquire_timeout=0.0,
    backoff_initial=1.0,
    backoff_max=8.0,
)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def backend(clock: FakeClock) -> MemoryRefBackend:
    return MemoryRefBackend(clock)


def make_lease(backend, clock, **overrides) -> RefLease:
    import dataclasses
    import random

    settings = dataclasses.replace(SETTINGS, **overrides)
    return RefLease(backend, settings, clock=clock, rng=random.Random(7))


def lease_message(scope: Scope, *, holder: str = "cli/0123", token: int = 7,
                  expires_at: int = 1_800_000_120, state: str = "held",
                  journal: int | None = None, head: Witness = NO_WITNESS) -> str:
    """The commit message of a lease record of ``scope`` (journal-v1 section 4)."""
    return scope.lease(holder=holder, token=token, state=state, expires_at=expires_at,
                       journal=journal, head=head).message()
