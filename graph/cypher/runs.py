"""Cypher for runs (CONTRACT §4) and bearer tokens (CONTRACT §7)."""

from __future__ import annotations

from typing import Any

from graph.records import RunRecord, TokenRecord
from graph.time import from_store

RUN_BY_ID = """
MATCH (r:Run {key: $key})
WHERE r.owner = $owner
RETURN r
"""
"""READ. $owner, $key (owner + "/" + run id) -> r (0 or 1)."""

CREATE_RUN = """
MERGE (r:Run {key: $key})
ON CREATE SET r.id = $id, r.owner = $owner, r.chat_id = $chat_id, r.surface = $surface,
              r.status = 'queued', r.payload = $payload, r.digest = $digest,
              r.proposals = 0, r.committed = 0, r.held = 0, r.created_at = $t
RETURN r, r.created_at = $t AS created
"""
"""WRITE. $key, $id, $owner, $chat_id, $surface, $payload (JSON text), $digest, $t -> r,
created. Idempotent on run id (CONTRACT §4): a second post returns the stored run."""

CLAIM_RUN = """
MATCH (r:Run)
USING INDEX r:Run(status, created_at)
WHERE r.status = 'queued' AND r.created_at IS NOT NULL
WITH r ORDER BY r.created_at, r.key LIMIT 1
SET r.status = 'curating', r.claimed_at = $t
RETURN r
"""
"""WRITE. $t -> r, the oldest queued run, now `curating` (at most one row)."""

FINISH_RUN = """
MATCH (r:Run {key: $key})
WHERE r.status = 'curating'
SET r.status = $status, r.proposals = $proposals, r.committed = $committed,
    r.held = $held, r.error = $error, r.finished_at = $t
RETURN r.key AS key
"""
"""WRITE. $key, $status, $proposals, $committed, $held, $error, $t -> key (0 rows if the
run was not being curated: then nothing is applied twice)."""

CREATE_TOKEN = """
MERGE (o:Owner {id: $owner})
ON CREATE SET o.created_at = $t, o.last_tx = $t, o.self_entity_id = $self_id
CREATE (k:Token)
SET k.id = $id, k.hash = $hash, k.owner = $owner, k.scopes = $scopes, k.created_at = $t
CREATE (o)-[:HAS_TOKEN]->(k)
RETURN k
"""
"""WRITE. $owner, $id, $hash (sha256 hex of the secret), $scopes, $self_id, $t -> k."""

TOKEN_BY_HASH = """
MATCH (k:Token {hash: $hash})
WHERE k.revoked_at IS NULL
RETURN k
"""
"""READ. $hash -> k (0 or 1). Unique-constraint seek on Token.hash."""


def run_from_record(node: Any) -> RunRecord:
    """Build a `RunRecord` from a Run node."""
    return RunRecord(
        id=node["id"],
        owner=node["owner"],
        chat_id=node["chat_id"],
        surface=node.get("surface"),
        status=node["status"],
        payload=node["payload"],
        proposals=int(node.get("proposals", 0)),
        committed=int(node.get("committed", 0)),
        held=int(node.get("held", 0)),
        error=node.get("error"),
        created_at=from_store(node["created_at"]),
    )


def token_from_record(node: Any) -> TokenRecord:
    """Build a `TokenRecord` from a Token node."""
    return TokenRecord(id=node["id"], owner=node["owner"], scopes=tuple(node["scopes"]))
