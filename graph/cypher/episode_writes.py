"""Cypher of the committer's episode writes (CONTRACT §12): filing a run's messages as
episodes, forgetting them (with or without the facts whose only evidence they were), and
the embedding backfill. Every query here runs inside a write transaction of the committer
or the backfill; the node's shape and every read of episodes are in graph/cypher/episodes.py.
"""

from __future__ import annotations

_evidence = """MATCH (f)-[:REPLACES|COALESCED|MOVED_FROM*0..]->(g:Fact)
WITH f, collect(DISTINCT g) AS lineage
WITH f, [g IN lineage | [g.run_id, g.message_id, g.source]]
       + reduce(out = [], g IN lineage |
           out + [(k:Corroboration)-[:CORROBORATES]->(g) | [k.run_id, k.message_id, k.source]])
       AS evidence"""
"""Every assertion behind the row bound to `f`, as [run_id, message_id, source]: its own,
those of the rows it continues (remainders, folded-in rows, moved rows: REPLACES,
COALESCED, MOVED_FROM, any depth) and the corroborations of all of them."""

CREATE_EPISODES = """
UNWIND $episodes AS x
MERGE (ep:Episode {id: x.id})
ON CREATE SET ep.owner = $owner,
    ep.chat_id = x.chat_id,
    ep.run_id = x.run_id,
    ep.message_id = x.message_id,
    ep.seq = x.seq,
    ep.part = x.part,
    ep.surface = x.surface,
    ep.role = x.role,
    ep.speaker_id = x.speaker_id,
    ep.text = x.text,
    ep.said_at = datetime({epochSeconds: x.said_at_s, nanosecond: x.said_at_ns}),
    ep.source = x.source,
    ep.recorded_at = $t,
    ep.retracted_at = $far,
    ep.search_text = x.search_text,
    ep.withheld = CASE WHEN x.withheld THEN true END
WITH ep, x
WHERE ep.owner = $owner AND ep.recorded_at = $t
CALL (ep, x) {
  WITH ep, x
  WHERE x.embedding IS NOT NULL
  SET ep.embedding_model = $model
  WITH ep, x
  CALL db.create.setNodeVectorProperty(ep, 'embedding', x.embedding)
}
RETURN ep.id AS id
"""
"""WRITE. $owner, $t (the commit time), $far, $model (the embedder's id, or null), $episodes
(maps: id, chat_id, run_id, message_id, seq, part, surface, role, speaker_id, text,
said_at_s/_ns (graph.time.epoch_parts), source, search_text, embedding (floats or
null), withheld (true: set on the node, else left unset)) -> id of each episode this call
created. Idempotent on id (unique constraint
`episode_id`): an episode that exists is left as it is (a run filed twice never
duplicates what was said). A vector is stored as 32-bit floats, with the model's id."""

CURRENT_EPISODES = """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, run_id)
WHERE ep.owner = $owner AND ep.run_id = $run_id AND ep.retracted_at = $far
  AND ($episode_id IS NULL OR ep.id = $episode_id)
RETURN ep.id AS id, ep.message_id AS message_id, ep.part AS part, ep.role AS role
ORDER BY ep.seq, ep.part, ep.id
"""
"""READ (inside the committer's write transaction). $owner, $run_id, $episode_id (or null:
every one of the run), $far -> id, message_id, part, role: the run's episodes not
forgotten yet. NodeIndexSeek on `episode_owner_run`."""

EPISODE_RUN = """
MATCH (ep:Episode {id: $episode_id})
WHERE ep.owner = $owner
RETURN ep.run_id AS run_id, ep.retracted_at = $far AS current
"""
"""READ (inside the committer's write transaction). $owner, $episode_id, $far -> run_id,
current (0 or 1 row). Unique-constraint seek."""

RETRACT_EPISODES = """
UNWIND $ids AS id
MATCH (ep:Episode {id: id})
WHERE ep.owner = $owner AND ep.retracted_at = $far
SET ep.retracted_at = $t, ep.forgot_facts = $facts
RETURN count(ep) AS retracted
"""
"""WRITE. $owner, $ids, $t, $facts, $far -> retracted (count): forgets current episodes
(CONTRACT §12), noting whether their facts went too ($facts); one already forgotten is left
alone (the count falls short, the caller aborts)."""

