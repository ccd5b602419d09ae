"""Provisioning for the local Neo4j: resolve its jars and compile the launcher (CONTRACT §11).

The jars come from Maven Central, resolved once by `mvn dependency:build-classpath` from
the packaged `launcher/pom.xml`; the launcher (`launcher/Launcher.java`) is
compiled by `javac`. Needs Java 17+ (`java`, `javac`) and Maven (`mvn`) on PATH. POSIX
only. `graph.local.server` runs what this module builds, and re-exports its public names.

Files, in the cache dir (default `~/.cache/worldstate/neo4j-5.26.18/`, setting
`WORLDSTATE_NEO4J_CACHE`):
    `pom.xml` and `classpath.txt`: re-resolved when the packaged pom changes or a listed
        jar is gone (the jars stay in Maven's `~/.m2`).
    `classes/<hash of Launcher.java>/`: so an edited launcher is recompiled.
    `.lock`: serializes provisioning across processes.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from importlib import resources
from pathlib import Path

from graph.errors import WorldstateError

__all__ = ["NEO4J_VERSION", "LocalNeo4jError", "default_cache_dir", "find_tool", "provision"]

NEO4J_VERSION = "5.26.18"
"""The Neo4j release `launcher/pom.xml` pins."""


class LocalNeo4jError(WorldstateError):
    """The local Neo4j could not be provisioned, started or stopped; the message says why."""


def default_cache_dir() -> Path:
    """Return `~/.cache/worldstate/neo4j-<version>/`, where provisioned artifacts live."""
    return Path.home() / ".cache" / "worldstate" / f"neo4j-{NEO4J_VERSION}"


def provision(cache_dir: Path | None = None, *, timeout_s: float = 1800.0) -> str:
    """Resolve the Neo4j jars and compile the launcher, skipping whatever is cached.

    Args:
        cache_dir: where artifacts go; `default_cache_dir()` when None.
        timeout_s: limit for each of `mvn` and `javac`, in seconds.

    Returns:
        The Java classpath (launcher classes first) to run `Launcher` with.

    Raises:
        LocalNeo4jError: a tool is missing or failed (its output tail is in the message).
    """
    cache = (cache_dir or default_cache_dir()).expanduser().absolute()
    cache.mkdir(parents=True, exist_ok=True)
    sources = resources.files("graph.local").joinpath("launcher")
    pom = sources.joinpath("pom.xml").read_bytes()
    launcher = sources.joinpath("Launcher.java").read_bytes()
    classpath_file = cache / "classpath.txt"
    # One directory per launcher version, so a rebuild never pulls classes from under a
    # JVM that another process is starting from the same cache.
    classes = cache / "classes" / hashlib.sha256(launcher).hexdigest()[:16]
    with (cache / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # Released when the file closes.
        if _read_bytes(cache / "pom.xml") != pom or not _classpath_complete(classpath_file):
            resolving = cache / "pom-resolving.xml"
            resolving.write_bytes(pom)
            partial = cache / "classpath.txt.tmp"
            _run_tool(
                [
                    find_tool("mvn"),
                    "-q",
                    "-B",
                    "-f",
                    str(resolving),
                    "dependency:build-classpath",
                    f"-Dmdep.outputFile={partial}",
                ],
                timeout_s,
            )
            partial.replace(classpath_file)
            resolving.replace(cache / "pom.xml")  # Last: marks the classpath as current.
        classpath = classpath_file.read_text().strip()
        if not (classes / "Launcher.class").exists():
            building = classes.with_name(classes.name + ".tmp")
            shutil.rmtree(building, ignore_errors=True)
            building.mkdir(parents=True)
            (building / "Launcher.java").write_bytes(launcher)
            _run_tool(
                [
                    find_tool("javac"),
                    "-cp",
                    classpath,
                    "-d",
                    str(building),
                    str(building / "Launcher.java"),
                ],
                timeout_s,
            )
            building.replace(classes)
    return f"{classes}{os.pathsep}{classpath}"


def find_tool(name: str) -> str:
    """Return the path of a command the local Neo4j needs (`java`, `javac`, `mvn`).

    Raises:
        LocalNeo4jError: the command is not on PATH.
    """
    path = shutil.which(name)
    if path is None:
        raise LocalNeo4jError(
            f"`{name}` is not on PATH; the local Neo4j needs Java 17+ (java, javac) and Maven"
        )
    return path


def _run_tool(command: list[str], timeout_s: float) -> None:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise LocalNeo4jError(f"{command[0]} timed out after {timeout_s:.0f} s") from exc
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip().splitlines()[-40:]
        raise LocalNeo4jError(
            f"{' '.join(command[:2])} ... failed with code {done.returncode}:\n" + "\n".join(output)
        )


def _classpath_complete(classpath_file: Path) -> bool:
    if not classpath_file.exists():
        return False
    entries = [e for e in classpath_file.read_text().strip().split(os.pathsep) if e]
    return bool(entries) and all(Path(entry).exists() for entry in entries)


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
