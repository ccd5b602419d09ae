"""Proposals the person keeps or discards, over REST and from chat (CONTRACT §3, §10)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from api.http.cursors import cursor_row
from api.http.deps import ChatIdQuery, CurateOwner, PathId, ReaderDep, ReadOwner
from api.http.schemas.core import FactPublic
from api.http.schemas.proposals import (
    ProposalDiscarded,
    ProposalKept,
    ProposalList,
    ProposalPublic,
    ReplyIn,
    ReplyOut,
)
from api.http.write_deps import CommitterDep
from curator.replies import read_reply
from graph.fields import MAX_PAGE

router = APIRouter(prefix="/v1", tags=["proposals"])


@router.get("/proposals", response_model=ProposalList)
def list_proposals(
    owner: ReadOwner,
    reader: ReaderDep,
    status: Annotated[Literal["pending", "kept", "discarded", "committed"] | None, Query()] = None,
    chat_id: ChatIdQuery = None,
    run_id: Annotated[str | None, Query(max_length=200)] = None,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> ProposalList:
    """The owner's proposals, oldest first, filtered by `status`, `chat_id`, `run_id`.

    Returns `{items: [Proposal], next}`; pass `next` as `cursor` for the next page.
    Errors: 422 when `cursor` is not one this list gave; 422 on a bad
    filter. Needs scope `read`.
    """
    after = None if cursor is None else cursor_row(lambda: reader.proposal(owner, cursor))
    found = reader.proposals(
        owner, status=status, chat_id=chat_id, run_id=run_id, after=after, limit=limit + 1
    )
    page = found[:limit]
    return ProposalList(
        items=[ProposalPublic.of(p) for p in page], next=page[-1].id if len(found) > limit else None
    )


@router.get("/proposals/{proposal_id}", response_model=ProposalPublic)
def get_proposal(proposal_id: PathId, owner: ReadOwner, reader: ReaderDep) -> ProposalPublic:
    """One proposal. 404 if it is not the owner's. Needs scope `read`."""
    return ProposalPublic.of(reader.proposal(owner, proposal_id))


@router.post("/proposals/{proposal_id}/keep", response_model=ProposalKept)
def keep_proposal(proposal_id: PathId, owner: CurateOwner, committer: CommitterDep) -> ProposalKept:
    """Keep a pending proposal: the committer writes it, with the proposal's source
    (CONTRACT §3). Returns `{proposal, fact}` (`fact` null for an `end` that found
    nothing to end). Errors: 404 unknown id; 409 not pending. Needs scope `curate`.
    """
    proposal, fact = committer.keep_proposal(owner, proposal_id, by="rest")
    return ProposalKept(
        proposal=ProposalPublic.of(proposal), fact=None if fact is None else FactPublic.of(fact)
    )


@router.post("/proposals/{proposal_id}/discard", response_model=ProposalDiscarded)
def discard_proposal(
    proposal_id: PathId, owner: CurateOwner, committer: CommitterDep
) -> ProposalDiscarded:
    """Discard a pending proposal; its normalized assertion is suppressed, so the curator
    never proposes it again in any chat of the owner (CONTRACT §3). Returns
    `{proposal}`. Errors: 404 unknown id; 409 not pending. Needs scope `curate`.
    """
    return ProposalDiscarded(
        proposal=ProposalPublic.of(committer.discard_proposal(owner, proposal_id, by="rest"))
    )


@router.post("/chats/{chat_id}/replies", response_model=ReplyOut)
def reply(
    chat_id: PathId, body: ReplyIn, owner: CurateOwner, reader: ReaderDep, committer: CommitterDep
) -> ReplyOut:
    """Read a short reply ("yes", "no", "keep the first one", "forget it") against the
    proposals last surfaced in this chat: the pending proposals of its most recently
    curated run that still has any (CONTRACT §3, table in `curator.replies`).

    Returns `{understood, kept, discarded, pending, detail}`; a reply it cannot read
    changes nothing and `detail` says so. Needs scope `curate`.
    """
    surfaced = reader.last_surfaced(owner, chat_id)
    ids = [p.id for p in surfaced]
    if not surfaced:
        return ReplyOut(
            understood=False,
            kept=[],
            discarded=[],
            pending=[],
            detail="There is nothing waiting for an answer in this chat.",
        )
    reading = read_reply(body.text, len(surfaced))
    if not reading.understood:
        return ReplyOut(
            understood=False,
            kept=[],
            discarded=[],
            pending=ids,
            detail="I could not read that as a yes or no; nothing changed.",
        )
    kept, discarded = committer.resolve(
        owner,
        [ids[i] for i in reading.keep],
        [ids[i] for i in reading.discard],
        by=f"chat:{chat_id}",
    )
    left = [i for i in ids if i not in kept and i not in discarded]
    return ReplyOut(
        understood=True,
        kept=kept,
        discarded=discarded,
        pending=left,
        detail=f"kept {len(kept)}, discarded {len(discarded)}, {len(left)} still pending",
    )
