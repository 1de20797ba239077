"""The CLI against the emulator over HTTP: writes, status, capture -> read round trip."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import BUNDLE, World


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("cli"))
    try:
        yield w
    finally:
        w.close()


@pytest.fixture(scope="module")
def journal(world: World) -> dict[str, str]:
    """Pull request #1: admitted, admission and build succeeded, publication started."""
    out = world.cli("admit", "--pull-request", "1")
    assert out.returncode == 0, out.stderr
    assert b"admitted attempt sha256:" in out.stdout
    for phase, status in (("admission", "started"), ("admission", "succeeded"),
                          ("build", "started"), ("build", "succeeded")):
        rec = world.cli("record", "--pull-request", "1", "--phase", phase, "--status", status)
        assert rec.returncode == 0, rec.stderr
    url = out.stdout.decode().rsplit("journal ", 1)[1].strip()
    return {"number": url.rsplit("/", 1)[1], "url": url}


def test_admit_again_is_a_no_op(world: World, journal: dict[str, str]) -> None:
    again = world.cli("admit", "--pull-request", "1", "--json")
    assert again.returncode == 0, again.stderr
    verdict = json.loads(again.stdout)
    assert verdict["status"] == "running"
    assert len(verdict["attempts"]) == 1


def test_record_same_key_twice_writes_once(world: World, journal: dict[str, str]) -> None:
    first = world.cli("record", "--pull-request", "1", "--phase", "publication",
                      "--status", "started", "--key", "pub-start")
    second = world.cli("record", "--pull-request", "1", "--phase", "publication",
                       "--status", "started", "--key", "pub-start", "--json")
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    assert b"already recorded" not in first.stdout
    verdict = json.loads(second.stdout)
    assert verdict["missing_phases"] == ["publication"]
    capture = world.cli("capture", "--discussion", journal["number"])
    bodies = [r["body"] for p in json.loads(capture.stdout)
              for root in p["data"]["repository"]["discussion"]["comments"]["nodes"]
              for r in root["replies"]["nodes"]]
    assert sum('"key":"pub-start"' in b for b in bodies) == 1


def test_refused_write_exits_1_with_one_line(world: World, journal: dict[str, str]) -> None:
    # Rolling back an attempt that has not succeeded is refused by the replay rules.
    out = world.cli("rollback", "--pull-request", "1", "--status", "started")
    assert out.returncode == 1
    lines = out.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ghattempt: error: ")
    assert "Traceback" not in out.stderr.decode()


def test_status_table(world: World, journal: dict[str, str]) -> None:
    out = world.cli("status", "--discussion", journal["number"])
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode()
    assert text.splitlines()[0].split() == ["journal", journal["url"]]
    assert "request key       pr-1:main:stable" in text
    for word in ("admission", "build", "succeeded", "cli alice", "SEQ", "PHASE"):
        assert word in text


def test_status_by_pull_request_finds_the_journal(world: World,
                                                  journal: dict[str, str]) -> None:
    by_pr = world.cli("status", "--pull-request", "1", "--json")
    by_number = world.cli("status", "--discussion", journal["number"], "--json")
    assert by_pr.returncode == 0, by_pr.stderr
    assert json.loads(by_pr.stdout) == json.loads(by_number.stdout)


def test_capture_read_round_trip_agrees_with_bundle(world: World, journal: dict[str, str],
                                                    tmp_path: Path) -> None:
    path = tmp_path / "capture.json"
    cap = world.cli("capture", "--discussion", journal["number"], "-o", str(path))
    assert cap.returncode == 0, cap.stderr
    assert b"wrote" in cap.stderr
    args = ["--writer", "github-actions", "--writer-id", "41898282", "--repository-id",
            world.repository_id()]
    ours = world.cli("read", *args, stdin=path.read_bytes())
    bundle = subprocess.run([sys.executable, str(BUNDLE), *args], input=path.read_bytes(),
                            capture_output=True, timeout=60)
    assert ours.returncode == bundle.returncode == 0
    assert ours.stdout == bundle.stdout
    status = world.cli("status", "--discussion", journal["number"], "--json")
    assert status.stdout == bundle.stdout
    verdict = json.loads(bundle.stdout)
    assert verdict["status"] in ("running",) and verdict["recovery"].startswith("continue:")
    from_file = world.cli("status", "--capture", str(path), "--json")
    assert from_file.stdout == bundle.stdout


def test_status_of_another_writer_is_a_valid_but_empty_read(world: World,
                                                            journal: dict[str, str]) -> None:
    # Nothing the emulator's app bot wrote: the journal body itself is untrusted.
    out = world.cli("status", "--discussion", journal["number"], "--writer", "ghattempt-app",
                    "--json")
    assert out.returncode == 3
    assert json.loads(out.stdout)["reason"] == "untrusted_journal"


def test_status_of_a_tampered_journal_fails_closed(tmp_path: Path) -> None:
    w = World(tmp_path)
    try:
        assert w.cli("admit", "--pull-request", "1").returncode == 0
        for status in ("started", "succeeded"):
            assert w.cli("record", "--pull-request", "1", "--phase", "admission",
                         "--status", status).returncode == 0
        snap = w.emulator.snapshot()
        disc = snap["repositories"][0]["discussions"][-1]
        first_event = next(c for c in disc["comments"] if c["reply_to"] is not None)
        w.emulator.tamper("delete", first_event["id"])
        out = w.cli("status", "--discussion", str(disc["number"]), "--json")
        assert out.returncode == 3
        verdict = json.loads(out.stdout)
        assert (verdict["status"], verdict["recovery"]) == ("invalid", "fail-closed")
        assert verdict["reason"] == "gap"
        rec = w.cli("record", "--pull-request", "1", "--phase", "build", "--status", "started")
        assert rec.returncode == 3
        assert b"invalid" in rec.stderr
    finally:
        w.close()
