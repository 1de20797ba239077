"""Scrub secrets from text before it reaches an exception, a log record or a record.

GitHub token formats (GitHub docs, "About authentication: GitHub's token formats"):
``ghp_`` personal, ``github_pat_`` fine-grained, ``gho_`` OAuth, ``ghu_`` user-to-server,
``ghs_`` installation / Actions ``GITHUB_TOKEN``, ``ghr_`` refresh. A JWT (App auth) is three
base64url parts starting ``eyJ``. Known secret values are replaced too, whatever they look like.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PATTERNS = re.compile(
    r"(?:gh[pousr]_[A-Za-z0-9_]{8,})"
    r"|(?:github_pat_[A-Za-z0-9_]{8,})"
    r"|(?:eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)"
    r"|(?:-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$))"
    r"|(?:(?<=[Bb]earer )[^\s'\",]+)"
    r"|(?:(?<=[Tt]oken )[A-Za-z0-9_.\-]{16,})"
)

REDACTED = "[redacted]"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Return ``text`` with every known secret and every token-shaped string replaced.

    Args:
        text: any message that might end up in an exception or a log.
        secrets: literal secret values to remove (tokens, private keys); empty ones skipped.
    """
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    return _PATTERNS.sub(REDACTED, text)


# Public as ghattempt.github (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
redact.__module__ = "ghattempt.github"
