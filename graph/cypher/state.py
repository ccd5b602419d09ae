"""Cypher for workflow state (CONTRACT §14: JSON per (owner, workflow, key) or per group).

The model: `(:StateVersion {id, holder, owner, group_id, workflow, state_key, version,
value, deleted, recorded_at, retracted_at, author, idem, idempotency_key, digest,
cause})`, one node per write, immutable except `retracted_at` (set once, by the next
write), so every value's history is read with `known_at`. The current version has an
open `retracted_at`; a deletion is a version with `deleted = true` and no value; version
numbers continue after it (never reused: an `If-Match` cannot match a key deleted and set
again). `idem` joins holder, workflow, key and the write's idempotency key, so a retried
PUT finds the version it made. `owner` is whom erasure removes it with (the owner, or the
group's creator); `author` who wrote it.
"""

from __future__ import annotations

from typing import Any

from graph.cypher._fragments import KNOWN, on
from graph.held import StateRecord
from graph.scope import held_visible
from graph.time import from_store

CURRENT_STATE = """
MATCH (s:StateVersion {holder: $holder, workflow: $workflow, state_key: $key})
WHERE s.retracted_at = $far
RETURN s
"""
"""READ (in the committer's transaction, under the holder's lock). $holder, $workflow, $key,
$far -> s, the current version (a deletion included), 0 or 1 row. Seeks on
`state_holder_key`."""

BY_IDEMPOTENCY = """
MATCH (s:StateVersion {idem: $idem})
RETURN s
"""
"""READ (in the committer's transaction). $idem -> s, the version an earlier write with
this idempotency key made (0 or 1 row). Seeks on `state_idem`."""

RECORD_STATE = """
OPTIONAL MATCH (old:StateVersion {holder: $holder, workflow: $workflow, state_key: $key})
WHERE old.retracted_at = $far
SET old.retracted_at = $t
WITH collect(old.id) AS ended
CREATE (s:StateVersion)
SET s.id = $id, s.holder = $holder, s.owner = $owner, s.group_id = $group_id,
    s.workflow = $workflow, s.state_key = $key, s.version = $version, s.value = $value,
    s.deleted = $deleted, s.recorded_at = $t, s.retracted_at = $far, s.author = $author,
    s.idem = $idem, s.idempotency_key = $idempotency_key, s.digest = $digest, s.cause = $cause
RETURN s, ended
"""
"""WRITE. $id, $holder, $owner, $group_id, $workflow, $key, $version, $value (JSON text or
null), $deleted, $t, $far, $author, $idem, $idempotency_key, $digest, $cause -> s (the new
version), ended (ids of the version it retracted). Runs under the holder's lock."""

LINK_EFFECTS = """
MATCH (c:Event {key: $commit})
WHERE c.owner = $actor
CALL (c) {
  UNWIND $wrote AS x
  MATCH (s:StateVersion {id: x})
  CREATE (c)-[:WROTE {op: 'recorded', cause: $cause}]->(s)
}
CALL (c) {
  UNWIND $ended AS x
  MATCH (s:StateVersion {id: x})
  CREATE (c)-[:ENDED {op: 'replaced', cause: $cause}]->(s)
}
"""
"""WRITE. $commit, $actor, $cause, $wrote, $ended (version ids): the commit's effects on
state (CONTRACT §8). Unique-constraint seeks."""

STATE_AS_OF = (
    """
MATCH (s:StateVersion {holder: $holder, workflow: $workflow, state_key: $key})
WHERE """
    + on(KNOWN, "s")
    + " AND "
    + held_visible("s")
    + """
RETURN s
"""
)
"""READ. $holder, $workflow, $key, $known_at and graph.scope.reach_params -> s, the version
believed at $known_at (0 or 1 row; a deletion included: the caller answers 404). Seeks on
`state_holder_key`."""


def state_from_record(node: Any) -> StateRecord:
    """Build a `StateRecord` from a StateVersion node."""
    return StateRecord(
        id=node["id"],
        holder=node["holder"],
        group_id=node["group_id"],
        workflow=node["workflow"],
        key=node["state_key"],
        version=int(node["version"]),
        value=node["value"],
        deleted=bool(node["deleted"]),
        recorded_at=from_store(node["recorded_at"]),
        retracted_at=from_store(node["retracted_at"]),
        author=node["author"],
        idempotency_key=node["idempotency_key"],
        digest=node["digest"],
        cause=node["cause"],
    )
