"""Cypher for episodes, what was said (CONTRACT §12): the node, and every read of it (the
committer's writes are in graph/cypher/episode_writes.py).

`(:Episode {id, owner, chat_id, run_id, message_id, seq, part, surface, role, speaker_id,
text, said_at, source, recorded_at, retracted_at, forgot_facts, search_text, embedding,
embedding_model})`: one message of a curated run (or the pasted part of a user message),
written once by the committer in the transaction that files the run, never rewritten
except `retracted_at` and `forgot_facts` (set once, when the person forgets it; the latter
true when the forget took the facts whose only evidence it was, false when it left them
standing) and erased with its owner.
`search_text` ("<speaker>: <text>" for a named speaker other than the owner, else the
text) feeds the full-text index `episode_text` and the vector `embedding` the vector
index `episode_embedding` (graph/schema.py); both are derived index data.

Every read ANDs the as-of point (`said_at <= $valid_at`, `recorded_at <= $known_at <
retracted_at`, CONTRACT §12) and `EPISODE_VISIBLE` (graph/scope.py: the owner's own, area
`conversation`, an allowed source). Times go out as integer microseconds (as fact rows,
graph/cypher/facts.py FACT_COLUMNS).
"""

from __future__ import annotations

from typing import Any

from graph.cypher._fragments import SAID_AS_OF, micros, on, top_hits, valid_micros
from graph.records import EpisodeRecord
from graph.scope import EPISODE_FINDABLE, EPISODE_VISIBLE
from graph.time import from_micros

TEXT_INDEX = "episode_text"
"""The full-text index on `Episode.search_text` and `Episode.owner` (english: stems, no folding)."""
VECTOR_INDEX = "episode_embedding"
"""The vector index on `Episode.embedding` (cosine, unquantized, like `fact_embedding`)."""

EPISODE_COLUMNS = (
    """{
  .id, .owner, .chat_id, .run_id, .message_id, .seq, .part, .surface, .role, .speaker_id,
  .text, .source,
  said_at_us: """
    + valid_micros("said_at")
    + """,
  recorded_at_us: """
    + micros("recorded_at")
    + """,
  retracted_at_us: """
    + micros("retracted_at")
    + """
}"""
)
"""An episode's columns, its times as integer microseconds since the epoch (UTC); a
`said_at` before 1970 with a fraction of a second is floored like `valid_from`."""


def _project(var: str) -> str:
    return var + " " + EPISODE_COLUMNS.replace("VAR", var)


def _as_of(var: str) -> str:
    """CONTRACT §12 visibility at ($valid_at, $known_at) for an episode bound to `var`."""
    return on(SAID_AS_OF, var)


_visible = EPISODE_VISIBLE
_findable = EPISODE_FINDABLE
_speaker = "OPTIONAL MATCH (sp:Entity {id: ep.speaker_id})\n"


EPISODE_BY_ID = (
    """
MATCH (ep:Episode {id: $episode_id})
WHERE """
    + _visible
    + """
"""
    + _speaker
    + """RETURN """
    + _project("ep")
    + """ AS episode, sp.name AS speaker
"""
)
"""READ. $episode_id, **scope params -> episode, speaker (0 or 1 row): the episode on any
axis (a forgotten one shows its `retracted_at`, as a fact row does), if the scope may see
it. Unique-constraint seek on Episode.id."""

_page_filter = (
    """ep.owner = $owner AND """
    + _as_of("ep")
    + """
  AND ($chat_id IS NULL OR ep.chat_id = $chat_id)
  AND ($after IS NULL OR ep.said_at > $after.said_at
       OR (ep.said_at = $after.said_at AND (ep.run_id > $after.run_id
           OR (ep.run_id = $after.run_id AND (ep.seq > $after.seq
               OR (ep.seq = $after.seq AND ep.part > $after.part))))))
  AND """
    + _visible
)

