"""Request and response models of audit, split and sync endpoints (CONTRACT §4, §5, §8, §10)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from api.http.schemas.core import CorroborationPublic, FactPublic
from api.http.schemas.episodes import EpisodePublic
from curator.observations import Observation
from graph.fields import MAX_NAME, IntegrationName, RequestModel, Timestamp, UtcDatetime
from graph.records import EffectRecord, EventRecord

MAX_SYNC_OBSERVATIONS = 5_000
MAX_SPLIT = 500


class EventPublic(BaseModel):
    """One event of a cause-and-effect chain: `{id, kind, at, actor, ...}` (CONTRACT §8, §10).

    `kind` is `run` (id = the run id), `message`, `curation`, `proposal` (id = the proposal
    id), `decision`, `action`, `sync` (id = the sync id) or `commit`. `actor` is who acted:
    a curator worker, `policy` (decided automatically by the risk table), `rest` or
    `chat:<id>` (the person), `integration:<name>`, `committer`. The kind's own fields
    follow, when set: `chat_id`, `run_id`, `message_id`, `role`, `surface`,
    `proposal_id`, `attribute`, `policy` (the risk rule that decided), `decision`
    (`commit`, `keep`, `discard`, `confirm_merge`), `action` (`assert`, `forget`,
    `retract`, `merge`, `split`), `integration`, `full_snapshot`, `entity_id`, `fact_id`,
    `target_id` (a merge's survivor), `suggestion_id`.
    """

    model_config = ConfigDict(extra="allow")

    id: str
    kind: str
    at: UtcDatetime
    actor: str | None

    @classmethod
    def of(cls, e: EventRecord) -> EventPublic:
        """Build from an internal record (only the fields that are set)."""
        return cls(id=e.id, kind=e.kind, at=e.at, actor=e.actor, **dict(e.detail))


class WhyOut(BaseModel):
    """`GET /v1/facts/{id}/why` (CONTRACT §8, §10).

    `chain` is every event that led to the row, oldest cause first: those behind the
    commit that wrote it and behind the rows it continues (what it remains of, brings
    back or folded in). `decided_by` is the decision, action or sync it was written
    for; `trigger` the event that set that off (a run, a sync, the action itself).
    """

    fact: FactPublic
    source: str
    reason: str | None
    evidence: str | None
    chain: list[EventPublic]
    trigger: EventPublic | None
    decided_by: EventPublic | None
    corroborations: list[CorroborationPublic]
    episodes: list[EpisodePublic] = Field(
        default_factory=list,
        description="what was said in the message the row was drawn from (CONTRACT §12)",
    )


class EffectPublic(BaseModel):
    """One thing an event went on to change (CONTRACT §10 `{fact_id, op, ...}`).

    `change` is `wrote` (op `created`, `remainder` or `restored`; op `recorded` for an
    episode a run's curation filed, CONTRACT §12), `ended` (op `superseded`, `coalesced`,
    `invalidated`, `retracted` or `moved`; op `forgotten` for an episode) or `changed`
    (an entity: op `archived`, `unarchived`, `merged` or `split`; `fact_id` null). An
    episode's item has `episode_id` and `episode` set, `fact_id` null and `entity_id` its
    speaker.
    """

    fact_id: str | None
    entity_id: str | None
    op: str
    change: Literal["wrote", "ended", "changed"]
    at: UtcDatetime
    commit_id: str
    cause_id: str
    fact: FactPublic | None
    episode_id: str | None = None
    episode: EpisodePublic | None = None

    @classmethod
    def of(cls, e: EffectRecord) -> EffectPublic:
        """Build from an internal record."""
        return cls(
            fact_id=None if e.fact is None else e.fact.id,
            entity_id=e.entity_id,
            op=e.op,
            change=e.change,
            at=e.at,
            commit_id=e.commit_id,
            cause_id=e.cause_id,
            fact=None if e.fact is None else FactPublic.of(e.fact),
            episode_id=None if e.episode is None else e.episode.id,
            episode=None if e.episode is None else EpisodePublic.of(e.episode),
        )


class EpisodesForgotten(BaseModel):
    """`DELETE /v1/episodes/{id}` and `DELETE /v1/runs/{id}/episodes` (CONTRACT §12).

    `episodes` were forgotten; with `facts=true`, `retracted` are the fact rows whose only
    evidence they were (CONTRACT §2.2 retract), `restored` the rows recorded again (values
    those had pushed out), and `kept` the rows drawn from those messages that stay because
    other evidence corroborates them. `effects` lists everything the call ended and
    recorded (as `GET /v1/events/{event_id}/effects` does), `event_id` names the call's
    `action` event.
    """

    episodes: list[str]
    retracted: list[str]
    restored: list[FactPublic]
    kept: list[str]
    event_id: str
    recorded_at: UtcDatetime
    effects: list[EffectPublic] = Field(default_factory=list)


class EffectsOut(BaseModel):
    """`GET /v1/events/{id}/effects`: the event (null for a run not applied yet) and what
    it changed, transitively, oldest commit first."""

    event: EventPublic | None
    items: list[EffectPublic]
    next: str | None = None


class SplitIn(RequestModel):
    """`POST /v1/entities/{id}/split` body (CONTRACT §5, §10)."""

    fact_ids: list[Annotated[str, Field(min_length=1, max_length=100)]] = Field(
        default_factory=list, max_length=MAX_SPLIT
    )
    name: str = Field(min_length=1, max_length=MAX_NAME, pattern=r"\S")
    aliases: list[Annotated[str, Field(min_length=1, max_length=MAX_NAME)]] = Field(
        default_factory=list, max_length=50
    )


class SyncObservation(Observation):
    """An observation in a sync: the run shape, `integration` defaulting to the sync's."""

    integration: IntegrationName | None = None  # type: ignore[assignment]


class SyncIn(RequestModel):
    """`POST /v1/syncs` body (CONTRACT §4, §5).

    `full_snapshot: true` declares that the observations are everything the integration
    reports now: entities it reported before and not now are archived. `at` is the
    default `valid_from` of the observations (default: now).
    """

    id: str = Field(min_length=1, max_length=200)
    integration: IntegrationName
    full_snapshot: bool = False
    at: Timestamp | None = None
    observations: list[SyncObservation] = Field(
        default_factory=list, max_length=MAX_SYNC_OBSERVATIONS
    )


class SyncOut(BaseModel):
    """`POST /v1/syncs` response."""

    id: str
    integration: str
    full_snapshot: bool
    status: Literal["applied"]
    proposals: int
    committed: int
    held: int
    archived: list[str]
    unarchived: list[str]
