"""The schema, created idempotently at start-up (constraints and range indexes)."""

from __future__ import annotations

from neo4j import Driver

STATEMENTS: tuple[str, ...] = (
    "CREATE CONSTRAINT owner_id IF NOT EXISTS FOR (o:Owner) REQUIRE o.id IS UNIQUE",
    "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE",
    "CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.id IS UNIQUE",
    "CREATE CONSTRAINT run_key IF NOT EXISTS FOR (r:Run) REQUIRE r.key IS UNIQUE",
    "CREATE CONSTRAINT token_hash IF NOT EXISTS FOR (k:Token) REQUIRE k.hash IS UNIQUE",
    # Current and as-of reads of an entity: see graph/cypher/facts.py FACTS_CURRENT/AS_OF.
    (
        "CREATE INDEX fact_entity_asof IF NOT EXISTS "
        "FOR (f:Fact) ON (f.entity_id, f.retracted_at, f.valid_to)"
    ),
    # The committer's current rows of one attribute, and per-attribute history.
    (
        "CREATE INDEX fact_entity_attribute IF NOT EXISTS "
        "FOR (f:Fact) ON (f.entity_id, f.attribute, f.retracted_at, f.valid_to)"
    ),
    # Owner-wide reads of one attribute (preferences, recent events in prefetch).
    (
        "CREATE INDEX fact_owner_attribute IF NOT EXISTS "
        "FOR (f:Fact) ON (f.owner, f.attribute, f.retracted_at)"
    ),
    "CREATE INDEX entity_owner_kind IF NOT EXISTS FOR (e:Entity) ON (e.owner, e.kind)",
    "CREATE INDEX entity_owner IF NOT EXISTS FOR (e:Entity) ON (e.owner)",
    "CREATE INDEX run_status IF NOT EXISTS FOR (r:Run) ON (r.status, r.created_at)",
)


def ensure_schema(driver: Driver, database: str | None = None) -> None:
    """Create every constraint and index if missing, then wait for the indexes to come online.

    Args:
        driver: a connected driver.
        database: the Neo4j database, or None for the server's default.
    """
    for statement in STATEMENTS:
        driver.execute_query(statement, database_=database)
    driver.execute_query("CALL db.awaitIndexes(300)", database_=database)
