"""Recall: facts and episodes fused into one ranking (CONTRACT §6 "Pull", §10 `GET /v1/search`,
§12 episodes).

A chat read path: it embeds the query (never a row) and never imports the committer.

Candidates come from four lists read in one READ transaction: the full-text and the
semantic hits among fact rows, and the same among episodes (graph/read/search.py,
graph/read/episodes.py), at least `MIN_CANDIDATES` from each; the full-text lists are
asked the query's words less the words every question carries (`asked`). Every candidate
is then scored on the evidence itself, not on its rank in a list:

    score = W_SEMANTIC * max(cosine, 0) + W_LEXICAL * lexical + W_SPEAKER * named  (hybrid)
    score = (1 - W_SPEAKER) * lexical + W_SPEAKER * named                  (full-text only)

* `cosine` is the candidate's cosine similarity to the query, computed for every
  candidate, whichever list found it (a full-text hit's too, in the same query). An
  episode is read in its context here too (`semantic_context`): a message up to
  `CONTEXT_REACH` places away that is nearer to the query lends `W_CONTEXT` to the
  power of its distance of the difference ("Did you go to the support group?" / "Yes,
  last Friday!");
* `lexical` is the share of the query's content words (its words less stop words and
  question words, `content_words`) that the candidate's text holds, accents and case
  folded and each word reduced to its English stem ("researched" holds "research"; a
  text's stems are kept by text, `text_stems`, since candidates' texts never change),
  each word weighed by how rare it is among the candidates (`pool_weights`: a word
  every candidate holds says little): 1.0 when it holds every one. An episode is read
  in its context: a word it does not hold but a message next to it in its run does (the
  one before or after, when the search found that one too: `context`) counts for
  `W_CONTEXT` of one it holds ("Did you go to the support group?" / "Yes, last
  Friday!": the reply is about the group), and one two places away for `W_CONTEXT`
  squared (a question, its answer, and a reply to the answer: "Where did you go?" /
  "Thanks! It was lovely" / "Woodhaven? I want to go too"). A period the query names
  ("on 1 February, 2023", "last weekend"; read by the curator's time words against the
  search's valid time) is one more such word, held by a candidate said then
  (api/chat/when.py: "what did Gina find on 1 February" is about what she said that
  day, though no message writes the date);
* `named` is 1 when the query names the episode's speaker ("What did Caroline
  research?" and a message Caroline said); the speaker's name then leaves the words
  `lexical` counts for it, since every message of hers "holds" it (the search text of
  an episode begins with its speaker's name).

All three are functions of the query, the candidate and the other candidates, which
are the caller's own rows: never of other owners. BM25 (`fulltext_score`) only chooses
the full-text candidates: its value depends on every owner's texts in the shared index
(document frequencies), so it moves when anyone writes, and would make the order of one
owner's results depend on other owners. Scores are rounded to `DECIMALS` places; ties
are broken by kind (facts first) and id: the same store state and query give the same
answer, in any process. The raw signals are returned with each item (`semantic_score`,
`fulltext_score`, `lexical_score`).

The messages next to the best results are candidates too: an answer often holds none of
the question's words ("Where did you go on the road trip?" / "Woodhaven, a small town in
the Midwest"), and its cosine alone may not make a list's cut. So the first `NEARBY_TOP`
results of that ranking have the messages up to `CONTEXT_REACH` places before and after
them read as well, when no list found them (`nearby`; one more query in the same
transaction, graph/read/episodes.py `episodes_at`), and every candidate is scored again
with them (they lend and borrow context like any other).

Ten results cover ten things said: a fact row and the episode of the message it was drawn
from (or two rows drawn from one message) are one message; only the better-scored of them
is kept (`said_key`), and the page goes on to the next message.

Modes: `hybrid` (an embedder answered) or `fulltext` (no embedder configured, or it
failed: then `degraded` is true and `detail` says why). Never an error for either.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from api.chat.context import Evidence, around, context, semantic_context
from api.chat.lexical import (
    asked,
    content_words,
    held,
    pool_weights,
    speaker_stems,
    stem_set,
    stems,
)
from api.chat.when import WHEN, named_period
from graph.embedding import Embedder, EmbedderUnavailable
from graph.read.episodes import EpisodeHit
from graph.read.reader import Reader
from graph.read.search import Hit
from graph.records import EntityRecord, EpisodeRecord, FactRecord
from graph.scope import Scope
from graph.time import AsOf

W_SEMANTIC = 0.42
"""Weight of the semantic evidence (cosine, clipped at 0) in a hybrid score."""
W_LEXICAL = 0.42
"""Weight of the lexical evidence (weighed share of the query's content words found)."""
W_SPEAKER = 0.16
"""Weight of the query naming the episode's speaker."""
DECIMALS = 6
"""Scores are rounded to this many places before they are compared."""
MAX_CANDIDATES = 200
"""At most this many candidates from each list."""
MIN_CANDIDATES = 50
"""At least this many candidates from each list (a deeper list costs little: every candidate
is scored on its own evidence, and the lists' own orders decide nothing)."""
NEARBY_TOP = 5
"""The best this many results have the messages next to them (up to `CONTEXT_REACH` places
each way) read and scored too, when the lists did not find them (`nearby`)."""


Kind = Literal["fact", "episode"]


@dataclass(frozen=True, slots=True)
class Found:
    """One result of the fused ranking.

    Attributes:
        kind: `fact` or `episode`.
        score: the fused score in [0, 1], higher is better (see the module docstring).
        semantic: (1 + cosine) / 2 against the query, or None (no vector).
        fulltext: BM25 from the full-text list, or None when that list did not find it.
        lexical: the share of the query's content words its text holds, in [0, 1].
        fact: the row (a fact), else None.
        entity: the row's subject entity (a fact), else None.
        episode: the episode (an episode), else None.
    """

    kind: Kind
    score: float
    semantic: float | None
    fulltext: float | None
    lexical: float
    fact: FactRecord | None = None
    entity: EntityRecord | None = None
    episode: EpisodeRecord | None = None

    @property
    def id(self) -> str:
        """The fact's or the episode's id."""
        if self.fact is not None:
            return self.fact.id
        assert self.episode is not None
        return self.episode.id


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a search answers (CONTRACT §10 `GET /v1/search`).

    Attributes:
        items: best first.
        mode: `hybrid` or `fulltext`.
        degraded: True when an embedder is configured but failed for this query.
        detail: why the mode is `fulltext`, for a person; None in `hybrid`.
        model: the embedder's model id, or None.
    """

    items: list[Found]
    mode: str
    degraded: bool
    detail: str | None
    model: str | None


def candidates(limit: int) -> int:
    """Candidates taken from each list for `limit` results: twice as many and at least
    `MIN_CANDIDATES`, so an item moderately placed in a list can still make the cut, at
    most `MAX_CANDIDATES`."""
    return min(max(2 * limit, MIN_CANDIDATES), MAX_CANDIDATES)


def said_key(found: Found) -> tuple[str, ...]:
    """What a result stands for: the message (run id, message id) a fact row was drawn
    from or an episode holds; a row or episode without a message stands for itself."""
    if found.fact is not None:
        run_id, message_id = found.fact.run_id, found.fact.message_id
    else:
        assert found.episode is not None
        run_id, message_id = found.episode.run_id, found.episode.message_id
    if run_id is None or message_id is None:
        return ("id", found.id)
    return ("message", run_id, message_id)


def fused(semantic: float | None, lexical_share: float, hybrid: bool, named: bool = False) -> float:
    """The score of one candidate (module docstring), rounded to `DECIMALS` places.

    Args:
        semantic: (1 + cosine) / 2, or None (no vector for it: no semantic evidence).
        lexical_share: the weighed share of content words found, in [0, 1].
        hybrid: whether the search had a vector.
        named: whether the query names the candidate's speaker.
    """
    if not hybrid:
        return round((1 - W_SPEAKER) * lexical_share + W_SPEAKER * named, DECIMALS)
    cosine = 0.0 if semantic is None else max(2 * semantic - 1, 0.0)
    return round(W_SEMANTIC * cosine + W_LEXICAL * lexical_share + W_SPEAKER * named, DECIMALS)


def nearby(best: list[Found], found: Set[tuple[str, int]]) -> list[tuple[str, int]]:
    """The places (run id, seq) up to `CONTEXT_REACH` messages before and after each episode
    among the first `NEARBY_TOP` of `best` (facts have no place) that are not in `found`
    (the places the lists found), each once: the best result's first, nearer first,
    before then after. "Where did you go on the road trip?" is found by its words; the
    answer after it ("Woodhaven, a small town") holds none of them, and its cosine alone
    may not make the lists' cut."""
    out: dict[tuple[str, int], None] = {}
    for item in best[:NEARBY_TOP]:
        if item.episode is None:
            continue
        for _, place in around(item.episode):
            if place[1] >= 0 and place not in found:
                out[place] = None
    return list(out)


def fuse(
    q: str,
    facts: tuple[list[Hit], list[Hit]],
    episodes: tuple[list[EpisodeHit], list[EpisodeHit]],
    limit: int,
    hybrid: bool,
    at: datetime | None = None,
) -> list[Found]:
    """Score every candidate on its own evidence and keep the `limit` best, one per
    message (`said_key`: the best-scored item of a message stands for it).

    Args:
        q: the query.
        facts: (semantic hits, full-text hits) among fact rows.
        episodes: (semantic hits, full-text hits) among episodes.
        limit: how many results.
        hybrid: whether the search had a vector (else scores are lexical alone).
        at: the search's valid time (aware), which a period the query names is read
            against (api/chat/when.py); None: the query's period is not read.

    Returns:
        Best first; ties by kind (facts first), then id.
    """
    terms = content_words(q)
    # (semantic, bm25, text) of each candidate, whichever lists found it
    seen: dict[tuple[int, str], Evidence] = {}
    rows: dict[tuple[int, str], Hit | EpisodeHit] = {}
    for hits, from_text in ((facts[0], False), (facts[1], True)):
        for h in hits:
            key = (0, h.id)
            seen[key] = _merged(seen.get(key), h.semantic, h.score if from_text else None, h.text)
            rows[key] = h
    for ehits, from_text in ((episodes[0], False), (episodes[1], True)):
        for e in ehits:
            key = (1, e.episode.id)
            seen[key] = _merged(seen.get(key), e.semantic, e.score if from_text else None, e.text)
            rows[key] = e
    have: dict[tuple[int, str], Set[str]] = {k: stem_set(t) for k, (_, _, t) in seen.items()}
    if at is not None:
        terms = _period_term(q, at, terms, rows, have)
    weights = pool_weights(terms, list(have.values()))
    around = context(rows, terms)
    nearer = semantic_context(rows, seen)
    scored: dict[tuple[int, str], tuple[float, float]] = {}  # (score, lexical share)
    for key, (semantic, _, _) in seen.items():
        row = rows[key]
        who = speaker_stems(row.episode.speaker) if isinstance(row, EpisodeHit) else frozenset()
        named = bool(who) and any(t in who for t in terms)
        counted = [t for t in terms if t not in who] or terms
        share = held(counted, have[key], weights, around.get(key))
        scored[key] = (fused(nearer.get(key, semantic), share, hybrid, named), share)
    kept: list[Found] = []
    taken: set[tuple[str, ...]] = set()
    for k in sorted(scored, key=lambda k: (-scored[k][0], k)):  # records decoded for these
        row = rows[k]
        (score, share), (semantic, bm25, _) = scored[k], seen[k]
        if isinstance(row, EpisodeHit):
            found = Found("episode", score, semantic, bm25, share, episode=row.episode)
        else:
            found = Found("fact", score, semantic, bm25, share, row.fact, row.entity)
        said = said_key(found)
        if said not in taken:
            taken.add(said)
            kept.append(found)
            if len(kept) == limit:
                break
    return kept


def _period_term(
    q: str,
    at: datetime,
    terms: list[str],
    rows: dict[tuple[int, str], Hit | EpisodeHit],
    have: dict[tuple[int, str], Set[str]],
) -> list[str]:
    """`terms` with the words of the period `q` names (api/chat/when.py) replaced by the
    one term `WHEN`, added to the stems `have` of each candidate said (an episode) or
    true from (a fact) within it; `terms` as they are when `q` names no period."""
    when = named_period(q, at)
    if when is None:
        return terms
    named = set(stems(sorted(when.words)))
    for key, row in rows.items():
        if when.holds(row.episode.said_at if isinstance(row, EpisodeHit) else row.valid_from):
            have[key] = have[key] | {WHEN}
    return [t for t in terms if t not in named] + [WHEN]


def _merged(
    seen: Evidence | None, semantic: float | None, bm25: float | None, text: str | None
) -> Evidence:
    """(cosine evidence, BM25, text) of a candidate another list may have found already."""
    if seen is None:
        return semantic, bm25, text
    return (
        semantic if semantic is not None else seen[0],
        bm25 if bm25 is not None else seen[1],
        text if text is not None else seen[2],
    )


def search(
    reader: Reader, embedder: Embedder | None, scope: Scope, q: str, as_of: AsOf, limit: int
) -> Outcome:
    """Search the facts and episodes `scope` sees at `as_of` for `q`.

    Args:
        reader: the read side.
        embedder: the process's embedder, or None (full-text only).
        scope: who reads (graph/scope.py); the caller has refused a closed one.
        q: the query text, non-blank.
        as_of: the point on both axes (CONTRACT §2, §12).
        limit: how many results.

    The query is embedded first (outside any transaction); the four lists (`Reader.recall`:
    one query when the owner's vectors are held in this process), and then the messages
    next to the best results (`nearby`), are read in one READ transaction, so they see the
    same store state.

    Raises:
        StoreUnavailable: Neo4j could not be reached.
    """
    n = candidates(limit)
    vector, failure = None, None
    if embedder is not None:
        try:
            vector = embedder.embed([q])[0]
        except EmbedderUnavailable as exc:
            failure = exc
    model = embedder.model if embedder is not None else None
    hybrid = vector is not None
    with reader.snapshot() as snap:  # every list from one consistent view
        lists = snap.recall(scope, asked(q), as_of, n, vector, model)
        said_near, said_text = lists.said_near, lists.said_text
        facts, episodes = (lists.fact_near, lists.fact_text), (said_near, said_text)
        best = fuse(q, facts, episodes, max(limit, NEARBY_TOP), hybrid, as_of.valid_at)
        found = {(e.episode.run_id, e.episode.seq) for e in said_near + said_text}
        beside = snap.episodes_at(scope, nearby(best, found), as_of, vector, model)
    if beside:  # scored with the rest: they change which words are rare among them
        best = fuse(q, facts, (said_near + beside, said_text), limit, hybrid, as_of.valid_at)
    items = best[:limit]
    if embedder is None:
        return Outcome(
            items,
            "fulltext",
            False,
            "No embedder is configured (WORLDSTATE_EMBEDDER=none): full-text results only.",
            None,
        )
    if failure is not None:
        return Outcome(
            items,
            "fulltext",
            True,
            f"Semantic recall is unavailable right now ({failure}): full-text results only.",
            embedder.model,
        )
    return Outcome(items, "hybrid", False, None, embedder.model)
