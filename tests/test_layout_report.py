"""scripts/layout-report counts what it says on a small tree written here."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "layout-report"


def _script():
    loader = importlib.machinery.SourceFileLoader("layout_report", str(SCRIPT))
    spec = importlib.util.spec_from_loader("layout_report", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["layout_report"] = module  # its dataclasses look their module up
    loader.exec_module(module)
    return module


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


LEASE_SETTINGS = """\
    from dataclasses import dataclass
    @dataclass(frozen=True)
    class LeaseSettings:
        seconds: int = 120
    """

TANGLED = {
    "ghattempt/__init__.py": "",
    "ghattempt/core/__init__.py": """\
        from ._errors import CoreError, Shape
        __all__ = ["CoreError", "Shape"]
        """,
    "ghattempt/core/_errors.py": """\
        class CoreError(Exception):
            pass
        class Shape(CoreError, ValueError):
            pass
        """,
    "ghattempt/github/__init__.py": """\
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .errors import GitHubError, RefConflict
        __all__ = ["GitHubError", "RefConflict"]
        """,
    "ghattempt/github/errors.py": """\
        class GitHubError(Exception):
            pass
        class RefConflict(GitHubError):
            pass
        class _Retry(Exception):
            pass
        """,
    "ghattempt/exclusive/__init__.py": """\
        from ._errors import ExclusionError, RefConflict
        from ._settings import LeaseSettings
        __all__ = ["RefConflict", "LeaseSettings"]
        __all__ += ["ExclusionError"]
        """,
    "ghattempt/exclusive/_errors.py": """\
        class ExclusionError(Exception):
            pass
        class RefConflict(ExclusionError):
            pass
        """,
    "ghattempt/exclusive/_settings.py": LEASE_SETTINGS,
    "ghattempt/store/__init__.py": """\
        from ghattempt.exclusive._errors import ExclusionError
        from ._x import StoreError
        __all__ = ["StoreError", "ExclusionError"]
        """,
    "ghattempt/store/_x.py": """\
        from ghattempt.github import errors as gh
        class StoreError(gh.GitHubError):
            pass
        class NotAnError:
            pass
        """,
    "ghattempt/config.py": """\
        import tomllib
        from dataclasses import dataclass
        @dataclass(frozen=True)
        class Channel:
            name: str
        @dataclass
        class Scratch:
            name: str
        class LeaseSettings:
            pass
        class BadConfig(ValueError):
            pass
        """,
    "ghattempt/cli/__init__.py": """\
        from ghattempt.cli._errors import CliError
        """,
    "ghattempt/cli/_errors.py": """\
        class CliError(Exception):
            pass
        """,
    "ghattempt/cli/_render.py": "",
    "ghattempt/action.py": """\
        from ghattempt.cli._errors import CliError
        def run():
            from ghattempt.cli import _render
            return _render
        """,
    "ghattempt/emulator/__init__.py": "from .app import Emulator\n",
    "ghattempt/emulator/app.py": "import tomllib\n\n\nclass Emulator:\n    pass\n",
    "ghattempt/emulator/errors.py": "class GitHubError(Exception):\n    pass\n",
    "ghattempt/emulator/fixture.py": """\
        import tomllib
        from dataclasses import dataclass
        @dataclass(frozen=True)
        class Seed:
            name: str
        """,
}


def test_counts_on_a_tangled_tree(tmp_path):
    report = _script().measure(_write(tmp_path, TANGLED))

    errors = report["errors"]
    # CoreError, Shape, GitHubError, RefConflict, _Retry, ExclusionError, RefConflict,
    # StoreError (through `gh.GitHubError`), BadConfig, CliError, the emulator's GitHubError
    assert errors["classes"] == 11
    assert errors["modules"] == 7
    assert sorted(errors["root_names"]) == [
        "ghattempt.cli._errors.CliError", "ghattempt.config.BadConfig",
        "ghattempt.core._errors.CoreError", "ghattempt.emulator.errors.GitHubError",
        "ghattempt.exclusive._errors.ExclusionError", "ghattempt.github.errors.GitHubError",
        "ghattempt.github.errors._Retry"]
    assert errors["roots"] == 7
    assert errors["public_roots"] == 6
    assert errors["per_module"]["ghattempt.store._x"] == {"classes": ["StoreError"], "roots": []}
    assert set(errors["names_in_two_modules"]) == {"GitHubError", "RefConflict"}

    settings = report["settings"]
    # LeaseSettings twice (a suffix), Channel (frozen, in a module reading TOML); not the
    # unfrozen Scratch, not the exception BadConfig, not the emulator's fixture Seed
    assert settings["per_module"] == {"ghattempt.config": ["Channel", "LeaseSettings"],
                                      "ghattempt.exclusive._settings": ["LeaseSettings"]}
    assert settings["classes"] == 3
    assert settings["models"] == 2
    assert list(settings["names_in_two_modules"]) == ["LeaseSettings"]

    public = report["public"]
    assert public["alls"] == 4
    assert public["names"] == 9
    assert public["distinct"] == 7
    # ExclusionError is listed twice but defined once; RefConflict has two definitions
    assert public["defined_twice"] == {"RefConflict": [
        "ghattempt.exclusive._errors.RefConflict", "ghattempt.github.errors.RefConflict"]}

    private = report["private_imports"]
    assert [(i["importer"], i["imported"]) for i in private["list"]] == [
        ("ghattempt.action", "ghattempt.cli._errors"),
        ("ghattempt.action", "ghattempt.cli._render"),  # inside a function: still an import
        ("ghattempt.store", "ghattempt.exclusive._errors"),
    ]
    assert private["imports"] == 3
    assert private["importing_modules"] == 2

    emulator = report["emulator"]
    assert emulator["modules"] == 4
    assert emulator["sizes"] == {"ghattempt.emulator.app": 5, "ghattempt.emulator.fixture": 5,
                                 "ghattempt.emulator.errors": 2, "ghattempt.emulator": 1}
    assert emulator["lines"] == 13


CLEAN = {
    "ghattempt/__init__.py": "",
    "ghattempt/errors.py": """\
        class GhattemptError(Exception):
            pass
        class InputError(GhattemptError, ValueError):
            pass
        __all__ = ["GhattemptError", "InputError"]
        """,
    "ghattempt/settings.py": LEASE_SETTINGS,
    "ghattempt/store/__init__.py": """\
        from ghattempt.errors import GhattemptError
        from ._store import Store
        __all__ = ["GhattemptError", "Store"]
        """,
    "ghattempt/store/_store.py": """\
        from ghattempt.errors import GhattemptError
        class Store:
            pass
        class _Retry(Exception):
            pass
        """,
}


def test_check_fails_on_the_tangled_tree_and_passes_on_a_clean_one(tmp_path):
    tangled = _write(tmp_path / "tangled", TANGLED)
    clean = _write(tmp_path / "clean", CLEAN)
    run = [sys.executable, str(SCRIPT), "--check", "--root"]

    failed = subprocess.run(run + [str(tangled)], capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1, failed.stderr
    assert ("check: 6 public exception roots, not 1; settings classes in 2 modules, not 1; "
            "1 public names defined twice; 3 cross-package private imports") in failed.stdout
    assert "Errors: 11 exception classes in 7 modules; 7 roots (6 public)" in failed.stdout

    held = subprocess.run(run + [str(clean)], capture_output=True, text=True, timeout=60)
    assert held.returncode == 0, held.stdout + held.stderr
    assert "check: the layout holds" in held.stdout
    # without --check the report never fails
    plain = subprocess.run([sys.executable, str(SCRIPT), "--root", str(tangled)],
                           capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0


def test_refuses_a_root_without_the_package(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), "--root", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "--root must be the directory holding the ghattempt package" in done.stderr


def test_runs_on_this_checkout():
    report = _script().measure(ROOT)
    assert report["errors"]["roots"] >= 1
    assert report["emulator"]["modules"] == len(list((ROOT / "ghattempt/emulator").glob("*.py")))


PARTS = {
    "ghattempt/__init__.py": "",
    "ghattempt/errors.py": "class GhattemptError(Exception):\n    pass\n",
    "ghattempt/exclusive/__init__.py": "from ._settings import LeaseSettings\n",
    "ghattempt/exclusive/_settings.py": LEASE_SETTINGS,
    "ghattempt/github/config.py": """\
        from dataclasses import dataclass
        @dataclass(frozen=True)
        class RetryPolicy:
            tries: int = 5
        """,
    "ghattempt/config.py": """\
        import tomllib
        from dataclasses import dataclass, field
        from ghattempt.exclusive import LeaseSettings
        from ghattempt.github import config as gh
        @dataclass(frozen=True)
        class Settings:
            lease: LeaseSettings = field(default_factory=LeaseSettings)
        @dataclass(frozen=True)
        class AppSettings:
            retry: "gh.RetryPolicy | None" = None
        """,
    "ghattempt/emulator/__init__.py": "",
    "ghattempt/emulator/errors.py": "class ResolverError(Exception):\n    pass\n",
}


def test_field_types_of_the_top_level_settings_are_parts_of_its_model(tmp_path):
    report = _script().measure(_write(tmp_path, PARTS))
    settings = report["settings"]
    assert settings["per_module"] == {"ghattempt.config": ["Settings", "AppSettings"],
                                      "ghattempt.exclusive._settings": ["LeaseSettings"],
                                      "ghattempt.github.config": ["RetryPolicy"]}
    assert settings["parts"] == {
        "ghattempt.exclusive._settings.LeaseSettings": "ghattempt.config",
        "ghattempt.github.config.RetryPolicy": "ghattempt.config"}
    assert settings["models"] == 1


def test_a_settings_class_no_top_level_field_names_is_a_model_of_its_own(tmp_path):
    files = dict(PARTS)
    files["ghattempt/config.py"] = files["ghattempt/config.py"].replace(
        '"gh.RetryPolicy | None"', "int | None")
    report = _script().measure(_write(tmp_path, files))
    assert report["settings"]["parts"] == {
        "ghattempt.exclusive._settings.LeaseSettings": "ghattempt.config"}
    assert report["settings"]["models"] == 2


def test_the_check_asks_for_one_public_root_outside_the_emulator(tmp_path):
    root = _write(tmp_path, PARTS)
    report = _script().measure(root)
    assert report["errors"]["public_roots"] == 2
    assert report["errors"]["public_roots_outside_emulator"] == 1
    held = subprocess.run([sys.executable, str(SCRIPT), "--check", "--root", str(root)],
                          capture_output=True, text=True, timeout=60)
    assert held.returncode == 0, held.stdout + held.stderr
    assert "2 roots (2 public); 1 public outside the emulator" in held.stdout


def test_a_config_with_a_callable_field_is_wiring_not_a_settings_model(tmp_path):
    files = dict(PARTS)
    files["ghattempt/github/provider_config.py"] = """\
        from collections.abc import Callable
        from dataclasses import dataclass
        import time
        @dataclass(frozen=True)
        class ProviderConfig:
            timeout: float = 30.0
            sleep: Callable[[float], None] = time.sleep
        @dataclass(frozen=True)
        class TransportConfig:
            timeout: float = 30.0
        """
    report = _script().measure(_write(tmp_path, files))
    settings = report["settings"]
    assert settings["wiring"] == ["ghattempt.github.provider_config.ProviderConfig"]
    # the same class without a callable is settings, and a model of its own
    assert settings["per_module"]["ghattempt.github.provider_config"] == ["TransportConfig"]
    assert settings["models"] == 2


SEAMS = {
    "ghattempt/__init__.py": "",
    "ghattempt/errors.py": "class GhattemptError(Exception):\n    pass\n",
    "ghattempt/exclusive/__init__.py": "from ._lease import Adapter, RefLease\n",
    "ghattempt/exclusive/_lease.py": """\
        from typing import Protocol
        class Adapter(Protocol):
            def hold(self): ...
        class RefLease:
            def hold(self):
                return self
        def check(x):
            return isinstance(x, RefLease)  # inside exclusive/: not counted
        """,
    "ghattempt/store/__init__.py": "",
    "ghattempt/store/_store.py": """\
        import os
        from ghattempt.exclusive import RefLease
        class Store:
            def __init__(self):
                self._step = 0
                self.lease = RefLease()
            def _now(self):
                return 1
            @classmethod
            def make(cls):
                store = cls()
                store._step = 1  # an instance it makes: not counted
                return store
            def same(self, other):
                return other._now()  # another Store (its own _now): not counted
        class Session:
            def __init__(self, store: Store):
                self._store = store
            def go(self, other: "Session"):
                self._store._now()  # counted
                store = self._store
                store._step  # counted
                other._store  # a parameter of this class: not counted
                os._exit  # a module's: not counted
                if isinstance(store.lease, (RefLease, int)):  # counted
                    return store._replace()  # namedtuple's: not counted
        """,
    "ghattempt/action.py": """\
        import argparse
        from argparse import Namespace
        def run(env):
            args = argparse.Namespace(x=1)
            more = Namespace(y=2)
            return getattr(args, "x", None), more
        """,
    "ghattempt/cli/__init__.py": """\
        import argparse
        def main(args: argparse.Namespace):
            return getattr(args, "x")
        """,
    "ghattempt/demo.py": """\
        def run_demo_command(args):
            return getattr(args, "html", None)
        """,
    "ghattempt/commands/__init__.py": "from ._keys import request_key\n",
    "ghattempt/commands/_keys.py": """\
        def request_key(config, **values):
            return config.request_key(**values)
        """,
    "ghattempt/app/__init__.py": "",
    "ghattempt/app/routing.py": """\
        from typing import Any
        from ghattempt import commands
        def request_key_for(number):
            return f"pull/{number}"
        def route(number, cfg):
            return request_key_for(number), commands.request_key(cfg, x=1)
        class Sink:
            def key(self, cfg):
                return cfg.request_key(repository_id="x")
            def pages(self, pages: list[dict[str, Any]], first_page: Any = None) -> None:
                return None
            def capture(self) -> list[dict[str, Any]]:
                return []
        """,
    "ghattempt/github/__init__.py": "",
    "ghattempt/github/transport.py": """\
        from typing import Any
        def capture(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return pages
        """,
}


def test_the_seams_above_the_store_are_counted(tmp_path):
    seams = _script().measure(_write(tmp_path, SEAMS))["seams"]
    namespaces = seams["namespaces"]
    # cli/ and the demo's own entry read their options; nothing else does
    assert sorted((i["where"], i["what"]) for i in namespaces["list"]) == [
        ("ghattempt.action.run", "argparse.Namespace"),
        ("ghattempt.action.run", "argparse.Namespace"),
        ("ghattempt.action.run", "getattr(args, ...)")]
    accesses = seams["private_accesses"]["per_class"]
    assert {c: sorted(i["what"] for i in v) for c, v in accesses.items()} == {
        "ghattempt.store._store.Session": ["self._store._now", "store._step"]}
    checks = seams["adapter_isinstance"]["per_module"]
    assert list(checks) == ["ghattempt.store._store"] and len(checks["ghattempt.store._store"]) == 1
    derived = seams["request_key_derivations"]["list"]
    assert sorted(i["where"] for i in derived) == [
        "ghattempt.app.routing.Sink.key", "ghattempt.app.routing.route",
        "ghattempt.commands._keys.request_key"]
    assert sorted(i["where"] for i in seams["raw_pages"]["list"]) == [
        "ghattempt.app.routing.Sink.capture", "ghattempt.app.routing.Sink.pages"]


def test_the_check_holds_the_seams_to_the_limits_table(tmp_path):
    root = _write(tmp_path, SEAMS)
    failed = subprocess.run([sys.executable, str(SCRIPT), "--check", "--root", str(root)],
                            capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1
    check = failed.stdout.rsplit("check: ", 1)[1]
    assert "3 argparse namespaces outside cli/, not more than 0" in check
    assert "the request key derived in 3 places, not more than 1" in check
    # the typed capture landed: raw pages are in no signature above the transport
    assert "2 signatures with raw JSON pages, not more than 0" in check
    # the allow-lists are empty now that the store and the lease own their state: the
    # sample store's Session and its isinstance fail the check
    assert ("private attributes of another object read in 1 classes beyond the allow-list "
            "(ghattempt.store._store.Session)") in check
    assert "isinstance on a concrete exclusive adapter in 1 modules beyond the allow-list" \
        in check
    # so does any other class
    files = dict(SEAMS)
    files["ghattempt/app/sink.py"] = """\
        from ghattempt.exclusive import RefLease
        class Sink:
            def __init__(self, lease):
                self.lease = lease
            def go(self):
                return self.lease._taken, isinstance(self.lease, RefLease)
        """
    root = _write(tmp_path / "more", files)
    failed = subprocess.run([sys.executable, str(SCRIPT), "--check", "--root", str(root)],
                            capture_output=True, text=True, timeout=60)
    check = failed.stdout.rsplit("check: ", 1)[1]
    assert ("private attributes of another object read in 2 classes beyond the allow-list "
            "(ghattempt.app.sink.Sink, ghattempt.store._store.Session)") in check
    assert ("isinstance on a concrete exclusive adapter in 2 modules beyond the allow-list "
            "(ghattempt.app.sink, ghattempt.store._store)") in check


def test_this_checkout_derives_the_request_key_once_and_keeps_namespaces_in_cli():
    seams = _script().measure(ROOT)["seams"]
    assert [i["where"] for i in seams["request_key_derivations"]["list"]] == [
        "ghattempt.commands._keys.request_key"]
    assert seams["namespaces"]["list"] == []


def test_this_checkout_passes_raw_pages_in_no_signature_above_the_transport():
    report = _script().measure(ROOT)
    assert report["seams"]["raw_pages"]["list"] == []
    assert _script().failures(report) == []


RAW = {
    "ghattempt/__init__.py": "",
    # the application layer deriving the request key once, as in SEAMS
    **{name: SEAMS[name] for name in ("ghattempt/commands/__init__.py",
                                      "ghattempt/commands/_keys.py")},
    "ghattempt/render/__init__.py": "",
    "ghattempt/render/_timeline.py": """\
        from dataclasses import dataclass
        from typing import Any
        def build(pages: Any, page_size: int) -> None:
            return None
        def counted(first_page: "object | None" = None) -> None:
            return None
        def typed(capture: "Capture", pages: int = 1) -> None:
            return None
        @dataclass
        class Reading:
            pages: Any
            page_count: int = 0
        """,
    "ghattempt/core/__init__.py": "",
    "ghattempt/core/testing.py": """\
        from typing import Any
        def pages() -> list[dict[str, Any]]:
            return []
        """,
    "ghattempt/core/_journal.py": """\
        def read_journal(pages: object) -> None:
            return None
        def select(pages: object) -> None:
            return None
        """,
}


def test_untyped_pages_and_fields_count_as_raw_pages(tmp_path):
    # an Any or object page is GitHub's JSON all the same; so is a class's field; the
    # reader's own stdin entry and GitHub's stand-ins are not counted
    seams = _script().measure(_write(tmp_path, RAW))["seams"]
    assert sorted(i["where"] for i in seams["raw_pages"]["list"]) == [
        "ghattempt.core._journal.select", "ghattempt.render._timeline.Reading.pages",
        "ghattempt.render._timeline.build", "ghattempt.render._timeline.counted"]


def test_a_request_key_derived_nowhere_fails_the_check(tmp_path):
    files = dict(RAW)
    files["ghattempt/commands/_keys.py"] = "def request_key(config, **values):\n    return 1\n"
    report = _script().measure(_write(tmp_path, files))
    assert "the request key derived in 0 places, not 1 (ghattempt/commands/_keys.py)" in \
        _script().failures(report)
