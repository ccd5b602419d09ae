"""Log lines that repeat under load, throttled: at most one per reason per interval.

Under overload every degraded prefetch past its deadline used to log a WARNING, so a
flood of identical lines hid everything else (issue 17's load runs: thousands a minute).
`/metrics` counts every one of them (api/http/metrics.py); the log only needs to say that
it is happening and how often. Each throttled line says how many like it were held back
since the last one written.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

EVERY_SECONDS = 10.0
"""At most one line per reason in this many seconds (monotonic clock)."""


class ThrottledLog:
    """Write at most one record per `key` every `every` seconds on `logger` (thread-safe).

    Args:
        logger: where the records go.
        every: the interval in seconds (monotonic clock), > 0.
        clock: the monotonic clock, in seconds (tests pass their own).
    """

    def __init__(
        self,
        logger: logging.Logger,
        every: float = EVERY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._every = every
        self._clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def log(self, level: int, key: str, message: str, *args: object) -> bool:
        """Log `message % args` at `level` unless a record of `key` was written less than
        `every` seconds ago; then only count it. A record written after some were held
        back ends with "(N more like it in the last S s)".

        Returns:
            whether a record was written.
        """
        now = self._clock()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self._every:
                self._held[key] = self._held.get(key, 0) + 1
                return False
            held = self._held.pop(key, 0)
            self._last[key] = now
        if held:
            message += " (%d more like it in the last %.0f s)"
            args = (*args, held, now - last if last is not None else 0.0)
        self._logger.log(level, message, *args)
        return True

    def warning(self, key: str, message: str, *args: object) -> bool:
        """`log` at WARNING."""
        return self.log(logging.WARNING, key, message, *args)
