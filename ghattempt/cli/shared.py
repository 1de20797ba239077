"""What the Action (``ghattempt.action``) shares with the command line: one public home
for the steps both run, so neither reaches into the other's private modules.

Each name is imported from the module defining it on first use (PEP 562): the Action
loads only what its command needs, as the command line does (cold start).

=====================  ===================================================================
errors                 ``CliError``, ``EXIT_BY_FAULT``, ``classify``, ``install_notes``,
                       ``scrub``
secrets                ``refuse_secrets``
rendering              ``ignored_text``, ``markdown_summary``, ``next_phase``
reading                ``current_reading``, ``timeline_page``, ``write_page``
writing                ``check_plan``, ``perform``, ``plan_json``, ``plan_lines``
settings               ``load_settings``
known repositories     ``memo_path``, ``recall``, ``remember``
=====================  ===================================================================
"""

from __future__ import annotations

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from ._context import load_settings
    from ._errors import EXIT_BY_FAULT, CliError, classify, install_notes, scrub
    from ._known import memo_path, recall, remember
    from ._reading import current_reading, timeline_page, write_page
    from ._render import ignored_text, markdown_summary, next_phase
    from ._secrets import refuse_secrets
    from ._writing import check_plan, perform, plan_json, plan_lines

_SUBMODULE = {
    "load_settings": "._context",
    **dict.fromkeys(("EXIT_BY_FAULT", "CliError", "classify", "install_notes", "scrub"),
                    "._errors"),
    **dict.fromkeys(("memo_path", "recall", "remember"), "._known"),
    **dict.fromkeys(("current_reading", "timeline_page", "write_page"), "._reading"),
    **dict.fromkeys(("ignored_text", "markdown_summary", "next_phase"), "._render"),
    "refuse_secrets": "._secrets",
    **dict.fromkeys(("check_plan", "perform", "plan_json", "plan_lines"), "._writing"),
}
"""Exported name -> the module of ``ghattempt.cli`` defining it."""

__all__ = [
    "EXIT_BY_FAULT",
    "CliError",
    "check_plan",
    "classify",
    "current_reading",
    "ignored_text",
    "install_notes",
    "load_settings",
    "markdown_summary",
    "memo_path",
    "next_phase",
    "perform",
    "plan_json",
    "plan_lines",
    "recall",
    "refuse_secrets",
    "remember",
    "scrub",
    "timeline_page",
    "write_page",
]


def __getattr__(name: str) -> _typing.Any:
    """Import the module defining ``name`` (one of ``__all__``) and return the name.

    Raises:
        AttributeError: ``name`` is not shared here.
    """
    module = _SUBMODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, "ghattempt.cli"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
