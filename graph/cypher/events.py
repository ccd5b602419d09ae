"""Cypher for cause and effect (CONTRACT §1 "logs cause-and-effect", §8 audit).

The model, written by the committer in the transaction of every change:

* `(:Event {key, id, owner, kind, at, actor, ...})`: one link of a chain. `key` is
  owner + "/" + id (unique); kinds: `run` (id = run id), `message`, `curation`,
  `proposal` (id = proposal id), `decision` (automatic policy, or the person's keep /
  discard / merge confirmation), `action` (a person's REST or chat act: assert, forget,
  retract, merge, split), `sync` (id = sync id), `commit` (one per transaction that
  changed something).
* `(:Event)-[:CAUSED]->(:Event)`: the chain, e.g. run -> message -> proposal,
  run -> curation -> proposal -> decision -> commit; action -> commit.
* `(commit:Event)-[:WROTE {op, cause}]->(:Fact)`: rows the commit recorded;
  `(commit:Event)-[:ENDED {op, cause}]->(:Fact)`: rows whose `retracted_at` it set;
  `(commit:Event)-[:CHANGED {op, cause}]->(:Entity)`: entities it archived,
  unarchived, merged or split off. `cause` is the id of the decision, action or sync
  the commit did that for (one transaction may carry several: a chat reply keeping
  two proposals).
* `(:Fact)-[:MOVED_FROM]->(:Fact)`: a row a merge or split recorded on another entity,
  to the row it moved (only `why` follows it; a retract's lineage does not).
* `(commit:Event)-[:WROTE_NOTE {op, cause}]->(:Note)` and `-[:ENDED_NOTE {op, cause}]->
  (:Note)`: note version rows the commit recorded and retracted (CONTRACT §13;
  graph/cypher/notes.py; types of their own, so the owner export's table keeps one end
  label per relationship type, graph/portable.py).
* `(commit:Event)-[:WROTE {op: 'recorded', cause}]->(:Episode)`: an episode the commit
  filed (a curated run's message, CONTRACT §12; `cause` the run's curation), and
  `(commit:Event)-[:ENDED {op: 'forgotten', cause}]->(:Episode)`: an episode the commit
  forgot (CONTRACT §12 "Forget a conversation").

Walks: `why` goes back from a row through the rows it continues (REPLACES, COALESCED,
MOVED_FROM)
to the commits that wrote them and up their CAUSED ancestors; `effects` goes forward
from an event down CAUSED to the commits and the edges whose `cause` is in that set.
"""

from __future__ import annotations

from typing import Any

from graph.cypher.episodes import EPISODE_COLUMNS
from graph.cypher.facts import FACT_COLUMNS
from graph.records import EventRecord
from graph.scope import entity_visible, episode_visible, fact_visible
from graph.time import from_store

EVENT_FIELDS = (
    "chat_id",
    "run_id",
    "message_id",
    "role",
    "surface",
    "proposal_id",
    "attribute",
    "policy",
    "decision",
    "action",
    "integration",
    "full_snapshot",
    "entity_id",
    "fact_id",
    "target_id",
    "suggestion_id",
    "episode_id",
)
"""The optional fields an event may carry (set one by one in RECORD_TRAIL)."""

