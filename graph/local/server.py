"""A real Neo4j 5.26 Community on this machine, without Docker (CONTRACT §11).

The kernel runs embedded in a small JVM (`launcher/Launcher.java`) with its Bolt
connector on a loopback port and authentication disabled: connect with `auth=None`.
`start` provisions first (`graph.local.provision`: the jars resolved by Maven and cached,
the launcher compiled; needs Java 17+ and Maven on PATH), then launches, waits for Bolt
and records the instance. POSIX only. `provision`, `default_cache_dir`, `NEO4J_VERSION`
and `LocalNeo4jError` are re-exported from `graph.local.provision`.

Files:
    cache dir (default `~/.cache/worldstate/neo4j-5.26.18/`, `WORLDSTATE_NEO4J_CACHE`):
        see `graph.local.provision`.
    data dir (default `~/.local/share/worldstate/neo4j/`, `WORLDSTATE_DATA_DIR`): the Neo4j
        home (`data/`, `logs/`), plus `worldstate-neo4j.json`, the state file (uri, pid,
        data_dir, port) through which other processes find a running instance, and
        `worldstate-neo4j.log`, the JVM's stdout and stderr.

One instance per data dir. Functions take explicit arguments; only `Neo4jLocalSettings`
reads the environment, and only where a command line or test fixture builds it.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from neo4j import GraphDatabase
from neo4j.exceptions import DriverError, Neo4jError
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.local.provision import (
    NEO4J_VERSION,
    LocalNeo4jError,
    default_cache_dir,
    find_tool,
    provision,
)

__all__ = [
    "LOG_FILE_NAME", "NEO4J_VERSION", "READY_PREFIX", "STATE_FILE_NAME", "LocalNeo4j",
    "LocalNeo4jError", "LocalStatus", "Neo4jLocalSettings", "bolt_answers", "default_cache_dir",
    "default_data_dir", "find_running", "pick_free_port", "pid_alive", "provision", "start",
    "status", "stop",
]  # fmt: skip

READY_PREFIX = "WORLDSTATE-NEO4J-READY "
"""The launcher prints this, then the Bolt URI, once queries will run."""

STATE_FILE_NAME = "worldstate-neo4j.json"
LOG_FILE_NAME = "worldstate-neo4j.log"
_HEAP_PATTERN = re.compile(r"^[1-9][0-9]*[kKmMgG]?$")
_JVM_OPENS = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
)


def default_data_dir() -> Path:
    """Return `~/.local/share/worldstate/neo4j/`, the default Neo4j home."""
    return Path.home() / ".local" / "share" / "worldstate" / "neo4j"


class Neo4jLocalSettings(BaseSettings):
    """Environment for the local Neo4j (CONTRACT §11); build it in a command or fixture.

    `NEO4J_URI` and its credentials, which select an existing server instead, belong to
    the process's own settings (`api.http.settings.Settings`), not here.

    Attributes:
        data_dir: Neo4j home of the local instance (`WORLDSTATE_DATA_DIR`).
        neo4j_cache: provisioning cache (`WORLDSTATE_NEO4J_CACHE`).
        neo4j_heap: JVM maximum heap, a `-Xmx` size such as "1g" (`WORLDSTATE_NEO4J_HEAP`).
        neo4j_page_cache_mb: page cache in MiB (`WORLDSTATE_NEO4J_PAGE_CACHE_MB`).
    """

    model_config = SettingsConfigDict(env_prefix="WORLDSTATE_", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    neo4j_cache: Path = Field(default_factory=default_cache_dir)
    neo4j_heap: str = Field(default="1g", pattern=_HEAP_PATTERN.pattern)
    neo4j_page_cache_mb: int = Field(default=512, ge=16)


@dataclass(frozen=True, slots=True)
class LocalNeo4j:
    """A local Neo4j started by `start` (or found by `find_running`).

    Attributes:
        uri: Bolt URI, e.g. "bolt://127.0.0.1:41234"; connect with `auth=None`.
        pid: process id of the JVM.
        data_dir: the Neo4j home, absolute.
        port: the Bolt port on 127.0.0.1.
        process: the `Popen` when this process started it, else None.
    """

    uri: str
    pid: int
    data_dir: Path
    port: int
    process: subprocess.Popen[bytes] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class LocalStatus:
    """What `status` found in a data dir.

    Attributes:
        running: True when the recorded JVM is alive and answers over Bolt.
        instance: the recorded instance, if a state file exists (even a stale one).
        detail: one human-readable line.
    """

    running: bool
    instance: LocalNeo4j | None
    detail: str


def pick_free_port(host: str = "127.0.0.1") -> int:
    """Return a TCP port that is free on `host` right now (the OS picks it).

    Args:
        host: the interface to probe; loopback by default.

    Returns:
        A port number; another process may take it before it is used.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def pid_alive(pid: int) -> bool:
    """Tell whether a process exists and is not a zombie; reap it if it is our exited child.

    Args:
        pid: the process id.

    Returns:
        True while the process runs.
    """
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    with contextlib.suppress(OSError):
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return True


