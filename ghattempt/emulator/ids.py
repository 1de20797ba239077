"""Global node ids and connection cursors in GitHub's formats.

GitHub's "next" node id format is ``<PREFIX>_<base64url(msgpack(payload))>`` without
padding: a repository is ``R_`` + msgpack ``[0, repository databaseId]`` (``kgDO`` is
``0x92 0x00 0xce``: a two-item array, template 0, a uint32), and objects scoped to a
repository carry ``[0, repository databaseId, databaseId]`` (``kwDO``). Source:
GitHub docs, "Migrating GraphQL global node IDs". Clients must treat ids as opaque;
the emulator decodes its own ids to find rows.

Objects created before the migration also have a *legacy* id, ``base64("0" + len(type)
+ ":" + type + databaseId)`` (a repository: ``MDEwOlJlcG9zaXRvcnkxMjk2MjY5`` is
``010:Repository1296269``); GitHub answers it for such objects unless the request carries
``X-Github-Next-Global-ID: 1``, and accepts either form as input (same page).

Cursors look like GitHub's: ``base64("cursor:v2:" + msgpack(position))``.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass

# GraphQL type -> node id prefix (GitHub's, where known).
PREFIX = {
    "Repository": "R",
    "Discussion": "D",
    "DiscussionComment": "DC",
    "DiscussionCategory": "DIC",
    "User": "U",
    "Bot": "BOT",
    "Organization": "O",
    "PullRequest": "PR",
    "Commit": "C",
    "Tree": "TR",
    "Ref": "REF",
    "BranchProtectionRule": "BPR",
    "WorkflowRun": "WFR",
    "CheckRun": "CR",
    "Release": "RE",
    "ReleaseAsset": "RA",
}
TYPE_OF_PREFIX = {v: k for k, v in PREFIX.items()}

Scalar = int | str | bytes


def _pack(value: Scalar) -> bytes:
    if isinstance(value, bool):  # pragma: no cover - not used
        raise TypeError("booleans are not packed")
    if isinstance(value, int):
        if 0 <= value < 0x80:
            return bytes([value])
        if 0 <= value <= 0xFF:
            return b"\xcc" + bytes([value])
        if 0 <= value <= 0xFFFF:
            return b"\xcd" + struct.pack(">H", value)
        if 0 <= value <= 0xFFFFFFFF:
            return b"\xce" + struct.pack(">I", value)
        if 0 <= value:
            return b"\xcf" + struct.pack(">Q", value)
        raise ValueError("negative ids are not used")
    if isinstance(value, str):
        raw = value.encode("utf-8")
        if len(raw) < 32:
            return bytes([0xA0 | len(raw)]) + raw
        if len(raw) <= 0xFF:
            return b"\xd9" + bytes([len(raw)]) + raw
        return b"\xda" + struct.pack(">H", len(raw)) + raw
    if len(value) > 0xFF:
        raise ValueError("binary payload too long")
    return b"\xc4" + bytes([len(value)]) + value


def pack_array(items: tuple[Scalar, ...]) -> bytes:
    """msgpack encoding of a short array of non-negative ints, str and bytes."""
    if len(items) > 15:
        raise ValueError("array too long")
    return bytes([0x90 | len(items)]) + b"".join(_pack(i) for i in items)


def unpack_array(raw: bytes) -> tuple[Scalar, ...]:
    """Inverse of :func:`pack_array`. Raises ValueError on anything else."""
    if not raw or raw[0] & 0xF0 != 0x90:
        raise ValueError("not a msgpack fixarray")
    count = raw[0] & 0x0F
    pos = 1
    out: list[Scalar] = []
    for _ in range(count):
        if pos >= len(raw):
            raise ValueError("truncated")
        tag = raw[pos]
        pos += 1
        if tag < 0x80:
            out.append(tag)
        elif tag in (0xCC, 0xCD, 0xCE, 0xCF):
            size = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}[tag]
            if pos + size > len(raw):
                raise ValueError("truncated")
            out.append(int.from_bytes(raw[pos : pos + size], "big"))
            pos += size
        elif tag & 0xE0 == 0xA0 or tag in (0xD9, 0xDA):
            if tag & 0xE0 == 0xA0:
                size = tag & 0x1F
            elif tag == 0xD9:
                size = raw[pos]
                pos += 1
            else:
                size = int.from_bytes(raw[pos : pos + 2], "big")
                pos += 2
            if pos + size > len(raw):
                raise ValueError("truncated")
            out.append(raw[pos : pos + size].decode("utf-8"))
            pos += size
        elif tag == 0xC4:
            size = raw[pos]
            pos += 1
            if pos + size > len(raw):
                raise ValueError("truncated")
            out.append(raw[pos : pos + size])
            pos += size
        else:
            raise ValueError(f"unsupported msgpack tag {tag:#x}")
    if pos != len(raw):
        raise ValueError("trailing bytes")
    return tuple(out)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def node_id(typename: str, *payload: Scalar) -> str:
    """The node id of a ``typename`` object; ``payload`` follows template 0."""
    return f"{PREFIX[typename]}_{_b64(pack_array((0, *payload)))}"


@dataclass(frozen=True, slots=True)
class DecodedId:
    """A node id taken apart: its GraphQL type and payload (after the template)."""

    typename: str
    payload: tuple[Scalar, ...]


LEGACY_TYPES = ("Repository", "User", "Bot", "Organization")
"""The types the emulator mints legacy ids for (payload: the databaseId alone)."""


def legacy_node_id(typename: str, database_id: int) -> str:
    """The legacy (pre-migration) node id of an object, e.g. ``MDQ6VXNlcjM0MDczMDM=``."""
    text = f"0{len(typename)}:{typename}{database_id}"
    return base64.b64encode(text.encode("ascii")).decode("ascii")


def _decode_legacy(value: str) -> DecodedId | None:
    try:
        text = base64.b64decode(value.encode("ascii"), validate=True).decode("ascii")
    except (ValueError, UnicodeError):
        return None
    head, sep, rest = text.partition(":")
    for typename in LEGACY_TYPES:
        digits = rest[len(typename):]
        if (sep and head == f"0{len(typename)}" and rest.startswith(typename)
                and digits.isdigit() and legacy_node_id(typename, int(digits)) == value):
            return DecodedId(typename, (int(digits),))
    return None


def decode_node_id(value: str) -> DecodedId | None:
    """Decode an id made by :func:`node_id` or :func:`legacy_node_id`; None for anything
    else (never raises)."""
    if "_" not in value:
        return _decode_legacy(value)
    prefix, sep, rest = value.partition("_")
    if not sep or prefix not in TYPE_OF_PREFIX or not rest:
        return None
    try:
        items = unpack_array(_unb64(rest))
    except (ValueError, UnicodeDecodeError):
        return None
    if not items or items[0] != 0 or node_id(TYPE_OF_PREFIX[prefix], *items[1:]) != value:
        return None
    return DecodedId(TYPE_OF_PREFIX[prefix], items[1:])


def cursor(position: int) -> str:
    """An opaque connection cursor for a row position (GitHub's ``cursor:v2:`` shape)."""
    return base64.b64encode(b"cursor:v2:" + pack_array((position,))).decode("ascii")


def decode_cursor(value: str) -> int | None:
    """The position in a cursor made by :func:`cursor`; None when it is not one."""
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        return None
    if not raw.startswith(b"cursor:v2:"):
        return None
    try:
        items = unpack_array(raw[len(b"cursor:v2:") :])
    except ValueError:
        return None
    if len(items) != 1 or not isinstance(items[0], int):
        return None
    return items[0]
