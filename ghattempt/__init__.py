"""ghattempt: a hash-chained journal of business attempts at a GitHub release pipeline.

The journal lives in GitHub Discussions (one Discussion per intent, one thread per
attempt, one reply per event); see ``docs`` and the wire contract journal-v1.
"""

__version__ = "0.1.0"
