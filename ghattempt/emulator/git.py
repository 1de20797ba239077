"""Git object ids computed the way git computes them (SHA-1 object format).

A commit made through the emulator has the same oid git would give it, so a client
may recompute it. Source: git's object format (``git hash-object``), ``git-cat-file``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def object_id(kind: str, body: bytes) -> str:
    """``sha1("<kind> <len>\\0" + body)`` in lowercase hex."""
    header = f"{kind} {len(body)}\0".encode("ascii")
    return hashlib.sha1(header + body, usedforsecurity=False).hexdigest()


def blob_id(content: bytes) -> str:
    return object_id("blob", content)


def tree_entries(files: Mapping[str, bytes]) -> dict[str, tuple[str, bytes]]:
    """All trees of a set of files: ``{dir path: (tree oid, tree body)}``; ``""`` is root.

    Raises:
        ValueError: a path is empty, absolute, has empty or ``.``/``..`` parts, or a
            file and a directory share a path.
    """
    dirs: dict[str, dict[str, tuple[str, str]]] = {"": {}}
    for path in files:
        parts = path.split("/")
        if not path or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"invalid file path {path!r}")
        for depth in range(1, len(parts)):
            dirs.setdefault("/".join(parts[:depth]), {})
    for path, content in files.items():
        parent, _, name = path.rpartition("/")
        if path in dirs:
            raise ValueError(f"{path!r} is both a file and a directory")
        dirs[parent][name] = ("100644", blob_id(content))
    out: dict[str, tuple[str, bytes]] = {}
    for d in sorted(dirs, key=lambda p: -p.count("/") - (1 if p else 0)):
        entries = dirs[d]
        for sub in dirs:
            if sub and sub.rpartition("/")[0] == d:
                entries[sub.rpartition("/")[2]] = ("40000", out[sub][0])

        def sort_key(name: str, entries: dict[str, tuple[str, str]] = entries) -> bytes:
            mode = entries[name][0]
            return (name + ("/" if mode == "40000" else "")).encode("utf-8")

        body = b"".join(
            entries[n][0].encode("ascii")
            + b" "
            + n.encode("utf-8")
            + b"\0"
            + bytes.fromhex(entries[n][1])
            for n in sorted(entries, key=sort_key)
        )
        out[d] = (object_id("tree", body), body)
    return out


def tree_id(files: Mapping[str, bytes]) -> str:
    """The root tree oid of a set of files (``EMPTY_TREE`` for none)."""
    return tree_entries(files)[""][0]


def commit_body(
    tree: str,
    parents: list[str],
    message: str,
    author: tuple[str, str, int],
    committer: tuple[str, str, int],
) -> bytes:
    """The commit object body; ``author``/``committer`` are (name, email, epoch s)."""
    lines = [f"tree {tree}"]
    lines += [f"parent {p}" for p in parents]
    lines.append(f"author {author[0]} <{author[1]}> {author[2]} +0000")
    lines.append(f"committer {committer[0]} <{committer[1]}> {committer[2]} +0000")
    return ("\n".join(lines) + "\n\n" + message).encode("utf-8")


def commit_id(
    tree: str,
    parents: list[str],
    message: str,
    author: tuple[str, str, int],
    committer: tuple[str, str, int],
) -> str:
    return object_id("commit", commit_body(tree, parents, message, author, committer))
