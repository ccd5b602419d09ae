"""Cypher for fact rows (STYLE: "Cypher as named constants", one module per aggregate).

Each constant is followed by its docstring: READ or WRITE, its `$parameters`, the
columns it returns. Values are always parameters; labels and relationship types are
literals. Rows are never deleted and never rewritten, except `retracted_at`, set once.
Open ends are stored as the `$far` sentinel (graph.time.FAR_FUTURE) so that range
predicates use the indexes created in graph/schema.py.
"""

from __future__ import annotations

from typing import Any

from graph.cypher._fragments import AS_OF, micros, on, valid_micros
from graph.records import FactRecord
from graph.scope import FACT_VISIBLE, fact_visible, source_visible
from graph.time import from_micros, from_store

FACT_COLUMNS = (
    """{
  .id, .owner, .entity_id, .attribute, .value, .object_id, .value_norm, .cardinality,
  .status, .source, .evidence, .reason, .confidence, .run_id, .message_id, .speaker_id,
  valid_from_us: """
    + valid_micros("valid_from")
    + """,
  valid_to_us: """
    + valid_micros("valid_to")
    + """,
  recorded_at_us: """
    + micros("recorded_at")
    + """,
  retracted_at_us: """
    + micros("retracted_at")
    + """
}"""
)
"""A fact row's columns with its four times as integer microseconds since the epoch (UTC;
graph/cypher/_fragments.py says why). `VAR` stands for the row's variable. A literal, used
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
  AND """
    + on(AS_OF, "f")
    + """
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


def _time(row: Any, key: str) -> Any:
    micros = row.get(key + "_us")
    return from_micros(micros) if micros is not None else from_store(row[key])


def valid_from(node: Any) -> Any:
    """A `row` column's valid_from (aware UTC), without decoding the rest of it."""
    return _time(node, "valid_from")


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
  AND """
    + on(AS_OF, "f")
    + """
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
