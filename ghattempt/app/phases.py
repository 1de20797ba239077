"""Which workflow run or job reports which phase, and what its conclusion means.

The mapping is a small TOML file (``GHATTEMPT_APP_PHASES``)::

    merged_phase = "merge"        # phase recorded `succeeded` when the PR is merged;
                                  # "" records nothing on merge
    [[workflows]]
    workflow = "release"          # the workflow's name, or its path
    phase = "build"               # (.github/workflows/release.yml): the run's conclusion
    [[workflows]]
    workflow = "release"
    job = "review"                # a job of that workflow (by the job's name; matched
    phase = "review"              # on the workflow's name, which job payloads carry)

A run rule (no ``job``) reacts to ``workflow_run`` ``completed``; a job rule to
``workflow_job`` ``completed``. Phase names are the eight of journal-v1 section 4; each
phase is reported by one rule (or by the merge) only.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ghattempt.app.sink import PhaseStatus
from ghattempt.core import PHASES as CORE_PHASES
from ghattempt.errors import Fault, GhattemptError

__all__ = ["CONCLUSIONS", "PHASES", "PhaseMap", "PhaseMapError", "WorkflowRule", "load_phase_map"]

PHASES = CORE_PHASES
"""The admitted phase order (journal-v1 section 4), as :mod:`ghattempt.core` holds it."""

CONCLUSIONS: dict[str, PhaseStatus | None] = {
    "success": "succeeded",
    "failure": "failed",
    "timed_out": "failed",
    "startup_failure": "failed",
    "cancelled": "cancelled",
    "action_required": "waiting",
    "neutral": None,
    "skipped": None,
    "stale": None,
}
"""A completed run's or job's ``conclusion`` -> the phase status recorded.

``None`` (and any conclusion not listed) records nothing: a skipped, neutral or stale
run proves neither success nor failure of its phase."""


class PhaseMapError(GhattemptError):
    """The phase mapping file is missing or malformed; the message names the entry."""

    fault = Fault.BAD_INPUT


@dataclass(frozen=True, slots=True)
class WorkflowRule:
    """One mapping entry: a workflow (and optionally one of its jobs) -> a phase."""

    workflow: str
    phase: str
    job: str | None = None


@dataclass(frozen=True, slots=True)
class PhaseMap:
    """The workflow/job -> phase mapping and the phase a merge completes.

    Attributes:
        workflows: the rules, in file order; the first match wins.
        merged_phase: the phase recorded ``succeeded`` when the pull request is merged,
            or ``None`` to record nothing.
    """

    workflows: tuple[WorkflowRule, ...] = ()
    merged_phase: str | None = "merge"

    def phase_for_run(self, name: str | None, path: str | None) -> str | None:
        """The phase a completed workflow run reports, matched on its name or path."""
        for rule in self.workflows:
            if rule.job is None and rule.workflow in (name, path):
                return rule.phase
        return None

    def phase_for_job(self, workflow_name: str | None, job_name: str | None) -> str | None:
        """The phase a completed job reports, matched on its workflow's name and its name."""
        for rule in self.workflows:
            if rule.job is not None and rule.job == job_name and rule.workflow == workflow_name:
                return rule.phase
        return None


def _phase(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in PHASES:
        raise PhaseMapError(f"{where}: phase must be one of {', '.join(PHASES)}; got {value!r}")
    return value


def parse_phase_map(data: dict[str, Any], source: str = "phase map") -> PhaseMap:
    """Build a :class:`PhaseMap` from parsed TOML.

    Raises:
        PhaseMapError: an unknown key, a wrong type, an unknown phase, a duplicate rule.
    """
    unknown = set(data) - {"merged_phase", "workflows"}
    if unknown:
        raise PhaseMapError(f"{source}: unknown keys {sorted(unknown)}")
    merged_raw = data.get("merged_phase", "merge")
    merged = None if merged_raw == "" else _phase(merged_raw, f"{source}: merged_phase")
    rules: list[WorkflowRule] = []
    seen: set[tuple[str, str | None]] = set()
    entries = data.get("workflows", [])
    if not isinstance(entries, list):
        raise PhaseMapError(f"{source}: workflows must be an array of tables ([[workflows]])")
    for index, entry in enumerate(entries):
        where = f"{source}: workflows[{index}]"
        if not isinstance(entry, dict):
            raise PhaseMapError(f"{where} must be a table")
        extra = set(entry) - {"workflow", "job", "phase"}
        if extra:
            raise PhaseMapError(f"{where}: unknown keys {sorted(extra)}")
        workflow = entry.get("workflow")
        job = entry.get("job")
        if not isinstance(workflow, str) or not workflow:
            raise PhaseMapError(f"{where}: workflow must be a non-empty string")
        if job is not None and (not isinstance(job, str) or not job):
            raise PhaseMapError(f"{where}: job must be a non-empty string when given")
        if (workflow, job) in seen:
            raise PhaseMapError(f"{where}: a second rule for workflow {workflow!r} job {job!r}")
        seen.add((workflow, job))
        phase = _phase(entry.get("phase"), where)
        if any(rule.phase == phase for rule in rules) or phase == merged:
            # a phase has one result: a second reporter would be refused as a rewrite of
            # a terminal phase (journal-v1 section 8), or race the first
            raise PhaseMapError(f"{where}: phase {phase!r} is already reported by another rule")
        rules.append(WorkflowRule(workflow=workflow, job=job, phase=phase))
    return PhaseMap(workflows=tuple(rules), merged_phase=merged)


def load_phase_map(path: Path) -> PhaseMap:
    """Read the TOML mapping at ``path``.

    Raises:
        PhaseMapError: the file cannot be read, is not TOML, or is malformed.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PhaseMapError(f"cannot read phase map {str(path)!r}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PhaseMapError(f"phase map {str(path)!r} is not valid TOML: {exc}") from None
    return parse_phase_map(data, source=str(path))
