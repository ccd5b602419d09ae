"""Cypher for proposals, suppressions and notifications (CONTRACT §2.1 rule 5, §3).

A `Proposal` node is a candidate assertion the curator handed over: auto-committed ones
are kept for audit (status `committed`), held ones wait as `pending` until the person
keeps or discards them. No fact read ever matches a Proposal: pending proposals are
invisible to every read path by construction (they are not `Fact` nodes).

A `Suppression` is the quiet "no" of a discard, keyed by the normalized assertion. A
`Notification` is something said out loud to the person (a proposal to confirm, a
conflict, a merge suggestion).
"""

from __future__ import annotations

from typing import Any

from graph.records import NotificationRecord, ProposalRecord
from graph.time import from_store

CREATE_PROPOSALS = """
UNWIND $items AS p
MERGE (n:Proposal {id: p.id})
ON CREATE SET n.owner = $owner, n.op = p.op, n.status = p.status,
  n.entity_id = p.entity_id, n.entity_name = p.entity_name, n.entity_kind = p.entity_kind,
  n.attribute = p.attribute, n.value = p.value,
  n.object_id = p.object_id, n.object_name = p.object_name, n.object_kind = p.object_kind,
  n.valid_from = p.valid_from, n.valid_to = p.valid_to, n.cardinality = p.cardinality,
  n.source = p.source, n.type = p.type, n.confidence = p.confidence,
  n.evidence = p.evidence, n.reason = p.reason, n.policy = p.policy,
  n.run_id = p.run_id, n.chat_id = p.chat_id, n.message_id = p.message_id,
  n.seq = p.seq, n.fact_id = p.fact_id,
  n.note = p.note, n.note_id = p.note_id, n.reply = p.reply,
  n.created_at = $t, n.decided_at = CASE WHEN p.status = 'pending' THEN null ELSE $t END
RETURN n.id AS id, n.owner = $owner AND n.created_at = $t AS created
"""
"""WRITE. $owner, $t, $items (maps with every field set above; `valid_to` null = open;
`note` the JSON of a note proposal's note, `note_id` the note it kept, `reply` the one-line
answer to a note request, CONTRACT §13; each null for a fact)
-> id, created. Idempotent on proposal id (CONTRACT §4: a run applied twice changes
nothing): an existing proposal is left as it is."""

PROPOSAL_BY_ID = """
MATCH (n:Proposal {id: $id})
WHERE n.owner = $owner
RETURN n
"""
"""READ. $owner, $id -> n (0 or 1). Unique-constraint seek on Proposal.id."""

LIST_PROPOSALS = """
MATCH (n:Proposal)
WHERE n.owner = $owner
  AND ($status IS NULL OR n.status = $status)
  AND ($chat_id IS NULL OR n.chat_id = $chat_id)
  AND ($run_id IS NULL OR n.run_id = $run_id)
  AND ($after_t IS NULL OR n.created_at > $after_t
       OR (n.created_at = $after_t AND (n.seq > $after_seq
           OR (n.seq = $after_seq AND n.id > $after_id))))
RETURN n
ORDER BY n.created_at, n.seq, n.id
LIMIT $limit
"""
"""READ. $owner, $status, $chat_id, $run_id (each null = any), $after_t, $after_seq,
$after_id (the previous page's last item, or nulls), $limit -> n, oldest
first. Seeks on index `proposal_owner_status` or `proposal_owner`."""

LAST_SURFACED = """
MATCH (n:Proposal)
WHERE n.owner = $owner AND n.status = 'pending' AND n.chat_id = $chat_id
WITH n.run_id AS run_id, max(n.created_at) AS at
ORDER BY at DESC, run_id DESC
LIMIT 1
MATCH (m:Proposal)
WHERE m.owner = $owner AND m.status = 'pending' AND m.chat_id = $chat_id
  AND m.run_id = run_id
RETURN m AS n
ORDER BY m.seq, m.id
"""
"""READ. $owner, $chat_id -> n: the pending proposals last surfaced in the chat, i.e.
those of its most recently curated run that still has any pending (CONTRACT §3 "in
chat"), in the order they were surfaced."""

DECIDE_PROPOSAL = """
MATCH (n:Proposal {id: $id})
WHERE n.owner = $owner AND n.status = 'pending'
SET n.status = $status, n.decided_at = $t, n.decided_by = $by, n.fact_id = $fact_id,
    n.entity_id = coalesce($entity_id, n.entity_id),
    n.object_id = coalesce($object_id, n.object_id),
    n.note_id = coalesce($note_id, n.note_id), n.reply = coalesce($reply, n.reply)
RETURN n
"""
"""WRITE. $owner, $id, $status (`kept`|`discarded`), $t, $by (`rest`|`chat:<id>`),
$fact_id, $entity_id, $object_id (resolved at keep, or null), $note_id, $reply (a kept
note proposal's note and answer, or null) -> n (0 rows when the
proposal is no longer pending: nothing changes)."""

UPSERT_SUPPRESSIONS = """
UNWIND $items AS s
MERGE (x:Suppression {owner: $owner, attribute: s.attribute, subject: s.subject,
                      value_key: s.value_key})
ON CREATE SET x.created_at = $t
SET x.active = true, x.proposal_id = s.proposal_id, x.updated_at = $t
"""
"""WRITE. $owner, $t, $items (maps: subject (entity id, or "name:<kind>:<search key>" for
an entity not known yet), attribute, value_key (normalized value "s:...", "e:<id>" or
"name:<kind>:<key>"), proposal_id). The quiet "no" of a discard (CONTRACT §3). Runs
under the owner's commit lock, so MERGE cannot race with itself."""

