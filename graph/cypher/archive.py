"""Cypher for what integrations report and the archive (CONTRACT §5 "Archive").

An entity an integration sync named (as subject or object of an observation) carries
the integration's name in `reported_by`. A full-snapshot sync archives the entities its
integration reported before and not now: `archived = true` with `archived_at`; nothing
else changes (its facts stay, in history and time travel). Reported again, by any
sync, it returns (`archived = false`).
"""

from __future__ import annotations

MARK_REPORTED = """
UNWIND $entity_ids AS eid
MATCH (e:Entity {id: eid})
WHERE e.owner = $owner AND e.merged_into IS NULL
WITH e, coalesce(e.archived, false) AS was_archived
SET e.reported_by = CASE WHEN $integration IN coalesce(e.reported_by, [])
                         THEN e.reported_by ELSE coalesce(e.reported_by, []) + $integration END,
    e.archived = false,
    e.archived_at = null
RETURN e.id AS id, was_archived
"""
"""WRITE. $owner, $integration, $entity_ids -> id, was_archived: marks each live entity
as reported by the integration and brings an archived one back. Unique-constraint seeks
on Entity.id."""

ARCHIVE_UNREPORTED = """
MATCH (e:Entity)
WHERE e.owner = $owner AND $integration IN e.reported_by AND NOT e.id IN $reported
  AND e.merged_into IS NULL AND NOT coalesce(e.archived, false) AND e.id <> $self_id
SET e.archived = true, e.archived_at = $t
RETURN e.id AS id
ORDER BY id
"""
"""WRITE. $owner, $integration, $reported (entity ids this snapshot named), $self_id (the
owner's own entity, never archived), $t -> id of each entity archived now: reported by
the integration before, not in this snapshot, live and not archived yet. Seeks on index
`entity_owner`."""
