"""Notes over REST (CONTRACT §13, issue 15): write, list, search, read, history, why, due,
overview, retire, close, hand over. Thin shells over the note tools (api/notes/service.py),
which MCP shares."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request

from api.http.deps import AsOfDep, ChatIdQuery, KnownAtDep, PathId, PrincipalDep, ReaderDep
from api.http.openapi import SECRET_REFUSED
from api.http.write_deps import CommitterDep
from api.notes import service
from api.notes.limits import NoteLimits
from api.notes.schemas import (
    CloseIn,
    DueOut,
    HandoverIn,
    HandoverOut,
    NoteCreate,
    NoteHistory,
    NoteList,
    NotePublic,
    NoteSearchOut,
    NoteWhyOut,
    NoteWritten,
    OverviewOut,
    RetireIn,
)
from graph.errors import Forbidden
from graph.fields import MAX_PAGE, Timestamp
from graph.notes import MAX_PROJECT
from graph.time import to_utc

router = APIRouter(prefix="/v1/notes", tags=["notes"])


def get_limits(request: Request) -> NoteLimits:
    """The process's limits on notes (api/notes/limits.py)."""
    return request.app.state.note_limits  # type: ignore[no-any-return]


LimitsDep = Annotated[NoteLimits, Depends(get_limits)]


def _needs(principal: Any, scope: str) -> None:
    if scope not in principal.scopes and "admin" not in principal.scopes:
        raise Forbidden(f"This token lacks the {scope!r} scope.")


def reading(principal: PrincipalDep, chat_id: ChatIdQuery = None) -> service.NoteCaller:
    """A reader of notes (scope `read`), with the chat whose memory access applies."""
    _needs(principal, "read")
    return service.NoteCaller(principal.owner, chat_id, principal.token_id)


def writing(principal: PrincipalDep) -> service.NoteCaller:
    """A writer of notes (scope `write`)."""
    _needs(principal, "write")
    return service.NoteCaller(principal.owner, None, principal.token_id)


def handing(principal: PrincipalDep) -> service.NoteCaller:
    """An owner handing a project's notes over (scope `admin`: it gives data away)."""
    _needs(principal, "admin")
    return service.NoteCaller(principal.owner, None, principal.token_id)


ReadCaller = Annotated[service.NoteCaller, Depends(reading)]
WriteCaller = Annotated[service.NoteCaller, Depends(writing)]
Project = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=MAX_PROJECT,
        description="read for this project: its notes override the general ones of the same "
        "key; without it, general notes only",
    ),
]
Kind = Annotated[str | None, Query(max_length=50)]


@router.post(
    "",
    status_code=201,
    response_model=NoteWritten,
    responses={404: {"description": "`group_id` names no group of the caller."}, **SECRET_REFUSED},
)
def write_note(
    body: NoteCreate, caller: WriteCaller, committer: CommitterDep, limits: LimitsDep
) -> Any:
    """Keep a note: a new one, a new version of the note with the same `key` (in the same
    scope and project; it keeps `first_learned_at`), or, for the same normalized content
    again, a promotion of its tier (`effect`: created|replaced|promoted).

    Open hypotheses and questions need `review_at` 1-365 days out; a title naming a
    moment ("run-2026-09-14") is refused; `group_id` writes a group's note (the caller a
    member). From 240 notes the answer carries a `warning`; past 600 a new note is a 409.
    Errors: 404 unknown group; 409 the limit; 422 naming the field (a secret in the title,
    body or evidence among them: never stored). Needs scope `write`.
    """
    return service.write(committer, limits, caller, body)


