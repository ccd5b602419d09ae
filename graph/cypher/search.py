"""Cypher for semantic and full-text recall over fact rows (CONTRACT §6 "Pull", §10 search).

Each fact row carries `search_text` ("<entity> <attribute> <value>", graph.embedding.
fact_text), and when an embedder ran, `embedding` (a float vector) with `embedding_model`
(the id of the model that made it). Both are derived index data written once by the
committer in the transaction that creates the row (or later by the backfill); no fact
field is ever rewritten.

Two indexes serve them (graph/schema.py): the vector index `fact_embedding` (cosine)
and the full-text index `fact_text` over `search_text`, `owner` and `entity_id`. Both
are global across owners, so every query below ANDs the as-of point (CONTRACT §2) and
`FACT_VISIBLE` (graph/scope.py) after the index, and the reader checks completeness
(graph/read/search.py). Scores: the vector index and `vector.similarity.cosine` both
answer (1 + cosine) / 2, in [0, 1]; full-text scores are Lucene's BM25. A row's entity `e`
goes out as graph/cypher/entities.py ENTITY_MAP (times as integers: a search returns up to
200 of them, and decoding their DATETIMEs was a fifth of its Python time).
"""

from __future__ import annotations

from graph.cypher._fragments import AS_OF, on, top_hits
from graph.cypher.entities import ENTITY_MAP
from graph.cypher.facts import FACT_COLUMNS
from graph.scope import FACT_VISIBLE

_ROW = "f " + FACT_COLUMNS.replace("VAR", "f")
_ENTITY = on(ENTITY_MAP, "e")
_AS_OF = on(AS_OF, "f")

SEMANTIC_NEAREST = (
    """
CALL db.index.vector.queryNodes('fact_embedding', $k, $vector) YIELD node AS f, score
WHERE f.embedding_model = $model AND """
    + _AS_OF
    + """
  AND """
    + FACT_VISIBLE
    + """
MATCH (e:Entity {id: f.entity_id})
RETURN """
    + _ROW
    + """ AS row, """
    + _ENTITY
    + """ AS e, score, f.search_text AS text
ORDER BY score DESC, row.id
"""
)
"""READ. $vector, $k, $model, $known_at, $valid_at, **scope params -> row, e, score, text: of
the (about) $k nearest rows of every owner that the index gives (HNSW is approximate: it may
give fewer), those the scope sees at the as-of point, embedded by $model, best first."""

SEMANTIC_EXACT = (
    """
CALL () {
  MATCH (f:Fact)
  USING INDEX f:Fact(owner, retracted_at, valid_to)
  WHERE f.owner = $owner AND f.retracted_at > $known_at AND f.valid_to > $valid_at
  RETURN f
  UNION
  UNWIND $shared AS eid
  MATCH (f:Fact)
  USING INDEX f:Fact(entity_id, retracted_at, valid_to)
  WHERE f.entity_id = eid AND f.retracted_at > $known_at AND f.valid_to > $valid_at
  RETURN f
}
WITH f
WHERE f.embedding_model = $model AND """
    + _AS_OF
    + """
  AND """
    + FACT_VISIBLE
    + """
WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
ORDER BY score DESC, f.id
LIMIT $k
MATCH (e:Entity {id: f.entity_id})
RETURN """
    + _ROW
    + """ AS row, """
    + _ENTITY
    + """ AS e, score, f.search_text AS text
ORDER BY score DESC, row.id
"""
)
"""READ. $vector, $k, $model, $known_at, $valid_at, **scope params -> row, e, score, text: the
$k rows nearest to $vector among the rows the scope sees at the as-of point, computed
exactly over them (no index approximation), best first, ties by id.

PROFILE: NodeIndexSeekByRange on `fact_owner_asof` (owner = $owner, retracted_at >
$known_at) for the owner's rows, and on `fact_entity_asof` for shared entities; cost
grows with the caller's rows only, never with other owners'."""


_fulltext_body = (
    "WHERE "
    + _AS_OF
    + "\n  AND "
    + FACT_VISIBLE
    + "\nWITH f, score\nORDER BY score DESC, f.id\nLIMIT $k\n"
    + "MATCH (e:Entity {id: f.entity_id})\nRETURN "
    + _ROW
    + """ AS row, """
    + _ENTITY
    + """ AS e, score, f.search_text AS text,
       CASE WHEN $vector IS NULL OR f.embedding_model IS NULL OR f.embedding_model <> $model
            THEN null ELSE vector.similarity.cosine(f.embedding, $vector) END AS semantic
"""
)
"""FULLTEXT's filter, order, cut and columns over hits bound to `f` and `score`."""
_best_first = "ORDER BY score DESC, row.id\n"

FULLTEXT = (
    "\nCALL db.index.fulltext.queryNodes('fact_text', $lucene) YIELD node AS f, score\n"
    + _fulltext_body
    + _best_first
)
"""READ. $lucene (Lucene syntax, built by graph.read.search.lucene_query: the words of
the search restricted to the caller's owner and shared entities), $k, $known_at,
$valid_at, $vector (the query's embedding, or null), $model, **scope params -> row, e,
score, text (the row's search_text), semantic ((1 + cosine) / 2 against $vector, null
without one or for a row of another model): the best $k full-text hits the scope sees
at the as-of point, ties by id."""

