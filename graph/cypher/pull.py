"""Cypher for the pull read tools (CONTRACT §6 "Pull"): scoped entity reads, name lookup,
an entity's rows on both axes, and one hop of relationship traversal.

Every query here ANDs `graph.scope` predicates (`entity_visible`, `fact_visible`) and
takes `**graph.scope.params(scope)` (`$owner`, `$shared`, `$readable`, ...), so memory
access (none / restricted / full) and group sharing are honoured in one place
(CONTRACT §7). The predicates are literals composed at import; values are parameters.
A read at `(valid_at=V, known_at=T)` sees rows with `recorded_at <= T < retracted_at`
and `valid_from <= V < valid_to` (CONTRACT §2); open ends are the `FAR_FUTURE` sentinel.
"""

from __future__ import annotations

from typing import Any

from graph.cypher._fragments import AS_OF, LIVE_ENTITY, micros, on
from graph.cypher.entities import entity_from_record
from graph.cypher.facts import _project
from graph.records import EntityRecord
from graph.scope import entity_visible, fact_visible

ENTITY_COLUMNS = (
    """e {
  .id, .owner, .name, .kind, .aliases, .area, .merged_into, .archived,
  created_at_us: """
    + on(micros("created_at"), "e")
    + """,
  merged_at_us: """
    + on(micros("merged_at"), "e")
    + """
}"""
)
"""An entity's columns with its times as integer microseconds since the epoch (UTC):
decoding a DATETIME in the Python driver costs about 0.2 ms, an integer nothing (the
same reason as graph/cypher/facts.py FACT_COLUMNS). `merged_at_us` is null when unmerged."""


def entity_from_row(row: Any) -> EntityRecord:
    """Build an `EntityRecord` from an `ENTITY_COLUMNS` map (no `names_since` or
    `archived_at`: None)."""
    return entity_from_record(row)


VISIBLE_ENTITIES = (
    """
UNWIND $entity_ids AS eid
MATCH (e:Entity {id: eid})
WHERE """
    + entity_visible("e")
    + """ AND e.created_at <= $known_at
RETURN """
    + ENTITY_COLUMNS
    + """ AS e
"""
)
"""READ. $entity_ids, $known_at, scope params -> e for each of them the caller may see
and that existed at $known_at. Unique-constraint seeks on Entity.id."""

ENTITIES_NAMED = (
    """
CALL () {
  MATCH (e:Entity)
  WHERE e.owner = $owner AND $name IN e.search_names
  RETURN e
  UNION
  MATCH (e:Entity)
  WHERE e.id IN $shared AND $name IN e.search_names
  RETURN e
}
WITH e
WHERE """
    + entity_visible("e")
    + """ AND """
    + on(LIVE_ENTITY, "e")
    + """
RETURN """
    + ENTITY_COLUMNS
    + """ AS e
ORDER BY e.created_at_us, e.id
LIMIT $limit
"""
)
"""READ. $name (normalized by `graph.names.search_key`), $known_at, $limit, scope params
-> e: the visible entities whose name or an alias normalizes exactly to $name, that
existed and were not yet merged into another at $known_at, oldest first.
Seeks on index `entity_owner` (own entities) and on the Entity.id constraint (shared)."""

ENTITY_ROWS = (
    """
UNWIND $entity_ids AS eid
MATCH (f:Fact)
USING INDEX f:Fact(entity_id, retracted_at, valid_to)
WHERE f.entity_id = eid AND f.retracted_at > $known_at AND f.valid_to > $valid_lo
  AND f.recorded_at <= $known_at AND f.valid_from <= $valid_hi
  AND """
    + fact_visible("f")
    + """
RETURN """
    + _project("f")
    + """ AS row
ORDER BY f.entity_id, f.attribute, f.valid_from, f.recorded_at, f.id
"""
)
"""READ. $entity_ids, $known_at, $valid_lo, $valid_hi, scope params -> row: the rows of
each entity believed at $known_at (`recorded_at <= T < retracted_at`) whose valid window
meets `[$valid_lo, $valid_hi]` (`valid_from <= hi AND valid_to > lo`) and that the scope
lets through. With lo = hi = V it is the as-of read at (V, T) (CONTRACT §2); with
lo = FAR_PAST and hi = FAR_FUTURE it is every row believed at T (the history as known
then, CONTRACT §2.3). NodeIndexSeekByRange on `fact_entity_asof`."""

NEIGHBOR_ROWS = (
    """
UNWIND $frontier AS x
CALL (x) {
  MATCH (f:Fact)
  USING INDEX f:Fact(entity_id, retracted_at, valid_to)
  WHERE f.entity_id = x AND f.object_id IS NOT NULL
    AND """
    + on(AS_OF, "f")
    + """
    AND """
    + fact_visible("f")
    + """
  MATCH (f)-[:OBJECT]->(o:Entity)
  WHERE """
    + entity_visible("o")
    + """ AND o.created_at <= $known_at
  RETURN f, o.id AS other
  UNION
  MATCH (:Entity {id: x})<-[:OBJECT]-(f:Fact)
  WHERE """
    + on(AS_OF, "f")
    + """
    AND """
    + fact_visible("f")
    + """
  MATCH (s:Entity {id: f.entity_id})
  WHERE """
    + entity_visible("s")
    + """ AND s.created_at <= $known_at
  RETURN f, s.id AS other
}
WITH f, collect(DISTINCT other) AS others
WHERE NOT f.id IN $fetched
RETURN """
    + _project("f")
    + """ AS row, others
ORDER BY row.id
"""
)
"""READ. $frontier (entity ids), $fetched (row ids already read), $valid_at, $known_at,
scope params -> row, others: every relationship row (one with an `object_id`) not in
$fetched, visible at the as-of point (CONTRACT §2) and under the scope, that leaves a
frontier entity (its object is in `others`) or points at one (its subject is in
`others`), where each of `others` is an entity the caller may see and that existed at
$known_at; each row once. One hop of `Reader.neighbors` (CONTRACT §6 relationship traversal).
Outgoing: NodeIndexSeekByRange on `fact_entity_asof`, then the OBJECT edge; incoming:
Entity.id constraint seek, then the OBJECT edges into it."""
