"""Search without an embedder, through an OpenAI-compatible endpoint, when that endpoint
fails, and the backfill of rows written without vectors (CONTRACT §6 semantic recall).

The endpoint is a local HTTP server (tests/fakes/openai.py) that serves vectors of
the real local model; no code is patched.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver
from typer.testing import CliRunner

from api.cli.main import app as cli
from api.http.app import create_app
from api.http.settings import Settings
from committer.search_index import backfill
from graph.embedding import LocalEmbedder, OpenAIEmbedder
from graph.read.reader import Reader
from graph.write.writer import Writer
from tests.api.conftest import Api, make_api
from tests.fakes.openai import EMBED_MODEL as MODEL
from tests.fakes.openai import KEY, FakeOpenAI

ALL = ("read", "write", "curate", "admin")


def search(api: Api, q: str, **params: Any) -> dict[str, Any]:
    r = api.get("/v1/search", params={"q": q, **params})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def stored(driver: Driver, owner: str) -> dict[Any, tuple[Any, Any, Any]]:
    """value -> (search_text, embedding_model, vector size) of each row of `owner`."""
    rows = Reader(driver).run_query(
        "MATCH (f:Fact) WHERE f.owner = $owner RETURN f.value AS value, "
        "f.search_text AS text, f.embedding_model AS model, size(f.embedding) AS size",
        owner=owner,
    )
    return {r["value"]: (r["text"], r["model"], r["size"]) for r in rows}


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def plain(neo4j_driver: Driver, owner: str) -> Iterator[Api]:
    """The owner of this test on an app with `WORLDSTATE_EMBEDDER=none`."""
    app = create_app(Settings(curator_in_process=False, embedder="none"), neo4j_driver)
    with TestClient(app) as client:
        yield make_api(client, neo4j_driver, owner, ALL)


@pytest.fixture
def remote(neo4j_driver: Driver, owner: str, fake: FakeOpenAI) -> Iterator[Api]:
    """The owner of this test on an app embedding through the fake endpoint."""
    settings = Settings(
        curator_in_process=False,
        embedder="openai",
        embedding_url=fake.base_url,
        embedding_model=MODEL,
        embedding_dimensions=384,
        embedding_api_key=KEY,
        embedding_timeout_seconds=30,
    )
    app = create_app(settings, neo4j_driver)
    with TestClient(app) as client:
        yield make_api(client, neo4j_driver, owner, ALL)


def test_without_an_embedder_search_is_full_text_and_says_so(
    plain: Api, neo4j_driver: Driver
) -> None:
    """`WORLDSTATE_EMBEDDER=none`: rows get their text but no vector; search answers from
    full-text, `mode: fulltext` with a detail naming the setting, not an error."""
    ana = plain.entity("Ana")
    plain.fact(ana["id"], attribute="location", value="Porto")
    plain.fact(ana["id"], attribute="favorite", value="Lapsang souchong tea")
    assert stored(neo4j_driver, plain.owner) == {
        "Porto": ("Ana location Porto", None, None),
        "Lapsang souchong tea": ("Ana favorite Lapsang souchong tea", None, None),
    }
    body = search(plain, "souchong")
    assert (body["mode"], body["degraded"], body["embedder"]) == ("fulltext", False, None)
    assert "WORLDSTATE_EMBEDDER=none" in body["detail"]
    assert [i["fact"]["value"] for i in body["items"]] == ["Lapsang souchong tea"]
    assert body["items"][0]["semantic_score"] is None
    assert search(plain, "where does Ana live")["mode"] == "fulltext"


def test_an_openai_compatible_endpoint_embeds_rows_and_queries(
    remote: Api, fake: FakeOpenAI, neo4j_driver: Driver
) -> None:
    """With `WORLDSTATE_EMBEDDER=openai` the committer sends each commit's texts to the
    endpoint in one request (model and key as configured) and stores the vectors under
    the endpoint's model id; the paraphrase search then finds Porto first."""
    ana = remote.entity("Ana")
    remote.fact(ana["id"], attribute="location", value="Porto")
    remote.fact(ana["id"], attribute="occupation", value="nurse")
    remote.fact(ana["id"], attribute="likes", value="jazz music")
    path, headers, body = fake.requests[0]
    assert (path, body["model"], body["input"]) == ("/v1/embeddings", MODEL, ["Ana location Porto"])
    assert {k.lower(): v for k, v in headers.items()}["authorization"] == f"Bearer {KEY}"
    assert stored(neo4j_driver, remote.owner)["Porto"] == (
        "Ana location Porto",
        f"openai:{MODEL}",
        384,
    )
    found = search(remote, "where does Ana live")
    assert (found["mode"], found["embedder"]) == ("hybrid", f"openai:{MODEL}")
    assert found["items"][0]["fact"]["value"] == "Porto"
    assert fake.requests[-1][2]["input"] == ["where does Ana live"]


