"""Cypher for runs (CONTRACT §4) and bearer tokens (CONTRACT §7).

A run's life: `queued` -> (claim) `curating` under a worker's lease -> `done`, or back to
`queued` (released, with a `retry_at`), or `failed` / `skipped`. Every change of status
or lease after creation holds the lock of the run's stripe of the queue (LOCK_STRIPE).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph.records import RunRecord, TokenRecord
from graph.time import from_store

RUN_BY_ID = """
MATCH (r:Run {key: $key})
WHERE r.owner = $owner
RETURN r
"""
"""READ. $owner, $key (owner + "/" + run id) -> r (0 or 1)."""

RUNS_WAITING = """
MATCH (r:Run)
WHERE r.owner = $owner AND r.status IN ['queued', 'curating']
RETURN count(r) AS waiting
"""
"""READ. $owner -> waiting: the owner's runs not yet curated (queued or being curated),
for the per-owner bound on queued runs (README "Bounds"). Seeks on index `run_owner`."""

CREATE_RUN = """
MERGE (r:Run {key: $key})
ON CREATE SET r.id = $id, r.owner = $owner, r.chat_id = $chat_id, r.surface = $surface,
              r.status = 'queued', r.payload = $payload, r.digest = $digest,
              r.proposals = 0, r.committed = 0, r.held = 0, r.created_at = $t,
              r.stripe = $stripe
