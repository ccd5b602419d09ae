"""Runs: hand a finished run to the curator; read its status (CONTRACT §4, §10)."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

from fastapi import APIRouter, Request

from api.http.deps import PathId, ReaderDep, ReadOwner, WriteOwner
from api.http.openapi import SECRET_REFUSED
from api.http.schemas.core import RunAccepted, RunCreate, RunStatus
from api.http.write_deps import CommitterDep
from committer.secrets import refuse_secret_ids, refuse_secrets
from curator.episodes import redact
from graph.fields import MAX_PAGE

router = APIRouter(prefix="/v1/runs", tags=["runs"])


@router.post("", status_code=202, response_model=RunAccepted, responses=SECRET_REFUSED)
def post_run(
    body: RunCreate, owner: WriteOwner, committer: CommitterDep, request: Request
) -> RunAccepted:
    """Queue a finished run for curation. Idempotent on run id.

    Body: `{id, chat_id, surface?, messages: [{id?, role, speaker?, text, at}],
    observations?}`; every `at` needs an offset. Returns 202 `{id, status}`.
    The payload is kept as sent (message offsets decide the speaker's days), except
    that every sentence carrying a credential in free text (a message's `text`, an
    observation's `evidence`) is replaced by `[redacted]` before it is stored (CONTRACT
    §12: secrets are never stored); the same instants written in other offsets count as
    the same content, and a repost differing only in a secret does not. The fields kept
    as they are (`_kept_as_given`: the run's `id`, `chat_id`, `surface` and `project`, a
    message's `id` and `speaker`, an observation's names and value) are not redacted but
    refused: 422 naming the field (`chat_id`, `messages[2].speaker`,
    `observations[0].value`), nothing stored. An id is read only when it holds white
    space (words, such as "my PIN is 4821"): an opaque id is a token of the client's, and
    the credential rule for machine keys would refuse a random one (OpenAI's
    `chatcmpl-…` ids among them).
    Errors: 409 when the id was posted before with different content; 413/422 over
    the bounds in README.md; 429 with `Retry-After` while the owner has
    `WORLDSTATE_RUNS_QUEUED_PER_OWNER` runs waiting. Needs scope `write`.
    """
    ids: dict[str, str | None] = {"id": body.id, "chat_id": body.chat_id}
    ids |= {f"messages[{i}].id": m.id for i, m in enumerate(body.messages)}
    refuse_secret_ids(ids)
    refuse_secrets(*_kept_as_given(body))
    # A run without a project is stored as before the field existed (same idempotency).
    unset = {"project"} if body.project is None else None
    stored = body.model_copy(
        update={
            "messages": [m.model_copy(update={"text": redact(m.text)}) for m in body.messages],
            "observations": [
                o.model_copy(update={"evidence": redact(o.evidence)}) if o.evidence else o
                for o in body.observations
            ],
        }
    )
    payload = _json(stored.model_dump(mode="json", exclude=unset))
    utc = body.model_copy(
        update={
            "messages": [m.model_copy(update={"at": m.at.astimezone(UTC)}) for m in body.messages]
        }
    )
    run, _ = committer.submit_run(
        owner,
        run_id=body.id,
        chat_id=body.chat_id,
        surface=body.surface,
        payload=payload,
        canonical=_json(utc.model_dump(mode="json", exclude=unset)),
        max_waiting=request.app.state.settings.runs_queued_per_owner,
    )
    return RunAccepted(id=run.id, status=run.status)


def _kept_as_given(body: RunCreate) -> tuple[dict[str, Any], dict[str, str]]:
    """The fields of a run stored verbatim (on the run, its episodes and events, and the
    proposals and facts drawn from it) besides its ids (`refuse_secret_ids`), by the
    client's field path, with the labels their values are read under (an observation's
    value under its attribute: `bank_pin` with 4821 reads "bank pin: 4821"):
    `refuse_secrets`'s arguments (CONTRACT §3, §12)."""
    fields: dict[str, Any] = {"surface": body.surface, "project": body.project}
    labels: dict[str, str] = {}
    for i, m in enumerate(body.messages):
        fields[f"messages[{i}].speaker"] = m.speaker
    for i, o in enumerate(body.observations):
        at = f"observations[{i}]"
        fields[f"{at}.entity.name"] = o.entity.name
        fields[f"{at}.entity.kind"] = o.entity.kind
        fields[f"{at}.attribute"] = o.attribute
        fields[f"{at}.value"] = o.value
        labels[f"{at}.value"] = o.attribute
        if o.object is not None:
            fields[f"{at}.object.name"] = o.object.name
            fields[f"{at}.object.kind"] = o.object.kind
    return fields, labels


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@router.get("/{run_id}", response_model=RunStatus)
def get_run(run_id: PathId, owner: ReadOwner, reader: ReaderDep) -> RunStatus:
    """A run's status and counts: `{id, status, proposals, committed, held, notes,
    created_at, finished_at}` (UTC; `finished_at` null while the run is open, so
    `finished_at - created_at` is the curator's lag on it).

    `notes` has one line per note request of the run: what was kept and where (CONTRACT
    §13). 404 when the run is not the owner's."""
    run = reader.run(owner, run_id)
    replies = [p.reply for p in reader.proposals(owner, run_id=run_id, limit=MAX_PAGE) if p.reply]
    return RunStatus(
        id=run.id,
        status=run.status,
        proposals=run.proposals,
        committed=run.committed,
        held=run.held,
        notes=replies,
        created_at=run.created_at,
        finished_at=run.finished_at,
    )
