"""``python -m ghattempt.core`` and the reader bundle run the reader CLI."""

import sys

from ._reader_main import main

sys.exit(main())
