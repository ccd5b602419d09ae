"""What every benchmark measures with: latencies, quantiles, resident memory."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path


def timed(fn: Callable[[], object], n: int, warmups: int = 0) -> list[float]:
    """Run `fn` `warmups` times unmeasured, then n times; return the n latencies in ms."""
    for _ in range(warmups):
        fn()
    out = []
    for _ in range(n):
        began = time.perf_counter()
        fn()
        out.append((time.perf_counter() - began) * 1000)
    return out


def p(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rss_mb(pid: int) -> float:
    """Resident set size of a process in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")
