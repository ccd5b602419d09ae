"""Cypher for reading notes (CONTRACT §13; the writes are graph/cypher/note_rows.py).

The model: every version of a note is a `(:Note)` row on both time axes, like a fact row:
`valid_from`/`valid_to` (when it holds), `recorded_at`/`retracted_at` (when it was
believed), open ends stored as FAR_FUTURE so range predicates use the indexes of
graph/schema.py. A row is never rewritten except `retracted_at` (set once), never deleted
except by erasure. `note_id` ties a note's versions together; `(:Note)-[:SUPERSEDES]->`
links a version to the one it replaced, `-[:REMAINS_OF]->` a remainder (the part of a row
that stood until a replacement or a retirement) to its original, and
`-[:HANDED_OVER_FROM]->` a row a handover recorded for the new owner to the row it moved
(types of their own, not the fact rows' REPLACES and MOVED_FROM: the owner export keeps
one end label per relationship type, graph/portable.py). One mutable `(:NoteHead
{note_id})` per note holds its standing (tier, relevance), which is bookkeeping, not
knowledge (graph/notes.py).

Every read opens with `scope.NOTE_GROUPS` and ANDs `NOTE_VISIBLE` (graph/scope.py): the caller's
own notes and those of the groups it belonged to at `$known_at`, under the chat's memory
access (area `notes`). Project scope (CONTRACT §13): a read for `$project` sees general
notes and that project's notes; where two notes share a key, one stands per key, in this
order: the caller's note of the project, a group's note of the project, the caller's
general note, a group's general note. A read without a project sees general notes only.
"""

from __future__ import annotations

import re
from typing import Any

from graph import scope
from graph.cypher._fragments import AS_OF, micros, on, valid_micros
from graph.notes import NoteRecord
from graph.time import FAR_FUTURE, from_micros

NOTE_INDEX = "note_text"
"""The full-text index over `Note.title`, `Note.search_text`, `Note.owner`, `Note.group_id`
(English analyzer: words are stemmed, so "pricing" finds "price")."""

_times = (
    ("valid_from", valid_micros),
    ("valid_to", valid_micros),
    ("recorded_at", micros),
    ("retracted_at", micros),
    ("first_learned_at", micros),
    ("review_at", valid_micros),
    ("closed_at", micros),
)
_fields = """.id, .note_id, .owner, .group_id, .kind, .title, .evidence, .known_by, .source,
  .confidence, .key, .project, .status, .close_reason, .row_status, .version, .run_id,
  .chat_id, .message_id, .agent_id, .experiment_id"""


def _columns(with_body: bool) -> str:
    times = ",\n  ".join(f"{name}_us: {fn(name)}" for name, fn in _times)
    return "{\n  " + _fields + (", .body" if with_body else "") + ",\n  " + times + "\n}"


NOTE_COLUMNS = _columns(True)
"""A note row's columns, its times as integer microseconds since the epoch (UTC, see
graph/cypher/_fragments.py). `VAR` stands for the row's variable."""
SUMMARY_COLUMNS = _columns(False)
"""`NOTE_COLUMNS` without the body (lists show titles and dates, no bodies)."""

_standing_tail = (
    """
OPTIONAL MATCH (h:NoteHead {note_id: n.note_id})
OPTIONAL MATCH (o:Owner {id: h.owner})
RETURN n COLUMNS AS n, h {.tier, .relevance, .relevance_session, .stored,
       tier_since_us: """
    + micros("tier_since").replace("VAR", "h")
    + """} AS h,
       coalesce(o.note_sessions, 0) AS sessions"""
)


def _standing(columns: str) -> str:
    return _standing_tail.replace("COLUMNS", columns.replace("VAR", "n"))


def _resolved(carry: str = "") -> str:
    """The notes the caller sees at ($valid_at, $known_at) for `$project`, one per key.

    Binds `n` (and keeps the variables in `carry`, e.g. "hits, "). See the module
    docstring for the order in which one note per key stands."""
    return scope.NOTE_GROUPS + (
        """
CALL (groups) {
  MATCH (n:Note)
  WHERE n.owner = $owner AND n.group_id IS NULL AND n.retracted_at > $known_at
    AND n.valid_to > $valid_at
  RETURN n
  UNION
  UNWIND groups AS g
  MATCH (n:Note)
  WHERE n.group_id = g AND n.retracted_at > $known_at AND n.valid_to > $valid_at
  RETURN n
}
WITH CARRYgroups, n
WHERE """
        + on(AS_OF, "n")
        + """
  AND """
        + scope.note_visible("n")
        + """
  AND (n.project_norm IS NULL OR n.project_norm = $project)
WITH CARRYn, CASE WHEN n.key_norm IS NULL THEN 'n:' + n.note_id ELSE 'k:' + n.key_norm END
       AS slot,
     CASE WHEN n.project_norm IS NULL THEN 2 ELSE 0 END
       + CASE WHEN n.group_id IS NULL THEN 0 ELSE 1 END AS precedence
ORDER BY slot, precedence, n.note_id
WITH CARRYslot, collect(n)[0] AS n
"""
    ).replace("CARRY", carry)