RECORD_TRAIL = """
CALL () {
  UNWIND $trail.events AS ev
  MERGE (e:Event {key: ev.key})
  ON CREATE SET e.id = ev.id, e.owner = $owner, e.kind = ev.kind, e.at = ev.at,
    e.actor = ev.actor, e.chat_id = ev.chat_id, e.run_id = ev.run_id,
    e.message_id = ev.message_id, e.role = ev.role, e.surface = ev.surface,
    e.proposal_id = ev.proposal_id, e.attribute = ev.attribute, e.policy = ev.policy,
    e.decision = ev.decision, e.action = ev.action, e.integration = ev.integration,
    e.full_snapshot = ev.full_snapshot, e.entity_id = ev.entity_id, e.fact_id = ev.fact_id,
    e.target_id = ev.target_id, e.suggestion_id = ev.suggestion_id,
    e.episode_id = ev.episode_id
}
CALL () {
  UNWIND $trail.links AS l
  MATCH (a:Event {key: l.from}), (b:Event {key: l.to})
  WHERE a.owner = $owner AND b.owner = $owner
  MERGE (a)-[:CAUSED]->(b)
}
CALL () {
  UNWIND $trail.wrote AS x
  MATCH (c:Event {key: $trail.commit}), (f:Fact {id: x.fact_id})
  WHERE c.owner = $owner AND f.owner = $owner
  CREATE (c)-[:WROTE {op: x.op, cause: x.cause}]->(f)
}
CALL () {
  UNWIND $trail.ended AS x
  MATCH (c:Event {key: $trail.commit}), (f:Fact {id: x.fact_id})
  WHERE c.owner = $owner AND f.owner = $owner
  CREATE (c)-[:ENDED {op: x.op, cause: x.cause}]->(f)
}
CALL () {
  UNWIND $trail.moved AS m
  MATCH (a:Fact {id: m.from}), (b:Fact {id: m.to})
  WHERE a.owner = $owner AND b.owner = $owner
  CREATE (a)-[:MOVED_FROM]->(b)
}
CALL () {
  UNWIND $trail.noted AS x
  WITH x WHERE x.rel = 'WROTE'
  MATCH (c:Event {key: $trail.commit}), (n:Note {id: x.note_id})
  WHERE c.owner = $owner AND n.owner = x.owner
  CREATE (c)-[:WROTE_NOTE {op: x.op, cause: x.cause}]->(n)
}
CALL () {
  UNWIND $trail.noted AS x
  WITH x WHERE x.rel = 'ENDED'
  MATCH (c:Event {key: $trail.commit}), (n:Note {id: x.note_id})
  WHERE c.owner = $owner AND n.owner = x.owner
  CREATE (c)-[:ENDED_NOTE {op: x.op, cause: x.cause}]->(n)
}
CALL () {
  UNWIND $trail.changed AS x
  MATCH (c:Event {key: $trail.commit}), (n:Entity {id: x.entity_id})
  WHERE c.owner = $owner AND n.owner = $owner
  CREATE (c)-[:CHANGED {op: x.op, cause: x.cause}]->(n)
}
CALL () {
  UNWIND $trail.forgot AS x
  MATCH (c:Event {key: $trail.commit}), (ep:Episode {id: x.episode_id})
  WHERE c.owner = $owner AND ep.owner = $owner
  CREATE (c)-[:ENDED {op: x.op, cause: x.cause}]->(ep)
}
CALL () {
  UNWIND $trail.filed AS x
  MATCH (c:Event {key: $trail.commit}), (ep:Episode {id: x.episode_id})
  WHERE c.owner = $owner AND ep.owner = $owner
  CREATE (c)-[:WROTE {op: x.op, cause: x.cause}]->(ep)
}
"""
"""WRITE. $owner; $trail, one map (its lists' lengths, unlike those of list parameters, are
not part of the key of Neo4j's plan cache: one plan serves every trail, where separate list
parameters made a plan of this long statement, 0.3-0.5 s of Neo4j's CPU, for each combination
of their sizes; issue 12) of: events (maps: key, id, kind, at, actor and every EVENT_FIELDS
entry, null when unset); links (maps: from, to: event keys); commit (the commit event's key,
or null when nothing changed); wrote, ended (maps: fact_id, op, cause); changed
(maps: entity_id, op, cause); moved (maps: from, to: the row a merge or split recorded
and the row it moved); noted (maps: note_id (a note row's id), owner (the row's owner: a
group note's row may be another member's), rel (WROTE|ENDED: created as WROTE_NOTE and
ENDED_NOTE), op, cause); forgot (maps: episode_id, op, cause: episodes the commit forgot,
CONTRACT §12); filed (maps: episode_id, op, cause: episodes the commit filed). Events
are idempotent on key (a run's or a kept proposal's event is made once and linked to
later); links are merged; effect edges are created once per commit. Unique-constraint
seeks on Event.key, Fact.id, Entity.id."""

EVENT_BY_KEY = """
MATCH (e:Event {key: $key})
WHERE e.owner = $owner
RETURN e
"""
"""READ. $owner, $key (owner + "/" + event id) -> e (0 or 1). Unique-constraint seek."""

SET_SYNC_OUTCOME = """
MATCH (e:Event {key: $key})
WHERE e.owner = $owner AND e.kind = 'sync'
SET e.digest = $digest, e.proposals = $proposals, e.committed = $committed,
    e.held = $held, e.archived = $archived, e.unarchived = $unarchived
"""
"""WRITE. $owner, $key, $digest (sha256 of the sync's canonical body), $proposals,
$committed, $held (counts), $archived, $unarchived (entity ids): what a sync did, so
that posting it again answers the same (CONTRACT §10: a sync's event id is its id)."""

WHY_FACT = (
    """
MATCH (f:Fact {id: $fact_id})
WHERE """
    + fact_visible("f")
    + """
RETURN f """
    + FACT_COLUMNS.replace("VAR", "f")
    + """ AS row
"""
)
"""READ. $fact_id and the scope parameters of graph.scope.params -> row (0 or 1): the row,
if the scope may see it (CONTRACT §7). Unique-constraint seek on Fact.id."""

