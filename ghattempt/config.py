"""Consumer configuration: the repository's ``.github/ghattempt.toml``. (The App server's
own settings, read from its environment, are the App's: :mod:`ghattempt.app.settings`.)

The file tells every writer (Action step, App, CLI) of one consumer repository where the
journal lives, whose records count, which phases each release channel runs, how request
keys are formed, and the timing of the writer lease and of pending attempts. Its path,
git blob oid and content digest are part of every generation (journal-v1 section 4,
``generation.config``; ADR 0006: "TOML blob/digest/path ... identify a generation").

Shape::

    load_config(path, *, root=None) -> LoadedConfig
    parse_config(data, *, path, blob_oid=None) -> LoadedConfig
    check_config(data, *, path) -> list[ConfigError]  # every problem, with its line
    json_schema() -> dict                              # generated from KEYS

    LoadedConfig(path: str, blob: str, digest: str, settings: Settings)
    Settings(journal, writer, attempt, channels, lease, pacing, app, run)

Every key is defined once, in :data:`KEYS` (its type, bounds, pattern and meaning): the
``build_*`` functions read each table by it and :func:`json_schema` is generated from it.
Every default lives in the field defaults of the dataclasses below (and nowhere else),
or, for the parts the lower layers define (:class:`~ghattempt.exclusive.LeaseSettings`
for ``[lease]``) and the values they share with the provider (the API URL, the request
timeout, the write interval: ``ghattempt.github.DEFAULT_*``), there.
A file that cannot be used raises exactly one :class:`ConfigError` naming the file, the
dotted key, the problem and the fix; unknown keys are errors. ``docs/configuration.md``
documents every key.

Digest choice: ``digest`` is ``"sha256:"`` + the lowercase hex SHA-256 of the file's raw
bytes (not of the parsed TOML), so two files that parse alike but differ in a byte are
two generations, and the value can be checked with ``sha256sum`` alone. ``blob`` is the
git blob oid of the same bytes (SHA-1 of ``b"blob <len>\\0" + bytes``; SHA-256 for a
repository in SHA-256 object format), computed locally so it equals GitHub's.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import re
import stat
import string
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path, PurePosixPath
from typing import Final, NoReturn

# The one admitted phase order (journal-v1 section 4), re-exported for callers.
from ghattempt.core import PHASES, Intent, is_key, is_oid
from ghattempt.errors import Fault, GhattemptError

# The lease settings are the lease's own class (ghattempt.exclusive, the lowest layer
# that needs them): [lease] is read into it, and the configuration checks its rule at
# load time so a bad [lease] is reported against the file, not at the first write.
from ghattempt.exclusive import GITHUB_SERVER_BOUND, HTTP_DATE_RESOLUTION, LeaseSettings
from ghattempt.exclusive import LeaseSettingsError as _LeaseRuleError

# The one rule for writer logins (GraphQL logins, never REST's "[bot]"), shared with the
# store and the command line.
from ghattempt.github import DEFAULT_WRITE_INTERVAL
from ghattempt.github.identity import ACTIONS_LOGIN, BOT_SUFFIX, LOGIN, login_problem

__all__ = [
    "DEFAULT_CONFIG_PATH",
    "GITHUB_SERVER_BOUND",
    "PHASES",
    "SCHEMA",
    "AttemptSettings",
    "CROSS_KEY_RULES",
    "Channel",
    "ConfigError",
    "JobPhase",
    "JournalSettings",
    "KEYS",
    "Key",
    "LeaseSettings",
    "LoadedConfig",
    "PacingSettings",
    "RunSettings",
    "PhaseMap",
    "Settings",
    "WriterSettings",
    "blob_oid",
    "build_app",
    "build_attempt_settings",
    "build_channels",
    "build_journal",
    "build_lease_settings",
    "build_pacing",
    "build_run",
    "build_phase_map",
    "build_settings",
    "build_writer",
    "check_config",
    "content_digest",
    "json_schema",
    "key_position",
    "load_config",
    "parse_config",
]

DEFAULT_CONFIG_PATH: Final = ".github/ghattempt.toml"

# journal-v1 section 3, *key*: the shape ghattempt.core checks records with (its is_key
# is private; tests/config checks that both agree).
_CHANNEL_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}\Z")
_WORKFLOW_FILE = re.compile(r"[A-Za-z0-9._-]+\.ya?ml\Z")

_MAX_FILE_BYTES: Final = 1 << 20
_NAME_MAX: Final = 256  # journal-v1 section 3, *name*
_MAX_SECONDS: Final = 10 * 365 * 86400
"""Longest duration any key takes (10 years): beyond it times leave the record's
four-digit year or ``time.sleep``'s range."""
_DOCS: Final = "docs/configuration.md"

# Sample values used to check templates at load time; runtime values are checked again.
_SAMPLE_REPOSITORY_ID: Final = "R_kgDOAbCdEf"
_SAMPLE_REPOSITORY: Final = "octo-org/octo-repo"
_SAMPLE_PULL_REQUEST: Final = 1
_SAMPLE_BASE_REF: Final = "main"

_REQUEST_KEY_FIELDS: Final = ("repository_id", "pull_request", "base_ref", "channel")
_TITLE_FIELDS: Final = ("repository", "repository_id", "pull_request", "base_ref")


@dataclass(frozen=True, slots=True)
class Key:
    """One key of the file: the one definition the builders read it by and the JSON
    Schema is generated from (:func:`json_schema`).

    Attributes:
        path: dotted path; ``channels.*`` is each channel, ``app.jobs[]`` each entry.
        kind: ``string``, ``integer``, ``seconds`` (a number of seconds), ``template``
            (a string with ``{placeholders}``), ``plan`` (an array of phases in the
            phase order) or ``phase``.
        doc: what it means (the schema's description; docs/configuration.md says more).
        minimum, maximum: bounds of an integer or a number of seconds.
        above_zero: a number of seconds must be more than 0 (else 0 or more).
        max_length: longest string, in characters.
        pattern: a regular expression the whole string must match (its meaning is the
            same in Python's ``re`` and ECMA-262 for the characters the file can hold).
        fields: the placeholders a template may use.
        required: the entry must have it (``channels.*.plan``, ``app.jobs[]`` keys).
    """

    path: str
    kind: str
    doc: str
    minimum: int | None = None
    maximum: int | None = None
    above_zero: bool = False
    max_length: int = _NAME_MAX
    pattern: str | None = None
    fields: tuple[str, ...] = ()
    required: bool = False

    @property
    def table(self) -> str:
        return self.path.rpartition(".")[0]

    @property
    def name(self) -> str:
        return self.path.rpartition(".")[2]


