"""Cypher for an entity's names over transaction time (CONTRACT §5: before a merge, two
entities with their own names and aliases).

An entity's current name, aliases and `search_names` live on its node, so matching a
name at the present stays one index seek (prefetch, the committer). When they change
(a merge carries the loser's names over to the survivor), the names they replace are
kept as a version: `(e)-[:HAD_NAMES]->(v:EntityNames)`, believed over
`[v.recorded_at, v.retracted_at)`, and `e.names_since` records when the current ones
took over. A read with `known_at` before `e.names_since` uses the version covering it;
versions of one entity cover `[e.created_at, e.names_since)` without gaps.
"""

from __future__ import annotations

from typing import Any

from graph.cypher._fragments import KNOWN, on
from graph.scope import ENTITY_VISIBLE

SET_NAMES = """
MATCH (e:Entity {id: $entity_id})
WHERE e.owner = $owner
CREATE (v:EntityNames)
SET v.id = $version_id,
    v.owner = $owner,
    v.entity_id = e.id,
    v.name = e.name,
    v.aliases = e.aliases,
    v.search_names = e.search_names,
    v.recorded_at = coalesce(e.names_since, e.created_at),
    v.retracted_at = $t
CREATE (e)-[:HAD_NAMES]->(v)
SET e.name = $name, e.aliases = $aliases, e.search_names = $search_names, e.names_since = $t
RETURN e
"""
"""WRITE. $owner, $entity_id, $version_id, $name, $aliases, $search_names, $t -> e (0 rows
when the entity is not the owner's). Keeps the names being replaced as a version believed
until $t, then sets the new ones, current from $t."""

NAMES_AS_OF = (
    """
MATCH (e:Entity {id: $entity_id})-[:HAD_NAMES]->(v:EntityNames)
WHERE e.owner = $owner AND """
    + on(KNOWN, "v")
    + """
RETURN v.name AS name, v.aliases AS aliases
"""
)
"""READ. $owner, $entity_id, $known_at -> name, aliases: the names the entity had at
$known_at (0 rows when its current names already held then). Seek on Entity.id."""

LIST_ENTITIES_AS_OF = (
    """
MATCH (e:Entity)
WHERE """
    + ENTITY_VISIBLE
    + """
  AND e.created_at <= $known_at
  AND ($kind IS NULL OR e.kind = $kind)
  AND ($after IS NULL OR e.id > $after)
OPTIONAL MATCH (e)-[:HAD_NAMES]->(v:EntityNames)
WHERE """
    + on(KNOWN, "v")
    + """
WITH e, v
WHERE $q IS NULL OR any(n IN coalesce(v.search_names, e.search_names) WHERE n CONTAINS $q)
RETURN e, v.name AS name, v.aliases AS aliases
ORDER BY e.id
LIMIT $limit
"""
)
"""READ. scope params (graph/scope.py), $known_at, $kind (or null), $q (normalized, or
null), $after (last id of the previous page, or null), $limit -> e, name, aliases (the
names at $known_at when they differ from the current ones, else null), ordered by id:
the entities that existed at $known_at, matched on the names they had then. Seeks on
`entity_owner_kind`/`entity_owner`."""


def names_from_record(row: Any) -> tuple[str, tuple[str, ...]] | None:
    """(name, aliases) of a `name, aliases` row whose name is set, else None."""
    if row is None or row["name"] is None:
        return None
    return row["name"], tuple(row["aliases"] or ())