_page_tail = (
    """
WITH ep ORDER BY ep.said_at, ep.run_id, ep.seq, ep.part LIMIT $limit
"""
    + _speaker
    + """RETURN """
    + _project("ep")
    + """ AS episode, sp.name AS speaker
ORDER BY episode.said_at_us, episode.run_id, episode.seq, episode.part
"""
)

EPISODES_PAGE = (
    """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, retracted_at, said_at)
WHERE ep.owner = $owner AND ep.retracted_at > $known_at AND ep.said_at <= $valid_at
  AND """
    + _page_filter
    + _page_tail
)
"""READ. $owner, $valid_at, $known_at, $chat_id (or null), $after ({said_at, run_id, seq,
part} of the last episode of the previous page, or null), $limit, **scope params ->
episode, speaker: the episodes visible at the as-of point, oldest said first, then in
run order (run id, position, own words before a pasted part). NodeIndexSeekByRange on
`episode_owner_asof`."""

CHAT_HISTORY = (
    """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, retracted_at, said_at)
WHERE ep.owner = $owner AND ep.retracted_at > $known_at AND ep.said_at <= $valid_at
  AND """
    + _as_of("ep")
    + """
  AND ep.chat_id = $history.chat_id AND ep.part = 'own' AND ep.role IN ['user', 'assistant']
  AND ep.said_at < $history.before AND ep.said_at >= $history.oldest
  AND ($history.key IS NULL OR ep.said_at < $history.key.said_at
       OR (ep.said_at = $history.key.said_at AND (ep.run_id < $history.key.run_id
           OR (ep.run_id = $history.key.run_id AND ep.seq < $history.key.seq))))
  AND """
    + _visible
    + """
WITH ep ORDER BY ep.said_at DESC, ep.run_id DESC, ep.seq DESC LIMIT $limit
"""
    + _speaker
    + """RETURN """
    + _project("ep")
    + """ AS episode, sp.name AS speaker
ORDER BY episode.said_at_us, episode.run_id, episode.seq
"""
)
"""READ. $owner, $valid_at, $known_at (now), $history: {chat_id, before, oldest, key (null,
or {said_at, run_id, seq}: only messages ordered before that one)}, $limit,
**scope params -> episode, speaker: a chat's thread (issue 16 "Per-chat history"): the
visible text of its user and assistant messages (their own words: no tool, document or
system entries, no pasted part) said in `[oldest, before)`, the latest $limit of them,
returned oldest first. Forgotten episodes are not in it. NodeIndexSeekByRange on
`episode_owner_asof`."""

RECENT_EPISODES = (
    """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, retracted_at, said_at)
WHERE ep.owner = $owner AND ep.retracted_at > $known_at AND ep.said_at <= $valid_at
  AND """
    + _page_filter
    + """
WITH ep ORDER BY ep.said_at DESC, ep.run_id DESC, ep.seq DESC, ep.part DESC LIMIT $limit
"""
    + _speaker
    + """RETURN """
    + _project("ep")
    + """ AS episode, sp.name AS speaker
ORDER BY episode.said_at_us DESC, episode.run_id DESC, episode.seq DESC, episode.part DESC
"""
)
"""READ. As EPISODES_PAGE ($after null), newest said first: the last $limit episodes
(Hubify's messages layer, api/notes/hubify.py). NodeIndexSeekByRange on
`episode_owner_asof`."""

EPISODES_OF_RUN = (
    """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, run_id)
WHERE ep.owner = $owner AND ep.run_id = $run_id
  AND """
    + _page_filter
    + _page_tail
)
"""READ. As EPISODES_PAGE, of one run ($run_id). NodeIndexSeek on `episode_owner_run`."""

