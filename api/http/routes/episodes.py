"""Episodes, what was said: list, read, forget (CONTRACT §12, §10).

Reads go through `graph.read.reader` and the caller's scope (`ScopeDep`: the chat's memory
access applies, area `conversation`); forgetting goes through the committer, one
transaction and one audited `action` event per call.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from api.http.cursors import decode_episodes, encode_episodes
from api.http.deps import AsOfDep, ChatIdQuery, CurateOwner, PathId, ReaderDep, ScopeDep
from api.http.schemas.audit import EffectPublic, EpisodesForgotten
from api.http.schemas.core import FactPublic
from api.http.schemas.episodes import EpisodeList, EpisodePublic
from api.http.write_deps import CommitterDep
from committer.episodes import ForgetResult
from graph.read.reader import Reader
from graph.scope import Scope
from graph.time import AsOf

router = APIRouter(prefix="/v1", tags=["episodes"])
MAX_PAGE = 500
MAX_QUERY_CHARS = 1_000

FactsQuery = Annotated[
    bool,
    Query(
        description="also retract (CONTRACT §2.2) every current fact whose only evidence is "
        "the forgotten messages; a fact other messages or edits corroborate stays"
    ),
]


@router.get("/episodes", response_model=EpisodeList)
def list_episodes(
    scope: ScopeDep,
    reader: ReaderDep,
    as_of: AsOfDep,
    chat_id: ChatIdQuery = None,
    run_id: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
    q: Annotated[
        str | None,
        Query(min_length=1, max_length=MAX_QUERY_CHARS, description="only those with every word"),
    ] = None,
    cursor: Annotated[str | None, Query(max_length=2_000)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
) -> EpisodeList:
    """What was said, oldest first: `{items: [Episode], next}` (CONTRACT §12).

    Each episode is one message of a curated run (or the text pasted into one): `{id,
    text, speaker, speaker_id, role, said_at, chat_id, run_id, message_id, part, surface,
    source, recorded_at, retracted_at}`. Visible at `(valid_at, known_at)` (both default
    to now) when said by `valid_at`, recorded by `known_at` and not forgotten then.
    `chat_id`: that chat's episodes, read under that chat's memory access (CONTRACT §7:
    `none` is a 403, `restricted` needs the area `conversation` and the episode's source);
    `run_id`: one run's; `q`: only those holding every word of `q` (accents and case
    folded). Pass `next` as `cursor` for the next page (it keeps the first page's
    `valid_at` and `known_at`). Errors: 422 for a bad filter or cursor, a timestamp
    without an offset. Needs scope `read`.
    """
    query: list[str | None] = [chat_id, run_id, q]
    after = None
    if cursor is not None:
        found = decode_episodes(cursor, query)
        as_of, after = AsOf(found.valid_at, found.known_at), found.after
    page = reader.episodes(
        scope, as_of, chat_id=chat_id, run_id=run_id, q=q, after=after, limit=limit + 1
    )
    nxt = None
    if len(page) > limit:
        nxt = encode_episodes(query, as_of.valid_at, as_of.known_at, page[limit - 1])
    return EpisodeList(items=[EpisodePublic.of(e) for e in page[:limit]], next=nxt)


@router.get("/episodes/{episode_id}", response_model=EpisodePublic)
def get_episode(episode_id: PathId, scope: ScopeDep, reader: ReaderDep) -> EpisodePublic:
    """One episode by id, whatever its axes (a forgotten one shows its `retracted_at`, the
    audit view of CONTRACT §12). `chat_id`: that chat's memory access applies (an episode
    it keeps out is a 404, `none` a 403). Errors: 404 unknown id or another owner's.
    Needs scope `read`.
    """
    return EpisodePublic.of(reader.episode(scope, episode_id))


@router.delete(
    "/episodes/{episode_id}",
    response_model=EpisodesForgotten,
)
def forget_episode(
    episode_id: PathId,
    owner: CurateOwner,
    committer: CommitterDep,
    reader: ReaderDep,
    facts: FactsQuery = False,
) -> EpisodesForgotten:
    """Forget one episode: "forget that I said this" (CONTRACT §12).

    The episode is retracted in transaction time (reads with `known_at` before now still
    see it; `GET /v1/episodes/{id}` shows it with its `retracted_at`). With `facts=true`
    the same transaction retracts every current fact drawn only from this message (of
    this part of it). One `action` event records it; `effects` lists what it ended.
    Errors: 404 unknown id or another owner's; 409 already forgotten. Needs scope
    `curate`.
    """
    found = committer.forget_episode(owner, episode_id, facts=facts, by="rest")
    return _forgotten(reader, owner, found)


@router.delete(
    "/runs/{run_id}/episodes",
    response_model=EpisodesForgotten,
)
def forget_run_episodes(
    run_id: PathId,
    owner: CurateOwner,
    committer: CommitterDep,
    reader: ReaderDep,
    facts: FactsQuery = False,
) -> EpisodesForgotten:
    """Forget every episode of a run, a whole conversation (CONTRACT §12).

    As `DELETE /v1/episodes/{id}`, for each episode of the run still kept; with
    `facts=true`, every current fact drawn only from the run's messages is retracted.
    Errors: 404 unknown run or another owner's; 409 the run is not curated yet (its
    episodes are written when it is). Needs scope `curate`.
    """
    found = committer.forget_run_episodes(owner, run_id, facts=facts, by="rest")
    return _forgotten(reader, owner, found)


def _forgotten(reader: Reader, owner: str, found: ForgetResult) -> EpisodesForgotten:
    _, effects = reader.effects(Scope(owner), found.event_id)
    return EpisodesForgotten(
        episodes=list(found.episodes),
        retracted=list(found.retracted),
        restored=[FactPublic.of(f) for f in found.restored],
        kept=list(found.kept),
        event_id=found.event_id,
        recorded_at=found.recorded_at,
        effects=[EffectPublic.of(e) for e in effects],
    )
