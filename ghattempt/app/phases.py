"""Which workflow run or job reports which phase, and what its conclusion means.

The server's mapping is a small TOML file (``GHATTEMPT_APP_PHASES``) in the format of a
repository's ``[[app.jobs]]`` (docs/configuration.md), read by
:func:`ghattempt.config.build_phase_map` into the one mapping model,
:class:`ghattempt.config.PhaseMap`::

    merged_phase = "merge"        # phase recorded `succeeded` when the PR is merged;
                                  # "" records nothing on merge
    [[app.jobs]]
    workflow = "release.yml"      # the workflow's file name
    phase = "build"               # no job: the whole run's conclusion
    [[app.jobs]]
    workflow = "release.yml"
    job = "review"                # a job of that workflow, by the job's name
    phase = "review"

A run rule (no ``job``) reacts to ``workflow_run`` ``completed``; a job rule to
``workflow_job`` ``completed``. Phase names are the eight of journal-v1 section 4; each
phase is reported by one rule (or by the merge) only.

Deprecated: the earlier format, ``[[workflows]]`` tables whose ``workflow`` is the
workflow's name or its path (``.github/workflows/release.yml``), is still read and
converted into the same :class:`~ghattempt.config.PhaseMap` (a warning in the log says
so); write ``[[app.jobs]]`` instead.
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path
from typing import Any

from ghattempt.app.sink import PhaseStatus
from ghattempt.config import ConfigError, JobPhase, PhaseMap, build_phase_map
from ghattempt.core import PHASES as CORE_PHASES
from ghattempt.errors import Fault, GhattemptError

__all__ = ["CONCLUSIONS", "PHASES", "PhaseMap", "PhaseMapError", "load_phase_map",
           "parse_phase_map"]

log = logging.getLogger("ghattempt.app")

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


def _phase(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in PHASES:
        raise PhaseMapError(f"{where}: phase must be one of {', '.join(PHASES)}; got {value!r}")
    return value


def parse_phase_map(data: dict[str, Any], source: str = "phase map") -> PhaseMap:
    """Build the :class:`~ghattempt.config.PhaseMap` of parsed TOML: ``[[app.jobs]]``
    (:func:`ghattempt.config.build_phase_map`), or the deprecated ``[[workflows]]``
    format (any file without an ``app`` table), converted into the same model.

    Raises:
        PhaseMapError: an unknown key, a wrong type, an unknown phase, a duplicate rule.
    """
    if "app" in data:
        try:
            return build_phase_map(data, path=source)
        except ConfigError as exc:
            raise PhaseMapError(str(exc)) from None
    unknown = set(data) - {"merged_phase", "workflows"}
    if unknown:
        raise PhaseMapError(f"{source}: unknown keys {sorted(unknown)}")
    merged_raw = data.get("merged_phase", "merge")
    merged = None if merged_raw == "" else _phase(merged_raw, f"{source}: merged_phase")
    rules: list[JobPhase] = []
    seen: set[tuple[str, str | None]] = set()
    entries = data.get("workflows", [])
    if not isinstance(entries, list):
        raise PhaseMapError(f"{source}: workflows must be an array of tables ([[workflows]])")
    if entries:
        log.warning("%s: [[workflows]] is deprecated; write [[app.jobs]] tables (docs/app.md, "
                    "\"Phase mapping\")", source)
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
        rules.append(JobPhase(workflow=workflow, job=job, phase=phase))
    return PhaseMap(jobs=tuple(rules), merged_phase=merged)


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
