"""The journal sink over the business attempt store: what the App writes to GitHub.

Shape::

    StoreSink(settings: AppSettings, *, transport=None, config_path=".github/ghattempt.toml")
        .open_intent / .supersede_and_admit / .record_phase / .cancel / .report_tampering
            (request) -> SinkResult                     # JournalSink (ghattempt.app.sink)
    store_sink(settings) -> StoreSink                   # GHATTEMPT_APP_SINK default

For each request the sink

1. acts as the delivery's installation: one :class:`~ghattempt.github.GitHubProvider`
   per installation with App auth (githubkit signs the App JWT and exchanges it for an
   installation token; the token is cached by the provider);
2. reads the consumer configuration ``.github/ghattempt.toml`` at the pull request's
   head commit, or at the default branch when the head has none (its path, blob oid and
   digest go into the generation, ADR 0006); the configuration names the journal
   category, the writer login, the channel's plan, the request key and the lease timing;
3. turns the routed request into the request of the application layer
   (``ghattempt.commands``: ``Admit``, ``Supersede``, ``Record``), with the idempotency
   key the router derived and the generation the delivery observed, and runs it with
   ``ghattempt.commands.execute``, the command the CLI and the Action run: it writes
   through the business attempt store under a ``RefLease`` writer scope (a Git ref
   lease on the repository, never the in-memory lock); the store captures and replays
   the journal with the core and refuses what the reader would refuse. Inside
   ``hold(lane)`` (a worker's burst of one lane) each scope's lease is kept until the
   burst ends (:mod:`ghattempt.app.holds`).

Outcomes (:class:`~ghattempt.app.sink.Outcome`): ``applied`` when the command wrote;
``already-applied`` when it wrote nothing because the key (or, for admissions, the same
generation's attempt) is already in the journal; ``not-yet`` when a result finds no
journal, no attempt, or a current attempt at another head no attempt had (its
``synchronize`` may come later: ``Record.out_of_order``, ``commands.NotYet``);
``refused`` for a result for a head an earlier attempt had. Every other error is decided
by its kind of fault
(:class:`ghattempt.errors.Fault`) in one table, ``OUTCOME_BY_FAULT``: bad input, refused
by the rules and an invalid journal give ``refused``; GitHub unavailable, an outcome
still unknown and the writer scope busy or lost raise
:class:`~ghattempt.app.sink.SinkUnavailable` (the worker retries the delivery with the
same keys, after ``retry_after`` when the error has one); GitHub's definite refusals (no
access, a missing repository or category, a corrupt lease ref) propagate and fail the
delivery for an operator.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import httpx

from ghattempt.app.connections import ClientPool, SharedTransport
from ghattempt.app.holds import BurstHolds
from ghattempt.app.settings import AppSettings
from ghattempt.app.sink import (
    CancelAttempt,
    GenerationRef,
    IntentRef,
    OpenIntent,
    Outcome,
    PhaseResult,
    SinkResult,
    SinkUnavailable,
    SupersedeAndAdmit,
    TamperingReport,
)
from ghattempt.commands import (
    Admit,
    Connection,
    NotYet,
    Observed,
    RecordEvent,
    Supersede,
    Target,
    WriteRequest,
    execute,
    verdict_for,
)
from ghattempt.config import DEFAULT_CONFIG_PATH, ConfigError, LoadedConfig, parse_config
from ghattempt.core import AppWriter as CoreAppWriter
from ghattempt.core import Capture, JournalInvalid, is_oid, parse_body
from ghattempt.errors import Fault, GhattemptError
from ghattempt.github import (
    AppAuth,
    ContentPacer,
    Credentials,
    GitHubProvider,
    NotFound,
    ProviderConfig,
    RetryPolicy,
)

__all__ = ["CHECK_NAME", "OUTCOME_BY_FAULT", "StoreSink", "store_sink"]

log = logging.getLogger("ghattempt.app.store")

CHECK_NAME = "ghattempt journal"
"""The name of the check run reporting a tampered journal."""

_BUSY_RETRY = 5.0

OUTCOME_BY_FAULT: dict[Fault, Outcome | None] = {
    Fault.BAD_INPUT: Outcome.REFUSED,
    Fault.REFUSED: Outcome.REFUSED,
    Fault.JOURNAL_INVALID: Outcome.REFUSED,
    Fault.GITHUB_UNAVAILABLE: None,
    Fault.OUTCOME_UNKNOWN: None,
    Fault.SCOPE_BUSY: None,
    Fault.OWNERSHIP_LOST: None,
}
"""The App's one table from kind of fault to outcome: ``refused``, or None to raise
``SinkUnavailable`` (retry later); a kind not here (GitHub refused) fails the delivery."""

_RETRY_AFTER = {Fault.SCOPE_BUSY: _BUSY_RETRY}
"""The wait for a retry when the error names none."""


def _split(full_name: str) -> tuple[str, str]:
    owner, _, name = full_name.partition("/")
    if not owner or not name or "/" in name:
        raise ValueError(f"repository name must be owner/name, got {full_name!r}")
    return owner, name


IMMUTABLE_ENTRIES = 512
"""How many immutable GitHub answers a ``StoreSink`` keeps."""
IMMUTABLE_FILE_BYTES = 64 << 10
"""Larger configuration files are read again for every delivery (bounds the memory)."""


class StoreSink:
    """A :class:`~ghattempt.app.sink.JournalSink` writing journals through the store.

    Args:
        settings: the server's settings (App id and key, API URL, timeout, phase map).
        transport: an httpx transport for every provider (tests: the emulator's); None
            for the network.
        config_path: the consumer configuration's path in the repository.
        retry: the providers' retry bounds for reads (default: ``settings.retry``).

    Thread-safe: a provider (not thread-safe) is lent to one thread at a time
    (:class:`~ghattempt.app.connections.ClientPool`); the cache of immutable answers is
    shared under a lock.
    """

    def __init__(self, settings: AppSettings, *, transport: httpx.BaseTransport | None = None,
                 config_path: str = DEFAULT_CONFIG_PATH,
                 retry: RetryPolicy | None = None) -> None:
        self._settings = settings
        self._transport = transport
        # the network: one connection pool and TLS context for every provider
        self._shared = SharedTransport(settings.api_url) if transport is None else None
        self._retry = settings.retry if retry is None else retry
        self._config_path = config_path
        self._providers: ClientPool[GitHubProvider] = ClientPool()
        # one App JWT and one token per installation for every provider of the sink
        self._credentials = Credentials()
        # Answers that can never change: a file at a commit oid, a commit's tree, a
        # workflow run's file. Least recently used first; at most IMMUTABLE_ENTRIES.
        self._immutable: OrderedDict[tuple[object, ...], Any] = OrderedDict()
        self._lock = threading.Lock()
        self._bursts = BurstHolds()
        self._pacer: ContentPacer | None = None

    def pace_content(self, pacer: ContentPacer) -> None:
        """Pace every content-creating request of every provider made from now on to
        ``pacer`` (the App's shared content budget, ``ghattempt.app.budget``)."""
        self._pacer = pacer

    def __repr__(self) -> str:
        return f"StoreSink(app_id={self._settings.app_id}, api_url={self._settings.api_url!r})"

    def hold(self, lane: str) -> AbstractContextManager[None]:
        """Keep the writer scopes this thread enters, and their clients, until the block
        ends (a burst of one lane's deliveries; :mod:`ghattempt.app.holds`)."""
        return _joined(self._providers.using(), self._bursts.hold(lane))

    def close(self) -> None:
        """Close every provider's connections."""
        for gh in self._providers.drain():
            gh.close()
        if self._shared is not None:
            self._shared.shut()

    # -- plumbing ---------------------------------------------------------------------

    def _provider(self, installation_id: int | None, *, timeout: float,
                  interval: float) -> GitHubProvider:
        if installation_id is None:
            raise ValueError("the delivery names no installation (payload installation.id); "
                             "App webhooks always do: check the App's webhook settings")

        def make() -> GitHubProvider:
            auth = AppAuth(self._settings.app_id, self._settings.private_key.reveal(),
                           installation_id)
            return GitHubProvider(ProviderConfig(
                auth=auth, base_url=self._settings.api_url, timeout=timeout,
                mutation_interval=interval, retry=self._retry,
                transport=self._transport if self._transport is not None else self._shared,
                user_agent=f"ghattempt-app/{self._settings.app_id}",
                credentials=self._credentials, content_pacer=self._pacer))

        return self._providers.get((installation_id, timeout, interval), make)

    def _once(self, key: tuple[object, ...], read: Callable[[], Any],
              keep: Callable[[Any], bool] = lambda value: True) -> Any:
        """``read()``, asked of GitHub once per ``key`` while it stays among the
        ``IMMUTABLE_ENTRIES`` most recently used: only for answers that cannot change
        (content addressed by a commit oid, a run's workflow file). None, and answers
        ``keep`` refuses, are not kept."""
        with self._lock:
            if key in self._immutable:
                self._immutable.move_to_end(key)
                return self._immutable[key]
        value = read()
        if value is not None and keep(value):
            with self._lock:
                self._immutable[key] = value
                if len(self._immutable) > IMMUTABLE_ENTRIES:
                    self._immutable.popitem(last=False)
        return value

    def _config(self, gh: GitHubProvider, owner: str, name: str,
                head_sha: str | None) -> LoadedConfig:
        """The consumer configuration at ``head_sha``, else at the default branch. The
        file at a commit oid never changes: it is read once per oid (``_once``)."""
        path = self._config_path
        found = None
        if head_sha and is_oid(head_sha):
            found = self._once(("file", owner, name, path, head_sha),
                               lambda: gh.file_contents(owner, name, path, head_sha),
                               keep=lambda answer: len(answer[0]) <= IMMUTABLE_FILE_BYTES)
        elif head_sha:
            found = gh.file_contents(owner, name, path, head_sha)
        if found is None:
            found = gh.file_contents(owner, name, self._config_path, None)
        if found is None:
            where = f"at {head_sha} nor " if head_sha else ""
            raise ConfigError(self._config_path, None,
                              f"not in {owner}/{name} {where}on the default branch",
                              "add the configuration file (docs/configuration.md)")
        data, blob = found
        return parse_config(data, path=self._config_path, blob_oid=blob)

    def _access(self, installation_id: int | None, repository_name: str,
                repository_id: str, head_sha: str | None
                ) -> tuple[LoadedConfig, GitHubProvider, Connection]:
        """The repository's configuration (at ``head_sha``), a provider for the
        installation with the configuration's lease timeout and write pacing, and the
        connection a command runs through: that provider, the repository's node id from
        the delivery, the burst's lease holds."""
        owner, name = _split(repository_name)
        timeout = self._settings.http_timeout
        probe = self._provider(installation_id, timeout=timeout, interval=1.0)
        cfg = self._config(probe, owner, name, head_sha)
        lease = cfg.settings.lease
        gh = self._provider(installation_id, timeout=min(timeout, lease.request_timeout),
                            interval=cfg.settings.pacing.write_interval)
        return cfg, gh, Connection(provider=gh, repository_id=repository_id,
                                   notice=_notice, adapt=self._bursts.adapter)

    def _execute(self, request: PhaseResult | CancelAttempt | OpenIntent | SupersedeAndAdmit,
                 intent: IntentRef, head_sha: str,
                 build: Callable[[LoadedConfig, GitHubProvider], WriteRequest | SinkResult]
                 ) -> SinkResult:
        """Build the command's request with the repository's configuration (``build``;
        or its answer without one) and run it: ``applied`` when it wrote,
        ``already-applied`` when it found the same operation in the journal."""
        cfg, gh, connection = self._access(request.installation_id, intent.repository_name,
                                           intent.repository_id, head_sha)
        command = build(cfg, gh)
        if isinstance(command, SinkResult):
            return command
        outcome = execute(command, cfg, connection)
        return SinkResult(Outcome.APPLIED if outcome.wrote else Outcome.ALREADY_APPLIED,
                          outcome.message)

    @staticmethod
    def _writer(request: Any) -> CoreAppWriter:
        return CoreAppWriter(request.writer.app_id, request.writer.delivery)

    def _observed(self, gh: GitHubProvider, intent: IntentRef,
                  ref: GenerationRef) -> Observed:
        """The generation the delivery saw (ADR 0006): its head commit, the commit's tree
        (read once per commit: ``_once``) and the base commit."""
        owner, name = _split(intent.repository_name)
        commit = self._once(("commit", owner, name, ref.head_sha),
                            lambda: gh.commit(owner, name, ref.head_sha))
        return Observed(ref.head_sha, commit.tree_oid, ref.base_sha)

    @contextmanager
    def _outcomes(self, what: str) -> Iterator[None]:
        """Turn ghattempt's errors into refusals or SinkUnavailable by ``OUTCOME_BY_FAULT``."""
        try:
            yield
        except (_Refused, SinkUnavailable):
            raise
        except NotYet as exc:
            raise _NotYet(str(exc)) from None
        except GhattemptError as exc:
            if exc.fault not in OUTCOME_BY_FAULT:
                raise
            if OUTCOME_BY_FAULT[exc.fault] is Outcome.REFUSED:
                raise _Refused(f"{what}: {exc}") from None
            wait = exc.retry_after if exc.retry_after is not None \
                else _RETRY_AFTER.get(exc.fault)
            raise SinkUnavailable(f"{what}: {exc}", retry_after=wait) from None

    def _run(self, what: str, body: Any) -> SinkResult:
        try:
            with self._providers.using(), self._outcomes(what):
                result: SinkResult = body()
                return result
        except _NotYet as exc:
            return SinkResult(Outcome.NOT_YET, str(exc))
        except _Refused as exc:
            return SinkResult(Outcome.REFUSED, str(exc))

    # -- admissions -------------------------------------------------------------------

    @staticmethod
    def _target(intent: IntentRef) -> Target:
        return Target(intent.repository_name, intent.pull_request, intent.base_ref)

    def open_intent(self, request: OpenIntent) -> SinkResult:
        """Find or create the intent's journal and admit an attempt for the generation
        (``commands.Admit``).

        A blocking attempt of the same generation answers ``already-applied`` (the
        delivery was processed before); one of another generation is ``refused``
        (ADR-038 preflight: ``Blocked``).
        """
        intent = request.intent

        def body() -> SinkResult:
            return self._execute(request, intent, request.generation.head_sha, lambda cfg, gh:
                                 Admit(target=self._target(intent),
                                       writer=self._writer(request),
                                       observed=self._observed(gh, intent, request.generation),
                                       opened_at=request.opened_at))

        return self._run(f"admit #{intent.pull_request} into {intent.base_ref}", body)

    def supersede_and_admit(self, request: SupersedeAndAdmit) -> SinkResult:
        """Supersede the current attempt (event key ``request.key``), admit the new
        generation as its successor (``commands.Supersede`` with ``or_admit``).

        The head moved (same intent): the tip attempt, when it blocks, gets the
        ``superseded`` event and the new root names it as predecessor; a tip that no
        longer blocks is simply succeeded by the new attempt. The base changed: the old
        base's journal gets the ``superseded`` event, the new base's journal the
        admission.
        """
        old, new = request.superseded, request.admit

        def body() -> SinkResult:
            return self._execute(request, new, request.generation.head_sha, lambda cfg, gh:
                                 Supersede(target=self._target(new),
                                           writer=self._writer(request),
                                           observed=self._observed(gh, new,
                                                                   request.generation),
                                           reason=request.reason, key=request.key,
                                           superseded=None if old == new
                                           else self._target(old),
                                           or_admit=True))

        return self._run(f"supersede #{new.pull_request} ({old.base_ref} -> {new.base_ref})",
                         body)

    # -- results ----------------------------------------------------------------------

    def _phase(self, cfg: LoadedConfig, gh: GitHubProvider, intent: IntentRef,
               request: PhaseResult) -> str | None:
        """The consumer configuration's ``[[app.jobs]]`` first, the server map second: as
        routing matched it (the workflow's name), else by the workflow file, which a
        ``workflow_job`` delivery does not name (looked up from the run)."""
        owner, name = _split(intent.repository_name)
        jobs = cfg.settings.app
        server = self._settings.phase_map
        asks = bool(jobs.jobs) or (request.phase is None and bool(server.jobs))
        if asks and request.job_name is not None and request.run_id is not None:
            path = request.workflow_path
            if path is None:
                try:
                    run_id = request.run_id
                    path = self._once(("run", owner, name, run_id),
                                      lambda: gh.workflow_run_path(owner, name, run_id))
                except NotFound:  # the run was deleted: only the server map can say
                    path = None
            if path is not None:
                workflow = path.rsplit("/", 1)[-1]
                mapped = jobs.phase_for(workflow, request.job_name)
                if mapped is None and request.phase is None:
                    mapped = server.phase_for(workflow, request.job_name)
                if mapped is not None:
                    return mapped
        return request.phase

    def record_phase(self, request: PhaseResult) -> SinkResult:
        """Append the phase result to the current attempt (key ``request.key``;
        ``commands.RecordEvent`` fenced by the delivery's head, out of order allowed)."""
        intent = request.intent

        def command(cfg: LoadedConfig, gh: GitHubProvider) -> RecordEvent | SinkResult:
            phase = self._phase(cfg, gh, intent, request)
            if phase is None:
                return SinkResult(Outcome.REFUSED,
                                  f"job {request.job_name!r} of workflow "
                                  f"{request.workflow_name!r} is mapped to no phase by "
                                  f"{cfg.path} [[app.jobs]] nor by the server")
            return RecordEvent(target=self._target(intent), writer=self._writer(request),
                          phase=phase, status=request.status, reason=request.reason,
                          key=request.key, head=request.head_sha, out_of_order=True,
                          yields_to_steps=True, run_id=request.run_id)

        def body() -> SinkResult:
            return self._execute(request, intent, request.head_sha, command)

        return self._run(f"{request.key} on #{intent.pull_request}", body)

    def cancel(self, request: CancelAttempt) -> SinkResult:
        """Append the attempt-level ``cancelled`` event to the current attempt."""
        intent = request.intent

        def body() -> SinkResult:
            return self._execute(request, intent, request.head_sha, lambda cfg, gh:
                                 RecordEvent(target=self._target(intent),
                                        writer=self._writer(request), phase="attempt",
                                        status="cancelled", reason=request.reason,
                                        key=request.key, head=request.head_sha,
                                        out_of_order=True))

        return self._run(f"cancel #{intent.pull_request}", body)

    # -- tampering --------------------------------------------------------------------

    def report_tampering(self, request: TamperingReport) -> SinkResult:
        """Capture and read the journal, then create a failing check run
        (``external_id`` = the request key) on the head of the journal's pull request,
        naming the change and the reader's verdict.

        Idempotent by key: a check run of that head whose ``external_id`` is the key
        answers ``already-applied``. The pull request comes from the intent record in
        the Discussion's body (or, for an edited journal, in the body before the edit).
        An edited or deleted record stops contributing: the journal may still read valid
        (the last record simply vanished) or fail closed (a gap, a broken link); both
        are reported as failing. A journal deleted, transferred to another repository or
        moved to another category is reported as failing too (its writers fail closed
        on it); a deleted or transferred one is not read (it is gone from the
        repository): its pull request comes from the body the delivery carried.
        """

        def body() -> SinkResult:
            owner, name = _split(request.repository_name)
            probe = self._provider(request.installation_id,
                                   timeout=self._settings.http_timeout, interval=1.0)
            change: str = request.change
            # a deleted or transferred journal is no longer in this repository
            gone = change in ("journal_deleted", "journal_transferred")
            capture = None if gone else probe.capture(
                owner, name, request.discussion_number).capture
            pull = _pull_request(capture, request.previous_body)
            head = probe.pull_request(owner, name, pull).head_oid if pull is not None else None
            cfg, gh, _ = self._access(request.installation_id, request.repository_name,
                                      request.repository_id, head)
            if head is None:
                return SinkResult(Outcome.REFUSED, f"discussion #{request.discussion_number} "
                                  "holds no intent record naming a pull request")
            what = _CHANGES[change]
            # read as the App's writers write: its records count (the token's own
            # databaseId when the configuration names none)
            viewer = gh.repository(owner, name).viewer
            verdict = None if capture is None else verdict_for(
                capture, None, cfg, request.repository_id, viewer)
            if verdict is None or change == "journal_moved":
                title = what
                read = ("Writers of this pull request now fail closed (journal_missing): "
                        "its writer scope names this journal, and a new journal is never "
                        "opened in its place (its history would be lost).")
            elif verdict.exit_code == 3:
                title = f"journal invalid: {verdict.reason}"
                read = (f"The reader fails closed: {verdict.reason}: "
                        f"{verdict.detail or ''}")
            else:
                title = f"journal record changed: {what}"
                read = (f"The reader reads the journal as {verdict.status}, without the "
                        f"changed record ({verdict.ignored} comment(s) ignored): what it "
                        "said is no longer proven.")
            summary = (f"{what} by {request.actor} in journal discussion "
                       f"#{request.discussion_number}. {read}\n\n"
                       "A person must inspect the journal before anything is released.")
            for run in gh.check_runs(owner, name, head):
                if run.get("external_id") == request.key:  # a redone delivery
                    return SinkResult(Outcome.ALREADY_APPLIED,
                                      f"check run {run.get('id')} on {head}")
            run_id = gh.create_check_run(
                owner, name, head_sha=head, check_name=CHECK_NAME,
                conclusion="failure", title=title,
                summary=summary, external_id=request.key)
            return SinkResult(Outcome.APPLIED, f"check run {run_id} on {head}: {title}")

        return self._run(f"tampering in #{request.discussion_number}", body)


_CHANGES = {"comment_edited": "a record was edited",
            "comment_deleted": "a record was deleted",
            "journal_edited": "the journal was edited",
            "journal_deleted": "the journal was deleted",
            "journal_transferred": "the journal was transferred to another repository",
            "journal_moved": "the journal was moved to another category"}
"""What each ``TamperingReport.change`` says happened."""


def _notice(line: str) -> None:
    """The App's notice hook: reconciled lost answers and long waits, in its log."""
    log.warning("%s", line)


def _pull_request(capture: Capture | JournalInvalid | None,
                  previous_body: str | None) -> int | None:
    """The journal's pull request, from the intent record in the Discussion's body (now,
    or before the edit: an edited journal keeps it only there)."""
    bodies: list[str] = []
    if isinstance(capture, Capture):
        bodies.append(capture.body.body)
    if previous_body:
        bodies.append(previous_body)
    for text in bodies:
        try:
            record = parse_body(text, "intent")
        except JournalInvalid:
            continue
        pull = getattr(record, "pull_request", None)
        if isinstance(pull, int):
            return pull
    return None


@contextmanager
def _joined(outer: AbstractContextManager[None], inner: AbstractContextManager[None]
            ) -> Iterator[None]:
    with outer, inner:
        yield


class _Refused(Exception):  # noqa: N818 - an outcome, not a failure
    """A request the rules, journal or configuration refuse (internal)."""


class _NotYet(_Refused):
    """A request whose journal or attempt is not there yet (internal)."""


def store_sink(settings: AppSettings) -> StoreSink:
    """``GHATTEMPT_APP_SINK`` default: :class:`StoreSink` over the network."""
    return StoreSink(settings)
