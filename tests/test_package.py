import importlib
import inspect
import pickle
import pkgutil

import ghattempt
from ghattempt import core, errors, exclusive, store


def test_version_is_a_string():
    assert ghattempt.__version__.count(".") == 2


def _modules():
    yield ghattempt
    for info in pkgutil.walk_packages(ghattempt.__path__, "ghattempt."):
        if not info.name.endswith("__main__"):
            yield importlib.import_module(info.name)


def _private(module_name):
    return any(part.startswith("_") for part in module_name.split("."))


def test_exported_names_name_a_public_module_that_exports_them():
    """README.md, "Layout": a class or function a public module exports says
    the public module it comes from (as httpx's names do), never a private ``_module``."""
    shown = {}
    for module in _modules():
        if _private(module.__name__):
            continue
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if (inspect.isclass(value) or inspect.isfunction(value)) \
                    and value.__module__.startswith("ghattempt"):
                shown[f"{module.__name__}.{name}"] = value.__module__
    assert len(shown) > 200
    assert {k: v for k, v in shown.items() if _private(v)} == {}
    assert shown["ghattempt.store.BusinessAttemptStore"] == "ghattempt.store"
    assert shown["ghattempt.core.Attempt"] == "ghattempt.core"
    # the reader bundle holds ghattempt.core, not ghattempt.errors
    assert shown["ghattempt.errors.GhattemptError"] == "ghattempt.core"
    assert shown["ghattempt.exclusive.RefLease"] == "ghattempt.exclusive"
    assert shown["ghattempt.commands.CommandError"] == "ghattempt.commands"


def test_every_name_is_found_where_its_module_says():
    """Whatever a class or function says its module is, that module gives it back under
    its name (so pickle, docs and ``python -c 'import ...'`` find it)."""
    wrong = []
    for module in _modules():
        for value in list(vars(module).values()):
            if not (inspect.isclass(value) or inspect.isfunction(value)) \
                    or not value.__module__.startswith("ghattempt") \
                    or "<locals>" in value.__qualname__ or "." in value.__qualname__:
                continue
            home = importlib.import_module(value.__module__)
            if getattr(home, value.__qualname__, None) is not value:
                wrong.append(f"{module.__name__}: {value.__module__}.{value.__qualname__}")
    assert wrong == []


def test_repr_and_pickle_use_the_public_name():
    assert repr(store.BusinessAttemptStore) == "<class 'ghattempt.store.BusinessAttemptStore'>"
    assert repr(errors.GhattemptError) == "<class 'ghattempt.core.GhattemptError'>"
    assert core.digest.__module__ == "ghattempt.core"
    # pickle finds a class by its module and name
    assert pickle.loads(pickle.dumps(store.RefusedByRules)) is store.RefusedByRules
    assert pickle.loads(pickle.dumps(core.read_journal)) is core.read_journal
    assert pickle.loads(pickle.dumps(exclusive.LeaseSettings())) == exclusive.LeaseSettings()


def test_in_the_reader_bundle_every_core_name_is_found_where_its_module_says():
    """The bundle holds ghattempt.core and nothing else of the package: a name the core
    exports must not say a module outside it (pickle, tracebacks)."""
    import subprocess
    import sys
    from pathlib import Path

    bundle = Path(__file__).resolve().parent.parent / "readers" / "business-attempt.pyz"
    code = ("import sys, pickle, importlib; sys.path.insert(0, sys.argv[1]); "
            "import inspect, ghattempt.core as c; "
            "names = [getattr(c, n) for n in c.__all__] + [c.Fault, c.GhattemptError]; "
            "bad = [v.__qualname__ for v in names if "
            "(inspect.isclass(v) or inspect.isfunction(v)) and "
            "getattr(importlib.import_module(v.__module__), v.__qualname__, None) is not v]; "
            "pickle.dumps(c.Fault.BAD_INPUT); print(bad)")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(bundle)],
                          capture_output=True, text=True, timeout=60, cwd="/")
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr
