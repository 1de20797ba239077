"""What a person reads: the views of a verdict, a plan and a journal that the command line
and the Action both show, and the scrubbing every message passes through.

=====================  =================================================================
verdicts               ``text_report``, ``markdown_summary``, ``next_phase``,
                       ``ignored_text``
journals               ``timeline_page``, ``write_page``
plans                  ``plan_lines``, ``plan_json``
run steps              ``run_lines``, ``run_outputs``
messages               ``scrub``, ``error_message``, ``install_notes``, ``Progress``
=====================  =================================================================

It renders what the application layer (``ghattempt.commands``) returns; no face imports
another to show the same thing (docs/layout.md). Each name is imported from the module
defining it on first use (PEP 562): an error's line does not load the timeline.
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from ._messages import error_message, install_notes, scrub
    from ._pages import plan_json, plan_lines, timeline_page, write_page
    from ._progress import Progress
    from ._run import run_lines, run_outputs
    from ._summary import ignored_text, markdown_summary, next_phase, text_report

_SUBMODULE = {
    **dict.fromkeys(("error_message", "install_notes", "scrub"), "._messages"),
    **dict.fromkeys(("plan_json", "plan_lines", "timeline_page", "write_page"), "._pages"),
    "Progress": "._progress",
    **dict.fromkeys(("run_lines", "run_outputs"), "._run"),
    **dict.fromkeys(("ignored_text", "markdown_summary", "next_phase", "text_report"),
                    "._summary"),
}
"""Exported name -> the module defining it."""

__all__ = [
    "Progress",
    "error_message",
    "ignored_text",
    "install_notes",
    "markdown_summary",
    "next_phase",
    "plan_json",
    "plan_lines",
    "run_lines",
    "run_outputs",
    "scrub",
    "text_report",
    "timeline_page",
    "write_page",
]


def __getattr__(name: str) -> _typing.Any:
    """Import the module defining ``name`` (one of ``__all__``) and return the name.

    Raises:
        AttributeError: ``name`` is not exported here.
    """
    module = _SUBMODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
