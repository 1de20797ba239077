"""An embedded GitHub for the demo and the integration tests.

GraphQL over a subset of GitHub's published schema, REST for lease commits, refs and
their rules, workflow runs, releases and the rate limit, SQLite state, GitHub's error
shapes and node ids, and fault injection.
Reach it in-process with :class:`EmulatorTransport` (an httpx transport githubkit
accepts) or over HTTP with :class:`EmulatorServer` /
``python -m ghattempt.emulator serve``. See docs/emulator.md.
"""

from .app import Emulator, Reply, load_schema
from .faults import FaultRule
from .fixture import DEFAULT_FIXTURE, FixtureError, load_fixture
from .process import EmulatorProcess
from .server import EmulatorServer
from .state import Clock
from .transport import AsyncEmulatorTransport, EmulatorTransport

__all__ = [
    "DEFAULT_FIXTURE",
    "AsyncEmulatorTransport",
    "Clock",
    "Emulator",
    "EmulatorProcess",
    "EmulatorServer",
    "EmulatorTransport",
    "FaultRule",
    "FixtureError",
    "Reply",
    "load_fixture",
    "load_schema",
]
