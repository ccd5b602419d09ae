"""Reads of notes (CONTRACT §13): lists, one note as of a point, history, why, due dates,
an overview, search, and prefetch's notes.

A part of `graph.read.reader.Reader` (READ transactions only). Every query is scoped by
graph/scope.py `NOTE_VISIBLE` (`note_params`): the caller's notes and its groups' notes as
known at the read's `known_at`, under the chat's memory access (area `notes`). The model
and the project rule are in graph/cypher/notes.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import networkx as nx

from graph.cypher import events as vc
from graph.cypher import note_memory as mc
from graph.cypher import note_rows as rc
from graph.cypher import notes as nc
from graph.errors import NotFound
from graph.notes import NoteRecord, norm
from graph.read.audit import order_chain
from graph.read.base import ReadBase
from graph.read.search import words
from graph.records import EventRecord, event_key
from graph.scope import Scope, note_params
from graph.time import FAR_FUTURE, AsOf, from_micros, from_store

MAX_HITS = 200
"""Full-text hits a search reads before the scope, the time axes and the project rule."""
FUSED = 50
"""Hits of each ranking (words, meaning) a search fuses."""
DENSE_FLOOR = 0.65
"""The least similarity, (1 + cosine) / 2, a note found by meaning alone needs: cosine 0.3.
On bench/notes_set.py (local MiniLM) 90% of unrelated question-note pairs score below
0.21 and 99% below 0.35, while the note a question is about scores 0.37 or more in 90%."""
RRF_K = 60
"""The constant of reciprocal rank fusion: a hit at rank r adds 1 / (RRF_K + r)."""


def fuse(
    *rankings: list[tuple[NoteRecord, float]],
) -> list[tuple[NoteRecord, float]]:
    """Reciprocal rank fusion: each note scores the sum of 1 / (RRF_K + rank) over the
    rankings it is in (rank from 1), rounded to 6 places; best first, ties by note id."""
    scores: dict[str, float] = {}
    notes: dict[str, NoteRecord] = {}
    for ranking in rankings:
        for rank, (note, _) in enumerate(ranking, start=1):
            notes.setdefault(note.note_id, note)
            scores[note.note_id] = scores.get(note.note_id, 0.0) + 1.0 / (RRF_K + rank)
    ranked = sorted(scores, key=lambda i: (-round(scores[i], 6), i))
    return [(notes[i], round(scores[i], 6)) for i in ranked]


_SAFE_ID = re.compile(r"[\w.@:+-]+")


@dataclass(frozen=True, slots=True)
class NoteWhy:
    """Why a note version exists (CONTRACT §8 on notes, §13).

    Attributes:
        note: the version asked about.
        chain: every event that led to it and to the versions it continues, oldest first.
        cause: the action or decision it was written for, or None (another member's
            group note: its events are not the caller's).
        trigger: the event that set `cause` off (a run, or the action itself).
        commit: the commit event that wrote it, or None as for `cause`.
    """

    note: NoteRecord
    chain: tuple[EventRecord, ...]
    cause: EventRecord | None
    trigger: EventRecord | None
    commit: EventRecord | None


@dataclass(frozen=True, slots=True)
class PrefetchNote:
    """A note as prefetch shows it (no evidence; the body's first characters only)."""

    note_id: str
    kind: str
    title: str
    extract: str
    status: str
    source: str
    valid_from: datetime
    score: float
    key: str | None


def lucene_words(text: str) -> str | None:
    """The words of `text` as a required Lucene clause over titles (counting double) and
    bodies, or None when it has no word but stop words (graph.read.search.words: runs of
    letters and digits, so no Lucene operator comes from the caller)."""
    terms = words(text)
    if not terms:
        return None
    joined = " ".join(terms)
    return f"+(title:({joined})^2 search_text:({joined}))"


def owner_clause(owner: str) -> str:
    """The clause narrowing a note query to `owner`'s notes, or "" when the id could not
    be matched as a phrase (the Cypher scope filter still keeps the query exact)."""
    return f' +owner:"{owner}"' if _SAFE_ID.fullmatch(owner) else ""


def lucene_query(text: str, owner: str, groups: Iterable[str]) -> str | None:
    """The full-text query over `note_text` for the words of `text` (any of them; a title
    match counts double), narrowed to the notes of `owner` and of `groups`.

    Words are runs of letters and digits (graph.read.search.words), so no Lucene operator
    comes from the caller. An id the analyzer cannot match as a phrase leaves the query
    un-narrowed: still exact after the Cypher scope filter, only slower.

    Returns:
        The query, or None when `text` has no word but stop words.
    """
    terms = words(text)
    if not terms:
        return None
    joined = " ".join(terms)
    query = f"+(title:({joined})^2 search_text:({joined}))"
    ids = [owner, *groups]
    if all(_SAFE_ID.fullmatch(i) for i in ids):
        narrow = [f'owner:"{owner}"', *(f'group_id:"{g}"' for g in groups)]
        query += " +(" + " ".join(narrow) + ")"
    return query


def _note(row: Any) -> NoteRecord:
    return nc.note_from_record(row["n"], row["h"], row["sessions"])


class NotesReads(ReadBase):
    """Note reads."""

    def _params(self, scope: Scope, as_of: AsOf, project: str | None) -> dict[str, Any]:
        return {
            **note_params(scope),
            "valid_at": as_of.valid_at,
            "known_at": as_of.known_at,
            "project": norm(project),
        }

    def note_groups(self, owner: str, known_at: datetime) -> tuple[str, ...]:
        """The groups `owner` belonged to at `known_at`, sorted."""
        rows = self._rows(nc.GROUP_IDS, owner=owner, known_at=known_at)
        return tuple(sorted(rows[0]["groups"])) if rows else ()

    def note_count(self, owner: str) -> int:
        """How many notes `owner` holds now (its group notes included): the limit's count."""
        return int(self._rows(rc.COUNT_LIVE, owner=owner, far=FAR_FUTURE)[0]["live"])

    def notes(
        self,
        scope: Scope,
        as_of: AsOf,
        *,
        project: str | None = None,
        kind: str | None = None,
        status: str | None = None,
        tier: str | None = None,
        after: tuple[datetime, str] | None = None,
        limit: int = 100,
    ) -> list[NoteRecord]:
        """The notes the scope sees at `as_of` (one per key under `project`), newest version
        first, without bodies (CONTRACT §13 `GET /v1/notes`).

        Args:
            scope: who reads (graph/scope.py).
            as_of: the point on both axes.
            project: the project the read is for, or None (general notes only).
            kind, status, tier: filters (None = any).
            after: (valid_from, note_id) of the previous page's last item, or None.
            limit: page size.
        """
        rows = self._rows(
            nc.LIST_NOTES,
            **self._params(scope, as_of, project),
            kind=kind,
            status=status,
            tier=tier,
            after_vf=None if after is None else after[0],
            after_id=None if after is None else after[1],
            limit=limit,
        )
        return [_note(r) for r in rows]

    def note(self, scope: Scope, note_id: str, as_of: AsOf) -> NoteRecord:
        """One note as it stood at `as_of`: its version valid at `valid_at` as known at
        `known_at`, or the last version of a note that had ended (retired) by then.

        Raises:
            NotFound: no such note for this scope then (another owner's, a group the
                caller was not in at `known_at`, kept out by memory access, or not yet
                written: all look the same, CONTRACT §7).
        """
        rows = self._rows(nc.NOTE_AT, note_id=note_id, **self._params(scope, as_of, None))
        if not rows:
            raise NotFound("note", note_id)
        return _note(rows[0])

    def note_history(
        self, scope: Scope, note_id: str, known_at: datetime, all_rows: bool = False
    ) -> list[NoteRecord]:
        """Every version of a note as known at `known_at` (every row on both axes with
        `all_rows`), by valid_from then recorded_at.

        Raises:
            NotFound: the scope sees no row of it.
        """
        rows = self._rows(
            nc.NOTE_HISTORY,
            note_id=note_id,
            all_rows=all_rows,
            known_at=known_at,
            **note_params(scope),
        )
        if not rows:
            raise NotFound("note", note_id)
        return [_note(r) for r in rows]

    def notes_due(
        self, scope: Scope, as_of: AsOf, at: datetime, project: str | None, limit: int
    ) -> list[NoteRecord]:
        """Notes whose date to look again is at or before `at`, soonest first."""
        rows = self._rows(nc.DUE, **self._params(scope, as_of, project), at=at, limit=limit)
        return [_note(r) for r in rows]

    def notes_overview(
        self, scope: Scope, as_of: AsOf, at: datetime, project: str | None
    ) -> list[tuple[str, int, datetime, int]]:
        """Per kind: (kind, count, latest first_learned_at, due at `at`), by kind."""
        rows = self._rows(nc.OVERVIEW, **self._params(scope, as_of, project), at=at)
        return [
            (r["kind"], int(r["count"]), from_micros(r["last_learned_us"]), int(r["due"]))
            for r in rows
        ]

    def search_notes(
        self,
        scope: Scope,
        text: str,
        as_of: AsOf,
        *,
        project: str | None = None,
        kind: str | None = None,
        limit: int = 10,
        vector: list[float] | None = None,
        model: str | None = None,
    ) -> list[tuple[NoteRecord, float]]:
        """Notes that match `text`, best first, with their score.

        By words (full text, stemmed; a title match counts double), and, given the query's
        `vector` by the embedder `model`, by meaning (cosine over the notes embedded by that
        model, kept from `DENSE_FLOOR` up), the two rankings fused by reciprocal rank
        (`fuse`). Without a vector: Lucene's scores. Empty when nothing matches.
        """
        base = {**self._params(scope, as_of, project), "kind": kind}
        lexical: list[tuple[NoteRecord, float]] = []
        query = lucene_query(text, scope.owner, self.note_groups(scope.owner, as_of.known_at))
        if query is not None:
            rows = self._rows(nc.SEARCH, **base, lucene=query, k=MAX_HITS, limit=FUSED)
            lexical = [(_note(r), float(r["score"])) for r in rows]
        if vector is None or model is None:
            return lexical[:limit]
        rows = self._rows(nc.SEMANTIC, **base, vector=vector, model=model, limit=FUSED)
        dense = [(_note(r), float(r["score"])) for r in rows if r["score"] >= DENSE_FLOOR]
        return fuse(lexical, dense)[:limit]

    def prefetch_notes(
        self,
        scope: Scope,
        message: str,
        at: datetime,
        *,
        max_notes: int,
        body_chars: int,
        project: str | None = None,
        hits: int = 50,
    ) -> tuple[list[PrefetchNote], int]:
        """The notes `message`'s words find, best first, and how many are due at `at`
        (CONTRACT §6, §13): one read in the caller's snapshot.

        Args:
            scope: who reads, under which memory access.
            message: the turn's message (its words, as a Lucene clause).
            at: the point on both time axes (aware).
            max_notes: notes returned at most.
            body_chars: characters of each body returned.
            project: the project the turn works on: its notes stand before the general
                notes of their key (CONTRACT §13); None: general notes only.
            hits: full-text hits read per index query.

        Returns:
            (notes, due).
        """
        turn = {
            **note_params(scope),
            "words": lucene_words(message),
            "own": owner_clause(scope.owner),
            "project": norm(project),
        }
        row = self._rows(
            nc.PREFETCH_NOTES,
            turn=turn,
            k=hits,
            max_notes=max_notes,
            body_chars=body_chars,
            valid_at=at,
            known_at=at,
        )[0]
        notes = [
            PrefetchNote(i, k, t, b or "", s, src, from_micros(vf), float(sc), key)
            for i, k, t, b, s, src, vf, sc, key in row["notes"]
        ]
        return notes, int(row["due"])

    def note_why(self, scope: Scope, note_id: str, version_id: str | None = None) -> NoteWhy:
        """Walk back from a note version (default: its version now) to every event that
        led to it and to the versions it continues (CONTRACT §8, §13).

        Raises:
            NotFound: the note, or that version of it, is not visible to the scope.
        """
        if version_id is None:
            note = self.note(scope, note_id, AsOf.at())
        else:
            found = [
                v
                for v in self.note_history(scope, note_id, AsOf.at().known_at, all_rows=True)
                if v.id == version_id
            ]
            if not found:
                raise NotFound("note version", version_id)
            note = found[0]
        lineage = {
            r["version_id"]: r
            for r in self._rows(nc.WHY_LINEAGE, version_id=note.id, owner=scope.owner)
        }
        ids = {i for r in lineage.values() for i in (r["commit"], r["cause"]) if i}
        events: dict[str, EventRecord] = {}
        caused: list[tuple[str, str]] = []
        if ids:
            keys = sorted(event_key(scope.owner, i) for i in ids)
            for r in self._rows(vc.EVENT_ANCESTORS, owner=scope.owner, keys=keys):
                event = vc.event_from_record(r["event"])
                events[event.id] = event
                caused.extend((event.id, b) for b in r["effects"])
        caused = [(a, b) for a, b in caused if b in events]
        earlier = [
            (lineage[p]["commit"], r["cause"])
            for r in lineage.values()
            for p in r["continues"]
            if p in lineage and lineage[p]["commit"] and r["cause"]
            and lineage[p]["commit"] != r["commit"]
        ]  # fmt: skip
        order = order_chain(events, [*caused, *earlier])
        own = lineage.get(note.id, {})
        cause = events.get(own.get("cause") or "")
        trigger = None
        if cause is not None:
            graph = nx.DiGraph(caused)
            graph.add_node(cause.id)
            behind = nx.ancestors(graph, cause.id) | {cause.id}
            roots = [i for i in order if i in behind and graph.in_degree(i) == 0]
            trigger = events[roots[0]] if roots else cause
        return NoteWhy(
            note,
            tuple(events[i] for i in order),
            cause,
            trigger,
            events.get(own.get("commit") or ""),
        )

    # --- the session memory around notes (graph/cypher/note_memory.py) -----------------

    def note_sessions(self, owner: str, at: datetime, limit: int) -> list[dict[str, Any]]:
        """The owner's latest session summaries ended by `at`, newest first."""
        rows = self._rows(mc.RECENT_SESSIONS, owner=owner, at=at, limit=limit)
        return [{**r.data(), "ended_at": from_store(r["ended_at"])} for r in rows]

    def note_tasks(
        self, owner: str, *, status: str | None, task: str | None, limit: int
    ) -> list[dict[str, Any]]:
        """The owner's task log, newest first, filtered by status and task name."""
        rows = self._rows(mc.TASKS, owner=owner, status=status, task=task, limit=limit)
        return [{**r.data(), "at": from_store(r["at"])} for r in rows]

    def note_task_stats(self, owner: str) -> list[tuple[str, int, float | None]]:
        """(status, count, mean duration in ms or None) of the owner's task log."""
        return [
            (r["status"], int(r["count"]), r["mean_ms"])
            for r in self._rows(mc.TASK_STATS, owner=owner)
        ]
