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
from graph.scope import FACT_VISIBLE, fact_visible, source_visible
from graph.time import from_micros, from_store

FACT_COLUMNS = """{
  .id, .owner, .entity_id, .attribute, .value, .object_id, .value_norm, .cardinality,
  .status, .source, .evidence, .reason, .confidence, .run_id, .message_id, .speaker_id,
  valid_from_us: (VAR.valid_from.epochSeconds - CASE WHEN VAR.valid_from.nanosecond > 0
    AND VAR.valid_from < datetime({epochSeconds: 0}) THEN 1 ELSE 0 END) * 1000000
    + VAR.valid_from.microsecond,
  valid_to_us: (VAR.valid_to.epochSeconds - CASE WHEN VAR.valid_to.nanosecond > 0
    AND VAR.valid_to < datetime({epochSeconds: 0}) THEN 1 ELSE 0 END) * 1000000
    + VAR.valid_to.microsecond,
  recorded_at_us: VAR.recorded_at.epochSeconds * 1000000 + VAR.recorded_at.microsecond,
  retracted_at_us: VAR.retracted_at.epochSeconds * 1000000 + VAR.retracted_at.microsecond
}"""
"""A fact row's columns with its four times as integer microseconds since the epoch (UTC).

`epochSeconds` truncates toward zero, so a valid time before 1970 with a fraction of a
second takes one second off (transaction times are never before 1970).

Decoding a DATETIME in the Python driver costs about 0.2 ms (pure Python), four per row;
integers cost nothing, so the reads below return rows in this shape. A literal, used
only through the module's own constants (never built from input).
"""


def _project(var: str) -> str:
    return var + " " + FACT_COLUMNS.replace("VAR", var)


FACTS_CURRENT = (
    """
UNWIND $entity_ids AS eid
MATCH (f:Fact)
USING INDEX f:Fact(entity_id, retracted_at, valid_to)
WHERE f.entity_id = eid AND f.retracted_at = $far AND f.valid_to > $valid_at
  AND """
    + FACT_VISIBLE
    + """
  AND f.recorded_at <= $known_at
  AND f.valid_from <= $valid_at
RETURN """
    + _project("f")
    + """ AS row
ORDER BY f.entity_id, f.attribute, f.valid_from, f.recorded_at, f.id
"""
)
"""READ. **params(scope), $entity_ids, $valid_at, $known_at (now), $far -> f: the rows of
each entity visible under current knowledge (CONTRACT §2 with known_at = now: exactly
the rows whose retracted_at is still open) that the scope may see (CONTRACT §7).

PROFILE (Neo4j 5.26): NodeIndexSeek on `fact_entity_asof`
(entity_id = eid, retracted_at = $far, valid_to > $valid_at): two equalities and one
range, so an attribute with 1,000 superseded versions yields only the rows still valid
at $valid_at; the rest is a Filter over those few rows.
"""

FACTS_AS_OF = (
    """
UNWIND $entity_ids AS eid
MATCH (f:Fact)
USING INDEX f:Fact(entity_id, retracted_at, valid_to)
WHERE f.entity_id = eid AND f.retracted_at > $known_at
  AND """
    + FACT_VISIBLE
    + """
  AND f.recorded_at <= $known_at
  AND f.valid_from <= $valid_at AND f.valid_to > $valid_at
RETURN """
    + _project("f")
    + """ AS row
ORDER BY f.entity_id, f.attribute, f.valid_from, f.recorded_at, f.id
"""
)
"""READ. **params(scope), $entity_ids, $valid_at, $known_at -> f: the rows of each entity
visible at the as-of point (CONTRACT §2: recorded_at <= T < retracted_at and
valid_from <= V < valid_to) that the scope may see (CONTRACT §7).

PROFILE (Neo4j 5.26): NodeIndexSeekByRange on `fact_entity_asof`
(entity_id = eid, retracted_at > $known_at), with valid_to > $valid_at checked on the
index entries (cached property); valid_from and recorded_at are a Filter.
"""

