"""Cypher for the in-process vector cache of owners' fact rows and episodes
(graph/read/vectors.py).

The vector indexes `fact_embedding` and `episode_embedding` hold every owner's vectors,
so for an owner with few rows in a crowded store their nearest hits are mostly other
owners' (issue 17: 38 of 40 searches of a small owner paid for the index query and then
for the exact ranking). The cache keeps an owner's vectors in the API process and ranks
them there; these queries load them, keep them current, and check the candidates the
cache picks against the store (the as-of point, `FACT_VISIBLE` and `EPISODE_FINDABLE` are
decided here, never in Python). `QUERIES` names the three that load and refresh an entry,
per kind.

Staleness is told by transaction time: every commit of an owner sets `Owner.last_tx`
(graph/cypher/entities.py SET_TX_TIME) in the transaction that creates or retracts rows or
episodes, and both are immutable except `retracted_at`, so what changed since a cached
`last_tx` is what was recorded or retracted after it. Vectors set on existing rows or
episodes (the backfill, which commits nothing) bump `Owner.search_rev` instead, and the
cache then loads the owner again.
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.cypher._fragments import AS_OF, SAID_AS_OF, micros, on, valid_micros
from graph.cypher.entities import ENTITY_MAP
from graph.cypher.episodes import EPISODE_COLUMNS
from graph.cypher.facts import FACT_COLUMNS
from graph.scope import EPISODE_FINDABLE, FACT_VISIBLE

_ROW = "f " + FACT_COLUMNS.replace("VAR", "f")
_ENTITY = on(ENTITY_MAP, "e")
_TIMES = on(
    micros("recorded_at")
    + " AS recorded, "
    + micros("retracted_at")
    + " AS retracted, "
    + valid_micros("valid_from")
    + " AS valid_from, "
    + valid_micros("valid_to")
    + " AS valid_to",
    "f",
)

VECTORS_KEY = """
MATCH (o:Owner {id: $owner})
RETURN o.last_tx AS last_tx, coalesce(o.search_rev, 0) AS rev
"""
"""READ. $owner -> last_tx (the owner's last commit time), rev (bumped when vectors are set
on existing rows): the cache's key. 0 rows for an unknown (or erased) owner."""

OWNER_VECTORS = (
    """
MATCH (f:Fact)
USING INDEX f:Fact(owner, retracted_at, valid_to)
WHERE f.owner = $owner AND f.retracted_at IS NOT NULL AND f.valid_to IS NOT NULL
  AND f.embedding_model = $model
RETURN f.id AS id, f.embedding AS embedding, """
    + _TIMES
    + """
LIMIT $limit
"""
)
"""READ. $owner, $model, $limit -> id, embedding, recorded, retracted, valid_from, valid_to
(times in microseconds since the epoch, UTC): up to $limit rows of the owner on every axis
with a vector of $model. A seek on `fact_owner_asof`; cost grows with the owner's rows."""

VECTORS_SINCE = (
    """
MATCH (f:Fact)
USING INDEX f:Fact(owner, retracted_at, valid_to)
WHERE f.owner = $owner AND f.retracted_at > $since AND f.valid_to IS NOT NULL
  AND f.embedding_model = $model
  AND (f.recorded_at > $since OR f.retracted_at <= $last_tx)
RETURN f.id AS id, CASE WHEN f.recorded_at > $since THEN f.embedding END AS embedding, """
    + _TIMES
    + """
"""
)
"""READ. $owner, $model, $since (the cached key's `last_tx`), $last_tx (the current one) ->
id, embedding (null for a row the cache already holds), recorded, retracted, valid_from,
valid_to: the owner's rows with a vector of $model recorded after $since (new rows) or
retracted after it (a retraction is the only change a row may undergo). Seeks
`fact_owner_asof` from $since: rows retracted before it are never read."""