LIST_NOTES = (
    _resolved()
    + """
OPTIONAL MATCH (h0:NoteHead {note_id: n.note_id})
WITH n, h0
WHERE ($kind IS NULL OR n.kind = $kind) AND ($status IS NULL OR n.status = $status)
  AND ($tier IS NULL OR coalesce(h0.tier, 'mid') = $tier)
  AND ($after_vf IS NULL OR n.valid_from < $after_vf
       OR (n.valid_from = $after_vf AND n.note_id < $after_id))
WITH n ORDER BY n.valid_from DESC, n.note_id DESC LIMIT $limit"""
    + _standing(SUMMARY_COLUMNS)
    + """
ORDER BY n.valid_from_us DESC, n.note_id DESC
"""
)
"""READ. $owner, $valid_at, $known_at, $project (normalized, or null), $kind, $status, $tier
(each null = any), $after_vf, $after_id (the last item of the previous page, or nulls),
$limit, scope parameters (graph.scope.note_params) -> n (SUMMARY_COLUMNS), h (standing or
null), sessions: the notes the caller sees, newest version first."""

NOTE_AT = (
    scope.NOTE_GROUPS
    + """
MATCH (n:Note {note_id: $note_id})
WHERE n.recorded_at <= $known_at AND n.retracted_at > $known_at AND n.valid_from <= $valid_at
  AND """
    + scope.note_visible("n")
    + """
WITH n ORDER BY CASE WHEN n.valid_to > $valid_at THEN 0 ELSE 1 END, n.valid_to DESC,
     n.recorded_at DESC
LIMIT 1"""
    + _standing(NOTE_COLUMNS)
)
"""READ. $note_id, $owner, $valid_at, $known_at, scope parameters -> n, h, sessions (0 or 1
row): the version of the note that holds at $valid_at as known at $known_at; when none
holds then but the note had ended by then (retired), its last version, so a retired note
reads as retired. Seeks on index `note_note_id`."""

NOTE_HISTORY = (
    scope.NOTE_GROUPS
    + """
MATCH (n:Note {note_id: $note_id})
WHERE ($all_rows OR (n.recorded_at <= $known_at AND n.retracted_at > $known_at))
  AND """
    + scope.note_visible("n")
    + _standing(NOTE_COLUMNS)
    + """
ORDER BY n.valid_from_us, n.recorded_at_us, n.id
"""
)
"""READ. $note_id, $owner, $known_at, $all_rows (true: every row on both axes, the audit
view), scope parameters -> n, h, sessions: the note's versions as known at $known_at, by
valid_from then recorded_at."""

DUE = (
    _resolved()
    + """
WITH n WHERE n.review_at IS NOT NULL AND n.review_at <= $at AND n.status IN ['open', 'active']
WITH n ORDER BY n.review_at, n.note_id LIMIT $limit"""
    + _standing(SUMMARY_COLUMNS)
    + """
ORDER BY n.review_at_us, n.note_id
"""
)
"""READ. $at (the instant a review is due by), $limit, and LIST_NOTES's scope and time
parameters -> n, h, sessions: the notes (open claims and active notes) whose date to look
again has come, soonest first."""

OVERVIEW = (
    _resolved()
    + """
RETURN n.kind AS kind, count(n) AS count,
       max(n.first_learned_at.epochSeconds * 1000000 + n.first_learned_at.microsecond)
         AS last_learned_us,
       sum(CASE WHEN n.review_at IS NOT NULL AND n.review_at <= $at
                 AND n.status IN ['open', 'active'] THEN 1 ELSE 0 END) AS due
ORDER BY kind
"""
)
"""READ. As DUE without $limit -> kind, count, last_learned_us, due: per kind of note the
caller sees, how many, when the latest was first learned, and how many are due."""

