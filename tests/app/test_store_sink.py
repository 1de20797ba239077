"""StoreSink in process, against the in-process emulator (App auth included): outcomes,
refusals, transient failures, rebases, closes and tampering reports. Each check reads
the journal back with the reader."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from ghattempt.app.settings import AppSettings, Secret
from ghattempt.app.sink import (
    AppWriter,
    CancelAttempt,
    GenerationRef,
    IntentRef,
    OpenIntent,
    Outcome,
    PhaseResult,
    SinkUnavailable,
    SupersedeAndAdmit,
    TamperingReport,
)
from ghattempt.app.store_sink import CHECK_NAME, StoreSink
from ghattempt.config import JobPhase, PhaseMap
from ghattempt.core import read_journal
from ghattempt.emulator import Emulator, EmulatorTransport
from ghattempt.github import GitHubProvider, ProviderConfig, RetryPolicy, TokenAuth
from ghattempt.store import SCAN_MARGIN

from .conftest import app_fixture

APP_ID = 31337
INSTALLATION = 9
APP_DB_ID = 5550002
REPO = "octo-org/widgets"
CONFIG = f"""
[journal]
category = "release-journal"
[writer]
login = "ghattempt-app"
database_id = {APP_DB_ID}
[channels.release]
plan = ["build", "review"]
[pacing]
write_interval = 0
[lease]
length = 30
request_timeout = 5
clock_skew = 1
acquire_timeout = 2
""".encode()
KEY = "pr-1:main:release"


@dataclass
class World:
    emu: Emulator
    gh: GitHubProvider
    sink: StoreSink
    repository_id: str

    def intent(self, base: str = "main") -> IntentRef:
        return IntentRef(self.repository_id, REPO, 1, base)

    def generation(self, base: str = "main") -> GenerationRef:
        pr = self.gh.pull_request("octo-org", "widgets", 1)
        base_sha = self.gh.ref("octo-org", "widgets", f"refs/heads/{base}")
        assert base_sha is not None
        return GenerationRef(pr.head_oid, base, base_sha.target_oid)

    def writer(self) -> AppWriter:
        return AppWriter(APP_ID, str(uuid.uuid4()))

    def open(self, base: str = "main") -> Any:
        w = self.writer()
        return self.sink.open_intent(OpenIntent(f"gh:{w.delivery}:open", INSTALLATION, w,
                                                self.intent(base), self.generation(base)))

    def journals(self) -> dict[str, int]:
        snap = self.emu.snapshot()
        (repo,) = [r for r in snap["repositories"] if r["id"] == self.repository_id]
        return {d["title"]: int(d["number"]) for d in repo["discussions"]}

    def verdict(self, number: int | None = None, key: str = KEY) -> Any:
        if number is None:
            (number,) = self.journals().values()
        pages = list(self.gh.capture("octo-org", "widgets", number).pages)
        return read_journal(pages, writer="ghattempt-app", repository_id=self.repository_id,
                            writer_id=APP_DB_ID, request_key=key), pages

    def commit(self, path: str, data: bytes, branch: str = "feature") -> str:
        ref = self.gh.ref("octo-org", "widgets", f"refs/heads/{branch}")
        assert ref is not None
        return self.gh.create_commit_on_branch(REPO, branch, expected_head_oid=ref.target_oid,
                                               headline=f"change {path}",
                                               additions={path: data}).oid


@pytest.fixture
def world(tmp_path: Path, rsa_pem: tuple[Path, str]) -> Iterator[World]:
    fixture = app_fixture(rsa_pem[1], app_id=APP_ID, installation=INSTALLATION,
                          database_id=APP_DB_ID)
    fixture["repositories"][0]["branches"].append({"name": "release", "message": "Release",
                                                   "from": "main"})
    emu = Emulator(fixture=fixture)
    transport = EmulatorTransport(emu)
    settings = AppSettings(app_id=APP_ID, private_key=Secret(rsa_pem[1]),
                           webhook_secret=Secret("s"), state_path=tmp_path / "inbox.sqlite",
                           http_timeout=5.0)
    gh = GitHubProvider(ProviderConfig(auth=TokenAuth("ghp_alice"), transport=transport,
                                       mutation_interval=0.0))
    fast = RetryPolicy(max_attempts=2, backoff_base=0.01, backoff_cap=0.01,
                       secondary_min_wait=0.01, lag_base=0.01, lag_cap=0.01)
    sink = StoreSink(settings, transport=transport, retry=fast)
    try:
        yield World(emu, gh, sink, gh.repository("octo-org", "widgets").id)
    finally:
        sink.close()
        gh.close()


def test_no_configuration_is_refused_and_nothing_is_written(world: World) -> None:
    result = world.open()
    assert result.outcome is Outcome.REFUSED
    assert ".github/ghattempt.toml" in (result.detail or "")
    assert world.journals() == {}


def test_a_broken_configuration_is_refused_naming_the_key(world: World) -> None:
    world.commit(".github/ghattempt.toml", b"[journal]\ncategroy = 'x'\n")
    result = world.open()
    assert result.outcome is Outcome.REFUSED
    assert "journal.categroy" in (result.detail or "")


def test_the_default_branch_configuration_is_the_fallback(world: World) -> None:
    world.commit(".github/ghattempt.toml", CONFIG, branch="main")
    assert world.open().outcome is Outcome.APPLIED
    verdict, _ = world.verdict()
    assert verdict.current.attempt.generation.config_path == ".github/ghattempt.toml"


def test_a_new_journal_bears_the_configured_title(world: World) -> None:
    titled = CONFIG.replace(b'category = "release-journal"\n',
                            b'category = "release-journal"\n'
                            b'title = "App journal {repository} #{pull_request} -> {base_ref}"\n')
    assert titled != CONFIG
    world.commit(".github/ghattempt.toml", titled)
    assert world.open().outcome is Outcome.APPLIED
    assert list(world.journals()) == [f"App journal {REPO} #1 -> main"]


def test_a_result_before_its_journal_or_head_is_not_yet_and_an_old_head_is_refused(
        world: World) -> None:
    world.commit(".github/ghattempt.toml", CONFIG)
    w = world.writer()
    early = PhaseResult("run:1:1:build:succeeded", INSTALLATION, w, world.intent(),
                        world.generation().head_sha, "build", "succeeded", None)
    none = world.sink.record_phase(early)  # before the pull request's `opened`
    assert none.outcome is Outcome.NOT_YET and "no journal" in (none.detail or "")
    assert world.open().outcome is Outcome.APPLIED
    again = world.open()
    assert again.outcome is Outcome.ALREADY_APPLIED
    head = world.generation().head_sha
    moved = world.commit("src/a.py", b"a = 1\n")  # no synchronize delivered yet
    ahead = replace(early, key="run:2:1:build:succeeded", head_sha=moved)
    result = world.sink.record_phase(ahead)
    assert result.outcome is Outcome.NOT_YET, result
    assert f"is at head {head}, not {moved}" in (result.detail or "")
    assert world.sink.record_phase(early).outcome is Outcome.APPLIED
    assert world.sink.record_phase(early).outcome is Outcome.ALREADY_APPLIED
    unplanned = replace(early, key="gh:x:merged", phase="merge")
    refused = world.sink.record_phase(unplanned)
    assert refused.outcome is Outcome.REFUSED and "not in the plan" in (refused.detail or "")
    failed_again = replace(early, key="run:1:2:build:failed", status="failed", reason="rerun")
    terminal = world.sink.record_phase(failed_again)
    assert terminal.outcome is Outcome.REFUSED
    verdict, _ = world.verdict()
    assert [e.key for e in verdict.current.events] == ["run:1:1:build:succeeded"]
    # the synchronize comes: the waiting result now lands, and one for the old head is
    # refused at once, naming it an earlier attempt's head
    w2 = world.writer()
    sync = SupersedeAndAdmit(f"gh:{w2.delivery}:synchronize", INSTALLATION, w2,
                             world.intent(), f"head moved from {head} to {moved}",
                             world.intent(), world.generation())
    assert world.sink.supersede_and_admit(sync).outcome is Outcome.APPLIED
    assert world.sink.record_phase(ahead).outcome is Outcome.APPLIED
    stale = replace(early, key="run:3:1:build:succeeded")
    old = world.sink.record_phase(stale)
    assert old.outcome is Outcome.REFUSED and "earlier attempt's head" in (old.detail or "")


def test_close_without_merge_cancels_then_reopen_admits_a_successor(world: World) -> None:
    world.commit(".github/ghattempt.toml", CONFIG)
    world.open()
    head = world.generation().head_sha
    w = world.writer()
    cancel = CancelAttempt(f"gh:{w.delivery}:closed", INSTALLATION, w, world.intent(), head,
                           "closed without merging by alice")
    assert world.sink.cancel(cancel).outcome is Outcome.APPLIED
    assert world.sink.cancel(cancel).outcome is Outcome.ALREADY_APPLIED
    assert world.open().outcome is Outcome.APPLIED
    verdict, _ = world.verdict()
    assert [a["status"] for a in verdict.attempts] == ["cancelled", "pending"]
    assert verdict.current.predecessor == verdict.attempts[0]["attempt"]


def test_a_changed_base_supersedes_in_the_old_journal_and_admits_in_the_new(
        world: World) -> None:
    world.commit(".github/ghattempt.toml", CONFIG)
    world.open("main")
    w = world.writer()
    request = SupersedeAndAdmit(f"gh:{w.delivery}:rebase", INSTALLATION, w,
                                world.intent("main"), "base changed from main to release",
                                world.intent("release"), world.generation("release"))
    result = world.sink.supersede_and_admit(request)
    assert result.outcome is Outcome.APPLIED, result.detail
    assert world.sink.supersede_and_admit(request).outcome is Outcome.ALREADY_APPLIED
    numbers = sorted(world.journals().values())
    old, _ = world.verdict(numbers[0], KEY)
    new, _ = world.verdict(numbers[1], "pr-1:release:release")
    assert [a["status"] for a in old.attempts] == ["superseded"]
    assert [a["status"] for a in new.attempts] == ["pending"]


def test_github_trouble_is_unavailable_not_a_failure(world: World) -> None:
    world.commit(".github/ghattempt.toml", CONFIG)
    w = world.writer()
    request = OpenIntent(f"gh:{w.delivery}:open", INSTALLATION, w, world.intent(),
                         world.generation())
    world.emu.add_fault({"kind": "fail", "operation": "graphql", "status": 502})
    with pytest.raises(SinkUnavailable):
        world.sink.open_intent(request)
    world.emu.clear_faults()
    # the store waits out short rate limits itself; a long one comes back to the worker
    world.emu.add_fault({"kind": "secondary_rate_limit", "operation": "addDiscussionComment",
                         "retry_after": 600, "count": 1})
    with pytest.raises(SinkUnavailable) as info:
        world.sink.open_intent(request)
    assert info.value.retry_after == 600
    world.emu.clear_faults()
    # GitHub answered that write (not executed): it cannot land later, so the scope was
    # handed over at once, with no quiet time
    assert world.sink.open_intent(request).outcome is Outcome.APPLIED
    verdict, _ = world.verdict()
    assert len(verdict.attempts) == 1


def test_a_write_whose_answer_was_lost_leaves_the_scope_quiet(world: World) -> None:
    world.commit(".github/ghattempt.toml", CONFIG)
    w = world.writer()
    request = OpenIntent(f"gh:{w.delivery}:open", INSTALLATION, w, world.intent(),
                         world.generation())
    # the comment commits, its answer is lost: the store reads it back and reconciles
    world.emu.add_fault({"kind": "lose_response", "operation": "addDiscussionComment",
                         "status": 502, "count": 1})
    assert world.sink.open_intent(request).outcome is Outcome.APPLIED
    world.emu.clear_faults()
    # but a mutation without an answer may have landed late: the release kept the scope
    # quiet for the lease margin
    with pytest.raises(SinkUnavailable, match="quiet"):
        world.sink.open_intent(request)
    world.emu.clock.advance(60)
    assert world.sink.open_intent(request).outcome is Outcome.ALREADY_APPLIED
    verdict, _ = world.verdict()
    assert len(verdict.attempts) == 1


def test_an_edited_journal_is_reported_on_the_pull_request_head(world: World) -> None:
    world.commit(".github/ghattempt.toml", CONFIG)
    world.open()
    _, pages = world.verdict()
    discussion = pages[0]["data"]["repository"]["discussion"]
    world.emu.tamper("edit", discussion["id"], body="nothing to see")
    w = world.writer()
    report = TamperingReport(f"gh:{w.delivery}:tamper", INSTALLATION, w,
                             world.repository_id, REPO, discussion["id"],
                             int(discussion["number"]), None, "journal_edited", "mallory",
                             previous_body=discussion["body"])
    result = world.sink.report_tampering(report)
    assert result.outcome is Outcome.APPLIED, result.detail
    head = world.generation().head_sha
    runs = [r for r in world.emu._check_runs if r["head_sha"] == head]
    assert [(r["name"], r["conclusion"], r["external_id"]) for r in runs] == [
        (CHECK_NAME, "failure", report.key)]
    assert runs[0]["output"]["title"] == "journal invalid: untrusted_journal"
    assert "mallory" in runs[0]["output"]["summary"]
    # redone (a crash before the inbox's done mark): no second check run
    assert world.sink.report_tampering(report).outcome is Outcome.ALREADY_APPLIED
    assert len([r for r in world.emu._check_runs if r["head_sha"] == head]) == 1
    # without the body before the edit nothing names the pull request
    blind = replace(report, previous_body=None)
    assert world.sink.report_tampering(blind).outcome is Outcome.REFUSED


def test_no_secret_in_repr_or_results(world: World, rsa_pem: tuple[Path, str]) -> None:
    assert "PRIVATE" not in repr(world.sink)
    result = world.open()  # refused: no configuration
    assert "PRIVATE" not in (result.detail or "")


class _Counting(EmulatorTransport):
    """The emulator transport, counting requests by ``METHOD path``."""

    def __init__(self, emulator: Emulator) -> None:
        super().__init__(emulator)
        self.seen: list[str] = []

    def handle_request(self, request: Any) -> Any:
        self.seen.append(f"{request.method} {request.url.path}")
        return super().handle_request(request)


def test_immutable_answers_are_read_once_per_sink(world: World, tmp_path: Path) -> None:
    """The configuration at a commit oid, a commit's tree and a run's workflow file never
    change: after the admission read them, job results for that head and run read only the
    journal and write (the configuration used to be read again for every delivery)."""
    jobs = CONFIG + b'\n[[app.jobs]]\nworkflow = "ci.yml"\njob = "test"\nphase = "build"\n'
    world.commit(".github/ghattempt.toml", jobs)
    head = world.generation().head_sha
    world.emu.add_workflow_run(REPO, 77, ".github/workflows/ci.yml", "CI", head)
    counting = _Counting(world.emu)
    sink = StoreSink(replace(world.sink._settings, state_path=tmp_path / "b.sqlite"),
                     transport=counting)
    try:
        w = world.writer()
        assert sink.open_intent(OpenIntent(f"gh:{w.delivery}:open", INSTALLATION, w,
                                           world.intent(), world.generation())
                                ).outcome is Outcome.APPLIED
        opened = list(counting.seen)

        def result(key: str, status: str) -> list[str]:
            before = len(counting.seen)
            outcome = sink.record_phase(PhaseResult(
                key, INSTALLATION, world.writer(), world.intent(), head, None,
                status, None, run_id=77, workflow_name="CI", job_name="test"))  # type: ignore[arg-type]
            assert outcome.outcome is Outcome.APPLIED, outcome
            return counting.seen[before:]

        first = result("run:77:1:test:started", "started")
        second = result("run:77:1:test:succeeded", "succeeded")
    finally:
        sink.close()
    assert sum("/contents/" in r for r in opened) == 1, opened
    assert sum("/git/commits/" in r for r in opened) == 1, opened
    # the admission's two clients (reading, and writing with the lease's timeout) share
    # one installation token
    assert counting.seen.count(f"POST /app/installations/{INSTALLATION}/access_tokens") == 1
    assert [r for r in first if "/contents/" in r or "/actions/runs/" in r] == [
        "GET /repos/octo-org/widgets/actions/runs/77"]
    assert [r for r in second if r.startswith("GET")] == [], second
    assert len(second) == len(first) - 1 == 6, (first, second)
    verdict, _ = world.verdict()
    assert [(e.phase, e.status) for e in verdict.current.events] == [
        ("build", "started"), ("build", "succeeded")]


def test_the_server_map_is_asked_by_the_workflow_file_of_the_run(
        world: World, tmp_path: Path) -> None:
    """A ``workflow_job`` delivery names its workflow by name only: a rule of the server's
    ``[[app.jobs]]`` (``GHATTEMPT_APP_PHASES``) written with the workflow file maps the job
    once the run's file is looked up, when the repository's own rules do not map it."""
    world.commit(".github/ghattempt.toml", CONFIG)
    head = world.generation().head_sha
    world.emu.add_workflow_run(REPO, 78, ".github/workflows/ci.yml", "CI", head)
    server = PhaseMap(jobs=(JobPhase(workflow="ci.yml", job="test", phase="build"),))
    sink = StoreSink(replace(world.sink._settings, state_path=tmp_path / "s.sqlite",
                             phase_map=server), transport=EmulatorTransport(world.emu))
    try:
        w = world.writer()
        assert sink.open_intent(OpenIntent(f"gh:{w.delivery}:open", INSTALLATION, w,
                                           world.intent(), world.generation())
                                ).outcome is Outcome.APPLIED
        outcome = sink.record_phase(PhaseResult(
            "run:78:1:test:started", INSTALLATION, world.writer(), world.intent(), head,
            None, "started", None, run_id=78, workflow_name="CI",  # type: ignore[arg-type]
            job_name="test"))
        assert outcome.outcome is Outcome.APPLIED, outcome
    finally:
        sink.close()
    verdict, _ = world.verdict()
    assert [(e.phase, e.status) for e in verdict.current.events] == [("build", "started")]


def test_the_immutable_cache_is_bounded_and_keeps_no_absence(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    import ghattempt.app.store_sink as module

    monkeypatch.setattr(module, "IMMUTABLE_ENTRIES", 2)
    reads: list[str] = []

    def read(value: Any) -> Any:
        return lambda: reads.append(str(value)) or value

    sink = world.sink
    assert sink._once(("a",), read("A")) == "A"
    assert sink._once(("a",), read("A2")) == "A"  # kept
    assert sink._once(("none",), read(None)) is None
    assert sink._once(("none",), read(None)) is None  # absence is asked again
    assert sink._once(("big",), read("B" * 10), keep=lambda v: len(v) < 5) == "B" * 10
    assert sink._once(("big",), read("b"), keep=lambda v: len(v) < 5) == "b"  # not kept
    sink._once(("c",), read("C"))  # now b, c: "a" (least recently used) is dropped
    assert sink._once(("a",), read("A3")) == "A3"
    assert reads == ["A", "None", "None", "BBBBBBBBBB", "b", "C", "A3"]


def _lease_writes(world: World) -> int:
    """Writes of lease refs (acquire, renew, release) in the emulator's request log."""
    return sum(1 for e in world.emu.request_log()
               if {"createCommitOnBranch", "updateRefs", "createRef"} & set(e["root_fields"])
               or e["operation"] in ("git/create-ref", "git/update-ref"))


