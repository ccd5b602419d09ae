"""The embedding endpoint failing mid-import (issue 13 chaos table, last row): runs keep
being curated and their rows stored, without vectors; `worldstate embeddings backfill`
fills the vectors in once the endpoint is back. A real `serve` (curator in process) over
the fault tests' own Neo4j, and the local OpenAI-compatible endpoint of
tests/fakes/openai.py."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.fakes.openai import EMBED_MODEL, KEY, FakeOpenAI
from tests.faults.harness import ROOT, OwnNeo4j, cli_env, serve, token, wait_for

pytestmark = pytest.mark.slow
RUNS = 12
FAIL_FROM = 4


def vectors(store: OwnNeo4j, owner: str) -> tuple[int, int]:
    """(fact rows of the owner, rows among them without a vector)."""
    with store.driver() as driver:
        records, _, _ = driver.execute_query(
            "MATCH (f:Fact) WHERE f.owner = $owner "
            "RETURN count(f) AS rows, count(CASE WHEN f.embedding IS NULL THEN 1 END) AS bare",
            owner=owner,
        )
    return int(records[0]["rows"]), int(records[0]["bare"])


def test_endpoint_failing_mid_import_stores_rows_and_backfill_embeds_them(
    faulty_store: OwnNeo4j, tmp_path: Path
) -> None:
    """Twelve runs posted; the endpoint answers 500 from the fifth on. Every run is done,
    every row stored (without its vector from then on); the backfill, with the endpoint
    healthy again, leaves no row without a vector."""
    owner = f"owner-{uuid.uuid4().hex}"
    secret = token(faulty_store.uri, owner)
    with FakeOpenAI() as fake:
        endpoint = {
            "embedder": "openai",
            "embedding_url": fake.base_url,
            "embedding_model": EMBED_MODEL,
            "embedding_api_key": KEY,
            "embedding_dimensions": "384",
            "embedding_timeout_seconds": "10",
        }
        env = cli_env(**endpoint) | {"NEO4J_URI": faulty_store.uri}
        with serve(tmp_path / "serve.log", env) as server, server.client(secret, 120) as c:
            for i in range(RUNS):
                if i == FAIL_FROM:
                    fake.embeddings_status = 500
                body = {
                    "id": f"run-{i}",
                    "chat_id": "c1",
                    "messages": [
                        {
                            "role": "user",
                            "text": f"I love tango number {i}.",
                            "at": "2024-03-01T09:00:00Z",
                        }
                    ],
                }
                assert c.post("/v1/runs", json=body).status_code == 202
                wait_for(
                    lambda i=i: c.get(f"/v1/runs/run-{i}").json()["status"] == "done",
                    120,
                    f"run-{i} to be curated",
                )
        rows, bare = vectors(faulty_store, owner)
        fake.embeddings_status = 200
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "from api.cli.main import main; main()",
                "embeddings",
                "backfill",
                "--owner",
                owner,
            ],
            cwd=ROOT,
            env=env | {"WORLDSTATE_EMBEDDING_TIMEOUT_SECONDS": "60"},  # a busy machine
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    after = vectors(faulty_store, owner)
    print(
        f"\nembedding endpoint failing from run {FAIL_FROM + 1} of {RUNS}: runs done "
        f"{RUNS}/{RUNS}, rows stored {rows}, without a vector {bare}; after backfill "
        f"({done.stdout.strip()}): without a vector {after[1]}"
    )
    assert rows == RUNS
    assert bare >= RUNS - FAIL_FROM  # on a busy machine a healthy call may time out too
    assert after == (RUNS, 0)
