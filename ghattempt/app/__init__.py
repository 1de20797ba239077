"""The GitHub App webhook server: GitHub events in, journal requests out.

The server verifies each delivery, records it durably in its inbox (a SQLite file, or
PostgreSQL shared by several replicas) before it answers, and a pool of workers turns
it into typed requests to a :class:`JournalSink` (the business attempt store), in order
per pull request and in parallel across them; on start and every few minutes it asks
GitHub to redeliver what it could not deliver. Run it with ``python -m ghattempt.app
serve``; see docs/app.md.

Public names:

- :func:`create_app`, :func:`serve`: the Starlette application and its uvicorn runner;
- :class:`AppSettings`, :func:`load_settings`, :class:`Secret`,
  :class:`ConfigurationError`: configuration from the environment;
- :class:`JournalSink` and its requests (:class:`OpenIntent`,
  :class:`SupersedeAndAdmit`, :class:`PhaseResult`, :class:`CancelAttempt`,
  :class:`TamperingReport`), answers (:class:`SinkResult`, :class:`Outcome`) and
  :class:`SinkUnavailable`;
- :class:`PhaseMap`, :func:`load_phase_map`: the workflow/job -> phase mapping;
- :func:`plan_delivery`, :class:`Plan`: the pure routing decision;
- :class:`Inbox`: the durable inbox's interface, :func:`open_inbox` the backend a
  location names (SQLite or PostgreSQL); :class:`Worker`: its pool of workers;
- :func:`installation_github`: a githubkit client acting as one installation.
"""

from ghattempt.app.inbox import Inbox, open_inbox
from ghattempt.app.installation import installation_github, installation_github_for
from ghattempt.app.phases import PhaseMap, load_phase_map
from ghattempt.app.routing import Plan, plan_delivery
from ghattempt.app.server import create_app, serve
from ghattempt.app.settings import AppSettings, ConfigurationError, Secret, load_settings
from ghattempt.app.sink import (
    CancelAttempt,
    DeliveryWriter,
    GenerationRef,
    IntentRef,
    JournalSink,
    OpenIntent,
    Outcome,
    PhaseResult,
    SinkResult,
    SinkUnavailable,
    SupersedeAndAdmit,
    TamperingReport,
)
from ghattempt.app.worker import Worker

__all__ = [
    "AppSettings",
    "CancelAttempt",
    "ConfigurationError",
    "DeliveryWriter",
    "GenerationRef",
    "Inbox",
    "IntentRef",
    "JournalSink",
    "OpenIntent",
    "Outcome",
    "PhaseMap",
    "PhaseResult",
    "Plan",
    "Secret",
    "SinkResult",
    "SinkUnavailable",
    "SupersedeAndAdmit",
    "TamperingReport",
    "Worker",
    "create_app",
    "installation_github",
    "installation_github_for",
    "load_phase_map",
    "load_settings",
    "open_inbox",
    "plan_delivery",
    "serve",
]
