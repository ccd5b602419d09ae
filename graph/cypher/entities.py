"""Cypher for entities and owners (STYLE: "Cypher as named constants")."""

from __future__ import annotations

from typing import Any

from graph.cypher._fragments import KNOWN, LIVE_ENTITY, micros, on
from graph.records import EntityRecord
from graph.scope import ENTITY_VISIBLE
from graph.time import from_micros, from_store

ENTITY_MAP = (
    """VAR {
  .id, .owner, .name, .kind, .aliases, .area, .merged_into, .archived,
  created_at_us: """
    + micros("created_at")
    + """,
  merged_at_us: """
    + micros("merged_at")
    + """,
  names_since_us: """
    + micros("names_since")
    + """,
  archived_at_us: """
    + micros("archived_at")
    + """
}"""
)
"""Every column `entity_from_record` reads of an entity bound to `VAR` (graph.cypher.
_fragments.on), its times as integer microseconds since the epoch (UTC; null when the
node has none): decoding a DATETIME costs the Python driver about 0.2 ms and a search
returns up to 200 entities (the same reason as graph/cypher/facts.py FACT_COLUMNS).
Transaction times only, never before 1970, so `micros` is exact."""

ENTITY_BY_ID = (
    """
MATCH (e:Entity {id: $entity_id})
WHERE """
    + ENTITY_VISIBLE
    + """ AND e.created_at <= $known_at
RETURN e
"""
)
"""READ. **params(scope), $entity_id, $known_at -> e (0 or 1): the entity if the scope
may see it (CONTRACT §7). Unique-constraint seek on Entity.id. The committer reads its
own entities through it with `params(owner)` (a bare owner: its own memory only)."""

ENTITIES_BY_IDS = (
    """
MATCH (e:Entity)
WHERE e.id IN $entity_ids AND """
    + ENTITY_VISIBLE
    + """
RETURN e
ORDER BY e.id
"""
)
"""READ. **params(scope), $entity_ids -> e for each id the scope may see (CONTRACT §7).
Unique-constraint seeks on Entity.id."""

LIST_ENTITIES = (
    """
MATCH (e:Entity)
WHERE """
    + ENTITY_VISIBLE
    + """
  AND ($kind IS NULL OR e.kind = $kind)
  AND ($q IS NULL OR any(n IN e.search_names WHERE n CONTAINS $q))
  AND ($after IS NULL OR e.id > $after)
RETURN e
ORDER BY e.id
LIMIT $limit
"""
)
"""READ. **params(scope), $kind (or null), $q (normalized: case-folded, accents stripped,
or null), $after (cursor: last id of the previous page, or null), $limit -> e, ordered
by id: the owner's entities and those shared with it (CONTRACT §7).
PROFILE: the planner solves ENTITY_VISIBLE's OR as a union of two seeks (index
`entity_owner` on owner, the unique constraint on id IN $shared), then a Distinct."""

ENTITY_IDS_OF_OWNER = """
MATCH (e:Entity)
WHERE e.id IN $entity_ids AND e.owner = $owner
RETURN e.id AS id, e.merged_into AS merged_into
"""
"""READ. $owner, $entity_ids -> id, merged_into (or null), for each of them that is the
owner's."""

ALL_ENTITY_NAMES = (
    """
MATCH (e:Entity)
WHERE """
    + ENTITY_VISIBLE
    + """ AND """
    + on(LIVE_ENTITY, "e")
    + """
RETURN e.id AS id, e.archived AS archived,
  CASE WHEN coalesce(e.names_since, e.created_at) <= $known_at THEN e.search_names
  ELSE head([(e)-[:HAD_NAMES]->(v:EntityNames)
             WHERE """
    + on(KNOWN, "v")
    + """
             | v.search_names]) END AS names
"""
)
"""READ. **params(scope), $known_at -> id, names (normalized names and aliases), archived, of the
entities live at $known_at (created by then, not merged yet), each with the names it had
then (CONTRACT §5: before a merge, two entities with their own names), those the
scope may see (CONTRACT §7). For matching
mentions in a message (prefetch). At the present every entity's names are its current
`search_names` (the CASE never expands); only a past $known_at reads a name version."""

FIND_BY_NAME = """
MATCH (e:Entity)
WHERE e.owner = $owner AND e.kind = $kind AND $name IN e.search_names
  AND e.merged_into IS NULL
RETURN e
ORDER BY e.created_at, e.id
LIMIT 1
"""
"""READ. $owner, $kind, $name (normalized) -> e, the oldest entity of that kind whose name or
alias normalizes to $name."""

CREATE_ENTITY = """
MATCH (o:Owner {id: $owner})
CREATE (e:Entity)
SET e.id = $id,
    e.owner = $owner,
    e.name = $name,
    e.kind = $kind,
    e.aliases = $aliases,
    e.search_names = $search_names,
    e.area = $area,
    e.archived = false,
    e.created_at = $t
CREATE (o)-[:OWNS]->(e)
RETURN e
"""
"""WRITE. $owner, $id, $name, $kind, $aliases, $search_names, $area, $t -> e."""

ENSURE_OWNER = """
MERGE (o:Owner {id: $owner})
ON CREATE SET o.created_at = $t, o.last_tx = $t, o.self_entity_id = $self_id
RETURN o.self_entity_id AS self_entity_id, o.created_at = $t AS created
"""
"""WRITE. $owner, $t, $self_id -> self_entity_id, created (bool: this call made it)."""

OWNER = """
MATCH (o:Owner {id: $owner})
RETURN o.self_entity_id AS self_entity_id
"""
"""READ. $owner -> self_entity_id (0 rows when the owner is unknown)."""

LOCK_OWNER = """
MATCH (o:Owner {id: $owner})
SET o.locked_by = $tx_id
WITH o
WHERE o.erasing IS NULL AND o.importing IS NULL
RETURN o.id AS id
"""
"""WRITE. $owner, $tx_id -> id. Takes the owner node's write lock for the rest of the
transaction: every commit of one owner is serialized behind it (CONTRACT §2.1 rule 6).
0 rows when the owner is unknown, being erased (graph/cypher/erasure.py) or being
imported (graph/cypher/portability.py)."""

NEXT_TX_TIME = """
MATCH (o:Owner {id: $owner})
RETURN o.last_tx AS last_tx
"""
"""READ (under LOCK_OWNER). $owner -> last_tx, the previous commit time of this owner."""

SET_TX_TIME = """
MATCH (o:Owner {id: $owner})
SET o.last_tx = $t
"""
"""WRITE. $owner, $t. Records this commit's time so the next one is strictly later (CONTRACT §2)."""


def entity_from_record(node: Any) -> EntityRecord:
    """Build an `EntityRecord` from an Entity node, or from a map of its columns with times
    in microseconds (`ENTITY_MAP`, graph/cypher/pull.py ENTITY_COLUMNS: a time it does not
    carry is None)."""
    micros_map = "created_at_us" in node

    def at(field: str) -> Any:
        value = node.get(field + "_us" if micros_map else field)
        if value is None:
            return None
        return from_micros(value) if micros_map else from_store(value)

    return EntityRecord(
        id=node["id"],
        owner=node["owner"],
        name=node["name"],
        kind=node["kind"],
        aliases=tuple(node.get("aliases") or ()),
        area=node.get("area"),
        merged_into=node.get("merged_into"),
        archived=bool(node.get("archived", False)),
        created_at=at("created_at"),
        merged_at=at("merged_at"),
        names_since=at("names_since"),
        archived_at=at("archived_at"),
    )
