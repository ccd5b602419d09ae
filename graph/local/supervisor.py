"""Keep a local Neo4j running: restart it when it dies (CONTRACT §15; issue 13).

`worldstate serve` without `NEO4J_URI` starts the local Neo4j as its child. `Supervisor`
watches that process from a daemon thread; when it exits (killed, crashed), the
supervisor starts it again on the same data directory and the same Bolt port, so the
driver, which keeps the URI, reconnects by itself, and the API carries on (503 during the
gap, degraded prefetch). Each death and restart is logged.

The data directory's maintenance lock (`graph.local.backup.maintenance_lock`) is taken
before a restart: while `worldstate backup` or `restore` holds it, the supervisor waits,
and afterwards adopts the instance they started again instead of starting a second one.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from graph.local.backup import maintenance_lock
from graph.local.server import LocalNeo4j, LocalNeo4jError, find_running, pid_alive, start, stop

log = logging.getLogger("worldstate.neo4j")


class Supervisor:
    """Restarts a local Neo4j that died, on its data dir and port.

    Args:
        instance: the running instance (from `graph.local.server.start`).
        heap: JVM heap for restarts, e.g. "1g".
        page_cache_mb: page cache for restarts, in MiB.
        cache_dir: the provisioning cache, or None for the default.
        poll_s: how often the process is checked, in seconds.
    """

    def __init__(
        self,
        instance: LocalNeo4j,
        *,
        heap: str,
        page_cache_mb: int,
        cache_dir: Path | None = None,
        poll_s: float = 0.5,
    ):
        self._instance = instance
        self._heap = heap
        self._page_cache_mb = page_cache_mb
        self._cache_dir = cache_dir
        self._poll_s = poll_s
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.restarts = 0
        """Restarts done so far (for logs and tests)."""

    @property
    def instance(self) -> LocalNeo4j:
        """The instance running now (a new pid after each restart; same uri and port)."""
        with self._lock:
            return self._instance

    def start(self) -> None:
        """Watch from a daemon thread until `stop`."""
        self._thread = threading.Thread(target=self._watch, name="neo4j-supervisor", daemon=True)
        self._thread.start()

    def stop(self, *, stop_neo4j: bool = True) -> None:
        """Stop watching; with `stop_neo4j`, stop the instance too (SIGTERM, then SIGKILL)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if stop_neo4j:
            stop(self.instance)

    def _watch(self) -> None:
        while not self._stop.wait(self._poll_s):
            current = self.instance
            if _alive(current):
                continue
            log.warning(
                "local Neo4j (pid %s, %s) exited; restarting it on %s",
                current.pid,
                current.uri,
                current.data_dir,
            )
            self._restart(current)

    def _restart(self, dead: LocalNeo4j) -> None:
        """Start Neo4j again on the dead one's data dir and port, retrying until it runs
        or `stop` is called."""
        pause = 1.0
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                with maintenance_lock(dead.data_dir):
                    if self._stop.is_set():
                        return
                    fresh = find_running(dead.data_dir, timeout_s=2.0)
                    if fresh is None:
                        stop(dead, timeout_s=5.0)  # reap the child, clear its state file
                        fresh = start(
                            dead.data_dir,
                            port=dead.port,
                            heap=self._heap,
                            page_cache_mb=self._page_cache_mb,
                            cache_dir=self._cache_dir,
                            detach=False,
                        )
            except LocalNeo4jError as exc:
                log.error("restarting the local Neo4j failed (%s); trying again", exc)
                self._stop.wait(pause)
                pause = min(pause * 2, 30.0)
                continue
            with self._lock:
                self._instance = fresh
            self.restarts += 1
            log.warning(
                "local Neo4j restarted at %s (pid %s) in %.1f s",
                fresh.uri,
                fresh.pid,
                time.monotonic() - began,
            )
            return


def _alive(instance: LocalNeo4j) -> bool:
    if instance.process is not None:
        return instance.process.poll() is None
    return pid_alive(instance.pid)
