"""ghattempt's one error model: the root every error subclasses, and the kinds of fault.

Catch :class:`GhattemptError` to catch everything ghattempt raises on purpose; decide by
``error.fault`` (a :class:`Fault`), wait ``error.retry_after`` seconds when it is set, and
show ``error.hint`` (or ``error.fault.hint``) to say what to do; ``error.diagnostics()``
writes all of it as a few lines. docs/errors.md lists the tree, each kind, and the exit
code or outcome the command line, the Action and the App give it.

The classes are defined in ``ghattempt.core`` (the core's own errors subclass the root and
the core imports nothing outside itself, so the reader bundle stays self-contained); this
module is their public name.
"""

from __future__ import annotations

from ghattempt.core import Fault, GhattemptError

__all__ = ["Fault", "GhattemptError"]
