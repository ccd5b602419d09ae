"""The owner itself: erasure (CONTRACT §9, §10 `DELETE /v1/owners/me`)."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Query, Request

from api.http.deps import AdminOwner
from api.http.schemas.core import Erased
from api.http.write_deps import CommitterDep

router = APIRouter(prefix="/v1/owners", tags=["owners"])
log = logging.getLogger("worldstate.api")


@router.delete("/me", response_model=Erased)
def erase_me(
    request: Request,
    owner: AdminOwner,
    committer: CommitterDep,
    confirm: Annotated[str, Query(max_length=200, description="the owner's name, exactly")],
) -> Erased:
    """Erase every node and relationship of the caller's owner, for privacy law (CONTRACT §9).

    The only hard delete: facts with their whole history, entities, proposals,
    notifications, runs, chats, tokens (this one included), groups it created, its
    memberships and shares. Nothing of another owner is touched. Deleted in batches;
    `remaining` counts, on every label, what still carries the owner afterwards.
    Returns `{removed: n, remaining: 0}`. Errors: 422 naming `confirm` when it is
    missing or not the owner's name (nothing deleted); 403 without scope `admin`.
    """
    result = committer.erase_owner(owner, confirm)
    request.app.state.token_cache.forget_owner(owner)
    if result.remaining:
        log.error(
            "erasure of %s left %d nodes: a label is missing from OWNED_LABELS",
            owner,
            result.remaining,
        )
    return Erased(removed=result.removed, remaining=result.remaining)
