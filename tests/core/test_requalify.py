"""Materials of a run step (ghattempt.core._requalify): the material id scheme names a
file so that it is found again, re-qualification compares bytes exactly, and the
built-in github-release verify compares a release with the phase's files."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from run_world import OTHER, URL, World, observed

from ghattempt.core import (
    ReleaseAsset,
    compare_release,
    file_material,
    is_key,
    material_id,
    material_path,
    readback_material,
    requalify,
)

DIGEST = "sha256:" + hashlib.sha256(b"x").hexdigest()

component = st.text(st.characters(codec="utf-8", exclude_characters="/\x00\\"),
                    min_size=1, max_size=20).filter(lambda c: c not in (".", ".."))
paths = st.lists(component, min_size=1, max_size=5).map("/".join)


@given(path=paths, phase=st.sampled_from(["build", "next-development", "publication"]))
def test_every_path_gets_a_key_and_a_short_one_is_found_again(path: str, phase: str) -> None:
    mid = material_id(phase, path, DIGEST)
    assert is_key(mid)
    assert mid.startswith(f"{phase}:") and mid.endswith("@" + DIGEST[7:23])
    back = material_path(mid)
    if back is None:  # only a path too long to write out is named by its digest
        assert mid.split(":", 1)[1].startswith("@")
    else:
        assert back == path


def test_plain_paths_read_as_themselves_and_odd_characters_are_escaped() -> None:
    assert material_id("build", "dist/widgets-1.2.0.tar.gz", DIGEST) == (
        "build:dist/widgets-1.2.0.tar.gz@" + DIGEST[7:23])
    odd = material_id("build", "out/My App:v1@x=2 é.dmg", DIGEST)
    assert odd == "build:out/My=20App=3Av1=40x=3D2=20=C3=A9.dmg@" + DIGEST[7:23]
    assert material_path(odd) == "out/My App:v1@x=2 é.dmg"


def test_a_long_path_is_named_by_its_digest() -> None:
    path = "target/" + "deep/" * 30 + "widgets.deb"
    mid = material_id("publication", path, DIGEST)
    assert is_key(mid) and len(mid) <= 128
    assert mid == ("publication:@" + hashlib.sha256(path.encode()).hexdigest()[:32] + "@"
                   + DIGEST[7:23])
    assert material_path(mid) is None


@pytest.mark.parametrize("bad", ["", "/etc/passwd", "a/../b", "a//b", "./a", "a\\b"])
def test_paths_that_are_not_workspace_relative_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        material_id("build", bad, DIGEST)


def test_ids_of_other_schemes_name_no_path() -> None:
    for mid in ("ckpt", "build:dist/a", "deploy:dist/a@0123456789abcdef",
                "build:dist/a=ZZ@0123456789abcdef", "readback:build@0123456789abcdef"):
        assert material_path(mid) is None


def _chain(w: World, *files: object, generation: int = 1) -> object:
    a = w.attempt(generation=generation)
    a.event("build", "started", writer=OTHER)
    state = w.journal().attempt(a.id)
    a.event("build", "succeeded", writer=OTHER, materials=[
        file_material(f, phase="build", attempt=state, url=URL) for f in files])  # type: ignore[arg-type]
    a.run(("publication", "started"), ("publication", "failed"))
    return a


def test_requalified_when_every_file_matches_byte_for_byte() -> None:
    w = World()
    tar, whl = observed("dist/a.tar.gz", b"a"), observed("dist/a.whl", b"b")
    a = _chain(w, tar, whl)
    tip = w.journal().attempt(a.id)  # type: ignore[attr-defined]
    extra = observed("dist/notes.txt", b"ignored")
    r = requalify(w.journal(), tip, "build", [tar, whl, extra])
    assert r.requalified and r.source == a.id  # type: ignore[attr-defined]
    assert [m.id for m in r.materials] == [material_id("build", f.path, f.digest)
                                           for f in (tar, whl)]
    assert not requalify(w.journal(), tip, "build", [tar]).requalified
    changed = requalify(w.journal(), tip, "build", [tar, observed("dist/a.whl", b"c")])
    assert not changed.requalified and "recorded 1 bytes" in changed.detail
    assert "no earlier attempt" in requalify(w.journal(), tip, "publication", [tar]).detail


def test_the_nearest_matching_predecessor_wins_and_other_generations_never_do() -> None:
    w = World()
    old, new = observed("dist/a.tar.gz", b"old"), observed("dist/a.tar.gz", b"new")
    first = _chain(w, old)
    second = w.attempt(predecessor=first)  # type: ignore[arg-type]
    second.event("build", "started", writer=OTHER)
    state = w.journal().attempt(second.id)
    second.event("build", "succeeded", writer=OTHER, materials=[
        file_material(new, phase="build", attempt=state, url=URL)])  # type: ignore[arg-type]
    second.run(("publication", "started"), ("publication", "failed"))
    tip = w.journal().attempt(second.id)
    assert requalify(w.journal(), tip, "build", [new]).source == second.id  # type: ignore[arg-type]
    assert requalify(w.journal(), tip, "build", [old]).source == first.id  # type: ignore[arg-type,attr-defined]
    # the same files, but the successor is of another generation: nothing qualifies
    other = requalify(w.journal(), tip, "build", [new], "sha256:" + "0" * 64)  # type: ignore[arg-type]
    assert not other.requalified


def test_a_phase_without_file_materials_always_runs_again() -> None:
    w = World()
    a = _chain(w)
    state = w.journal().attempt(a.id)  # type: ignore[attr-defined]
    r = requalify(w.journal(), state, "build", [])  # type: ignore[arg-type]
    assert not r.requalified and "no file material" in r.detail
    readback = readback_material("build", b"ok", attempt=state, url=URL)  # type: ignore[arg-type]
    assert readback.kind == "readback" and readback.id.startswith("readback:build@")
    assert is_key(readback.id)


def test_a_digest_named_file_is_requalified_when_the_step_finds_it_again() -> None:
    w = World()
    deep = observed("target/" + "deep/" * 30 + "app.deb", b"deb")
    a = _chain(w, deep)
    state = w.journal().attempt(a.id)  # type: ignore[attr-defined]
    assert requalify(w.journal(), state, "build", [deep]).requalified  # type: ignore[arg-type]
    moved = observed("target/app.deb", b"deb")
    assert not requalify(w.journal(), state, "build", [moved]).requalified  # type: ignore[arg-type]


TAR = observed("dist/widgets.tar.gz", b"tar")


def test_a_release_with_every_file_is_present() -> None:
    assets = [ReleaseAsset("widgets.tar.gz", TAR.bytes, TAR.digest), ReleaseAsset("x", 1)]
    check = compare_release("v1.2.0", assets, [TAR])
    assert check.outcome == "present"
    # no digest served: the size decides
    assert compare_release("v1.2.0", [ReleaseAsset("widgets.tar.gz", TAR.bytes)],
                           [TAR]).outcome == "present"


def test_no_release_is_absent_and_a_different_one_is_neither() -> None:
    assert compare_release("v1.2.0", None, [TAR]).outcome == "absent"
    assert compare_release("v1.2.0", [], [TAR]).outcome == "neither"
    assert compare_release("v1.2.0", [ReleaseAsset("widgets.tar.gz", 99)],
                           [TAR]).outcome == "neither"
    wrong = ReleaseAsset("widgets.tar.gz", TAR.bytes, "sha256:" + "0" * 64)
    check = compare_release("v1.2.0", [wrong], [TAR])
    assert check.outcome == "neither" and "widgets.tar.gz" in check.detail


def test_the_release_readback_is_canonical_whatever_the_order() -> None:
    one = [ReleaseAsset("b", 2), ReleaseAsset("a", 1, DIGEST)]
    assert compare_release("v1", one, []).readback == compare_release(
        "v1", list(reversed(one)), []).readback
    assert compare_release("v1", None, []).readback == b'{"release":null,"tag":"v1"}'