FULLTEXT_TOP = (
    "\n" + top_hits("fact_text", "f", _fulltext_body, "row, e, score, text, semantic") + _best_first
)
"""READ. As FULLTEXT (same params and columns, plus $scan -> scanned), over only the $scan
best full-text hits (Lucene gives them best first), so the as-of and visibility filters
read at most $scan rows, not every row of the owner holding one of the words (at 10^5 rows
that was ~123,000 db hits for 20 rows). `scanned`: how many hits Lucene gave (< $scan: all
there were). Always one row at least: when none is visible, one row of `scanned` and
nulls (`score` null). The rows are FULLTEXT's when $k of them come back or `scanned` <
$scan (graph.read.base `_best_rows` falls back to FULLTEXT otherwise)."""

FULLTEXT_LIST = (
    "CALL () {\n"
    + top_hits("fact_text", "f", _fulltext_body, "row, e, score, text, semantic")
    + """}
WITH * ORDER BY score DESC, row.id
RETURN max(scanned) AS fact_scanned,
       collect(CASE WHEN score IS NOT NULL
               THEN {row: row, e: e, score: score, text: text, semantic: semantic} END) AS fact_text
"""
)
"""READ. FULLTEXT_TOP's rows as one row, so another query can run it as a subquery
(graph/cypher/recall.py): same params -> fact_scanned (FULLTEXT_TOP's `scanned`),
fact_text (maps of its columns row, e, score, text, semantic; the visible hits only,
best first, ties by id)."""

SEMANTIC_SMALL = (
    """
CALL () {
  CALL () {
    MATCH (f:Fact)
    USING INDEX f:Fact(owner, retracted_at, valid_to)
    WHERE f.owner = $owner AND f.retracted_at > $known_at AND f.valid_to > $valid_at
    RETURN f
    UNION
    UNWIND $shared AS eid
    MATCH (f:Fact)
    USING INDEX f:Fact(entity_id, retracted_at, valid_to)
    WHERE f.entity_id = eid AND f.retracted_at > $known_at AND f.valid_to > $valid_at
    RETURN f
  }
  WITH f LIMIT $cap
  RETURN collect(f) AS fs
}
CALL (fs) {
  UNWIND CASE WHEN size(fs) < $cap THEN fs ELSE [] END AS f
  WITH f
  WHERE f.embedding_model = $model AND """
    + _AS_OF
    + """
    AND """
    + FACT_VISIBLE
    + """
  WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
  ORDER BY score DESC, f.id
  LIMIT $k
  MATCH (e:Entity {id: f.entity_id})
  RETURN collect(["""
    + _ROW
    + """, """
    + _ENTITY
    + """, score, f.search_text]) AS hits
}
RETURN size(fs) < $cap AS complete, hits
"""
)
"""READ. $vector, $k, $cap, $model, $known_at, $valid_at, **scope params -> complete, hits:
when fewer than $cap rows of the caller (and of entities shared with it) are open at
the as-of point, `complete` is true and `hits` are the $k nearest the scope sees, ranked
exactly as SEMANTIC_EXACT does, each [row, e, score, search_text]; otherwise `complete`
is false and `hits` empty (the caller asks the vector index). Its cost follows the
caller's rows, at most $cap index entries, whatever the other owners hold: a small
owner never pays for the shared index's ANN query and an exact fallback both."""

INDEX_ROWS = """
UNWIND $rows AS r
MATCH (f:Fact {id: r.id})
WHERE f.owner = $owner
SET f.search_text = r.text
WITH f, r
WHERE r.embedding IS NOT NULL
SET f.embedding_model = $model
WITH f, r
CALL db.create.setNodeVectorProperty(f, 'embedding', r.embedding)
"""
"""WRITE. $owner, $model, $rows (list of {id, text, embedding (list of floats, or null)})
-> nothing. Sets the search fields of rows just created (or backfilled): the text, and
when there is a vector, the vector (stored as 32-bit floats) and the model's id."""

UNINDEXED_ROWS = """
MATCH (f:Fact)
USING INDEX f:Fact(owner, retracted_at, valid_to)
WHERE f.owner = $owner AND f.retracted_at IS NOT NULL AND f.valid_to IS NOT NULL
  AND (f.search_text IS NULL OR ($model IS NOT NULL
       AND (f.embedding_model IS NULL OR f.embedding_model <> $model)))
OPTIONAL MATCH (e:Entity {id: f.entity_id})
OPTIONAL MATCH (o:Entity {id: f.object_id})
RETURN f.id AS id, e.name AS entity_name, f.attribute AS attribute, f.value AS value,
       o.name AS object_name
ORDER BY f.id
LIMIT $limit
"""
"""READ (inside the backfill's write transaction). $owner, $model (or null: text only),
$limit -> id, entity_name, attribute, value, object_name: rows of the owner, on any axis,
with no search text or with no vector of $model."""

OWNER_IDS = """
MATCH (o:Owner)
WHERE o.id IS NOT NULL
RETURN o.id AS id
ORDER BY id
"""
"""READ. -> id of every owner (the backfill walks them). Scans the `owner_id` constraint's
index."""
