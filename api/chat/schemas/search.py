"""Response models of `GET /v1/search` (CONTRACT §10, §12): facts and episodes in one ranking.

Every item has `kind`: `fact` items keep the shape `{fact, entity, score, ...}`, episode
items are `{kind, episode, score, ...}`. Both carry the raw evidence the score is made of
(api/chat/search.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, Field

from api.http.schemas.core import EntityPublic, FactPublic
from api.http.schemas.episodes import EpisodePublic

if TYPE_CHECKING:
    from api.chat.search import Found, Outcome

SCORE = (
    "the fused score in [0, 1], higher is better: 0.42 x max(cosine, 0) + 0.42 x lexical_score "
    "+ 0.16 when the query names the episode's speaker (hybrid), or 0.84 x lexical_score + "
    "0.16 x named (fulltext mode)"
)
SEMANTIC = "(1 + cosine) / 2 against the query, or null without a vector (fulltext mode)"
FULLTEXT = (
    "BM25 from the full-text index, or null when the full-text list did not find it "
    "(chooses candidates only: BM25 depends on every owner's texts, so it is not part of score)"
)
LEXICAL = (
    "the share of the query's content words (question words left out, English stems, each "
    "weighed by its rarity among the candidates) its text holds"
)


class FactItem(BaseModel):
    """A fact result: a row, its entity, its score and the evidence behind it."""

    kind: Literal["fact"] = "fact"
    fact: FactPublic
    entity: EntityPublic
    score: float = Field(description=SCORE)
    semantic_score: float | None = Field(description=SEMANTIC)
    fulltext_score: float | None = Field(description=FULLTEXT)
    lexical_score: float = Field(description=LEXICAL)


class EpisodeItem(BaseModel):
    """An episode result: what was said (CONTRACT §12), its score and the evidence."""

    kind: Literal["episode"] = "episode"
    episode: EpisodePublic
    score: float = Field(description=SCORE)
    semantic_score: float | None = Field(description=SEMANTIC)
    fulltext_score: float | None = Field(description=FULLTEXT)
    lexical_score: float = Field(description=LEXICAL)


SearchItem = Annotated[FactItem | EpisodeItem, Field(discriminator="kind")]


class SearchOut(BaseModel):
    """`GET /v1/search` response."""

    items: list[SearchItem]
    mode: Literal["hybrid", "fulltext"] = Field(
        description="hybrid: semantic and full-text; fulltext: full-text only (see detail)"
    )
    degraded: bool = Field(description="true when the configured embedder failed for this query")
    detail: str | None = Field(description="why the mode is fulltext, or null")
    embedder: str | None = Field(description="the embedding model's id, or null")

    @classmethod
    def of(cls, outcome: Outcome) -> SearchOut:
        """The public shape of a search outcome (api/chat/search.py), for REST and MCP alike."""
        return cls(
            items=[_item(f) for f in outcome.items],
            mode=outcome.mode,
            degraded=outcome.degraded,
            detail=outcome.detail,
            embedder=outcome.model,
        )


def _item(f: Found) -> FactItem | EpisodeItem:
    evidence = {
        "score": f.score,
        "semantic_score": f.semantic,
        "fulltext_score": f.fulltext,
        "lexical_score": f.lexical,
    }
    if f.episode is not None:
        return EpisodeItem(episode=EpisodePublic.of(f.episode), **evidence)
    assert f.fact is not None and f.entity is not None
    return FactItem(fact=FactPublic.of(f.fact), entity=EntityPublic.of(f.entity), **evidence)
