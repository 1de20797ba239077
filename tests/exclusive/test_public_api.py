from __future__ import annotations

import ast
import pathlib

import ghattempt.exclusive as exclusive

PACKAGE = pathlib.Path(exclusive.__file__).parent


def test_all_lists_exactly_the_public_names():
    public = {n for n in vars(exclusive) if not n.startswith("_")} - {"annotations"}
    # submodules (private ones and ``testing``) are not part of the namespace contract
    public -= {n for n in public if (PACKAGE / f"{n}.py").exists()}
    assert set(exclusive.__all__) == public
    assert sorted(exclusive.__all__, key=lambda n: (not n.isupper(), n)) == exclusive.__all__


def test_every_public_object_is_documented():
    for name in exclusive.__all__:
        obj = getattr(exclusive, name)
        if isinstance(obj, str | float | int):
            continue
        assert (obj.__doc__ or "").strip(), name


def test_the_layer_imports_nothing_above_it():
    # core < github < exclusive: the lease record is the core's (journal-v1 section 4),
    # and RefConflict and AmbiguousOutcome are the provider's
    forbidden = ("ghattempt.emulator", "ghattempt.store", "ghattempt.cli", "ghattempt.app")
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                assert not node.module.startswith(forbidden), (path.name, node.module)
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                assert node.module in ("core", "github"), (path.name, node.module)
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith(forbidden), (path.name, alias.name)
