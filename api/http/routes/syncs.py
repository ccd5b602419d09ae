"""Integration syncs: observations applied at once, full snapshots archive (CONTRACT §4, §5)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import APIRouter, Request, Response

from api.http.deps import WriteOwner
from api.http.openapi import SECRET_REFUSED
from api.http.schemas.audit import SyncIn, SyncOut
from api.http.write_deps import CommitterDep
from committer.proposals import EntityRef
from committer.secrets import refuse_secret_ids
from curator.propose import review_observations
from graph.errors import InvalidInput
from graph.time import utcnow

router = APIRouter(prefix="/v1/syncs", tags=["syncs"])


@router.post(
    "",
    status_code=201,
    response_model=SyncOut,
    responses={
        200: {"model": SyncOut, "description": "The same sync again: its stored outcome."},
        **SECRET_REFUSED,
    },
)
def post_sync(
    body: SyncIn, owner: WriteOwner, committer: CommitterDep, request: Request, response: Response
) -> SyncOut:
    """Apply an integration sync: `{id, integration, full_snapshot?, at?, observations}`.

    Observations have the shape of `POST /v1/runs` observations (`integration` defaults
    to the sync's and must match it). They are reviewed by the risk policy like a run's
    (clear ones committed, the rest held for the person in the main chat) and applied
    synchronously by the committer, in one transaction: a sync is not queued. Every
    entity an observation names is marked as reported by the integration (an archived
    one comes back); with `full_snapshot: true`, entities the integration reported
    before and not now are archived (kept with their facts, in history and time travel,
    left out of prefetch; CONTRACT §5). The sync id is its event id
    (`GET /v1/events/{id}/effects`).

    Returns 201 `{id, integration, full_snapshot, status: "applied", proposals,
    committed, held, archived: [entity id], unarchived: [entity id]}`; posting the same
    sync again changes nothing and answers 200 with the same body. Errors: 409 the id
    was used by a run, or by a sync with other content; 422 an observation of another
    integration, over the bounds, or an id in words that carries a secret (CONTRACT §3).
    Needs scope `write`.
    """
    refuse_secret_ids({"id": body.id})
    raw: list[dict[str, Any]] = []
    refs: list[EntityRef] = []
    for i, o in enumerate(body.observations):
        if o.integration is not None and o.integration != body.integration:
            raise InvalidInput(
                f"observations.{i}.integration",
                f"must be the sync's integration {body.integration!r}",
            )
        raw.append({**o.model_dump(mode="python"), "integration": body.integration})
        refs.extend(EntityRef(name=r.name, kind=r.kind) for r in (o.entity, o.object) if r)
    settings = request.app.state.settings
    reviewed = review_observations(
        owner,
        raw,
        body.id,
        body.at or utcnow(),
        threshold=settings.auto_commit_threshold,
        privileged=settings.privileged_areas,
    )
    canonical = json.dumps(body.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    outcome = committer.apply_sync(
        owner,
        sync_id=body.id,
        integration=body.integration,
        full_snapshot=body.full_snapshot,
        digest=hashlib.sha256(canonical.encode()).hexdigest(),
        reviewed=reviewed,
        refs=refs,
    )
    if not outcome.created:
        response.status_code = 200
    return SyncOut(
        id=outcome.id,
        integration=outcome.integration,
        full_snapshot=outcome.full_snapshot,
        status="applied",
        proposals=outcome.proposals,
        committed=outcome.committed,
        held=outcome.held,
        archived=list(outcome.archived),
        unarchived=list(outcome.unarchived),
    )
