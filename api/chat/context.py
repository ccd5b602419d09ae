"""An episode read in its context (api/chat/search.py): what was said up to `CONTEXT_REACH`
messages before and after it in its run, among the search's own candidates.

A reply often holds none of a question's words ("Did you go to the support group?" /
"Yes, last Friday!"): its neighbours lend it their words (`context`) and their nearness
to the query (`semantic_context`), discounted by `W_CONTEXT` per place away. Pure
functions of the candidates, which are the caller's own rows; nothing else is read.
"""

from __future__ import annotations

from api.chat.lexical import stem_set
from graph.read.episodes import EpisodeHit
from graph.read.search import Hit
from graph.records import EpisodeRecord

W_CONTEXT = 0.6
"""What a query word held only by a message next to an episode counts for in its lexical
evidence, against 1 for a word it holds itself; each further place away multiplies it by
`W_CONTEXT` again, up to `CONTEXT_REACH` places."""
CONTEXT_REACH = 2
"""How many places before and after an episode in its run its context reaches."""
Evidence = tuple[float | None, float | None, str | None]
"""A candidate's (semantic, BM25, search text), as the lists found it."""


def around(episode: EpisodeRecord) -> list[tuple[int, tuple[str, int]]]:
    """(distance, place) of the places (run id, seq) up to `CONTEXT_REACH` messages before
    and after `episode` in its run, nearer first, before then after: the neighbourhood
    `context`, `semantic_context` and `nearby` read."""
    run_id, seq = episode.run_id, episode.seq
    return [
        (distance, place)
        for distance in range(1, CONTEXT_REACH + 1)
        for place in ((run_id, seq - distance), (run_id, seq + distance))
    ]


def context(
    rows: dict[tuple[int, str], Hit | EpisodeHit], terms: list[str] | None = None
) -> dict[tuple[int, str], dict[str, float]]:
    """What was said near each episode candidate, among the candidates: the stems of the
    words (not the speaker) of the candidates up to `CONTEXT_REACH` messages before or
    after it in its run (only those in `terms`, when given), each with what it counts for
    there, `W_CONTEXT` to the power of its distance (the nearest message holding it
    decides). A message the search did not find lends nothing; the candidates are the
    caller's own, as of the search, so nothing else is read."""
    wanted = None if terms is None else set(terms)
    at: dict[tuple[str, int], list[EpisodeRecord]] = {}
    for row in rows.values():
        if isinstance(row, EpisodeHit):
            at.setdefault((row.episode.run_id, row.episode.seq), []).append(row.episode)
    said: dict[tuple[str, int], set[str]] = {}  # the stems said at a place, read once

    def stems_at(place: tuple[str, int]) -> set[str]:
        if place not in said:
            found = set().union(*(stem_set(e.text) for e in at[place]))
            said[place] = found if wanted is None else found & wanted
        return said[place]

    out: dict[tuple[int, str], dict[str, float]] = {}
    for key, row in rows.items():
        if not isinstance(row, EpisodeHit):
            continue
        lent: dict[str, float] = {}
        for distance, place in reversed(around(row.episode)):  # the nearer overwrites
            if place in at:
                lent.update(dict.fromkeys(stems_at(place), W_CONTEXT**distance))
        if lent:
            out[key] = lent
    return out


def semantic_context(
    rows: dict[tuple[int, str], Hit | EpisodeHit], seen: dict[tuple[int, str], Evidence]
) -> dict[tuple[int, str], float]:
    """The semantic evidence of each episode candidate read in its context, as `context`
    reads its words: a candidate up to `CONTEXT_REACH` messages before or after it in its
    run whose cosine to the query is higher lends `W_CONTEXT` to the power of its distance
    of the difference (the largest lent counts). "Did you go to the support group?" is
    near a query about the group; "Yes, last Friday!" is near it through the question.
    Cosines are clipped at 0, as in `fused`; returned as (1 + cosine) / 2, for the
    episodes lent something only (the others keep their own)."""
    best: dict[tuple[str, int], float] = {}  # the highest cosine said at a place
    for key, row in rows.items():
        semantic = seen[key][0]
        if isinstance(row, EpisodeHit) and semantic is not None:
            place = (row.episode.run_id, row.episode.seq)
            best[place] = max(best.get(place, 0.0), 2 * semantic - 1)
    out: dict[tuple[int, str], float] = {}
    for key, row in rows.items():
        semantic = seen[key][0]
        if not isinstance(row, EpisodeHit) or semantic is None:
            continue
        own = max(2 * semantic - 1, 0.0)
        lent = max(
            (
                W_CONTEXT**distance * (best[place] - own)
                for distance, place in around(row.episode)
                if place in best
            ),
            default=0.0,
        )
        if lent > 0:
            out[key] = (1 + own + lent) / 2
    return out
