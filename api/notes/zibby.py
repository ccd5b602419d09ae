"""The session-memory tools our users know from Zibby (issue 15), over notes: store, recall,
brief, end a session, log a task, read the task log.

* `memory_store(content, category, tier, memoryKey)` keeps a note: `category` is a note
  kind (or a Zibby word for one), `memoryKey` its key; the same content again promotes its
  tier instead of writing a duplicate.
* `memory_recall(query, category, tier)` ranks the notes that match by relevance (decayed
  per session end by tier: long 2%, mid 10%, short 30%) times recency (halving every 30
  days), weighted by how well they match the query; each term is shown.
* `memory_brief()` first retires short-tier notes older than 24 hours (never deletes),
  then gives recent session summaries, the top long- and mid-tier notes (titles), the
  task log's counts and what is due.
* `memory_end_session(summary, keyFacts)` keeps the summary, counts one more session (the
  decay), and sends the key facts (separated by semicolons) through the curator as note
  proposals, held for the person's yes (curator/notes.py).
* `task_log` / `task_history`: one line per task outcome.

Deliberate difference from Zibby: a `credential` category (or a secret in the content) is
refused with a clear reason: worldstate never stores secrets (README).
"""

from __future__ import annotations

import uuid
from typing import Any

from api.http.schemas.proposals import ProposalPublic
from api.notes import limits as lim
from api.notes import service
from api.notes.schemas import NoteCreate
from committer.apply import Committer
from curator.notes import review_session_facts, split_facts
from curator.statements import Policy
from graph.embedding import Embedder
from graph.errors import InvalidInput
from graph.fields import z
from graph.notes import KINDS, MAX_TITLE, NoteRecord, recency
from graph.read.reader import Reader
from graph.time import AsOf

ALIASES = {
    "fact": "context",
    "general": "context",
    "note": "context",
    "preference": "convention",
    "rule": "convention",
    "lesson": "learning",
    "pattern": "insight",
    "howto": "playbook",
    "how-to": "playbook",
    "procedure": "playbook",
    "fix": "workaround",
}
"""Zibby's categories, or everyday words for them, as note kinds."""
REFUSED = frozenset({"credential", "credentials", "secret", "secrets", "password", "api_key"})
"""Categories refused: worldstate never stores secrets."""
TASK_STATUSES = ("done", "failed", "in_progress", "blocked", "cancelled")
MAX_FACTS = 50
MAX_FACT_CHARS = 1_000
BRIEF_NOTES = 5


def kind_of(category: str | None, field: str = "category") -> str | None:
    """The note kind a category names (None stays None: any kind).

    Raises:
        InvalidInput: a credential category (never stored), or an unknown one.
    """
    if category is None:
        return None
    word = category.strip().casefold()
    if word in REFUSED:
        raise InvalidInput(
            field,
            "credentials are never stored: worldstate keeps no secrets (a deliberate "
            "difference from Zibby's memory); keep them in a secrets manager",
        )
    kind = word if word in KINDS else ALIASES.get(word)
    if kind is None:
        raise InvalidInput(field, f"unknown category {category!r}; one of {', '.join(KINDS)}")
    return kind


def _title(content: str) -> str:
    first = " ".join(content.strip().splitlines()[0].split()) if content.strip() else ""
    if len(first) <= MAX_TITLE:
        return first
    cut = first[: MAX_TITLE - 1]
    return cut[: cut.rfind(" ")] + "…" if " " in cut else cut + "…"


def store(
    reader: Reader,
    committer: Committer,
    limits: lim.NoteLimits,
    caller: service.NoteCaller,
    content: str,
    category: str = "context",
    tier: str = "mid",
    memory_key: str | None = None,
) -> dict[str, Any]:
    """`memory_store`: keep `content` as a note the assistant observed (source
    `integration:assistant`). Returns `{stored, id, effect, category, tier, memoryKey,
    warning}`.

    Raises:
        InvalidInput: empty content, a refused or unknown category, a secret.
        MemoryOff: a `none` chat.
    """
    kind = kind_of(category) or "context"
    title = _title(content)
    if not title:
        raise InvalidInput("content", "give something to remember")
    body = "" if " ".join(content.split()) == title else content.strip()
    note = NoteCreate(
        kind=kind, title=title, body=body, known_by="observed", key=memory_key, tier=tier
    )
    out = service.write(committer, limits, caller, note, by="mcp", reader=reader)
    return {
        "stored": True,
        "id": out["note"]["id"],
        "effect": out["effect"],
        "category": kind,
        "tier": out["note"]["tier"],
        "memoryKey": out["note"]["key"],
        "warning": out["warning"],
    }


def _item(n: NoteRecord, match: float, at: Any) -> dict[str, Any]:
    rec = recency(n.updated, at)
    return {
        "id": n.note_id,
        "memoryKey": n.key,
        "category": n.kind,
        "tier": n.tier,
        "content": n.body or n.title,
        "title": n.title,
        "relevance": n.relevance,
        "recency": rec,
        "match": round(match, 4),
        "score": round(n.relevance * rec * match, 6),
        "createdAt": z(n.first_learned_at),
        "updatedAt": z(n.valid_from),
    }


