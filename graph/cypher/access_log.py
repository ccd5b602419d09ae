"""Cypher for the access log of the gated `remember` (CONTRACT §14: every attempt, allowed
or refused, is in an access log in transaction time).

`(:AccessLogEntry {id, owner, token_id, surface, group_id, topic, outcome, reason,
document, version, at})`: one per attempt, created once and never changed; `owner` is the
caller (erasure removes its entries with it). It never holds the content of a call.
Reads are scoped by `graph.scope.LOG_VISIBLE`.
"""

from __future__ import annotations

from typing import Any

from graph.held import AccessLogRecord
from graph.scope import LOG_VISIBLE
from graph.time import from_store

RECORD_ATTEMPT = """
CREATE (a:AccessLogEntry)
SET a.id = $id, a.owner = $owner, a.token_id = $token_id, a.surface = $surface,
    a.group_id = $group_id, a.topic = $topic, a.outcome = $outcome, a.reason = $reason,
    a.document = $document, a.version = $version, a.at = $t
RETURN a
"""
"""WRITE. $id, $owner (the caller), $token_id, $surface, $group_id, $topic, $outcome,
$reason, $document, $version, $t -> a."""

GROUP_HAS_CURATOR = """
MATCH (m:Membership {group_id: $group_id})
WHERE m.left_at = $far
MATCH (k:Token {owner: m.member})
WHERE k.revoked_at IS NULL AND 'curate' IN k.scopes
RETURN count(k) > 0 AS found
"""
"""READ (in the gate's transaction). $group_id, $far -> found: a current member of the group
holds a live token with the `curate` scope (the literal scope: `admin` alone does not make a
curator). A group without one refuses every `remember` (CONTRACT §14). Seeks on
`membership_group` and `token_owner`."""

ACCESS_LOG = (
    """
CALL () {
  MATCH (a:AccessLogEntry {owner: $owner})
  RETURN a
  UNION
  UNWIND $managed AS g
  MATCH (a:AccessLogEntry {group_id: g})
  RETURN a
}
WITH a
WHERE """
    + LOG_VISIBLE
    + """
  AND ($group_id IS NULL OR a.group_id = $group_id)
  AND ($outcome IS NULL OR a.outcome = $outcome)
  AND ($after_at IS NULL OR a.at < $after_at OR (a.at = $after_at AND a.id < $after_id))
RETURN a
ORDER BY a.at DESC, a.id DESC
LIMIT $limit
"""
)
"""READ. $owner, $managed (ids of the groups whose log the reader may read), $group_id,
$outcome (each null for any), $after_at, $after_id (the last entry of the previous page,
or null), $limit -> a: entries newest first. Seeks on `access_log_owner` and
`access_log_group`."""


def entry_from_record(node: Any) -> AccessLogRecord:
    """Build an `AccessLogRecord` from an AccessLogEntry node."""
    return AccessLogRecord(
        id=node["id"],
        owner=node["owner"],
        token_id=node["token_id"],
        surface=node["surface"],
        group_id=node["group_id"],
        topic=node["topic"],
        outcome=node["outcome"],
        reason=node["reason"],
        document=node["document"],
        version=node["version"],
        at=from_store(node["at"]),
    )