def test_a_burst_keeps_the_writer_scope_from_its_first_write_to_its_end(world: World) -> None:
    world.commit(".github/ghattempt.toml", CONFIG)
    assert world.open().outcome is Outcome.APPLIED
    head = world.generation().head_sha

    def result(n: int) -> PhaseResult:
        return PhaseResult(f"run:{n}:1:job:{n}:cfg:waiting", INSTALLATION, world.writer(),
                           world.intent(), head, "build", "waiting", f"approval {n}")

    world.emu.clear_request_log()
    assert world.sink.record_phase(result(1)).outcome is Outcome.APPLIED
    assert world.sink.record_phase(result(2)).outcome is Outcome.APPLIED
    alone = _lease_writes(world)
    assert alone >= 4  # acquire and release, each time
    world.emu.clear_request_log()
    with world.sink.hold("pr:R:1"):
        for n in (3, 4, 5, 6):
            assert world.sink.record_phase(result(n)).outcome is Outcome.APPLIED
    assert _lease_writes(world) == alone // 2  # one acquisition, one release
    verdict, _ = world.verdict()
    assert verdict.valid, verdict.to_json()
    assert [e.key for e in verdict.current.events] == [
        f"run:{n}:1:job:{n}:cfg:waiting" for n in range(1, 7)]
    # the scope is free after the burst: another writer takes it at once
    assert world.sink.record_phase(result(7)).outcome is Outcome.APPLIED


