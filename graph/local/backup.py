"""Backup and restore of the local Neo4j with Neo4j's own dump and load (issue 13).

`backup` writes `neo4j-admin database dump` of the `neo4j` database to a file; `restore`
loads such a file with `neo4j-admin database load` (both Neo4j 5.26 Community). Both
need the database stopped: a local Neo4j running in the data directory is stopped
cleanly first (SIGTERM: a checkpoint, so the dump is consistent) and started again on the
same port afterwards, so the API sees a short outage (503, degraded prefetch) and carries
on. The tool is not downloaded separately: the jars the embedded launcher already
resolved (`graph.local.provision`) contain it, and it runs as
`java -cp <classpath> org.neo4j.cli.AdminTool` with `NEO4J_HOME` set to the data dir.

The data directory's maintenance lock (`maintenance_lock`, an flock on
`worldstate-maintenance.lock`) is held throughout, so a supervising `serve`
(graph/local/supervisor.py) does not restart the instance under the tool.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from graph.local.provision import LocalNeo4jError, find_tool, provision
from graph.local.server import find_running, start, stop

LOCK_FILE_NAME = "worldstate-maintenance.lock"
DATABASE = "neo4j"
"""The one database worldstate uses in the local Neo4j (the server's default)."""


@contextlib.contextmanager
def maintenance_lock(data_dir: Path) -> Iterator[None]:
    """Hold the data directory's maintenance lock (blocking) for the block.

    Args:
        data_dir: the Neo4j home.
    """
    home = data_dir.expanduser().absolute()
    home.mkdir(parents=True, exist_ok=True)
    with (home / LOCK_FILE_NAME).open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # Released when the file closes.
        yield


@dataclass(frozen=True, slots=True)
class ToolRun:
    """What one dump or load took.

    Attributes:
        seconds: wall time of the whole operation (stop, tool, start again), seconds.
        tool_seconds: wall time of the neo4j-admin run alone, seconds.
        bytes: size of the dump file, bytes.
        restarted: True when a running instance was stopped and started again.
    """

    seconds: float
    tool_seconds: float
    bytes: int
    restarted: bool


def has_database(data_dir: Path) -> bool:
    """Tell whether `data_dir` holds a `neo4j` database's store files."""
    store = data_dir.expanduser().absolute() / "data" / "databases" / DATABASE
    return store.is_dir() and any(store.iterdir())


def admin_tool(
    data_dir: Path, args: list[str], cache_dir: Path | None = None, timeout_s: float = 3600.0
) -> None:
    """Run `neo4j-admin <args>` against the Neo4j home `data_dir` (its database stopped).

    Args:
        data_dir: the Neo4j home (`NEO4J_HOME`).
        args: the command, e.g. ["database", "dump", "neo4j", "--to-path=/tmp/x"].
        cache_dir: the provisioning cache, or None for the default.
        timeout_s: limit for the run, in seconds.

    Raises:
        LocalNeo4jError: the tool failed (its output tail is in the message).
    """
    classpath = provision(cache_dir)
    home = data_dir.expanduser().absolute()
    command = [find_tool("java"), "-Xmx512m", "-cp", classpath, "org.neo4j.cli.AdminTool", *args]
    env = {**os.environ, "NEO4J_HOME": str(home), "NEO4J_CONF": str(home / "conf")}
    try:
        done = subprocess.run(
            command,
            check=False,
            cwd=home,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired as exc:
        raise LocalNeo4jError(f"neo4j-admin {' '.join(args[:2])} timed out") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-20:])
        raise LocalNeo4jError(f"neo4j-admin {' '.join(args[:2])} failed:\n{tail}")


