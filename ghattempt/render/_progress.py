"""A ticker on standard error while a journal is captured.

Shape::

    Progress(provider, what, *, delay=1.0)     # a context manager; GHATTEMPT_PROGRESS=0: off
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ghattempt.github import GitHubProvider

__all__ = ["Progress"]


class Progress:
    """A stderr ticker for long GitHub work: shown at once on a TTY, else after 1 s.

    Use as a context manager; it reads ``provider.usage.requests`` every half second.
    Disabled with ``GHATTEMPT_PROGRESS=0``.
    """

    def __init__(self, provider: GitHubProvider, what: str, *, delay: float = 1.0) -> None:
        self._provider = provider
        self._what = what
        tty = sys.stderr.isatty()
        self._delay = 0.0 if tty else delay
        self._tty = tty
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False
        self._start = 0.0

    def __enter__(self) -> Progress:
        if os.environ.get("GHATTEMPT_PROGRESS") == "0":
            return self
        self._start = time.monotonic()
        self._thread = threading.Thread(target=self._tick, daemon=True)
        self._thread.start()
        return self

    def _line(self) -> str:
        n = self._provider.usage.requests
        return f"{self._what}: {n} request{'s' if n != 1 else ''}, " \
               f"{time.monotonic() - self._start:.1f} s"

    def _tick(self) -> None:
        if self._stop.wait(self._delay):
            return
        while True:
            self._shown = True
            end = "\r" if self._tty else "\n"
            sys.stderr.write(self._line() + end)
            sys.stderr.flush()
            if self._stop.wait(0.5 if self._tty else 2.0):
                return

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._shown:
            sys.stderr.write(self._line() + " done\n")
            sys.stderr.flush()


# Public as ghattempt.render (README.md, "Layout"): tracebacks and
# reprs show the module a user imports these from, as httpx's names do.
Progress.__module__ = "ghattempt.render"
