"""Writer commands (placeholder until the store lands)."""

from __future__ import annotations

from typing import Any

from ghattempt.cli._errors import CliError


def _missing(args: Any) -> int:
    raise CliError(2, f"{args.command}: the business attempt store is not part of this build")


admit = record = successor = expire = rollback = _missing