def test_clients_made_for_other_threads_share_the_installation_token(world: World,
                                                                     tmp_path: Path) -> None:
    """A client lent to one thread makes the next thread build its own: it signs no new
    App JWT and exchanges no new token (each used to: a JWT, an RSA key parse and a
    token exchange per client)."""
    import threading

    world.commit(".github/ghattempt.toml", CONFIG)
    counting = _Counting(world.emu)
    sink = StoreSink(replace(world.sink._settings, state_path=tmp_path / "b.sqlite"),
                     transport=counting)
    head = world.generation().head_sha

    outcomes: list[Any] = []

    def result(n: int) -> None:
        outcomes.append(sink.record_phase(PhaseResult(
            f"run:{n}:1:job:{n}:build:waiting", INSTALLATION, world.writer(), world.intent(),
            head, "build", "waiting", f"approval {n}")).outcome)

    try:
        w = world.writer()
        with sink._providers.using():  # this thread keeps its clients
            assert sink.open_intent(OpenIntent(f"gh:{w.delivery}:open", INSTALLATION, w,
                                               world.intent(), world.generation())
                                    ).outcome is Outcome.APPLIED
            made = len(sink._providers._every)
            others = [threading.Thread(target=result, args=(n,)) for n in (1, 2)]
            for thread in others:
                thread.start()
                thread.join()
            assert len(sink._providers._every) == made + 2  # the other thread's own
    finally:
        sink.close()
    assert outcomes == [Outcome.APPLIED, Outcome.APPLIED]
    assert counting.seen.count(f"POST /app/installations/{INSTALLATION}/access_tokens") == 1



