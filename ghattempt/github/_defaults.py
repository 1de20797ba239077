"""The defaults more than one layer takes: where GitHub is, how long one request may take,
how far apart two writes of one writer are.

One definition each: :class:`~ghattempt.github.ProviderConfig` (``base_url``, ``timeout``,
``mutation_interval``), :class:`~ghattempt.exclusive.LeaseSettings` (``request_timeout``,
``[lease]``), the configuration's ``[pacing] write_interval``, the App's
``GHATTEMPT_GITHUB_API_URL`` and ``GHATTEMPT_HTTP_TIMEOUT``, and the command line's
``--api-url`` and ``--timeout`` all default to these. Standard library only, nothing
imported: the lease layer and the command line's parser read them without loading httpx.
"""

from __future__ import annotations

__all__ = ["DEFAULT_API_URL", "DEFAULT_TIMEOUT", "DEFAULT_WRITE_INTERVAL"]

DEFAULT_API_URL = "https://api.github.com/"
"""GitHub's REST base on github.com (GitHub Enterprise Server: ``https://HOST/api/v3/``)."""

DEFAULT_TIMEOUT = 30.0
"""Client timeout of one GitHub request, seconds."""

DEFAULT_WRITE_INTERVAL = 1.0
"""Minimum seconds between two content-creating writes of one writer (GitHub allows about
80 content-creating requests a minute)."""
