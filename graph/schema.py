"""The schema, created idempotently at start-up (constraints and range indexes)."""

from __future__ import annotations

from neo4j import Driver

STATEMENTS: tuple[str, ...] = (
    "CREATE CONSTRAINT owner_id IF NOT EXISTS FOR (o:Owner) REQUIRE o.id IS UNIQUE",
    "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE",
    "CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.id IS UNIQUE",
    "CREATE CONSTRAINT run_key IF NOT EXISTS FOR (r:Run) REQUIRE r.key IS UNIQUE",
    "CREATE CONSTRAINT token_hash IF NOT EXISTS FOR (k:Token) REQUIRE k.hash IS UNIQUE",
    # Memory access per chat (graph/cypher/access.py), and the one run-queue lock node
    # that serializes run claims (graph/cypher/runs.py LOCK_QUEUE: MERGE needs the
    # constraint to create it once under concurrency).
    "CREATE CONSTRAINT chat_key IF NOT EXISTS FOR (c:Chat) REQUIRE c.key IS UNIQUE",
    "CREATE CONSTRAINT run_queue_id IF NOT EXISTS FOR (q:RunQueue) REQUIRE q.id IS UNIQUE",
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
    "CREATE CONSTRAINT proposal_id IF NOT EXISTS FOR (n:Proposal) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT notification_id IF NOT EXISTS FOR (x:Notification) REQUIRE x.id IS UNIQUE",
    (
        "CREATE CONSTRAINT merge_suggestion_key IF NOT EXISTS "
        "FOR (s:MergeSuggestion) REQUIRE s.key IS UNIQUE"
    ),
    (
        "CREATE CONSTRAINT merge_suggestion_id IF NOT EXISTS "
        "FOR (s:MergeSuggestion) REQUIRE s.id IS UNIQUE"
    ),
    # Proposal lists and "last surfaced in this chat" (CONTRACT §3).
    "CREATE INDEX proposal_owner_status IF NOT EXISTS FOR (n:Proposal) ON (n.owner, n.status)",
    "CREATE INDEX proposal_owner IF NOT EXISTS FOR (n:Proposal) ON (n.owner)",
    (
        "CREATE INDEX suppression_owner_attribute IF NOT EXISTS "
        "FOR (x:Suppression) ON (x.owner, x.attribute)"
    ),
    "CREATE INDEX notification_owner IF NOT EXISTS FOR (x:Notification) ON (x.owner)",
    "CREATE INDEX merge_suggestion_owner IF NOT EXISTS FOR (s:MergeSuggestion) ON (s.owner)",
    "CREATE INDEX entity_owner_kind IF NOT EXISTS FOR (e:Entity) ON (e.owner, e.kind)",
    "CREATE INDEX entity_owner IF NOT EXISTS FOR (e:Entity) ON (e.owner)",
    "CREATE INDEX run_status IF NOT EXISTS FOR (r:Run) ON (r.status, r.created_at)",
    # Group sharing, resolved per read (graph/scope.py SHARED_ENTITY_IDS).
    "CREATE INDEX membership_member IF NOT EXISTS FOR (m:Membership) ON (m.member)",
    "CREATE INDEX share_group IF NOT EXISTS FOR (s:Share) ON (s.group_id)",
    # Prefetch's mentions (graph/cypher/prefetch.py): each normalized name or alias one
    # term (keyword analyzer), looked up together with the owner; an exact seek per key.
    (
        "CREATE FULLTEXT INDEX entity_mentions IF NOT EXISTS "
        "FOR (e:Entity) ON EACH [e.search_names, e.owner] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}}"
    ),
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
