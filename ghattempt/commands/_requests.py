"""The requests: one frozen type per use case, checked when it is built.

Shape::

    Target(repository, pull_request, base_ref=None)         # which journal
    Observed(head, tree, base_commit)                       # a generation a delivery saw
    MaterialInput(id, kind, bytes, digest, url, attempt=None, generation=None)
    Admit / RecordEvent / OpenSuccessor / Supersede / Expire / Rollback   # the writing requests
    Status / Show / CaptureJournal                           # the reading requests
    materials_from(text: str | None, token_env) -> tuple[MaterialInput, ...]
    check(request, config, token_env) -> None                # what needs the configuration

A request carries everything its use case needs that is not read from GitHub: the
target, the writer, the request key and event keys when given (else derived by
``ghattempt.commands._keys``, in one place), and the options that say how to answer
(``RecordEvent.out_of_order``: a webhook delivery may come before what it builds on). Each
request is checked when it is built (``__post_init__``), by the core's own rules
(``is_key``, ``is_digest``, ``is_oid``, and the record builder ``build_event``, which
parses what it builds as the reader does),
and for the values written verbatim, that none holds a token of the environment or is
shaped like one; :func:`check` adds what needs the configuration (the channel, the
phase in its plan) and the token variable the connection names. Both run before the
first request to GitHub: an input error is exit 2 with one line, never a lease taken
and released for nothing.

Messages name a field by its command-line option (``--phase``): the Action translates
them to its inputs' names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ghattempt.commands._errors import CommandError, RequestError
from ghattempt.commands._secrets import looks_secret, refuse_secrets
from ghattempt.errors import Fault

if TYPE_CHECKING:
    from ghattempt.config import LoadedConfig
    from ghattempt.core import Capture, JournalInvalid, Writer

__all__ = [
    "GRAPHQL_INT_MAX",
    "Admit",
    "CaptureJournal",
    "Expire",
    "MaterialInput",
    "Observed",
    "ReadRequest",
    "RecordEvent",
    "Rollback",
    "Run",
    "Show",
    "Status",
    "OpenSuccessor",
    "Supersede",
    "Target",
    "WriteRequest",
    "check",
    "materials_from",
    "split_repository",
]

GRAPHQL_INT_MAX = 2**31 - 1
"""GitHub's GraphQL ``Int`` is 32-bit: a larger pull request or discussion number names
nothing (GraphQL spec, "Int")."""

_REPO = re.compile(r"([A-Za-z0-9_.-]{1,100})/([A-Za-z0-9_.-]{1,100})")

_KEY_SHAPE = "must be 1-128 characters of A-Z a-z 0-9 . _ : / @ + = -"


def split_repository(text: str | None) -> tuple[str, str]:
    """``owner/name`` -> ``(owner, name)``.

    Raises:
        CommandError: (bad input) missing or not ``owner/name``.
    """
    if not text:
        raise CommandError(Fault.BAD_INPUT, "no repository: pass --repository OWNER/NAME or "
                           "set GITHUB_REPOSITORY")
    m = _REPO.fullmatch(text)
    if m is None:
        raise CommandError(Fault.BAD_INPUT, f"--repository must be OWNER/NAME, got {text!r}")
    return m.group(1), m.group(2)


def _key(option: str, value: str | None) -> None:
    from ghattempt.core import is_key

    if value is not None and not is_key(value):
        raise RequestError(f"{option} {_KEY_SHAPE}")


def _number(option: str, value: object) -> None:
    if type(value) is not int or not 1 <= value <= GRAPHQL_INT_MAX:
        raise RequestError(f"{option} must be a number >= 1")


_NONE = "sha256:" + "0" * 64
"""A digest standing for what a request does not know before it reads the journal."""
_EPOCH = "1970-01-01T00:00:00Z"
_FIELDS = (("event.status", "--status"), ("event.reason", "--reason"),
           ("event.materials", "--materials"), ("event.writer", "the record's writer"))
"""A record's fields as the reader names them, and the request's option for each."""


def _event(phase: str | None, status: str, reason: str | None,
           materials: Sequence[MaterialInput] = (), writer: Writer | None = None) -> None:
    """An event with the request's phase, status, reason, materials and writer, built by
    the core's own builder (``build_event``: the record the reader would parse, with its
    field rules, the statuses each kind of phase takes, and a reason exactly where one is
    needed), what the request cannot know yet standing in (the attempt, its generation,
    the journal's head, the time): nothing is written; a record the reader would refuse
    is refused now, in the words of the request's options.

    Raises:
        RequestError: the field the reader would refuse; ``problem`` as the core names it.
    """
    from ghattempt.core import CliWriter, Material, RecordValueError, build_event

    try:
        cited = [Material(m.id, m.kind, m.bytes, m.digest,
                          _NONE if m.attempt is None else m.attempt,
                          _NONE if m.generation is None else m.generation, m.url)
                 for m in materials]
        build_event(intent=_NONE, attempt=_NONE, generation=_NONE, seq=1, prev=_NONE,
                    key="request", phase=phase, status=status,
                    writer=writer if writer is not None else CliWriter("request"),
                    reader=_NONE, at=_EPOCH, reason=reason, materials=cited)
    except RecordValueError as exc:
        if exc.problem == "reason_required":
            raise RequestError(f"--status {status} needs a reason of 1..1024 characters",
                               exc.problem) from None
        if exc.problem == "reason_forbidden":
            raise RequestError(f"--status {status} takes no reason", exc.problem) from None
        detail = str(exc).removeprefix("the record would be refused: bad_record: ")
        if detail.startswith("event.status "):
            kind = "an attempt-level event" if phase is None else f"phase {phase!r}"
            raise RequestError(f"--status {status[:40]!r} is not allowed for {kind} "
                               "(journal-v1 section 4)") from None
        if detail.startswith("event.reason "):  # a given reason (null is the other choice)
            detail = f"{detail.removesuffix(' or null')}: it has {len(reason or '')} characters"
        for field, option in _FIELDS:
            if detail.startswith(field):
                detail = option + detail[len(field):]
                break
        raise RequestError(detail) from None
    except (ValueError, TypeError) as exc:  # a value no record can hold (a marker...)
        raise RequestError(f"the record would not be one the reader reads: {exc}") from None


def _writer(writer: Writer) -> None:
    """The writer, as the reader reads it in a record (an attempt-level event stands in:
    the request writes none yet)."""
    _event(None, "expired", "the writer's record", writer=writer)


def _work_was_for(attempt: str | None, head: str | None) -> None:
    """``--attempt`` and ``--head``: an attempt id (a *digest*) and a commit (an *oid*)."""
    from ghattempt.core import is_digest, is_oid

    if attempt is not None and not is_digest(attempt):
        raise RequestError("--attempt must be an attempt id: sha256: and 64 lowercase hex "
                           "digits, as admit prints it")
    if head is not None and not is_oid(head):
        raise RequestError("--head must be a commit SHA: 40 lowercase hex digits (64 in a "
                           "SHA-256 repository)")


@dataclass(frozen=True, slots=True)
class Target:
    """Which journal: the pull request ``pull_request`` of ``repository`` (``owner/name``)
    into ``base_ref`` (None: the pull request's base, read from GitHub).

    Raises:
        CommandError: (bad input) not ``owner/name``, or not a pull request number.
    """

    repository: str
    pull_request: int
    base_ref: str | None = None

    def __post_init__(self) -> None:
        split_repository(self.repository)
        _number("--pull-request", self.pull_request)

    @property
    def owner(self) -> str:
        return split_repository(self.repository)[0]

    @property
    def name(self) -> str:
        return split_repository(self.repository)[1]


@dataclass(frozen=True, slots=True)
class Observed:
    """A generation as a webhook delivery saw it (ADR 0006): the pull request's head
    commit and its tree, and the base branch's commit (the base branch is the target's).
    Without it a request reads the pull request's current head from GitHub.

    Raises:
        RequestError: a value that is not an object id.
    """

    head: str
    tree: str
    base_commit: str

    def __post_init__(self) -> None:
        from ghattempt.core import is_oid

        for name in ("head", "tree", "base_commit"):
            if not is_oid(getattr(self, name)):
                raise RequestError(f"the observed {name} must be a commit SHA: 40 lowercase "
                                   "hex digits (64 in a SHA-256 repository)")


@dataclass(frozen=True, slots=True)
class MaterialInput:
    """A material a ``record`` cites (journal-v1 section 4, material). ``attempt`` and
    ``generation`` are left out together for the attempt the event is written on. The
    values are as given (JSON): the request citing them checks their shapes."""

    id: Any
    kind: Any
    bytes: Any
    digest: Any
    url: Any
    attempt: Any = None
    generation: Any = None

    def fields(self) -> dict[str, object]:
        """The material's fields as section 4 names them (``attempt`` and ``generation``
        only when given)."""
        fields = {"id": self.id, "kind": self.kind, "bytes": self.bytes,
                  "digest": self.digest, "url": self.url}
        if self.attempt is not None or self.generation is not None:
            fields.update(attempt=self.attempt, generation=self.generation)
        return fields


_MATERIAL_FIELDS = ("id", "kind", "bytes", "digest", "url")


def materials_from(text: str | None, token_env: str | None = None
                   ) -> tuple[MaterialInput, ...]:
    """``--materials``: a JSON array of material objects, or ``@FILE`` holding one.

    Raises:
        RequestError: unreadable, not UTF-8 JSON, not an array of objects, a value that
            holds a token, or a field missing (the fields' shapes are checked by the
            request that cites them).
    """
    if not text:
        return ()
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError as exc:
            raise RequestError(f"--materials {text}: {text[1:]!r} is not UTF-8 "
                               f"({str(exc)[:100]}); give a UTF-8 JSON file") from None
        except OSError as exc:
            raise RequestError(f"--materials {text}: cannot read {text[1:]!r} "
                               f"({exc.strerror}); give @FILE of a readable JSON file or the "
                               "JSON array itself") from None
    try:
        items = json.loads(text)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise RequestError(f"--materials is not UTF-8 JSON ({str(exc)[:100]})") from None
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise RequestError("--materials must be a JSON array of objects")
    out: list[MaterialInput] = []
    for i, m in enumerate(items):
        _no_secret_material(i, m.values(), token_env)
        partial = "attempt" not in m and "generation" not in m
        for name in _MATERIAL_FIELDS + (() if partial else ("attempt", "generation")):
            if name not in m:
                raise RequestError(f"--materials[{i}] lacks {name!r}; give id, kind, bytes, "
                                   "digest and url")
        out.append(MaterialInput(m["id"], m["kind"], m["bytes"], m["digest"], m["url"],
                                 m.get("attempt"), m.get("generation")))
    return tuple(out)


def _no_secret_material(i: int, values: Any, token_env: str | None) -> None:
    if any(isinstance(v, str) and looks_secret(v, token_env) for v in values):
        raise RequestError(f"--materials[{i}] holds a token or key (or a value shaped like "
                           "one); a material is written into the journal verbatim")


# ------------------------------------------------------------------ writing requests


@dataclass(frozen=True, slots=True, kw_only=True)
class _Write:
    """What every writing request carries: the target, the writer every record names,
    the release channel (None: the configuration's default, or the current attempt's)
    and the request key (None: rendered from the configuration)."""

    target: Target
    writer: Writer
    channel: str | None = None
    request_key: str | None = None

    def __post_init__(self) -> None:
        _key("--request-key", self.request_key)
        _writer(self.writer)
        self._checks()
        self.refuse_secrets(None)

    def _checks(self) -> None:
        """The request's own checks (a subclass's fields)."""

    def verbatim(self) -> dict[str, object]:
        """The values written verbatim, by option: none may hold a token."""
        from ghattempt.core import CliWriter

        actor = self.writer.actor if isinstance(self.writer, CliWriter) else None
        return {"--actor": actor, "--request-key": self.request_key, "--channel": self.channel,
                "--base-ref": self.target.base_ref}

    def refuse_secrets(self, token_env: str | None) -> None:
        """Refuse a verbatim value that holds a token of the environment (``token_env``,
        ``GITHUB_TOKEN``, ``GHATTEMPT_TOKEN``) or is shaped like one.

        Raises:
            RequestError: naming the option.
        """
        refuse_secrets(self.verbatim(), token_env)


@dataclass(frozen=True, slots=True, kw_only=True)
class Admit(_Write):
    """``admit``: open the intent's journal if there is none and admit an attempt for the
    pull request's current generation (ADR-038). A blocking attempt of this very
    generation and authorization is the same admission, reported, not repeated.

    Attributes:
        authorization: the authorization id presented (checked against every attempt).
        start: a plan phase whose ``started`` is recorded in the same hold.
        start_key: its event key (None: the key a separate ``record`` step would use).
        observed: the generation a webhook delivery saw; None: read the pull request.
        opened_at: when the pull request was opened (the category scan stops before it).
    """

    authorization: str | None = None
    start: str | None = None
    start_key: str | None = None
    observed: Observed | None = None
    opened_at: str | None = None

    def _checks(self) -> None:
        _key("--authorization", self.authorization)
        _key("--start-key", self.start_key)

    def verbatim(self) -> dict[str, object]:
        return {**_Write.verbatim(self), "--authorization": self.authorization}


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordEvent(_Write):
    """``record``: append one event to the request key's current attempt.

    Attributes:
        phase: a plan phase, ``rollback``, or ``attempt`` for an attempt-level event.
        status, reason: the event's (the core's rules: the statuses the kind of phase
            takes, a reason exactly where one is needed).
        key: the event key (None: :func:`~ghattempt.commands.event_key`).
        materials: the materials the event cites.
        then_start: with ``succeeded``, the plan's next phase, whose ``started`` is
            recorded in the same hold (key ``then_start_key``, default as ``start_key``).
        attempt, head: what the step's work was for: refused (nothing written) when the
            current attempt is another, or of another head.
        out_of_order: the request may arrive before what it builds on (a webhook
            delivery): no journal, no attempt, or a current attempt at a head no attempt
            of the journal had yet is :class:`~ghattempt.commands.NotYet` (try again
            later); a head an earlier attempt had is refused as that attempt's.
        yields_to_steps: a result the App reports (a job's or a run's conclusion, the
            merge): nothing is written when the workflow's own steps record the phase
            (``run``, ``record``): the current attempt has a record of the phase by a
            writer that is not an App, or any attempt of the request key has one by a
            step of workflow run ``run_id`` (docs/app.md, "Beside `run`").
        run_id: with ``yields_to_steps``, the workflow run whose conclusion it is (None:
            the merge).
    """

    phase: str
    status: str
    reason: str | None = None
    key: str | None = None
    materials: tuple[MaterialInput, ...] = ()
    then_start: str | None = None
    then_start_key: str | None = None
    attempt: str | None = None
    head: str | None = None
    out_of_order: bool = False
    yields_to_steps: bool = False
    run_id: int | None = None

    def _checks(self) -> None:
        if not self.phase or not self.status:
            raise RequestError("record needs --phase and --status")
        _key("--key", self.key)
        _key("--then-start-key", self.then_start_key)
        _work_was_for(self.attempt, self.head)
        _event(self.event_phase, self.status, self.reason, self.materials)

    @property
    def event_phase(self) -> str | None:
        """The event's ``phase`` field: None for an attempt-level event."""
        return None if self.phase == "attempt" else self.phase

    def event_key(self) -> str:
        """The event's key: the one given, else the writer's for this phase and status."""
        from ghattempt.commands._keys import event_key

        return self.key or event_key(self.writer, self.phase, self.status)

    def verbatim(self) -> dict[str, object]:
        return {**_Write.verbatim(self), "--key": self.key}

    def refuse_secrets(self, token_env: str | None) -> None:
        _Write.refuse_secrets(self, token_env)
        for i, m in enumerate(self.materials):
            _no_secret_material(i, m.fields().values(), token_env)


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenSuccessor(_Write):
    """``successor``: admit the successor of the key's finished current attempt; a
    pending one of this generation that already succeeds it is reported, not repeated."""

    authorization: str | None = None
    observed: Observed | None = None

    def _checks(self) -> None:
        _key("--authorization", self.authorization)

    def verbatim(self) -> dict[str, object]:
        return {**_Write.verbatim(self), "--authorization": self.authorization}


