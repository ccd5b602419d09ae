"""Facts: assert, list as of a point, forget, retract (CONTRACT §2.1, §2.2, §10)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from api.chat import tools
from api.chat.routes.pull import CallerDep
from api.http.deps import AsOfDep, CurateOwner, PathId, ReaderDep, ScopeDep, WriteOwner
from api.http.openapi import SECRET_REFUSED
from api.http.schemas.core import (
    CorroborationPublic,
    FactCreate,
    FactCreated,
    FactDeleted,
    FactDetail,
    FactList,
    FactPublic,
)
from api.http.write_deps import CommitterDep
from committer.proposals import Assertion, Provenance

router = APIRouter(prefix="/v1", tags=["facts"])


@router.post(
    "/entities/{entity_id}/facts",
    status_code=201,
    response_model=FactCreated,
    responses=SECRET_REFUSED,
)
def assert_fact(
    entity_id: PathId, body: FactCreate, owner: WriteOwner, committer: CommitterDep
) -> FactCreated:
    """Assert a fact on an entity, with source `user_edit` (CONTRACT §2.1 rules 1-4).

    Body: `{attribute, value | object_id, valid_from?, valid_to?, cardinality?, evidence?,
    reason?}`; `valid_from` defaults to the commit time, `valid_to` to open.
    Returns 201 `{fact, effect: created|duplicate|superseded, superseded: [id]}`.
    Errors: 404 unknown entity or object; 422 naive timestamp, empty window, not
    exactly one of value/object_id, or a secret in the value (read under its attribute:
    `bank_pin` 4821), evidence or reason (never stored). Needs scope `write`.
    """
    assertion = Assertion(
        entity_id=entity_id,
        attribute=body.attribute,
        value=body.value,
        object_id=body.object_id,
        valid_from=body.valid_from,
        valid_to=body.valid_to,
        cardinality=body.cardinality,
        provenance=Provenance(source="user_edit", evidence=body.evidence, reason=body.reason),
    )
    result = committer.assert_fact(owner, assertion)
    return FactCreated(
        fact=FactPublic.of(result.fact),
        effect=result.effect,
        superseded=list(result.superseded),
        event_id=result.event_id,
    )


@router.get("/entities/{entity_id}/facts", response_model=FactList)
def list_facts(entity_id: PathId, caller: CallerDep, reader: ReaderDep, as_of: AsOfDep) -> Any:
    """The entity's rows visible at `(valid_at, known_at)`, both defaulting to now (CONTRACT §2).

    With `chat_id`, that chat's memory access applies (CONTRACT §7): `none` answers 403,
    `restricted` leaves out the facts its lists do not allow. A merged id reads its
    survivor and says so
    (`entity_id`, `merged_from`: CONTRACT §5); with `known_at` before the merge, its own
    rows as they were. The read tool `current_facts` (api/chat/tools.py). Errors: 404
    entity not visible; 422 naive time. Needs scope `read`.
    """
    return tools.current_facts(reader, caller, entity_id, as_of.valid_at, as_of.known_at)


@router.get("/facts/{fact_id}", response_model=FactDetail)
def get_fact(fact_id: PathId, scope: ScopeDep, reader: ReaderDep) -> FactDetail:
    """One row by id, whatever its axes (a retracted row shows its `retracted_at`), with
    `corroborations`: later assertions of the same value that it already covered.

    `chat_id`: the asking chat's memory access applies (a row it keeps out is a 404,
    `none` is a 403). Errors: 404 when the row is neither the owner's nor on an entity
    shared with it (as known at `known_at`, default now).
    """
    row = FactPublic.of(reader.fact(scope, fact_id))
    extra = [CorroborationPublic(**c) for c in reader.corroborations(scope, fact_id)]
    return FactDetail(**row.model_dump(), corroborations=extra)


@router.delete("/facts/{fact_id}", response_model=FactDeleted)
def delete_fact(
    fact_id: PathId,
    owner: CurateOwner,
    committer: CommitterDep,
    mode: Annotated[Literal["forget", "retract"], Query()] = "forget",
) -> FactDeleted:
    """Forget (default) or retract a fact (CONTRACT §2.2).

    Forget: it no longer holds from now; the row is recorded again as `invalidated`
    ending now (none if it would start at or after now). Retract: it was never true;
    values it superseded come back. Returns `{retracted: [id], fact: Fact | null}`.
    Errors: 404 unknown id; 409 the row is already retracted. Needs scope `curate`.
    """
    if mode == "retract":
        result = committer.retract(owner, fact_id)
    else:
        result = committer.forget(owner, fact_id)
    return FactDeleted(
        retracted=list(result.retracted),
        fact=None if result.fact is None else FactPublic.of(result.fact),
        event_id=result.event_id,
    )
