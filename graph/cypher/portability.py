"""Cypher of the owner export and import (issue 13; the format is graph/portable.py).

One query per node kind and per relationship type, built from the literal tables in
`graph.portable` (labels and types are ours, never from input), as the erasure batches
are. Pages are keyset pages on an index that provides their order, so a page costs the
same at the start and at the end of a million facts:

* kinds with `cursor = "id"` seek on `<label>_owner_id` (owner, id), ordered by both;
* kinds with `cursor = "key"` (`owner/...`, unique) seek on the key's unique index with
  the owner's prefix, ordered by key;
* `Suppression` has neither: its page orders a composite of its unique fields on the
  `suppression_owner` index (an owner's suppressions are few).

An import restores nodes and relationships as they were exported, every property of
them: `SET n += row` is the honest form here (the rule "set fields one by one" is about
the committer's own writes of facts, whose fields are known).
"""

from __future__ import annotations

from graph.portable import BY_LABEL, KINDS, RELATIONS, Kind, Relation

OWNER_ID_INDEXES: tuple[str, ...] = tuple(
    f"CREATE INDEX {k.label.lower()}_owner_id IF NOT EXISTS FOR (n:{k.label}) ON (n.owner, n.id)"
    for k in KINDS
    if k.cursor == "id" and k.label != "Owner"
)
"""Schema (graph/schema.py): the index every `cursor = "id"` kind's export pages seek on."""

_SUPPRESSION_CURSOR = "n.attribute + '|' + n.subject + '|' + n.value_key"


def _seek(kind: Kind) -> tuple[str, str, str]:
    """(MATCH ... WHERE of one page's nodes, ORDER BY, cursor expression) of a kind."""
    if kind.label == "Owner":
        return "MATCH (n:Owner {id: $owner}) WHERE n.id > $after", "n.id", "n.id"
    if kind.label == "Suppression":
        where = f"MATCH (n:Suppression) WHERE n.owner = $owner AND {_SUPPRESSION_CURSOR} > $after"
        return where, _SUPPRESSION_CURSOR, _SUPPRESSION_CURSOR
    if kind.cursor == "key":
        where = (
            f"MATCH (n:{kind.label}) "
            "WHERE n.key STARTS WITH $prefix AND n.key > $after AND n.owner = $owner"
        )
        return where, "n.key ASC", "n.key"
    where = f"MATCH (n:{kind.label}) WHERE n.owner = $owner AND n.id > $after"
    return where, "n.owner ASC, n.id ASC", "n.id"


def _page(kind: Kind) -> str:
    where, order, cursor = _seek(kind)
    return f"""
{where}
WITH n ORDER BY {order} LIMIT $limit
RETURN n, {cursor} AS cursor
"""


EXPORT_PAGE: dict[str, str] = {k.label: _page(k) for k in KINDS}
"""READ, one per kind. $owner, $prefix (owner + "/"), $after (the last page's last
cursor, "" at first), $limit -> n (the node), cursor. One page, in cursor order."""


def _rel_page(rel: Relation) -> str:
    start, end = BY_LABEL[rel.start], BY_LABEL[rel.end]
    where, order, cursor = _seek(start)
    return f"""
{where}
WITH n ORDER BY {order} LIMIT $limit
OPTIONAL MATCH (n)-[r:{rel.type}]->(m:{rel.end})
WHERE m.{end.owner_field} = $owner
RETURN {cursor} AS cursor, n.{start.ref} AS start,
       collect(CASE WHEN r IS NULL THEN null ELSE [m.{end.ref}, properties(r)] END) AS edges
"""


EXPORT_RELATIONS: dict[str, str] = {r.key: _rel_page(r) for r in RELATIONS}
"""READ, one per relation (`Relation.key`). $owner, $prefix, $after, $limit -> cursor, start (the
start node's ref), edges (list of [end ref, properties]): the relationships of one page of
start nodes that end at nodes of the same owner."""

LAST_TX = """
MATCH (o:Owner {id: $owner})
RETURN o.last_tx AS last_tx
"""
"""READ. $owner -> last_tx (0 rows for an unknown owner): the owner's last commit time,
read at the start and the end of an export to tell whether commits landed during it."""

OWNED_BESIDES_TOKENS = """
MATCH (n)
WHERE n.owner = $owner AND NOT n:Token
RETURN count(n) AS owned
"""
"""READ. $owner -> owned: nodes of the owner other than its tokens (an import target must
have none). An AllNodesScan, like erasure's proof: independent of the label list; run once
per import, an admin operation (tests/graph/test_query_plans.py exempts it)."""


def _create(kind: Kind) -> str:
    return f"""
UNWIND $rows AS row
CREATE (n:{kind.label})
SET n += row
RETURN count(n) AS created
"""


CREATE_NODES: dict[str, str] = {k.label: _create(k) for k in KINDS if k.label != "Owner"}
"""WRITE, one per kind. $rows (maps of property -> value, remapped for the new owner)
-> created."""

SET_OWNER = """
MERGE (o:Owner {id: $owner})
SET o += $props, o.importing = $t
RETURN o.id AS id
"""
"""WRITE. $owner, $props, $t -> id: create the owner if missing (it may hold tokens),
set the exported owner's properties (self entity, profile, last commit time) and mark it
`importing` (graph/cypher/entities.py LOCK_OWNER: no commit starts until the import ends)."""

END_IMPORT = """
MATCH (o:Owner {id: $owner})
REMOVE o.importing
RETURN o.id AS id
"""
"""WRITE. $owner -> id: the import is over; commits of the owner may start."""


def _match(kind: Kind, var: str, ref: str) -> str:
    if kind.label == "Owner":
        return f"MATCH ({var}:Owner {{id: $owner}})"
    if kind.cursor == "key":  # Event: found by its key, owner + "/" + id
        return f"MATCH ({var}:{kind.label} {{key: $owner + '/' + {ref}}})"
    return f"MATCH ({var}:{kind.label}) WHERE {var}.owner = $owner AND {var}.id = {ref}"


def _link(rel: Relation) -> str:
    start, end = BY_LABEL[rel.start], BY_LABEL[rel.end]
    return f"""
UNWIND $edges AS edge
{_match(start, "a", "edge.start")}
{_match(end, "b", "edge.end")}
CREATE (a)-[r:{rel.type}]->(b)
SET r += edge.props
RETURN count(r) AS created
"""


CREATE_RELATIONS: dict[str, str] = {r.key: _link(r) for r in RELATIONS}
"""WRITE, one per relation (`Relation.key`). $owner, $edges (maps: start, end (refs of the new
owner's nodes), props) -> created. Seeks on `<label>_owner_id` or the event key."""
