"""The local Neo4j looked after (issue 13): `serve` restarts the Neo4j it started when
that process dies; `worldstate backup` and `restore` carry a store whole into a fresh
data directory, every read on both axes the same."""

from __future__ import annotations

import json
import os
import signal
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.cli.main import app as cli
from api.http.app import create_app
from api.http.settings import Settings
from graph.local.server import STATE_FILE_NAME
from tests.api.conftest import make_api
from tests.api.test_portability import points_of, reads, rich_history
from tests.faults.harness import HEAP, PAGE_CACHE_MB, OwnNeo4j, cli_env, serve, token, wait_for

pytestmark = pytest.mark.slow
ALL = ("read", "write", "curate", "admin")


def test_serve_restarts_the_local_neo4j_it_started(tmp_path: Path) -> None:
    """`serve` without NEO4J_URI starts a local Neo4j; SIGKILL it: serve logs it, starts
    it again on the same data dir and port, and answers again with the data intact."""
    home = tmp_path / "neo4j"
    env = cli_env(data_dir=str(home), neo4j_heap=HEAP, neo4j_page_cache_mb=str(PAGE_CACHE_MB))
    with serve(tmp_path / "serve.log", env, timeout=300) as server:
        first = json.loads((home / STATE_FILE_NAME).read_text())
        owner = f"owner-{uuid.uuid4().hex}"
        secret = token(first["uri"], owner)
        with server.client(secret, timeout=120) as c:
            ana = c.post("/v1/entities", json={"name": "Ana", "kind": "person"}).json()
            os.kill(first["pid"], signal.SIGKILL)

            def restarted() -> dict[str, Any] | None:
                try:
                    state = json.loads((home / STATE_FILE_NAME).read_text())
                except (OSError, ValueError):
                    return None
                return state if state.get("pid") != first["pid"] else None

            again = wait_for(restarted, 300, "serve to start Neo4j again")
            wait_for(lambda: c.get("/healthz").status_code == 200, 120, "/healthz again")
            assert c.get(f"/v1/entities/{ana['id']}").json()["entity"]["name"] == "Ana"
        log = server.log.read_text()
    assert (again["port"], again["data_dir"]) == (first["port"], first["data_dir"])
    assert "exited; restarting it" in log and "local Neo4j restarted at" in log


def test_backup_then_restore_into_a_fresh_data_dir_reads_the_same(tmp_path: Path) -> None:
    """A store with a rich history, dumped by `worldstate backup` and loaded by
    `worldstate restore` into a fresh data directory: every read of the owner at many
    (valid_at, known_at) points answers the same from the restored store."""
    source = OwnNeo4j(tmp_path / "source")
    source.start()
    try:
        with source.driver() as driver:
            app = create_app(Settings(curator_in_process=False, embedder="none"), driver)
            with TestClient(app) as client:
                owner = f"owner-{uuid.uuid4().hex}"
                api = make_api(client, driver, owner, ALL)
                other = make_api(client, driver, owner + "-other", ALL)
                events = rich_history(api, app, other)
                export = [json.loads(x) for x in api.get("/v1/owners/me/export").text.splitlines()]
                points = points_of(export)
                before = reads(api, points, events)
    finally:
        source.stop()
    dump = tmp_path / "backup" / "store.dump"
    env: dict[str, str | None] = {
        "WORLDSTATE_NEO4J_HEAP": HEAP,
        "WORLDSTATE_NEO4J_PAGE_CACHE_MB": str(PAGE_CACHE_MB),
        "NEO4J_URI": None,  # backup and restore are of a data dir, whatever the suite's store
    }
    runner = CliRunner()
    made = runner.invoke(cli, ["backup", str(dump), "--data-dir", str(source.data_dir)], env=env)
    assert made.exit_code == 0, made.output
    fresh = tmp_path / "restored"
    loaded = runner.invoke(cli, ["restore", str(dump), "--data-dir", str(fresh)], env=env)
    assert loaded.exit_code == 0, loaded.output
    refused = runner.invoke(cli, ["restore", str(dump), "--data-dir", str(fresh)], env=env)
    assert refused.exit_code == 1 and "--force" in refused.output
    print(f"\n{made.output.strip()}\n{loaded.output.strip()}")
    restored = OwnNeo4j(fresh)
    restored.start()
    try:
        with restored.driver() as driver:
            app = create_app(Settings(curator_in_process=False, embedder="none"), driver)
            with TestClient(app) as client:
                after = reads(make_api(client, driver, owner, ALL), points, events)
    finally:
        restored.stop()
    assert after == before