EPISODES_AT = (
    """
UNWIND $places AS place
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, run_id)
WHERE ep.owner = $owner AND ep.run_id = place.run_id AND ep.seq = place.seq
  AND """
    + _as_of("ep")
    + """ AND """
    + _findable
    + """
WITH DISTINCT ep
WITH ep, CASE WHEN $vector IS NULL OR ep.embedding_model IS NULL
              OR ep.embedding_model <> $model THEN null
            ELSE vector.similarity.cosine(ep.embedding, $vector) END AS score
"""
    + _speaker
    + """RETURN """
    + _project("ep")
    + """ AS episode, sp.name AS speaker, score, ep.search_text AS text, score AS semantic
ORDER BY episode.run_id, episode.seq, episode.id
"""
)
"""READ. $owner, $places (maps {run_id, seq}: places in runs), $vector (the query's
embedding, or null), $model, $valid_at, $known_at, **scope params -> episode, speaker,
score and semantic (both (1 + cosine) / 2 against $vector, null without one or for an
episode of another model), text (search_text): the episodes said at those places (every
part) that the scope sees at the as-of point, in run order. NodeIndexSeek on
`episode_owner_run` per place; its cost follows the places asked, never the store."""

EPISODES_MATCHING = (
    """
CALL db.index.fulltext.queryNodes('"""
    + TEXT_INDEX
    + """', $lucene) YIELD node AS ep
WITH ep
WHERE ($run_id IS NULL OR ep.run_id = $run_id) AND """
    + _page_filter
    + _page_tail
)
"""READ. As EPISODES_PAGE ($run_id or null), of the episodes whose text has every word of
a search: $lucene (graph.read.episodes.episode_lucene with `every=True`, narrowed to
$owner)."""

_columns = (
    _speaker
    + """RETURN """
    + _project("ep")
    + """ AS episode, sp.name AS speaker, score, ep.search_text AS text,
       CASE WHEN $vector IS NULL OR ep.embedding_model IS NULL
              OR ep.embedding_model <> $model THEN null
            ELSE vector.similarity.cosine(ep.embedding, $vector) END AS semantic
"""
)
_best_first = "ORDER BY score DESC, episode.id\n"
_scored = _columns + _best_first


_fulltext_body = (
    "WHERE "
    + _as_of("ep")
    + " AND "
    + _findable
    + "\nWITH ep, score ORDER BY score DESC, ep.id LIMIT $k\n"
    + _columns
)
"""EPISODES_FULLTEXT's filter, order, cut and columns over hits bound to `ep` and `score`."""


EPISODES_FULLTEXT = (
    "\nCALL db.index.fulltext.queryNodes('"
    + TEXT_INDEX
    + "', $lucene) YIELD node AS ep, score\nWITH ep, score\n"
    + _fulltext_body
    + _best_first
)
"""READ. $lucene (graph.read.episodes.episode_lucene: the words of the search, narrowed to
$owner), $k, $valid_at, $known_at, $vector (the query's embedding, or null), $model,
**scope params -> episode, speaker, score (BM25), text (search_text), semantic ((1 +
cosine) / 2 against $vector, null without one or for an episode of another model): the
best $k full-text hits the scope sees at the as-of point, ties by id."""

EPISODES_FULLTEXT_TOP = (
    "\n"
    + top_hits(TEXT_INDEX, "ep", _fulltext_body, "episode, speaker, score, text, semantic")
    + _best_first
)
"""READ. As EPISODES_FULLTEXT (same params and columns, plus $scan -> scanned), over only
the $scan best full-text hits; `scanned` < $scan: Lucene had no more. Always one row at
least: when none is visible, one row of `scanned` and nulls (`score` null). The rows are
EPISODES_FULLTEXT's when $k come back or `scanned` < $scan (graph.read.base `_best_rows`
falls back otherwise)."""

EPISODES_FULLTEXT_LIST = (
    "CALL () {\n"
    + top_hits(TEXT_INDEX, "ep", _fulltext_body, "episode, speaker, score, text, semantic")
    + """}
WITH * ORDER BY score DESC, episode.id
RETURN max(scanned) AS said_scanned,
       collect(CASE WHEN score IS NOT NULL THEN {episode: episode, speaker: speaker,
               score: score, text: text, semantic: semantic} END) AS said_text
"""
)
"""READ. EPISODES_FULLTEXT_TOP's rows as one row, so another query can run it as a
subquery (graph/cypher/recall.py): same params -> said_scanned (its `scanned`), said_text
(maps of its columns episode, speaker, score, text, semantic; the visible hits only, best
first, ties by id)."""