def start(
    data_dir: Path,
    *,
    port: int | None = None,
    heap: str = "1g",
    page_cache_mb: int = 512,
    cache_dir: Path | None = None,
    detach: bool = True,
    timeout_s: float = 180.0,
) -> LocalNeo4j:
    """Provision, launch and wait for a local Neo4j, then record it in the state file.

    Args:
        data_dir: the Neo4j home; created if missing; one instance per data dir.
        port: Bolt port on 127.0.0.1; a free one is picked when None.
        heap: JVM maximum heap as a `-Xmx` size, e.g. "1g" or "768m".
        page_cache_mb: Neo4j page cache, in MiB.
        cache_dir: provisioning cache; `default_cache_dir()` when None.
        detach: True runs the JVM in its own session, outliving this process (for
            `worldstate neo4j start`). False ties it to this process: it watches a pipe
            on its stdin and exits when this process dies, and is stopped at exit.
        timeout_s: how long to wait for Bolt to answer `RETURN 1`, in seconds
            (provisioning is not counted).

    Returns:
        The running instance; connect to `uri` with `auth=None`.

    Raises:
        LocalNeo4jError: bad arguments, an instance already runs in `data_dir`, or the
            JVM died or did not answer in time (the log tail is in the message).
    """
    if not _HEAP_PATTERN.match(heap):
        raise LocalNeo4jError(f"heap {heap!r} is not a JVM size such as '1g' or '768m'")
    home = data_dir.expanduser().absolute()
    running = find_running(home)
    if running is not None:
        raise LocalNeo4jError(f"a local Neo4j already runs in {home} at {running.uri}")
    classpath = provision(cache_dir)
    home.mkdir(parents=True, exist_ok=True)
    _state_file(home).unlink(missing_ok=True)
    attempts_left = 3 if port is None else 1  # A picked port can be taken before the JVM binds.
    while True:
        chosen = port if port is not None else pick_free_port()
        attempts_left -= 1
        try:
            instance = _launch(home, chosen, heap, page_cache_mb, classpath, detach, timeout_s)
            break
        except _PortTaken:
            if attempts_left == 0:
                raise LocalNeo4jError(f"port {chosen} is already in use") from None
    _write_json(_state_file(home), _state_dict(instance))
    if not detach:
        atexit.register(_stop_quietly, instance)
    return instance


def stop(state: LocalNeo4j, *, timeout_s: float = 60.0) -> None:
    """Stop a local Neo4j: SIGTERM, wait, then SIGKILL; remove its state file.

    Safe to call twice, and on an instance that is already gone. A pid that no longer
    belongs to a worldstate launcher (it was reused) is never signalled.

    Args:
        state: the instance, from `start` or `find_running`.
        timeout_s: how long to wait after SIGTERM before SIGKILL, in seconds.
    """
    if _alive_launcher(state):
        with contextlib.suppress(ProcessLookupError):
            os.kill(state.pid, signal.SIGTERM)
        if not _wait_gone(state, timeout_s):
            with contextlib.suppress(ProcessLookupError):
                os.kill(state.pid, signal.SIGKILL)
            _wait_gone(state, 10.0)
    if state.process is not None:
        if state.process.stdin is not None:
            with contextlib.suppress(OSError):
                state.process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            state.process.wait(timeout=1.0)
    recorded = _read_json(_state_file(state.data_dir))
    if recorded.get("pid") in (state.pid, None):
        _state_file(state.data_dir).unlink(missing_ok=True)


def find_running(data_dir: Path, *, timeout_s: float = 5.0) -> LocalNeo4j | None:
    """Return the instance recorded in `data_dir` if its JVM is alive and Bolt answers.

    A state file whose process is gone is removed.

    Args:
        data_dir: the Neo4j home passed to `start`.
        timeout_s: how long to wait for `RETURN 1`, in seconds.

    Returns:
        The instance (with `process=None`), or None.
    """
    found = status(data_dir, timeout_s=timeout_s)
    return found.instance if found.running else None


def status(data_dir: Path, *, timeout_s: float = 5.0) -> LocalStatus:
    """Report on the local Neo4j recorded in `data_dir`.

    Args:
        data_dir: the Neo4j home passed to `start`.
        timeout_s: how long to wait for `RETURN 1`, in seconds.

    Returns:
        Whether it runs, the recorded instance, and a one-line explanation.
    """
    home = data_dir.expanduser().absolute()
    instance = _state_from_json(_read_json(_state_file(home)))
    if instance is None:
        return LocalStatus(False, None, f"not running (no state file in {home})")
    if not _alive_launcher(instance):
        _state_file(home).unlink(missing_ok=True)
        return LocalStatus(False, instance, f"not running (pid {instance.pid} is gone)")
    if not bolt_answers(instance.uri, timeout_s=timeout_s):
        return LocalStatus(False, instance, f"pid {instance.pid} alive, {instance.uri} silent")
    return LocalStatus(True, instance, f"running at {instance.uri} (pid {instance.pid})")


