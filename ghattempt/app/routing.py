"""What one webhook delivery means for the journal: a pure decision, no I/O.

Routing works on the raw event name (``X-GitHub-Event``), the payload's ``action`` and
the parsed JSON, never on githubkit's webhook models (they are strict and refuse older
payloads). :func:`plan_delivery` turns one delivery into a :class:`Plan`: the sink
requests to send, in order, and the changes to the server's head index (which pull
requests a head commit belongs to, needed because ``workflow_job`` payloads name no
pull request).

=======================================  ==============================================
event / action                           plan
=======================================  ==============================================
``pull_request`` opened, reopened        :class:`~ghattempt.app.sink.OpenIntent`
``pull_request`` synchronize             :class:`~ghattempt.app.sink.SupersedeAndAdmit`
``pull_request`` edited (base changed)   :class:`~ghattempt.app.sink.SupersedeAndAdmit`
                                         from the old base's intent to the new one
``pull_request`` closed, merged          :class:`~ghattempt.app.sink.PhaseResult`
                                         ``merged_phase`` succeeded (if mapped)
``pull_request`` closed, not merged      :class:`~ghattempt.app.sink.CancelAttempt`
``workflow_run`` completed               :class:`~ghattempt.app.sink.PhaseResult` per
                                         intent, if the workflow is mapped
``workflow_job`` completed               the same, for a job the server maps, or
                                         with ``phase=None`` for the sink to map by
                                         the repository's ``[[app.jobs]]``
``discussion_comment`` edited, deleted   :class:`~ghattempt.app.sink.TamperingReport`
                                         when the comment holds a record of a journal
``discussion`` edited                    the same, when the Discussion is a journal
``discussion`` deleted, transferred,     the same (``journal_deleted``,
category_changed                         ``journal_transferred``, ``journal_moved``):
                                         a journal that left its repository or its
                                         category is tampering too (writers fail closed
                                         on it; the check run tells people)
a delivery sent by the App itself        nothing: its own writes are no news
                                         (``bot_login``)
anything else                            nothing (acknowledged and ignored)
=======================================  ==============================================

The App's own writes (a journal Discussion and its comments created, lease commits
pushed, check runs) cause ``discussion`` created, ``discussion_comment`` created,
``create``, ``push``, ``check_run`` and ``check_suite`` deliveries, none of which is
routed; a delivery whose ``sender`` is the App's own bot account (``bot_login``,
``<slug>[bot]``) is ignored whatever it is.

Idempotency keys (journal-v1 *key*: ``[A-Za-z0-9._:/@+=-]{1,128}``) are derived from
the event identity: for workflow results ``run:<run id>:<run attempt>[:job:<job id>]:
<phase>:<status>`` (a re-run is a new run attempt, so a new key in the same business
attempt); for pull request and discussion events, which carry no other stable
identity, ``gh:<delivery id>:<operation>`` (a redelivery keeps its delivery id).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ghattempt.app.phases import CONCLUSIONS, PhaseMap
from ghattempt.app.sink import (
    CancelAttempt,
    DeliveryWriter,
    GenerationRef,
    IntentRef,
    OpenIntent,
    PhaseResult,
    SinkRequest,
    SupersedeAndAdmit,
    TamperingReport,
)
from ghattempt.core import is_key, is_oid, is_reason, markers
from ghattempt.errors import Fault, GhattemptError

__all__ = [
    "ROUTED",
    "Forget",
    "HeadLookup",
    "PayloadError",
    "Plan",
    "Remember",
    "has_record_marker",
    "is_routed",
    "make_key",
    "plan_delivery",
]

ROUTED: frozenset[tuple[str, str]] = frozenset(
    {
        ("pull_request", "opened"),
        ("pull_request", "reopened"),
        ("pull_request", "synchronize"),
        ("pull_request", "edited"),
        ("pull_request", "closed"),
        ("workflow_run", "completed"),
        ("workflow_job", "completed"),
        ("discussion_comment", "edited"),
        ("discussion_comment", "deleted"),
        ("discussion", "edited"),
        ("discussion", "deleted"),
        ("discussion", "transferred"),
        ("discussion", "category_changed"),
    }
)
"""(event, action) pairs the server records in its inbox; every other delivery is
acknowledged and dropped at once."""

# The contract's shapes (key, oid, marker, reason) are the core's: journal-v1 sections
# 2 and 3. The marker test is only a prefilter ("could this comment be a record?"); the
# reader gives the verdict. Reasons longer than the core accepts are cut to this length
# (tests check it against the core's `is_reason`).
_REASON_MAX = 1024


class PayloadError(GhattemptError):
    """A routed payload lacks a field routing needs, or holds it with a wrong type."""

    fault = Fault.BAD_INPUT


@dataclass(frozen=True, slots=True)
class Remember:
    """Head index change: ``head_sha`` is now the head of ``intent``'s pull request."""

    intent: IntentRef
    head_sha: str


