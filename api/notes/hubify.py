"""Hubify's four-layer memory on our own routes (issue 15): `GET /v1/memory?layer=` and
`POST /v1/memory`, with the fields of that API.

* messages: role, content, sessionId, createdAt (Unix ms), up to 50, newest first; ours:
  episodes (CONTRACT §12): what was said in curated runs, `sessionId` the run (one session
  of work; `chatId` beside it), `createdAt` when it was said, area `conversation`;
* preferences: key, value; ours: the owner's preference facts (graph/attributes.py);
* learnings: content, agentId, experimentId, confidence, createdAt; ours: `learning` notes;
* decisions: title, rationale, createdAt; ours: `decision` notes (rationale: the body).

`createdAt` is Unix milliseconds (UTC), as Hubify gives it: a note's `first_learned_at`.

Messages are kept from runs only (`POST /v1/runs`, where the curator redacts secrets and
the memory access applies): a POST to the layer is a 422 naming `layer` that says so.

Preferences: a key the registry knows as a preference (`answer_style`, `language`,
`units`, `tone`) is that attribute; any other key is kept as the attribute `preference`
with the value `"<key>: <value>"`, and read back as that key and value; posting a key
again forgets its earlier value (it no longer holds from now) before keeping the new one.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from api.notes import limits as lim
from api.notes import service
from api.notes.schemas import NoteCreate
from committer.apply import Committer
from committer.proposals import Assertion, Provenance
from graph.attributes import REGISTRY
from graph.errors import InvalidInput
from graph.fields import MAX_NAME, BoundedScalar, RequestModel
from graph.notes import MAX_BODY, MAX_TITLE, NoteRecord
from graph.read.reader import Reader
from graph.records import EpisodeRecord
from graph.time import AsOf

Layer = Literal["messages", "preferences", "learnings", "decisions"]
LAYERS: tuple[str, ...] = ("messages", "preferences", "learnings", "decisions")
MAX_ITEMS = 50
PREFERENCES = tuple(a for a, spec in REGISTRY.items() if spec.preference)
"""The registry's preference attributes (how the person wants the assistant to behave)."""
FREE = "preference"
"""The attribute that keeps a preference whose key the registry does not know."""
FROM_RUNS = (
    "messages are what was said in curated runs (episodes, CONTRACT §12): post the "
    "conversation as a run (POST /v1/runs)"
)
REQUIRED = {
    "messages": ("role", "content"),
    "preferences": ("key", "value"),
    "learnings": ("content",),
    "decisions": ("title", "rationale"),
}
"""The fields a POST to each layer must carry (a missing one is a 422 naming it)."""
ALLOWED = {
    "messages": {"role", "content", "sessionId"},
    "preferences": {"key", "value"},
    "learnings": {"content", "agentId", "experimentId", "confidence"},
    "decisions": {"title", "rationale"},
}
_KEY = re.compile(r"^[a-z][a-z0-9_]{0,99}$")


class MemoryIn(RequestModel):
    """`POST /v1/memory`: one item of one layer, with that layer's fields only."""

    layer: Layer
    key: str | None = Field(default=None, min_length=1, max_length=100)
    value: BoundedScalar | None = None
    content: str | None = Field(default=None, min_length=1, max_length=MAX_BODY)
    agentId: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)  # Hubify's
    experimentId: str | None = Field(default=None, min_length=1, max_length=MAX_NAME)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    title: str | None = Field(default=None, min_length=1, max_length=MAX_TITLE)
    rationale: str | None = Field(default=None, min_length=1, max_length=MAX_BODY)
    role: str | None = Field(default=None, max_length=20)
    sessionId: str | None = Field(default=None, max_length=200)


def _ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def learning(n: NoteRecord) -> dict[str, Any]:
    """A learning note in Hubify's fields (and our note id)."""
    return {
        "id": n.note_id,
        "content": n.body or n.title,
        "agentId": n.agent_id,
        "experimentId": n.experiment_id,
        "confidence": n.confidence,
        "createdAt": _ms(n.first_learned_at),
    }


def decision(n: NoteRecord) -> dict[str, Any]:
    """A decision note in Hubify's fields (and our note id)."""
    return {
        "id": n.note_id,
        "title": n.title,
        "rationale": n.body,
        "createdAt": _ms(n.first_learned_at),
    }


def message(e: EpisodeRecord) -> dict[str, Any]:
    """An episode in Hubify's message fields (and our episode id and chat)."""
    return {
        "id": e.id,
        "role": e.role,
        "content": e.text,
        "sessionId": e.run_id,
        "chatId": e.chat_id,
        "createdAt": _ms(e.said_at),
    }


def _preference(attribute: str, value: Any) -> dict[str, Any]:
    if attribute == FREE and isinstance(value, str) and ": " in value:
        key, _, rest = value.partition(": ")
        if _KEY.match(key):
            return {"key": key, "value": rest}
    return {"key": attribute, "value": value}