EPISODES_NEAREST = (
    """
CALL db.index.vector.queryNodes('"""
    + VECTOR_INDEX
    + """', $ann, $vector) YIELD node AS ep, score
WITH ep, score
WHERE ep.embedding_model = $model AND """
    + _as_of("ep")
    + """ AND """
    + _findable
    + """
WITH ep, score ORDER BY score DESC, ep.id LIMIT $k
"""
    + _scored
)
"""READ. $vector, $ann (nodes asked of the index), $k, $model, $valid_at, $known_at, **scope
params -> episode, speaker, score ((1 + cosine) / 2), text, semantic (= score): of the
(about) $ann nearest episodes of every owner the index gives, the $k best the scope sees
at the as-of point (HNSW is approximate and global: the reader checks completeness)."""

EPISODES_EXACT = (
    """
CALL () {
  MATCH (ep:Episode)
  USING INDEX ep:Episode(owner, retracted_at, said_at)
  WHERE ep.owner = $owner AND ep.retracted_at > $known_at AND ep.said_at <= $valid_at
  WITH ep LIMIT $cap
  RETURN collect(ep) AS eps
}
CALL (eps) {
  UNWIND CASE WHEN size(eps) < $cap THEN eps ELSE [] END AS ep
  WITH ep
  WHERE ep.embedding_model = $model AND ep.recorded_at <= $known_at AND """
    + _findable
    + """
  WITH ep, vector.similarity.cosine(ep.embedding, $vector) AS score
  ORDER BY score DESC, ep.id LIMIT $k
  """
    + _speaker.replace("\n", "\n  ")
    + """RETURN collect([ep """
    + EPISODE_COLUMNS.replace("VAR", "ep")
    + """, sp.name, score, ep.search_text]) AS hits
}
RETURN size(eps) < $cap AS complete, hits
"""
)
"""READ. $owner, $cap, $vector, $model, $k, $valid_at, $known_at, **scope params ->
complete, hits: when the owner has fewer than $cap episodes not retracted at $known_at
and said by $valid_at, `complete` is true and `hits` are the $k nearest of those the
scope sees, ranked exactly (`vector.similarity.cosine`, (1 + cosine) / 2), best first,
ties by id, each [episode columns, speaker name, score, search_text]; otherwise
`complete` is false, `hits` empty, and the caller asks the vector index. Cost: an index
seek on `episode_owner_asof` of at most $cap entries, whatever the other owners hold."""


EPISODES_OF_MESSAGES = (
    """
MATCH (ep:Episode)
USING INDEX ep:Episode(owner, run_id)
WHERE ep.owner = $owner AND ep.run_id = $run_id AND ep.message_id = $message_id
  AND """
    + _visible
    + """
"""
    + _speaker
    + """RETURN """
    + _project("ep")
    + """ AS episode, sp.name AS speaker
ORDER BY ep.seq, ep.part, ep.id
"""
)
"""READ. $owner, $run_id, $message_id, **scope params -> episode, speaker: the episodes of
one message (its own words, then a pasted part), on any axis, that the scope may see
(for a fact's `why`)."""


def episode_from_record(node: Any, speaker: str | None) -> EpisodeRecord:
    """Build an `EpisodeRecord` from an `episode` column above and its speaker's name."""
    return EpisodeRecord(
        id=node["id"],
        owner=node["owner"],
        chat_id=node["chat_id"],
        run_id=node["run_id"],
        message_id=node.get("message_id"),
        seq=int(node.get("seq") or 0),
        part=node.get("part") or "own",
        surface=node.get("surface"),
        role=node["role"],
        speaker_id=node.get("speaker_id"),
        speaker=speaker,
        text=node["text"],
        said_at=from_micros(node["said_at_us"]),
        source=node["source"],
        recorded_at=from_micros(node["recorded_at_us"]),
        retracted_at=from_micros(node["retracted_at_us"]),
    )