@dataclass(frozen=True, slots=True)
class Forget:
    """Head index change: drop the entries of a pull request (one base, or all)."""

    repository_id: str
    pull_request: int
    base_ref: str | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    """What to do for one delivery.

    Attributes:
        requests: sink requests, sent in order.
        index: head index changes, applied once every request succeeded.
        note: why nothing (or less than expected) is sent, for the inbox record.
    """

    requests: tuple[SinkRequest, ...] = ()
    index: tuple[Remember | Forget, ...] = ()
    note: str | None = None


HeadLookup = Callable[[str, str], Sequence[IntentRef]]
"""``(repository node id, head sha) -> intents whose pull request has that head``."""


def is_routed(event: str, action: str | None) -> bool:
    """Whether a delivery is worth recording in the inbox (see :data:`ROUTED`)."""
    return action is not None and (event, action) in ROUTED


def make_key(*parts: str | int) -> str:
    """Join parts with ``:`` into an idempotency key.

    Raises:
        ValueError: the result is not a journal-v1 *key* (too long, or a character
            outside ``[A-Za-z0-9._:/@+=-]``).
    """
    key = ":".join(str(p) for p in parts)
    if not is_key(key):
        raise ValueError(f"not a journal key (journal-v1 section 3): {key[:140]!r}")
    return key


def has_record_marker(body: object) -> bool:
    """Whether ``body`` is a string holding a journal-v1 record marker."""
    return isinstance(body, str) and bool(markers(body))


def _reason(text: str) -> str:
    return text if is_reason(text) else text[: _REASON_MAX - 1] + "\u2026"


def _get(obj: Any, *path: str) -> Any:
    for name in path:
        if not isinstance(obj, Mapping) or name not in obj:
            raise PayloadError(f"payload has no {'.'.join(path)}")
        obj = obj[name]
    return obj


def _str(obj: Any, *path: str) -> str:
    value = _get(obj, *path)
    if not isinstance(value, str) or not value:
        raise PayloadError(f"payload {'.'.join(path)} is not a non-empty string")
    return value


def _int(obj: Any, *path: str) -> int:
    value = _get(obj, *path)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PayloadError(f"payload {'.'.join(path)} is not an integer >= 1")
    return value


def _oid(obj: Any, *path: str) -> str:
    value = _str(obj, *path)
    if not is_oid(value):
        raise PayloadError(f"payload {'.'.join(path)} is not a commit id")
    return value


def _opt_str(obj: Any, *path: str) -> str | None:
    try:
        value = _get(obj, *path)
    except PayloadError:
        return None
    return value if isinstance(value, str) and value else None


def _installation(payload: Mapping[str, Any]) -> int | None:
    inst = payload.get("installation")
    if isinstance(inst, Mapping):
        value = inst.get("id")
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
    return None


def _repository(payload: Mapping[str, Any]) -> tuple[str, str]:
    return _str(payload, "repository", "node_id"), _str(payload, "repository", "full_name")


def plan_delivery(
    event: str,
    payload: Mapping[str, Any],
    *,
    delivery: str,
    app_id: int,
    phase_map: PhaseMap,
    lookup: HeadLookup,
    bot_login: str | None = None,
) -> Plan:
    """Decide what one delivery means (see the module table).

    Args:
        event: the ``X-GitHub-Event`` header.
        payload: the parsed JSON body.
        delivery: the ``X-GitHub-Delivery`` id (already checked to be a key-safe GUID).
        app_id: this App's id, for the records' writer.
        phase_map: the workflow/job -> phase mapping.
        lookup: the head index, for runs and jobs whose payload names no pull request.
        bot_login: the App's own bot account as webhook payloads name it
            (``<slug>[bot]``); its deliveries are its own writes and plan nothing.

    Raises:
        PayloadError: a routed payload lacks a field routing needs.
    """
    action = payload.get("action")
    if not isinstance(action, str) or not is_routed(event, action):
        return Plan(note=f"event {event}/{action} is not handled")
    if bot_login is not None and _opt_str(payload, "sender", "login") == bot_login:
        return Plan(note=f"event {event}/{action} was sent by this App itself")
    writer = DeliveryWriter(app_id=app_id, delivery=delivery)
    installation = _installation(payload)
    if event == "pull_request":
        return _pull_request(action, payload, writer, installation, phase_map)
    if event in ("workflow_run", "workflow_job"):
        return _workflow(event, payload, writer, installation, phase_map, lookup)
    return _discussion(event, action, payload, writer, installation)


