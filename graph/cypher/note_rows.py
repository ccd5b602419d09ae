"""Cypher the committer writes notes with (CONTRACT §13; the model: graph/cypher/notes.py).

Rows are created field by field and never rewritten except `retracted_at` (set once);
nothing here deletes. Every query runs in the committer's transaction after
`begin_commit` (the owner is locked); a group note's writes also hold the group's lock
(`GROUP_NOTE_CLOCK`), so writes of one group's notes are serialized and their times
strictly increase even across members.
"""

from __future__ import annotations

from graph.cypher.notes import NOTE_COLUMNS

_ROW = "n " + NOTE_COLUMNS.replace("VAR", "n") + " AS n"

GROUP_NOTE_CLOCK = """
MATCH (g:Group {id: $group_id})
SET g.locked_by = $tx_id
RETURN g.last_note_at AS last
"""
"""WRITE. $group_id, $tx_id -> last (the last time a note of the group was written, or null;
0 rows: no such group). Takes the group node's write lock to the end of the transaction."""

SET_GROUP_NOTE_CLOCK = """
MATCH (g:Group {id: $group_id})
SET g.last_note_at = $t
"""
"""WRITE. $group_id, $t: the group's note clock moves to this commit's time."""

LIVE_GROUPS = """
MATCH (m:Membership {member: $owner})
WHERE m.left_at = $far
RETURN collect(DISTINCT m.group_id) AS groups
"""
"""READ. $owner, $far -> groups: the groups `$owner` belongs to now (whose notes it may
replace, retire and close)."""

CURRENT_IN_SLOT = (
    """
CALL () {
  MATCH (n:Note)
  WHERE $group_id IS NULL AND n.owner = $owner AND n.group_id IS NULL
    AND n.retracted_at = $far AND n.valid_to = $far
  RETURN n
  UNION
  MATCH (n:Note)
  WHERE n.group_id = $group_id AND n.retracted_at = $far AND n.valid_to = $far
  RETURN n
}
WITH n
WHERE (n.project_norm = $project_norm OR (n.project_norm IS NULL AND $project_norm IS NULL))
  AND (($key_norm IS NOT NULL AND n.key_norm = $key_norm) OR n.content_norm = $content_norm)
OPTIONAL MATCH (h:NoteHead {note_id: n.note_id})
RETURN """
    + _ROW
    + """, coalesce(n.key_norm = $key_norm, false) AS by_key,
       n.content_norm = $content_norm AS same, h.tier AS tier
ORDER BY by_key DESC, n.note_id
"""
)
"""READ. $owner, $group_id (or null: the owner's own notes), $project_norm, $key_norm (or
null), $content_norm, $far -> n, by_key, same: the current versions (open on both axes) in
the same scope and project that have the key, or the same normalized content; keyed
first, with the note's tier. Seeks on `note_owner_current` or `note_group_current`."""

LIVE_NOTES = (
    """
MATCH (n:Note)
WHERE n.owner = $owner AND n.group_id IS NULL AND n.retracted_at = $far AND n.valid_to = $far
RETURN """
    + _ROW
    + """
ORDER BY n.note_id
"""
)
"""READ. $owner, $far -> n: the current versions of the owner's own notes, every project
(the committer finds "the note about ..." a person asks to forget among them)."""

CURRENT_OF_NOTE = (
    """
MATCH (n:Note {note_id: $note_id})
WHERE n.retracted_at = $far
  AND CASE WHEN n.group_id IS NULL THEN n.owner = $owner ELSE n.group_id IN $groups END
WITH n ORDER BY n.valid_to DESC, n.recorded_at DESC LIMIT 1
OPTIONAL MATCH (h:NoteHead {note_id: n.note_id})
RETURN """
    + _ROW
    + """, n.key_norm AS key_norm, n.project_norm AS project_norm,
       n.content_norm AS content_norm, h.tier AS tier
"""
)
"""READ. $note_id, $owner, $groups (the writer's live groups), $far -> n, key_norm,
project_norm, content_norm, tier (0 or 1 row): the note's row of current knowledge that ends
last (open when the note holds now; ended when it was retired). Seeks on `note_note_id`."""

CREATE_NOTE_ROWS = """
UNWIND $rows AS r
CREATE (n:Note)
SET n.id = r.id, n.note_id = r.note_id, n.owner = r.owner, n.group_id = r.group_id,
    n.kind = r.kind, n.title = r.title, n.body = r.body, n.evidence = r.evidence,
    n.known_by = r.known_by, n.source = r.source, n.confidence = r.confidence,
    n.key = r.key, n.key_norm = r.key_norm, n.project = r.project,
    n.project_norm = r.project_norm, n.content_norm = r.content_norm,
    n.search_text = r.search_text, n.status = r.status, n.review_at = r.review_at,
    n.closed_at = r.closed_at, n.close_reason = r.close_reason,
    n.first_learned_at = r.first_learned_at, n.valid_from = r.valid_from,
    n.valid_to = r.valid_to, n.recorded_at = $t, n.retracted_at = $far,
    n.row_status = r.row_status, n.version = r.version, n.run_id = r.run_id,
    n.chat_id = r.chat_id, n.message_id = r.message_id, n.agent_id = r.agent_id,
    n.experiment_id = r.experiment_id
"""
"""WRITE. $rows (maps with every field set above; open ends as FAR_FUTURE), $t, $far: new
version rows recorded at $t."""

