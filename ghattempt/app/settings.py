"""Configuration of the webhook server, read from the environment.

=====================================  ===========================================
variable                               meaning
=====================================  ===========================================
``GHATTEMPT_APP_ID``                   GitHub App id (integer >= 1), required
``GHATTEMPT_APP_PRIVATE_KEY_FILE``     path of the App's PEM private key, required
``GHATTEMPT_WEBHOOK_SECRET``           webhook secret (or ``..._FILE``: a path), one
                                       of the two is required
``GHATTEMPT_APP_STATE``                path of the durable inbox (SQLite, one
                                       process); or:
``GHATTEMPT_APP_DATABASE``             ``postgresql://...``: the inbox in PostgreSQL,
                                       shared by any number of replicas (exactly one
                                       of the two is required)
``GHATTEMPT_APP_WORKERS``              worker threads per process (default 4)
``GHATTEMPT_APP_RETRY_WINDOW``         seconds a delivery waiting for its
                                       precondition is tried again (default 600)
``GHATTEMPT_APP_CATCHUP_INTERVAL``     seconds between two catch-ups through
                                       GitHub's delivery log (default 300; 0: off)
``GHATTEMPT_GITHUB_API_URL``           REST base URL (default
                                       ``https://api.github.com/``; GHES:
                                       ``https://HOST/api/v3/``)
``GHATTEMPT_APP_PHASES``               path of the phase mapping (TOML), optional
``GHATTEMPT_APP_MAX_BODY``             largest accepted body in bytes (default 25 MiB)
``GHATTEMPT_APP_SINK``                 ``module:callable`` building the journal sink
``GHATTEMPT_HTTP_TIMEOUT``             GitHub request timeout, seconds (default 30)
``GHATTEMPT_APP_MAX_TRIES``            tries of a delivery whose sink is unavailable
                                       before it is marked failed (default 10)
``GHATTEMPT_APP_RETRY_BASE``           first retry delay, seconds, doubled per try
                                       (default 2)
``GHATTEMPT_APP_BUDGET_TIME_SCALE``    benchmarks only: the content budget's clock
                                       runs this many times faster (default 1;
                                       ``ghattempt.app.budget``); never against
                                       github.com
=====================================  ===========================================

Secrets (the webhook secret, the private key, the database URL, which may hold a
password) are held in :class:`Secret`, whose
``repr`` and ``str`` never show the value; error messages name the variable or the
file, never the content.

This module is the App's settings model: :class:`AppSettings` (what the environment
says), :class:`Secret`, :class:`ConfigurationError` and the defaults, and
:func:`load_settings`, which reads the environment into them. The repository's own
``.github/ghattempt.toml`` is :mod:`ghattempt.config`'s; the part both read, the
workflow/job -> phase mapping (``[[app.jobs]]``), is its :class:`~ghattempt.config.PhaseMap`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ghattempt.app.phases import PhaseMap, PhaseMapError, load_phase_map
from ghattempt.errors import Fault, GhattemptError
from ghattempt.github import DEFAULT_API_URL, DEFAULT_TIMEOUT, RetryPolicy

__all__ = [
    "DEFAULT_API_URL",
    "DEFAULT_CATCHUP_INTERVAL",
    "DEFAULT_MAX_BODY",
    "DEFAULT_RETRY_WINDOW",
    "DEFAULT_SINK",
    "DEFAULT_WORKERS",
    "AppSettings",
    "ConfigurationError",
    "Secret",
    "load_inbox_location",
    "load_settings",
]

MAX_WORKERS = 64

DEFAULT_MAX_BODY = 25 * 1024 * 1024
"""GitHub caps webhook payloads at 25 MB ("Webhook payloads are capped at 25 MB")."""

DEFAULT_SINK = "ghattempt.app.sink_factory:store_sink"
DEFAULT_WORKERS = 4
"""Worker threads per server process (``GHATTEMPT_APP_WORKERS``)."""
DEFAULT_RETRY_WINDOW = 600.0
"""Seconds a delivery waiting for its precondition is tried again
(``GHATTEMPT_APP_RETRY_WINDOW``)."""
DEFAULT_CATCHUP_INTERVAL = 300.0
"""Seconds between two catch-ups through GitHub's delivery log
(``GHATTEMPT_APP_CATCHUP_INTERVAL``)."""


class ConfigurationError(GhattemptError):
    """The environment does not describe a usable server; the message says what to set."""

    fault = Fault.BAD_INPUT


@dataclass(frozen=True, slots=True)
class Secret:
    """A secret string that does not show itself in ``repr``, ``str`` or logs."""

    _value: str = field(repr=False)

    def reveal(self) -> str:
        """The secret value; pass it straight to the one call that needs it."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    def __str__(self) -> str:
        return "***"


