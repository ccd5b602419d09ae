"""The local Neo4j provisioner (graph/local/server.py; CONTRACT §11): real JVMs, cached jars."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import GraphDatabase

from graph.local.server import (
    STATE_FILE_NAME,
    LocalNeo4j,
    LocalNeo4jError,
    Neo4jLocalSettings,
    find_running,
    pick_free_port,
    pid_alive,
    start,
    status,
    stop,
)


def _start(data_dir: Path, *, detach: bool) -> LocalNeo4j:
    local = Neo4jLocalSettings()
    return start(
        data_dir,
        heap="512m",
        page_cache_mb=64,
        cache_dir=local.neo4j_cache,  # Shared with every other run: provisioned once.
        detach=detach,
    )


# Tests with their own JVM come first, so none of them shares the CPU with the module's.


@pytest.mark.slow
def test_stop_ends_a_detached_instance(tmp_path: Path) -> None:
    """`stop` on an instance found through the state file ends the JVM and forgets it."""
    started = _start(tmp_path, detach=True)
    try:
        found = find_running(tmp_path)
        assert found is not None
        stop(found)
        assert not pid_alive(started.pid)
        assert not (tmp_path / STATE_FILE_NAME).exists()
        assert find_running(tmp_path) is None
    finally:
        stop(started)  # A no-op unless an assertion above failed.


@pytest.mark.slow
def test_child_instance_exits_when_its_parent_goes(tmp_path: Path) -> None:
    """In child mode the JVM exits by itself once the parent's end of its stdin closes."""
    child = _start(tmp_path, detach=False)
    assert child.process is not None and child.process.stdin is not None
    child.process.stdin.close()
    assert child.process.wait(timeout=60) == 0
    stop(child)  # Only cleans up the state file now.
    assert find_running(tmp_path) is None


@pytest.fixture(scope="module")
def detached(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalNeo4j]:
    """A detached local Neo4j for this module, in its own temporary data dir."""
    instance = _start(tmp_path_factory.mktemp("neo4j-detached"), detach=True)
    try:
        yield instance
    finally:
        stop(instance)


@pytest.mark.slow
def test_provisioned_server_answers_return_1_over_bolt(detached: LocalNeo4j) -> None:
    """The provisioned server runs Cypher over Bolt with authentication disabled."""
    with GraphDatabase.driver(detached.uri, auth=None) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS one")
    assert records[0]["one"] == 1


@pytest.mark.slow
def test_provisioned_server_is_neo4j_5_26_community(detached: LocalNeo4j) -> None:
    """`dbms.components()` reports the Neo4j Kernel 5.26, community edition."""
    with GraphDatabase.driver(detached.uri, auth=None) as driver:
        records, _, _ = driver.execute_query(
            "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition"
        )
    kernel = next(r for r in records if r["name"] == "Neo4j Kernel")
    assert kernel["edition"] == "community"
    assert kernel["versions"][0].startswith("5.26.")


@pytest.mark.slow
def test_provisioned_server_plans_again_at_most_once_a_minute(detached: LocalNeo4j) -> None:
    """Issue 12: a store growing fast from small (an import) had every cached plan made
    again every 10 s (Neo4j's default), a third of its CPU; the launcher sets the minimum
    replan interval to a minute."""
    with GraphDatabase.driver(detached.uri, auth=None) as driver:
        records, _, _ = driver.execute_query(
            "SHOW SETTINGS YIELD name, value WHERE name = 'dbms.cypher.min_replan_interval' "
            "RETURN value"
        )
    assert [r["value"] for r in records] == ["1m"]


def _disk_bytes(root: Path) -> int:
    """Bytes `root` holds on disk (allocated blocks, so preallocated space counts)."""
    return sum(p.stat().st_blocks * 512 for p in root.rglob("*") if p.is_file())


@pytest.mark.slow
def test_a_fresh_home_takes_little_disk(detached: LocalNeo4j) -> None:
    """Found when a CI run ran out of disk: each fresh home reserved 256 MiB per database
    for its transaction log (521 MiB before a single write), and a test run starts a dozen
    homes. Logs now grow as they are written."""
    assert _disk_bytes(detached.data_dir) < 64 << 20


@pytest.mark.slow
def test_find_running_finds_a_detached_instance_through_its_state_file(
    detached: LocalNeo4j,
) -> None:
    """Another caller finds the instance from the data dir alone (uri, pid, port)."""
    found = find_running(detached.data_dir)
    assert found == detached
    assert found is not None and found.process is None
    assert status(detached.data_dir).running


def test_find_running_without_a_state_file_is_none(tmp_path: Path) -> None:
    """An empty data dir has nothing running."""
    assert find_running(tmp_path) is None
    assert not status(tmp_path).running


def test_a_state_file_left_by_a_dead_process_is_removed(tmp_path: Path) -> None:
    """A stale state file (its pid has exited) is not taken for a running instance."""
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    state = {
        "uri": "bolt://127.0.0.1:1",
        "pid": int(gone.stdout),
        "data_dir": str(tmp_path),
        "port": 1,
    }
    (tmp_path / STATE_FILE_NAME).write_text(json.dumps(state))
    assert find_running(tmp_path) is None
    assert not (tmp_path / STATE_FILE_NAME).exists()


def test_a_bad_heap_size_is_refused_before_anything_starts(tmp_path: Path) -> None:
    """The heap must be a JVM size such as "1g"; nothing is launched otherwise."""
    with pytest.raises(LocalNeo4jError, match="heap"):
        start(tmp_path, heap="lots")
    assert not (tmp_path / STATE_FILE_NAME).exists()


def test_pick_free_port_returns_a_bindable_loopback_port() -> None:
    """The picked port can be bound on 127.0.0.1 right away."""
    port = pick_free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