def read(
    reader: Reader,
    committer: Committer,
    limits: lim.NoteLimits,
    caller: service.NoteCaller,
    layer: str,
    limit: int,
) -> dict[str, Any]:
    """`GET /v1/memory?layer=`: one layer `{layer, items, available}` or, for `all`,
    `{messages, preferences, learnings, decisions}` each in that shape. Learnings and
    decisions serve their text: they count against the token's reading ceilings.

    Raises:
        MemoryOff: a `none` chat. LimitExceeded: a ceiling (429).
    """
    as_of = AsOf.at()
    scope = service.scope_of(reader, caller, as_of.known_at)
    wanted = LAYERS if layer == "all" else (layer,)
    out: dict[str, Any] = {}
    served: list[NoteRecord] = []
    for name in wanted:
        if name == "messages":
            said = reader.recent_episodes(scope, as_of, limit=limit)
            items = [message(e) for e in said]
        elif name == "preferences":
            rows = reader.owner_attributes(scope, list(PREFERENCES), as_of, limit=limit)
            items = [_preference(r.attribute, r.value) for r in rows if r.owner == caller.owner]
        else:
            kind = "learning" if name == "learnings" else "decision"
            found = reader.notes(scope, as_of, kind=kind, limit=limit)
            full = [reader.note(scope, n.note_id, as_of) for n in found]
            served += full
            items = [(learning if kind == "learning" else decision)(n) for n in full]
        out[name] = {"layer": name, "items": items[:limit], "available": True}
    lim.charge(committer, limits, caller.owner, caller.token_id, served)
    return out if layer == "all" else out[layer]


def write(
    reader: Reader,
    committer: Committer,
    limits: lim.NoteLimits,
    caller: service.NoteCaller,
    body: MemoryIn,
) -> dict[str, Any]:
    """`POST /v1/memory`: keep one item of a layer; returns `{layer, item}`.

    Raises:
        InvalidInput: a required field of the layer missing, a field of another layer,
            the messages layer, a preference key that is not snake_case.
    """
    given = {f for f in ALLOWED["messages"] | set().union(*ALLOWED.values())
             if getattr(body, f) is not None}  # fmt: skip
    for field in REQUIRED[body.layer]:
        if getattr(body, field) is None:
            raise InvalidInput(field, f"required for layer {body.layer}")
    foreign = sorted(given - ALLOWED[body.layer])
    if foreign:
        raise InvalidInput(foreign[0], f"not a field of layer {body.layer}")
    if body.layer == "messages":
        raise InvalidInput("layer", FROM_RUNS)
    service.scope_of(reader, caller)
    if body.layer == "preferences":
        return {"layer": "preferences", "item": _keep_preference(reader, committer, caller, body)}
    if body.layer == "learnings":
        assert body.content is not None
        title = " ".join(body.content.split())[:MAX_TITLE].rstrip()
        note = NoteCreate(
            kind="learning", title=title, body=body.content if title != body.content else "",
            known_by="observed", confidence=1.0 if body.confidence is None else body.confidence,
            agent_id=body.agentId, experiment_id=body.experimentId,
        )  # fmt: skip
        made = service.write(committer, limits, caller, note, by="rest")
        item = {
            "id": made["note"]["id"],
            "content": body.content,
            "agentId": body.agentId,
            "experimentId": body.experimentId,
            "confidence": made["note"]["confidence"],
        }
    else:
        assert body.title is not None and body.rationale is not None
        note = NoteCreate(kind="decision", title=body.title, body=body.rationale)
        made = service.write(committer, limits, caller, note, by="rest")
        item = {"id": made["note"]["id"], "title": body.title, "rationale": body.rationale}
    first = datetime.fromisoformat(made["note"]["first_learned_at"])
    return {"layer": body.layer, "item": {**item, "createdAt": _ms(first)}}


def _keep_preference(
    reader: Reader, committer: Committer, caller: service.NoteCaller, body: MemoryIn
) -> dict[str, Any]:
    key = body.key or ""
    if not _KEY.match(key):
        raise InvalidInput("key", "snake_case, 1 to 100 characters, e.g. answer_style")
    self_id = reader.self_entity_id(caller.owner) or committer.ensure_owner(caller.owner)
    known = key in PREFERENCES and key != FREE
    earlier = (
        [] if known else reader.owner_attributes(caller.owner, [FREE], AsOf.at(), limit=MAX_ITEMS)
    )
    assertion = Assertion(
        entity_id=self_id,
        attribute=key if known else FREE,
        value=body.value if known else f"{key}: {body.value}",
        cardinality="one" if known else "many",
        provenance=Provenance(source="user_edit", reason="a preference, via /v1/memory"),
    )
    # Asserted first: a value the committer refuses (a secret, CONTRACT §3) changes nothing.
    result = committer.assert_fact(caller.owner, assertion)
    for row in earlier:  # a key holds one value: its earlier value stops holding now
        same_key = row.entity_id == self_id and str(row.value).startswith(f"{key}: ")
        if same_key and row.value != f"{key}: {body.value}":
            committer.forget(caller.owner, row.id)
    return {**_preference(result.fact.attribute, result.fact.value), "id": result.fact.id}
