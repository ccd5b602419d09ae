"""Cypher for prefetch (push), CONTRACT §6: everything one message needs, in ONE query.

A turn's prefetch has a deadline of ~150 ms and should cost the store one round trip
beyond resolving the read's scope, so `PREFETCH` gathers in one statement (each part a
`CALL` subquery that returns exactly one row): the entities the message names, their
current rows, the relationship rows pointing at them, their neighbours, the edges among
that neighbourhood (for the ranking), the owner's preferences and the latest events.

Every part is scoped with graph/scope.py (`fact_visible`, `entity_visible`, parameters
from `scope.params`), honours `(valid_at, known_at)` on both axes (CONTRACT §2), and
leaves out archived entities (CONTRACT §5) and merged ones (after their merge). Pending
proposals are Proposal nodes, which no part touches (CONTRACT §3).

Mentions are found through the full-text index `entity_mentions` (graph/schema.py):
keyword analyzer, so each normalized name or alias is ONE term and a lookup is exact;
the Lucene queries are built by `graph.read.prefetch.lucene_queries` with every user
string quoted and escaped. Entities shared with the owner through groups are looked up
by id (`$scope.shared`, usually few) and matched on the same keys.

Every string that varies per turn (owner, chat key, mentions) travels inside a map
parameter. Neo4j caches a plan per query text and per parameter shape, and the shape of
a string parameter includes its length class (measured: an owner id of 5 characters
after a warm-up with 18 planned again, 2.6-3.8 s, far past a turn's deadline); a map's
values do not enter the shape, so one warm-up serves every owner a token can name
(tests/api/test_first_turn.py).
"""

from __future__ import annotations

import re

from graph import scope
from graph.cypher._fragments import (
    AS_OF,
    KNOWN,
    LIVE_ENTITY,
    SAID_AS_OF,
    micros,
    on,
    valid_micros,
)
from graph.cypher.memory_access import MEMORY_ACCESS

MENTION_INDEX = "entity_mentions"
"""The full-text index on `Entity.search_names` and `Entity.owner` (keyword analyzer)."""
EPISODE_INDEX = "episode_text"
"""The full-text index on `Episode.search_text` and `Episode.owner` (graph/schema.py)."""

_ROW = (
    """[VAR.id, VAR.entity_id, VAR.attribute, VAR.value, VAR.object_id, VAR.source,
  """
    + valid_micros("valid_from")
    + """,
  """
    + valid_micros("valid_to")
    + """,
  """
    + micros("recorded_at")
    + """, VAR.speaker_id, VAR.owner"""
)
"""A compact fact row, a LIST (no keys to send and decode): id, entity_id, attribute,
value, object_id, source, valid_from, valid_to, recorded_at, speaker_id, owner (the row's:
another owner's when a group shares its entity, CONTRACT §7), the times as integer
microseconds since the epoch (decoding a DATETIME costs the Python driver ~0.2 ms,
integers nothing). No evidence or reason: they can be 20,000 characters and the block
never shows them."""

ROW_FIELDS = (
    "id",
    "entity_id",
    "attribute",
    "value",
    "object_id",
    "source",
    "valid_from",
    "valid_to",
    "recorded_at",
    "speaker_id",
    "owner",
)
"""The positions of `_ROW`'s items (graph/read/prefetch.py reads them by position)."""


def _in_map(predicate: str) -> str:
    """A graph/scope.py predicate reading its parameters from the map `$scope`
    (`$shared` -> `$scope.shared`): the same rule, the same values (`params(scope)`).

    Why: Neo4j caches a plan per query text, parameter types and, for a list parameter,
    its size class (1; 2-10; 11-100; ...). `shared = []` for one caller, two ids for the
    next, or `registered` (every attribute, under `restricted`) would each plan `PREFETCH`
    anew, about a second, past the turn's deadline; the sizes of lists inside a map
    parameter do not take part in the key, so the warm-up's plan serves every call.
    """
    return re.sub(r"\$(\w+)", r"$scope.\1", predicate)


def fact_visible(var: str) -> str:
    """`graph.scope.fact_visible` over `$scope` (see `_in_map`)."""
    return _in_map(scope.fact_visible(var))


def entity_visible(var: str) -> str:
    """`graph.scope.entity_visible` over `$scope` (see `_in_map`)."""
    return _in_map(scope.entity_visible(var))


