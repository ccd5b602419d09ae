"""Knowledge documents and the gated `remember` (CONTRACT §14).

A document is Markdown with a path-like `name`, a `description` and a body, held by the
caller (`group` absent) or by a group it belongs to (`?group=`). Every edit is a new version
in transaction time: `?known_at=` reads it as it was, `/versions` lists every version with
who changed it and why, `/restore` undoes. Reads go through api/chat/knowledge.py (the same
functions as the MCP tools); writes through the committer, one transaction each.

Scopes: reads `read`; edits `write`, and a group's documents need `curate` too (a team's
knowledge is curated; `remember` is the gated way for an assistant). `POST
/v1/knowledge/remember` takes any token: the gate itself refuses (and logs) a token without
`curate`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request

from api.chat import knowledge as read
from api.chat.tools import Caller
from api.http.deps import (
    AdminOwner,
    ChatIdQuery,
    KnownAtDep,
    Principal,
    PrincipalDep,
    ReaderDep,
    ReadOwner,
    WriteOwner,
)
from api.http.openapi import SECRET_REFUSED
from api.http.schemas.knowledge import (
    AccessLogList,
    AccessLogPublic,
    DocumentList,
    DocumentPublic,
    DocumentPut,
    DocumentWrite,
    RememberIn,
    RememberOut,
    RestoreIn,
    VersionList,
)
from api.http.write_deps import CommitterDep
from committer.holders import Author
from committer.remember import RememberCall, SurfacePolicy
from graph.errors import Forbidden, InvalidInput
from graph.fields import MAX_PAGE
from graph.held import MAX_DOC_NAME
from graph.time import from_micros

router = APIRouter(prefix="/v1", tags=["knowledge"])

Name = Annotated[
    str, Path(min_length=1, max_length=MAX_DOC_NAME, description="e.g. billing/edge-cases")
]
GroupQuery = Annotated[
    str | None,
    Query(min_length=1, max_length=200, description="the holding group; absent: your own"),
]
Cursor = Annotated[str | None, Query(max_length=100, description="`next` of the page before")]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE)]
Reason = Annotated[str | None, Query(max_length=1_000, description="why, in words")]


def _author(principal: Principal, group: str | None) -> Author:
    """The author of an edit; a group's documents need `curate` (or `admin`) as well.

    Raises:
        Forbidden: editing a group's document without `curate`.
    """
    if group is not None and not principal.scopes & {"curate", "admin"}:
        raise Forbidden("Editing a group's documents needs the 'curate' scope.")
    return Author(principal.owner, principal.token_id)


@router.get("/knowledge", response_model=DocumentList)
def list_documents(
    owner: ReadOwner,
    reader: ReaderDep,
    known_at: KnownAtDep,
    group: GroupQuery = None,
    chat_id: ChatIdQuery = None,
    cursor: Cursor = None,
    limit: Limit = 100,
) -> DocumentList:
    """Names and descriptions of the documents you may read, never bodies: `{items: [{name,
    group, description, version, chars, author, source, recorded_at}], next}`, by name.

    Your own (`group: null`) and your groups'; `?group=` only that group's. `known_at`
    lists them as believed then. With `chat_id` the chat's memory access applies (`none`:
    403; `restricted`: only when its areas list `knowledge`). Needs scope `read`.
    """
    return DocumentList.model_validate(
        read.list_knowledge(reader, Caller(owner, chat_id), group, known_at, cursor, limit)
    )


@router.post(
    "/knowledge/remember",
    response_model=RememberOut,
    responses={404: {"description": "not a member of the group"}, **SECRET_REFUSED},
)
def remember(
    body: RememberIn, request: Request, principal: PrincipalDep, committer: CommitterDep
) -> RememberOut:
    """Save a learning as the group's document `learned/<slug of topic>`; a later call on
    the same topic replaces it in full, as a new version (CONTRACT §14).

    Body: `{topic, content, group?, surface?, description?}`. Allowed for a token with
    `curate`, from a surface not restricted (default refused: slack, whatsapp, telegram,
    and no surface), for a group the owner belongs to that has a curate-holding member;
    `group` may be left out when the owner belongs to exactly one. Every attempt is in the
    access log (`GET /v1/access-log`), allowed or refused, never with a refused call's
    content. Returns `{document, access}`. Errors: 403 refused (scope, surface,
    no_curator), 404 not a member of the group, 409 the group holds 1,000 documents, 422
    topic or content out of bounds, a secret in topic, content or description (logged
    as `invalid`, never with the secret), or no group named.
    """
    settings = request.app.state.settings
    policy = SurfacePolicy.of(
        settings.remember_restricted_surfaces, settings.remember_allow_no_surface
    )
    call = RememberCall(
        owner=principal.owner,
        token_id=principal.token_id,
        scopes=principal.scopes,
        surface=body.surface,
        group_id=body.group,
        topic=body.topic,
        content=body.content,
        description=body.description,
    )
    outcome = committer.remember_learning(call, policy)
    assert outcome.document is not None
    return RememberOut(
        document=DocumentPublic.of(outcome.document), access=AccessLogPublic.of(outcome.entry)
    )


@router.get(
    "/knowledge/{name:path}/versions",
    response_model=VersionList,
    responses={409: {"description": "several of your groups have a document of that name"}},
)
def versions(
    name: Name,
    owner: ReadOwner,
    reader: ReaderDep,
    group: GroupQuery = None,
    chat_id: ChatIdQuery = None,
    cursor: Cursor = None,
    limit: Limit = 100,
) -> VersionList:
    """Every version of a document, oldest first, without bodies: `{items: [{version,
    description, chars, author, source, reason, path, restored_from, event_id, retired,
    recorded_at, retracted_at}], next}`. Read a version's body with `GET
    /v1/knowledge/{name}?known_at=<its recorded_at>`. Without `group`: your own document,
    else your one group's that has (or had) it, as `GET /v1/knowledge/{name}`. Errors: 404
    no such document for you; 409 several of your groups have one of that name. Needs
    scope `read`.
    """
    return VersionList.model_validate(
        read.document_versions(reader, Caller(owner, chat_id), name, group, cursor, limit)
    )


@router.post(
    "/knowledge/{name:path}/restore",
    response_model=DocumentWrite,
)
def restore(
    name: Name,
    body: RestoreIn,
    principal: PrincipalDep,
    _: WriteOwner,
    committer: CommitterDep,
    group: GroupQuery = None,
) -> DocumentWrite:
    """Undo: record a new version with the description and body of `version` (a retired
    document comes back). Body: `{version, reason?}`. Returns `{document, changed}`
    (`changed: false` when it already read so). Errors: 404 no such document or version;
    422 the version is a retirement; 409 past 1,000 documents. Needs `write` (and `curate`
    for a group's).
    """
    doc, changed = committer.restore_document(
        _author(principal, group), name, body.version, group_id=group, reason=body.reason
    )
    return DocumentWrite(document=DocumentPublic.of(doc), changed=changed)


@router.get(
    "/knowledge/{name:path}",
    response_model=DocumentPublic,
    responses={409: {"description": "several of your groups have a document of that name"}},
)
def get_document(
    name: Name,
    owner: ReadOwner,
    reader: ReaderDep,
    known_at: KnownAtDep,
    group: GroupQuery = None,
    chat_id: ChatIdQuery = None,
) -> DocumentPublic:
    """The whole document: `{name, group, description, body, version, author, source,
    reason, path, restored_from, event_id, recorded_at, retracted_at}`, as believed at
    `known_at` (default now). Without `group`: your own, else your one group's that has
    it (409 when several do). Errors: 404 no such document for you (retired, another
    owner's, or kept out by the chat's memory access). Needs scope `read`.
    """
    return DocumentPublic.model_validate(
        read.read_knowledge(reader, Caller(owner, chat_id), name, group, known_at)
    )


@router.put("/knowledge/{name:path}", response_model=DocumentWrite, responses=SECRET_REFUSED)
def put_document(
    name: Name,
    body: DocumentPut,
    principal: PrincipalDep,
    _: WriteOwner,
    committer: CommitterDep,
    group: GroupQuery = None,
) -> DocumentWrite:
    """Create or edit a document: a new version in transaction time (the one before stays
    readable with `known_at`). Body: `{description, body, reason?}`. Returns `{document,
    changed}` (`changed: false`, nothing written, when it already read exactly so).
    Errors: 422 name, description (1,000) or body (100,000 characters) out of bounds, or
    a secret in the description, body or reason (never stored); 409
    past 1,000 documents; 404 `group` not yours. Needs `write` (and `curate` for a
    group's).
    """
    doc, changed = committer.put_document(
        _author(principal, group),
        name,
        body.description,
        body.body,
        group_id=group,
        reason=body.reason,
    )
    return DocumentWrite(document=DocumentPublic.of(doc), changed=changed)


@router.delete("/knowledge/{name:path}", response_model=DocumentPublic)
def retire_document(
    name: Name,
    principal: PrincipalDep,
    _: WriteOwner,
    committer: CommitterDep,
    group: GroupQuery = None,
    reason: Reason = None,
) -> DocumentPublic:
    """Retire a document: reads answer 404 from now on, reads with `known_at` before now
    still see it, and `/restore` brings it back. Returns the retiring version. Errors: 404
    no such live document. Needs `write` (and `curate` for a group's).
    """
    return DocumentPublic.of(
        committer.retire_document(_author(principal, group), name, group_id=group, reason=reason)
    )


@router.get("/access-log", response_model=AccessLogList)
def access_log(
    owner: AdminOwner,
    reader: ReaderDep,
    group: GroupQuery = None,
    outcome: Annotated[str | None, Query(pattern="^(allowed|refused)$")] = None,
    cursor: Cursor = None,
    limit: Limit = 100,
) -> AccessLogList:
    """The access log of `remember`, newest first: `{items: [{id, owner, token_id, surface,
    group, topic, outcome, reason, document, version, at}], next}`. Your own attempts, and
    every attempt on the groups you created. Filters: `group`, `outcome`
    (allowed|refused). Never holds content. Needs scope `admin`.
    """
    after = None
    if cursor is not None:
        micros, _, entry_id = cursor.partition(".")
        if not micros.isdigit() or not entry_id:
            raise InvalidInput("cursor", "not a cursor of this listing; ask again without it")
        after = (from_micros(int(micros)), entry_id)
    found = reader.access_log(
        owner,
        reader.managed_groups(owner),
        group_id=group,
        outcome=outcome,
        after=after,
        limit=limit + 1,
    )
    nxt = None
    if len(found) > limit:
        last = found[limit - 1]
        nxt = f"{(last.at - from_micros(0)) // last.at.resolution}.{last.id}"
    return AccessLogList(items=[AccessLogPublic.of(a) for a in found[:limit]], next=nxt)
