"""Memory access per chat and the owner's default (CONTRACT §7, §10).

Stored through the committer; enforced in the read layer (graph/scope.py, resolved per
request by `api.http.deps.ScopeDep` from a read's `chat_id`). The curator honours `none`: a
run from such a chat is `skipped` unread (§4).

Setting it needs scope `admin`: an assistant holds `read` (and `write` to post runs),
and must not be able to lift its own chat's clean room.
"""

from __future__ import annotations

from fastapi import APIRouter

from api.http.deps import AdminOwner, PathId, ReaderDep, ReadOwner
from api.http.openapi import SECRET_REFUSED
from api.http.schemas.core import MemoryAccessIn, MemoryAccessPublic
from api.http.write_deps import CommitterDep
from committer.secrets import refuse_secret_ids
from graph.records import MemoryAccess

router = APIRouter(tags=["memory access"])


def _public(access: MemoryAccess) -> MemoryAccessPublic:
    return MemoryAccessPublic(
        mode=access.mode,
        areas=list(access.areas),
        sources=list(access.sources),
        origin=access.origin,
    )


def _store(
    committer: CommitterDep, owner: str, chat_id: str | None, body: MemoryAccessIn
) -> MemoryAccessPublic:
    access = committer.set_memory_access(
        owner,
        chat_id,
        body.mode,
        list(dict.fromkeys(body.areas or ())),
        list(dict.fromkeys(body.sources or ())),
    )
    return _public(access)


@router.put(
    "/v1/chats/{chat_id}/memory-access", response_model=MemoryAccessPublic, responses=SECRET_REFUSED
)
def put_chat_access(
    chat_id: PathId, body: MemoryAccessIn, owner: AdminOwner, committer: CommitterDep
) -> MemoryAccessPublic:
    """Set one chat's memory access, overriding the owner's default.

    Body: `{mode: none|restricted|full, areas?: [str], sources?: [str]}`; under
    `restricted` an omitted list is empty and lets nothing through. Returns the stored
    setting. Errors: 422 naming the field (unknown mode, bad list, a list that names
    anything with mode `full` or `none`: the lists apply only under `restricted`).
    A chat id written in words that carries a secret is refused, 422 naming `chat_id`
    (it is stored as given; CONTRACT §3). Needs scope `admin`.
    """
    refuse_secret_ids({"chat_id": chat_id})
    return _store(committer, owner, chat_id, body)


@router.get("/v1/chats/{chat_id}/memory-access", response_model=MemoryAccessPublic)
def get_chat_access(chat_id: PathId, owner: ReadOwner, reader: ReaderDep) -> MemoryAccessPublic:
    """A chat's effective memory access: its own, else the owner's default, else `full`.

    `origin` says which. Any chat id answers (a chat never configured inherits).
    Needs scope `read`.
    """
    return _public(reader.memory_access(owner, chat_id))


@router.put("/v1/profile/memory-access", response_model=MemoryAccessPublic)
def put_profile_access(
    body: MemoryAccessIn, owner: AdminOwner, committer: CommitterDep
) -> MemoryAccessPublic:
    """Set the owner's default memory access, for every chat without its own.

    Body and errors as for a chat. Needs scope `admin`.
    """
    return _store(committer, owner, None, body)


@router.get("/v1/profile/memory-access", response_model=MemoryAccessPublic)
def get_profile_access(owner: ReadOwner, reader: ReaderDep) -> MemoryAccessPublic:
    """The owner's default memory access (`full` with origin `default` when never set).

    Needs scope `read`.
    """
    return _public(reader.memory_access(owner, None))
