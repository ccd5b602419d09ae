"""Prefetch's read (CONTRACT §6 push): one query for everything a message needs.

A mixin of `graph.read.reader.Reader` (READ transactions only). The query is
graph/cypher/prefetch.py `PREFETCH`; every part of it is scoped by graph/scope.py, so
memory access (none/restricted/full) and group sharing hold here as on every read path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.cypher import prefetch as pc
from graph.cypher.memory_access import access_from_record
from graph.read.base import ReadBase
from graph.read.episodes import episode_lucene
from graph.records import chat_key
from graph.scope import Scope, params
from graph.time import FAR_FUTURE, AsOf, from_micros

SAID_SCAN = 3
"""Best-scored full-text hits Lucene hands over per episode prefetch keeps (the rest of an
owner's matches are never read: its top-k collector stops there)."""
LUCENE_CLAUSES = 400
"""Keys per Lucene query: below Lucene's default limit of 1,024 clauses per query."""


@dataclass(frozen=True, slots=True)
class Mentioned:
    """An entity the message names (a seed of the neighbourhood).

    Attributes:
        id: entity id.
        name: its name.
        kind: person, project, place, ...
        position: the character offset of its first mention in the normalized message.
    """

    id: str
    name: str
    kind: str
    position: int


@dataclass(frozen=True, slots=True)
class Neighbour:
    """The live, visible entity at the other end of a seed's relationship row.

    Attributes:
        id: entity id.
        name: its name.
        kind: its kind.
        is_self: True for the owner's own entity.
    """

    id: str
    name: str
    kind: str
    is_self: bool


@dataclass(frozen=True, slots=True)
class Row:
    """A fact row as prefetch shows it (no evidence or reason).

    Attributes:
        vf, vt, rec: valid_from, valid_to and recorded_at in integer microseconds since
            the epoch (UTC); the properties of the same names give aware datetimes (only
            the rows shown need them).
        speaker_id: who said it (CONTRACT §12: the person entity of its message), or None.
        owner: the row's owner: the reader's own, or the owner who shares its entity through
            a group (CONTRACT §7); None when not read.
        subject: the name of the row's entity (preferences and events only, else None).
        subject_is_self: the row's entity is the owner's own (preferences and events).
        object_name: the object entity's name (events only, else None).
    """

    id: str
    entity_id: str
    attribute: str
    value: Any
    object_id: str | None
    source: str
    vf: int
    vt: int
    rec: int
    speaker_id: str | None = None
    owner: str | None = None
    subject: str | None = None
    subject_is_self: bool = False
    object_name: str | None = None

    @property
    def valid_from(self) -> datetime:
        """`vf` as an aware UTC datetime."""
        return from_micros(self.vf)

    @property
    def valid_to(self) -> datetime:
        """`vt` as an aware UTC datetime (FAR_FUTURE when open)."""
        return from_micros(self.vt)

    @property
    def recorded_at(self) -> datetime:
        """`rec` as an aware UTC datetime."""
        return from_micros(self.rec)


@dataclass(frozen=True, slots=True)
class SaidRow:
    """An episode the message's words found (CONTRACT §12), as prefetch shows it.

    Attributes:
        id: the episode id.
        text: its text (the first `said_chars` characters).
        speaker_id: the person who said it, or None (assistant, tool, system).
        speaker: that person's name, or None.
        by_owner: said by the owner.
        said: `said_at` in integer microseconds since the epoch (UTC).
        chat_id, run_id, message_id: where it was said.
        source: `user_stated` or `untrusted`.
        role: the message's role.
    """

    id: str
    text: str
    speaker_id: str | None
    speaker: str | None
    by_owner: bool
    said: int
    chat_id: str
    run_id: str
    message_id: str | None
    source: str
    role: str

    @property
    def said_at(self) -> datetime:
        """`said` as an aware UTC datetime."""
        return from_micros(self.said)


@dataclass(frozen=True, slots=True)
class PrefetchView:
    """What `PREFETCH` returned, parsed (see its docstring for each part); `owner` is the
    reader's (rows of another owner are shared with it, CONTRACT §7)."""

    self_id: str | None
    mentioned: tuple[Mentioned, ...]
    facts: tuple[Row, ...]
    relations: tuple[Row, ...]
    incoming: tuple[Row, ...]
    neighbours: tuple[Neighbour, ...]
    edges: tuple[tuple[str, str], ...]
    preferences: tuple[Row, ...]
    events: tuple[Row, ...]
    speakers: dict[str, str] = field(default_factory=dict)
    said: tuple[SaidRow, ...] = ()
    owner: str | None = None


@dataclass(frozen=True, slots=True)
class PrefetchLimits:
    """How much `PREFETCH` may read (the one instance is api.chat.prefetch.block.LIMITS).

    Attributes:
        entities: mentioned entities kept (first by position).
        facts: attribute rows per mentioned entity (first by the caller's attribute order).
        rows: relationship rows per mentioned entity and direction, newest first.
        neighbours: other ends of those rows kept (most linked first), the ranking's graph.
        expand: neighbours whose incoming relationship rows are read for the ranking.
        preferences: preference rows.
        events: event rows.
        said: episodes the message's words find (best BM25 first), for the section "From
            earlier conversations" to rank.
        said_chars: the characters of each episode's text read.
    """

    entities: int
    facts: int
    rows: int
    neighbours: int
    expand: int
    preferences: int
    events: int
    said: int
    said_chars: int


def _quote(text: str) -> str:
    """A Lucene phrase: the text between double quotes, `\\` and `"` escaped. Inside a
    phrase nothing else is syntax, so no user string can change the query's shape."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lucene_queries(owner: str, keys: Sequence[str]) -> list[str]:
    """Lucene queries over `entity_mentions` matching the owner's entities with any of
    `keys` (normalized names, exact), at most `LUCENE_CLAUSES` keys each.

    Args:
        owner: the owner whose own entities are searched.
        keys: normalized mention keys (graph.names.search_key form).

    Returns:
        Query strings, in order of `keys` (none when `keys` is empty).
    """
    out = []
    for start in range(0, len(keys), LUCENE_CLAUSES):
        chunk = " OR ".join(_quote(k) for k in keys[start : start + LUCENE_CLAUSES])
        out.append(f"owner:{_quote(owner)} AND search_names:({chunk})")
    return out


def _row(raw: Sequence[Any]) -> Row:
    """A `Row` from `PREFETCH`'s list (graph.cypher.prefetch `ROW_FIELDS`, then for
    preferences and events: subject name, subject is the owner, object name)."""
    extra = list(raw[11:]) + [None, False, None][len(raw) - 11 :]
    return Row(
        id=raw[0],
        entity_id=raw[1],
        attribute=raw[2],
        value=raw[3],
        object_id=raw[4],
        source=raw[5],
        vf=raw[6],
        vt=raw[7],
        rec=raw[8],
        speaker_id=raw[9],
        owner=raw[10],
        subject=extra[0],
        subject_is_self=bool(extra[1]),
        object_name=extra[2],
    )


def view_params(
    scope: Scope,
    positions: Mapping[str, int],
    as_of: AsOf,
    *,
    preference_attributes: Sequence[str],
    event_attribute: str,
    attribute_order: Mapping[str, int],
    limits: PrefetchLimits,
    recall: Sequence[str] = (),
) -> dict[str, Any]:
    """The parameters of graph/cypher/prefetch.py PREFETCH for `PrefetchReads.prefetch_view`'s
    arguments (graph/read/turn.py runs it beside the notes and the pointer)."""
    keys = sorted(positions, key=lambda k: (positions[k], k))
    return {
        "scope": params(scope),
        "mentions": {
            "lucene": lucene_queries(scope.owner, keys),
            "positions": dict(positions),
            "attribute_order": dict(attribute_order),
        },
        "valid_at": as_of.valid_at,
        "known_at": as_of.known_at,
        "max_entities": limits.entities,
        "max_facts": limits.facts,
        "max_rows": limits.rows,
        "max_neighbours": limits.neighbours,
        "max_expand": limits.expand,
        "preference_attributes": list(preference_attributes),
        "max_preferences": limits.preferences,
        "event_attribute": event_attribute,
        "max_events": limits.events,
        "recall": {"lucene": [q for q in [episode_lucene(" ".join(recall), scope.owner)] if q]},
        "max_said": limits.said,
        "said_scan": limits.said * SAID_SCAN,
        "said_chars": limits.said_chars,
    }


def view_found(r: Any, owner: str) -> PrefetchView:
    """The view from PREFETCH's row (its columns self_id ... said), read for `owner`."""
    return PrefetchView(
        owner=owner,
        self_id=r["self_id"] or None,
        mentioned=tuple(Mentioned(*s) for s in r["seeds"]),
        facts=tuple(_row(x) for x in r["attrs"]),
        relations=tuple(_row(x) for x in r["rels"]),
        incoming=tuple(_row(x) for x in r["incoming"]),
        neighbours=tuple(Neighbour(i, n, k, bool(s)) for i, n, k, s in r["neighbours"]),
        edges=tuple((a, b) for a, b in r["edges"]),
        preferences=tuple(_row(x) for x in r["prefs"]),
        events=tuple(_row(x) for x in r["events"]),
        speakers={i: n for i, n in r["speakers"]},
        said=tuple(SaidRow(*x) for x in r["said"]),
    )