_fact_nearest = (
    """
UNWIND $candidates AS c
MATCH (f:Fact {id: c.id})
WHERE f.owner = $owner AND f.embedding_model = $model AND """
    + on(AS_OF, "f")
    + """
  AND """
    + FACT_VISIBLE
    + """
WITH f, c.score AS near
ORDER BY near DESC, f.id
LIMIT $k
WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
MATCH (e:Entity {id: f.entity_id})
"""
)
"""NEAREST_OF up to its columns: binds f, e, score."""
_fact_columns = "row: " + _ROW + ", e: " + _ENTITY + ", score: score, text: f.search_text"
"""NEAREST_OF's columns, as a map's entries."""

NEAREST_OF = (
    _fact_nearest
    + "RETURN "
    + _ROW
    + " AS row, "
    + _ENTITY
    + """ AS e, score, f.search_text AS text
ORDER BY score DESC, row.id
"""
)
"""READ. $candidates (list of {id, score}: the rows the cache picked, with their
(1 + cosine) / 2 to the query as the cache computed it), $vector, $k, $model, $known_at,
$valid_at, **scope params -> row, e, score, text (the row's search text): of the
candidates, the best $k the scope sees at the as-of point, scored by Neo4j as
SEMANTIC_EXACT scores them (so every path gives the same score to the digit), best first,
ties by id. Seeks the `fact_id` constraint's index once per candidate, and reads the
vectors of the $k kept only."""

BUMP_SEARCH_REV = """
MATCH (o:Owner {id: $owner})
SET o.search_rev = coalesce(o.search_rev, 0) + 1
"""
"""WRITE. $owner -> nothing. Vectors were set on existing rows of the owner (the backfill):
caches of its vectors load it again (VECTORS_KEY)."""

OWNER_ROWS = """
MATCH (f:Fact)
USING INDEX f:Fact(owner, retracted_at, valid_to)
WHERE f.owner = $owner AND f.retracted_at IS NOT NULL AND f.valid_to IS NOT NULL
WITH f
LIMIT $limit
RETURN count(f) AS rows
"""
"""READ. $owner, $limit -> rows: how many rows the owner has on every axis, counted up to
$limit (so an owner too big to cache costs at most $limit index entries to find out)."""

_EPISODE_TIMES = on(
    micros("recorded_at")
    + " AS recorded, "
    + micros("retracted_at")
    + " AS retracted, "
    + valid_micros("said_at")
    + " AS valid_from, 9223372036854775807 AS valid_to",
    "ep",
)
"""An episode's times as the cache holds them: valid from `said_at` on, never ending."""

EPISODE_VECTORS = (
    """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, retracted_at, said_at)
WHERE ep.owner = $owner AND ep.retracted_at IS NOT NULL AND ep.said_at IS NOT NULL
  AND ep.embedding_model = $model
RETURN ep.id AS id, ep.embedding AS embedding, """
    + _EPISODE_TIMES
    + """
LIMIT $limit
"""
)
"""READ. $owner, $model, $limit -> id, embedding, recorded, retracted, valid_from (said_at),
valid_to (the largest int64: open) in microseconds since the epoch (UTC): up to $limit
episodes of the owner on every axis with a vector of $model. A seek on
`episode_owner_asof`; cost grows with the owner's episodes."""

EPISODE_VECTORS_SINCE = (
    """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, retracted_at, said_at)
WHERE ep.owner = $owner AND ep.retracted_at > $since AND ep.said_at IS NOT NULL
  AND ep.embedding_model = $model
  AND (ep.recorded_at > $since OR ep.retracted_at <= $last_tx)
RETURN ep.id AS id, CASE WHEN ep.recorded_at > $since THEN ep.embedding END AS embedding, """
    + _EPISODE_TIMES
    + """
"""
)
"""READ. As VECTORS_SINCE, of episodes: $owner, $model, $since, $last_tx -> id, embedding
(null for one the cache already holds), recorded, retracted, valid_from, valid_to: the
owner's episodes with a vector of $model recorded or forgotten after $since. Seeks
`episode_owner_asof` from $since."""

