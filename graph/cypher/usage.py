"""Cypher for usage records: one per assistant turn, never its content.

`(:Usage {key, id, owner, at, day, surface, chat_id, model, input_tokens, output_tokens,
cost, duration_ms, digest, recorded_at})`; `key` is owner + "/" + id (unique), so a
retried record with the same id is stored once. `day` is the UTC date of `at`.
"""

from __future__ import annotations

from typing import Any

from graph.held import UsageRecord, UsageSum
from graph.time import from_store

RECORD_USAGE = """
MERGE (u:Usage {key: $key})
ON CREATE SET u.id = $id, u.owner = $owner, u.at = $at, u.day = $day, u.surface = $surface,
    u.chat_id = $chat_id, u.model = $model, u.input_tokens = $input_tokens,
    u.output_tokens = $output_tokens, u.cost = $cost, u.duration_ms = $duration_ms,
    u.digest = $digest, u.recorded_at = $t, u.created = $t
RETURN u, u.created = $t AS created
"""
"""WRITE. $key (owner + "/" + id), $id, $owner, $at, $day, $surface, $chat_id, $model,
$input_tokens, $output_tokens, $cost, $duration_ms, $digest, $t -> u, created (False when
a record with this id was stored before: the caller compares digests)."""

SUMMARY = """
MATCH (u:Usage {owner: $owner})
WHERE u.at >= $from AND u.at < $to
WITH CASE $group_by WHEN 'surface' THEN u.surface WHEN 'model' THEN u.model
     ELSE u.day END AS key, u
RETURN key, count(u) AS turns, sum(u.input_tokens) AS input_tokens,
       sum(u.output_tokens) AS output_tokens, sum(u.cost) AS cost,
       sum(u.duration_ms) AS duration_ms
ORDER BY key
"""
"""READ. $owner, $from, $to (half-open, on the turn's time), $group_by (surface|model|day)
-> key (null for records without one), turns, input_tokens, output_tokens, cost,
duration_ms, by key. Seeks on `usage_owner_at`."""


def usage_from_record(node: Any) -> UsageRecord:
    """Build a `UsageRecord` from a Usage node."""
    return UsageRecord(
        id=node["id"],
        owner=node["owner"],
        at=from_store(node["at"]),
        surface=node["surface"],
        chat_id=node["chat_id"],
        model=node["model"],
        input_tokens=int(node["input_tokens"]),
        output_tokens=int(node["output_tokens"]),
        cost=float(node["cost"]),
        duration_ms=int(node["duration_ms"]),
        recorded_at=from_store(node["recorded_at"]),
    )


def sum_from_record(row: Any) -> UsageSum:
    """Build a `UsageSum` from a SUMMARY row."""
    return UsageSum(
        key=row["key"],
        turns=int(row["turns"]),
        input_tokens=int(row["input_tokens"]),
        output_tokens=int(row["output_tokens"]),
        cost=float(row["cost"]),
        duration_ms=int(row["duration_ms"]),
    )
