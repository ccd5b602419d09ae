"""Merge suggestions and merges (CONTRACT §4 "Merge suggestions", §5, §10)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from api.http.deps import CurateOwner, PathId, ReaderDep, ReadOwner
from api.http.schemas.core import EntityPublic
from api.http.schemas.proposals import (
    MergeIn,
    MergeOut,
    MergeSuggestionList,
    MergeSuggestionPublic,
    SuggestionConfirmed,
)
from api.http.write_deps import CommitterDep
from committer.merge import MergeResult

router = APIRouter(prefix="/v1", tags=["merges"])


def _out(result: MergeResult) -> dict[str, object]:
    return {
        "entity": EntityPublic.of(result.survivor),
        "merged": EntityPublic.of(result.loser),
        "moved": result.moved,
        "conflicts": list(result.conflicts),
        "event_id": result.event_id,
    }


@router.get("/merge-suggestions", response_model=MergeSuggestionList)
def list_suggestions(
    owner: ReadOwner,
    reader: ReaderDep,
    status: Annotated[Literal["open", "confirmed", "declined"] | None, Query()] = "open",
) -> MergeSuggestionList:
    """Merge suggestions, oldest first (open ones unless `status` says otherwise).
    Returns `{items: [{id, entity_ids: [a, b], reason, score, status}]}`. Needs `read`."""
    return MergeSuggestionList(
        items=[MergeSuggestionPublic.of(s) for s in reader.suggestions(owner, status)]
    )


@router.post("/merge-suggestions/{suggestion_id}/confirm", response_model=SuggestionConfirmed)
def confirm(
    suggestion_id: PathId, owner: CurateOwner, committer: CommitterDep
) -> SuggestionConfirmed:
    """Confirm: the younger entity merges into the older (the owner's own entity always
    survives), CONTRACT §5. Returns the suggestion and the merge's outcome.
    Errors: 404 unknown id; 409 not open, or an entity was merged since. Needs `curate`."""
    suggestion, result = committer.confirm_suggestion(owner, suggestion_id)
    return SuggestionConfirmed(suggestion=MergeSuggestionPublic.of(suggestion), **_out(result))


@router.post("/merge-suggestions/{suggestion_id}/decline", response_model=MergeSuggestionPublic)
def decline(
    suggestion_id: PathId, owner: CurateOwner, committer: CommitterDep
) -> MergeSuggestionPublic:
    """Decline: recorded, and the pair is never suggested again (CONTRACT §4).
    Errors: 404 unknown id; 409 not open. Needs scope `curate`."""
    return MergeSuggestionPublic.of(committer.decline_suggestion(owner, suggestion_id))


@router.post("/entities/{entity_id}/merge", response_model=MergeOut)
def merge(
    entity_id: PathId, body: MergeIn, owner: CurateOwner, committer: CommitterDep
) -> MergeOut:
    """Merge this entity into `into` (CONTRACT §5): its current facts move to `into`
    (deduplicated; a conflicting `one` value becomes a pending proposal and a conflict
    notification), relationships that pointed at it point at `into`, its names become
    aliases of `into`, and it is kept with `merged_into`.
    Errors: 404 unknown entity; 409 already merged, or it is the owner's own entity;
    422 `into` is the entity itself. Needs scope `curate`."""
    return MergeOut(**_out(committer.merge(owner, entity_id, body.into)))
