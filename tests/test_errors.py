"""The one error model (docs/errors.md): one root, a kind of fault on every error, one
table per face from kind to exit status or outcome."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import ghattempt
from ghattempt import exclusive, github, store
from ghattempt.cli._errors import EXIT_BY_FAULT, CliError, classify
from ghattempt.core import JournalInvalid
from ghattempt.errors import Fault, GhattemptError

REPO = Path(__file__).resolve().parent.parent


def _exception_classes() -> list[type[BaseException]]:
    """Every exception class ghattempt defines outside the emulator, once each (a class
    is found wherever it is imported; its ``__module__`` names the public module a user
    imports it from, not the private module defining it: tests/test_package.py)."""
    found: dict[type[BaseException], None] = {}
    for info in pkgutil.walk_packages(ghattempt.__path__, "ghattempt."):
        if info.name.endswith("__main__") or info.name.startswith("ghattempt.emulator"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, BaseException)
                    and value.__module__.startswith("ghattempt.")
                    and not value.__module__.startswith("ghattempt.emulator")):
                found[value] = None
    return list(found)


def test_every_public_exception_class_subclasses_the_root_and_has_a_kind() -> None:
    classes = _exception_classes()
    assert len(classes) > 40
    public = [c for c in classes if not c.__name__.startswith("_")]
    assert [c for c in public if not issubclass(c, GhattemptError)] == []
    # every class but the root (never raised itself) and CliError (whose kind is per
    # error) says its kind of fault
    assert [c for c in public if c not in (GhattemptError, CliError) and not isinstance(
        getattr(c, "fault", None), Fault)] == []


def test_the_old_duplicate_names_are_one_class_each() -> None:
    assert exclusive.RefConflict is github.RefConflict
    assert exclusive.AmbiguousOutcome is github.AmbiguousOutcome
    assert issubclass(store.JournalInvalidError, JournalInvalid)
    assert issubclass(store.JournalInvalidError, store.StoreError)


def test_a_store_caller_catches_one_root() -> None:
    raised = [store.RefusedByRules("blocked", "no"), exclusive.ScopeBusy(
        scope_key="k", holder="h", token=1, expires_at=None, state="held", waited=1.0),
        github.RateLimited("slow down", kind="secondary", retry_after=7.0),
        github.AmbiguousOutcome("lost"), store.JournalInvalidError("fork", "two records")]
    kinds = []
    for exc in raised:
        try:
            raise exc
        except GhattemptError as caught:
            kinds.append(caught.fault)
    assert kinds == [Fault.REFUSED, Fault.SCOPE_BUSY, Fault.GITHUB_UNAVAILABLE,
                     Fault.OUTCOME_UNKNOWN, Fault.JOURNAL_INVALID]


def test_kinds_per_instance_and_diagnostics() -> None:
    assert JournalInvalid("bad_input", "stdin is empty").fault is Fault.BAD_INPUT
    assert JournalInvalid("fork", "seq 3 twice").fault is Fault.JOURNAL_INVALID
    limited = github.RateLimited("rate limit", kind="primary", retry_after=12.5)
    assert limited.diagnostics().splitlines() == [
        "RateLimited: rate limit", "kind: github_unavailable", "retry after: 12.5 s",
        "what to do: retry later; nothing was committed"]
    missing = github.NotFound("no such discussion")
    assert "the token can read the repository" in missing.diagnostics()


def test_the_cli_table_covers_every_kind_and_decides_by_kind() -> None:
    assert set(EXIT_BY_FAULT) == set(Fault)
    from ghattempt.action import EXIT_BY_FAULT as ACTION_EXIT

    assert ACTION_EXIT == EXIT_BY_FAULT and EXIT_BY_FAULT[Fault.GITHUB_REFUSED] == 5
    assert classify(store.RefusedByRules("blocked", "no"))[0] == 1  # type: ignore[index]
    assert classify(github.InputError("bad name"))[0] == 2  # type: ignore[index]
    assert classify(JournalInvalid("fork", "x"))[0] == 3  # type: ignore[index]
    assert classify(JournalInvalid("bad_input", "x"))[0] == 2  # type: ignore[index]
    assert classify(exclusive.OwnershipLost(scope_key="k", holder="h", token=2,
                                            reason="expired"))[0] == 4  # type: ignore[index]
    code, message = classify(github.RateLimited("rate limit", kind="primary",
                                                retry_after=3.0))  # type: ignore[misc]
    assert code == 4 and message.endswith("(rate limited: retry after 3.0 s)")
    # a person must act (exit 5): GitHub refused; retrying alone cannot help
    assert classify(github.AuthFailed("bad credentials"))[0] == 5  # type: ignore[index]
    assert classify(github.NotFound("no such discussion"))[0] == 5  # type: ignore[index]
    assert classify(exclusive.BackendError("ruleset", retryable=False))[0] == 5  # type: ignore[index]
    assert classify(exclusive.BackendError("502", retryable=True))[0] == 4  # type: ignore[index]
    assert classify(github.AmbiguousOutcome("lost"))[0] == 4  # type: ignore[index]
    assert classify(CliError(Fault.REFUSED, "no journal yet")) == (1, "no journal yet")
    assert classify(RuntimeError("a defect")) is None


def test_the_app_table_covers_every_kind_but_githubs_refusals() -> None:
    pytest.importorskip("starlette")
    from ghattempt.app.store_sink import OUTCOME_BY_FAULT

    assert set(OUTCOME_BY_FAULT) == set(Fault) - {Fault.GITHUB_REFUSED}


def test_the_layout_report_counts_one_public_root_outside_the_emulator() -> None:
    """The emulator imports no ghattempt layer (tests/emulator/test_package.py), so its
    errors have roots of their own; everything else has one."""
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "layout-report"), "--json"],
                          capture_output=True, text=True, timeout=120, check=True)
    errors = json.loads(proc.stdout)["errors"]
    public = [name for name in errors["root_names"]
              if not name.rsplit(".", 1)[1].startswith("_")
              and not name.startswith("ghattempt.emulator.")]
    assert public == ["ghattempt.core._errors.GhattemptError"]
    assert not errors["names_in_two_modules"]
