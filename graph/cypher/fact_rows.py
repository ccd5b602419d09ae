"""Cypher that writes fact rows (CONTRACT §2.1): retract, create, link, corroborate, and the
committer's reads of current rows inside its write transaction. For graph/write only; the
row's columns and parser live in graph/cypher/facts.py.
"""

from __future__ import annotations

from graph.cypher.facts import _project

LINEAGE = """
MATCH (x:Fact {id: $fact_id})-[:REPLACES*0..]->(y:Fact)
WHERE x.owner = $owner AND y.owner = $owner
RETURN DISTINCT y.valid_from AS valid_from, y.valid_to AS valid_to
"""
"""READ (inside a write transaction). $owner, $fact_id -> valid_from, valid_to of the row
and of every row it continues (REPLACES, any depth): the claim it is what remains of."""

PREDECESSORS = (
    """
UNWIND $fact_ids AS fact_id
MATCH path = (x:Fact {id: fact_id})-[:REPLACES*0..]->(:Fact)-[:SUPERSEDED|COALESCED]->(p:Fact)
WHERE x.owner = $owner AND p.owner = $owner
WITH fact_id, p, min(length(path)) - 1 AS depth
RETURN fact_id AS origin, """
    + _project("p")
    + """ AS row, depth,
  EXISTS {
    MATCH (p)-[:REPLACES*0..]->(:Fact)<-[:REPLACES*0..]-(d:Fact)
    WHERE d.owner = $owner AND p.retracted_at < d.retracted_at
      AND (d.id = $undoing OR EXISTS { (d)<-[:ENDED {op: 'retracted'}]-(:Event) })
  } AS disowned
"""
)
"""READ (inside a write transaction). $owner, $fact_ids, $undoing -> origin, p, depth,
disowned: for each of the rows `fact_ids`, the rows that it, or a row it continues, pushed
out (SUPERSEDED) or folded in (COALESCED), with the number of REPLACES steps to the row
that did (CONTRACT §2.2 retract brings them back). `disowned`: p is part of a claim a
retract declared never true: it continues (REPLACES, any depth, or is) a row that a row
retracted by a retract (ENDED op `retracted`), or the row `$undoing` being retracted now,
continues or is, and p was retracted before that row was."""

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
    f.valid_from = datetime({epochSeconds: r.valid_from_s, nanosecond: r.valid_from_ns}),
    f.valid_to = datetime({epochSeconds: r.valid_to_s, nanosecond: r.valid_to_ns}),
    f.recorded_at = $t,
    f.retracted_at = $far,
    f.status = r.status,
    f.source = r.source,
    f.evidence = r.evidence,
    f.reason = r.reason,
    f.confidence = r.confidence,
    f.run_id = r.run_id,
    f.message_id = r.message_id,
    f.speaker_id = r.speaker_id
RETURN count(f) AS created
"""
"""WRITE. $owner, $t, $far, $rows (list of maps: id, entity_id, attribute, value,
object_id, value_norm, cardinality, valid_from_s/_ns, valid_to_s/_ns (graph.time.
epoch_parts), status, source, evidence, reason, confidence, run_id, message_id,
speaker_id)
-> created (count).

Creates each row with its fields set one by one; LINK_ROWS adds its edges.
"""

LINK_ROWS = """
CALL () {
  UNWIND $replaces AS link
  MATCH (a:Fact {id: link.from}), (b:Fact {id: link.to})
  WHERE a.owner = $owner AND b.owner = $owner
  CREATE (a)-[:REPLACES]->(b)
}
CALL () {
  UNWIND $supersedes AS link
  MATCH (a:Fact {id: link.from}), (b:Fact {id: link.to})
  WHERE a.owner = $owner AND b.owner = $owner
  CREATE (a)-[:SUPERSEDED]->(b)
}
CALL () {
  UNWIND $coalesces AS link
  MATCH (a:Fact {id: link.from}), (b:Fact {id: link.to})
  WHERE a.owner = $owner AND b.owner = $owner
  CREATE (a)-[:COALESCED]->(b)
}
CALL () {
  UNWIND $objects AS link
  MATCH (a:Fact {id: link.from}), (b:Entity {id: link.to})
  WHERE a.owner = $owner AND b.owner = $owner
  CREATE (a)-[:OBJECT]->(b)
}
"""
"""WRITE. $owner, $replaces, $supersedes, $coalesces, $objects (lists of {from, to}).

REPLACES: a new row continues a retracted one (a remainder, or a restored row);
SUPERSEDED: a new row pushed out a row of another value; COALESCED: an asserted row
folded in a row of its value stated before (CONTRACT §2.2 retract follows the last two
back); OBJECT: a relationship row points at its object entity.
"""

CURRENT_ROWS_MANY = (
    """
UNWIND $pairs AS pair
MATCH (f:Fact)
USING INDEX f:Fact(entity_id, attribute, retracted_at, valid_to)
WHERE f.entity_id = pair.entity_id AND f.attribute = pair.attribute AND f.retracted_at = $far
  AND f.valid_to >= datetime({epochSeconds: pair.since_s, nanosecond: pair.since_ns})
  AND f.owner = $owner
RETURN """
    + _project("f")
    + """ AS row
ORDER BY f.valid_from, f.id
"""
)
"""READ (inside the committer's write transaction). $owner, $far, $pairs (list of
{entity_id, attribute, since_s, since_ns}) -> row for every current row of each pair that ends at or
after `since` (rows ending earlier cannot overlap or touch a window starting at
`since`). PROFILE: NodeIndexSeek on `fact_entity_attribute` (two equalities, the open
retracted_at, then a range on valid_to), once per pair: a supersede at the present
reads one row however deep the attribute's history is."""

CREATE_CORROBORATIONS = """
UNWIND $items AS c
MATCH (f:Fact {id: c.fact_id})
WHERE f.owner = $owner
CREATE (k:Corroboration)
SET k.id = c.id,
    k.owner = $owner,
    k.fact_id = c.fact_id,
    k.valid_from = c.valid_from,
    k.valid_to = c.valid_to,
    k.recorded_at = $t,
    k.source = c.source,
    k.evidence = c.evidence,
    k.reason = c.reason,
    k.confidence = c.confidence,
    k.run_id = c.run_id,
    k.message_id = c.message_id,
    k.event_id = c.event_id
CREATE (k)-[:CORROBORATES]->(f)
"""
"""WRITE. $owner, $t, $items (maps: id, fact_id, valid_from, valid_to, source, evidence,
reason, confidence, run_id, message_id, event_id: the decision, action or sync it was
asserted for, CONTRACT §8). CONTRACT §2.1 rule 1: a duplicate writes no
new row; the assertion is linked to the row that covers it, with its own provenance."""

RAW_CREATE = """
UNWIND $rows AS r
CREATE (f:Fact)
SET f.id = r.id, f.owner = $owner, f.entity_id = r.entity_id, f.attribute = r.attribute,
    f.value = r.value, f.value_norm = r.value_norm, f.cardinality = r.cardinality,
    f.valid_from = datetime({epochSeconds: r.valid_from_s, nanosecond: r.valid_from_ns}),
    f.valid_to = $far, f.recorded_at = $t,
    f.retracted_at = $far, f.status = 'active', f.source = 'user_edit', f.confidence = 1.0
"""
"""WRITE. Benchmark floor only (bench/): the raw batched UNWIND ... CREATE of rows with no
rules applied, times sent the same way as CREATE_ROWS. $owner, $t, $far, $rows -> nothing."""