SEARCH = (
    """
CALL () {
  CALL db.index.fulltext.queryNodes('"""
    + NOTE_INDEX
    + """', $lucene, {limit: $k}) YIELD node, score
  RETURN collect(node.id) AS hit_ids, collect(score) AS hit_scores
}
"""
    + _resolved("hit_ids, hit_scores, ")
    + """
WITH n, hit_scores, [i IN range(0, size(hit_ids) - 1) WHERE hit_ids[i] = n.id] AS at
WHERE size(at) > 0
  AND ($kind IS NULL OR n.kind = $kind)
WITH n, hit_scores[at[0]] AS score
ORDER BY score DESC, n.note_id
LIMIT $limit"""
    + _standing(NOTE_COLUMNS)
    + """, score
ORDER BY score DESC, n.note_id
"""
)
"""READ. $lucene (graph.read.notes.lucene_query: the words, narrowed to the caller's owner
and groups), $k (full-text hits read), $limit, $kind (or null), and LIST_NOTES's scope and
time parameters -> n, h, sessions, score (Lucene BM25): the notes the caller sees whose
version standing for them matched, best first; a note another stands in for (the same key
under the project) is left out even when it matched."""


GROUP_IDS = scope.NOTE_GROUPS + "RETURN groups\n"
"""READ. $owner, $known_at -> groups: the groups `$owner` belonged to at $known_at (the
full-text queries are narrowed to the caller's owner and these groups)."""

WHY_LINEAGE = """
MATCH (n:Note {id: $version_id})
MATCH (n)-[:REMAINS_OF|SUPERSEDES|HANDED_OVER_FROM*0..]->(g:Note)
WITH DISTINCT g
OPTIONAL MATCH (c:Event)-[w:WROTE_NOTE]->(g)
WHERE c.owner = $owner
OPTIONAL MATCH (g)-[:REMAINS_OF|SUPERSEDES|HANDED_OVER_FROM]->(p:Note)
RETURN g.id AS version_id, c.id AS commit, w.cause AS cause, collect(DISTINCT p.id) AS continues
"""
"""READ. $version_id, $owner -> version_id, commit, cause, continues: the version and every
row it continues (its remainder's original, the version it replaced, the row a handover
moved), each with the caller's commit that wrote it and that commit's cause for it (null
for another member's group note: its events are not the caller's), and the rows it
continues directly. The caller has checked the version is visible (NOTE_AT/NOTE_HISTORY)."""

_PRECEDENCE = (
    "(CASE WHEN VAR.project_norm IS NULL THEN 2 ELSE 0 END"
    " + CASE WHEN VAR.group_id IS NULL THEN 0 ELSE 1 END)"
)
_STANDS_BEFORE = (
    """o.key_norm = n.key_norm AND o.note_id <> n.note_id
      AND (o.project_norm IS NULL OR o.project_norm = $project) AND """
    + on(AS_OF, "o")
    + " AND "
    + scope.note_visible("o")
    + """
      AND ("""
    + on(_PRECEDENCE, "o")
    + " < "
    + on(_PRECEDENCE, "n")
    + " OR ("
    + on(_PRECEDENCE, "o")
    + " = "
    + on(_PRECEDENCE, "n")
    + """ AND o.note_id < n.note_id))"""
)
_stands = (
    """(n.project_norm IS NULL OR n.project_norm = $project)
  AND (n.key_norm IS NULL
       OR (n.group_id IS NULL AND ($project IS NULL OR n.project_norm IS NOT NULL))
       OR NOT (EXISTS {
    MATCH (o:Note)
    WHERE o.owner = $owner AND o.group_id IS NULL AND """
    + _STANDS_BEFORE
    + """
  } OR EXISTS {
    MATCH (o:Note)
    WHERE o.group_id IN groups AND """
    + _STANDS_BEFORE
    + """
  }))"""
)
"""A note `n` the caller sees stands for its key under `$project` (or null: general notes
only), the rule of `_resolved` for one row: it is general or of `$project`, and no other
note of its key the caller sees there stands before it (the module docstring's order,
then the lower note id). The caller's own note stands without a look when no project is
asked or it is of the project (a key names one note per scope and project, and nothing
comes before the caller's own there). Seeks on `note_owner_key` / `note_group_key`."""

