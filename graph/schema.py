"""The schema, created idempotently at start-up (constraints, range, vector and full-text
indexes)."""

from __future__ import annotations

import logging
import re

from neo4j import Driver
from neo4j.exceptions import ClientError
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_random

from graph.cypher import runs as rc
from graph.cypher.portability import OWNER_ID_INDEXES
from graph.store_errors import Failure, classify

log = logging.getLogger("worldstate.schema")

STATEMENTS: tuple[str, ...] = (
    "CREATE CONSTRAINT owner_id IF NOT EXISTS FOR (o:Owner) REQUIRE o.id IS UNIQUE",
    "CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE",
    "CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.id IS UNIQUE",
    "CREATE CONSTRAINT run_key IF NOT EXISTS FOR (r:Run) REQUIRE r.key IS UNIQUE",
    "CREATE CONSTRAINT token_hash IF NOT EXISTS FOR (k:Token) REQUIRE k.hash IS UNIQUE",
    "CREATE CONSTRAINT token_id IF NOT EXISTS FOR (k:Token) REQUIRE k.id IS UNIQUE",
    # Memory access per chat (graph/cypher/memory_access.py), and the run queue's lock
    # nodes, one per stripe (graph/cypher/runs.py LOCK_STRIPE: MERGE needs the constraint
    # to create each once under concurrency).
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
    # A stripe's claims (graph/cypher/runs.py NEXT_RUN): its oldest claimable run, a seek.
    "CREATE INDEX run_stripe IF NOT EXISTS FOR (r:Run) ON (r.stripe, r.status, r.created_at)",
    # Cause and effect (graph/cypher/events.py): events by owner + id; erasure by owner.
    "CREATE CONSTRAINT event_key IF NOT EXISTS FOR (v:Event) REQUIRE v.key IS UNIQUE",
    "CREATE INDEX event_owner IF NOT EXISTS FOR (v:Event) ON (v.owner)",
    # Group sharing, resolved per read (graph/scope.py SHARED_ENTITY_IDS).
    "CREATE INDEX membership_member IF NOT EXISTS FOR (m:Membership) ON (m.member)",
    "CREATE INDEX share_group IF NOT EXISTS FOR (s:Share) ON (s.group_id)",
    "CREATE CONSTRAINT group_id IF NOT EXISTS FOR (g:Group) REQUIRE g.id IS UNIQUE",
    "CREATE INDEX membership_group IF NOT EXISTS FOR (m:Membership) ON (m.group_id)",
    # Owner erasure (graph/cypher/erasure.py): every label of OWNED_LABELS is found by
    # `owner` (Entity, Proposal, Notification and MergeSuggestion have theirs above).
    "CREATE INDEX fact_owner IF NOT EXISTS FOR (f:Fact) ON (f.owner)",
    "CREATE INDEX corroboration_owner IF NOT EXISTS FOR (k:Corroboration) ON (k.owner)",
    "CREATE INDEX entity_names_owner IF NOT EXISTS FOR (v:EntityNames) ON (v.owner)",
    "CREATE INDEX suppression_owner IF NOT EXISTS FOR (x:Suppression) ON (x.owner)",
    "CREATE INDEX run_owner IF NOT EXISTS FOR (r:Run) ON (r.owner)",
    "CREATE INDEX chat_owner IF NOT EXISTS FOR (c:Chat) ON (c.owner)",
    "CREATE INDEX token_owner IF NOT EXISTS FOR (k:Token) ON (k.owner)",
    "CREATE INDEX share_owner IF NOT EXISTS FOR (s:Share) ON (s.owner)",
    "CREATE INDEX membership_owner IF NOT EXISTS FOR (m:Membership) ON (m.owner)",
    "CREATE INDEX group_owner IF NOT EXISTS FOR (g:Group) ON (g.owner)",
    "CREATE INDEX event_owner IF NOT EXISTS FOR (v:Event) ON (v.owner)",
    # Notes (graph/cypher/notes.py, note_rows.py, note_memory.py; CONTRACT §13): versions by
    # id and by note; an owner's and a group's current rows (as-of reads, the committer's
    # slots, the limit per owner); due dates; standing by note and by owner (short-tier
    # expiry); erasure by owner; the reading ledger by token and hour.
    "CREATE CONSTRAINT note_id IF NOT EXISTS FOR (n:Note) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX note_note_id IF NOT EXISTS FOR (n:Note) ON (n.note_id)",
    (
        "CREATE INDEX note_owner_current IF NOT EXISTS "
        "FOR (n:Note) ON (n.owner, n.retracted_at, n.valid_to)"
    ),
    (
        "CREATE INDEX note_group_current IF NOT EXISTS "
        "FOR (n:Note) ON (n.group_id, n.retracted_at, n.valid_to)"
    ),
    "CREATE INDEX note_owner_review IF NOT EXISTS FOR (n:Note) ON (n.owner, n.review_at)",
    "CREATE INDEX note_group_review IF NOT EXISTS FOR (n:Note) ON (n.group_id, n.review_at)",
    "CREATE INDEX note_owner IF NOT EXISTS FOR (n:Note) ON (n.owner)",
    # The note that stands for a key (prefetch's notes, graph/cypher/notes.py `_stands`).
    "CREATE INDEX note_owner_key IF NOT EXISTS FOR (n:Note) ON (n.owner, n.key_norm)",
    "CREATE INDEX note_group_key IF NOT EXISTS FOR (n:Note) ON (n.group_id, n.key_norm)",
    "CREATE CONSTRAINT note_head_id IF NOT EXISTS FOR (h:NoteHead) REQUIRE h.note_id IS UNIQUE",
    "CREATE INDEX note_head_owner IF NOT EXISTS FOR (h:NoteHead) ON (h.owner)",
    "CREATE INDEX note_session_owner IF NOT EXISTS FOR (s:NoteSession) ON (s.owner)",
    "CREATE INDEX note_task_owner IF NOT EXISTS FOR (k:NoteTask) ON (k.owner)",
    (
        "CREATE CONSTRAINT note_ledger_key IF NOT EXISTS "
        "FOR (l:NoteReadLedger) REQUIRE l.key IS UNIQUE"
    ),
    "CREATE INDEX note_ledger_owner IF NOT EXISTS FOR (l:NoteReadLedger) ON (l.owner)",
    (
        "CREATE FULLTEXT INDEX note_text IF NOT EXISTS "
        "FOR (n:Note) ON EACH [n.title, n.search_text, n.owner, n.group_id] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"
    ),
    # Search (graph/cypher/search.py): an owner's rows as of a point (the exact semantic
    # ranking and the backfill), and the full-text index over each row's text, with its
    # owner and entity so a query can be narrowed to what the caller may see; accents
    # folded ("Zurich" finds "Zürich"), English stop words dropped.
    (
        "CREATE INDEX fact_owner_asof IF NOT EXISTS "
        "FOR (f:Fact) ON (f.owner, f.retracted_at, f.valid_to)"
    ),
    (
        "CREATE FULLTEXT INDEX fact_text IF NOT EXISTS "
        "FOR (f:Fact) ON EACH [f.search_text, f.owner, f.entity_id] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding'}}"
    ),
    # Episodes, what was said (graph/cypher/episodes.py, CONTRACT §12): by id (idempotent
    # filing), by owner (erasure), by owner as of a point (listing, the exact semantic
    # ranking of a small owner), by run (listing, forgetting a run, a fact's message);
    # fact rows by run (forgetting a conversation finds the rows its messages gave).
    "CREATE CONSTRAINT episode_id IF NOT EXISTS FOR (ep:Episode) REQUIRE ep.id IS UNIQUE",
    "CREATE INDEX episode_owner IF NOT EXISTS FOR (ep:Episode) ON (ep.owner)",
    (
        "CREATE INDEX episode_owner_asof IF NOT EXISTS "
        "FOR (ep:Episode) ON (ep.owner, ep.retracted_at, ep.said_at)"
    ),
    "CREATE INDEX episode_owner_run IF NOT EXISTS FOR (ep:Episode) ON (ep.owner, ep.run_id)",
    "CREATE INDEX fact_owner_run IF NOT EXISTS FOR (f:Fact) ON (f.owner, f.run_id)",
    # What was said is matched on English stems ("researched" finds "research"), possessives
    # dropped ("Caroline's" finds "Caroline"); the query adds each word's accented form
    # (graph/read/episodes.py episode_lucene). Its analyzer is checked: FULLTEXT_ANALYZERS.
    (
        "CREATE FULLTEXT INDEX episode_text IF NOT EXISTS "
        "FOR (ep:Episode) ON EACH [ep.search_text, ep.owner] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}"
    ),
    # Prefetch's mentions (graph/cypher/prefetch.py): each normalized name or alias one
    # term (keyword analyzer), looked up together with the owner; an exact seek per key.
    (
        "CREATE FULLTEXT INDEX entity_mentions IF NOT EXISTS "
        "FOR (e:Entity) ON EACH [e.search_names, e.owner] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}}"
    ),
    # Knowledge documents, workflow state, the access log, usage (CONTRACT §14; graph/cypher/
    # knowledge.py, state.py, access_log.py, usage.py): a holder's document or value by name
    # (current: retracted_at open; as of a point: range on retracted_at), a holder's
    # documents, a state write by idempotency key, the log by reader and by group, usage by
    # owner and time; every label by owner (erasure); the pointer's words (full-text,
    # with the holder, so a lookup is narrowed to the caller's documents).
    "CREATE CONSTRAINT knowledge_id IF NOT EXISTS FOR (k:KnowledgeVersion) REQUIRE k.id IS UNIQUE",
    (
        "CREATE INDEX knowledge_holder_name IF NOT EXISTS "
        "FOR (k:KnowledgeVersion) ON (k.holder, k.name, k.retracted_at)"
    ),
    (
        "CREATE INDEX knowledge_holder_asof IF NOT EXISTS "
        "FOR (k:KnowledgeVersion) ON (k.holder, k.retracted_at)"
    ),
    "CREATE INDEX knowledge_owner IF NOT EXISTS FOR (k:KnowledgeVersion) ON (k.owner)",
    (
        "CREATE FULLTEXT INDEX knowledge_words IF NOT EXISTS "
        "FOR (k:KnowledgeVersion) ON EACH [k.search_text, k.holder] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding'}}"
    ),
    "CREATE CONSTRAINT state_id IF NOT EXISTS FOR (s:StateVersion) REQUIRE s.id IS UNIQUE",
    (
        "CREATE INDEX state_holder_key IF NOT EXISTS "
        "FOR (s:StateVersion) ON (s.holder, s.workflow, s.state_key, s.retracted_at)"
    ),
    "CREATE INDEX state_idem IF NOT EXISTS FOR (s:StateVersion) ON (s.idem)",
    "CREATE INDEX state_owner IF NOT EXISTS FOR (s:StateVersion) ON (s.owner)",
    "CREATE CONSTRAINT access_log_id IF NOT EXISTS FOR (a:AccessLogEntry) REQUIRE a.id IS UNIQUE",
    "CREATE INDEX access_log_owner IF NOT EXISTS FOR (a:AccessLogEntry) ON (a.owner)",
    "CREATE INDEX access_log_group IF NOT EXISTS FOR (a:AccessLogEntry) ON (a.group_id)",
    "CREATE CONSTRAINT usage_key IF NOT EXISTS FOR (u:Usage) REQUIRE u.key IS UNIQUE",
    "CREATE INDEX usage_owner_at IF NOT EXISTS FOR (u:Usage) ON (u.owner, u.at)",
    "CREATE INDEX usage_owner IF NOT EXISTS FOR (u:Usage) ON (u.owner)",
    # Owner export (graph/cypher/portability.py): keyset pages of each kind with an id,
    # in (owner, id) order, seeking on (owner, id).
    *OWNER_ID_INDEXES,
)

