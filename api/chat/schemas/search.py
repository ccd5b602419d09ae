"""Response models of `GET /v1/search` (CONTRACT §10: `{items: [{fact, entity, score}]}`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from api.http.schemas.core import EntityPublic, FactPublic

if TYPE_CHECKING:
    from api.chat.search import Outcome


class SearchItem(BaseModel):
    """One result: a fact row, its entity, and its fused score."""

    fact: FactPublic
    entity: EntityPublic
    score: float = Field(description="reciprocal rank fusion of the two lists; higher is better")
    semantic_score: float | None = Field(
        description="(1 + cosine) / 2 against the query, or null when not a semantic hit"
    )
    fulltext_score: float | None = Field(
        description="full-text (BM25) score, or null when not a full-text hit"
    )


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
            items=[
                SearchItem(
                    fact=FactPublic.of(f.fact),
                    entity=EntityPublic.of(f.entity),
                    score=f.score,
                    semantic_score=f.semantic,
                    fulltext_score=f.fulltext,
                )
                for f in outcome.items
            ],
            mode=outcome.mode,
            degraded=outcome.degraded,
            detail=outcome.detail,
            embedder=outcome.model,
        )
