"""The owner itself: export (issue 13, data portability) and erasure (CONTRACT §9, §10
`DELETE /v1/owners/me`)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from api.http.deps import AdminOwner, ReaderDep
from api.http.schemas.core import Erased
from api.http.write_deps import CommitterDep
from graph.read.export import export_lines

router = APIRouter(prefix="/v1/owners", tags=["owners"])
log = logging.getLogger("worldstate.api")


@router.get(
    "/me/export",
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {}}}},
)
def export_me(owner: AdminOwner, reader: ReaderDep) -> StreamingResponse:
    """Stream every row of the caller's owner as JSON Lines (issue 13; the format is in
    graph/portable.py and README "Export and import"): entities and their name versions,
    fact rows with both time axes, corroborations, proposals, suppressions,
    notifications, merge suggestions, runs, chats, events and their links, groups,
    memberships, shares, tokens (never their secrets), and episodes where they exist.
    Read page by page (1,000 nodes per READ transaction), so memory stays bounded. The
    last line is `{"end": true, "counts": {...}, "changed_during_export": bool}`; a stream
    without it was cut short. Restore it with `worldstate owner import`. Needs `admin`.
    """

    def lines() -> Iterator[str]:
        for line in export_lines(reader, owner):
            yield line + "\n"

    return StreamingResponse(
        lines(),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": 'attachment; filename="worldstate-export.jsonl"'},
    )


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
