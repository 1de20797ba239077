"""Materials of a ``run`` step: how a file is named in the journal, how a successor
re-qualifies retained material by its bytes, and the built-in ``github-release``
read-back (docs/run.md, "Materials and re-qualification"). Pure: no I/O, stdlib only.

The material id scheme
----------------------
A file a phase produced is recorded as a material (docs/journal-format.md section 4)
whose ``id`` is a *key* (``[A-Za-z0-9._:/@+=-]{1,128}``) that names the phase, the
file's path in the workspace and the first 16 hex digits of its content's SHA-256::

    <phase>:<escaped path>@<16 hex digits of the content digest>
    build:dist/widgets-1.2.0.tar.gz@9f86d081884c7d65

The path is the workspace-relative POSIX path; every UTF-8 byte outside
``[A-Za-z0-9._/+-]`` is written ``=XX`` (two upper-case hex digits), so ``:``, ``@``
and ``=`` never stand for themselves and the path is read back exactly
(``material_path``). The content suffix is there because section 4 fixes one id to one
byte count and digest across the whole journal: a phase run again in a successor
(a rebuild whose bytes differ) gets a new id instead of a ``material_conflict``.
When the escaped form would pass 128 characters the path part is ``@`` and the first
32 hex digits of the SHA-256 of the path (UTF-8): such a file cannot be found again
from its id alone; it is re-qualified only when the step's own ``materials`` globs
bring it (the id is computed again from the file found and compared).

A verify's stdout kept as a ``readback`` material is named
``readback:<phase>@<16 hex digits>`` (``readback`` is no phase, so no file id is one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from hashlib import sha256

from ._c14n import canonical_text
from ._journal import AttemptState, JournalState
from ._records import Attempt, Material, is_digest, is_key
from ._rules import PHASES
from ._value import value

_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/+-")
_HEX = frozenset("0123456789ABCDEF")
_KEY_MAX = 128
READBACK_PREFIX = "readback:"
"""The start of a readback material's id (``readback:<phase>@<hex>``)."""


@value
class ObservedFile:
    """A file found in the workspace now: its workspace-relative POSIX ``path``, its
    byte count and its ``sha256:`` digest."""

    path: str
    bytes: int
    digest: str


def workspace_path_problem(path: str) -> str | None:
    """Why ``path`` is not a workspace-relative POSIX path, or None when it is one: not
    empty, no leading ``/``, no ``\\``, no empty, ``.`` or ``..`` component, no NUL."""
    if not path:
        return "the path is empty"
    if path.startswith("/"):
        return f"{path[:80]!r} is absolute; give a path relative to the workspace"
    if "\\" in path or "\x00" in path:
        return f"{path[:80]!r} holds a backslash or NUL; use / between components"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return f"{path[:80]!r} has an empty, '.' or '..' component"
    return None


def _escape(path: str) -> str:
    out = []
    for byte in path.encode("utf-8", "surrogatepass"):
        out.append(chr(byte) if byte in _SAFE else f"={byte:02X}")
    return "".join(out)


def _unescape(text: str) -> str | None:
    raw = bytearray()
    i = 0
    while i < len(text):
        char = text[i]
        if char == "=":
            pair = text[i + 1:i + 3]
            if len(pair) != 2 or not set(pair) <= _HEX:
                return None
            raw.append(int(pair, 16))
            i += 3
        elif ord(char) < 128 and ord(char) in _SAFE:
            raw.append(ord(char))
            i += 1
        else:
            return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _hex16(digest: str) -> str:
    if not is_digest(digest):
        raise ValueError(f"{digest[:80]!r} is not a sha256: digest")
    return digest[7:23]


def material_id(phase: str, path: str, digest: str) -> str:
    """The material id of the file at ``path`` with content ``digest``, produced by
    ``phase`` (see the module docstring).

    Raises:
        ValueError: ``phase`` is not a phase, ``path`` is not a workspace-relative POSIX
            path (``workspace_path_problem``), or ``digest`` is not a ``sha256:`` digest.
    """
    if phase not in PHASES:
        raise ValueError(f"{phase!r} is not a phase")
    problem = workspace_path_problem(path)
    if problem is not None:
        raise ValueError(problem)
    suffix = _hex16(digest)
    named = f"{phase}:{_escape(path)}@{suffix}"
    if len(named) <= _KEY_MAX:
        return named
    hashed = sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{phase}:@{hashed}@{suffix}"


def material_path(material: Material | str) -> str | None:
    """The workspace path a file material's id names, or None when the id names none
    (a digest-named long path, a readback, or an id of another scheme)."""
    mid = material if isinstance(material, str) else material.id
    phase, sep, rest = mid.partition(":")
    if not sep or phase not in PHASES:
        return None
    named, at, suffix = rest.rpartition("@")
    if not at or len(suffix) != 16 or not named or named.startswith("@"):
        return None
    path = _unescape(named)
    if path is None or workspace_path_problem(path) is not None or _escape(path) != named:
        return None
    return path


