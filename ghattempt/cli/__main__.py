"""``python -m ghattempt.cli``: the same as the ``ghattempt`` console script."""

import sys

from ghattempt.cli import main

sys.exit(main())