def episode_findable(var: str) -> str:
    """`graph.scope.episode_findable` over `$scope` (see `_in_map`)."""
    return _in_map(scope.episode_findable(var))


def _row(var: str, extra: str = "") -> str:
    return _ROW.replace("VAR", var) + extra + "]"


def _as_of(var: str) -> str:
    """CONTRACT §2 visibility at ($valid_at, $known_at) for a fact bound to `var`."""
    return on(AS_OF, var)


def _live(var: str) -> str:
    """An entity that exists at $known_at, is not archived, and is not (yet) merged away."""
    return on(LIVE_ENTITY, var) + " AND NOT coalesce(" + var + ".archived, false)"


PREFETCH = (
    """CYPHER replan=skip
OPTIONAL MATCH (o:Owner {id: $scope.owner})
WITH coalesce(o.self_entity_id, '') AS self_id
CALL (self_id) {
  CALL () {
    UNWIND $mentions.lucene AS q
    CALL db.index.fulltext.queryNodes('"""
    + MENTION_INDEX
    + """', q) YIELD node
    RETURN node AS e
    UNION
    UNWIND $scope.shared AS sid
    MATCH (e:Entity {id: sid})
    RETURN e
  }
  WITH self_id, e, CASE WHEN coalesce(e.names_since, e.created_at) <= $known_at
       THEN e.search_names
       ELSE head([(e)-[:HAD_NAMES]->(v:EntityNames)
                  WHERE """
    + on(KNOWN, "v")
    + """
                  | v.search_names]) END AS names
  WITH self_id, e, reduce(p = -1, k IN coalesce(names, []) |
       CASE WHEN $mentions.positions[k] IS NOT NULL AND (p < 0 OR $mentions.positions[k] < p)
            THEN $mentions.positions[k] ELSE p END) AS pos
  WHERE pos >= 0 AND e.id <> self_id AND """
    + entity_visible("e")
    + """
    AND """
    + _live("e")
    + """
  WITH e, pos ORDER BY pos, e.id LIMIT $max_entities
  RETURN collect([e.id, e.name, e.kind, pos]) AS seeds
}
CALL (seeds) {
  UNWIND seeds AS s
  CALL (s) {
    MATCH (f:Fact)
    USING INDEX f:Fact(entity_id, retracted_at, valid_to)
    WHERE f.entity_id = s[0] AND """
    + _as_of("f")
    + """
    WITH DISTINCT f
    WHERE """
    + fact_visible("f")
    + """
    WITH f ORDER BY coalesce($mentions.attribute_order[f.attribute], 1000), f.attribute,
                    f.valid_from DESC, f.id
    WITH collect(f) AS fs
    RETURN [x IN fs WHERE x.object_id IS NULL][..$max_facts] AS a,
           [x IN fs WHERE x.object_id IS NOT NULL][..$max_rows] AS b
  }
  WITH collect(a) AS a, collect(b) AS b
  RETURN reduce(out = [], l IN a | out + [x IN l | """
    + _row("x")
    + """]) AS attrs,
         reduce(out = [], l IN b | out + [x IN l | """
    + _row("x")
    + """]) AS rels
}
CALL (seeds) {
  UNWIND seeds AS s
  CALL (s) {
    MATCH (:Entity {id: s[0]})<-[:OBJECT]-(f:Fact)
    WHERE """
    + _as_of("f")
    + """ AND """
    + fact_visible("f")
    + """
    WITH f ORDER BY f.valid_from DESC, f.id LIMIT $max_rows
    RETURN f
  }
  RETURN collect("""
    + _row("f")
    + """) AS incoming
}
CALL (self_id, seeds, rels, incoming) {
  UNWIND [r IN rels | r[4]] + [r IN incoming | r[1]] AS nid
  WITH self_id, nid, count(*) AS links
  WHERE NOT nid IN [s IN seeds | s[0]]
  MATCH (n:Entity {id: nid})
  WHERE """
    + entity_visible("n")
    + """ AND """
    + _live("n")
    + """
  WITH n, links, n.id = self_id AS is_self ORDER BY links DESC, n.id LIMIT $max_neighbours
  RETURN collect([n.id, n.name, n.kind, is_self]) AS neighbours
}
CALL (seeds, neighbours) {
  WITH [x IN neighbours | x[0]] AS others
  UNWIND others[..$max_expand] AS nid
  MATCH (:Entity {id: nid})<-[:OBJECT]-(f:Fact)
  WHERE f.entity_id IN others
  WITH DISTINCT f
  WHERE """
    + _as_of("f")
    + """ AND """
    + fact_visible("f")
    + """
  RETURN collect([f.entity_id, f.object_id]) AS edges
}
CALL (self_id) {
  UNWIND $preference_attributes AS attribute
  MATCH (f:Fact)
  USING INDEX f:Fact(owner, attribute, retracted_at)
  WHERE f.owner = $scope.owner AND f.attribute = attribute AND """
    + _as_of("f")
    + """
  WITH DISTINCT self_id, f
  WHERE """
    + fact_visible("f")
    + """
  MATCH (pe:Entity {id: f.entity_id})
  WHERE """
    + _live("pe")
    + """
  WITH f, pe ORDER BY f.valid_from DESC, f.id LIMIT $max_preferences
  RETURN collect("""
    + _row("f", ", pe.name, pe.id = self_id")
    + """) AS prefs
}
CALL (self_id) {
  MATCH (f:Fact)
  USING INDEX f:Fact(owner, attribute, retracted_at)
  WHERE f.owner = $scope.owner AND f.attribute = $event_attribute
    AND f.retracted_at > $known_at AND f.recorded_at <= $known_at
    AND f.valid_from <= $valid_at
  WITH DISTINCT self_id, f
  WHERE """
    + fact_visible("f")
    + """
  MATCH (ve:Entity {id: f.entity_id})
  WHERE """
    + _live("ve")
    + """
  OPTIONAL MATCH (vo:Entity {id: f.object_id})
  WITH f, ve, vo WHERE vo IS NULL OR ("""
    + _live("vo")
    + """ AND """
    + entity_visible("vo")
    + """)
  WITH f, ve, vo ORDER BY f.valid_from DESC, f.id LIMIT $max_events
  RETURN collect("""
    + _row("f", ", ve.name, ve.id = self_id, vo.name")
    + """) AS events
}
CALL (self_id, attrs, rels, incoming, prefs, events) {
  UNWIND [r IN attrs + rels + incoming + prefs + events
          WHERE r[9] IS NOT NULL AND r[9] <> self_id | r[9]] AS sid
  WITH DISTINCT sid
  MATCH (sp:Entity {id: sid})
  WHERE """
    + entity_visible("sp")
    + """
  RETURN collect([sp.id, sp.name]) AS speakers
}
CALL (self_id) {
  UNWIND $recall.lucene AS q
  CALL db.index.fulltext.queryNodes('"""
    + EPISODE_INDEX
    + """', q, {limit: $said_scan}) YIELD node AS ep, score
  WITH self_id, ep, score
  WHERE ep.source = 'user_stated' AND """
    + on(SAID_AS_OF, "ep")
    + """ AND """
    + episode_findable("ep")
    + """
  WITH self_id, ep, score ORDER BY score DESC, ep.id LIMIT $max_said
  OPTIONAL MATCH (sp:Entity {id: ep.speaker_id})
  RETURN collect([ep.id, left(ep.text, $said_chars), ep.speaker_id, sp.name,
                  coalesce(ep.speaker_id = self_id, false), """
    + on(valid_micros("said_at"), "ep")
    + """, ep.chat_id, ep.run_id, ep.message_id, ep.source, ep.role]) AS said
}
RETURN self_id, seeds, attrs, rels, incoming, neighbours, edges, prefs, events, speakers, said
"""
)
"""READ. $scope (the map `graph.scope.params(scope)`; `$scope.owner` is the owner), plus
$mentions: {lucene: Lucene queries over `entity_mentions` (see
`graph.read.prefetch.lucene_queries`), positions: normalized mention key -> its first
character offset in the message, attribute_order: attribute -> its rank among a
mentioned entity's facts} (a map, like $scope: see `_in_map`), $valid_at, $known_at,
$max_entities, $max_facts (attribute rows per seed), $max_rows (relationship rows per
seed and direction), $max_neighbours, $max_expand (neighbours whose incoming
relationship rows are read for the ranking), $preference_attributes, $max_preferences,
$event_attribute, $max_events; $recall: {lucene: at most one Lucene query over
`episode_text` (the message's content words, narrowed to the owner:
graph.read.episodes.episode_lucene), empty for none} (a map, like $scope), $said_scan,
$max_said,
$said_chars.

Returns exactly one row (rows are `_ROW` lists):
  self_id: the owner's own entity id ('' when unknown);
  seeds: [[id, name, kind, pos]] the mentioned entities, by first position then id,
    each matched on the names it had at $known_at (CONTRACT §5: before a merge the
    survivor does not answer to the loser's names; at the present no name version is
    read). Candidates come from the current names, so a name an entity lost since
    $known_at (moved off by a split) is not found in the past;
  attrs: the seeds' attribute rows (no object), the first $max_facts of each by
    attribute_order, attribute, newest, id;
  rels: the seeds' relationship rows, the first $max_rows of each in the same order;
  incoming: relationship rows whose object is a seed, newest first;
  neighbours: [[id, name, kind, is_self]] the live, visible other ends of rels and
    incoming, by number of links then id, at most $max_neighbours;
  edges: [[subject, object]] relationship rows between two neighbours whose object is
    one of the first $max_expand (with rels and incoming: the neighbourhood the ranking
    runs on, each row once);
  prefs: rows of the preference attributes + [subject name, subject is the owner];
  events: the latest $max_events rows of $event_attribute started by $valid_at
    + [subject name, subject is the owner, object name or null];
  speakers: [[id, name]] of the visible entities who said the rows above (their
    `speaker_id`), the owner's own left out;
  said: of the $said_scan best-scored full-text hits of the message Lucene hands over
    (its top-k collector: an owner's other matches are never read), the $max_said best
    among the people's own words (episodes of source `user_stated`: assistant, tool and
    pasted text is never pushed, as the curator holds it for a yes, CONTRACT §3) that
    the scope sees at the as-of point (CONTRACT §12, area `conversation`), best BM25
    first, ties by id: [id, text (its first $said_chars characters), speaker_id, speaker
    name, spoken by the owner, said_at (micros), chat_id, run_id, message_id, source,
    role].

`WITH DISTINCT f` between an index seek and the scope predicate: without it the planner
turns the predicate's `f.owner = $owner OR f.entity_id IN $shared` into a union of two
seeks of the same index, reading every row twice; after the projection it is one Filter.
For the neighbourhood's edges it also makes the cheap test (is the subject a neighbour?)
run before the time and scope tests, on the few rows that pass it.

`CYPHER replan=skip`: the plan is made once per process (at warm-up, api/chat/prefetch/warm.py)
and kept. Planning this query takes about a second (the scope predicates' disjunctions
are planned as unions of index seeks), and a replan after statistics move would land on
a user's turn, past its deadline; every MATCH here starts from a hinted or unique index,
so the plan does not depend on statistics.

PROFILE (Neo4j 5.26): the full-text seek per Lucene query, NodeUniqueIndexSeek on
Entity.id for shared ids and neighbours, NodeIndexSeekByRange on `fact_entity_asof`
(entity_id = x, retracted_at > $known_at: under current knowledge only the open rows)
per seed, Expand(All) over OBJECT from a unique seek for incoming rows and edges, and
NodeIndexSeekByRange on `fact_owner_attribute` for preferences and events.
"""

PREFETCH_SCOPE = re.sub(
    r"\$(owner|chat_key)\b",
    r"$who.\1",
    """CYPHER replan=skip
CALL () {"""
    + MEMORY_ACCESS
    + """}
CALL () {"""
    + scope.SHARED_ENTITY_IDS
    + """}
CALL () {
CALL () {"""
    + scope.GROUPS_OF
    + """}
RETURN ids AS groups
}
RETURN profile, chat, ids, groups
""",
)
"""READ. $who: {owner, chat_key}, $known_at, $far -> profile, chat, ids, groups: `Reader.scope`'s
two reads (graph/cypher/memory_access.py MEMORY_ACCESS and graph/scope.py SHARED_ENTITY_IDS,
the same text) and the groups of the owner's reach (graph/scope.py GROUPS_OF, which the
pointer line reads) in one statement, so prefetch resolves its scope and reach in one round
trip. Unique and range index seeks only, so its plan is kept like `PREFETCH`'s
(`replan=skip`).
tests/graph/test_prefetch_reads.py checks it resolves exactly what `Reader.scope` does."""