@dataclass(frozen=True, slots=True, kw_only=True)
class Supersede(_Write):
    """``supersede``: the current attempt is recorded ``superseded`` and an attempt for the
    pull request's current generation succeeds it, in one hold of the writer scope.

    Attributes:
        reason: why (default: ``new generation: head <12 hex>``).
        key: the ``superseded`` event's key (None: ``supersede:<generation id>``).
        observed: the generation a webhook delivery saw; None: read the pull request.
        superseded: the intent whose current attempt is superseded when it is not the
            target's (a pull request whose base branch changed: the old base's journal
            records ``superseded`` when its attempt blocks, the new one the admission).
        or_admit: a push as a webhook reports it: the journal is opened when missing, a
            current attempt that does not block (or none) is followed by a fresh
            admission, and one of this generation is the supersession already made
            (reported, not refused).
    """

    reason: str | None = None
    key: str | None = None
    observed: Observed | None = None
    superseded: Target | None = None
    or_admit: bool = False

    def _checks(self) -> None:
        _key("--key", self.key)
        if self.reason is not None:
            _event(None, "superseded", self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class Expire(_Write):
    """``expire``: the attempt-level ``expired`` event of a pending attempt past its
    ``expires_at`` by GitHub's clock (reason default: ``expired before it was
    confirmed``)."""

    reason: str | None = None

    def _checks(self) -> None:
        if self.reason is not None:
            _event(None, "expired", self.reason)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rollback(_Write):
    """``rollback``: a rollback event (started, succeeded, failed) on the current
    attempt; ``key``, ``attempt`` and ``head`` as :class:`RecordEvent`'s."""

    status: str
    reason: str | None = None
    key: str | None = None
    attempt: str | None = None
    head: str | None = None

    def _checks(self) -> None:
        _key("--key", self.key)
        _work_was_for(self.attempt, self.head)
        _event("rollback", self.status, self.reason)

    def event_key(self) -> str:
        """The event's key: the one given, else the writer's for a rollback ``status``."""
        from ghattempt.commands._keys import event_key

        return self.key or event_key(self.writer, "rollback", self.status)

    def verbatim(self) -> dict[str, object]:
        return {**_Write.verbatim(self), "--key": self.key}


GITHUB_RELEASE = "github-release:"
"""The built-in verify's prefix: ``github-release:TAG`` reads the release of ``TAG`` back."""

RUN_WAIT_MAX = 21600.0
"""The most seconds ``Run.wait`` takes: GitHub's job limit (6 hours)."""


_SHELL_VARIABLE = re.compile(r"\$\{?[A-Za-z_]")
_NOT_IN_A_TAG = re.compile(r"\.\.|@\{|//|[\x00-\x20\x7f~^:?*\[\\]|(?:^|/)\.|\.lock(?:/|$)"
                           r"|^/|/$|\.$|^@$")
"""What git refuses in a ref name (``git check-ref-format``): GitHub can hold no
release of such a tag."""


def _release_tag(option: str, tag: str) -> None:
    """The tag of ``github-release:TAG`` names a tag a release can have: a 404 for any
    other means nothing, yet reads as absent, and the work would run again beside the
    effect it had under the right tag."""
    if _SHELL_VARIABLE.search(tag):
        raise RequestError(f"{option} github-release:TAG holds a shell variable, which is "
                           "not expanded there (it is no script): give the tag itself, "
                           "e.g. with ${{ github.ref_name }} in the workflow's with:, or "
                           "verify with a script that reads the variable")
    if tag.startswith("refs/"):
        raise RequestError(f"{option} github-release:TAG takes the tag's name (v1.2.0, "
                           "github.ref_name), not its ref (refs/tags/v1.2.0)")
    if _NOT_IN_A_TAG.search(tag):
        raise RequestError(f"{option} github-release:TAG: {tag[:80]!r} cannot be a tag's "
                           "name (git check-ref-format), so no release could be read back "
                           "for it; give the tag the release is published under")


def _command(option: str, value: object, *, verify: bool = False) -> None:
    """A work or verify: a ``ghattempt.work.Script`` (text and shell), or an argv tuple
    (``verify`` also ``github-release:TAG``)."""
    from ghattempt.work import Script

    if isinstance(value, Script):
        if not isinstance(value.text, str) or not value.text.strip():
            raise RequestError(f"{option}: the script is empty; give the commands to run")
        if value.shell is not None and (not isinstance(value.shell, str)
                                        or not value.shell.strip()):
            raise RequestError(f"{option}: shell must be a shell name or a command with "
                               "{0}, or left out for the default")
        return
    if verify and isinstance(value, str):
        tag = value.removeprefix(GITHUB_RELEASE)
        if not value.startswith(GITHUB_RELEASE) or not tag or not tag.isprintable() \
                or any(c.isspace() for c in tag) or len(tag) > 255:
            raise RequestError(f"{option} as text must be github-release:TAG (the built-in "
                               "release read-back), got a value of another shape; give a "
                               "command to run instead")
        _release_tag(option, tag)
        return
    if isinstance(value, tuple) and value and all(isinstance(a, str) for a in value):
        if not value[0]:
            raise RequestError(f"{option}: the command's name is empty")
        return
    raise RequestError(f"{option} must be a script (ghattempt.work.Script) or a command "
                       "and its arguments (a non-empty tuple of strings)")


def _globs(globs: object) -> None:
    if not isinstance(globs, tuple) or not all(isinstance(g, str) for g in globs):
        raise RequestError("--materials takes a tuple of glob patterns")
    for g in globs:
        if not g.strip():
            raise RequestError("--materials: an empty glob; give a path pattern such as "
                               "dist/*")
        posix = g.replace("\\", "/")
        if posix.startswith("/") or ".." in posix.split("/"):
            raise RequestError(f"--materials glob {g[:80]!r} must be relative to the "
                               "workspace, without '..'")


@dataclass(frozen=True, slots=True, kw_only=True)
class Run(_Write):
    """``run``: do phase ``phase``'s work exactly once for the pull request's current
    generation (docs/run.md). One step admits an attempt when there is none, skips a
    phase that succeeded, waits beside (or refuses next to) a runner that may still be
    working, settles an ambiguous phase with ``verify``, opens the successor of a failed
    attempt and re-qualifies retained materials there, and otherwise records ``started``,
    runs the work and records how it ended, every decision taken inside the writer
    scope on the read it builds on (``ghattempt.core.decide``).

    Attributes:
        phase: a phase of the channel's plan.
        work: a ``ghattempt.work.Script`` (run as a ``run:`` step runs it) or an argv.
        verify: how to tell whether an interrupted phase's effect is in place: a script
            or argv (exit 0 present, 1 absent, anything else cannot tell), or
            ``github-release:TAG`` (the release read back over the REST API); None: a
            phase left ambiguous is refused with the commands that settle it by hand.
        materials: globs (relative to the workspace) of the files the phase makes;
            recorded as materials when the work exits 0, compared byte for byte to
            re-qualify the phase in a successor.
        wait: seconds to wait (re-reading with backoff) beside a runner that may still
            be working before answering ``busy`` (0: answer at once).
        takeover: take a phase started by a command-line writer (or a runner whose
            liveness cannot be told) as ended: ``unknown`` is recorded first, then the
            verify decides.
        working_directory: where the work and verify run, joined to the workspace.
        workspace: the workspace (None: ``GITHUB_WORKSPACE``, else the current directory).
        artifact_url: the permanent place the materials' bytes are kept (the run's
            artifact, as ``actions/upload-artifact`` outputs it); None: the run itself.
        head: the pull request head commit the work is done on (a checkout): refused
            when the pull request's head is another (a newer push).
        env: the environment the work and the verify run with (None: this process's);
            the Action gives the step's without its own variables, the token among them.
            Never shown (not in the request's ``repr``).
    """

    phase: str
    work: Any
    verify: Any = None
    materials: tuple[str, ...] = ()
    wait: float = 0.0
    takeover: bool = False
    working_directory: str | None = None
    workspace: str | None = None
    artifact_url: str | None = None
    head: str | None = None
    env: Mapping[str, str] | None = field(default=None, repr=False, compare=False)

    def _checks(self) -> None:
        from ghattempt.core import PHASES

        if self.phase not in PHASES:
            raise RequestError(f"--phase {str(self.phase)[:40]!r} is not a phase: use one of "
                               f"{', '.join(PHASES)}")
        _command("the work (-- COMMAND)", self.work)
        if self.verify is not None:
            _command("--verify", self.verify, verify=True)
        _globs(self.materials)
        wait = self.wait
        if isinstance(wait, bool) or not isinstance(wait, int | float) \
                or not 0 <= wait <= RUN_WAIT_MAX:
            raise RequestError(f"--wait must be a number of seconds from 0 to "
                               f"{RUN_WAIT_MAX:g}")
        if not isinstance(self.takeover, bool):
            raise RequestError("--takeover is a flag (true or false)")
        _work_was_for(None, self.head)
        url = self.artifact_url
        if url is not None and (not isinstance(url, str)
                                or not url.startswith(("https://", "http://"))
                                or any(c.isspace() for c in url)):
            raise RequestError("the artifact URL must be an http(s) URL without spaces, as "
                               "actions/upload-artifact outputs it")

    @property
    def release_tag(self) -> str | None:
        """The tag of a ``github-release:TAG`` verify, else None."""
        if isinstance(self.verify, str):
            return self.verify.removeprefix(GITHUB_RELEASE)
        return None

    def verbatim(self) -> dict[str, object]:
        return {**_Write.verbatim(self), "--artifact-url": self.artifact_url,
                "--verify": self.verify if isinstance(self.verify, str) else None}
@dataclass(frozen=True, slots=True, kw_only=True)
class RestoreLease:
    """``restore-lease``: a person restores the deleted lease ref of a journal that holds
    records, after checking its history (docs/exclusion.md, "A deleted lease ref"): the
    ref is created again witnessing exactly the head the person names (``records``
    distinct records, the newest ``last``), and refused (nothing written) when the
    journal's head differs. The restoration is recorded in the lease branch's history
    with ``reason`` and who (``actor``) restored it. Not a record: the token need not
    be the configured writer's.

    Raises:
        RequestError: (bad input) ``records`` not a count >= 1, ``last`` not a digest,
            no ``reason`` (1..1024 characters), an ``actor`` that is no name, or a value
            shaped like a token.
    """

    target: Target
    actor: str
    records: int
    last: str
    reason: str

    def __post_init__(self) -> None:
        from ghattempt.core import is_digest

        _number("--records", self.records)
        if not is_digest(self.last):
            raise RequestError("--last must be the newest record's digest: sha256: and 64 "
                               "lowercase hex digits, as the refusal names it")
        if not isinstance(self.reason, str) or not 1 <= len(self.reason.strip()) <= 1024:
            raise RequestError("--reason must say in 1..1024 characters what was checked "
                               "and why the lease ref is restored")
        if not isinstance(self.actor, str) or not 1 <= len(self.actor) <= 200 or any(
                c.isspace() for c in self.actor):
            raise RequestError("--actor must be the name of the person restoring the lease "
                               "(1..200 characters, no spaces)")
        self.refuse_secrets(None)

    @property
    def writer(self) -> Writer:
        """The person restoring, as a writer (``{kind: cli, actor}``); no record is
        written with it."""
        from ghattempt.core import CliWriter

        return CliWriter(self.actor)

    @property
    def channel(self) -> None:
        """No channel: a lease is the intent's, whatever the channel."""
        return None

    @property
    def request_key(self) -> None:
        """No request key: a lease is the intent's, whatever the key."""
        return None

    def refuse_secrets(self, token_env: str | None) -> None:
        """Refuse a value written into the repository that holds a token."""
        refuse_secrets({"--reason": self.reason, "--actor": self.actor,
                        "--base-ref": self.target.base_ref}, token_env)


WriteRequest = Admit | RecordEvent | OpenSuccessor | Supersede | Expire | Rollback
"""Every request that writes (``plan`` plans any of them)."""


def _phase_after(plan: Sequence[str], phase: str | None) -> str | None:
    """The phase right after ``phase`` in ``plan``; None for the last one or a name that
    is not a phase of it."""
    return plan[plan.index(phase) + 1] if phase in plan[:-1] else None


def check(request: WriteRequest, config: LoadedConfig, token_env: str | None = None) -> None:
    """What a writing request can be refused for without asking GitHub beyond its own
    fields: no verbatim value holds the token ``token_env`` names; the channel exists;
    ``record``'s phase is ``attempt``, ``rollback`` or in the channel's plan, and its
    ``then_start`` the next one after a ``succeeded``; ``admit``'s ``start`` is in it.

    Raises:
        RequestError: (bad input) a phase outside the plan, a token.
        ConfigError: no such channel (exit 2, annotated on the file).
    """
    request.refuse_secrets(token_env)
    channel = config.channel(request.channel)
    if isinstance(request, RecordEvent):
        phase = request.phase
        if phase not in ("attempt", "rollback") and phase not in channel.plan:
            raise RequestError(f"--phase {phase[:40]!r} is not in the plan of channel "
                               f"{channel.name!r} ({config.path}): use one of "
                               f"{', '.join(channel.plan)}, 'attempt' or 'rollback'")
        then = request.then_start
        if then is not None:
            follows = _phase_after(channel.plan, phase)
            if request.status != "succeeded" and then == follows:
                raise RequestError(f"--then-start {then[:40]!r} needs --status succeeded, "
                                   f"not {request.status[:40]!r}: the next phase starts once "
                                   "this one has succeeded")
            if then != follows:
                after = (f"the phase after {phase!r} in the plan of channel {channel.name!r} "
                         f"is {follows!r}" if follows else f"{phase[:40]!r} has no next "
                         f"phase in the plan of channel {channel.name!r}")
                raise RequestError(f"--then-start {then[:40]!r} needs --status succeeded and "
                                   f"the next phase of the plan ({config.path}): {after}")
    if isinstance(request, Admit) and request.start is not None \
            and request.start not in channel.plan:
        raise RequestError(f"--start {request.start[:40]!r} is not in the plan of channel "
                           f"{channel.name!r} ({config.path}): use one of "
                           f"{', '.join(channel.plan)}")


# ------------------------------------------------------------------ reading requests


_READING_VERBATIM = "--request-key"
_ECHOED = "printed in the verdict"


@dataclass(frozen=True, slots=True, kw_only=True)
class _Read:
    """Which journal to read, and who counts as its writer.

    Attributes:
        repository: ``owner/name`` (not needed with ``capture``).
        discussion: the journal Discussion's number; or
        pull_request, base_ref: the pull request whose journal it is (base: its own).
        capture: a captured journal read instead of GitHub: what a face parsed from a
            capture file where it read it (``ghattempt.core.parse_capture``), or the
            ``JournalInvalid`` parsing raised (the verdict names it).
        writer, writer_id: whose unedited records count (None: the configuration's
            ``[writer]``, else ``github-actions``).
    """

    repository: str | None = None
    discussion: int | None = None
    pull_request: int | None = None
    base_ref: str | None = None
    capture: Capture | JournalInvalid | None = None
    writer: str | None = None
    writer_id: int | None = None

    def __post_init__(self) -> None:
        if self.writer:
            from ghattempt.github.identity import login_problem

            problem = login_problem(self.writer)
            if problem is not None:
                raise RequestError(f"--writer: {problem[0]}; {problem[1]}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Status(_Read):
    """``status``: the journal read exactly as the reader reads it (journal-v1 sections
    5-10), with the reading options.

    Attributes:
        repository_id: the repository node id the capture must be of (None: its own).
        request_key: the chain to read (None: with a configuration, its template
            rendered for ``channel`` and the journal's intent; else the reader's rule).
        channel: the release channel whose request key to read.
        server_url: the web base material URLs must start with.
        max_records, max_attempts: the reader's bounds.
    """

    repository_id: str | None = None
    request_key: str | None = None
    channel: str | None = None
    server_url: str | None = None
    max_records: int = 1000
    max_attempts: int = 100

    def __post_init__(self) -> None:
        self.refuse_secrets(None)
        _Read.__post_init__(self)

    def refuse_secrets(self, token_env: str | None) -> None:
        """The verdict echoes the request key: never a token (checked before anything).

        Raises:
            RequestError: naming the option.
        """
        refuse_secrets({_READING_VERBATIM: self.request_key}, token_env, _ECHOED)


@dataclass(frozen=True, slots=True)
class Show:
    """``show``: the journal's timeline page, read as :class:`Status` reads it."""

    reading: Status


@dataclass(frozen=True, slots=True, kw_only=True)
class CaptureJournal(_Read):
    """``capture``: the journal's pages as the reader takes them (with its lease ref)."""


ReadRequest = Status | Show | CaptureJournal
"""Every request that only reads."""


# Public as ghattempt.commands (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    Admit, CaptureJournal, Expire, MaterialInput, Observed, RecordEvent, Rollback, Run, Show,
    Status,
    OpenSuccessor, Supersede, Target, check, materials_from, split_repository,
    Admit, CaptureJournal, Expire, MaterialInput, Observed, RecordEvent, RestoreLease,
    Rollback, Show, Status, OpenSuccessor, Supersede, Target, check, materials_from,
    split_repository,
):
    _exported.__module__ = "ghattempt.commands"
del _exported