OWNER_EPISODES = """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, retracted_at, said_at)
WHERE ep.owner = $owner AND ep.retracted_at IS NOT NULL AND ep.said_at IS NOT NULL
WITH ep
LIMIT $limit
RETURN count(ep) AS rows
"""
"""READ. $owner, $limit -> rows: how many episodes the owner has on every axis, counted up
to $limit (as OWNER_ROWS)."""

_episode_nearest = (
    """
UNWIND $VAR AS c
MATCH (ep:Episode {id: c.id})
WHERE ep.embedding_model = $model AND """
    + on(SAID_AS_OF, "ep")
    + """
  AND """
    + EPISODE_FINDABLE
    + """
WITH ep, c.score AS near
ORDER BY near DESC, ep.id
LIMIT $k
WITH ep, vector.similarity.cosine(ep.embedding, $vector) AS score
OPTIONAL MATCH (sp:Entity {id: ep.speaker_id})
"""
)
"""EPISODES_NEAREST_OF up to its columns, over the candidates in parameter `$VAR`: binds
ep, sp, score."""
_episode = "ep " + EPISODE_COLUMNS.replace("VAR", "ep")

EPISODES_NEAREST_OF = (
    _episode_nearest.replace("$VAR", "$candidates")
    + "RETURN "
    + _episode
    + """ AS episode, sp.name AS speaker, score, ep.search_text AS text,
       score AS semantic
ORDER BY score DESC, episode.id
"""
)
"""READ. $candidates (list of {id, score}: the episodes the cache picked), $vector, $k,
$model, $known_at, $valid_at, **scope params -> episode, speaker, score, text, semantic
(= score): of the candidates, the best $k the scope sees at the as-of point (CONTRACT
§12, `EPISODE_FINDABLE`), scored as graph/cypher/episodes.py EPISODES_EXACT scores them,
best first, ties by id (its columns are EPISODES_NEAREST's). Seeks the `episode_id`
constraint's index once per candidate."""


NEAREST_OF_BOTH = (
    """
CALL () {"""
    + _fact_nearest
    + "WITH f, e, score ORDER BY score DESC, f.id\nRETURN collect({"
    + _fact_columns
    + """}) AS facts
}
CALL () {"""
    + _episode_nearest.replace("$VAR", "$episode_candidates")
    + "WITH ep, sp, score ORDER BY score DESC, ep.id\nRETURN collect({episode: "
    + _episode
    + """, speaker: sp.name, score: score, text: ep.search_text, semantic: score}) AS episodes
}
RETURN facts, episodes
"""
)
"""READ. NEAREST_OF and EPISODES_NEAREST_OF in one round trip (a search checks both kinds'
candidates at once, graph/read/recall.py): $candidates (fact rows), $episode_candidates,
$vector, $k, $model, $known_at, $valid_at, **scope params -> one row: facts (maps of
NEAREST_OF's columns), episodes (maps of EPISODES_NEAREST_OF's columns), each best first,
ties by id, as those queries answer them."""


@dataclass(frozen=True, slots=True)
class Loading:
    """The queries that load and refresh one kind of cache entry (graph/read/base.py).

    Attributes:
        rows: counts the owner's rows of the kind up to $limit (OWNER_ROWS).
        load: every row with a vector of $model, up to $limit (OWNER_VECTORS).
        since: what changed since a key (VECTORS_SINCE).
    """

    rows: str
    load: str
    since: str


QUERIES = {
    "fact": Loading(OWNER_ROWS, OWNER_VECTORS, VECTORS_SINCE),
    "episode": Loading(OWNER_EPISODES, EPISODE_VECTORS, EPISODE_VECTORS_SINCE),
}
"""Per kind (graph.read.vectors FACTS, EPISODES), the queries of its cache entries."""
