"""What one request and its answer are, as every part of the emulator handles them."""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .faults import FaultRule
from .state import iso


@dataclass(frozen=True, slots=True)
class Reply:
    """An HTTP response, or ``drop`` (close the connection without answering)."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes
    drop: bool = False

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class LogEntry:
    """One request as the emulator saw it (for tests and benchmarks)."""

    at: float
    method: str
    path: str
    operation: str | None
    kind: str
    root_fields: tuple[str, ...]
    cost: int
    status: int
    actor: str | None
    faults: tuple[str, ...] = ()
    duration_ms: float = 0.0
    secondary_limited: bool = False
    """Answered with a secondary limit (a 403 or 429, or a 200, carrying ``retry-after``)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "at": iso(self.at),
            "method": self.method,
            "path": self.path,
            "operation": self.operation,
            "kind": self.kind,
            "root_fields": list(self.root_fields),
            "cost": self.cost,
            "status": self.status,
            "actor": self.actor,
            "faults": list(self.faults),
            "duration_ms": round(self.duration_ms, 3),
            "secondary_limited": self.secondary_limited,
        }


@dataclass
class Request:
    """One HTTP request while the emulator answers it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    started: float
    request_id: str
    query: str = ""
    token: Any = None
    viewer: Any = None
    faults: list[FaultRule] = field(default_factory=list)
    refs_changed: list[tuple[int, str, str]] = field(default_factory=list)
    """Refs the request created or deleted (repository id, name, ``create``/``delete``):
    GitHub sends ``create`` and ``delete`` webhook events for them."""


T = TypeVar("T")


def paged(query: str, items: list[T]) -> list[T]:
    """One page of ``items`` as GitHub's REST pages lists: ``per_page`` (default 30, at
    most 100) and ``page`` (from 1) in the query string; malformed values: the first
    page of 30."""
    params = urllib.parse.parse_qs(query)
    try:
        per_page = min(100, max(1, int(params.get("per_page", ["30"])[0])))
        page = max(1, int(params.get("page", ["1"])[0]))
    except ValueError:
        per_page, page = 30, 1
    return items[(page - 1) * per_page: page * per_page]


def json_object(body: bytes) -> dict[str, Any] | None:
    """A request body that is a JSON object, or None (GitHub answers 400 "Problems
    parsing JSON" then)."""
    try:
        data = json.loads(body or b"null")
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None
