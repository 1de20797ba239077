"""httpx, imported the way an installation without its ``cli`` extra imports it.

Shape::

    from ._httpx import httpx        # the httpx module, nothing else

``httpx/__init__.py`` imports its command-line client (``httpx._main``: click, then
pygments and rich) whenever click can be imported, and falls back to a stub ``main``
when it cannot. Here click is usually present only because uvicorn (``app serve``)
needs it, and importing it costs a cold start about 15-20 ms of CPU for a function no
one here calls. So the first import of httpx runs with ``click`` marked unimportable;
the mark is removed right after, so a later ``import click`` (uvicorn) works as usual.
Nothing changes when httpx or click is already imported. ``httpx.main`` is then
httpx's own fallback, as in an installation without ``httpx[cli]``.

The mark lasts only while httpx's package runs, on the importing thread's first use of
the transport; another thread importing click in that moment would see it missing.
The command line and the Action import it from one thread; the App server has imported
githubkit (and so httpx, with click) before it serves, so nothing is marked there.

Every module of :mod:`ghattempt.github` imports httpx through here, first.
"""

from __future__ import annotations

import sys

__all__ = ["httpx"]

_CLI_ONLY = ("click",)
"""Imported by ``httpx._main`` only (httpx 0.28: ``from ._main import main`` in a
``try`` whose ``except ImportError`` defines the fallback)."""


def _import_without_cli() -> None:
    if "httpx" in sys.modules:
        return
    blocked = [name for name in _CLI_ONLY if name not in sys.modules]
    for name in blocked:
        # None in sys.modules makes ``import click`` raise ImportError (importlib docs,
        # "The module cache")
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import httpx  # noqa: F401
    finally:
        for name in blocked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


_import_without_cli()

import httpx  # noqa: E402