def _pull_request(
    action: str,
    payload: Mapping[str, Any],
    writer: DeliveryWriter,
    installation: int | None,
    phase_map: PhaseMap,
) -> Plan:
    repo_id, repo_name = _repository(payload)
    number = _int(payload, "pull_request", "number")
    base_ref = _str(payload, "pull_request", "base", "ref")
    head = _oid(payload, "pull_request", "head", "sha")
    intent = IntentRef(repo_id, repo_name, number, base_ref)
    generation = GenerationRef(
        head_sha=head, base_ref=base_ref, base_sha=_oid(payload, "pull_request", "base", "sha")
    )
    delivery = writer.delivery
    if action in ("opened", "reopened"):
        request = OpenIntent(
            key=make_key("gh", delivery, "open"),
            installation_id=installation,
            writer=writer,
            intent=intent,
            generation=generation,
            opened_at=_opt_str(payload, "pull_request", "created_at"),
        )
        return Plan(requests=(request,), index=(Remember(intent, head),))
    if action == "synchronize":
        before = _opt_str(payload, "before") or "an earlier head"
        request2 = SupersedeAndAdmit(
            key=make_key("gh", delivery, "synchronize"),
            installation_id=installation,
            writer=writer,
            superseded=intent,
            reason=_reason(f"pull request #{number} head moved from {before} to {head}"),
            admit=intent,
            generation=generation,
        )
        return Plan(requests=(request2,), index=(Remember(intent, head),))
    if action == "edited":
        old_base = _opt_str(payload, "changes", "base", "ref", "from")
        if old_base is None or old_base == base_ref:
            return Plan(note="pull request edited without a base change")
        old_intent = IntentRef(repo_id, repo_name, number, old_base)
        request3 = SupersedeAndAdmit(
            key=make_key("gh", delivery, "rebase"),
            installation_id=installation,
            writer=writer,
            superseded=old_intent,
            reason=_reason(
                f"pull request #{number} base branch changed from {old_base} to {base_ref}"
            ),
            admit=intent,
            generation=generation,
        )
        return Plan(
            requests=(request3,),
            index=(Forget(repo_id, number, old_base), Remember(intent, head)),
        )
    # closed
    forget = (Forget(repo_id, number),)
    if _get(payload, "pull_request", "merged") is True:
        if phase_map.merged_phase is None:
            return Plan(index=forget, note="merged; no phase is mapped to a merge")
        request4 = PhaseResult(
            key=make_key("gh", delivery, "merged"),
            installation_id=installation,
            writer=writer,
            intent=intent,
            head_sha=head,
            phase=phase_map.merged_phase,
            status="succeeded",
            reason=None,
        )
        return Plan(requests=(request4,), index=forget)
    sender = _opt_str(payload, "sender", "login") or "someone"
    request5 = CancelAttempt(
        key=make_key("gh", delivery, "closed"),
        installation_id=installation,
        writer=writer,
        intent=intent,
        head_sha=head,
        reason=_reason(f"pull request #{number} closed without merging by {sender}"),
    )
    return Plan(requests=(request5,), index=forget)