WHY_LINEAGE = """
MATCH (f:Fact {id: $fact_id})
WHERE f.owner = $owner
MATCH (f)-[:REPLACES|COALESCED|MOVED_FROM*0..]->(g:Fact)
WITH DISTINCT g
OPTIONAL MATCH (c:Event)-[w:WROTE]->(g)
WHERE c.owner = $owner
OPTIONAL MATCH (g)-[:REPLACES|COALESCED|MOVED_FROM]->(h:Fact)
RETURN g.id AS fact_id, c.id AS commit, w.cause AS cause, collect(DISTINCT h.id) AS continues
"""
"""READ. $owner, $fact_id -> fact_id, commit, cause, continues: the row and every row it
continues (a remainder its original, a forget's remnant the forgotten row, a restored
row what it brings back, an asserted row the rows of its value it folded in, a moved
row the row it moved), each
with the commit that wrote it and that commit's cause for it (null for rows written
before cause and effect was recorded), and the rows it continues directly."""

EVENT_ANCESTORS = """
UNWIND $keys AS key
MATCH (x:Event {key: key})
WHERE x.owner = $owner
MATCH (a:Event)-[:CAUSED*0..]->(x)
WITH DISTINCT a
OPTIONAL MATCH (a)-[:CAUSED]->(b:Event)
RETURN a AS event, collect(b.id) AS effects
"""
"""READ. $owner, $keys (event keys) -> event, effects: each of the events and every
event that led to them (CAUSED, any depth), with the ids of the events each one caused
(the caller keeps the edges inside the set)."""

EVENTS_BY_KEYS = """
UNWIND $keys AS key
MATCH (x:Event {key: key})
WHERE x.owner = $owner
OPTIONAL MATCH (x)-[:CAUSED]->(b:Event)
RETURN x AS event, collect(b.id) AS effects
"""
"""READ. $owner, $keys (event keys) -> event, effects: just those events (no ancestors),
with the ids of the events each one caused. Unique-constraint seeks on Event.key."""

EFFECTS = (
    """
MATCH (x:Event {key: $key})
WHERE x.owner = $owner
MATCH (x)-[:CAUSED*0..]->(d:Event)
WITH x, collect(DISTINCT d) AS ds
WITH x, ds, [d IN ds | d.id] AS ids
UNWIND ds AS c
MATCH (c)-[w:WROTE|ENDED|CHANGED]->(n)
WHERE (c = x OR w.cause IN ids)
  AND ((n:Fact AND """
    + fact_visible("n")
    + """)
       OR (n:Entity AND """
    + entity_visible("n")
    + """)
       OR (n:Episode AND """
    + episode_visible("n")
    + """
           AND (type(w) = 'ENDED' OR n.retracted_at > datetime())))
OPTIONAL MATCH (sp:Entity {id: n.speaker_id})
WHERE n:Episode
RETURN c.id AS commit, c.at AS at, type(w) AS rel, w.op AS op, w.cause AS cause,
       n.id AS id, sp.name AS speaker,
       CASE WHEN n:Episode THEN n.speaker_id ELSE coalesce(n.entity_id, n.id) END
         AS entity_id,
       CASE WHEN n:Fact THEN n """
    + FACT_COLUMNS.replace("VAR", "n")
    + """ END AS row,
       CASE WHEN n:Episode THEN n """
    + EPISODE_COLUMNS.replace("VAR", "n")
    + """ END AS episode
ORDER BY at, commit, CASE type(w) WHEN 'ENDED' THEN 0 WHEN 'WROTE' THEN 1 ELSE 2 END, op,
         n.seq, n.part, id
SKIP $skip LIMIT $limit
"""
)
"""READ. $key, $skip, $limit and the scope parameters of graph.scope.params -> commit,
at, rel (WROTE|ENDED|CHANGED), op, cause, id, entity_id (an episode's speaker), speaker
(that speaker's name, else null), row (the fact row, null for an entity change or an
episode), episode (the columns of an episode filed or forgotten, else null): everything
the event went on to change, transitively (CONTRACT §8): the edges of every commit it
led to (CAUSED, any depth) made for a cause it led to (every edge when the event is the
commit itself), keeping what the scope may see; an episode a commit filed (WROTE) only
while it is not forgotten (the words a person asked to forget are not shown again on the
run's effects; the forget's own effects list it, ENDED).
Ordered by commit time, ended before written; a run's episodes in run order (`seq`, then
`part`: stable across an owner export and import, which remaps ids)."""

RUN_EXISTS = """
MATCH (r:Run {key: $run_key})
WHERE r.owner = $owner
RETURN r.id AS id
"""
"""READ. $owner, $run_key -> id (0 or 1): whether the owner has a run with that id (an
event id may name a run that is queued, not applied yet)."""


def event_from_record(node: Any) -> EventRecord:
    """Build an `EventRecord` from an Event node (the fields that are set)."""
    detail = {k: node.get(k) for k in EVENT_FIELDS if node.get(k) is not None}
    return EventRecord(
        id=node["id"],
        owner=node["owner"],
        kind=node["kind"],
        at=from_store(node["at"]),
        actor=node.get("actor"),
        detail=detail,
    )