@dataclass(frozen=True, slots=True)
class AppSettings:
    """Everything the server reads from its environment (see the module table).

    Attributes:
        app_id: GitHub App id.
        private_key: the App's PEM private key (RSA).
        webhook_secret: the secret GitHub signs deliveries with.
        state_path: the SQLite inbox file (``None`` with ``database``).
        api_url: GitHub REST base URL, ending in ``/``.
        phase_map: the workflow/job -> phase mapping.
        max_body: largest accepted request body, bytes.
        sink: ``module:callable`` that builds the :class:`~ghattempt.app.sink.JournalSink`.
        http_timeout: GitHub request timeout, seconds.
        max_tries: tries of a delivery meeting an unavailable sink.
        retry_base: first retry delay, seconds.
        database: the PostgreSQL inbox's URL, or ``None`` for the SQLite file.
        workers: worker threads.
        retry_window: seconds a delivery waiting for its precondition is retried.
        catchup_interval: seconds between catch-ups (0: never).
        retry: the retry bounds of every provider the server's sink builds (the library's
            :class:`~ghattempt.github.RetryPolicy`; no variable sets it).
    """

    app_id: int
    private_key: Secret
    webhook_secret: Secret
    state_path: Path | None
    api_url: str = DEFAULT_API_URL
    phase_map: PhaseMap = field(default_factory=PhaseMap)
    max_body: int = DEFAULT_MAX_BODY
    sink: str = DEFAULT_SINK
    http_timeout: float = DEFAULT_TIMEOUT
    max_tries: int = 10
    retry_base: float = 2.0
    database: Secret | None = None
    workers: int = DEFAULT_WORKERS
    retry_window: float = DEFAULT_RETRY_WINDOW
    catchup_interval: float = DEFAULT_CATCHUP_INTERVAL
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    budget_time_scale: float = 1.0

    @property
    def inbox_location(self) -> Path | str:
        """Where the inbox is: the PostgreSQL URL, else the SQLite file."""
        if self.database is not None:
            return self.database.reveal()
        if self.state_path is None:
            raise ConfigurationError("neither GHATTEMPT_APP_STATE nor GHATTEMPT_APP_DATABASE "
                                     "is set: name the inbox")
        return self.state_path


def _require(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "")
    if not value:
        raise ConfigurationError(f"{name} is not set: set it (see docs/app.md)")
    return value


def _positive_int(env: Mapping[str, str], name: str, default: int | None,
                  most: int | None = None) -> int:
    raw = env.get(name, "")
    if not raw:
        if default is None:
            raise ConfigurationError(f"{name} is not set: set it to an integer >= 1")
        return default
    # int() refuses more than 4300 digits; no setting needs more than 18
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18 or int(raw) < 1:
        raise ConfigurationError(f"{name} must be an integer >= 1 in plain digits "
                                 "(at most 18)")
    if most is not None and int(raw) > most:
        raise ConfigurationError(f"{name} must be at most {most}")
    return int(raw)