LINK_NOTE_ROWS = """
CALL () {
  UNWIND $supersedes AS l
  MATCH (a:Note {id: l.from}), (b:Note {id: l.to})
  CREATE (a)-[:SUPERSEDES]->(b)
}
CALL () {
  UNWIND $replaces AS l
  MATCH (a:Note {id: l.from}), (b:Note {id: l.to})
  CREATE (a)-[:REMAINS_OF]->(b)
}
CALL () {
  UNWIND $moved AS l
  MATCH (a:Note {id: l.from}), (b:Note {id: l.to})
  CREATE (a)-[:HANDED_OVER_FROM]->(b)
}
"""
"""WRITE. $supersedes, $replaces, $moved (maps {from, to}: row ids): a new version to the
version it replaced, a remainder to its original, a handed-over row to the row it moved.
Unique-constraint seeks on Note.id."""

RETRACT_NOTE_ROWS = """
UNWIND $ids AS id
MATCH (n:Note {id: id})
WHERE n.retracted_at = $far
SET n.retracted_at = $t
RETURN count(n) AS retracted
"""
"""WRITE. $ids, $t, $far -> retracted: sets `retracted_at` once on current rows."""

CREATE_HEAD = """
MERGE (h:NoteHead {note_id: $note_id})
ON CREATE SET h.id = $note_id, h.owner = $owner, h.tier = $tier, h.tier_since = $t,
    h.relevance = 1.0, h.relevance_session = $sessions, h.stored = 1, h.last_stored_at = $t,
    h.created_at = $t
"""
"""WRITE. $note_id, $owner, $tier, $t, $sessions (the owner's session count now): the
standing of a new note (relevance 1.0); an existing head is left as it is."""

PROMOTE_HEAD = """
MATCH (h:NoteHead {note_id: $note_id})
SET h.tier = $tier, h.tier_since = CASE WHEN h.tier = $tier THEN h.tier_since ELSE $t END,
    h.relevance = 1.0, h.relevance_session = $sessions, h.stored = h.stored + 1,
    h.last_stored_at = $t
RETURN h.tier AS tier, h.stored AS stored
"""
"""WRITE. $note_id, $tier (the tier it moves up to), $t, $sessions -> tier, stored: storing
the same content again promotes the note instead of writing a duplicate (issue 15)."""

MOVE_HEADS = """
UNWIND $note_ids AS id
MATCH (h:NoteHead {note_id: id})
SET h.owner = $to
"""
"""WRITE. $note_ids, $to: a handover moves the notes' standing to their new owner."""

COUNT_LIVE = """
MATCH (n:Note)
WHERE n.owner = $owner AND n.retracted_at = $far AND n.valid_to = $far
RETURN count(DISTINCT n.note_id) AS live
"""
"""READ. $owner, $far -> live: the notes the owner holds now (its group notes included),
for the limit on notes per owner. Seeks on `note_owner_current`."""

BUMP_SESSIONS = """
MATCH (o:Owner {id: $owner})
SET o.note_sessions = coalesce(o.note_sessions, 0) + 1
RETURN o.note_sessions AS sessions
"""
"""WRITE. $owner -> sessions: one more session ended (every note's relevance decays once)."""

SESSIONS = """
MATCH (o:Owner {id: $owner})
RETURN coalesce(o.note_sessions, 0) AS sessions
"""
"""READ. $owner -> sessions: how many sessions of the owner have ended."""

SHORT_EXPIRED = (
    """
MATCH (h:NoteHead {owner: $owner})
WHERE h.tier = 'short' AND h.tier_since <= $cutoff
MATCH (n:Note {note_id: h.note_id})
WHERE n.retracted_at = $far AND n.valid_to = $far
RETURN """
    + _ROW
    + """
ORDER BY n.note_id
"""
)
"""READ. $owner, $cutoff, $far -> n: current versions of the owner's short-tier notes whose
tier was set at or before $cutoff (24 hours ago): retired at the next brief."""

HANDOVER_ROWS = (
    """
MATCH (n:Note)
WHERE n.owner = $owner AND n.retracted_at = $far AND n.group_id IS NULL
  AND n.project_norm = $project_norm
RETURN """
    + _ROW
    + """, n.key_norm AS key_norm, n.content_norm AS content_norm
ORDER BY n.note_id, n.valid_from
"""
)
"""READ. $owner, $project_norm, $far -> n, key_norm, content_norm: every row of current
knowledge (open or ended in valid time) of the owner's own notes of the project."""

KEYS_TAKEN = """
MATCH (n:Note)
WHERE n.owner = $to AND n.group_id IS NULL AND n.retracted_at = $far AND n.valid_to = $far
  AND n.project_norm = $project_norm AND n.key_norm IN $keys
RETURN collect(DISTINCT n.key) AS taken
"""
"""READ. $to, $project_norm, $keys, $far -> taken: keys the receiving owner already holds
for the project (a handover would make two notes of one key)."""

SET_NOTE_VECTORS = """
UNWIND $rows AS r
MATCH (n:Note {id: r.id})
SET n.embedding_model = $model
WITH n, r
CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
"""
"""WRITE. $rows (maps: id, embedding: list of floats), $model (the embedder's id): the
vectors of note rows just created (semantic recall over notes; committer/note_ops.py)."""

COPY_NOTE_VECTORS = """
UNWIND $pairs AS p
MATCH (a:Note {id: p.to}), (b:Note {id: p.from})
WHERE b.embedding IS NOT NULL
SET a.embedding = b.embedding, a.embedding_model = b.embedding_model
"""
"""WRITE. $pairs (maps: from, to: row ids): a remainder or a handed-over row takes the
vector of the row it copies (same words, no need to embed them again)."""
