"""The emulator's public surface and its place in the layering."""

from __future__ import annotations

import ast
from pathlib import Path

import ghattempt.emulator as emulator

PACKAGE = Path(emulator.__file__).parent


def test_public_names() -> None:
    assert sorted(emulator.__all__) == sorted(
        [
            "DEFAULT_FIXTURE",
            "AsyncEmulatorTransport",
            "Clock",
            "Emulator",
            "EmulatorProcess",
            "EmulatorServer",
            "EmulatorTransport",
            "FaultRule",
            "FixtureError",
            "Reply",
            "load_fixture",
            "load_schema",
        ]
    )
    for name in emulator.__all__:
        assert getattr(emulator, name) is not None


def test_imports_point_down_only() -> None:
    """The emulator sits beside ``ghattempt.github``: it may use the standard library
    and third-party packages, never another ghattempt layer."""
    for path in PACKAGE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                assert not node.module.startswith("ghattempt.") or node.module.startswith(
                    "ghattempt.emulator"
                ), f"{path.name} imports {node.module}"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("ghattempt.") or alias.name.startswith(
                        "ghattempt.emulator"
                    ), f"{path.name} imports {alias.name}"
