"""Cypher for erasing an owner (CONTRACT §9: the only hard delete, for privacy law).

Every node an owner's memory consists of carries `owner` (the owner id), under one of
`OWNED_LABELS`; the `Owner` node itself is keyed by `id`. Erasure deletes them label by
label in bounded batches (each batch its own transaction, `DETACH DELETE`, so their
relationships go with them), the `Owner` node last, then proves it with `REMAINING`,
which counts what is left *without* the label list: a label someone forgot to add here
shows up as `remaining > 0` rather than as data silently kept.
"""

from __future__ import annotations

OWNED_LABELS: tuple[str, ...] = (
    "Corroboration",
    "Fact",
    "EntityNames",
    "Entity",
    "Proposal",
    "Suppression",
    "Notification",
    "MergeSuggestion",
    "Run",
    "Chat",
    "Token",
    # Groups (CONTRACT §7): the groups the owner created, its memberships, its shares.
    "Share",
    "Membership",
    "Group",
    # Cause-and-effect events (CONTRACT §8).
    "Event",
    # Knowledge documents, workflow state, the access log, usage (CONTRACT §14): an owner's
    # own, and a group's with the group's creator.
    "KnowledgeVersion",
    "StateVersion",
    "AccessLogEntry",
    "Usage",
    # Episodes, what was said (CONTRACT §12).
    "Episode",
    # Notes, their standing, session summaries, task logs, reading ledgers (CONTRACT §13).
    "Note",
    "NoteHead",
    "NoteSession",
    "NoteTask",
    "NoteReadLedger",
)
"""Every label whose nodes belong to one owner through their `owner` property, in the
order they are erased. Extend it with each new owned label, and give that label an
index on `owner` (graph/schema.py: tests/graph/test_query_plans.py fails otherwise)."""


def _erase_batch(label: str) -> str:
    """The batch delete of one label; `label` comes from `OWNED_LABELS` only."""
    return """
MATCH (n:LABEL)
WHERE n.owner = $owner
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS removed
""".replace("LABEL", label)


ERASE_BATCH: dict[str, str] = {label: _erase_batch(label) for label in OWNED_LABELS}
"""WRITE, one per label. $owner, $batch -> removed: deletes up to $batch nodes of the
label owned by $owner, with every relationship they have. Seeks on `<label>_owner`."""

START_ERASURE = """
MATCH (o:Owner {id: $owner})
SET o.erasing = $t, o.locked_by = $tx_id
RETURN o.id AS id
"""
"""WRITE. $owner, $t, $tx_id -> id (0 rows: unknown owner). Takes the owner's commit lock
(waiting for a commit in flight) and marks it `erasing`: from then on no commit of the
owner starts (graph/cypher/entities.py LOCK_OWNER)."""

ERASE_OWNER = """
MATCH (o:Owner {id: $owner})
DETACH DELETE o
RETURN count(*) AS removed
"""
"""WRITE. $owner -> removed (0 or 1): the Owner node, last."""

REMAINING = """
CALL () {
  MATCH (n)
  WHERE n.owner = $owner
  RETURN count(n) AS owned
}
CALL () {
  OPTIONAL MATCH (o:Owner {id: $owner})
  RETURN count(o) AS owners
}
RETURN owned + owners AS remaining
"""
"""READ. $owner -> remaining: every node still carrying `owner = $owner`, whatever its
label, plus the Owner node. The proof of an erasure (CONTRACT §10 `remaining: 0`).
Deliberately an AllNodesScan: independent of `OWNED_LABELS`, so a forgotten label
cannot hide (the one query exempt from tests/graph/test_query_plans.py; it runs once
per erasure, an admin operation)."""