_KEY_CHARS = "A-Za-z0-9._:/@+=-"
KEYS: Final[tuple[Key, ...]] = (
    Key("journal.category", "string", "Discussion category of the journals, by slug or "
        "name; no surrounding spaces", max_length=100, pattern=r"\S(?:[\s\S]*\S)?"),
    Key("journal.title", "template", "title of a new journal Discussion (informational)",
        fields=_TITLE_FIELDS),
    Key("journal.max_comments", "integer", "comments and replies one journal Discussion "
        "takes; a write past it is refused before it is sent (GitHub refuses comments "
        "past 2,500)", minimum=1, maximum=2500),
    Key("writer.login", "string", "GraphQL login of the one writer whose records count "
        "(no [bot] suffix)", pattern=LOGIN.pattern.removesuffix("\\Z")),
    Key("writer.database_id", "integer", "that account's databaseId; required for any "
        "login but github-actions", minimum=1),
    Key("attempt.request_key", "template", "template of the request key; renders to a "
        "journal key", fields=_REQUEST_KEY_FIELDS,
        pattern="(?:[" + _KEY_CHARS + "]|\\{(?:" + "|".join(_REQUEST_KEY_FIELDS) + ")\\})+"),
    Key("attempt.default_channel", "string", "channel used when a writer names none; "
        "required with several channels"),
    Key("attempt.expires_after", "integer", "whole seconds from admission to expires_at",
        minimum=1, maximum=_MAX_SECONDS),
    Key("channels.*.plan", "plan", "the channel's phases, in the phase order, each once",
        required=True),
    Key("lease.length", "integer", "lease duration, whole seconds; must exceed "
        "3 x request_timeout + 10 + clock_skew + 1", minimum=1, maximum=_MAX_SECONDS),
    Key("lease.request_timeout", "seconds", "client timeout of one GitHub request",
        above_zero=True, maximum=_MAX_SECONDS),
    Key("lease.clock_skew", "seconds", "allowance between GitHub's clock and the "
        "writer's", maximum=_MAX_SECONDS),
    Key("lease.acquire_timeout", "seconds", "how long a writer tries to get the lease (0: "
        "once)", maximum=_MAX_SECONDS),
    Key("pacing.write_interval", "seconds", "minimum seconds between two writes of one "
        "writer", maximum=_MAX_SECONDS),
    Key("run.stale_after", "integer", "whole seconds after which a phase a command-line "
        "writer started is taken as ended by `ghattempt run` (default 6 hours, GitHub's job "
        "limit)", minimum=1, maximum=_MAX_SECONDS),
    Key("app.jobs[].workflow", "string", "workflow file name under .github/workflows",
        pattern=_WORKFLOW_FILE.pattern.removesuffix("\\Z"), required=True),
    Key("app.jobs[].job", "string", "job name as the workflow_job webhook reports it",
        required=True),
    Key("app.jobs[].phase", "phase", "the phase the job's conclusion records; in some "
        "channel's plan", required=True),
)
"""Every key of the file (the builders accept exactly these)."""

_BY_PATH: Final = {k.path: k for k in KEYS}
_TABLES: Final = ("journal", "writer", "attempt", "channels", "lease", "pacing", "run", "app")

SCHEMA: Final[Mapping[str, tuple[str, ...]]] = {
    "": _TABLES,
    **{t: tuple(k.name for k in KEYS if k.table == t)
       for t in ("journal", "writer", "attempt", "channels.*", "lease", "pacing", "run")},
    "app": ("jobs",),
    "app.jobs[]": tuple(k.name for k in KEYS if k.table == "app.jobs[]"),
}
"""Every key of the file, by table (``""`` is the top level), from :data:`KEYS`."""

CROSS_KEY_RULES: Final = (
    "lease.length exceeds 3 x lease.request_timeout + 10 + lease.clock_skew + 1",
    "attempt.default_channel names a channel ([channels.NAME], or release without any)",
    "attempt.request_key renders to a journal key (at most 128 characters) for every channel",
    "journal.title renders to 1-256 characters, not all spaces, for a sample pull request",
    "every app.jobs[].phase is in some channel's plan",
    "each app.jobs (workflow, job) pair appears once",
)
"""The rules that tie keys together, which JSON Schema cannot state: the parser (and
``ghattempt config check``) checks them, the schema does not."""


def _key(path: str) -> Key:
    return _BY_PATH[path]


