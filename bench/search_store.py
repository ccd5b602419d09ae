"""The search benchmark's store (bench/search_bench.py): rows and episodes loaded in bulk,
as the committer leaves them, each a pool text's vector plus noise (bench only)."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime

from neo4j import Driver

from graph.embedding import LocalEmbedder
from graph.time import FAR_FUTURE

T0 = datetime(2024, 1, 1, tzinfo=UTC)
NAMES = ["Ana", "Bruno", "Chen", "Dara", "Eli", "Farah", "Gus", "Hana", "Ivo", "Jun"]

LOAD_EPISODES = """
UNWIND $rows AS r
CREATE (ep:Episode)
SET ep.id = r.id, ep.owner = r.owner, ep.chat_id = 'bench', ep.run_id = r.run_id,
    ep.message_id = r.id, ep.seq = r.seq, ep.part = 'own', ep.role = 'user',
    ep.text = r.text, ep.search_text = r.text, ep.said_at = $t0, ep.source = 'user_stated',
    ep.recorded_at = $t0, ep.retracted_at = $far, ep.embedding_model = $model
WITH ep, r
CALL db.create.setNodeVectorProperty(ep, 'embedding', r.embedding)
"""
"""Bulk episodes as the committer leaves them (bench only): a pool text's vector + noise."""

REUSE = """
MATCH (o:Owner) WHERE o.id STARTS WITH 'bench-small-'
WITH o.id AS small ORDER BY small LIMIT 1
MATCH (b:Owner) WHERE b.id STARTS WITH 'bench-big-'
RETURN small, b.id AS big ORDER BY big LIMIT 1
"""
"""READ. -> small, big: callers an earlier run loaded (bench only; a label scan of Owner)."""

LOAD = """
UNWIND $rows AS r
CREATE (f:Fact)
SET f.id = r.id, f.owner = r.owner, f.entity_id = r.entity_id, f.attribute = r.attribute,
    f.value = r.value, f.value_norm = r.value, f.cardinality = 'many',
    f.valid_from = $t0, f.valid_to = $far, f.recorded_at = $t0, f.retracted_at = $far,
    f.status = 'active', f.source = 'user_edit', f.confidence = 1.0,
    f.search_text = r.text, f.embedding_model = $model
WITH f, r
CALL db.create.setNodeVectorProperty(f, 'embedding', r.embedding)
"""


def load_episodes(
    driver: Driver, owner: str, n: int, pool: list[tuple[str, list[float]]], rng: random.Random
) -> None:
    """`n` episodes of `owner`, each a pool sentence's vector plus noise."""
    batch = []
    for i in range(n):
        text, vector = rng.choice(pool)
        batch.append(
            {
                "id": f"epi_{uuid.uuid4().hex[:24]}",
                "owner": owner,
                "run_id": f"run-{i // 20}",
                "seq": i % 20,
                "text": text,
                "embedding": [x + rng.gauss(0, 0.01) for x in vector],
            }
        )
        if len(batch) == 1000 or i == n - 1:
            driver.execute_query(
                LOAD_EPISODES, rows=batch, t0=T0, far=FAR_FUTURE, model=LocalEmbedder.model
            )
            batch = []


def load_owner(
    driver: Driver, owner: str, rows: int, pool: list[tuple[str, list[float]]], rng: random.Random
) -> None:
    """`rows` rows of `owner` over 50 entities, each a pool text's vector plus noise."""
    driver.execute_query("MERGE (o:Owner {id: $owner})", owner=owner)
    entities = [f"ent_{uuid.uuid4().hex[:24]}" for _ in range(50)]
    driver.execute_query(
        "UNWIND $ids AS id CREATE (e:Entity {id: id, owner: $owner, name: $names[toInteger("
        "rand() * size($names))], kind: 'person', aliases: [], search_names: [], "
        "archived: false, created_at: $t0})",
        ids=entities,
        owner=owner,
        names=NAMES,
        t0=T0,
    )
    batch = []
    for _ in range(rows):
        text, vector = rng.choice(pool)
        noisy = [x + rng.gauss(0, 0.01) for x in vector]
        batch.append(
            {
                "id": f"fct_{uuid.uuid4().hex[:24]}",
                "owner": owner,
                "entity_id": rng.choice(entities),
                "attribute": text.split()[1],
                "value": text,
                "text": text,
                "embedding": noisy,
            }
        )
        if len(batch) == 1000:
            driver.execute_query(LOAD, rows=batch, t0=T0, far=FAR_FUTURE, model=LocalEmbedder.model)
            batch = []
    if batch:
        driver.execute_query(LOAD, rows=batch, t0=T0, far=FAR_FUTURE, model=LocalEmbedder.model)
