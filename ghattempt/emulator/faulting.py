# mypy: disable-error-code="misc"
# (each method types ``self`` as the Emulator it is mixed into: mypy cannot check a
# mixin's self type against the class that composes it)
"""Applying the armed fault rules (:mod:`.faults`) to one request: before it runs (fail,
latency, rate limits), after it committed (read lag, another actor's edit, delete or
minimize) and before answering (latency, a lost response). The replica-lag fidelity
switch is applied here too, since it acts on what a request created."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from . import errors as gh
from .exchange import Reply, Request
from .faults import FaultRule
from .graph import Ctx

if TYPE_CHECKING:
    from .app import Emulator


KIND_ORDER = (
    "latency",
    "fail",
    "secondary_rate_limit",
    "primary_rate_limit",
    "read_lag",
    "duplicate",
    "edit",
    "delete",
    "minimize",
    "lose_response",
)


class Faulting:
    """Applying the armed fault rules to one request (faults.py says what each kind does)."""

    def add_fault(self: Emulator, rule: FaultRule | dict[str, Any]) -> int:
        """Arm a fault rule (a :class:`FaultRule` or its JSON form); returns its id."""
        if isinstance(rule, dict):
            rule = FaultRule.from_dict(rule)
        return self.faults.add(rule)

    def remove_fault(self: Emulator, ident: int) -> None:
        """Disarm the rule :meth:`add_fault` numbered ``ident`` (unknown ids: no-op)."""
        self.faults.remove(ident)

    def clear_faults(self: Emulator) -> None:
        self.faults.clear()

    def _failure(self: Emulator, req: Request, rule: FaultRule) -> Reply:
        if rule.drop:
            return Reply(0, (), b"", drop=True)
        if rule.status == 504:
            return self._json(req, 504, gh.gateway_timeout_body())
        if rule.status == 200:
            return self._json(req, 200, gh.internal_error_body(req.request_id))
        return self._json(req, 502, gh.bad_gateway_body(req.request_id))

    def _submitted_too_quickly(self: Emulator, req: Request, names: frozenset[str],
                               creating: bool) -> bool | None:
        """GitHub's "was submitted too quickly" for a content-creating request: None to
        proceed, False to refuse before anything runs, True to run and then refuse (the
        write landed). An actor in a cool-down (a rule's ``cooldown_s``) is refused
        without a rule firing."""
        if not creating:
            return None
        actor = int(req.viewer["id"])
        now = self.clock.now()
        if self._cooldown.get(actor, 0.0) > now:
            return False
        rules = self.faults.fire(names, ("submitted_too_quickly",))
        if not rules:
            return None
        req.faults.extend(rules)
        if rules[0].cooldown_s:
            self._cooldown[actor] = now + rules[0].cooldown_s
        return rules[0].landed

    def _pre_faults(
        self: Emulator, req: Request, names: frozenset[str], remaining: int
    ) -> Reply | None:
        """Faults that act before anything runs; None when the request proceeds."""
        req.faults = self.faults.fire(names, tuple(KIND_ORDER))
        for rule in req.faults:
            if rule.kind == "latency" and not rule.after_commit:
                time.sleep(rule.latency_ms / 1000)
        for rule in req.faults:
            if rule.kind == "fail":
                return self._failure(req, rule)
            if rule.kind == "secondary_rate_limit":
                graphql = "graphql" in names
                status = rule.status if rule.status in (429, 403) else 403
                body = gh.secondary_limit_body(req.request_id)
                if rule.status == 200 and graphql:  # GitHub: 200 or 403 for GraphQL
                    status, body = 200, gh.secondary_limit_errors(req.request_id)
                return self._json(
                    req,
                    status,
                    body,
                    {"retry-after": str(rule.retry_after)},
                    resource="graphql" if graphql else "core",
                )
            if rule.kind == "primary_rate_limit":
                if "graphql" not in names:  # REST: 403 or 429, remaining 0 (GitHub docs)
                    return self._rest_rate_limited(req, 429 if rule.status == 429 else 403,
                                                   rule.remaining or 0)
                left = remaining if rule.remaining is None else rule.remaining
                return self._rate_limited(req, left, rule.error_type)
        return None

    def _after_commit(self: Emulator, req: Request, ctx: Ctx) -> None:
        """Read lag and another actor's edit/delete/minimize of what the request made."""
        if not ctx.created:
            return
        if self.fidelity.replica_lag_ms:  # the database lags for every reader
            self._lag(ctx.created, self.fidelity.replica_lag_ms)
        for rule in req.faults:
            if rule.kind == "read_lag":
                self._lag(ctx.created, rule.lag_ms)
            elif rule.kind in ("edit", "delete", "minimize"):
                typename, ident = ctx.created[-1]
                if typename == "Discussion" and rule.kind != "edit":
                    continue
                self._tamper_row(rule.kind, typename, ident, rule.body)

    def _post_faults(self: Emulator, req: Request) -> Reply | None:
        """Latency after commit, then a lost response; None to answer normally."""
        for rule in req.faults:
            if rule.kind == "latency" and rule.after_commit:
                time.sleep(rule.latency_ms / 1000)
        for rule in req.faults:
            if rule.kind == "lose_response":
                return self._failure(req, rule)
        return None

    def _lag(self: Emulator, created: list[tuple[str, int]], lag_ms: int) -> None:
        table = {"DiscussionComment": "comments", "Discussion": "discussions"}
        with self.state.transaction() as db:
            for typename, ident in created:
                if typename in table:
                    db.execute(
                        f"UPDATE {table[typename]} SET visible_at = visible_at + ? WHERE id = ?",  # noqa: S608
                        (lag_ms / 1000, ident),
                    )