def recall(
    reader: Reader,
    committer: Committer,
    limits: lim.NoteLimits,
    caller: service.NoteCaller,
    query: str,
    category: str | None = None,
    tier: str | None = None,
    limit: int = 10,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """`memory_recall`: the notes matching `query`, ranked by relevance x recency x match
    (match: the search's score, by words and meaning, over the best one's), each term
    shown; charged to the token's reading ceilings (contents are served).

    Raises:
        InvalidInput: a blank query, a refused or unknown category. MemoryOff: `none`.
        LimitExceeded: a reading ceiling (429).
    """
    if not query.strip():
        raise InvalidInput("query", "must contain something to recall")
    kind = kind_of(category)
    as_of = AsOf.at()
    scope = service.scope_of(reader, caller, as_of.known_at)
    vector, model = service.query_vector(embedder, query)
    found = reader.search_notes(
        scope, query, as_of, kind=kind, limit=50, vector=vector, model=model
    )
    hits = [(n, s) for n, s in found if tier is None or n.tier == tier]
    best = max((s for _, s in hits), default=1.0) or 1.0
    items = sorted(
        (_item(n, s / best, as_of.valid_at) for n, s in hits),
        key=lambda i: (-i["score"], i["id"]),
    )[:limit]
    chosen = {i["id"] for i in items}
    lim.charge(committer, limits, caller.owner, caller.token_id,
               [n for n, _ in hits if n.note_id in chosen])  # fmt: skip
    return {"items": items}


def brief(reader: Reader, committer: Committer, caller: service.NoteCaller) -> dict[str, Any]:
    """`memory_brief`: retire short-tier notes older than 24 hours, then recent session
    summaries, the top long- and mid-tier notes by relevance x recency (titles, not
    bodies: not charged), the task log's counts and the last tasks, and what is due."""
    scope = service.scope_of(reader, caller)
    retired = committer.retire_expired(caller.owner)
    as_of = AsOf.at()

    def top(tier: str) -> list[dict[str, Any]]:
        found = reader.notes(scope, as_of, tier=tier, limit=200)
        ranked = sorted(
            found, key=lambda n: (-n.relevance * recency(n.updated, as_of.valid_at), n.note_id)
        )
        return [
            {k: v for k, v in _item(n, 1.0, as_of.valid_at).items() if k != "content"}
            for n in ranked[:BRIEF_NOTES]
        ]

    sessions = reader.note_sessions(caller.owner, as_of.valid_at, BRIEF_NOTES)
    stats = reader.note_task_stats(caller.owner)
    tasks = reader.note_tasks(caller.owner, status=None, task=None, limit=BRIEF_NOTES)
    return {
        "retired": [r.note.title for r in retired],
        "sessions": [
            {"sessionId": s["session_id"], "summary": s["summary"], "endedAt": z(s["ended_at"])}
            for s in sessions
        ],
        "long": top("long"),
        "mid": top("mid"),
        "tasks": {
            "counts": {status: count for status, count, _ in stats},
            "recent": [_task(t) for t in tasks],
        },
        "due": len(reader.notes_due(scope, as_of, as_of.valid_at, None, 500)),
    }


def end_session(
    committer: Committer,
    reader: Reader | None,
    policy: Policy,
    caller: service.NoteCaller,
    summary: str,
    key_facts: str,
    session_id: str | None = None,
) -> dict[str, Any]:
    """`memory_end_session`: keep the summary, decay every note's relevance once, and file
    the key facts (separated by semicolons) as note proposals held for the person's yes.

    Raises:
        InvalidInput: an empty summary, too many or too long facts.
    """
    if reader is not None:
        service.scope_of(reader, caller)
    if not summary.strip():
        raise InvalidInput("summary", "say what the session was about")
    facts = split_facts(key_facts)
    if len(facts) > MAX_FACTS:
        raise InvalidInput("keyFacts", f"at most {MAX_FACTS} facts")
    if any(len(f) > MAX_FACT_CHARS for f in facts):
        raise InvalidInput("keyFacts", f"each fact at most {MAX_FACT_CHARS} characters")
    session = session_id or "ses_" + uuid.uuid4().hex[:24]
    at = AsOf.at().valid_at
    reviewed = review_session_facts(caller.owner, session, facts, at, policy)
    count, stored = committer.end_session(
        caller.owner,
        session_id=session,
        chat_id=caller.chat_id,
        summary=summary.strip(),
        facts=facts,
        reviewed=reviewed,
    )
    return {
        "sessionId": session,
        "sessions": count,
        "proposals": [ProposalPublic.of(p).model_dump(mode="json") for p in stored],
    }


def _task(t: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": t["id"],
        "task": t["task"],
        "status": t["status"],
        "summary": t["summary"],
        "durationMs": t["duration_ms"],
        "sessionId": t["session_id"],
        "at": z(t["at"]),
    }


def task_log(
    committer: Committer,
    reader: Reader | None,
    caller: service.NoteCaller,
    task: str,
    status: str,
    summary: str | None = None,
    duration_ms: int | None = None,
    session_id: str | None = None,
) -> dict[str, Any]:
    """`task_log`: record one task's outcome. Returns `{id, at}`.

    Raises:
        InvalidInput: an empty task or an unknown status.
    """
    if not task.strip():
        raise InvalidInput("task", "name the task")
    if reader is not None:
        service.scope_of(reader, caller)
    if status not in TASK_STATUSES:
        raise InvalidInput("status", f"one of {', '.join(TASK_STATUSES)}")
    ident, at = committer.log_task(
        caller.owner,
        task=task.strip(),
        status=status,
        summary=summary,
        duration_ms=duration_ms,
        session_id=session_id,
    )
    return {"id": ident, "at": z(at)}


def task_history(
    reader: Reader,
    caller: service.NoteCaller,
    status: str | None = None,
    task: str | None = None,
    limit: int = 20,
) -> dict[str, Any]:
    """`task_history`: the task log, newest first, and its counts by status."""
    service.scope_of(reader, caller)
    found = reader.note_tasks(caller.owner, status=status, task=task, limit=limit)
    stats = reader.note_task_stats(caller.owner)
    return {
        "items": [_task(t) for t in found],
        "counts": {s: c for s, c, _ in stats},
        "meanDurationMs": {s: None if m is None else round(m, 1) for s, _, m in stats},
    }
