"""Makes ``tests/strategies.py`` importable as ``strategies`` for the core tests."""

import sys
from pathlib import Path

TESTS = str(Path(__file__).resolve().parent.parent)
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)