def _read_secret_file(name: str, path: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(
            f"{name}: cannot read {path!r} ({exc.strerror or type(exc).__name__})"
        ) from None
    except UnicodeDecodeError:
        raise ConfigurationError(f"{name}: {path!r} is not UTF-8 text") from None
    return text


def _load_private_key(path: str) -> Secret:
    name = "GHATTEMPT_APP_PRIVATE_KEY_FILE"
    text = _read_secret_file(name, path)
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(text.encode("utf-8"), password=None)
    except (ValueError, TypeError):
        raise ConfigurationError(
            f"{name}: {path!r} is not an unencrypted PEM private key; download the App's "
            "private key (.pem) from the App settings page"
        ) from None
    if not isinstance(key, RSAPrivateKey):
        raise ConfigurationError(f"{name}: {path!r} is not an RSA key (GitHub Apps use RS256)")
    return Secret(text)


def _load_webhook_secret(env: Mapping[str, str]) -> Secret:
    direct = env.get("GHATTEMPT_WEBHOOK_SECRET", "")
    path = env.get("GHATTEMPT_WEBHOOK_SECRET_FILE", "")
    if direct and path:
        raise ConfigurationError(
            "set only one of GHATTEMPT_WEBHOOK_SECRET and GHATTEMPT_WEBHOOK_SECRET_FILE"
        )
    if path:
        value = _read_secret_file("GHATTEMPT_WEBHOOK_SECRET_FILE", path).strip("\r\n")
    elif direct:
        value = direct
    else:
        raise ConfigurationError(
            "GHATTEMPT_WEBHOOK_SECRET (or GHATTEMPT_WEBHOOK_SECRET_FILE) is not set: set it "
            "to the App's webhook secret"
        )
    if not value:
        raise ConfigurationError("the webhook secret is empty: GitHub signs with a non-empty one")
    return Secret(value)


def _api_url(env: Mapping[str, str]) -> str:
    url = env.get("GHATTEMPT_GITHUB_API_URL", "") or DEFAULT_API_URL
    if not url.startswith(("https://", "http://")):
        raise ConfigurationError(
            f"GHATTEMPT_GITHUB_API_URL must be an http(s) URL, got {url!r}"
        )
    return url if url.endswith("/") else url + "/"


def _seconds(env: Mapping[str, str], name: str, default: float, *, most: float = 600,
             zero: bool = False) -> float:
    raw = env.get(name, "")
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (0 < value <= most or (zero and value == 0)):
        low = "[0" if zero else "(0"
        raise ConfigurationError(f"{name} must be seconds in {low}, {most:g}]")
    return value


def _scale(env: Mapping[str, str], name: str) -> float:
    raw = env.get(name, "")
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise ConfigurationError(f"{name} must be a number in (0, 3600] (default 1)")
    return value


def _inbox(env: Mapping[str, str]) -> tuple[Path | None, Secret | None]:
    state = env.get("GHATTEMPT_APP_STATE", "")
    database = env.get("GHATTEMPT_APP_DATABASE", "")
    if state and database:
        raise ConfigurationError(
            "set only one of GHATTEMPT_APP_STATE (a SQLite file, one process) and "
            "GHATTEMPT_APP_DATABASE (PostgreSQL, any number of replicas)")
    if database:
        if not database.startswith(("postgresql://", "postgres://")):
            raise ConfigurationError(
                "GHATTEMPT_APP_DATABASE must be a postgresql:// URL "
                "(postgresql://USER@HOST:5432/DB; a password is better in PGPASSWORD or "
                "~/.pgpass)")
        return None, Secret(database)
    if not state:
        raise ConfigurationError(
            "GHATTEMPT_APP_STATE is not set: set it (see docs/app.md) to the inbox file, "
            "or GHATTEMPT_APP_DATABASE to a PostgreSQL URL")
    path = Path(state)
    if path.is_dir():
        raise ConfigurationError(
            f"GHATTEMPT_APP_STATE names a directory ({state!r}): name the inbox file"
        )
    return path, None


def load_inbox_location(env: Mapping[str, str] | None = None) -> Path | str:
    """Where the inbox is, from ``GHATTEMPT_APP_STATE`` or ``GHATTEMPT_APP_DATABASE``
    alone (the ``inbox`` and ``migrate`` commands need nothing else).

    Raises:
        ConfigurationError: neither or both are set, or one is malformed.
    """
    path, database = _inbox(os.environ if env is None else env)
    if database is not None:
        return database.reveal()
    assert path is not None
    return path


def load_settings(env: Mapping[str, str] | None = None) -> AppSettings:
    """Read :class:`AppSettings` from ``env`` (default: ``os.environ``).

    Raises:
        ConfigurationError: a variable is missing or malformed, or a file cannot be read
            or parsed. The message names the variable and file, never a secret.
    """
    env = os.environ if env is None else env
    app_id = _positive_int(env, "GHATTEMPT_APP_ID", None)
    private_key = _load_private_key(_require(env, "GHATTEMPT_APP_PRIVATE_KEY_FILE"))
    secret = _load_webhook_secret(env)
    state, database = _inbox(env)
    phases_path = env.get("GHATTEMPT_APP_PHASES", "")
    try:
        phase_map = load_phase_map(Path(phases_path)) if phases_path else PhaseMap()
    except PhaseMapError as exc:
        raise ConfigurationError(f"GHATTEMPT_APP_PHASES: {exc}") from None
    sink = env.get("GHATTEMPT_APP_SINK", "") or DEFAULT_SINK
    if sink.count(":") != 1 or not all(sink.split(":")):
        raise ConfigurationError(f"GHATTEMPT_APP_SINK must be 'module:callable', got {sink!r}")
    return AppSettings(
        app_id=app_id,
        private_key=private_key,
        webhook_secret=secret,
        state_path=state,
        api_url=_api_url(env),
        phase_map=phase_map,
        max_body=_positive_int(env, "GHATTEMPT_APP_MAX_BODY", DEFAULT_MAX_BODY),
        sink=sink,
        http_timeout=_seconds(env, "GHATTEMPT_HTTP_TIMEOUT", DEFAULT_TIMEOUT),
        max_tries=_positive_int(env, "GHATTEMPT_APP_MAX_TRIES", 10),
        retry_base=_seconds(env, "GHATTEMPT_APP_RETRY_BASE", 2.0),
        database=database,
        workers=_positive_int(env, "GHATTEMPT_APP_WORKERS", DEFAULT_WORKERS, MAX_WORKERS),
        retry_window=_seconds(env, "GHATTEMPT_APP_RETRY_WINDOW", DEFAULT_RETRY_WINDOW,
                              most=86400),
        catchup_interval=_seconds(env, "GHATTEMPT_APP_CATCHUP_INTERVAL",
                                  DEFAULT_CATCHUP_INTERVAL, most=86400, zero=True),
        budget_time_scale=_scale(env, "GHATTEMPT_APP_BUDGET_TIME_SCALE"),
    )
