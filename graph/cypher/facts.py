"""Cypher for fact rows (STYLE: "Cypher as named constants", one module per aggregate).

Each constant is followed by its docstring: READ or WRITE, its `$parameters`, the
columns it returns. Values are always parameters; labels and relationship types are
literals. Rows are never deleted and never rewritten, except `retracted_at`, set once.
Open ends are stored as the `$far` sentinel (graph.time.FAR_FUTURE) so that range
predicates use the indexes created in graph/schema.py.
"""

from __future__ import annotations

from typing import Any

from graph.records import FactRecord
from graph.time import from_store

FACTS_AS_OF = """
MATCH (f:Fact)
WHERE f.entity_id = $entity_id AND f.retracted_at > $known_at
  AND f.owner = $owner
  AND f.recorded_at <= $known_at
  AND f.valid_from <= $valid_at AND f.valid_to > $valid_at
RETURN f
ORDER BY f.attribute, f.valid_from, f.recorded_at, f.id
"""
"""READ. $owner, $entity_id, $valid_at, $known_at -> f (Fact node), one per visible row.

CONTRACT §2: recorded_at <= T < retracted_at and valid_from <= V < valid_to.
PROFILE (Neo4j 5.26, 1M rows): NodeIndexSeekByRange on index `fact_entity_retracted`
(entity_id = $entity_id, retracted_at > $known_at); the other predicates are a Filter
over the few rows the seek yields. For a current read ($known_at = now) the seek
yields only open rows, so an attribute's depth of history does not slow it.
"""

FACTS_OF_ENTITIES_AS_OF = """
UNWIND $entity_ids AS eid
MATCH (f:Fact)
WHERE f.entity_id = eid AND f.retracted_at > $known_at
  AND f.owner = $owner
  AND f.recorded_at <= $known_at
  AND f.valid_from <= $valid_at AND f.valid_to > $valid_at
RETURN f
ORDER BY f.entity_id, f.attribute, f.valid_from, f.recorded_at, f.id
"""
"""READ. $owner, $entity_ids (list), $valid_at, $known_at -> f. Same seek as FACTS_AS_OF, per entity."""

HISTORY = """
MATCH (f:Fact)
WHERE f.entity_id = $entity_id AND f.owner = $owner
  AND ($attribute IS NULL OR f.attribute = $attribute)
  AND ($include_retracted OR (f.recorded_at <= $known_at AND f.retracted_at > $known_at))
RETURN f
ORDER BY f.valid_from, f.recorded_at, f.attribute, f.id
SKIP $skip LIMIT $limit
"""
"""READ. $owner, $entity_id, $attribute (or null = every attribute), $known_at,
$include_retracted, $skip, $limit -> f.

CONTRACT §2.3: every row under the knowledge of $known_at, ordered by valid_from then
recorded_at; with $include_retracted every row on both axes (the audit view).
PROFILE: NodeIndexSeek on `fact_entity_attribute` (entity_id, attribute) when an
attribute is given, else on `fact_entity_retracted` by entity_id.
"""

FACT_BY_ID = """
MATCH (f:Fact {id: $fact_id})
WHERE f.owner = $owner
RETURN f
"""
"""READ. $owner, $fact_id -> f (0 or 1 row). Unique-constraint seek on Fact.id."""

CURRENT_ROWS = """
MATCH (f:Fact)
WHERE f.entity_id = $entity_id AND f.attribute = $attribute AND f.retracted_at = $far
  AND f.owner = $owner
RETURN f
ORDER BY f.valid_from, f.id
"""
"""READ (inside the committer's write transaction). $owner, $entity_id, $attribute, $far
-> f for every current row of the (entity, attribute). Seek on `fact_entity_attribute`."""

PUSHED_OUT = """
MATCH (x:Fact {id: $fact_id})-[:REPLACES*0..]->(:Fact)-[:SUPERSEDED]->(p:Fact)
WHERE x.owner = $owner AND p.owner = $owner
RETURN DISTINCT p
"""
"""READ (inside a write transaction). $owner, $fact_id -> p: the rows of other values
that the row, or any row it continues (REPLACES), pushed out (CONTRACT §2.2 retract)."""

RETRACT_ROWS = """
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.owner = $owner AND f.retracted_at = $far
SET f.retracted_at = $t
RETURN count(f) AS retracted
"""
"""WRITE. $owner, $ids, $far, $t -> retracted (count). Sets `retracted_at` once; a row
already retracted is left alone (the count then falls short and the caller aborts)."""