VECTOR_INDEXES = {
    "fact_embedding": """
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions,
                       `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}}
""",
    "episode_embedding": """
CREATE VECTOR INDEX episode_embedding IF NOT EXISTS FOR (ep:Episode) ON ep.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions,
                       `vector.similarity_function`: 'cosine',
                       `vector.quantization.enabled`: false}}
""",
}
"""The vector indexes over fact rows' and episodes' embeddings (cosine; unquantized, so
their scores equal `vector.similarity.cosine` on the stored vectors). $dimensions: the
embedder's size."""

FULLTEXT_ANALYZERS = {"episode_text": "english"}
"""Full-text indexes whose analyzer was changed after stores were made with another: a store
whose index has another analyzer has it dropped and created again (`ensure_schema`; Neo4j
fills it again from the nodes, which keep their text)."""

FULLTEXT_ANALYZER = """
SHOW FULLTEXT INDEXES YIELD name, options
WHERE name IN $names
RETURN name, options.indexConfig.`fulltext.analyzer` AS analyzer
"""
"""READ. $names -> name, analyzer: the analyzers of those full-text indexes that exist."""

SHOW_INDEX_NAMES = "SHOW INDEXES YIELD name RETURN name"
"""READ. -> name: every index (constraints' backing indexes included)."""

