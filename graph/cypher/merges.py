"""Cypher for merge suggestions and entity merges (CONTRACT §4 "Merge suggestions", §5)."""

from __future__ import annotations

from typing import Any

from graph.records import MergeSuggestionRecord
from graph.time import from_store

CREATE_SUGGESTION = """
MERGE (s:MergeSuggestion {key: $key})
ON CREATE SET s.id = $id, s.owner = $owner, s.entity_ids = $entity_ids, s.reason = $reason,
  s.score = $score, s.status = 'open', s.created_at = $t
RETURN s, s.created_at = $t AND s.owner = $owner AS created
"""
"""WRITE. $owner, $key (owner + the two entity ids, sorted), $id, $entity_ids, $reason,
$score, $t -> s, created. A pair is suggested at most once: a declined pair's node stays,
so it is never suggested again (CONTRACT §4)."""

SUGGESTION_BY_ID = """
MATCH (s:MergeSuggestion {id: $id})
WHERE s.owner = $owner
RETURN s
"""
"""READ. $owner, $id -> s (0 or 1)."""

LIST_SUGGESTIONS = """
MATCH (s:MergeSuggestion)
WHERE s.owner = $owner AND ($status IS NULL OR s.status = $status)
RETURN s
ORDER BY s.created_at, s.id
LIMIT $limit
"""
"""READ. $owner, $status (null = any), $limit -> s, oldest first."""

SUGGESTED_KEYS = """
UNWIND $keys AS key
MATCH (s:MergeSuggestion {key: key})
WHERE s.owner = $owner
RETURN s.key AS key
"""
"""READ. $owner, $keys -> key of each pair suggested before (open, confirmed or declined)."""

DECIDE_SUGGESTION = """
MATCH (s:MergeSuggestion {id: $id})
WHERE s.owner = $owner AND s.status = 'open'
SET s.status = $status, s.decided_at = $t
RETURN s
"""
"""WRITE. $owner, $id, $status (`confirmed`|`declined`), $t -> s (0 rows if not open)."""

MARK_MERGED = """
MATCH (loser:Entity {id: $loser}), (survivor:Entity {id: $survivor})
WHERE loser.owner = $owner AND survivor.owner = $owner
SET loser.merged_into = $survivor, loser.merged_at = $t
CREATE (loser)-[:MERGED_INTO {at: $t}]->(survivor)
RETURN loser.id AS id
"""
"""WRITE. $owner, $loser, $survivor, $t -> id. The loser node is kept (CONTRACT §5); the
survivor's names change through graph/cypher/lifecycle.py SET_NAMES."""

CURRENT_ROWS_ABOUT = """
MATCH (e:Entity {id: $entity_id})<-[:OBJECT]-(f:Fact)
WHERE e.owner = $owner AND f.retracted_at = $far
RETURN f.id AS id
"""
"""READ. $owner, $entity_id, $far -> id of every current row whose object is the entity
(relationships that point at it)."""

ENTITY_ROWS_CURRENT = """
MATCH (f:Fact)
USING INDEX f:Fact(entity_id, retracted_at, valid_to)
WHERE f.entity_id = $entity_id AND f.retracted_at = $far AND f.valid_to > $since
  AND f.owner = $owner
RETURN f.id AS id
"""
"""READ. $owner, $entity_id, $far, $since (the earliest instant: every valid time) -> id
of every row of the entity under current knowledge. Seeks on `fact_entity_asof`."""


def suggestion_from_record(node: Any) -> MergeSuggestionRecord:
    """Build a `MergeSuggestionRecord` from a MergeSuggestion node."""
    decided = node.get("decided_at")
    a, b = node["entity_ids"]
    return MergeSuggestionRecord(
        id=node["id"],
        owner=node["owner"],
        entity_ids=(a, b),
        reason=node["reason"],
        score=float(node["score"]),
        status=node["status"],
        created_at=from_store(node["created_at"]),
        decided_at=None if decided is None else from_store(decided),
    )