HISTORY = (
    """
OPTIONAL MATCH (loser:Entity)-[m:MERGED_INTO*1..20]->(:Entity {id: $entity_id})
WHERE all(r IN m WHERE r.at <= $known_at)
WITH [$entity_id] + collect(DISTINCT loser.id) AS entity_ids
UNWIND entity_ids AS eid
MATCH (f:Fact)
USING INDEX f:Fact(entity_id, retracted_at, valid_to)
WHERE f.entity_id = eid AND f.retracted_at IS NOT NULL AND f.valid_to IS NOT NULL
  AND ($attribute IS NULL OR f.attribute = $attribute)
  AND f.recorded_at <= $known_at
  AND ($include_retracted OR f.retracted_at > $known_at)
  AND ($after IS NULL OR f.valid_from > $after.valid_from
       OR (f.valid_from = $after.valid_from AND (f.recorded_at > $after.recorded_at
       OR (f.recorded_at = $after.recorded_at AND (f.attribute > $after.attribute
       OR (f.attribute = $after.attribute AND f.id > $after.id))))))
  AND """
    + fact_visible("f")
    + """
RETURN """
    + _project("f")
    + """ AS row
ORDER BY f.valid_from, f.recorded_at, f.attribute, f.id
LIMIT $limit
"""
)
"""READ. scope params (graph/scope.py), $entity_id, $attribute (or null = every
attribute), $known_at, $include_retracted, $after (null, or the sort key of the last row
of the previous page: {valid_from, recorded_at, attribute, id}), $limit -> row.

CONTRACT §2.3: the rows believed at $known_at (`recorded_at <= T < retracted_at`); with
$include_retracted every row recorded by $known_at, retracted or not (the audit view).
The entity's rows include those of entities merged into it by $known_at (CONTRACT §5:
their rows were retracted by the merge and recorded again on it, so only the audit view
shows them). Ordered by valid_from, then recorded_at, attribute and id; keyset-paginated
on that key, so a page never repeats or skips a row when rows are added between pages.
PROFILE: Entity.id seek for the merge walk, then NodeIndexSeek on `fact_entity_asof` by
entity_id (the hint matters: without it the `$attribute IS NULL OR ...` form made the
planner scan every Fact).
"""

FACT_BY_ID = (
    """
MATCH (f:Fact {id: $fact_id})
WHERE """
    + FACT_VISIBLE
    + """
RETURN """
    + _project("f")
    + """ AS row
"""
)
"""READ. **params(scope), $fact_id -> f (0 or 1 row): the row if the scope may see it
(CONTRACT §7). Unique-constraint seek on Fact.id. The committer reads its own rows
through it with `params(owner)` (a bare owner: its own memory only)."""

FACTS_BY_IDS = (
    """
UNWIND $ids AS fid
MATCH (f:Fact {id: fid})
WHERE f.owner = $owner
RETURN """
    + _project("f")
    + """ AS row
"""
)
"""READ. $owner, $ids -> f for each id that is a row of the owner. Unique-constraint seeks."""

LINEAGE = """
MATCH (x:Fact {id: $fact_id})-[:REPLACES*0..]->(y:Fact)
WHERE x.owner = $owner AND y.owner = $owner
RETURN DISTINCT y.valid_from AS valid_from, y.valid_to AS valid_to
"""
"""READ (inside a write transaction). $owner, $fact_id -> valid_from, valid_to of the row
and of every row it continues (REPLACES, any depth): the claim it is what remains of."""

PREDECESSORS = (
    """
MATCH path = (x:Fact {id: $fact_id})-[:REPLACES*0..]->(:Fact)-[:SUPERSEDED|COALESCED]->(p:Fact)
WHERE x.owner = $owner AND p.owner = $owner
RETURN """
    + _project("p")
    + """ AS row, min(length(path)) - 1 AS depth
"""
)
"""READ (inside a write transaction). $owner, $fact_id -> p, depth: the rows that the
row, or a row it continues, pushed out (SUPERSEDED) or folded in (COALESCED), with the
number of REPLACES steps to the row that did (CONTRACT §2.2 retract brings them back)."""

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
speaker_id) -> created (count).

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