SHOW_CONSTRAINT_NAMES = "SHOW CONSTRAINTS YIELD name RETURN name"
"""READ. -> name: every constraint."""

_STATEMENT_NAME = re.compile(r"^CREATE (?:CONSTRAINT|(?:[A-Z]+ )?INDEX) (\w+) IF NOT EXISTS")
"""The name a statement of STATEMENTS creates (every one names its index or constraint)."""

VECTOR_INDEX_SIZE = """
SHOW VECTOR INDEXES YIELD name, options
WHERE name = $name
RETURN options.indexConfig.`vector.dimensions` AS dimensions
"""


def ensure_schema(
    driver: Driver, database: str | None = None, *, vector_dimensions: int = 384
) -> None:
    """Create every constraint and index if missing, then wait for the indexes to come
    online (`_ensure_schema`), again from the top when an attempt lost a race to another
    process making the schema at the same moment (a deadlock between their statements, or
    any failure `graph.store_errors.classify` does not call FINAL), at most
    `SCHEMA_ATTEMPTS` times. Every
    step is idempotent, so running it again finishes what the lost attempt left.

    Args and what it does: see `_ensure_schema`.

    Raises:
        neo4j.exceptions.Neo4jError: a failure that is not contention, or contention that
            outlived the attempts.
    """
    for attempt in Retrying(
        retry=retry_if_exception(lambda exc: classify(exc) is not Failure.FINAL),
        stop=stop_after_attempt(SCHEMA_ATTEMPTS),
        wait=wait_random(0.1, 0.5),
        reraise=True,
    ):
        with attempt:
            _ensure_schema(driver, database, vector_dimensions=vector_dimensions)


