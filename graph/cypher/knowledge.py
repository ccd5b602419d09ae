"""Cypher for knowledge documents (CONTRACT §14).

The model: `(:KnowledgeVersion {id, holder, owner, group_id, name, version, description,
body, retired, recorded_at, retracted_at, author, token_id, source, reason, path, cause,
restored_from, digest, search_text})`, one node per version, immutable except
`retracted_at`, set once when the next version is recorded (CONTRACT §2: nothing is lost;
every version is read with `known_at`). A document's current version is the one whose
`retracted_at` is open (`$far`); a retirement is a version with `retired = true`, so a
later restore is one more version. `holder` is `owner:<id>` or `group:<id>`
(graph.held.Holder); `owner` is whom erasure removes it with: the owner itself, or the
group's creator for a group's document (CONTRACT §9). `author` is who made the change.

`(:Event {kind: 'commit'})-[:WROTE|ENDED {op, cause}]->(:KnowledgeVersion)`: the commit
that recorded or retracted a version, for the cause (action or sync) it did it for
(graph/cypher/events.py, CONTRACT §8).

Reads are scoped by `graph.scope.held_visible`: the caller's own holder, or a group it
belongs to now; under a chat whose memory access keeps knowledge out, nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph.cypher._fragments import KNOWN, micros, on
from graph.held import DocumentRecord
from graph.scope import held_visible
from graph.time import FAR_FUTURE, from_micros, from_store

CURRENT_DOC = """
MATCH (k:KnowledgeVersion {holder: $holder, name: $name})
WHERE k.retracted_at = $far
RETURN k
"""
"""READ (in the committer's transaction). $holder, $name, $far -> k, the document's current
version (retired or not), 0 or 1 row. Seeks on `knowledge_holder_name`."""

LIVE_DOCS = """
MATCH (k:KnowledgeVersion {holder: $holder})
WHERE k.retracted_at = $far AND k.retired = false
RETURN k.name AS name, k.digest AS digest, k.source AS source, k.path AS path,
       k.version AS version
ORDER BY name
"""
"""READ (in the committer's transaction). $holder, $far -> name, digest, source, path,
version of every live (current, not retired) document of the holder, by name (the 1,000
bound counts them; a sync compares digests). Seeks on `knowledge_holder_asof`."""

VERSION_IN = (
    """
MATCH (k:KnowledgeVersion {holder: $holder, name: $name})
WHERE k.version = $version AND k.retracted_at IS NOT NULL AND """
    + held_visible("k")
    + """
RETURN k
"""
)
"""READ. $holder, $name, $version and graph.scope.reach_params -> k, that version (0 or 1
row) when the reach may see the holder. Seeks on `knowledge_holder_name` (every version has
a `retracted_at`: the predicate lets the planner use the three-property index)."""

RECORD_VERSIONS = """
UNWIND $docs AS d
OPTIONAL MATCH (old:KnowledgeVersion {holder: $holder, name: d.name})
WHERE old.retracted_at = $far
SET old.retracted_at = $t
REMOVE old.search_text
WITH d, collect(old.id) AS ended
CREATE (k:KnowledgeVersion)
SET k.id = d.id, k.holder = $holder, k.owner = $owner, k.group_id = $group_id,
    k.name = d.name, k.version = d.version, k.description = d.description, k.body = d.body,
    k.retired = d.retired, k.recorded_at = $t, k.retracted_at = $far, k.author = $author,
    k.token_id = $token_id, k.source = d.source, k.reason = d.reason, k.path = d.path,
    k.cause = $cause, k.restored_from = d.restored_from, k.digest = d.digest,
    k.search_text = d.search_text, k.chars = size(d.body)
RETURN k, ended
"""
"""WRITE. $holder, $owner (whom erasure removes it with), $group_id, $t, $far, $author,
$token_id, $cause (the action or sync event id); $docs: maps of id, name, version,
description, body, retired, source, reason, path, restored_from, digest, search_text ->
k (the new version; `chars` is the body's length, so listings never read a body), ended
(ids of the versions it retracted, 0 or 1). A retracted version leaves the pointer's
full-text index (its `search_text` is removed: only current versions are looked up, so
a document's history never slows prefetch). The committer holds the holder's lock, so
one version per document is current at any time."""

LINK_EFFECTS = """
MATCH (c:Event {key: $commit})
WHERE c.owner = $actor
CALL (c) {
  UNWIND $wrote AS x
  MATCH (k:KnowledgeVersion {id: x})
  CREATE (c)-[:WROTE {op: 'recorded', cause: $cause}]->(k)
}
CALL (c) {
  UNWIND $ended AS x
  MATCH (k:KnowledgeVersion {id: x})
  CREATE (c)-[:ENDED {op: 'replaced', cause: $cause}]->(k)
}
"""
"""WRITE. $commit (the commit event's key), $actor (its owner), $cause, $wrote, $ended
(version ids): the commit's effects on documents (CONTRACT §8). Unique-constraint seeks."""

DOCS_AS_OF = (
    """
UNWIND $holders AS holder
MATCH (k:KnowledgeVersion {holder: holder, name: $name})
WHERE """
    + on(KNOWN, "k")
    + " AND k.retired = false AND "
    + held_visible("k")
    + """
RETURN k
ORDER BY k.holder
"""
)
"""READ. $holders (candidate holder keys), $name, $known_at and graph.scope.reach_params
-> k: the document's version believed at $known_at in each holder the reach sees, unless
retired then (0 or more rows; the caller picks one). Seeks on `knowledge_holder_name`."""

LIST_DOCS = (
    """
UNWIND $holders AS holder
MATCH (k:KnowledgeVersion {holder: holder})
WHERE """
    + on(KNOWN, "k")
    + " AND k.retired = false AND "
    + held_visible("k")
    + """
RETURN k {.name, .description, .holder, .group_id, .version, .author, .source, .chars,
          recorded_us: """
    + on(micros("recorded_at"), "k")
    + """} AS k
ORDER BY k.name, k.holder
SKIP $skip LIMIT $limit
"""
)
"""READ. $holders, $known_at, $skip, $limit and graph.scope.reach_params -> k: name,
description, holder, group_id, version, author, source, chars, recorded_us (never the
body) of each document believed at $known_at, by name then holder. Seeks on
`knowledge_holder_asof`."""

VERSIONS = (
    """
MATCH (k:KnowledgeVersion {holder: $holder, name: $name})
WHERE k.version > $after AND k.retracted_at IS NOT NULL AND """
    + held_visible("k")
    + """
RETURN k {.id, .holder, .group_id, .name, .version, .description, .retired, .author,
          .source, .reason, .path, .cause, .restored_from, .digest, .chars,
          recorded_us: """
    + on(micros("recorded_at"), "k")
    + """, retracted_us: """
    + on(micros("retracted_at"), "k")
    + """} AS k
ORDER BY k.version
LIMIT $limit
"""
)
"""READ. $holder, $name, $after (a version number; 0 for the first page), $limit and
graph.scope.reach_params -> k: every version after $after, oldest first, without bodies
(`chars` its length). Seeks on `knowledge_holder_name`."""

DOC_HOLDERS = (
    """
UNWIND $holders AS holder
MATCH (k:KnowledgeVersion {holder: holder, name: $name})
WHERE k.retracted_at IS NOT NULL AND """
    + held_visible("k")
    + """
RETURN DISTINCT k.holder AS holder
ORDER BY holder
"""
)
"""READ. $holders (candidate holder keys), $name and graph.scope.reach_params -> holder: each
holder the reach sees that has ever had a version of the document (retired ones included),
so `/versions` without a group finds the one it means. Seeks on `knowledge_holder_name`."""

POINTERS = (
    """
CALL db.index.fulltext.queryNodes('knowledge_words', $turn.lucene) YIELD node AS k, score
WHERE k.retracted_at = $far AND k.retired = false AND """
    + held_visible("k")
    + """
RETURN k.name AS name, k.description AS description, k.holder AS holder,
       k.search_text AS text
ORDER BY score DESC, name, holder
LIMIT $limit
"""
)
"""READ. $turn: {lucene} (words of a message, narrowed to the reach's holders:
graph.read.knowledge.pointer_lucene; in a map, so its length class never makes prefetch
plan again, graph.scope.reach_params), $far, $limit and graph.scope.reach_params -> name,
description, holder, text (the indexed words): current documents the reach sees whose
name or description shares words with the message, best first (prefetch's pointer line,
CONTRACT §14). Only current versions are in the index (RECORD_VERSIONS)."""


def _time(node: dict[str, Any], field: str) -> datetime:
    """A time of a node (`<field>_at`) or of a listing's map (`<field>_us`, microseconds:
    decoding a DATETIME costs the driver far more than an integer, graph/cypher/
    _fragments.py `micros`); FAR_FUTURE when neither is there."""
    if node.get(field + "_us") is not None:
        return from_micros(int(node[field + "_us"]))
    if node.get(field + "_at") is not None:
        return from_store(node[field + "_at"])
    return FAR_FUTURE


def document_from_record(node: Any) -> DocumentRecord:
    """Build a `DocumentRecord` from a KnowledgeVersion node, or a map of LIST_DOCS or
    VERSIONS (fields they leave out read as empty)."""
    node = dict(node)
    body = node.get("body") or ""
    return DocumentRecord(
        id=node.get("id") or "",
        holder=node["holder"],
        group_id=node.get("group_id"),
        name=node["name"],
        version=int(node["version"]),
        description=node.get("description") or "",
        body=body,
        retired=bool(node.get("retired")),
        recorded_at=_time(node, "recorded"),
        retracted_at=_time(node, "retracted"),
        author=node["author"],
        source=node["source"],
        reason=node.get("reason"),
        path=node.get("path"),
        cause=node.get("cause"),
        restored_from=node.get("restored_from"),
        digest=node.get("digest") or "",
        chars=int(node["chars"]) if node.get("chars") is not None else len(body),
    )
