"""Fault rules: what the emulator does wrong on purpose, and when.

A rule matches a request by ``operation`` (a GraphQL operation name, a root field
name such as ``addDiscussionComment``, ``query``/``mutation``, or a REST operation
name such as ``git/create-commit``; None matches every request). Among the requests
it matches, it fires when all hold:

- ``nth`` is None, or this is the nth matching request or a later one;
- ``count`` is None, or it has fired fewer than ``count`` times;
- a draw from ``random.Random(seed)`` is below ``probability``.

Kinds (``kind``), grounded in GitHub behaviour listed with its sources in docs/emulator.md:

``lose_response``  the request runs and commits; the client then gets ``status``
                   (502 or 504, GitHub's bodies; 200: GraphQL's ``type: INTERNAL``
                   "Something went wrong while executing your query") or, with
                   ``drop``, a dropped connection. Models GitHub's 10 s bound where the
                   mutation lands.
``fail``           the same answers *before* anything runs.
``primary_rate_limit``  GraphQL: HTTP 200 with ``errors[].type`` ``error_type``
                   (``RATE_LIMITED``, or ``RATE_LIMIT`` with ``code:
                   graphql_rate_limit``, both seen from GitHub); REST: 403 (or
                   ``status`` 429). ``remaining`` (default: the real remaining budget,
                   so "limited while remaining > 0") is the ``x-ratelimit-remaining``
                   header sent.
``secondary_rate_limit``  HTTP 403 (or ``status`` 429, or for GraphQL 200 with the
                   message in ``errors``; GitHub documents 200/403 for GraphQL and
                   403/429 for REST) with GitHub's secondary-limit message and
                   ``retry-after: retry_after``.
``latency``        sleep ``latency_ms`` before running (``after_commit``: after it ran,
                   before answering).
``read_lag``       comments and discussions the request creates stay invisible to
                   reads for ``lag_ms``.
``duplicate``      a mutation is applied twice (a retried delivery inside GitHub): two
                   comments with the same body, say; the client sees the second answer.
``edit`` / ``delete`` / ``minimize``  after the request committed, ``actor`` edits
                   (to ``body``), deletes or minimizes the comment it created.
``submitted_too_quickly``  GitHub's undocumented anti-spam limit on content creation,
                   for content-creating requests only (``createDiscussion``,
                   ``addDiscussionComment``, ``createCommitOnBranch``, ``createRef``,
                   REST commit, ref and release creation): GraphQL answers HTTP 200 with
                   ``data.<field>: null`` and ``errors[].type`` ``UNPROCESSABLE``, message
                   ``was submitted too quickly`` (REST: 422 "Validation Failed" with that
                   message). With ``landed`` the write commits first (the stricter
                   reading: the client must read back); without, nothing is written.
                   ``cooldown_s``: from then on, for that long, every content creation
                   by the same actor gets the same answer (nothing written), as GitHub's
                   limit lasts minutes to an hour (cli/cli#4801).
"""

from __future__ import annotations

import random
import threading
from dataclasses import asdict, dataclass, field
from typing import Any

KINDS = (
    "lose_response",
    "fail",
    "primary_rate_limit",
    "secondary_rate_limit",
    "latency",
    "read_lag",
    "duplicate",
    "edit",
    "delete",
    "minimize",
    "submitted_too_quickly",
)


STATUSES = {
    "lose_response": (502, 504, 200),
    "fail": (502, 504, 200),
    # 502 is every rule's default status: for a rate limit it means the usual answer
    "secondary_rate_limit": (502, 504, 403, 429, 200),
    "primary_rate_limit": (502, 403, 429),
}
"""The ``status`` values each kind takes (the others take the default only)."""


@dataclass(frozen=True, slots=True)
class FaultRule:
    """One fault; see the module docstring for the meaning of each field.

    Raises:
        ValueError: unknown ``kind``, a ``status`` the kind does not take
            (:data:`STATUSES`), an ``error_type`` other than RATE_LIMITED/RATE_LIMIT,
            a probability outside [0, 1], or a non-positive ``nth``/``count``.
    """

    kind: str
    operation: str | None = None
    nth: int | None = None
    count: int | None = None
    probability: float = 1.0
    seed: int | None = None
    status: int = 502
    drop: bool = False
    latency_ms: int = 0
    after_commit: bool = False
    lag_ms: int = 0
    retry_after: int = 60
    remaining: int | None = None
    actor: str = "ghost"
    body: str = "edited by another actor"
    error_type: str = "RATE_LIMITED"
    landed: bool = False
    cooldown_s: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; use one of {KINDS}")
        allowed = STATUSES.get(self.kind, (502, 504))
        if self.status not in allowed:
            raise ValueError(
                f"fault status of {self.kind} must be one of {allowed} (502 or 504 for "
                "lost or failed answers, 200 for GraphQL's INTERNAL error; 403, 429 or "
                "200 for a secondary rate limit; 403 or 429 for REST's primary one)"
            )
        if self.error_type not in ("RATE_LIMITED", "RATE_LIMIT"):
            raise ValueError("error_type must be RATE_LIMITED or RATE_LIMIT")
        if self.cooldown_s < 0:
            raise ValueError("cooldown_s must be >= 0")
        if not 0.0 <= self.probability <= 1.0:
            raise ValueError("probability must be within [0, 1]")
        for name in ("nth", "count"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"{name} must be >= 1")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultRule:
        """Build from JSON; unknown keys raise ValueError naming them."""
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown fault rule field(s): {sorted(unknown)}")
        return cls(**data)


@dataclass
class _Armed:
    ident: int
    rule: FaultRule
    rng: random.Random
    seen: int = 0
    fired: int = 0


@dataclass
class FaultPlan:
    """The rules in force, with their counters. Thread-safe."""

    _rules: list[_Armed] = field(default_factory=list)
    _next: int = 1
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, rule: FaultRule) -> int:
        """Arm ``rule``; returns its id (for :meth:`remove`)."""
        with self._lock:
            ident = self._next
            self._next += 1
            self._rules.append(_Armed(ident, rule, random.Random(rule.seed)))  # noqa: S311
            return ident

    def remove(self, ident: int) -> None:
        with self._lock:
            self._rules = [a for a in self._rules if a.ident != ident]

    def clear(self) -> None:
        with self._lock:
            self._rules = []

    def fire(self, names: frozenset[str], kinds: tuple[str, ...]) -> list[FaultRule]:
        """Rules of ``kinds`` that fire for a request known by ``names``, in order.

        Each matching rule's counters advance once per call.
        """
        out: list[FaultRule] = []
        with self._lock:
            for armed in self._rules:
                rule = armed.rule
                if rule.kind not in kinds:
                    continue
                if rule.operation is not None and rule.operation not in names:
                    continue
                armed.seen += 1
                if rule.nth is not None and armed.seen < rule.nth:
                    continue
                if rule.count is not None and armed.fired >= rule.count:
                    continue
                if rule.probability < 1.0 and armed.rng.random() >= rule.probability:
                    continue
                armed.fired += 1
                out.append(rule)
        return out

    def describe(self) -> list[dict[str, Any]]:
        with self._lock:
            return [
                {"id": a.ident, "seen": a.seen, "fired": a.fired, "rule": asdict(a.rule)}
                for a in self._rules
            ]