RETURN r, r.created_at = $t AS created
"""
"""WRITE. $key, $id, $owner, $chat_id, $surface, $payload (JSON text), $digest, $t,
$stripe (the owner's stripe of the queue, graph/write/runs.py) -> r, created. Idempotent
on run id (CONTRACT §4): a second post returns the stored run."""

LOCK_STRIPE = """
MERGE (q:RunQueue {id: $queue})
SET q.locked_by = $worker, q.locked_at = $t
RETURN q.id AS id
"""
"""WRITE. $queue (the stripe's `RunQueue` id: graph/write/runs.py `queue_id`), $worker,
$t -> id. Takes the write lock of one stripe's `RunQueue` node, held to the end of the
transaction.

Why a lock: Neo4j reads without locks, so two transactions can both MATCH the same
queued run (or a `finish` and a takeover can both MATCH the same `curating` run) and
both SET it: a lost update that would curate a run twice. Every transaction that
changes a run's status or lease (claim, heartbeat, release, finish) runs this statement
for the run's stripe first, in a statement of its own, and only then reads the run: it
then reads committed state that nobody else can change before it commits (CONTRACT §4:
claimed atomically, never applied twice). The lock serializes run transitions only,
never fact writes, and a finish takes it as its last statement, so it is held for the
commit alone. A run's stripe is fixed when it is created (`r.stripe`, from its owner), so
every transition of one run takes the same lock.

Why stripes: with one lock for the whole queue, each run held it for about a quarter of
a lone worker's time per run (the claim, and the commit of its apply), so the queue fed
four workers at most (bench/claim_queue.py). Claims of different stripes never wait for
each other; within a stripe, a claim waits for the lock and then takes the next run, so
claims never fail and retry in a herd (which a lock per run would cause: every claim
would go for the same oldest run)."""

STRIPE_OLD_RUNS = """
MATCH (r:Run)
USING INDEX r:Run(status, created_at)
WHERE r.status IN ['queued', 'curating'] AND r.created_at IS NOT NULL AND r.stripe IS NULL
SET r.stripe = 0
"""
"""WRITE, at start-up (graph/schema.py). No parameters. Seeks `run_status` (every run has a
`created_at`). Runs queued or being curated before
the queue had stripes join stripe 0, whose `RunQueue` id is the single lock's of before
('runs'), so a transition of such a run takes the lock it always took. Every worker of a
deployment must run the same version: an older worker locks 'runs' for any run."""

CLAIMABLE_STRIPES = """
CALL () {
  MATCH (r:Run)
  USING INDEX r:Run(status, created_at)
  WHERE r.status = 'queued' AND r.created_at IS NOT NULL
    AND (r.retry_at IS NULL OR r.retry_at <= $t)
  RETURN r ORDER BY r.status, r.created_at LIMIT $n
  UNION
  MATCH (r:Run)
  USING INDEX r:Run(status, created_at)
  WHERE r.status = 'curating' AND r.created_at IS NOT NULL
    AND (r.lease_until IS NULL OR r.lease_until < $t)
  RETURN r ORDER BY r.status, r.created_at LIMIT $n
}
WITH coalesce(r.stripe, 0) AS stripe, min(r.created_at) AS oldest
RETURN stripe ORDER BY oldest, stripe
"""
"""READ (no lock: a hint for the claim that follows). $t, $n -> stripe: the stripes of
the $n oldest claimable runs of each kind (as NEXT_RUN defines them), the stripe of the
oldest run first. Reads index `run_status` in its order and stops after $n of each."""
NEXT_RUN = """
CALL () {
  MATCH (r:Run)
  USING INDEX r:Run(stripe, status, created_at)
  WHERE r.stripe = $stripe AND r.status = 'queued' AND r.created_at IS NOT NULL
    AND (r.retry_at IS NULL OR r.retry_at <= $t)
  RETURN r ORDER BY r.stripe, r.status, r.created_at LIMIT 1
  UNION
  MATCH (r:Run)
  USING INDEX r:Run(stripe, status, created_at)
  WHERE r.stripe = $stripe AND r.status = 'curating' AND r.created_at IS NOT NULL
    AND (r.lease_until IS NULL OR r.lease_until < $t)
  RETURN r ORDER BY r.stripe, r.status, r.created_at LIMIT 1
}
WITH r ORDER BY r.created_at, r.key LIMIT 1
RETURN r.key AS key, r.owner AS owner, r.chat_id AS chat_id,
       coalesce(r.attempts, 0) AS attempts, r.error AS error
"""
"""READ (inside the claim's write transaction, after LOCK_STRIPE). $stripe, $t -> key,
owner, chat_id, attempts, error (the last one) of the stripe's oldest claimable run:
`queued` and past its `retry_at`, or `curating` with a lapsed lease (its worker died or
stalled: takeover; a `curating` run without a lease, from before leases, counts as
lapsed). At most one row. Both branches read index `run_stripe` (stripe, status,
created_at) in its order and stop at the first match (`ORDER BY r.stripe, r.status,
r.created_at` is what lets the planner use the index order instead of sorting)."""

START_RUN = """
MATCH (r:Run {key: $key})
SET r.status = 'curating', r.attempts = coalesce(r.attempts, 0) + 1, r.claimed_at = $t,
    r.lease_owner = $worker, r.lease_until = $until, r.retry_at = null
RETURN r
"""
"""WRITE (after LOCK_STRIPE and NEXT_RUN). $key, $worker, $t, $until -> r, now `curating`
and leased to $worker until $until, one more attempt counted."""

SET_ASIDE_RUN = """
MATCH (r:Run {key: $key})
SET r.status = $status, r.attempts = coalesce(r.attempts, 0) + $attempt, r.error = $error,
    r.claimed_at = $t, r.finished_at = $t, r.lease_owner = $worker, r.finished_by = $worker,
    r.lease_until = null, r.retry_at = null,
    r.payload = CASE WHEN $status = 'skipped' THEN '{}' ELSE r.payload END
RETURN r {.*, payload: ''} AS r
"""
"""WRITE (after LOCK_STRIPE and NEXT_RUN). $key, $status (`skipped` or `failed`), $attempt
(0 or 1), $error, $worker, $t -> r, closed without curation. The payload is not
returned: a `skipped` run's content is never read (CONTRACT §7 memory access `none`), and
is dropped from the store (payload `{}`: CONTRACT §12, that chat's messages are never
stored; the digest stays, for idempotency)."""

HEARTBEAT_RUN = """
MATCH (r:Run {key: $key})
WHERE r.status = 'curating' AND r.lease_owner = $worker
SET r.lease_until = $until
RETURN r.key AS key
"""
"""WRITE (after LOCK_STRIPE). $key, $worker, $until -> key (0 rows: the lease is no longer
this worker's: it lapsed and another worker took the run over, or the run closed)."""

RELEASE_RUN = """
MATCH (r:Run {key: $key})
WHERE r.status = 'curating' AND r.lease_owner = $worker
SET r.status = 'queued', r.attempts = coalesce(r.attempts, 0) - $refund,
    r.releases = coalesce(r.releases, 0) + 1, r.retry_at = $retry_at, r.error = $error,
    r.lease_until = null
RETURN r.key AS key
"""
"""WRITE (after LOCK_STRIPE). $key, $worker, $refund (1: the attempt is not counted, 0: it
is), $retry_at, $error -> key (0 rows: the lease is not this worker's). The run
goes back to `queued`, claimable again from $retry_at."""

FINISH_RUN = """
MATCH (r:Run {key: $key})
WHERE r.status = 'curating' AND r.lease_owner = $worker
SET r.status = $status, r.proposals = $proposals, r.committed = $committed,
    r.held = $held, r.error = $error, r.finished_at = $t, r.finished_by = $worker,
    r.lease_until = null
RETURN r.key AS key
"""
"""WRITE (after LOCK_STRIPE). $key, $worker, $status, $proposals, $committed, $held, $error,
$t -> key (0 rows if the run is not being curated by $worker: its lease lapsed and
another worker took it over, or it was closed; the caller then rolls back, so nothing is
applied twice, CONTRACT §4)."""

CREATE_TOKEN = """
MERGE (o:Owner {id: $owner})
ON CREATE SET o.created_at = $t, o.last_tx = $t, o.self_entity_id = $self_id
CREATE (k:Token)
SET k.id = $id, k.hash = $hash, k.owner = $owner, k.scopes = $scopes, k.created_at = $t
CREATE (o)-[:HAS_TOKEN]->(k)
RETURN k
"""
"""WRITE. $owner, $id, $hash (sha256 hex of the secret), $scopes, $self_id, $t -> k."""

TOKENS_OF_OWNER = """
MATCH (:Owner {id: $owner})-[:HAS_TOKEN]->(k:Token)
RETURN k
ORDER BY k.created_at, k.id
"""
"""READ. $owner -> k: every token of the owner, live and revoked, oldest first (the
node holds the secret's hash only). Unique-constraint seek on Owner.id, then expand."""

REVOKE_TOKEN = """
MATCH (k:Token {id: $id})
WITH k, k.revoked_at IS NULL AS live
SET k.revoked_at = coalesce(k.revoked_at, $t)
RETURN k, live
"""
"""WRITE. $id, $t -> k, live (True when this call revoked it; a token revoked before
keeps its first `revoked_at`). 0 rows for an unknown id. Unique-constraint seek on
Token.id."""

TOKEN_BY_HASH = """
MATCH (k:Token {hash: $hash})
WHERE k.revoked_at IS NULL
RETURN k
"""
"""READ. $hash -> k (0 or 1). Unique-constraint seek on Token.hash."""


def run_from_record(node: Any) -> RunRecord:
    """Build a `RunRecord` from a Run node (or a map projection of one)."""
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
        attempts=int(node.get("attempts") or 0),
        lease_owner=node.get("lease_owner"),
        lease_until=_instant(node.get("lease_until")),
        retry_at=_instant(node.get("retry_at")),
        finished_by=node.get("finished_by"),
        releases=int(node.get("releases") or 0),
        stripe=int(node.get("stripe") or 0),
        finished_at=_instant(node.get("finished_at")),
    )


def _instant(value: Any) -> datetime | None:
    return None if value is None else from_store(value)


def token_from_record(node: Any) -> TokenRecord:
    """Build a `TokenRecord` from a Token node."""
    return TokenRecord(
        id=node["id"],
        owner=node["owner"],
        scopes=tuple(node["scopes"]),
        created_at=_instant(node.get("created_at")),
        revoked_at=_instant(node.get("revoked_at")),
    )