def material_phase(material: Material | str) -> str | None:
    """The phase a file material's id names (the scheme above), or None."""
    mid = material if isinstance(material, str) else material.id
    phase, sep, _ = mid.partition(":")
    return phase if sep and phase in PHASES else None


def file_material(observed: ObservedFile, *, phase: str, attempt: Attempt | AttemptState,
                  url: str) -> Material:
    """The ``artifact`` material recording ``observed`` as produced by ``attempt`` in
    ``phase``; ``url`` is the permanent place its bytes are kept (section 4, material).

    Raises:
        ValueError: as ``material_id``.
    """
    record = attempt.attempt if isinstance(attempt, AttemptState) else attempt
    return Material(material_id(phase, observed.path, observed.digest), "artifact",
                    observed.bytes, observed.digest, record.digest, record.generation_id, url)


def readback_material(phase: str, content: bytes, *, attempt: Attempt | AttemptState,
                      url: str) -> Material:
    """The ``readback`` material of a verify's stdout ``content`` for ``phase``."""
    record = attempt.attempt if isinstance(attempt, AttemptState) else attempt
    digest = "sha256:" + sha256(content).hexdigest()
    mid = f"{READBACK_PREFIX}{phase}@{digest[7:23]}"
    assert is_key(mid)
    return Material(mid, "readback", len(content), digest, record.digest,
                    record.generation_id, url)


# ------------------------------------------------------------------ re-qualification


@value
class Requalification:
    """Whether ``phase`` is re-qualified in a successor from retained material.

    ``requalified``: every file material of a ``succeeded`` record of ``phase`` in a
    predecessor of the same generation (``source``) is in the workspace with exactly
    the recorded bytes and digest; ``materials`` are those materials as recorded (the
    successor's ``succeeded`` cites them as they are: their ``attempt`` is the
    predecessor, which section 4 allows). Otherwise the phase must run, and ``detail``
    says why (no predecessor success, no materials, a file missing or different).
    """

    phase: str
    requalified: bool
    materials: tuple[Material, ...]
    source: str | None
    detail: str


def same_generation_chain(journal: JournalState, attempt: AttemptState,
                          generation_id: str) -> tuple[AttemptState, ...]:
    """The predecessors of ``attempt`` (nearest first, ``attempt`` itself excluded) whose
    generation is ``generation_id``: the attempts whose retained material a successor of
    that generation may re-qualify. Material of another generation never qualifies
    (another source, configuration or base built it)."""
    found: list[AttemptState] = []
    seen = {attempt.id}
    current = attempt.predecessor
    while current is not None and current not in seen:
        seen.add(current)
        state = journal.attempt(current)
        if state is None:
            break
        if state.generation_id == generation_id:
            found.append(state)
        current = state.predecessor
    return tuple(found)


def _succeeded_materials(state: AttemptState, phase: str) -> tuple[Material, ...] | None:
    """The materials of ``phase``'s ``succeeded`` record in ``state``, None without one."""
    if state.last.get(phase, ("",))[0] != "succeeded":
        return None
    for event in reversed(state.events):
        if event.phase == phase and event.status == "succeeded":
            return event.materials
    return None


def wanted_paths(journal: JournalState, attempt: AttemptState, generation_id: str,
                 phases: Iterable[str]) -> tuple[str, ...]:
    """The workspace paths whose bytes re-qualifying ``phases`` compares (in a successor
    of ``attempt``'s chain, or in ``attempt`` itself when it is one), in order, once."""
    chain = (attempt, *same_generation_chain(journal, attempt, generation_id))
    paths: dict[str, None] = {}
    for phase in phases:
        for state in chain:
            if state.generation_id != generation_id:
                continue
            for m in _succeeded_materials(state, phase) or ():
                path = material_path(m) if m.kind != "readback" else None
                if path is not None:
                    paths.setdefault(path)
    return tuple(paths)


def _match(materials: Sequence[Material], phase: str,
           observed: Mapping[str, ObservedFile]) -> str | None:
    """Why ``materials`` are not all in the workspace exactly, or None when they are."""
    files = [m for m in materials if m.kind != "readback"]
    if not files:
        return "its success records no file material"
    by_id: dict[str, ObservedFile] | None = None
    for m in files:
        path = material_path(m)
        found = observed.get(path) if path is not None else None
        if found is None and path is None:
            if by_id is None:
                by_id = {}
                for f in observed.values():
                    try:
                        by_id[material_id(phase, f.path, f.digest)] = f
                    except ValueError:
                        continue
            found = by_id.get(m.id)
        if found is None:
            where = path if path is not None else m.id
            return f"{where} is not in the workspace"
        if found.bytes != m.bytes or found.digest != m.digest:
            return (f"{found.path} has {found.bytes} bytes {found.digest[:19]}…, "
                    f"recorded {m.bytes} bytes {m.digest[:19]}…")
    return None