def test_a_failing_endpoint_degrades_to_full_text_and_commits_still_land(
    remote: Api, fake: FakeOpenAI, neo4j_driver: Driver
) -> None:
    """The endpoint answering 500: search says `fulltext`, `degraded: true` and why; a
    fact asserted meanwhile is written (text, no vector), and the backfill embeds it once
    the endpoint is back, after which semantic search finds it."""
    ana = remote.entity("Ana")
    remote.fact(ana["id"], attribute="occupation", value="nurse")
    fake.embeddings_status = 500
    body = search(remote, "Ana nurse")
    assert (body["mode"], body["degraded"]) == ("fulltext", True)
    assert "HTTP 500" in body["detail"]
    assert [i["fact"]["value"] for i in body["items"]] == ["nurse"]
    remote.fact(ana["id"], attribute="location", value="Porto")
    assert stored(neo4j_driver, remote.owner)["Porto"] == ("Ana location Porto", None, None)

    fake.embeddings_status = 200
    embedder = OpenAIEmbedder(fake.base_url, MODEL, 384, KEY)
    assert backfill(neo4j_driver, None, embedder, owners=[remote.owner]) == 1
    assert stored(neo4j_driver, remote.owner)["Porto"] == (
        "Ana location Porto",
        f"openai:{MODEL}",
        384,
    )
    top = search(remote, "where does Ana live")["items"][0]
    assert top["fact"]["value"] == "Porto" and top["semantic_score"] is not None


def test_backfill_embeds_rows_written_without_an_embedder(
    plain: Api, api: Api, neo4j_driver: Driver
) -> None:
    """Rows committed with `WORLDSTATE_EMBEDDER=none` get vectors of the local model from
    the backfill (only the owner named), and a second run finds nothing left to do."""
    ana = plain.entity("Ana")
    plain.fact(ana["id"], attribute="location", value="Porto")
    plain.fact(ana["id"], attribute="occupation", value="nurse")
    assert backfill(neo4j_driver, None, LocalEmbedder(), owners=[plain.owner]) == 2
    assert backfill(neo4j_driver, None, LocalEmbedder(), owners=[plain.owner]) == 0
    assert {s[1:] for s in stored(neo4j_driver, plain.owner).values()} == {
        ("local:all-MiniLM-L6-v2", 384)
    }


def test_backfill_command_gives_old_rows_their_text(
    neo4j_server: Any, neo4j_driver: Driver, plain: Api
) -> None:
    """Rows from before search existed (no search fields at all) get their text from
    `worldstate embeddings backfill --owner` with `WORLDSTATE_EMBEDDER=none`; full-text
    search then finds them."""
    ana = plain.entity("Ana")
    row = {
        "id": f"fct_{uuid.uuid4().hex[:24]}",
        "entity_id": ana["id"],
        "attribute": "pet",
        "value": "a tortoise called Hermes",
        "value_norm": "s:hermes",
        "cardinality": "many",
        "valid_from": datetime(2020, 1, 1, tzinfo=UTC),
    }
    Writer(neo4j_driver).transaction(lambda w: w.raw_create(plain.owner, [row], datetime.now(UTC)))
    assert search(plain, "Hermes")["items"] == []
    env = {"NEO4J_URI": neo4j_server.uri, "WORLDSTATE_EMBEDDER": "none"}
    if neo4j_server.auth:
        env |= {"NEO4J_USER": neo4j_server.auth[0], "NEO4J_PASSWORD": neo4j_server.auth[1]}
    result = CliRunner().invoke(cli, ["embeddings", "backfill", "--owner", plain.owner], env=env)
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("1 rows given their text")
    assert [i["fact"]["value"] for i in search(plain, "Hermes")["items"]] == [
        "a tortoise called Hermes"
    ]