CORROBORATIONS = (
    """
MATCH (k:Corroboration)-[:CORROBORATES]->(f:Fact {id: $fact_id})
WHERE """
    + FACT_VISIBLE
    + """ AND k.owner = f.owner AND """
    + source_visible("k")
    + """
RETURN k
ORDER BY k.recorded_at, k.id
"""
)
"""READ. **params(scope), $fact_id -> k: the later assertions that said the same (oldest
first), of a row the scope may see, each from a source the scope may see (CONTRACT §7)."""

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


def _time(row: Any, key: str) -> Any:
    micros = row.get(key + "_us")
    return from_micros(micros) if micros is not None else from_store(row[key])


def fact_from_record(node: Any) -> FactRecord:
    """Build a `FactRecord` from a `row` column above (or from a Fact node)."""
    return FactRecord(
        id=node["id"],
        owner=node["owner"],
        entity_id=node["entity_id"],
        attribute=node["attribute"],
        value=node.get("value"),
        object_id=node.get("object_id"),
        value_norm=node["value_norm"],
        cardinality=node["cardinality"],
        valid_from=_time(node, "valid_from"),
        valid_to=_time(node, "valid_to"),
        recorded_at=_time(node, "recorded_at"),
        retracted_at=_time(node, "retracted_at"),
        status=node["status"],
        source=node["source"],
        evidence=node.get("evidence"),
        reason=node.get("reason"),
        confidence=float(node.get("confidence", 1.0)),
        run_id=node.get("run_id"),
        message_id=node.get("message_id"),
        speaker_id=node.get("speaker_id"),
    )


OWNER_ATTRIBUTE_AS_OF = (
    """
CALL () {
  UNWIND $attributes AS attribute
  MATCH (f:Fact)
  USING INDEX f:Fact(owner, attribute, retracted_at)
  WHERE f.owner = $owner AND f.attribute = attribute AND f.retracted_at > $known_at
  RETURN f
  UNION
  UNWIND $shared AS eid
  UNWIND $attributes AS attribute
  MATCH (f:Fact)
  USING INDEX f:Fact(entity_id, attribute, retracted_at, valid_to)
  WHERE f.entity_id = eid AND f.attribute = attribute AND f.retracted_at > $known_at
    AND f.valid_to > $valid_at
  RETURN f
}
WITH f
WHERE """
    + FACT_VISIBLE
    + """
  AND f.recorded_at <= $known_at
  AND f.valid_from <= $valid_at AND f.valid_to > $valid_at
RETURN """
    + _project("f")
    + """ AS row
ORDER BY f.valid_from DESC, f.id
LIMIT $limit
"""
)
"""READ. **params(scope), $attributes, $valid_at, $known_at, $limit -> f: rows of those
attributes visible at the as-of point, on the owner's entities and on those shared
with it, that the scope may see (CONTRACT §7), newest valid_from first.
Two seeks in a union: index `fact_owner_attribute` (owner, attribute, retracted_at >
$known_at) for the owner's rows, `fact_entity_attribute` per shared entity for the rest
(an OR of the two would be planned as a scan of every Fact)."""

OWNER_EVENTS_BEFORE = (
    """
CALL () {
  MATCH (f:Fact)
  USING INDEX f:Fact(owner, attribute, retracted_at)
  WHERE f.owner = $owner AND f.attribute = $attribute AND f.retracted_at > $known_at
  RETURN f
  UNION
  UNWIND $shared AS eid
  MATCH (f:Fact)
  USING INDEX f:Fact(entity_id, attribute, retracted_at, valid_to)
  WHERE f.entity_id = eid AND f.attribute = $attribute AND f.retracted_at > $known_at
    AND f.valid_to IS NOT NULL
  RETURN f
}
WITH f
WHERE """
    + FACT_VISIBLE
    + """
  AND f.recorded_at <= $known_at
  AND f.valid_from <= $valid_at
RETURN """
    + _project("f")
    + """ AS row
ORDER BY f.valid_from DESC, f.id
LIMIT $limit
"""
)
"""READ. **params(scope), $attribute, $valid_at, $known_at, $limit -> f: the latest rows
of an event-like attribute (e.g. participated_in) that started by $valid_at, on the
owner's entities and on those shared with it, that the scope may see (CONTRACT §7),
newest first. Seeks as OWNER_ATTRIBUTE_AS_OF."""