PREFETCH_NOTES = re.sub(
    r"\$(?!(?:valid_at|known_at|k|max_notes|body_chars)\b)(\w+)",
    r"$turn.\1",
    "CYPHER replan=skip"
    + scope.NOTE_GROUPS
    + """
CALL (groups) {
  UNWIND CASE WHEN $words IS NULL THEN [] ELSE
    [$words + $own] + [g IN groups | $words + ' +group_id:"' + g + '"'] END AS q
  CALL db.index.fulltext.queryNodes('"""
    + NOTE_INDEX
    + """', q, {limit: $k}) YIELD node AS n, score
  RETURN n, score
  UNION
  MATCH (n:Note)
  WHERE n.owner = $owner AND n.group_id IS NULL AND n.review_at <= $valid_at
    AND n.status IN ['open', 'active']
  RETURN n, null AS score
  UNION
  UNWIND groups AS g
  MATCH (n:Note)
  WHERE n.group_id = g AND n.review_at <= $valid_at AND n.status IN ['open', 'active']
  RETURN n, null AS score
}
WITH groups, n, score
WHERE """
    + on(AS_OF, "n")
    + " AND "
    + scope.note_visible("n")
    + " AND "
    + _stands
    + """
WITH n, score ORDER BY score IS NULL, score DESC, n.note_id
WITH collect(DISTINCT CASE WHEN score IS NULL THEN n.note_id END) AS due,
     collect(CASE WHEN score IS NOT NULL THEN [n.note_id, n.kind, n.title,
       left(n.body, $body_chars), n.status, n.source, """
    + valid_micros("valid_from").replace("VAR", "n")
    + """, score, n.key] END) AS hits
RETURN hits[0..$max_notes] AS notes, size(due) AS due
""",
)
"""READ, prefetch's own query in its snapshot (CONTRACT §6, §13), one round trip: the
full-text hits and the due notes in one stream, so the scope and the project rule are
written (and planned) once. $words (the message's words as a Lucene clause,
graph.read.notes.lucene_words, or null: no note matches), $own (the clause narrowing it to
the caller's notes, or "" when the owner id cannot be a phrase), each group's clause added
here from the group ids the query read itself (ours, `grp_<hex>`: never input); $k
(full-text hits read per query), $max_notes, $body_chars, $owner, $valid_at, $known_at,
$project (normalized, or null), scope parameters (graph.scope.note_params), every one but
the times and the three numbers inside the map $turn -> notes
(lists: note_id, kind, title, the body's first $body_chars characters, status, source,
valid_from in microseconds, score, key; best first), due (how many notes the caller sees
are due for a second look at $valid_at). Only the notes that stand for their key under
$project (general notes only without one), as every note read. Every string that varies
per turn travels in `$turn` (a map's values do not enter the plan cache's parameter shape,
graph/cypher/prefetch.py), and the plan is kept (`replan=skip`): index seeks only, so a
turn never plans inside its deadline once the warm-up has.
Seeks on the full-text index and on `note_owner_review` / `note_group_review`."""


SEMANTIC = (
    _resolved()
    + """
WITH n WHERE n.embedding_model = $model AND ($kind IS NULL OR n.kind = $kind)
WITH n, vector.similarity.cosine(n.embedding, $vector) AS score
ORDER BY score DESC, n.note_id
LIMIT $limit"""
    + _standing(NOTE_COLUMNS)
    + """, score
ORDER BY score DESC, n.note_id
"""
)
"""READ. $vector (the query's embedding), $model (only rows embedded by it), $limit, $kind,
and LIST_NOTES's scope and time parameters -> n, h, sessions, score (cosine similarity):
the notes the caller sees (one per key under the project) nearest to the query, computed
exactly over them (an owner keeps at most a few hundred notes)."""


def note_from_record(node: Any, head: Any = None, sessions: int = 0) -> NoteRecord:
    """Build a `NoteRecord` from a `n` column (NOTE_COLUMNS or SUMMARY_COLUMNS) and the
    `h` and `sessions` columns of the same row (the standing; defaults when absent)."""

    def t(name: str) -> Any:
        value = node.get(name + "_us")
        return None if value is None else from_micros(value)

    head = head or {}
    review = t("review_at")
    return NoteRecord(
        id=node["id"],
        note_id=node["note_id"],
        owner=node["owner"],
        group_id=node.get("group_id"),
        kind=node["kind"],
        title=node["title"],
        body=node.get("body") or "",
        evidence=node.get("evidence"),
        known_by=node["known_by"],
        source=node["source"],
        confidence=float(node["confidence"]),
        key=node.get("key"),
        project=node.get("project"),
        status=node["status"],
        review_at=None if review is None or review >= FAR_FUTURE else review,
        closed_at=t("closed_at"),
        close_reason=node.get("close_reason"),
        first_learned_at=t("first_learned_at"),
        valid_from=t("valid_from"),
        valid_to=t("valid_to"),
        recorded_at=t("recorded_at"),
        retracted_at=t("retracted_at"),
        row_status=node["row_status"],
        version=int(node["version"]),
        run_id=node.get("run_id"),
        chat_id=node.get("chat_id"),
        message_id=node.get("message_id"),
        agent_id=node.get("agent_id"),
        experiment_id=node.get("experiment_id"),
        tier=head.get("tier") or "mid",
        relevance_base=float(head.get("relevance") if head.get("relevance") is not None else 1.0),
        relevance_session=int(head.get("relevance_session") or 0),
        stored=int(head.get("stored") or 1),
        sessions=int(sessions or 0),
        tier_since=None
        if head.get("tier_since_us") is None
        else from_micros(head["tier_since_us"]),
    )