class PrefetchReads(ReadBase):
    """The prefetch read."""

    def prefetch_scope(self, owner: str, chat_id: str, known_at: datetime) -> Scope:
        """What prefetch may read (CONTRACT §7), as `Reader.scope(owner, chat_id,
        known_at)` resolves it, in one query instead of two (`PREFETCH_SCOPE`). In a
        snapshot it also keeps the owner's groups for `reach` (graph/read/knowledge.py),
        which then reads nothing.

        Raises:
            StoreUnavailable: Neo4j could not be reached.
        """
        who = {"owner": owner, "chat_key": chat_key(owner, chat_id)}
        row = self._rows(pc.PREFETCH_SCOPE, who=who, known_at=known_at, far=FAR_FUTURE)[0]
        if self._tx is not None:  # the pointer's reach, read in the same transaction
            self._groups[owner] = tuple(sorted(row["groups"]))
        return Scope(
            owner, access_from_record(row["profile"], row["chat"]), tuple(sorted(row["ids"]))
        )

    def prefetch_view(
        self,
        scope: Scope,
        positions: Mapping[str, int],
        as_of: AsOf,
        *,
        preference_attributes: Sequence[str],
        event_attribute: str,
        attribute_order: Mapping[str, int],
        limits: PrefetchLimits,
        recall: Sequence[str] = (),
    ) -> PrefetchView:
        """Read everything prefetch needs for one message, in one query (CONTRACT §6).

        Args:
            scope: who may read what (`Reader.scope`); under `none` nothing passes.
            positions: normalized mention key -> offset of its first occurrence in the
                message (keys of 2 characters or more; see api/chat/prefetch/mentions.py).
            as_of: the point on both time axes (CONTRACT §2).
            preference_attributes: attributes that say how the assistant should behave.
            event_attribute: the event-like attribute of "recent events".
            attribute_order: attribute -> rank: which attribute rows of a mentioned
                entity come first (unlisted ones after, by name).
            limits: how much to read.
            recall: the message's content words, looked up among the owner's episodes
                (none: no episode is read).

        Returns:
            The parsed view; every list in a stable order (see `PREFETCH`).

        Raises:
            StoreUnavailable: Neo4j could not be reached.
        """
        asked = view_params(
            scope,
            positions,
            as_of,
            preference_attributes=preference_attributes,
            event_attribute=event_attribute,
            attribute_order=attribute_order,
            limits=limits,
            recall=recall,
        )
        return view_found(self._rows(pc.PREFETCH, **asked)[0], scope.owner)
