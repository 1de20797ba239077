"""The Action's ``materials`` input, hostile: one ``::error::`` line, exit 2, nothing written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import World
from .test_action import TOKEN, run_action


@pytest.fixture(scope="module")
def admitted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[World, Path]]:
    tmp = tmp_path_factory.mktemp("materials")
    w = World(tmp)
    try:
        assert run_action(w, tmp, "admit").rc == 0
        yield w, tmp
    finally:
        w.close()


DIGEST = "sha256:" + "a" * 64
URL = "https://github.com/octo-org/widgets/releases/download/v1/a.tgz"


def _one(**changes: object) -> str:
    material = {"id": "a", "kind": "artifact", "bytes": 1, "digest": DIGEST, "url": URL}
    return json.dumps([{**material, **changes}])


@pytest.mark.parametrize("materials", [
    "[" * 100_000,
    _one(bytes="12"),
    _one(attempt=5, generation=None),
    _one(attempt=DIGEST, generation=DIGEST),
    _one(id=["a"]),
], ids=["deep", "bytes-string", "attempt-int", "foreign-attempt", "id-list"])
def test_a_malformed_material_is_refused_before_anything_is_written(
        admitted: tuple[World, Path], materials: str) -> None:
    world, tmp = admitted
    before = len(world.emulator.snapshot()["repositories"][0]["discussions"][-1]["comments"])
    step = run_action(world, tmp, "record", phase="admission", status="started",
                      materials=materials)
    assert step.rc in (1, 2), step.stdout + step.stderr
    errors = [line for line in step.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "internal error" not in errors[0], step.stdout
    assert "Traceback" not in step.stderr and TOKEN not in step.stderr
    after = len(world.emulator.snapshot()["repositories"][0]["discussions"][-1]["comments"])
    assert after == before