@router.get("", response_model=NoteList)
def list_notes(
    caller: ReadCaller,
    reader: ReaderDep,
    as_of: AsOfDep,
    limits: LimitsDep,
    kind: Kind = None,
    project: Project = None,
    status: Annotated[
        Literal["open", "confirmed", "rejected", "active", "retired"] | None, Query()
    ] = None,
    tier: Annotated[Literal["short", "mid", "long"] | None, Query()] = None,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> Any:
    """Titles and dates of the notes the caller sees at `(valid_at, known_at)`, newest
    first, no bodies: `{items, next, warning}` (pass `next` as `cursor`). With
    `chat_id`, that chat's memory access applies (area `notes`). Needs scope `read`."""
    return service.list_notes(
        reader, limits, caller, as_of, project=project, kind=kind, status=status, tier=tier,
        cursor=cursor, limit=limit,
    )  # fmt: skip


@router.get("/search", response_model=NoteSearchOut)
def search_notes(
    request: Request,
    caller: ReadCaller,
    reader: ReaderDep,
    as_of: AsOfDep,
    q: Annotated[str, Query(min_length=1, max_length=1_000)],
    kind: Kind = None,
    project: Project = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> Any:
    """Notes matching `q` by words (stemmed, a title match counting double) and by meaning
    (the process's embedder), fused by reciprocal rank, best first, each with a short
    extract: `{items: [{note, extract, score, relevance, recency}]}`. Extracts are not
    counted against the hourly reading ceiling. Needs scope `read`."""
    return service.search(
        reader, caller, q, as_of, project=project, kind=kind, limit=limit,
        embedder=request.app.state.embedder,
    )  # fmt: skip


@router.get("/due", response_model=DueOut)
def due_notes(
    caller: ReadCaller,
    reader: ReaderDep,
    as_of: AsOfDep,
    at: Annotated[
        Timestamp | None, Query(description="due by this instant (default valid_at, now)")
    ] = None,
    project: Project = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> Any:
    """Open hypotheses and questions, and active notes, whose date to look again is at or
    before `at`, soonest first: `{items, count}`. Needs scope `read`."""
    due_at: datetime | None = None if at is None else to_utc(at, "at")
    return service.due(reader, caller, as_of, at=due_at, project=project, limit=limit)


@router.get("/overview", response_model=OverviewOut)
def notes_overview(
    caller: ReadCaller,
    reader: ReaderDep,
    as_of: AsOfDep,
    limits: LimitsDep,
    project: Project = None,
) -> Any:
    """Counts per kind, when something was last learned, how many are due, and how many
    notes the owner keeps against the limit (with a warning from 240). Needs scope `read`."""
    return service.overview(reader, limits, caller, as_of, project=project)


@router.post(
    "/handover",
    response_model=HandoverOut,
    responses={404: {"description": "The caller keeps no note of the project."}},
)
def hand_over(
    body: HandoverIn,
    caller: Annotated[service.NoteCaller, Depends(handing)],
    committer: CommitterDep,
) -> Any:
    """Hand the caller's own notes of `project` over to owner `to`, as one audited event
    (its `event_id` is recorded under both owners): reads with `known_at` before `at` see
    the notes with the caller, after it with `to`. Errors: 404 no note of the project;
    409 `to` keeps notes of the project under the same keys; 422 unknown owner. Needs
    scope `admin`."""
    return service.handover(committer, caller, body.project, body.to)


@router.get("/{note_id}", response_model=NotePublic)
def read_note(
    note_id: PathId,
    caller: ReadCaller,
    reader: ReaderDep,
    committer: CommitterDep,
    as_of: AsOfDep,
    limits: LimitsDep,
) -> Any:
    """One note as it stood at `(valid_at, known_at)`: its version valid then, or the last
    version of a note retired by then. Counted against the token's hourly reading
    ceilings (429 naming the ceiling, with Retry-After). Errors: 404 unknown id, another
    owner's, or kept out by the chat's memory access. Needs scope `read`."""
    return service.read(reader, committer, limits, caller, note_id, as_of)


@router.get("/{note_id}/history", response_model=NoteHistory)
def note_history(
    note_id: PathId,
    caller: ReadCaller,
    reader: ReaderDep,
    known_at: KnownAtDep,
    include_retracted: bool = False,
) -> Any:
    """Every version of a note as known at `known_at` (default now), by valid_from then
    recorded_at; `include_retracted=true` lists every row on both axes. Needs `read`."""
    return service.history(reader, caller, note_id, known_at, include_retracted)


@router.get("/{note_id}/why", response_model=NoteWhyOut)
def note_why(
    note_id: PathId,
    caller: ReadCaller,
    reader: ReaderDep,
    version_id: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
) -> Any:
    """Why a note version (default: the one standing now) exists: its source, evidence and
    the chain of events behind it and the versions it continues, oldest first
    (`decided_by`, `trigger`). Needs scope `read`."""
    return service.why(reader, caller, note_id, version_id)


@router.post("/{note_id}/retire", response_model=NoteWritten, responses=SECRET_REFUSED)
def retire_note(
    note_id: PathId,
    caller: WriteCaller,
    committer: CommitterDep,
    limits: LimitsDep,
    body: RetireIn | None = None,
) -> Any:
    """Retire a note: its validity ends now (reads before now still see it); nothing is
    deleted. Errors: 404 unknown id; 409 retired already. Needs scope `write`."""
    return service.retire(committer, limits, caller, note_id, None if body is None else body.reason)


@router.post("/{note_id}/close", response_model=NoteWritten, responses=SECRET_REFUSED)
def close_note(
    note_id: PathId, body: CloseIn, caller: WriteCaller, committer: CommitterDep, limits: LimitsDep
) -> Any:
    """Close an open hypothesis or question as `confirmed` or `rejected`: a new version
    records when (`closed_at`) and why (`close_reason`). Errors: 404 unknown id; 409 not an
    open hypothesis or question. Needs scope `write`."""
    return service.close(committer, limits, caller, note_id, body.status, body.reason)
