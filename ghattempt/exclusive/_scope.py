"""The writer scope and the lease record stored in the lease ref's target commit message."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from ._errors import LeaseCorrupt

__all__ = [
    "DEFAULT_REF_PREFIX",
    "LEASE_HEADLINE",
    "LeaseRecord",
    "LeaseState",
    "Scope",
    "format_time",
    "parse_time",
]

#: Where lease refs live. A branch, because GitHub's ``createCommitOnBranch`` (one request
#: that writes the new lease commit and moves the ref with compare-and-set) only takes
#: branches.
DEFAULT_REF_PREFIX = "refs/heads/ghattempt/lease/"

#: First line of every lease commit message. ``[skip ci]`` keeps GitHub Actions from
#: starting push workflows for lease commits (GitHub docs, "Skipping workflow runs").
LEASE_HEADLINE = "ghattempt lease [skip ci]"

# The lease layer sits beside the journal core and imports none of it (test_public_api):
# the intent id shape (a ``sha256:`` digest, journal-v1 section 3) is checked here too.
_INTENT_ID = re.compile(r"sha256:[0-9a-f]{64}")
_NODE_ID = re.compile(r"[A-Za-z0-9_=+/-]{1,256}")
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
_MAX_TOKEN = 2**53 - 1  # journal-v1 section 3: integers stay within +-(2^53-1)
_HOLDER_MAX = 256

LeaseState = Literal["held", "released"]


def _canonical(obj: Any) -> str:
    # journal-v1 section 3 (c14n v1): sorted keys, no whitespace, UTF-8.
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def format_time(epoch_seconds: int) -> str:
    """Epoch seconds -> ``YYYY-MM-DDTHH:MM:SSZ`` (the journal-v1 *time* shape, UTC)."""
    moment = _dt.datetime.fromtimestamp(epoch_seconds, tz=_dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> int:
    """``YYYY-MM-DDTHH:MM:SSZ`` -> epoch seconds.

    Raises:
        ValueError: the text is not exactly that shape or not a real date.
    """
    if not _TIME.fullmatch(text):
        raise ValueError(f"not a UTC time of the form YYYY-MM-DDTHH:MM:SSZ: {text!r}")
    moment = _dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.UTC)
    return int(moment.timestamp())


@dataclass(frozen=True, slots=True)
class Scope:
    """One writer scope: a repository (GraphQL node id) and an intent (its digest).

    Attributes:
        repository_id: the repository's GraphQL node id, opaque (``R_kgDO…`` or legacy
            base64); never its name, which changes on rename (journal-v1 section 1).
        intent_id: the intent record's digest, ``sha256:`` + 64 lowercase hex
            (journal-v1 section 4, "The intent id is its digest").

    Raises:
        ValueError: either part is malformed (wrong shape, empty, too long).
    """

    repository_id: str
    intent_id: str

    def __post_init__(self) -> None:
        if not isinstance(self.repository_id, str) or not _NODE_ID.fullmatch(
            self.repository_id
        ):
            raise ValueError(
                "Scope.repository_id must be the repository's GraphQL node id "
                f"(1..256 characters of [A-Za-z0-9_=+/-]), got {self.repository_id!r}"
            )
        if not isinstance(self.intent_id, str) or not _INTENT_ID.fullmatch(self.intent_id):
            raise ValueError(
                "Scope.intent_id must be the intent digest 'sha256:' + 64 lowercase hex "
                f"(journal-v1 section 4), got {self.intent_id!r}"
            )

    def to_json(self) -> dict[str, str]:
        """The scope as it appears inside a lease record: ``{"intent", "repository"}``."""
        return {"intent": self.intent_id, "repository": self.repository_id}

    @property
    def key(self) -> str:
        """40 lowercase hex: the first 160 bits of SHA-256 over the scope's canonical JSON.

        Hashing the canonical JSON (not a concatenation) keeps distinct scopes distinct.
        """
        digest = hashlib.sha256(_canonical(self.to_json()).encode("utf-8")).hexdigest()
        return digest[:40]

    def ref_name(self, prefix: str = DEFAULT_REF_PREFIX) -> str:
        """The fully qualified lease ref, e.g. ``refs/heads/ghattempt/lease/<40 hex>``."""
        return prefix + self.key


@dataclass(frozen=True, slots=True)
class LeaseRecord:
    """The lease as written in the lease ref's target commit message.

    Message layout: the line :data:`LEASE_HEADLINE`, an empty line, then one line of
    canonical JSON ``{"expires_at","holder","scope","state","token","type":"lease","v":1}``.

    Attributes:
        scope: the scope the lease is for (checked against the ref on read).
        holder: the holder id, unique per acquisition (label + random nonce).
        token: the fencing token, >= 1, strictly increasing across holders of the scope.
        expires_at: epoch seconds by GitHub's clock. ``held``: contenders may take over
            once GitHub's ``Date`` reaches it. ``released``: the holder is done, but its
            last mutation may still be in flight until this moment; contenders wait for it
            too ("quiet until").
        state: ``"held"`` or ``"released"``.
    """

    scope: Scope
    holder: str
    token: int
    expires_at: int
    state: LeaseState

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-ready dict (the message body before serialisation)."""
        return {
            "expires_at": format_time(self.expires_at),
            "holder": self.holder,
            "scope": self.scope.to_json(),
            "state": self.state,
            "token": self.token,
            "type": "lease",
            "v": 1,
        }

    def to_message(self) -> str:
        """The full commit message (headline, empty line, canonical JSON, newline)."""
        return f"{LEASE_HEADLINE}\n\n{_canonical(self.to_json())}\n"

    @classmethod
    def from_message(cls, message: str, *, ref: str, scope: Scope) -> LeaseRecord:
        """Parse a lease commit message read from ``ref`` and check it belongs to ``scope``.

        Raises:
            LeaseCorrupt: the message is not a lease record of exactly this shape, or it
                names another scope (fail closed: nobody can prove ownership).
        """
        text = message.replace("\r\n", "\n")
        headline, sep, body = text.partition("\n\n")
        if not sep or headline.strip() != LEASE_HEADLINE:
            raise LeaseCorrupt(ref=ref, detail="target commit is not a lease commit")
        try:
            obj = json.loads(body.strip())
        except ValueError:
            raise LeaseCorrupt(ref=ref, detail="lease body is not JSON") from None
        try:
            record = cls._from_json(obj)
        except (KeyError, TypeError, ValueError) as exc:
            raise LeaseCorrupt(ref=ref, detail=f"lease body has a bad shape ({exc})") from None
        if record.scope != scope:
            raise LeaseCorrupt(
                ref=ref,
                detail=f"lease is for another scope ({record.scope.repository_id}, "
                f"{record.scope.intent_id})",
            )
        return record

    @classmethod
    def _from_json(cls, obj: Any) -> LeaseRecord:
        if not isinstance(obj, dict):
            raise TypeError("not an object")
        expected = {"expires_at", "holder", "scope", "state", "token", "type", "v"}
        if set(obj) != expected:
            raise KeyError(f"keys {sorted(obj)} differ from {sorted(expected)}")
        if obj["v"] != 1 or isinstance(obj["v"], bool) or obj["type"] != "lease":
            raise ValueError("v must be 1 and type 'lease'")
        holder, token, state, scope = obj["holder"], obj["token"], obj["state"], obj["scope"]
        if not isinstance(holder, str) or not 1 <= len(holder) <= _HOLDER_MAX:
            raise ValueError("holder must be a string of 1..256 characters")
        if isinstance(token, bool) or not isinstance(token, int) or not 1 <= token <= _MAX_TOKEN:
            raise ValueError("token must be an integer in 1..2^53-1")
        if state not in ("held", "released"):
            raise ValueError("state must be 'held' or 'released'")
        if not isinstance(scope, dict) or set(scope) != {"intent", "repository"}:
            raise ValueError("scope must be {intent, repository}")
        if not isinstance(obj["expires_at"], str):
            raise TypeError("expires_at must be a string")
        return cls(
            scope=Scope(repository_id=scope["repository"], intent_id=scope["intent"]),
            holder=holder,
            token=token,
            expires_at=parse_time(obj["expires_at"]),
            state=state,
        )