def backup(
    data_dir: Path,
    target: Path,
    *,
    heap: str = "1g",
    page_cache_mb: int = 512,
    cache_dir: Path | None = None,
) -> ToolRun:
    """Dump the local Neo4j's `neo4j` database to `target` (written whole, then renamed).

    Args:
        data_dir: the Neo4j home.
        target: the dump file to write (replaced if it exists).
        heap: JVM heap of the instance started again, e.g. "1g".
        page_cache_mb: its page cache, MiB.
        cache_dir: the provisioning cache, or None for the default.

    Returns:
        The timings and the file size.

    Raises:
        LocalNeo4jError: no database in `data_dir`, or the tool failed.
    """
    home = data_dir.expanduser().absolute()
    if not has_database(home):
        raise LocalNeo4jError(f"no Neo4j database in {home} to back up")
    out = target.expanduser().absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    with (
        _stopped(home, heap, page_cache_mb, cache_dir) as stopped,
        tempfile.TemporaryDirectory(dir=out.parent, prefix=".worldstate-dump-") as tmp,
    ):
        began = time.monotonic()
        admin_tool(
            home,
            ["database", "dump", DATABASE, f"--to-path={tmp}", "--overwrite-destination=true"],
            cache_dir,
        )
        tool_s = time.monotonic() - began
        Path(tmp, f"{DATABASE}.dump").replace(out)
    return ToolRun(stopped.seconds(), tool_s, out.stat().st_size, stopped.was_running)


def restore(
    data_dir: Path,
    source: Path,
    *,
    force: bool = False,
    heap: str = "1g",
    page_cache_mb: int = 512,
    cache_dir: Path | None = None,
) -> ToolRun:
    """Load a dump made by `backup` into the local Neo4j's `neo4j` database.

    Args:
        data_dir: the Neo4j home (created if missing: a fresh one is the usual target).
        source: the dump file.
        force: replace a database that `data_dir` already holds.
        heap: JVM heap of the instance started again, e.g. "1g".
        page_cache_mb: its page cache, MiB.
        cache_dir: the provisioning cache, or None for the default.

    Returns:
        The timings and the file size.

    Raises:
        LocalNeo4jError: `source` is missing, `data_dir` holds a database and `force` is
            False, or the tool failed.
    """
    home = data_dir.expanduser().absolute()
    dump = source.expanduser().absolute()
    if not dump.is_file():
        raise LocalNeo4jError(f"no dump file at {dump}")
    if has_database(home) and not force:
        raise LocalNeo4jError(
            f"{home} already holds a database; restore replaces it only with --force"
        )
    home.mkdir(parents=True, exist_ok=True)
    with (
        _stopped(home, heap, page_cache_mb, cache_dir) as stopped,
        tempfile.TemporaryDirectory(dir=home, prefix=".worldstate-load-") as tmp,
    ):
        os.symlink(dump, Path(tmp, f"{DATABASE}.dump"))
        began = time.monotonic()
        admin_tool(
            home,
            [
                "database",
                "load",
                DATABASE,
                f"--from-path={tmp}",
                "--overwrite-destination=true",
            ],
            cache_dir,
        )
        tool_s = time.monotonic() - began
    return ToolRun(stopped.seconds(), tool_s, dump.stat().st_size, stopped.was_running)


class _Stopped:
    def __init__(self) -> None:
        self.began = time.monotonic()
        self.ended: float | None = None
        self.was_running = False

    def seconds(self) -> float:
        return (self.ended or time.monotonic()) - self.began


@contextlib.contextmanager
def _stopped(
    home: Path, heap: str, page_cache_mb: int, cache_dir: Path | None
) -> Iterator[_Stopped]:
    """Hold the maintenance lock with no Neo4j running in `home`; a running one is stopped
    first and started again on its port afterwards (detached), even when the block fails."""
    timing = _Stopped()
    with maintenance_lock(home):
        running = find_running(home)
        if running is not None:
            timing.was_running = True
            stop(running)
        try:
            yield timing
        finally:
            if running is not None:
                start(
                    home,
                    port=running.port,
                    heap=heap,
                    page_cache_mb=page_cache_mb,
                    cache_dir=cache_dir,
                    detach=True,
                )
            timing.ended = time.monotonic()


__all__ = [
    "DATABASE", "ToolRun", "admin_tool", "backup", "has_database", "maintenance_lock", "restore",
]  # fmt: skip
