"""Usage records: a turn's time, surface, chat, model, tokens, estimated cost and duration,
never its content; and their sums (issue 16 "Usage records")."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from api.http.deps import ReaderDep, ReadOwner, WriteOwner
from api.http.schemas.state import UsageCreate, UsageGroup, UsagePublic, UsageSummary
from api.http.write_deps import CommitterDep
from committer.usage import UsageIn
from graph.errors import InvalidInput
from graph.fields import Timestamp
from graph.held import UsageSum
from graph.time import to_utc, utcnow

router = APIRouter(prefix="/v1/usage", tags=["usage"])
DEFAULT_SPAN = timedelta(days=30)
MAX_SPAN = timedelta(days=366)


@router.post(
    "",
    status_code=201,
    response_model=UsagePublic,
    responses={200: {"description": "a retry of a record stored before (same id)"}},
)
def record_usage(
    body: UsageCreate, owner: WriteOwner, committer: CommitterDep, response: Response
) -> UsagePublic:
    """Record one turn's usage: `{id?, at, surface?, chat_id?, model?, input_tokens,
    output_tokens, cost, duration_ms}` (never content). 201, or 200 for a retry of a
    stored `id`. Bounds: tokens 0 to 1e9, cost 0 to 1e6, duration up to 24 h in ms,
    labels 200 characters (surface 50). Errors: 409 the `id` was stored with other fields;
    422 out of bounds. Needs `write`."""
    record, created = committer.record_usage(owner, UsageIn(**body.model_dump()))
    response.status_code = 201 if created else 200
    return UsagePublic(
        id=record.id,
        at=record.at,
        surface=record.surface,
        chat_id=record.chat_id,
        model=record.model,
        input_tokens=record.input_tokens,
        output_tokens=record.output_tokens,
        cost=record.cost,
        duration_ms=record.duration_ms,
        recorded_at=record.recorded_at,
    )


@router.get("/summary", response_model=UsageSummary)
def summary(
    owner: ReadOwner,
    reader: ReaderDep,
    group_by: Literal["surface", "model", "day"] = "day",
    from_: Annotated[
        Timestamp | None, Query(alias="from", description="default: to - 30 days")
    ] = None,
    to: Annotated[Timestamp | None, Query(description="default now; exclusive")] = None,
) -> UsageSummary:
    """Sums of your usage records of turns in `[from, to)` by `group_by` (`surface`,
    `model`, or `day`, a UTC date): `{from, to, group_by, items: [{key, turns,
    input_tokens, output_tokens, tokens, cost, duration_ms}], total}`. At most 366 days.
    Errors: 422 `to` not after `from`, or a span over 366 days. Needs `read`."""
    end = utcnow() if to is None else to_utc(to, "to")
    start = end - DEFAULT_SPAN if from_ is None else to_utc(from_, "from")
    if end <= start:
        raise InvalidInput("to", "must be later than from")
    if end - start > MAX_SPAN:
        raise InvalidInput("from", "at most 366 days before to")
    sums = reader.usage_summary(owner, start, end, group_by)
    total = UsageSum(
        key=None,
        turns=sum(s.turns for s in sums),
        input_tokens=sum(s.input_tokens for s in sums),
        output_tokens=sum(s.output_tokens for s in sums),
        cost=sum(s.cost for s in sums),
        duration_ms=sum(s.duration_ms for s in sums),
    )
    return UsageSummary(
        from_=start,
        to=end,
        group_by=group_by,
        items=[UsageGroup.of(s) for s in sums],
        total=UsageGroup.of(total),
    )
