"""Graphiti's side of bench/graphiti_compare.py: load the world into Graphiti without an
LLM, and answer searches in a process of its own (so its RSS is its own).

Loading follows graphiti-core's documented path for data extracted elsewhere: the world's
people and values become `EntityNode`s, each fact an `EntityEdge` (person -> value, named
after the attribute, its text the same "Ana Silva location Porto" we index, its
`fact_embedding` the same vector), saved with `add_nodes_and_edges_bulk`. A superseded
value is an edge with `invalid_at` and `expired_at` set, as Graphiti's own edge
invalidation leaves it. The LLM and cross-encoder clients are stubs that refuse to be
called, and no vector is ever asked of the embedder client: `add_episode` and
`add_triplet`, which call the LLM, are never used. Searches pass `query_vector`, so the
query is not embedded on this side either.

graphiti-core is a bench-only dependency (`pip install -e '.[bench]'`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")  # no telemetry from a bench

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.graphiti_types import GraphitiClients
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.nodes import EntityNode
from graphiti_core.search.search import search
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.tracer import NoOpTracer
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

from bench.measure import rss_mb
from bench.world import T0, T1, Person, Pool, chunks
from graph.embedding import fact_text

BULK = 2000
"""Edges saved per `add_nodes_and_edges_bulk` call."""


class NoLLM(LLMClient):
    """The LLM client Graphiti is built with here: never called (no extraction runs)."""

    def __init__(self) -> None:
        super().__init__(None)

    async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("the benchmark loads Graphiti without an LLM")


class NoCrossEncoder(CrossEncoderClient):
    """The cross-encoder client: never called (EDGE_HYBRID_SEARCH_RRF reranks by RRF)."""

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        raise RuntimeError("the benchmark's search recipe does not rerank with a model")


class NoEmbedder(EmbedderClient):
    """The embedder client: never called (every node, edge and query has its vector)."""

    async def create(self, input_data: Any) -> list[float]:
        raise RuntimeError("every vector is given: nothing is embedded by Graphiti")

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        raise RuntimeError("every vector is given: nothing is embedded by Graphiti")


def clients(uri: str) -> GraphitiClients:
    """Graphiti's clients over its own Neo4j (no auth), with the stubs above."""
    return GraphitiClients(
        driver=Neo4jDriver(uri, None, None),
        llm_client=NoLLM(),
        embedder=NoEmbedder(),
        cross_encoder=NoCrossEncoder(),
        tracer=NoOpTracer(),
    )


async def load(
    built: GraphitiClients, owner: str, persons: Sequence[Person], pool: Pool
) -> tuple[int, int]:
    """Save one owner's people, values and facts as Graphiti nodes and edges.

    Returns:
        (nodes, edges) saved.
    """
    values: dict[str, EntityNode] = {}
    nodes: list[EntityNode] = []
    edges: list[EntityEdge] = []

    def node(name: str, key: str) -> EntityNode:
        return EntityNode(
            uuid=str(uuid.uuid4()),
            name=name,
            group_id=owner,
            labels=["Entity"],
            created_at=T0,
            name_embedding=pool.vector(name, key=key),
            summary="",
        )

    def edge(person: EntityNode, attribute: str, value: str, current: bool, since: Any) -> None:
        if value not in values:
            values[value] = node(value, value)
            nodes.append(values[value])
        text = fact_text(person.name, attribute, value)
        edges.append(
            EntityEdge(
                uuid=str(uuid.uuid4()),
                group_id=owner,
                source_node_uuid=person.uuid,
                target_node_uuid=values[value].uuid,
                created_at=since,
                name=attribute.upper(),
                fact=text,
                fact_embedding=pool.vector(text),
                episodes=[],
                valid_at=since,
                invalid_at=None if current else T1,
                expired_at=None if current else T1,
            )
        )

    for person in persons:
        subject = node(person.name, person.name.split()[0])
        nodes.append(subject)
        for fact in person.facts:
            if fact.old is not None:
                edge(subject, fact.attribute, fact.old, False, T0)
            edge(subject, fact.attribute, fact.value, True, T1 if fact.old else T0)
    for part in chunks(nodes, BULK):
        await add_nodes_and_edges_bulk(built.driver, [], [], list(part), [], built.embedder)  # type: ignore[arg-type]
    for part in chunks(edges, BULK):
        await add_nodes_and_edges_bulk(built.driver, [], [], [], list(part), built.embedder)  # type: ignore[arg-type]
    return len(nodes), len(edges)


def serve(conn: Connection, uri: str, vectors: dict[str, list[float]]) -> None:
    """Answer the orchestrator's commands on `conn` until "stop" (a process of its own).

    Commands: ("search", owner, query) -> (ms, [(fact text, superseded)]);
    ("floor",) -> ms of a `RETURN 1`; ("rss",) -> this process's RSS in MiB.
    """
    logging.getLogger("neo4j").setLevel(logging.ERROR)  # Graphiti's queries name absent keys
    loop = asyncio.new_event_loop()
    built = clients(uri)
    filters = SearchFilters()

    async def one(owner: str, query: str) -> tuple[float, list[tuple[str, bool]]]:
        began = time.perf_counter()
        found = await search(
            built,
            query,
            [owner],
            EDGE_HYBRID_SEARCH_RRF,
            filters,
            query_vector=vectors[query],
        )
        ms = (time.perf_counter() - began) * 1000
        return ms, [
            (e.fact, e.invalid_at is not None or e.expired_at is not None) for e in found.edges
        ]

    async def floor() -> float:
        began = time.perf_counter()
        await built.driver.execute_query("RETURN 1 AS one")
        return (time.perf_counter() - began) * 1000

    while True:
        command = conn.recv()
        if command[0] == "stop":
            break
        if command[0] == "search":
            conn.send(loop.run_until_complete(one(command[1], command[2])))
        elif command[0] == "floor":
            conn.send(loop.run_until_complete(floor()))
        elif command[0] == "rss":
            conn.send(rss_mb(os.getpid()))
    loop.run_until_complete(built.driver.close())
    conn.send("stopped")