def _seed(world: World, count: int) -> None:
    repo = world.gh.repository("octo-org", "widgets")
    category = world.gh.discussion_category("octo-org", "widgets", "release-journal")
    for n in range(count):
        if n and n % 70 == 0:  # GitHub's 80 content-creating requests a minute
            world.emu.clock.advance(61)
        world.gh.create_discussion(repo.id, category.id, f"Older notes {n}", "Not a journal.")


def _scans(world: World) -> int:
    return sum(1 for e in world.emu.request_log() if e["operation"] == "CategoryDiscussions")


@pytest.mark.parametrize(("bounded", "scans"), [(False, 3), (True, 1)])
def test_a_first_admission_scans_back_to_when_the_pull_request_was_opened(
        world: World, bounded: bool, scans: int) -> None:
    """250 discussions made before the pull request was opened: with its ``created_at``
    (the payload's) one page is read (docs/store.md, "Finding a journal"); without it,
    all three."""
    world.commit(".github/ghattempt.toml", CONFIG, branch="release")
    _seed(world, 250)
    world.emu.clock.advance(SCAN_MARGIN + 1)
    number = world.emu.open_pull_request(REPO, "release", "main", "Release")
    pr = world.gh.pull_request("octo-org", "widgets", number)
    base = world.gh.ref("octo-org", "widgets", "refs/heads/main")
    assert base is not None
    world.emu.clear_request_log()
    w = world.writer()
    result = world.sink.open_intent(OpenIntent(
        f"gh:{w.delivery}:open", INSTALLATION, w,
        IntentRef(world.repository_id, REPO, number, "main"),
        GenerationRef(pr.head_oid, "main", base.target_oid),
        opened_at=pr.created_at if bounded else None))
    assert result.outcome is Outcome.APPLIED, result.detail
    assert _scans(world) == scans
    assert "Older notes 0" in world.journals() and len(world.journals()) == 251


