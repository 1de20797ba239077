"""Where the committed reader bundle lives, and its digest.

Writers put ``reader_digest()`` into each record's ``reader`` field: the digest of the
reader bundle (``readers/business-attempt.pyz``) that judges what they write. The bundle
and its ``.sha256`` file ship inside the wheel (as ``ghattempt/_bundle``) and are found
next to the sources in a checkout.
"""

from __future__ import annotations

import re
from pathlib import Path

BUNDLE_NAME = "business-attempt.pyz"
_HERE = Path(__file__).resolve().parent
_PLACES = (_HERE / "_bundle", _HERE.parent / "readers")
_LINE = re.compile(r"([0-9a-f]{64})  business-attempt\.pyz\n?")


def bundle_dir() -> Path:
    """The folder holding the bundle and its ``.sha256`` file.

    Raises:
        FileNotFoundError: neither the installed copy nor a checkout's ``readers/``
            holds ``business-attempt.pyz.sha256`` (rebuild with ``scripts/build-reader``).
    """
    for place in _PLACES:
        if (place / (BUNDLE_NAME + ".sha256")).is_file():
            return place
    raise FileNotFoundError(f"{BUNDLE_NAME}.sha256 is in none of {[str(p) for p in _PLACES]}; "
                            "run scripts/build-reader")


def bundle_path() -> Path:
    """Path of the reader bundle (run it with ``python3 <path> --help``)."""
    return bundle_dir() / BUNDLE_NAME


def reader_digest() -> str:
    """``"sha256:"`` + hex digest of the committed reader bundle, from its ``.sha256`` file.

    Raises:
        FileNotFoundError: see ``bundle_dir``.
        ValueError: the ``.sha256`` file is not one ``sha256sum`` line for the bundle.
    """
    text = (bundle_dir() / (BUNDLE_NAME + ".sha256")).read_text(encoding="ascii")
    match = _LINE.fullmatch(text)
    if match is None:
        raise ValueError(f"{BUNDLE_NAME}.sha256 is not '<64 hex>  {BUNDLE_NAME}'")
    return "sha256:" + match.group(1)
