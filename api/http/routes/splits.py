"""Splitting an entity (CONTRACT §5 "Split", §10)."""

from __future__ import annotations

from fastapi import APIRouter

from api.http.deps import CurateOwner, PathId
from api.http.openapi import SECRET_REFUSED
from api.http.schemas.audit import SplitIn
from api.http.schemas.core import EntityPublic
from api.http.write_deps import CommitterDep

router = APIRouter(prefix="/v1/entities", tags=["merges"])


@router.post(
    "/{entity_id}/split", status_code=201, response_model=EntityPublic, responses=SECRET_REFUSED
)
def split(
    entity_id: PathId, body: SplitIn, owner: CurateOwner, committer: CommitterDep
) -> EntityPublic:
    """Move chosen facts (and aliases) off an entity into a new one: `{fact_ids, name,
    aliases?}` -> 201 Entity, the new one (CONTRACT §5).

    `fact_ids` are current rows about the entity, or pointing at it (those then point at
    the new entity). Each is retracted and recorded again on the new entity (same kind
    and area) through the committer's rules, keeping its window, status and provenance;
    time travel before the split sees them where they were. `aliases` of the entity move
    too (an alias spelled like `name` always does). One `split` action records it
    (CONTRACT §8). Splitting back what a merge brought (its `event_id`'s effects) undoes
    the merge; merging the new entity back undoes the split.
    Errors: 404 unknown entity or fact id; 422 nothing chosen, a row not current or not
    about the entity, an alias the entity does not have, a `name` that carries a secret
    (never stored). Needs scope `curate`.
    """
    result = committer.split(owner, entity_id, body.fact_ids, body.name, body.aliases)
    return EntityPublic.of(result.entity)
