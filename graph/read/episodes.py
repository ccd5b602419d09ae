"""Reads of episodes, what was said (CONTRACT §12): one, a page, and search hits.

A mixin of `graph.read.reader.Reader`: READ transactions only. Every query ANDs the as-of
point and graph/scope.py `EPISODE_VISIBLE` (graph/cypher/episodes.py), so memory access
holds here as on every read path: `none` reads nothing, `restricted` needs the area
`conversation` and the episode's source (`user_stated` or `untrusted`) in its lists.

Semantic hits for the caller's own episodes come, when the reader holds a vector cache
(graph/read/vectors.py, what the API builds), from the owner's episode vectors held in the
process: the cache proposes the nearest ids and the store checks and scores them
(graph/cypher/vectors.py EPISODES_NEAREST_OF), as for fact rows. Without it (or for an
owner too big to cache), for an owner with fewer than `EXACT_CAP` episodes, from an exact
ranking of that owner's episodes (an index seek on the owner: its cost follows the
owner's size, never the other owners'); for a larger owner from the shared vector index,
over-fetched, with the exact ranking as the fallback when too few of the index's answers
are the caller's.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.cypher import episodes as pc
from graph.cypher import vectors as vc
from graph.errors import NotFound
from graph.read.base import ReadBase
from graph.read.search import (
    _WORD,
    _phrase_safe,
    ann_first,
    deeper,
    fulltext_scan,
    words,
)
from graph.read.vectors import EPISODES
from graph.records import EpisodeRecord
from graph.scope import Scope, params
from graph.time import AsOf, utcnow

EXACT_CAP = 4_000
"""An owner with fewer episodes (as of the read) than this is ranked exactly."""


@dataclass(frozen=True, slots=True)
class EpisodeHit:
    """One episode found by one index.

    Attributes:
        episode: the episode.
        score: the index's score: BM25 for full-text hits, (1 + cosine) / 2 for semantic.
        text: its search text (what both indexes saw).
        semantic: (1 + cosine) / 2 against the query's vector, or None without one.
    """

    episode: EpisodeRecord
    score: float
    text: str
    semantic: float | None


def episode_lucene(text: str, owner: str, *, every: bool = False) -> str | None:
    """The full-text query over `episode_text` for the words of `text`, narrowed to `owner`.

    Words are `graph.read.search.words` (letters and digits, accents and case folded, stop
    words out), so no Lucene operator comes from the caller. The index's `english`
    analyzer stems but does not fold accents, so a word written with accents is asked in
    both forms ("Zürich" finds "Zurich" and "Zürich"). An owner id the analyzer could not
    match as a phrase leaves the query un-narrowed (still exact after the Cypher filter,
    slower).

    Args:
        text: the search.
        owner: the owner whose episodes are searched.
        every: True to require every word (a listing's filter), False for any (ranked).

    Returns:
        The Lucene query, or None when `text` has no word but stop words.
    """
    terms = words(text)
    if not terms:
        return None
    accented = _accented(text)
    alternatives = [" ".join([t, *accented.get(t, [])]) for t in terms]
    if every:
        query = " ".join(f"+search_text:({a})" for a in alternatives)
    else:
        query = "+search_text:(" + " ".join(alternatives) + ")"
    if _phrase_safe(owner):
        query += f' +owner:"{owner}"'
    return query


def _accented(text: str) -> dict[str, list[str]]:
    """Folded word -> the case-folded forms with accents `text` writes it in."""
    out: dict[str, list[str]] = {}
    for w in _WORD.findall(unicodedata.normalize("NFC", text).casefold()):
        folded = words(w)
        if folded and folded[0] != w and w not in out.get(folded[0], []):
            out.setdefault(folded[0], []).append(w)
    return out


def _episode(r: Any) -> EpisodeRecord:
    return pc.episode_from_record(r["episode"], r["speaker"])


class EpisodeReads(ReadBase):
    """Episode reads for the episode routes, search and `why`."""

    def episode(self, scope: Scope, episode_id: str) -> EpisodeRecord:
        """Return one episode the scope may see, on any axis (a forgotten one shows its
        `retracted_at`, as a fact row does: CONTRACT §2.3's audit view).

        Raises:
            NotFound: no such episode for this scope (another owner's, or one the chat's
                memory access keeps out, looks the same: CONTRACT §7).
        """
        rows = self._rows(pc.EPISODE_BY_ID, episode_id=episode_id, **params(scope))
        if not rows:
            raise NotFound("episode", episode_id)
        return _episode(rows[0])

    def episodes(
        self,
        scope: Scope,
        as_of: AsOf,
        *,
        chat_id: str | None = None,
        run_id: str | None = None,
        q: str | None = None,
        after: tuple[datetime, str, int, str] | None = None,
        limit: int = 100,
    ) -> list[EpisodeRecord]:
        """Return the episodes visible at `as_of` that the scope may see, oldest said first,
        then in run order.

        Args:
            scope: who reads.
            as_of: the point on both axes (CONTRACT §12: said by `valid_at`, recorded by
                and not forgotten at `known_at`).
            chat_id: only this chat's, or None.
            run_id: only this run's, or None.
            q: only those with every word of `q` (full-text, accents and case folded),
                or None.
            after: (said_at, run id, seq, part) of the last episode of the previous page (the
                keyset of the order), or None.
            limit: page size.
        """
        base = {
            "valid_at": as_of.valid_at,
            "known_at": as_of.known_at,
            "chat_id": chat_id,
            "run_id": run_id,
            "after": None
            if after is None
            else {"said_at": after[0], "run_id": after[1], "seq": after[2], "part": after[3]},
            "limit": limit,
            **params(scope),
        }
        if q is not None:
            lucene = episode_lucene(q, scope.owner, every=True)
            if lucene is None:
                return []
            rows = self._rows(pc.EPISODES_MATCHING, lucene=lucene, **base)
        elif run_id is not None:
            rows = self._rows(pc.EPISODES_OF_RUN, **base)
        else:
            rows = self._rows(pc.EPISODES_PAGE, **base)
        return [_episode(r) for r in rows]

    def chat_history(
        self,
        scope: Scope,
        chat_id: str,
        *,
        before: datetime,
        oldest: datetime,
        limit: int,
        older_than: tuple[datetime, str, int] | None = None,
    ) -> list[EpisodeRecord]:
        """Return a chat's thread as known now: the latest `limit` user and assistant
        messages said in `[oldest, before)`, oldest first (issue 16 "Per-chat history"),
        and ordered before `older_than` when given.

        Args:
            scope: who reads (the chat's memory access: episodes are area `conversation`).
            chat_id: the chat; only its messages.
            before: exclusive upper bound on `said_at`, aware UTC.
            oldest: inclusive lower bound on `said_at` (the oldest age kept), aware UTC.
            limit: the most messages.
            older_than: the sort key (said_at aware UTC, run id, seq) of the oldest message
                of the previous page: a page then holds the messages ordered before it,
                those said at the same instant included.
        """
        now = utcnow()
        key = (
            None
            if older_than is None
            else {"said_at": older_than[0], "run_id": older_than[1], "seq": older_than[2]}
        )
        rows = self._rows(
            pc.CHAT_HISTORY,
            valid_at=now,
            known_at=now,
            history={"chat_id": chat_id, "before": before, "oldest": oldest, "key": key},
            limit=limit,
            **params(scope),
        )
        return [_episode(r) for r in rows]

    def recent_episodes(
        self, scope: Scope, as_of: AsOf, *, chat_id: str | None = None, limit: int = 50
    ) -> list[EpisodeRecord]:
        """Return the last `limit` episodes visible at `as_of` that the scope may see,
        newest said first (CONTRACT §12), of one chat or of all."""
        rows = self._rows(
            pc.RECENT_EPISODES,
            valid_at=as_of.valid_at,
            known_at=as_of.known_at,
            chat_id=chat_id,
            after=None,
            limit=limit,
            **params(scope),
        )
        return [_episode(r) for r in rows]

    def message_episodes(self, scope: Scope, run_id: str, message_id: str) -> list[EpisodeRecord]:
        """Return the episodes of one message of a run the scope may see, on any axis (its
        own words first, then a pasted part): the message a fact was drawn from."""
        rows = self._rows(
            pc.EPISODES_OF_MESSAGES, run_id=run_id, message_id=message_id, **params(scope)
        )
        return [_episode(r) for r in rows]

    def episodes_at(
        self,
        scope: Scope,
        places: list[tuple[str, int]],
        as_of: AsOf,
        vector: list[float] | None = None,
        model: str | None = None,
    ) -> list[EpisodeHit]:
        """Return the episodes said at `places` that `scope` sees at `as_of`, as search
        hits: search reads the messages next to its best results with it (api/chat/search.py).

        Args:
            scope: who reads.
            places: (run id, seq) of each message wanted (every part of it comes back).
            as_of: the point on both axes (CONTRACT §12).
            vector: the query's embedding, or None: each hit's `score` and `semantic` are
                (1 + cosine) / 2 against it (None without it, or for another `model`).
            model: the embedder that made `vector`.

        Returns:
            Hits in run order (run id, seq), none for a place nothing visible was said at.
        """
        if not places:
            return []
        rows = self._rows(
            pc.EPISODES_AT,
            places=[{"run_id": run_id, "seq": seq} for run_id, seq in places],
            vector=vector,
            model=model,
            valid_at=as_of.valid_at,
            known_at=as_of.known_at,
            **params(scope),
        )
        return [
            EpisodeHit(_episode(r), float(r["score"] or 0.0), r["text"] or "", r["semantic"])
            for r in rows
        ]

    def episode_fulltext(
        self,
        scope: Scope,
        text: str,
        as_of: AsOf,
        k: int,
        vector: list[float] | None = None,
        model: str | None = None,
    ) -> list[EpisodeHit]:
        """Return the `k` best full-text hits among the episodes `scope` sees at `as_of`,
        best BM25 first, ties by id, each with its similarity to `vector` when given
        (empty when `text` has no word). Reads Lucene's best `fulltext_scan(k)` hits
        first, and all of them only when too few of those are visible (as `fulltext`)."""
        lucene = episode_lucene(text, scope.owner)
        if lucene is None:
            return []
        rows = self._best_rows(
            pc.EPISODES_FULLTEXT_TOP,
            pc.EPISODES_FULLTEXT,
            k,
            fulltext_scan(k),
            lucene=lucene,
            vector=vector,
            model=model,
            valid_at=as_of.valid_at,
            known_at=as_of.known_at,
            **params(scope),
        )
        return [_hit(r) for r in rows]

    def episode_semantic(
        self,
        scope: Scope,
        vector: list[float],
        model: str,
        as_of: AsOf,
        k: int,
        exact_cap: int = EXACT_CAP,
    ) -> tuple[list[EpisodeHit], str]:
        """Return the `k` episodes nearest to `vector` that `scope` sees at `as_of`.

        Args:
            scope: who reads.
            vector: the query's embedding, by the embedder named `model`.
            model: only episodes embedded by this model are compared.
            as_of: the point on both axes.
            k: how many.
            exact_cap: an owner with fewer episodes than this is ranked exactly at once
                (0: always ask the vector index first; so does an owner the vector cache
                found to hold more than its `owner_rows` episodes, when that is at least
                `exact_cap`).

        Returns:
            (hits best first, ties by id; how: "cache" when the owner's episode vectors
            held in this process picked the candidates (exact too), "small" when the
            owner's episodes were ranked exactly at once, "index" when the vector index's
            over-fetch answered, "exact" when they were ranked exactly after it did not).
        """
        base = {**self._vector_params(scope, vector, model, as_of), "k": k}
        if self._vectors is not None:
            cached = self._episode_cached(scope, vector, model, as_of, k, base)
            if cached is not None:
                return cached
        if exact_cap > 0 and not self._known_big(scope.owner, model, exact_cap, EPISODES):
            small = self._rows(pc.EPISODES_EXACT, cap=exact_cap, **base)[0]
            if small["complete"]:
                return [_listed(h) for h in small["hits"]], "small"
        ann = self._ann_hint(scope.owner, EPISODES, ann_first(k))
        rows = self._rows(pc.EPISODES_NEAREST, ann=ann, **base)
        more = deeper(ann, len(rows), k) if len(rows) < k else None
        if more is not None:
            ann, rows = more, self._rows(pc.EPISODES_NEAREST, ann=more, **base)
        if len(rows) >= k:
            self._ann_learned(scope.owner, EPISODES, ann, ann_first(k))
            return [_hit(r) for r in rows], "index"
        exact = self._rows(pc.EPISODES_EXACT, cap=2**62, **base)[0]
        return [_listed(h) for h in exact["hits"]], "exact"

    def _episode_cached(
        self,
        scope: Scope,
        vector: list[float],
        model: str,
        as_of: AsOf,
        k: int,
        base: dict[str, Any],
    ) -> tuple[list[EpisodeHit], str] | None:
        """`episode_semantic` from the owner's episode vectors held in this process; None
        when they are not held (unknown owner, or too big to cache)."""
        picks = self._cache_picks(scope, model, EPISODES, vector, as_of, k)
        if picks is None:
            return None
        candidates, visible = picks
        rows = (
            self._rows(vc.EPISODES_NEAREST_OF, candidates=candidates, **base) if candidates else []
        )
        return self._episode_checked(rows, candidates, visible, k, base)

    def _episode_checked(
        self,
        rows: list[Any],
        candidates: list[dict[str, Any]],
        visible: int,
        k: int,
        base: dict[str, Any],
    ) -> tuple[list[EpisodeHit], str]:
        """The hits of the candidates the store kept (`rows`, EPISODES_NEAREST_OF's
        columns), or of the exact ranking when they cannot be told complete."""
        # Complete when enough candidates pass the scope's filter (every episode left out
        # is farther than each candidate), or when every visible episode was one.
        if len(rows) >= k or len(candidates) == visible:
            return [_hit(r) for r in rows], "cache"
        exact = self._rows(pc.EPISODES_EXACT, cap=2**62, **{**base, "k": k})[0]
        return [_listed(h) for h in exact["hits"]], "exact"


def _hit(r: Any) -> EpisodeHit:
    semantic = r["semantic"]
    return EpisodeHit(
        _episode(r), float(r["score"]), r["text"] or "", None if semantic is None else semantic
    )


def _listed(h: list[Any]) -> EpisodeHit:
    """A hit of EPISODES_EXACT: [episode columns, speaker, score, search_text]."""
    episode, speaker, score, text = h
    return EpisodeHit(
        pc.episode_from_record(episode, speaker), float(score), text or "", float(score)
    )