CREATE_ROWS = """
UNWIND $rows AS r
CREATE (f:Fact)
SET f.id = r.id,
    f.owner = $owner,
    f.entity_id = r.entity_id,
    f.attribute = r.attribute,
    f.value = r.value,
    f.object_id = r.object_id,
    f.value_norm = r.value_norm,
    f.cardinality = r.cardinality,
    f.valid_from = r.valid_from,
    f.valid_to = r.valid_to,
    f.recorded_at = $t,
    f.retracted_at = $far,
    f.status = r.status,
    f.source = r.source,
    f.evidence = r.evidence,
    f.reason = r.reason,
    f.confidence = r.confidence,
    f.run_id = r.run_id,
    f.message_id = r.message_id
WITH f, r
CALL (f, r) {
  UNWIND r.replaces AS old_id
  MATCH (old:Fact {id: old_id})
  CREATE (f)-[:REPLACES]->(old)
}
CALL (f, r) {
  UNWIND r.supersedes AS old_id
  MATCH (old:Fact {id: old_id})
  CREATE (f)-[:SUPERSEDED]->(old)
}
CALL (f, r) {
  WITH f, r WHERE r.object_id IS NOT NULL
  MATCH (o:Entity {id: r.object_id})
  CREATE (f)-[:OBJECT]->(o)
}
RETURN count(f) AS created
"""
"""WRITE. $owner, $t, $far, $rows (list of maps: id, entity_id, attribute, value,
object_id, value_norm, cardinality, valid_from, valid_to, status, source, evidence,
reason, confidence, run_id, message_id, replaces, supersedes) -> created (count).

Creates each row with its fields set one by one, plus REPLACES edges to the rows it
continues, SUPERSEDED edges to the rows it pushed out, and an OBJECT edge for a
relationship.
"""

RAW_CREATE = """
UNWIND $rows AS r
CREATE (f:Fact)
SET f.id = r.id, f.owner = $owner, f.entity_id = r.entity_id, f.attribute = r.attribute,
    f.value = r.value, f.value_norm = r.value_norm, f.cardinality = r.cardinality,
    f.valid_from = r.valid_from, f.valid_to = $far, f.recorded_at = $t,
    f.retracted_at = $far, f.status = 'active', f.source = 'user_edit', f.confidence = 1.0
"""
"""WRITE. Benchmark floor only (bench/): the raw batched UNWIND ... CREATE of rows with no
rules applied. $owner, $t, $far, $rows -> nothing."""


def fact_from_record(node: Any) -> FactRecord:
    """Build a `FactRecord` from a Fact node returned by the queries above."""
    return FactRecord(
        id=node["id"],
        owner=node["owner"],
        entity_id=node["entity_id"],
        attribute=node["attribute"],
        value=node.get("value"),
        object_id=node.get("object_id"),
        value_norm=node["value_norm"],
        cardinality=node["cardinality"],
        valid_from=from_store(node["valid_from"]),
        valid_to=from_store(node["valid_to"]),
        recorded_at=from_store(node["recorded_at"]),
        retracted_at=from_store(node["retracted_at"]),
        status=node["status"],
        source=node["source"],
        evidence=node.get("evidence"),
        reason=node.get("reason"),
        confidence=float(node.get("confidence", 1.0)),
        run_id=node.get("run_id"),
        message_id=node.get("message_id"),
    )

OWNER_ATTRIBUTE_AS_OF = """
UNWIND $attributes AS attribute
MATCH (f:Fact)
WHERE f.owner = $owner AND f.attribute = attribute AND f.retracted_at > $known_at
  AND f.recorded_at <= $known_at
  AND f.valid_from <= $valid_at AND f.valid_to > $valid_at
RETURN f
ORDER BY f.valid_from DESC, f.id
LIMIT $limit
"""
"""READ. $owner, $attributes, $valid_at, $known_at, $limit -> f: rows of those attributes
on any of the owner's entities visible at the as-of point, newest valid_from first.
Seeks on index `fact_owner_attribute` (owner, attribute, retracted_at > $known_at)."""

OWNER_EVENTS_BEFORE = """
MATCH (f:Fact)
WHERE f.owner = $owner AND f.attribute = $attribute AND f.retracted_at > $known_at
  AND f.recorded_at <= $known_at
  AND f.valid_from <= $valid_at
RETURN f
ORDER BY f.valid_from DESC, f.id
LIMIT $limit
"""
"""READ. $owner, $attribute, $valid_at, $known_at, $limit -> f: the latest rows of an
event-like attribute (e.g. participated_in) that started by $valid_at, newest first.
Seeks on index `fact_owner_attribute`."""
