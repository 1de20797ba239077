"""The one seam between the command line and the business attempt store.

Placeholder until ``ghattempt.store`` lands: every writer command ends in one clear line.
"""

from __future__ import annotations

from typing import Any

from ghattempt.cli._errors import CliError

__all__ = ["classify_store_error", "find_journal_number"]


def classify_store_error(exc: BaseException) -> tuple[int, str] | None:
    return None


def find_journal_number(args: Any, repository: tuple[str, str], cfg: Any) -> int | None:
    raise CliError(2, "looking a journal up by pull request needs the store; pass --discussion")