def test_the_sinks_content_creation_waits_for_the_apps_shared_budget(world: World,
                                                                     tmp_path: Path) -> None:
    """GitHub's content limit on (here 6 a minute; the emulator's windows and the App's
    budget both 30 x faster, a minute in 2 s): every content-creating request of the
    sink takes its place in the budget kept in the inbox first, so the admission and
    four results, 18 or so creations, meet no secondary limit."""
    import time

    from ghattempt.app.budget import ContentBudget
    from ghattempt.app.inbox import open_inbox
    from ghattempt.emulator.limits import CONTENT_CREATING, REST_CONTENT_CREATING

    world.emu.time_scale = 30
    world.emu.content_per_minute = 6
    inbox = open_inbox(tmp_path / "budget.sqlite")
    budget = ContentBudget(inbox, f"app:{APP_ID}", windows=((60, 6), (3600, 500)),
                           time_scale=30, grace=5)
    world.sink.pace_content(budget)

    def paced(call: Any) -> Any:  # as a worker does: reserve first, holding nothing
        reservation = budget.reserve()
        try:
            with budget.using(reservation):
                return call()
        finally:
            assert reservation is not None
            budget.release(reservation)

    world.commit(".github/ghattempt.toml", CONFIG)  # by another actor
    world.emu.clear_request_log()
    started = time.monotonic()
    assert paced(world.open).outcome is Outcome.APPLIED
    head = world.generation().head_sha
    for n in range(1, 5):
        result = PhaseResult(f"run:{n}:1:job:{n}:build:waiting", INSTALLATION, world.writer(),
                             world.intent(), head, "build", "waiting", f"approval {n}")
        assert paced(lambda r=result: world.sink.record_phase(r)).outcome is Outcome.APPLIED
    elapsed = time.monotonic() - started
    log = world.emu.request_log()
    created = [e for e in log if e["status"] < 400 and (
        CONTENT_CREATING & set(e["root_fields"]) or e["operation"] in REST_CONTENT_CREATING)]
    assert len(created) >= 15
    assert not [e for e in log if e["secondary_limited"]]
    assert elapsed >= 2 * (len(created) // 6) - 0.5  # held to 6 per 2 s
    verdict, _ = world.verdict()
    assert verdict.valid and len(verdict.current.events) == 4, verdict.to_json()
    inbox.close()
