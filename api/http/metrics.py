"""`GET /metrics`: this process's counters in the Prometheus text format (version 0.0.4).

Counts only, never content or owner ids: prefetches answered, and degraded by reason
(`deadline`, `shed`, `overloaded`, `store`, `error`), the prefetch pool's admission
control (`api/http/bounded.py`: calls shed at once because the queue was long, refused
because every place was held, abandoned at their deadline) and its queue now. Each API
process counts its own (`serve --workers N`: scrape each, or sum them; the `pid` label
tells them apart). Unauthenticated, like `/healthz`: put it behind the proxy's own rules
where the counts should not be public.
"""

from __future__ import annotations

import os
import threading
from collections import Counter

from fastapi import FastAPI
from fastapi.responses import PlainTextResponse

DEGRADED_REASONS = ("deadline", "shed", "overloaded", "store", "error")
"""Why a prefetch answered degraded (the `reason` label)."""


class PrefetchCounters:
    """Prefetches answered, and degraded ones by reason (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.answered = 0
        self.degraded: Counter[str] = Counter()

    def count(self, degraded: str | None = None) -> None:
        """Count one prefetch answered; `degraded` names its reason when it was degraded."""
        with self._lock:
            self.answered += 1
            if degraded is not None:
                self.degraded[degraded] += 1


def install(app: FastAPI) -> None:
    """Register `GET /metrics` on `app` (uses `app.state.prefetch_counters` and
    `app.state.prefetch_pool`)."""

    @app.get("/metrics", tags=["health"], response_class=PlainTextResponse)
    def metrics() -> PlainTextResponse:
        """This process's counters, Prometheus text format (counts only; no auth)."""
        pid = f'pid="{os.getpid()}"'
        counters: PrefetchCounters = app.state.prefetch_counters
        pool = app.state.prefetch_pool
        lines = [
            "# HELP worldstate_prefetch_total Prefetches answered (200), degraded ones included.",
            "# TYPE worldstate_prefetch_total counter",
            f"worldstate_prefetch_total{{{pid}}} {counters.answered}",
            "# HELP worldstate_prefetch_degraded_total Prefetches answered degraded, by reason.",
            "# TYPE worldstate_prefetch_degraded_total counter",
            *(
                f'worldstate_prefetch_degraded_total{{{pid},reason="{r}"}} {counters.degraded[r]}'
                for r in DEGRADED_REASONS
            ),
            "# HELP worldstate_prefetch_shed_total Prefetches refused at once by admission "
            "control (the queue was long), answered degraded.",
            "# TYPE worldstate_prefetch_shed_total counter",
            f"worldstate_prefetch_shed_total{{{pid}}} {pool.shed}",
            "# HELP worldstate_prefetch_refused_total Prefetches refused at once, every place "
            "of the pool being held.",
            "# TYPE worldstate_prefetch_refused_total counter",
            f"worldstate_prefetch_refused_total{{{pid}}} {pool.refused}",
            "# HELP worldstate_prefetch_abandoned_total Prefetch calls given up on at their "
            "deadline while running.",
            "# TYPE worldstate_prefetch_abandoned_total counter",
            f"worldstate_prefetch_abandoned_total{{{pid}}} {pool.abandoned}",
            "# HELP worldstate_prefetch_started_total Prefetch calls that started on a thread.",
            "# TYPE worldstate_prefetch_started_total counter",
            f"worldstate_prefetch_started_total{{{pid}}} {pool.started}",
            "# HELP worldstate_prefetch_wait_seconds_total Time prefetch calls waited for a "
            "thread, summed.",
            "# TYPE worldstate_prefetch_wait_seconds_total counter",
            f"worldstate_prefetch_wait_seconds_total{{{pid}}} {pool.wait_seconds:.6f}",
            "# HELP worldstate_prefetch_run_seconds_total Time prefetch calls ran on their "
            "thread (token check, reads, ranking), summed.",
            "# TYPE worldstate_prefetch_run_seconds_total counter",
            f"worldstate_prefetch_run_seconds_total{{{pid}}} {pool.run_seconds:.6f}",
            "# HELP worldstate_prefetch_queued Prefetch calls waiting for a thread now.",
            "# TYPE worldstate_prefetch_queued gauge",
            f"worldstate_prefetch_queued{{{pid}}} {pool.queued}",
        ]
        return PlainTextResponse(
            "\n".join(lines) + "\n", media_type="text/plain; version=0.0.4; charset=utf-8"
        )