def requalify(journal: JournalState, attempt: AttemptState, phase: str,
              observed: Iterable[ObservedFile] | Mapping[str, ObservedFile],
              generation_id: str | None = None) -> Requalification:
    """Whether ``phase`` is re-qualified for ``attempt``'s successor (or for ``attempt``
    itself when it is the successor) from the files ``observed`` in the workspace.

    The predecessors of the same generation are tried nearest first; the first whose
    ``succeeded`` record of ``phase`` has file materials that all match byte for byte
    (count and digest) re-qualifies it. A phase whose success recorded no file
    material (only a readback, or nothing) always runs again; so does one with no
    ``succeeded`` record in the chain. ``attempt`` itself counts when it is not the
    successor being filled (its own record of ``phase``, e.g. the failed tip's).
    """
    gen = attempt.generation_id if generation_id is None else generation_id
    files = dict(observed) if isinstance(observed, Mapping) else {f.path: f for f in observed}
    chain = (attempt, *same_generation_chain(journal, attempt, gen))
    first_problem: str | None = None
    for state in chain:
        if state.generation_id != gen:
            continue
        materials = _succeeded_materials(state, phase)
        if materials is None:
            continue
        problem = _match(materials, phase, files)
        if problem is None:
            return Requalification(phase, True, materials, state.id,
                                   f"{phase} re-qualified from attempt {state.id[7:19]}: "
                                   f"{len(materials)} material(s) match byte for byte")
        if first_problem is None:
            first_problem = f"{phase} of attempt {state.id[7:19]}: {problem}"
    if first_problem is None:
        first_problem = f"no earlier attempt of this generation has {phase} succeeded"
    return Requalification(phase, False, (), None, f"{phase} must run again: {first_problem}")


# ----------------------------------------------------------------- github-release


PRESENT = "present"
ABSENT = "absent"
NEITHER = "neither"
VERIFY_OUTCOMES = (PRESENT, ABSENT, NEITHER)
"""What a verify says: the effect is in place, proven absent, or neither."""


@value
class ReleaseAsset:
    """One asset of a GitHub release as the REST API serves it: ``name``, ``size`` in
    bytes, and ``digest`` (``sha256:…``) where GitHub serves one, else None."""

    name: str
    size: int
    digest: str | None = None


@value
class ReleaseCheck:
    """The built-in ``github-release:TAG`` verify's verdict: ``outcome`` is one of
    ``VERIFY_OUTCOMES``; ``detail`` says what was compared; ``readback`` is the
    canonical bytes of what was read (kept as the ``readback`` material)."""

    outcome: str
    detail: str
    readback: bytes


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def compare_release(tag: str, assets: Sequence[ReleaseAsset] | None,
                    expected: Sequence[ObservedFile | Material]) -> ReleaseCheck:
    """Compare a release read back with the files the phase was to publish.

    ``assets`` is None when GitHub has no release for ``tag`` (404): ``absent``.
    A release holding, for every expected file, an asset of the same name (the file's
    base name) and size, and of the same digest where the asset has one: ``present``.
    A release that lacks one of them or differs in size or digest: ``neither`` (the
    release exists, but not as this phase makes it: a person must look). A file
    material whose id names no path (``material_path``) is matched by digest among the
    assets that have one; with none to match, it counts as lacking.
    """
    listed = sorted(assets or (), key=lambda a: (a.name, a.size, a.digest or ""))
    readback = canonical_text({"tag": tag, "release": None if assets is None else [
        {"name": a.name, "size": a.size, "digest": a.digest} for a in listed]}).encode()
    if assets is None:
        return ReleaseCheck(ABSENT, f"no release for tag {tag}", readback)
    by_name = {a.name: a for a in listed}
    by_digest = {a.digest: a for a in listed if a.digest is not None}
    compared = 0
    for item in expected:
        if isinstance(item, Material):
            if item.kind == "readback":
                continue
            path = material_path(item)
            size, dg = item.bytes, item.digest
        else:
            path, size, dg = item.path, item.bytes, item.digest
        asset = by_name.get(_basename(path)) if path is not None else by_digest.get(dg)
        name = _basename(path) if path is not None else dg[:19] + "…"
        if asset is None:
            return ReleaseCheck(NEITHER, f"release {tag} exists but has no asset {name}",
                                readback)
        if asset.size != size or (asset.digest is not None and asset.digest != dg):
            return ReleaseCheck(NEITHER, f"release {tag} asset {asset.name} has "
                                f"{asset.size} bytes {asset.digest or 'without a digest'}; "
                                f"the phase's file has {size} bytes {dg}", readback)
        compared += 1
    return ReleaseCheck(PRESENT, f"release {tag} holds the {compared} expected asset(s)",
                        readback)


# Public as ghattempt.core (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
for _exported in (
    ObservedFile, Requalification, ReleaseAsset, ReleaseCheck, compare_release,
    file_material, material_id, material_path, readback_material, requalify,
    workspace_path_problem,
):
    _exported.__module__ = "ghattempt.core"
del _exported