def bolt_answers(uri: str, *, auth: tuple[str, str] | None = None, timeout_s: float = 5.0) -> bool:
    """Tell whether the server at `uri` runs a query.

    Args:
        uri: Bolt URI.
        auth: `(user, password)`, or None for a server without authentication.
        timeout_s: how long to wait for a connection, in seconds.

    Returns:
        True when `RETURN 1` came back.
    """
    try:
        with GraphDatabase.driver(
            uri, auth=auth, connection_timeout=timeout_s, connection_acquisition_timeout=timeout_s
        ) as driver:
            records, _, _ = driver.execute_query("RETURN 1 AS one")
            return bool(records and records[0]["one"] == 1)
    except (DriverError, Neo4jError, OSError):
        return False


class _PortTaken(Exception):
    """The JVM could not bind its Bolt port."""


def _launch(
    home: Path,
    port: int,
    heap: str,
    page_cache_mb: int,
    classpath: str,
    detach: bool,
    timeout_s: float,
) -> LocalNeo4j:
    command = [
        find_tool("java"),
        f"-Xms{_initial_heap(heap)}",
        f"-Xmx{heap}",
        *_JVM_OPENS,
        "-cp",
        classpath,
        "Launcher",
        "--home",
        str(home),
        "--port",
        str(port),
        "--page-cache-mb",
        str(page_cache_mb),
    ]
    if not detach:
        command.append("--watch-stdin")
    log_path = home / LOG_FILE_NAME
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL if detach else subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=detach,
            cwd=home,
        )
    instance = LocalNeo4j(f"bolt://127.0.0.1:{port}", process.pid, home, port, process)
    deadline = time.monotonic() + timeout_s
    ready = False
    while time.monotonic() < deadline:
        log_text = log_path.read_text(errors="replace")
        if process.poll() is not None:
            if "BindException" in log_text or "Address already in use" in log_text:
                raise _PortTaken
            raise LocalNeo4jError(
                f"Neo4j exited with code {process.returncode} before it was ready; "
                f"log {log_path} ends:\n{_tail(log_path)}"
            )
        ready = ready or READY_PREFIX in log_text
        if ready and bolt_answers(instance.uri, timeout_s=5.0):
            return instance
        time.sleep(0.25)
    stop(instance, timeout_s=10.0)
    raise LocalNeo4jError(
        f"Neo4j did not answer at {instance.uri} within {timeout_s:.0f} s; "
        f"log {log_path} ends:\n{_tail(log_path)}"
    )


def _initial_heap(heap: str) -> str:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    suffix = heap[-1].lower()
    size = int(heap[:-1]) * units[suffix] if suffix in units else int(heap)
    return "512m" if size >= 512 << 20 else heap


def _stop_quietly(instance: LocalNeo4j) -> None:
    with contextlib.suppress(Exception):
        stop(instance, timeout_s=20.0)


def _wait_gone(state: LocalNeo4j, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if state.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                state.process.wait(timeout=0.2)
                return True
        elif not pid_alive(state.pid):
            return True
        else:
            time.sleep(0.2)
    return False


def _alive_launcher(state: LocalNeo4j) -> bool:
    if state.process is not None:
        return state.process.poll() is None
    if not pid_alive(state.pid):
        return False
    cmdline = Path(f"/proc/{state.pid}/cmdline")
    if not cmdline.parent.exists():
        return True  # No /proc here: trust the state file.
    try:
        return b"\0Launcher\0" in cmdline.read_bytes()
    except OSError:
        return False


def _state_file(data_dir: Path) -> Path:
    return data_dir / STATE_FILE_NAME


def _state_dict(instance: LocalNeo4j) -> dict[str, object]:
    return {
        "uri": instance.uri,
        "pid": instance.pid,
        "data_dir": str(instance.data_dir),
        "port": instance.port,
    }


def _state_from_json(raw: dict[str, object]) -> LocalNeo4j | None:
    uri, pid, data_dir, port = (raw.get(k) for k in ("uri", "pid", "data_dir", "port"))
    if (
        isinstance(uri, str)
        and isinstance(pid, int)
        and isinstance(data_dir, str)
        and isinstance(port, int)
    ):
        return LocalNeo4j(uri=uri, pid=pid, data_dir=Path(data_dir), port=port)
    return None


def _read_json(path: Path) -> dict[str, object]:
    try:
        loaded = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _write_json(path: Path, content: dict[str, object]) -> None:
    partial = path.with_name(path.name + ".tmp")
    partial.write_text(json.dumps(content, indent=2) + "\n")
    partial.replace(path)


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:])
