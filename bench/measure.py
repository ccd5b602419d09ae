"""What every benchmark measures with: latencies, quantiles, resident memory."""

from __future__ import annotations

import os
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


def rss_mb(pid: int | None) -> float:
    """Resident set size of a process in MiB (Linux /proc)."""
    return _status_mb(pid, "VmRSS:")


def peak_rss_mb(pid: int | None) -> float:
    """Peak resident set size of a process since it started, in MiB (Linux /proc)."""
    return _status_mb(pid, "VmHWM:")


def _status_mb(pid: int | None, field: str) -> float:
    if pid is None:
        return float("nan")
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int | None) -> float:
    """User plus system CPU seconds a process has used so far (Linux /proc), all threads;
    0.0 for None."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