SCHEMA_ATTEMPTS = 5
"""How many times start-up makes the schema when racing processes deadlock it."""


def _ensure_schema(
    driver: Driver, database: str | None = None, *, vector_dimensions: int = 384
) -> None:
    """Create every constraint and index if missing, then wait for the indexes to come online.

    Args:
        driver: a connected driver.
        database: the Neo4j database, or None for the server's default.
        vector_dimensions: the embedder's vector size (graph.embedding.EmbeddingSettings.
            vector_dimensions; 384 for the local model). A vector index of another size
            (the embedder was changed) is dropped and created again at this size: vectors
            are derived data, and `worldstate embeddings backfill` embeds the rows again.

    A full-text index of FULLTEXT_ANALYZERS made with another analyzer is dropped and
    created again with its own (its text is on the nodes: Neo4j indexes it again).

    Runs queued or being curated before the queue had stripes join stripe 0, whose lock is
    the one lock of before (graph/cypher/runs.py STRIPE_OLD_RUNS).
    """
    found = driver.execute_query(
        FULLTEXT_ANALYZER, names=list(FULLTEXT_ANALYZERS), database_=database
    ).records
    for r in found:
        if r["analyzer"] != FULLTEXT_ANALYZERS[r["name"]]:
            log.warning(
                "full-text index %s uses the %s analyzer, not %s: recreating it",
                r["name"],
                r["analyzer"],
                FULLTEXT_ANALYZERS[r["name"]],
            )
            # `name` is a key of FULLTEXT_ANALYZERS, never input; STATEMENTS creates it again.
            driver.execute_query(f"DROP INDEX {r['name']} IF EXISTS", database_=database)
    # A restart finds them all: one look instead of a hundred no-op statements.
    existing = {
        r["name"]
        for query in (SHOW_INDEX_NAMES, SHOW_CONSTRAINT_NAMES)
        for r in driver.execute_query(query, database_=database).records
    }
    for statement in STATEMENTS:
        named = _STATEMENT_NAME.match(statement)
        if named is None or named.group(1) not in existing:
            _create(driver, statement, database)
    driver.execute_query(rc.STRIPE_OLD_RUNS, database_=database)
    for name, create in VECTOR_INDEXES.items():
        found = driver.execute_query(VECTOR_INDEX_SIZE, name=name, database_=database).records
        if found and found[0]["dimensions"] != vector_dimensions:
            log.warning(
                "vector index %s has %s dimensions, the embedder %s: recreating it",
                name,
                found[0]["dimensions"],
                vector_dimensions,
            )
            # `name` is a key of VECTOR_INDEXES, never input.
            driver.execute_query(f"DROP INDEX {name} IF EXISTS", database_=database)
        _create(driver, create, database, dimensions=vector_dimensions)
    driver.execute_query("CALL db.awaitIndexes(300)", database_=database)


EQUIVALENT_EXISTS = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"
"""What Neo4j answers a `CREATE … IF NOT EXISTS` that lost a race to the same statement of
another process (both saw the name missing; the other created it first)."""


def _create(driver: Driver, statement: str, database: str | None, **params: object) -> None:
    """Run one statement of the schema; one that another process made at the same moment
    (the API, a curator worker and `serve --workers` start together) is already done."""
    try:
        driver.execute_query(statement, params, database_=database)
    except ClientError as exc:
        if exc.code != EQUIVALENT_EXISTS:
            raise