MESSAGE_SPEAKERS = """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, run_id)
WHERE ep.owner = $owner AND ep.run_id = $run_id AND ep.message_id IN $message_ids
  AND ep.part = 'own'
RETURN ep.message_id AS message_id, ep.speaker_id AS speaker_id
"""
"""READ (inside the committer's write transaction). $owner, $run_id, $message_ids ->
message_id, speaker_id: who spoke each message (forgotten episodes included: a proposal
kept later was still said by them)."""

ROWS_OF_MESSAGES = (
    """
CALL {
  MATCH (f:Fact)
  USING INDEX f:Fact(owner, run_id)
  WHERE f.owner = $owner AND f.run_id = $run_id AND f.retracted_at = $far
    AND ($message_ids IS NULL OR f.message_id IN $message_ids)
  RETURN f
  UNION
  MATCH (k:Corroboration)-[:CORROBORATES]->(:Fact)<-[:REPLACES|COALESCED|MOVED_FROM*0..]-(f:Fact)
  WHERE k.owner = $owner AND k.run_id = $run_id
    AND ($message_ids IS NULL OR k.message_id IN $message_ids)
    AND f.retracted_at = $far
  RETURN f
}
WITH f WHERE NOT f.source STARTS WITH 'integration:'
"""
    + _evidence
    + """
RETURN f.id AS id, f.entity_id AS entity_id, f.attribute AS attribute, evidence
ORDER BY f.entity_id, f.attribute, f.valid_from DESC, f.id
"""
)
"""READ (inside the committer's write transaction). $owner, $run_id, $message_ids (or null:
every message of the run), $far -> id, entity_id, attribute, evidence: the current rows
drawn from those messages, or continuing a row those messages corroborated (no
integration's observation), each with its evidence (see `_evidence`). NodeIndexSeek on
`fact_owner_run`; the owner's corroborations through `corroboration_owner`."""

FORGOTTEN_PARTS = """
UNWIND $messages AS m
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, run_id)
WHERE ep.owner = $owner AND ep.run_id = m[0] AND ep.message_id = m[1] AND ep.retracted_at <> $far
RETURN DISTINCT ep.run_id AS run_id, ep.message_id AS message_id, ep.part AS part,
       ep.role AS role, coalesce(ep.forgot_facts, true) AS facts
"""
"""READ (inside the committer's write transaction). $owner, $messages ([run_id, message_id]
pairs), $far -> run_id, message_id, part, role, facts: the parts of those messages whose
episode is forgotten (this transaction's forgetting included), and whether that forget took
their facts (an episode forgotten before `forgot_facts` was recorded counts as taking them,
as it was then). NodeIndexSeek on `episode_owner_run`."""

EVIDENCE_OF_ROWS = (
    """
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.owner = $owner
"""
    + _evidence
    + """
RETURN f.id AS id, evidence
"""
)
"""READ (inside the committer's write transaction). $owner, $ids -> id, evidence (see
`_evidence`) of each row of the owner among $ids, on any axis."""

UNEMBEDDED_EPISODES = """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner)
WHERE ep.owner = $owner AND (ep.embedding_model IS NULL OR ep.embedding_model <> $model)
RETURN ep.id AS id, ep.search_text AS text
ORDER BY ep.id
LIMIT $limit
"""
"""READ (inside the backfill's write transaction). $owner, $model, $limit -> id, text:
episodes of the owner, on any axis, with no vector of $model."""

EMBED_EPISODES = """
UNWIND $rows AS r
MATCH (ep:Episode {id: r.id})
WHERE ep.owner = $owner
SET ep.embedding_model = $model
WITH ep, r
CALL db.create.setNodeVectorProperty(ep, 'embedding', r.embedding)
"""
"""WRITE. $owner, $model, $rows ({id, embedding}) -> nothing: the backfill's vectors."""