CLEAR_SUPPRESSIONS = """
UNWIND $items AS i
MATCH (x:Suppression)
WHERE x.owner = $owner AND x.attribute = i.attribute AND x.active
MATCH (e:Entity {id: i.entity_id})
OPTIONAL MATCH (o:Entity {id: i.object_id})
WITH x, [i.entity_id] + [n IN e.search_names | 'name:' + e.kind + ':' + n] AS subjects,
     [i.value_norm] + CASE WHEN o IS NULL THEN []
       ELSE [n IN o.search_names | 'name:' + o.kind + ':' + n] END AS values
WHERE x.subject IN subjects AND x.value_key IN values
SET x.active = false, x.cleared_at = $t
RETURN count(x) AS cleared
"""
"""WRITE. $owner, $t, $items (maps: entity_id, attribute, value_norm, object_id or null)
-> cleared. Keeping or asserting a suppressed assertion clears it (CONTRACT §3), in every
key form of its subject and value: the id, or "name:<kind>:<key>" for each name and alias.
Seeks on index `suppression_owner_attribute`; with no suppression of the attribute (the
usual case) nothing else is read."""

ACTIVE_SUPPRESSIONS = """
UNWIND $items AS i
MATCH (x:Suppression)
WHERE x.owner = $owner AND x.attribute = i.attribute AND x.active
  AND x.subject IN i.subjects AND x.value_key IN i.values
RETURN DISTINCT i.idx AS idx
"""
"""READ. $owner, $items (maps: idx, attribute, subjects, values) -> idx of each item
that matches an active suppression."""

CREATE_NOTIFICATIONS = """
UNWIND $items AS m
MERGE (x:Notification {id: m.id})
ON CREATE SET x.owner = $owner, x.kind = m.kind, x.text = m.text, x.chat_id = m.chat_id,
  x.proposal_id = m.proposal_id, x.suggestion_id = m.suggestion_id,
  x.fact_ids = m.fact_ids, x.seq = m.seq, x.at = $t
"""
"""WRITE. $owner, $t, $items (maps: id, kind `proposal`|`conflict`|`merge_suggestion`,
text, chat_id (null = the main chat), proposal_id, suggestion_id, fact_ids, seq: the
order among notifications of one commit). Idempotent on id."""

LIST_NOTIFICATIONS = """
MATCH (x:Notification)
WHERE x.owner = $owner
  AND ($chat_id IS NULL OR x.chat_id = $chat_id)
  AND ($include_acknowledged OR x.acknowledged_at IS NULL)
  AND ($after_t IS NULL OR x.at > $after_t OR (x.at = $after_t AND (x.seq > $after_seq
       OR (x.seq = $after_seq AND x.id > $after_id))))
RETURN x
ORDER BY x.at, x.seq, x.id
LIMIT $limit
"""
"""READ. $owner, $chat_id (null = every chat), $include_acknowledged, $after_t, $after_id
(the previous page's last item, or nulls), $limit -> x, oldest first."""

ACKNOWLEDGE = """
MATCH (x:Notification)
WHERE x.owner = $owner AND (x.id IN $ids OR x.proposal_id IN $proposal_ids
  OR x.suggestion_id IN $suggestion_ids)
  AND x.acknowledged_at IS NULL
SET x.acknowledged_at = $t
RETURN x.id AS id
"""
"""WRITE. $owner, $ids, $proposal_ids, $suggestion_ids, $t -> id of each notification
acknowledged now (those about a decided proposal or suggestion are acknowledged with it)."""

NOTIFICATION_BY_ID = """
MATCH (x:Notification {id: $id})
WHERE x.owner = $owner
RETURN x
"""
"""READ. $owner, $id -> x (0 or 1)."""


def proposal_from_record(node: Any) -> ProposalRecord:
    """Build a `ProposalRecord` from a Proposal node."""
    valid_to = node.get("valid_to")
    decided = node.get("decided_at")
    return ProposalRecord(
        id=node["id"],
        owner=node["owner"],
        op=node["op"],
        status=node["status"],
        entity_id=node.get("entity_id"),
        entity_name=node.get("entity_name"),
        entity_kind=node.get("entity_kind") or "person",
        attribute=node["attribute"],
        value=node.get("value"),
        object_id=node.get("object_id"),
        object_name=node.get("object_name"),
        object_kind=node.get("object_kind"),
        valid_from=from_store(node["valid_from"]),
        valid_to=None if valid_to is None else from_store(valid_to),
        cardinality=node.get("cardinality"),
        source=node["source"],
        type=node["type"],
        confidence=float(node["confidence"]),
        evidence=node.get("evidence"),
        reason=node.get("reason"),
        policy=node.get("policy"),
        run_id=node.get("run_id"),
        chat_id=node.get("chat_id"),
        message_id=node.get("message_id"),
        seq=int(node.get("seq") or 0),
        fact_id=node.get("fact_id"),
        note=node.get("note"),
        note_id=node.get("note_id"),
        reply=node.get("reply"),
        created_at=from_store(node["created_at"]),
        decided_at=None if decided is None else from_store(decided),
    )


def notification_from_record(node: Any) -> NotificationRecord:
    """Build a `NotificationRecord` from a Notification node."""
    ack = node.get("acknowledged_at")
    return NotificationRecord(
        id=node["id"],
        owner=node["owner"],
        kind=node["kind"],
        text=node["text"],
        chat_id=node.get("chat_id"),
        proposal_id=node.get("proposal_id"),
        suggestion_id=node.get("suggestion_id"),
        fact_ids=tuple(node.get("fact_ids") or ()),
        at=from_store(node["at"]),
        acknowledged_at=None if ack is None else from_store(ack),
        seq=int(node.get("seq") or 0),
    )