class ConfigError(GhattemptError, ValueError):
    """The consumer configuration cannot be used (``fault``: bad input).

    ``str(error)`` is one line: ``<path>: <key>: <problem>; <fix>`` (``key`` is the
    dotted TOML path, e.g. ``channels.stable.plan``), or ``<path>: line L, column C:
    <problem>; <fix>`` for a TOML syntax error.

    Attributes:
        path: the configuration file as the caller named it.
        key: dotted key path, or None when the problem is the file as a whole.
        problem: what is wrong.
        fix: what to do about it.
        line, column: 1-based position of the problem in the file: of a syntax error, or
            of the key (or its table's header) when the file holds it; else None.
    """

    fault = Fault.BAD_INPUT

    def __init__(
        self,
        path: str,
        key: str | None,
        problem: str,
        fix: str,
        *,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.path = path
        self.key = key
        self.problem = problem
        self.fix = fix
        self.line = line
        self.column = column
        if key:
            where = key
        elif line is not None:
            where = f"line {line}, column {column}" if column is not None else f"line {line}"
        else:
            where = ""
        head = f"{path}: {where}: " if where else f"{path}: "
        super().__init__(_one_line(f"{head}{problem}; {fix}"))


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class JournalSettings:
    """Where the journal Discussion of an intent lives (journal-v1 section 1).

    Attributes:
        category: Discussion category, matched by slug or by name. The category must
            exist and have Discussions enabled; a dedicated one (e.g. "Release journal")
            keeps journals apart from conversation.
        title: title of a new journal Discussion; placeholders ``{repository}``
            (owner/name), ``{repository_id}``, ``{pull_request}``, ``{base_ref}``.
            Informational only: the intent record in the body is what identifies it.
        max_comments: the comments and replies (everyone's, deleted ones with replies
            included) one journal Discussion takes: GitHub refuses comments on an issue
            past 2,500 and nothing public says discussions differ (docs/emulator.md), so a
            write that would pass it is refused before it is sent (1..2500).
    """

    category: str = "General"
    title: str = "Release journal: {repository} #{pull_request} into {base_ref}"
    max_comments: int = 2500


@dataclass(frozen=True, slots=True)
class WriterSettings:
    """The one account whose unedited records contribute (journal-v1 section 6).

    Attributes:
        login: GraphQL login of the writer: ``github-actions`` for the Actions bot, an
            App's bare slug (without ``[bot]``), or a user login.
        database_id: that account's ``databaseId`` (REST ``id``); required for any login
            but ``github-actions`` (match writers by login and databaseId). For
            ``github-actions`` it may be left out: the bot's id differs per host
            (41898282 on github.com, another one on each GitHub Enterprise Server), so
            it is learned from the configured host at start (``viewer``), never assumed.
    """

    login: str = ACTIONS_LOGIN
    database_id: int | None = None


@dataclass(frozen=True, slots=True)
class Channel:
    """A release channel and its phase plan.

    Attributes:
        name: 1-64 characters of ``A-Z a-z 0-9 . _ -``.
        plan: non-empty, no repeats, a subsequence of :data:`PHASES` (journal-v1
            section 4; ADR 0006: "a channel-specific plan may omit inapplicable phases").
    """

    name: str
    plan: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AttemptSettings:
    """How business attempts are keyed and how long a pending one lives.

    Attributes:
        request_key: template of the request key (journal-v1 section 3 *key*:
            ``[A-Za-z0-9._:/@+=-]{1,128}``); placeholders ``{repository_id}``,
            ``{pull_request}``, ``{base_ref}``, ``{channel}``. One key is one logical
            request: a retry reuses it (idempotency note, step 1) and a fresh attempt
            for it is refused while a blocking one exists (ADR-038).
        default_channel: channel used when a writer names none.
        expires_after: whole seconds from admission to the attempt's ``expires_at``;
            a still-pending attempt may be expired after that (journal-v1 section 8).
    """

    request_key: str = "pr-{pull_request}:{base_ref}:{channel}"
    default_channel: str = "release"
    expires_after: int = 86400


@dataclass(frozen=True, slots=True)
class RunSettings:
    """``ghattempt run`` (docs/run.md).

    Attributes:
        stale_after: whole seconds after its record when a phase a command-line writer
            started is taken as ended (a command line names a person, not a process
            whose end GitHub can report); default 6 hours, GitHub's job limit.
    """

    stale_after: int = 21600


@dataclass(frozen=True, slots=True)
class PacingSettings:
    """Spacing of content-creating mutations (GitHub allows about 80 a minute).

    Attributes:
        write_interval: minimum seconds between two writes of one writer.
    """

    write_interval: float = DEFAULT_WRITE_INTERVAL


@dataclass(frozen=True, slots=True)
class JobPhase:
    """One entry of the job-to-phase mapping: a workflow job (or a whole run) whose
    conclusion records a phase.

    Attributes:
        workflow: the workflow file name, e.g. ``release.yml`` (no directory). A rule
            matches a workflow whose file name, path or name is this value (the
            deprecated server format's rules give names and paths).
        job: job name as ``workflow_job.name`` reports it; None: the whole run
            (``workflow_run``; only the server's mapping has such rules).
        phase: one of :data:`PHASES`.
    """

    workflow: str
    job: str | None
    phase: str

    def matches(self, job: str | None, name: str | None, path: str | None) -> bool:
        """True when this rule is for ``job`` (None: the run) of a workflow with this
        ``name`` or ``path`` (``.github/workflows/release.yml``)."""
        if self.job != job:
            return False
        names = {name, path, None if path is None else path.rsplit("/", 1)[-1]} - {None}
        return self.workflow in names


@dataclass(frozen=True, slots=True)
class PhaseMap:
    """The one job-to-phase mapping: a repository's ``[[app.jobs]]`` and the App server's
    ``GHATTEMPT_APP_PHASES`` file are read into it (docs/configuration.md, docs/app.md).

    Attributes:
        jobs: the rules, in file order; the first match wins; at most one per
            (workflow, job).
        merged_phase: the phase recorded ``succeeded`` when the pull request is merged,
            or None to record nothing. Only the server's file sets it (top-level
            ``merged_phase``); a repository's ``[app]`` cannot, and its value there is
            not read.
    """

    jobs: tuple[JobPhase, ...] = ()
    merged_phase: str | None = "merge"

    def phase_of(self, job: str | None, *, name: str | None = None,
                 path: str | None = None) -> str | None:
        """The phase of the first rule for ``job`` (None: the whole run) of the workflow
        with this ``name`` or ``path``, or None."""
        for rule in self.jobs:
            if rule.matches(job, name, path):
                return rule.phase
        return None

    def phase_for(self, workflow: str, job: str) -> str | None:
        """The phase mapped to ``job`` of workflow file ``workflow`` (e.g.
        ``release.yml``), or None."""
        return self.phase_of(job, path=workflow)

    def phase_for_run(self, name: str | None, path: str | None) -> str | None:
        """The phase a completed workflow run reports, matched on its name or path."""
        return self.phase_of(None, name=name, path=path)

    def phase_for_job(self, workflow_name: str | None, job_name: str | None) -> str | None:
        """The phase a completed job reports, matched on its workflow's name and its name."""
        return None if job_name is None else self.phase_of(job_name, name=workflow_name)


def _default_channels() -> tuple[Channel, ...]:
    return (Channel(AttemptSettings().default_channel, PHASES),)


@dataclass(frozen=True, slots=True)
class Settings:
    """The parsed consumer configuration (every table, defaults filled in)."""

    journal: JournalSettings = field(default_factory=JournalSettings)
    writer: WriterSettings = field(default_factory=WriterSettings)
    attempt: AttemptSettings = field(default_factory=AttemptSettings)
    channels: tuple[Channel, ...] = field(default_factory=_default_channels)
    lease: LeaseSettings = field(default_factory=LeaseSettings)
    pacing: PacingSettings = field(default_factory=PacingSettings)
    app: PhaseMap = field(default_factory=PhaseMap)
    run: RunSettings = field(default_factory=RunSettings)

    def channel_named(self, name: str) -> Channel | None:
        """Return the channel called ``name``, or None."""
        for channel in self.channels:
            if channel.name == name:
                return channel
        return None


@dataclass(frozen=True, slots=True)
class LoadedConfig:
    """A configuration file as one generation records it.

    Attributes:
        path: repository-relative POSIX path (journal-v1 ``generation.config.path``).
        blob: git blob oid of the raw bytes (``generation.config.blob``).
        digest: ``"sha256:"`` + hex SHA-256 of the raw bytes (``generation.config.digest``).
        settings: the parsed settings.
    """

    path: str
    blob: str
    digest: str
    settings: Settings

    def generation_config(self) -> dict[str, str]:
        """Return the ``generation.config`` object: ``{"path", "blob", "digest"}``."""
        return {"path": self.path, "blob": self.blob, "digest": self.digest}

    def channel(self, name: str | None = None) -> Channel:
        """Return channel ``name`` (None: the default channel).

        Raises:
            ConfigError: no channel has that name.
        """
        wanted = self.settings.attempt.default_channel if name is None else name
        found = self.settings.channel_named(wanted)
        if found is None:
            names = [c.name for c in self.settings.channels]
            raise ConfigError(
                self.path,
                "channels",
                f"no channel named {_q(wanted)}{_did_you_mean(wanted, names)}",
                f"use one of: {', '.join(names)}, or add [channels.{wanted}] with its plan",
            )
        return found

    def request_key(
        self, *, repository_id: str, pull_request: int, base_ref: str, channel: str | None = None
    ) -> str:
        """Render ``attempt.request_key`` for one request.

        Returns:
            A *key* (journal-v1 section 3).

        Raises:
            ConfigError: the channel is unknown, or the rendered key is not a *key*
                (e.g. a base branch name with characters outside the key alphabet).
        """
        chosen = self.channel(channel)
        values: dict[str, object] = {
            "repository_id": repository_id,
            "pull_request": pull_request,
            "base_ref": base_ref,
            "channel": chosen.name,
        }
        key = self.settings.attempt.request_key.format_map(values)
        if not is_key(key):
            raise ConfigError(
                self.path,
                "attempt.request_key",
                f"renders to {_q(key)} for this request, which is not a key "
                "(1-128 characters of A-Z a-z 0-9 . _ : / @ + = -)",
                "change the template so every request renders a valid key "
                "(e.g. drop {base_ref} if branch names hold other characters)",
            )
        return key

    def journal_title(
        self, *, repository: str, repository_id: str, pull_request: int, base_ref: str
    ) -> str:
        """Render ``journal.title`` for a new journal Discussion."""
        return self.settings.journal.title.format_map(
            {
                "repository": repository,
                "repository_id": repository_id,
                "pull_request": pull_request,
                "base_ref": base_ref,
            }
        )

    def journal_title_of(self, intent: Intent) -> str:
        """Render ``journal.title`` for ``intent`` (the store's ``journal_title``)."""
        return self.journal_title(repository=intent.repository_name,
                                  repository_id=intent.repository_id,
                                  pull_request=intent.pull_request, base_ref=intent.base_ref)


# --------------------------------------------------------------------------- hashing


def blob_oid(data: bytes, *, object_format: str = "sha1") -> str:
    """Return the git blob oid of ``data`` (what ``git hash-object`` prints).

    Args:
        data: raw file bytes.
        object_format: ``"sha1"`` (GitHub's format) or ``"sha256"``.

    Raises:
        ValueError: unknown object format.
    """
    if object_format not in ("sha1", "sha256"):
        raise ValueError(f"object_format must be 'sha1' or 'sha256', not {object_format!r}")
    return _git_blob(data, object_format)


def _git_blob(data: bytes, object_format: str) -> str:
    h = hashlib.new(object_format)
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


def content_digest(data: bytes) -> str:
    """Return ``"sha256:"`` + lowercase hex SHA-256 of ``data`` (the raw file bytes)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- loading


def load_config(
    path: str | PathLike[str] = DEFAULT_CONFIG_PATH, *, root: str | PathLike[str] | None = None
) -> LoadedConfig:
    """Read and parse the configuration file.

    Args:
        path: repository-relative path of the file (recorded in the generation).
        root: repository checkout the path is relative to (default: the current
            directory).

    Raises:
        ConfigError: the file cannot be read or is not a valid configuration.
    """
    rel = _record_path(path)
    fs_path = Path(root, rel) if root is not None else Path(rel)
    try:
        # A FIFO, a device or a directory would block or mislead the read: refuse it
        # before opening (os.open of a FIFO for reading waits for a writer).
        mode = fs_path.stat().st_mode
        if not stat.S_ISREG(mode):
            kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else
                    "a directory" if stat.S_ISDIR(mode) else "not a regular file")
            raise ConfigError(rel, None, f"is {kind}, not a regular file ({fs_path})",
                              "name the configuration file itself, a regular file in the "
                              "checkout")
        with fs_path.open("rb") as f:
            data = f.read(_MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(
            rel,
            None,
            f"file not found (looked in {fs_path})",
            f"create it (every key is described in {_DOCS}), or pass the path of your "
            "configuration file",
        ) from None
    except OSError as e:
        raise ConfigError(
            rel, None, f"cannot be read: {e.strerror or e}", "check the path and permissions"
        ) from None
    return parse_config(data, path=rel)


def parse_config(data: bytes, *, path: str, blob_oid: str | None = None) -> LoadedConfig:
    """Parse configuration bytes.

    Args:
        data: the raw file bytes (UTF-8 TOML 1.0).
        path: repository-relative POSIX path of the file.
        blob_oid: the oid GitHub reports for this file, if known; it must equal the
            oid computed from ``data`` (a mismatch means the bytes are not GitHub's).

    Raises:
        ConfigError: bad path, oid mismatch, bad TOML, or invalid settings.
    """
    rel = _record_path(path)
    if len(data) > _MAX_FILE_BYTES:
        raise ConfigError(
            rel, None, f"is larger than {_MAX_FILE_BYTES} bytes", "keep the configuration small"
        )
    if blob_oid is None:
        oid = _git_blob(data, "sha1")
    else:
        if not is_oid(blob_oid):
            raise ConfigError(
                rel,
                None,
                f"blob oid {_q(blob_oid)} is not 40 or 64 lowercase hex digits",
                "pass the oid exactly as GitHub reports it",
            )
        fmt = "sha1" if len(blob_oid) == 40 else "sha256"
        oid = _git_blob(data, fmt)
        if oid != blob_oid:
            raise ConfigError(
                rel,
                None,
                f"content has blob oid {oid}, not the expected {blob_oid}",
                "read the file at the same commit the oid came from",
            )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, column = _position(data, e.start)
        raise ConfigError(
            rel,
            None,
            f"is not UTF-8 (byte 0x{data[e.start]:02x})",
            "save the file as UTF-8",
            line=line,
            column=column,
        ) from None
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise ConfigError(
            rel, None, "invalid TOML: arrays or inline tables are nested too deeply",
            "flatten the nesting (no key of the configuration nests values)",
        ) from None
    except tomllib.TOMLDecodeError as e:
        message = str(e)
        m = re.search(r" \(at line (\d+), column (\d+)\)\Z", message)
        if m:
            problem = "invalid TOML: " + message[: m.start()]
            line, column = int(m.group(1)), int(m.group(2))
        elif message.endswith(" (at end of document)"):
            problem = "invalid TOML: " + message.removesuffix(" (at end of document)")
            problem += " at end of document"
            line, column = _end_position(text)
        else:  # pragma: no cover - tomllib always reports a position
            problem, line, column = "invalid TOML: " + message, 1, 1
        raise ConfigError(
            rel,
            None,
            problem,
            "fix the TOML syntax there (https://toml.io/en/v1.0.0)",
            line=line,
            column=column,
        ) from None
    except ValueError as e:
        # tomllib lets int() errors through: an integer of more than 4300 digits.
        raise ConfigError(
            rel, None, f"invalid TOML: {str(e)[:80]}",
            "fix the TOML syntax (https://toml.io/en/v1.0.0); integers are 64-bit",
        ) from None
    try:
        settings = build_settings(doc, path=rel)
    except ConfigError as e:
        if e.key and e.line is None:
            e.line, e.column = key_position(text, e.key) or (None, None)
        raise
    return LoadedConfig(path=rel, blob=oid, digest=content_digest(data), settings=settings)


_HEADER = re.compile(r"\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_ASSIGN = re.compile(r"\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')"
                     r"(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*=")


def _parts(dotted: str) -> list[str]:
    """``a."b.c".d`` -> ``["a", "b.c", "d"]`` (TOML dotted keys, bare or quoted)."""
    out = []
    for m in re.finditer(r"\"([^\"]*)\"|'([^']*)'|([A-Za-z0-9_-]+)", dotted):
        out.append(next(g for g in m.groups() if g is not None))
    return out


def key_position(text: str, key: str) -> tuple[int, int] | None:
    """The 1-based (line, column) where ``key`` (a dotted key of a :class:`ConfigError`,
    e.g. ``channels.stable.plan`` or ``app.jobs[1].phase``) is written in ``text``: its
    assignment, else the header of its table; None when the file does not hold it (a
    missing key) or writes it in a way this scan does not follow (inline tables)."""
    wanted: list[str | int] = []
    for m in re.finditer(r"\"((?:[^\"\\\\]|\\\\.)*)\"|\[(\d+)\]|([^.\[\"]+)", key):
        quoted, index, bare = m.groups()
        wanted.append(int(index) if index is not None else
                      bare if bare is not None else quoted.replace('\\"', '"'))
    table: list[str | int] = []
    arrays: dict[tuple[str, ...], int] = {}
    best: tuple[int, int, int] | None = None  # (matched length, line, column)
    for number, line in enumerate(text.split("\n"), start=1):
        header = _HEADER.match(line)
        if header and not _ASSIGN.match(line):
            names = _parts(header.group(2))
            if header.group(1) == "[[":
                index = arrays.get(tuple(names), -1) + 1
                arrays[tuple(names)] = index
                table = [*names, index]
            else:
                table = list(names)
            path = table
            column = line.index("[") + 1
        else:
            assign = _ASSIGN.match(line)
            if not assign:
                continue
            path = [*table, *_parts(assign.group(1))]
            column = assign.start(1) + 1
        if path == wanted[:len(path)] and (best is None or len(path) > best[0]):
            best = (len(path), number, column)
            if len(path) == len(wanted):
                return number, column
    return (best[1], best[2]) if best is not None else None


# --------------------------------------------------------------------------- builders


def build_settings(doc: Mapping[str, object], *, path: str) -> Settings:
    """Build :class:`Settings` from a parsed TOML document.

    Raises:
        ConfigError: the first problem found, in this order: unknown top-level keys,
            then ``journal``, ``writer``, ``channels``, ``attempt``, ``lease``,
            ``pacing``, ``app``.
    """
    r = _Reader(path)
    r.known(doc, "", SCHEMA[""])
    journal = build_journal(r.table(doc, "journal"), path=path)
    writer = build_writer(r.table(doc, "writer"), path=path)
    channels = build_channels(r.table(doc, "channels") if "channels" in doc else None, path=path)
    attempt = build_attempt_settings(r.table(doc, "attempt"), channels, path=path)
    lease = build_lease_settings(r.table(doc, "lease"), path=path)
    pacing = build_pacing(r.table(doc, "pacing"), path=path)
    run = build_run(r.table(doc, "run"), path=path)
    app = build_app(r.table(doc, "app"), channels, path=path)
    return Settings(
        journal=journal,
        writer=writer,
        attempt=attempt,
        channels=channels,
        lease=lease,
        pacing=pacing,
        app=app,
        run=run,
    )


def build_journal(t: Mapping[str, object], *, path: str) -> JournalSettings:
    """Build ``[journal]``: ``category``, ``title``, ``max_comments``."""
    r = _Reader(path)
    d = JournalSettings()
    r.known(t, "journal", SCHEMA["journal"])
    category = r.string(t, "journal.category", d.category, _key("journal.category"))
    title = r.template(t, "journal.title", d.title, _key("journal.title"))
    rendered = title.format_map(
        {
            "repository": _SAMPLE_REPOSITORY,
            "repository_id": _SAMPLE_REPOSITORY_ID,
            "pull_request": _SAMPLE_PULL_REQUEST,
            "base_ref": _SAMPLE_BASE_REF,
        }
    )
    if not rendered.strip() or len(rendered) > _NAME_MAX:
        r.fail(
            "journal.title",
            f"renders to {len(rendered)} characters for a sample pull request",
            f"keep the title between 1 and {_NAME_MAX} characters",
        )
    max_comments = r.integer(t, "journal.max_comments", d.max_comments,
                             _key("journal.max_comments"))
    return JournalSettings(category=category, title=title, max_comments=max_comments)


def build_writer(t: Mapping[str, object], *, path: str) -> WriterSettings:
    """Build ``[writer]``: ``login``, ``database_id``."""
    r = _Reader(path)
    d = WriterSettings()
    r.known(t, "writer", SCHEMA["writer"])
    login = t.get("writer.login".rsplit(".", 1)[1], d.login)
    if isinstance(login, str) and login.endswith(BOT_SUFFIX):
        problem = login_problem(login)
        assert problem is not None
        r.fail("writer.login", *problem)  # the one rule (github.identity)
    login = r.string(t, "writer.login", d.login, _key("writer.login"))
    database_id: int | None
    if "database_id" in t:
        database_id = r.integer(t, "writer.database_id", 1, _key("writer.database_id"))
    elif login == ACTIONS_LOGIN:
        database_id = None  # learned from the configured host at start
    else:
        r.fail(
            "writer.database_id",
            f"missing for writer.login = {_q(login)}",
            f"add database_id = <the account's numeric id> (the `id` field of "
            f"`gh api users/{login}` for a user, `gh api users/{login}%5Bbot%5D` for an App)",
        )
    return WriterSettings(login=login, database_id=database_id)


def build_channels(t: Mapping[str, object] | None, *, path: str) -> tuple[Channel, ...]:
    """Build ``[channels.NAME]`` tables, each with ``plan``.

    None (no ``[channels]`` table) gives the default: one channel ``release`` with
    every phase.
    """
    r = _Reader(path)
    if t is None:
        return _default_channels()
    if not t:
        r.fail(
            "channels",
            "has no channel",
            'add at least one, e.g. [channels.release] with plan = ["admission", ...]',
        )
    channels: list[Channel] = []
    for name, value in t.items():
        key = f"channels.{_dotted(name)}"
        if not _CHANNEL_NAME.match(name):
            r.fail(
                key,
                f"{_q(name)} is not a valid channel name",
                "use 1-64 characters of A-Z a-z 0-9 . _ -",
            )
        if not isinstance(value, dict):
            r.fail(
                key,
                f"expected a table, got {_kind(value)}",
                f'write [channels.{name}] with plan = ["admission", ...]',
            )
        r.known(value, key, SCHEMA["channels.*"])
        if "plan" not in value:
            r.fail(
                f"{key}.plan",
                "missing",
                f"add plan = [...] with phases, in this order, from: {', '.join(PHASES)}",
            )
        channels.append(Channel(name=name, plan=_plan(r, f"{key}.plan", value["plan"])))
    return tuple(channels)


def build_attempt_settings(
    t: Mapping[str, object], channels: Sequence[Channel], *, path: str
) -> AttemptSettings:
    """Build ``[attempt]``: ``request_key``, ``default_channel``, ``expires_after``.

    ``default_channel`` may be left out when there is exactly one channel.
    """
    r = _Reader(path)
    d = AttemptSettings()
    r.known(t, "attempt", SCHEMA["attempt"])
    request_key = r.template(t, "attempt.request_key", d.request_key,
                             _key("attempt.request_key"))
    for channel in channels:
        sample = request_key.format_map(
            {
                "repository_id": _SAMPLE_REPOSITORY_ID,
                "pull_request": _SAMPLE_PULL_REQUEST,
                "base_ref": _SAMPLE_BASE_REF,
                "channel": channel.name,
            }
        )
        if not is_key(sample):
            r.fail(
                "attempt.request_key",
                f"renders to {_q(sample)} for channel {_q(channel.name)}, which is not a key "
                "(1-128 characters of A-Z a-z 0-9 . _ : / @ + = -)",
                "use only those characters around the placeholders and keep it short",
            )
    names = [c.name for c in channels]
    if "default_channel" in t:
        default_channel = r.string(t, "attempt.default_channel", d.default_channel,
                                   _key("attempt.default_channel"))
        if default_channel not in names:
            r.fail(
                "attempt.default_channel",
                f"{_q(default_channel)} is not a channel{_did_you_mean(default_channel, names)}",
                f"use one of: {', '.join(names)}",
            )
    elif len(names) == 1:
        default_channel = names[0]
    else:
        r.fail(
            "attempt.default_channel",
            f"missing while there are {len(names)} channels",
            f"add default_channel = one of: {', '.join(names)}",
        )
    expires_after = r.integer(t, "attempt.expires_after", d.expires_after,
                              _key("attempt.expires_after"))
    return AttemptSettings(
        request_key=request_key, default_channel=default_channel, expires_after=expires_after
    )


def build_lease_settings(t: Mapping[str, object], *, path: str) -> LeaseSettings:
    """Build ``[lease]``: ``length``, ``request_timeout``, ``clock_skew``, ``acquire_timeout``.

    Returns :class:`ghattempt.exclusive.LeaseSettings` (``length`` is its
    ``lease_seconds``), the one place the lease rule lives (architecture.md, writer
    protocol step 4), with its other values at their defaults.
    """
    r = _Reader(path)
    d = LeaseSettings()
    r.known(t, "lease", SCHEMA["lease"])
    length = r.integer(t, "lease.length", d.lease_seconds, _key("lease.length"))
    timeout = r.seconds(t, "lease.request_timeout", d.request_timeout,
                        _key("lease.request_timeout"))
    skew = r.seconds(t, "lease.clock_skew", d.clock_skew, _key("lease.clock_skew"))
    acquire = r.seconds(t, "lease.acquire_timeout", d.acquire_timeout,
                        _key("lease.acquire_timeout"))
    minimum = LeaseSettings.minimum_for(timeout, skew)
    if not length > minimum:
        r.fail(
            "lease.length",
            f"{length} s is not longer than request_timeout "
            f"({_num(timeout)} s) + GitHub's {_num(GITHUB_SERVER_BOUND)} s "
            f"server bound + clock_skew ({_num(skew)} s) + 2 x "
            f"request_timeout (to acquire) + {_num(HTTP_DATE_RESOLUTION)} s = "
            f"{_num(minimum)} s",
            f"set lease.length above {_num(minimum)} or lower lease.request_timeout",
        )
    try:
        return LeaseSettings(lease_seconds=length, request_timeout=timeout, clock_skew=skew,
                             acquire_timeout=acquire)
    except _LeaseRuleError as e:  # pragma: no cover - each key's bounds are checked above
        r.fail("lease", str(e), "adjust the [lease] values")


def build_pacing(t: Mapping[str, object], *, path: str) -> PacingSettings:
    """Build ``[pacing]``: ``write_interval``."""
    r = _Reader(path)
    d = PacingSettings()
    r.known(t, "pacing", SCHEMA["pacing"])
    return PacingSettings(
        write_interval=r.seconds(t, "pacing.write_interval", d.write_interval,
                                 _key("pacing.write_interval"))
    )


def build_run(t: Mapping[str, object], *, path: str) -> RunSettings:
    """Build ``[run]``: ``stale_after``."""
    r = _Reader(path)
    d = RunSettings()
    r.known(t, "run", SCHEMA["run"])
    return RunSettings(stale_after=r.integer(t, "run.stale_after", d.stale_after,
                                             _key("run.stale_after")))


def build_app(t: Mapping[str, object], channels: Sequence[Channel], *, path: str) -> PhaseMap:
    """Build ``[app]``: ``jobs``, an array of ``{workflow, job, phase}`` tables.

    Each phase must be in some channel's plan; each (workflow, job) appears once.
    """
    r = _Reader(path)
    r.known(t, "app", SCHEMA["app"])
    planned = {p for c in channels for p in c.plan}
    return PhaseMap(jobs=_jobs(r, t.get("jobs", []), planned=planned, runs=False))


def build_phase_map(doc: Mapping[str, object], *, path: str) -> PhaseMap:
    """Build the App server's mapping file (``GHATTEMPT_APP_PHASES``, docs/app.md): the
    same ``[[app.jobs]]`` tables as a repository's ``[app]``, where ``job`` may be left
    out (the whole run's conclusion reports the phase), and a top-level
    ``merged_phase`` (``""``: the merge records nothing; default ``"merge"``).

    A phase is reported by one rule, or by the merge, never by two (a second result of
    a phase would be refused as a rewrite of a terminal phase, journal-v1 section 8).

    Raises:
        ConfigError: an unknown key, a wrong type, an unknown phase, a duplicate rule, a
            phase reported twice.
    """
    r = _Reader(path)
    r.known(doc, "", ("merged_phase", "app"))
    merged_raw = doc.get("merged_phase", PhaseMap().merged_phase)
    merged = None
    if merged_raw != "":
        if not isinstance(merged_raw, str) or merged_raw not in PHASES:
            shown = _q(merged_raw) if isinstance(merged_raw, str) else _kind(merged_raw)
            r.fail("merged_phase", f"{shown} is not a phase",
                   f'use one of: {", ".join(PHASES)}, or "" to record nothing on merge')
        merged = merged_raw
    t = r.table(doc, "app")
    r.known(t, "app", SCHEMA["app"])
    jobs = _jobs(r, t.get("jobs", []), planned=None, runs=True)
    reported: dict[str, int] = {}
    for i, item in enumerate(jobs):
        if item.phase == merged or item.phase in reported:
            by = "the merge" if item.phase == merged else f"app.jobs[{reported[item.phase]}]"
            r.fail(f"app.jobs[{i}].phase", f"{_q(item.phase)} is already reported by {by}",
                   "let one rule report each phase")
        reported[item.phase] = i
    return PhaseMap(jobs=jobs, merged_phase=merged)


def _jobs(r: _Reader, raw: object, *, planned: set[str] | None,
          runs: bool) -> tuple[JobPhase, ...]:
    """The ``[[app.jobs]]`` entries; ``planned``: the phases some channel plans (None: no
    channels to check); ``runs``: ``job`` may be left out (the server's file)."""
    if not isinstance(raw, list):
        r.fail(
            "app.jobs",
            f"expected an array of tables, got {_kind(raw)}",
            'write [[app.jobs]] tables with workflow = "release.yml", job = "build", '
            'phase = "build"',
        )
    seen: dict[tuple[str, str | None], int] = {}
    jobs: list[JobPhase] = []
    for i, item in enumerate(raw):
        key = f"app.jobs[{i}]"
        if not isinstance(item, dict):
            r.fail(key, f"expected a table, got {_kind(item)}", "write it as a [[app.jobs]] table")
        r.known(item, key, SCHEMA["app.jobs[]"])
        for name in ("workflow", "job", "phase"):
            if name not in item and not (runs and name == "job"):
                r.fail(f"{key}.{name}", "missing", f'add {name} = "..." to this [[app.jobs]]')
        workflow = r.string(item, f"{key}.workflow", "", _key("app.jobs[].workflow"))
        job = (r.string(item, f"{key}.job", "", _key("app.jobs[].job"))
               if "job" in item else None)
        phase = r.string(item, f"{key}.phase", "", _key("app.jobs[].phase"))
        if phase not in PHASES:
            r.fail(
                f"{key}.phase",
                f"{_q(phase)} is not a phase{_did_you_mean(phase, PHASES)}",
                f"use one of: {', '.join(PHASES)}",
            )
        if planned is not None and phase not in planned:
            r.fail(
                f"{key}.phase",
                f"{_q(phase)} is in no channel's plan",
                "add it to a channel's plan or remove this mapping",
            )
        if (workflow, job) in seen:
            what = f"job {_q(job)}" if job is not None else "the run"
            r.fail(
                key,
                f"workflow {_q(workflow)} {what} is already mapped by "
                f"app.jobs[{seen[(workflow, job)]}]",
                "map each job to one phase",
            )
        seen[(workflow, job)] = i
        jobs.append(JobPhase(workflow=workflow, job=job, phase=phase))
    return tuple(jobs)


# --------------------------------------------------------------------------- helpers


_PATTERN_PROBLEM: Final = {
    "journal.category": "has surrounding spaces",
    "writer.login": "is not a GitHub login",
    "attempt.request_key": "holds characters outside a journal key",
    "app.jobs[].workflow": "is not a workflow file name",
}
_PATTERN_FIX: Final = {
    "journal.category": "remove them",
    "writer.login": "use letters, digits and single hyphens (at most 39 characters)",
    "attempt.request_key": "use only A-Z a-z 0-9 . _ : / @ + = - around the placeholders "
                           "{repository_id}, {pull_request}, {base_ref}, {channel}",
    "app.jobs[].workflow": 'give the file name under .github/workflows, e.g. "release.yml"',
}


class _Reader:
    """Typed getters that raise :class:`ConfigError` naming ``path`` and the key."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, key: str, problem: str, fix: str) -> NoReturn:
        raise ConfigError(self.path, key, problem, fix)

    def known(self, t: Mapping[str, object], prefix: str, allowed: Sequence[str]) -> None:
        for name in t:
            if name not in allowed:
                key = f"{prefix}.{_dotted(name)}" if prefix else _dotted(name)
                where = f"[{prefix}]" if prefix else "the top level"
                self.fail(
                    key,
                    f"unknown key{_did_you_mean(name, allowed)}",
                    f"remove it; keys allowed in {where}: {', '.join(allowed)}",
                )

    def table(self, doc: Mapping[str, object], name: str) -> Mapping[str, object]:
        value = doc.get(name, {})
        if not isinstance(value, dict):
            self.fail(name, f"expected a table, got {_kind(value)}", f"write it as [{name}]")
        return value

    def string(self, t: Mapping[str, object], key: str, default: str, spec: Key) -> str:
        value = t.get(_leaf(key), default)
        if not isinstance(value, str):
            self.fail(key, f"expected a string, got {_kind(value)}", 'write it in quotes: "..."')
        max_len = spec.max_length
        if not value:
            self.fail(key, "is empty", f"use 1 to {max_len} characters")
        if len(value) > max_len:
            self.fail(key, f"has {len(value)} characters", f"use 1 to {max_len} characters")
        if spec.pattern is not None and re.fullmatch(spec.pattern, value) is None:
            self.fail(key, f"{_q(value)} {_PATTERN_PROBLEM[spec.path]}",
                      _PATTERN_FIX[spec.path])
        return value

    def integer(self, t: Mapping[str, object], key: str, default: int, spec: Key) -> int:
        value = t.get(_leaf(key), default)
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(key, f"expected an integer, got {_kind(value)}", "write a whole number")
        minimum, maximum = spec.minimum or 0, spec.maximum
        if value < minimum:
            self.fail(key, f"{value} is less than {minimum}", f"use {minimum} or more")
        if maximum is not None and value > maximum:
            self.fail(key, f"{value} is more than {maximum}", f"use at most {maximum}")
        return value

    def seconds(self, t: Mapping[str, object], key: str, default: float, spec: Key) -> float:
        value = t.get(_leaf(key), default)
        allow_zero = not spec.above_zero
        if not isinstance(value, int | float) or isinstance(value, bool):
            self.fail(
                key, f"expected a number of seconds, got {_kind(value)}", "write e.g. 30 or 2.5"
            )
        if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
            bound = "0 or more" if allow_zero else "more than 0"
            self.fail(key, f"{_num(value)} is not a duration", f"use a number of seconds {bound}")
        if spec.maximum is not None and value > spec.maximum:
            self.fail(key, f"{_num(value)} s is more than 10 years",
                      f"use at most {spec.maximum} seconds")
        return float(value)

    def template(self, t: Mapping[str, object], key: str, default: str, of: Key) -> str:
        fields = of.fields
        value = self.string(t, key, default, replace(of, pattern=None))
        allowed = ", ".join("{" + f + "}" for f in fields)
        try:
            parts = list(string.Formatter().parse(value))
        except ValueError as e:
            self.fail(
                key,
                f"is not a valid template ({e})",
                f"write literal braces as {{{{ and }}}}; placeholders: {allowed}",
            )
        for _literal, name, spec, conversion in parts:
            if name is None:
                continue
            if name not in fields or spec or conversion:
                shown = "{" + name + ("!" + conversion if conversion else "")
                shown += (":" + spec if spec else "") + "}"
                self.fail(
                    key,
                    f"placeholder {shown} is not allowed"
                    f"{_did_you_mean(name, fields) if name not in fields else ''}",
                    f"use only {allowed}, without format specs or conversions",
                )
        if of.pattern is not None and re.fullmatch(of.pattern, value) is None:
            self.fail(key, f"{_q(value)} {_PATTERN_PROBLEM[of.path]}",
                      _PATTERN_FIX[of.path])
        return value


def _plan(r: _Reader, key: str, value: object) -> tuple[str, ...]:
    order = ", ".join(PHASES)
    if not isinstance(value, list):
        r.fail(key, f"expected an array of phases, got {_kind(value)}", f"use phases from: {order}")
    if not value:
        r.fail(key, "is empty", f"list at least one phase, in this order, from: {order}")
    plan: list[str] = []
    for item in value:
        if not isinstance(item, str):
            r.fail(key, f"expected phase names, got {_kind(item)}", f"use phases from: {order}")
        if item not in PHASES:
            r.fail(
                key,
                f"{_q(item)} is not a phase{_did_you_mean(item, PHASES)}",
                f"use phases from: {order}",
            )
        if item in plan:
            r.fail(key, f"{_q(item)} appears twice", "list each phase once")
        if plan and PHASES.index(item) < PHASES.index(plan[-1]):
            r.fail(
                key,
                f"{_q(item)} comes after {_q(plan[-1])}",
                f"list phases in the admitted order: {order}",
            )
        plan.append(item)
    return tuple(plan)


def _record_path(path: str | PathLike[str]) -> str:
    raw = str(path) if not isinstance(path, str) else path
    posix = raw.replace("\\", "/")
    p = PurePosixPath(posix)
    if (
        not posix
        or p.is_absolute()
        or ".." in p.parts
        or str(p) != posix.removeprefix("./")
        or len(posix) > _NAME_MAX
    ):
        raise ConfigError(
            raw,
            None,
            "is not a normalized repository-relative path",
            f"name the file relative to the repository root, e.g. {DEFAULT_CONFIG_PATH}",
        )
    return str(p)


def _one_line(text: str) -> str:
    """``text`` with every non-printable character (newlines, escapes, U+2028) escaped."""
    if text.isprintable():
        return text
    short = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return "".join(c if c.isprintable() else short.get(c) or
                   (f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
                   for c in text)


def _leaf(key: str) -> str:
    """Return the last segment of a dotted key built by this module (never quoted)."""
    return key.rsplit(".", 1)[-1]


def _position(data: bytes, offset: int) -> tuple[int, int]:
    before = data[:offset]
    line = before.count(b"\n") + 1
    column = offset - (before.rfind(b"\n") + 1) + 1
    return line, column


def _end_position(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""


def _dotted(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else '"' + name + '"'


def _q(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _num(value: float) -> str:
    return f"{value:g}"


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"float {_num(value)}"
    if isinstance(value, str):
        return f"string {_q(value)}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__  # dates and times


# --------------------------------------------------------------------------- schema


def _plans() -> list[list[str]]:
    """Every plan (journal-v1 section 4): a non-empty subsequence of PHASES."""
    return [[p for i, p in enumerate(PHASES) if mask >> i & 1]
            for mask in range(1, 1 << len(PHASES))]


def _key_schema(k: Key) -> dict[str, object]:
    out: dict[str, object] = {"description": k.doc}
    if k.kind in ("string", "template"):
        out |= {"type": "string", "minLength": 1, "maxLength": k.max_length}
        if k.kind == "template":
            names = "|".join(k.fields)
            # literal text, {{ and }}, and only the allowed placeholders
            out["pattern"] = "^(?:[^{}]|\\{\\{|\\}\\}|\\{(?:" + names + ")\\})*$"
            if k.pattern:
                out["allOf"] = [{"pattern": f"^(?:{k.pattern})$"}]
        elif k.pattern:
            out["pattern"] = f"^(?:{k.pattern})$"
    elif k.kind == "integer":
        out["type"] = "integer"
        if k.minimum is not None:
            out["minimum"] = k.minimum
        if k.maximum is not None:
            out["maximum"] = k.maximum
    elif k.kind == "seconds":
        out["type"] = "number"
        out["exclusiveMinimum" if k.above_zero else "minimum"] = 0
        if k.maximum is not None:
            out["maximum"] = k.maximum
    elif k.kind == "plan":
        out |= {"type": "array", "enum": _plans()}
    elif k.kind == "phase":
        out |= {"type": "string", "enum": list(PHASES)}
    d = _default_of(k)
    if d is not None:
        out["default"] = d
    return out


def _default_of(k: Key) -> object:
    records = {"journal": JournalSettings(), "writer": WriterSettings(),
               "attempt": AttemptSettings(), "lease": LeaseSettings(),
               "pacing": PacingSettings(), "run": RunSettings()}
    record = records.get(k.table)
    field_name = _FIELDS.get(f"{k.table}.{k.name}", k.name)
    return getattr(record, field_name, None) if record is not None else None


_FIELDS: Final = {"lease.length": "lease_seconds"}
"""Keys whose settings field has another name (the lease's own class names it)."""


def _table_schema(table: str) -> dict[str, object]:
    keys = [k for k in KEYS if k.table == table]
    return {"type": "object", "additionalProperties": False,
            "properties": {k.name: _key_schema(k) for k in keys},
            **({"required": [k.name for k in keys if k.required]}
               if any(k.required for k in keys) else {})}


def json_schema() -> dict[str, object]:
    """The JSON Schema (draft 2020-12) of the file, generated from :data:`KEYS` and the
    defaults of the settings records. It states every rule of one key; the rules that
    tie keys together (:data:`CROSS_KEY_RULES`) are the parser's alone."""
    writer = _table_schema("writer")
    writer["if"] = {"properties": {"login": {"not": {"const": WriterSettings().login}}},
                    "required": ["login"]}
    writer["then"] = {"required": ["database_id"]}
    channels = {"type": "object", "minProperties": 1,
                "propertyNames": {"pattern": "^" + _CHANNEL_NAME.pattern.removesuffix("\\Z")
                                  + "$"},
                "additionalProperties": _table_schema("channels.*"),
                "description": "release channels, each with its plan (default: one "
                               "channel 'release' with every phase)"}
    app = {"type": "object", "additionalProperties": False,
           "properties": {"jobs": {"type": "array", "items": _table_schema("app.jobs[]"),
                                   "description": "GitHub App: workflow jobs mapped to "
                                                  "phases"}}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/ghattempt/ghattempt/docs/ghattempt.schema.json",
        "title": "ghattempt consumer configuration (.github/ghattempt.toml)",
        "description": "Generated by `ghattempt config schema` from ghattempt.config.KEYS. "
                       "Not stated here, checked by the parser and `ghattempt config "
                       "check`: " + "; ".join(CROSS_KEY_RULES) + ".",
        "type": "object",
        "additionalProperties": False,
        "properties": {"journal": _table_schema("journal"), "writer": writer,
                       "attempt": _table_schema("attempt"), "channels": channels,
                       "lease": _table_schema("lease"), "pacing": _table_schema("pacing"),
                       "run": _table_schema("run"), "app": app},
        # several channels: the default one must be named
        "if": {"properties": {"channels": {"minProperties": 2}}, "required": ["channels"]},
        "then": {"required": ["attempt"],
                 "properties": {"attempt": {"required": ["default_channel"]}}},
    }


# --------------------------------------------------------------------------- check


def check_config(data: bytes, *, path: str = DEFAULT_CONFIG_PATH) -> list[ConfigError]:
    """Every problem of a configuration file, one per table (the first problem within a
    table), each with its line and column when the file holds the key; [] when good.

    The same builders as :func:`parse_config` run, table by table, so a file is good
    here exactly when ``parse_config`` accepts it.
    """
    try:
        parse_config(data, path=path)
    except ConfigError as exc:
        first = exc
    else:
        return []
    if first.key is None:
        return [first]  # the file as a whole: size, encoding, TOML syntax
    text = data.decode("utf-8")
    doc = tomllib.loads(text)
    rel = _record_path(path)
    problems: list[ConfigError] = []

    def attempt(build: object, *args: object) -> object:
        try:
            return build(*args, path=rel)  # type: ignore[operator]
        except ConfigError as e:
            problems.append(e)
            return None

    r = _Reader(rel)
    for name in doc:
        if name not in _TABLES:
            attempt(lambda *, path, n=name: r.known({n: None}, "", SCHEMA[""]))
    tables: dict[str, Mapping[str, object]] = {}
    for name in _TABLES:
        value = doc.get(name, {})
        if isinstance(value, dict):
            tables[name] = value
        else:
            attempt(lambda *, path, n=name: r.table(doc, n))
    for name, build in (("journal", build_journal), ("writer", build_writer),
                        ("lease", build_lease_settings), ("pacing", build_pacing),
                        ("run", build_run)):
        if name in tables:
            attempt(build, tables[name])
    channels = attempt(build_channels, tables["channels"] if "channels" in doc else None) \
        if "channels" in tables or "channels" not in doc else None
    if channels is not None:
        if "attempt" in tables:
            attempt(build_attempt_settings, tables["attempt"], channels)
        if "app" in tables:
            attempt(build_app, tables["app"], channels)
    for e in problems:
        if e.key and e.line is None:
            e.line, e.column = key_position(text, e.key) or (None, None)
    return problems or [first]
