"""Workflow state (CONTRACT §14): a JSON value per (owner, workflow, key), or per (group,
workflow, key) shared by the group's members; compare-and-set, idempotency keys, history.

`PUT` records a new version (201 when the value is new, 200 otherwise) and answers the value
with its `version`, also sent as the `ETag` (`"3"`). Send it back as `If-Match: "3"`: the
write applies only if the value is still at that version (412 otherwise, nothing written);
`If-None-Match: *` creates only. `Idempotency-Key: <k>` makes a retried write apply once:
the retry answers what the first write made (`Idempotent-Replayed: true`). `GET
?known_at=` reads the value as it was believed then; `DELETE` records a deletion (the
history stays). Reads need `read`, writes `write`; a group's state any member's.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Path, Response

from api.http.deps import KnownAtDep, Principal, PrincipalDep, ReaderDep, ReadOwner, WriteOwner
from api.http.openapi import DESCRIPTIONS, SECRET_REFUSED
from api.http.schemas.state import StateDeleted, StatePublic, StatePut
from api.http.write_deps import CommitterDep
from committer.holders import Author
from committer.state import Conditions, StateWrite
from graph.errors import InvalidInput
from graph.held import MAX_STATE_KEY, Holder
from graph.read.reader import Reader

router = APIRouter(prefix="/v1", tags=["state"])

Segment = Annotated[str, Path(min_length=1, max_length=MAX_STATE_KEY)]
GroupId = Annotated[str, Path(min_length=1, max_length=200)]
IfMatch = Annotated[str | None, Header(max_length=40, description='the version you read, e.g. "3"')]
IfNoneMatch = Annotated[str | None, Header(max_length=10, description="`*`: create only")]
IdempotencyKey = Annotated[
    str | None,
    Header(min_length=1, max_length=MAX_STATE_KEY, description="a retried write applies once"),
]
WRITE_PROBLEMS: dict[int | str, dict[str, str]] = {412: {"description": DESCRIPTIONS[412]}}
PUT_PROBLEMS = {**WRITE_PROBLEMS, **SECRET_REFUSED, 201: {"description": "the value was created"}}
MAX_VERSION_DIGITS = 12
"""An `If-Match` version longer than this is not one we gave."""


def _version(if_match: str | None) -> int | None:
    if if_match is None:
        return None
    tag = if_match.strip().removeprefix("W/").strip('"')
    if not tag.isdigit() or len(tag) > MAX_VERSION_DIGITS:
        raise InvalidInput("If-Match", 'the version you read, e.g. "3" (the ETag of a GET)')
    return int(tag)


def _conditions(
    if_match: str | None, if_none_match: str | None, idempotency_key: str | None
) -> Conditions:
    if if_none_match is not None and if_none_match.strip() != "*":
        raise InvalidInput("If-None-Match", "only `*` (create only) is understood")
    return Conditions(_version(if_match), if_none_match is not None, idempotency_key)


def _answer(done: StateWrite, response: Response) -> StatePublic:
    response.headers["ETag"] = f'"{done.state.version}"'
    if done.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    response.status_code = 201 if done.created else 200
    return StatePublic.of(done.state)


def _read(
    reader: Reader, owner: str, holder: Holder, workflow: str, key: str, known_at: KnownAtDep
) -> tuple[StatePublic, str]:
    found = reader.state(reader.reach(owner), holder, workflow, key, known_at)
    return StatePublic.of(found), f'"{found.version}"'


def _put(
    principal: Principal,
    committer: CommitterDep,
    group: str | None,
    workflow: str,
    key: str,
    body: StatePut,
    conditions: Conditions,
    response: Response,
) -> StatePublic:
    author = Author(principal.owner, principal.token_id)
    done = committer.put_state(
        author, workflow, key, body.value, group_id=group, conditions=conditions
    )
    return _answer(done, response)


def _delete(
    principal: Principal,
    committer: CommitterDep,
    group: str | None,
    workflow: str,
    key: str,
    conditions: Conditions,
) -> StateDeleted:
    done = committer.delete_state(
        Author(principal.owner, principal.token_id),
        workflow,
        key,
        group_id=group,
        conditions=conditions,
    )
    s = done.state
    return StateDeleted(
        workflow=s.workflow,
        key=s.key,
        group=s.group_id,
        version=s.version,
        deleted_at=s.recorded_at,
    )


@router.get("/state/{workflow}/{key}", response_model=StatePublic)
def get_state(
    workflow: Segment,
    key: Segment,
    owner: ReadOwner,
    reader: ReaderDep,
    known_at: KnownAtDep,
    response: Response,
) -> StatePublic:
    """Your value of (workflow, key): `{workflow, key, group: null, value, version, author,
    recorded_at, event_id}` as believed at `known_at` (default now); `ETag` is the version.
    Errors: 404 no value then (another owner's workflow of the same name is not yours).
    Needs scope `read`."""
    out, etag = _read(reader, owner, Holder(owner=owner), workflow, key, known_at)
    response.headers["ETag"] = etag
    return out


@router.put(
    "/state/{workflow}/{key}",
    response_model=StatePublic,
    status_code=200,
    responses=PUT_PROBLEMS,
)
def put_state(
    workflow: Segment,
    key: Segment,
    body: StatePut,
    principal: PrincipalDep,
    _: WriteOwner,
    committer: CommitterDep,
    response: Response,
    if_match: IfMatch = None,
    if_none_match: IfNoneMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> StatePublic:
    """Set your value of (workflow, key): body `{value}` (any JSON, at most 64 KB).
    Headers `If-Match`, `If-None-Match: *`, `Idempotency-Key` (see the module). Errors: 412
    the value is not at the version named (body `current`); 409 an idempotency key reused
    for another request; 422 a value over 64 KB, names over 200 characters, or a secret
    in the value (a string, or a scalar under its key: `{"pin": 4821}`; never stored).
    Needs `write`."""
    conditions = _conditions(if_match, if_none_match, idempotency_key)
    return _put(principal, committer, None, workflow, key, body, conditions, response)


@router.delete("/state/{workflow}/{key}", response_model=StateDeleted, responses=WRITE_PROBLEMS)
def delete_state(
    workflow: Segment,
    key: Segment,
    principal: PrincipalDep,
    _: WriteOwner,
    committer: CommitterDep,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> StateDeleted:
    """Delete your value of (workflow, key); its history stays readable with `known_at`.
    Errors: 404 no value; 412 `If-Match` names another version. Needs `write`."""
    conditions = _conditions(if_match, None, idempotency_key)
    return _delete(principal, committer, None, workflow, key, conditions)


@router.get(
    "/shared-state/{group_id}/{workflow}/{key}",
    response_model=StatePublic,
)
def get_shared_state(
    group_id: GroupId,
    workflow: Segment,
    key: Segment,
    owner: ReadOwner,
    reader: ReaderDep,
    known_at: KnownAtDep,
    response: Response,
) -> StatePublic:
    """A group's value of (workflow, key), shared by its members; as `GET /v1/state/...`.
    Errors: 404 no value, or not a group you belong to (the same answer). Needs `read`."""
    out, etag = _read(reader, owner, Holder(group_id=group_id), workflow, key, known_at)
    response.headers["ETag"] = etag
    return out


@router.put(
    "/shared-state/{group_id}/{workflow}/{key}",
    response_model=StatePublic,
    status_code=200,
    responses=PUT_PROBLEMS,
)
def put_shared_state(
    group_id: GroupId,
    workflow: Segment,
    key: Segment,
    body: StatePut,
    principal: PrincipalDep,
    _: WriteOwner,
    committer: CommitterDep,
    response: Response,
    if_match: IfMatch = None,
    if_none_match: IfNoneMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> StatePublic:
    """Set a group's value of (workflow, key), as `PUT /v1/state/...`; any member may.
    Errors: 404 not a group you belong to. Needs `write`."""
    conditions = _conditions(if_match, if_none_match, idempotency_key)
    return _put(principal, committer, group_id, workflow, key, body, conditions, response)


@router.delete(
    "/shared-state/{group_id}/{workflow}/{key}",
    response_model=StateDeleted,
    responses=WRITE_PROBLEMS,
)
def delete_shared_state(
    group_id: GroupId,
    workflow: Segment,
    key: Segment,
    principal: PrincipalDep,
    _: WriteOwner,
    committer: CommitterDep,
    if_match: IfMatch = None,
    idempotency_key: IdempotencyKey = None,
) -> StateDeleted:
    """Delete a group's value of (workflow, key), as `DELETE /v1/state/...`. Needs
    `write`."""
    conditions = _conditions(if_match, None, idempotency_key)
    return _delete(principal, committer, group_id, workflow, key, conditions)
