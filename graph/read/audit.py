"""Reads of cause and effect: why a row exists, what an event changed (CONTRACT §8).

A mixin of `graph.read.reader.Reader`: READ transactions only. Both walks honour the
caller's scope (graph/scope.py): the row asked about, and every row an event's effects
list, must pass `FACT_VISIBLE`; events are the caller's own (another owner's event ids
look absent, CONTRACT §7). The event model is described in `graph.cypher.events`; the
order of a chain (oldest cause first) is a topological order of the events, computed
with networkx.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from graph.cypher import episodes as pc
from graph.cypher import events as vc
from graph.cypher import facts as fc
from graph.errors import NotFound
from graph.read.base import ReadBase
from graph.records import (
    EffectRecord,
    EpisodeRecord,
    EventRecord,
    FactRecord,
    event_key,
    run_key,
)
from graph.scope import Scope, params
from graph.time import from_store

KIND_ORDER = {
    "run": 0,
    "sync": 0,
    "message": 1,
    "curation": 2,
    "proposal": 3,
    "decision": 4,
    "action": 4,
    "commit": 5,
}
"""Tie-break of events at one instant: a run before its messages, a commit last."""

CHANGES = {"WROTE": "wrote", "ENDED": "ended", "CHANGED": "changed"}


@dataclass(frozen=True, slots=True)
class Why:
    """Why a row exists (CONTRACT §8 `GET /v1/facts/{id}/why`).

    Attributes:
        fact: the row.
        chain: every event that led to it, oldest cause first: its own cause (the
            decision, action or sync it was written for) and the events behind that
            cause (a run's message, now an episode, its proposal, ...), then the commit
            that wrote it; and the same for the rows it continues (what it remains of,
            brings back or folded in). A run's other messages, proposals and decisions
            are not its causes: `effects` of the run reaches them.
        cause: the decision, action or sync the row was written for (who decided), or
            None for a row written before cause and effect was recorded (or another
            owner's row shared through a group: its events are not the caller's).
        trigger: the event that set `cause` off (a run, a sync, or the action itself).
        commit: the commit event that wrote the row, or None as for `cause`.
        episodes: what was said in the message the row was drawn from (CONTRACT §12: its
            own words, and a pasted part), on any axis, as far as the scope may see them;
            empty for a row from no message.
    """

    fact: FactRecord
    chain: tuple[EventRecord, ...]
    cause: EventRecord | None
    trigger: EventRecord | None
    commit: EventRecord | None
    episodes: tuple[EpisodeRecord, ...] = ()


def order_chain(events: dict[str, EventRecord], edges: Iterable[tuple[str, str]]) -> list[str]:
    """Order event ids so every cause comes before its effects (ties: time, kind, id).

    Args:
        events: the events by id.
        edges: (cause id, effect id) pairs among them.

    Returns:
        The ids, oldest cause first. Should the edges hold a cycle (they never should),
        by time alone.
    """
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(events)
    graph.add_edges_from((a, b) for a, b in edges if a in events and b in events and a != b)

    def key(event_id: str) -> tuple[Any, ...]:
        e = events[event_id]
        return (e.at, KIND_ORDER.get(e.kind, 9), e.id)

    if nx.is_directed_acyclic_graph(graph):
        return list(nx.lexicographical_topological_sort(graph, key=key))
    return sorted(events, key=key)


class AuditReads(ReadBase):
    """Why and effects reads."""

    def event(self, owner: str, event_id: str) -> EventRecord:
        """Return one event of `owner`.

        Raises:
            NotFound: no such event for this owner (another owner's looks the same).
        """
        rows = self._rows(vc.EVENT_BY_KEY, owner=owner, key=event_key(owner, event_id))
        if not rows:
            raise NotFound("event", event_id)
        return vc.event_from_record(rows[0]["e"])

    def why(self, scope: Scope, fact_id: str) -> Why:
        """Walk back from a row to every event that led to it (CONTRACT §8).

        Args:
            scope: the caller's scope (`Reader.scope`); the row must pass `FACT_VISIBLE`.
            fact_id: the row's id.

        Raises:
            NotFound: no such row, another owner's (not shared), or one the chat's
                memory access keeps out (CONTRACT §7: all look the same).
        """
        found = self._rows(vc.WHY_FACT, fact_id=fact_id, **params(scope))
        if not found:
            raise NotFound("fact", fact_id)
        fact = fc.fact_from_record(found[0]["row"])
        lineage = {
            r["fact_id"]: r for r in self._rows(vc.WHY_LINEAGE, owner=scope.owner, fact_id=fact_id)
        }
        # Each row's own cause and what led to it, and the commit that wrote it: not the
        # commit's other causes (a run's commit serves every decision of the run).
        causes = {r["cause"] for r in lineage.values() if r["cause"]}
        causes |= {r["commit"] for r in lineage.values() if r["commit"] and not r["cause"]}
        commits = {r["commit"] for r in lineage.values() if r["commit"]} - causes
        events: dict[str, EventRecord] = {}
        caused: list[tuple[str, str]] = []
        for query, ids in ((vc.EVENT_ANCESTORS, causes), (vc.EVENTS_BY_KEYS, commits)):
            if not ids:
                continue
            keys = sorted(event_key(scope.owner, i) for i in ids)
            for r in self._rows(query, owner=scope.owner, keys=keys):
                event = vc.event_from_record(r["event"])
                events[event.id] = event
                caused.extend((event.id, b) for b in r["effects"])
        caused = [(a, b) for a, b in caused if b in events]
        # A row continues older rows: their commits come before the cause of this one.
        earlier = [
            (lineage[h]["commit"], r["cause"])
            for r in lineage.values()
            for h in r["continues"]
            if h in lineage
            and lineage[h]["commit"]
            and r["cause"]
            and lineage[h]["commit"] != r["commit"]
        ]
        order = order_chain(events, [*caused, *earlier])
        own = lineage.get(fact_id, {})
        cause = events.get(own.get("cause") or "")
        commit = events.get(own.get("commit") or "")
        said: tuple[EpisodeRecord, ...] = ()
        if fact.run_id is not None and fact.message_id is not None:
            said = tuple(
                pc.episode_from_record(r["episode"], r["speaker"])
                for r in self._rows(
                    pc.EPISODES_OF_MESSAGES,
                    run_id=fact.run_id,
                    message_id=fact.message_id,
                    **params(scope),
                )
            )
        return Why(
            fact,
            tuple(events[i] for i in order),
            cause,
            _trigger(events, caused, order, cause),
            commit,
            said,
        )

    def effects(
        self, scope: Scope, event_id: str, *, skip: int = 0, limit: int = 500
    ) -> tuple[EventRecord | None, list[EffectRecord]]:
        """Walk forward from an event to everything it went on to change (CONTRACT §8).

        Args:
            scope: the caller's scope; rows that do not pass `FACT_VISIBLE` are left out.
            event_id: a run id, a sync id, or any event id a `why` chain shows.
            skip: items to skip (pagination).
            limit: page size.

        Returns:
            (the event, or None for a run not applied yet; its effects, ordered by
            commit time, ended rows before written ones).

        Raises:
            NotFound: no such event or run for this owner.
        """
        rows = self._rows(vc.EVENT_BY_KEY, owner=scope.owner, key=event_key(scope.owner, event_id))
        if not rows:
            if self._rows(vc.RUN_EXISTS, owner=scope.owner, run_key=run_key(scope.owner, event_id)):
                return None, []
            raise NotFound("event", event_id)
        event = vc.event_from_record(rows[0]["e"])
        found = self._rows(
            vc.EFFECTS,
            key=event_key(scope.owner, event_id),
            skip=skip,
            limit=limit,
            **params(scope),
        )
        return event, [
            EffectRecord(
                commit_id=r["commit"],
                at=from_store(r["at"]),
                change=CHANGES[r["rel"]],
                op=r["op"],
                cause_id=r["cause"],
                entity_id=r["entity_id"],
                fact=None if r["row"] is None else fc.fact_from_record(r["row"]),
                episode=None
                if r["episode"] is None
                else pc.episode_from_record(r["episode"], r["speaker"]),
            )
            for r in found
        ]


def _trigger(
    events: dict[str, EventRecord],
    caused: list[tuple[str, str]],
    order: list[str],
    cause: EventRecord | None,
) -> EventRecord | None:
    """The first root (an event nothing caused) among the causes of `cause`, or itself."""
    if cause is None:
        return None
    graph = nx.DiGraph(caused)
    graph.add_node(cause.id)
    behind = nx.ancestors(graph, cause.id) | {cause.id}
    roots = [i for i in order if i in behind and graph.in_degree(i) == 0]
    return events[roots[0]] if roots else cause
