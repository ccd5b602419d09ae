"""Cypher for the session memory around notes (issue 15, the Zibby row): session summaries,
task logs, and the per-token hourly reading ledger (CONTRACT §13 limits).

Each node belongs to one owner through `owner` (erasure, graph/cypher/erasure.py):

* `(:NoteSession {id, owner, session_id, chat_id, summary, ended_at})`: what a session
  was about, kept when it ends (`memory_end_session`); immutable.
* `(:NoteTask {id, owner, task, status, summary, duration_ms, session_id, at})`: one
  logged task (`task_log`); immutable.
* `(:NoteReadLedger {key: owner/token/hour, id: token/hour, owner, token_id, hour, notes,
  chars, playbooks})`: the notes a token read in one hour (UTC), counted in the store so
  that every process serving the token (`serve` with several workers, the MCP server)
  counts against the same ceiling.
"""

from __future__ import annotations

CREATE_SESSION = """
CREATE (s:NoteSession)
SET s.id = $id, s.owner = $owner, s.session_id = $session_id, s.chat_id = $chat_id,
    s.summary = $summary, s.facts = $facts, s.ended_at = $t
"""
"""WRITE. $id, $owner, $session_id, $chat_id, $summary, $facts (list of text), $t."""

RECENT_SESSIONS = """
MATCH (s:NoteSession)
WHERE s.owner = $owner AND s.ended_at <= $at
RETURN s.id AS id, s.session_id AS session_id, s.summary AS summary, s.facts AS facts,
       s.ended_at AS ended_at
ORDER BY s.ended_at DESC, s.id DESC
LIMIT $limit
"""
"""READ. $owner, $at, $limit -> id, session_id, summary, facts, ended_at: the latest
session summaries, newest first. Seeks on index `note_session_owner`."""

CREATE_TASK = """
CREATE (k:NoteTask)
SET k.id = $id, k.owner = $owner, k.task = $task, k.status = $status, k.summary = $summary,
    k.duration_ms = $duration_ms, k.session_id = $session_id, k.at = $t
"""
"""WRITE. $id, $owner, $task, $status, $summary, $duration_ms, $session_id, $t."""

TASKS = """
MATCH (k:NoteTask)
WHERE k.owner = $owner AND ($status IS NULL OR k.status = $status)
  AND ($task IS NULL OR k.task = $task)
RETURN k.id AS id, k.task AS task, k.status AS status, k.summary AS summary,
       k.duration_ms AS duration_ms, k.session_id AS session_id, k.at AS at
ORDER BY k.at DESC, k.id DESC
LIMIT $limit
"""
"""READ. $owner, $status, $task (null = any), $limit -> the task log, newest first."""

TASK_STATS = """
MATCH (k:NoteTask)
WHERE k.owner = $owner
RETURN k.status AS status, count(k) AS count, avg(k.duration_ms) AS mean_ms
ORDER BY status
"""
"""READ. $owner -> status, count, mean_ms: the task log counted by status."""

LOCK_LEDGER = """
MERGE (l:NoteReadLedger {key: $key})
ON CREATE SET l.id = $ledger_id, l.owner = $owner, l.token_id = $token_id, l.hour = $hour,
    l.notes = 0, l.chars = 0, l.playbooks = 0
SET l.locked_by = $tx_id
RETURN l.notes AS notes, l.chars AS chars, l.playbooks AS playbooks
"""
"""WRITE. $key (owner + "/" + $ledger_id: the owner export remakes keys as owner/id,
committer/portability.py), $ledger_id (token id + "/" + hour), $owner, $token_id, $hour
(the hour's start, UTC), $tx_id -> notes, chars, playbooks read so far this hour. MERGE
on the unique key, then the node's write lock to the end of the transaction: charges of
one token serialize."""

CHARGE_LEDGER = """
MATCH (l:NoteReadLedger {key: $key})
SET l.notes = l.notes + $notes, l.chars = l.chars + $chars,
    l.playbooks = l.playbooks + $playbooks
RETURN l.notes AS notes, l.chars AS chars, l.playbooks AS playbooks
"""
"""WRITE. $key, $notes, $chars, $playbooks -> the totals after this read."""