def _workflow(
    event: str,
    payload: Mapping[str, Any],
    writer: DeliveryWriter,
    installation: int | None,
    phase_map: PhaseMap,
    lookup: HeadLookup,
) -> Plan:
    repo_id, repo_name = _repository(payload)
    if event == "workflow_run":
        run = _get(payload, "workflow_run")
        run_id = _int(run, "id")
        attempt = _int(run, "run_attempt") if "run_attempt" in run else 1
        name = _opt_str(run, "name")
        path = _opt_str(run, "path") or _opt_str(payload, "workflow", "path")
        phase = phase_map.phase_for_run(name, path)
        label = f"workflow {name or path!r} run {run_id} attempt {attempt}"
        key_parts: tuple[str | int, ...] = ("run", run_id, attempt)
        workflow_name, job_name = name, None
        head = _oid(run, "head_sha")
        listed = _listed_pull_requests(run, repo_id, repo_name)
        what = f"workflow {name or path!r}"
    else:
        job = _get(payload, "workflow_job")
        run_id = _int(job, "run_id")
        attempt = _int(job, "run_attempt") if "run_attempt" in job else 1
        job_id = _int(job, "id")
        workflow_name = _opt_str(job, "workflow_name")
        job_name = _opt_str(job, "name")
        path = None
        phase = phase_map.phase_for_job(workflow_name, job_name)
        label = (
            f"workflow {workflow_name!r} job {job_name!r} (run {run_id} attempt {attempt}, "
            f"job {job_id})"
        )
        key_parts = ("run", run_id, attempt, "job", job_id)
        head = _oid(job, "head_sha")
        listed = []
        what = f"workflow {workflow_name!r} job {job_name!r}"
        run = job
    if phase is None and event == "workflow_run":
        # the consumer configuration maps jobs only (`[[app.jobs]]`)
        return Plan(note=f"{what} is not mapped to a phase")
    conclusion = _opt_str(run, "conclusion")
    status = CONCLUSIONS.get(conclusion or "")
    if status is None:
        return Plan(note=f"{label} concluded {conclusion}: records nothing")
    intents: list[IntentRef] = []
    for intent in [*listed, *lookup(repo_id, head)]:
        if intent not in intents:
            intents.append(intent)
    if not intents:
        return Plan(note=f"{label}: no open pull request has head {head}")
    reason = None
    if status != "succeeded":
        url = _opt_str(run, "html_url")
        reason = _reason(f"{label} concluded {conclusion}" + (f": {url}" if url else ""))
    # An unmapped job still goes to the sink: the consumer configuration of the
    # repository may map it (`[[app.jobs]]`); the key then says "cfg" for the phase.
    requests = tuple(
        PhaseResult(
            key=make_key(*key_parts, phase or "cfg", status),
            installation_id=installation,
            writer=writer,
            intent=intent,
            head_sha=head,
            phase=phase,
            status=status,
            reason=reason,
            run_id=run_id,
            workflow_name=workflow_name,
            workflow_path=path,
            job_name=job_name,
        )
        for intent in intents
    )
    note = None if phase is not None else f"{what} is not mapped by the server's phase map"
    return Plan(requests=requests, note=note)


def _listed_pull_requests(run: Any, repo_id: str, repo_name: str) -> list[IntentRef]:
    """The pull requests a ``workflow_run`` payload lists (same-repository ones only)."""
    found: list[IntentRef] = []
    entries = run.get("pull_requests") if isinstance(run, Mapping) else None
    for entry in entries if isinstance(entries, list) else []:
        try:
            number, base = _int(entry, "number"), _str(entry, "base", "ref")
        except PayloadError:
            continue
        found.append(IntentRef(repo_id, repo_name, number, base))
    return found


def _discussion(
    event: str,
    action: str,
    payload: Mapping[str, Any],
    writer: DeliveryWriter,
    installation: int | None,
) -> Plan:
    repo_id, repo_name = _repository(payload)
    discussion = _get(payload, "discussion")
    # `discussion.body` is the journal's body; `changes.body.from` is the previous body
    # of what was edited (the Discussion for `discussion`, the comment otherwise).
    journal_now = has_record_marker(_opt_str(payload, "discussion", "body"))
    marker_before = has_record_marker(_opt_str(payload, "changes", "body", "from"))
    comment_id: str | None = None
    previous = _opt_str(payload, "changes", "body", "from")
    if event == "discussion":
        if not (journal_now or marker_before):
            return Plan(note=f"the {action} Discussion is not a journal")
        change = _DISCUSSION_CHANGES[action]
        if action != "edited":
            # the journal's body as it was when it left: the sink reads the intent (its
            # pull request) from it, the Discussion being gone from the repository or
            # from its category
            previous = _opt_str(payload, "discussion", "body")
    else:
        if not journal_now:
            return Plan(note="the comment's Discussion is not a journal")
        comment = _get(payload, "comment")
        body = comment.get("body") if isinstance(comment, Mapping) else None
        if not (has_record_marker(body) or marker_before):
            return Plan(note="the comment holds no journal record")
        comment_id = _str(comment, "node_id")
        change = "comment_edited" if action == "edited" else "comment_deleted"
    request = TamperingReport(
        key=make_key("gh", writer.delivery, "tamper"),
        installation_id=installation,
        writer=writer,
        repository_id=repo_id,
        repository_name=repo_name,
        discussion_id=_str(discussion, "node_id"),
        discussion_number=_int(discussion, "number"),
        comment_id=comment_id,
        change=change,  # type: ignore[arg-type]
        actor=_opt_str(payload, "sender", "login") or "unknown",
        previous_body=previous,
    )
    return Plan(requests=(request,))


_DISCUSSION_CHANGES = {"edited": "journal_edited", "deleted": "journal_deleted",
                       "transferred": "journal_transferred",
                       "category_changed": "journal_moved"}
"""``discussion`` actions on a journal, and the change each one reports."""
