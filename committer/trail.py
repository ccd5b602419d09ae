"""Cause and effect, recorded in the transaction of every change (CONTRACT §1, §8).

Every commit makes one `Trail`. The commit's events (the run, its messages and
curation, proposals, decisions, a person's action, a sync) are queued with their
causes; the rows a `Batch` records and retracts, and the entities archived, merged or
split off, are queued as effects of the *current cause* (`Trail.cause`: the decision,
action or sync being applied). `flush` writes all of it in one round trip, with one
`commit` event per transaction linked from every cause it served. `Batch.flush` calls
it, so the record lands with the rows; a commit that writes no rows (a discard) calls
it itself. The graph model is described in `graph.cypher.events`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from graph.cypher.events import EVENT_FIELDS
from graph.records import event_key
from graph.write.writer import WriteTx, new_id

PREFIX = {
    "message": "msg",
    "curation": "cur",
    "proposal": "prp",
    "decision": "dec",
    "action": "act",
    "commit": "cmt",
    "run": "run",
    "sync": "syn",
}
"""Prefixes of generated event ids (runs, syncs and proposals bring their own ids)."""

COMMITTER = "committer"
"""The actor of commit events."""


class Trail:
    """The cause-and-effect record of one commit (one transaction).

    Args:
        w: the open write transaction (the owner is locked).
        owner: the owner id.
        t: the commit time, aware UTC.

    Attributes:
        cause: the event the effects queued next are recorded for (set by `act`, or
            directly when one transaction applies several decisions).
        commit_id: the id of this transaction's commit event.
    """

    def __init__(self, w: WriteTx, owner: str, t: datetime):
        self.w, self.owner, self.t = w, owner, t
        self.cause: str | None = None
        self.commit_id = new_id(PREFIX["commit"])
        self._events: dict[str, dict[str, Any]] = {}
        self._links: list[dict[str, str]] = []
        self._wrote: list[dict[str, Any]] = []
        self._ended: list[dict[str, Any]] = []
        self._changed: list[dict[str, Any]] = []
        self._moved: list[dict[str, str]] = []
        self._noted: list[dict[str, Any]] = []
        self._forgot: list[dict[str, Any]] = []
        self._filed: list[dict[str, Any]] = []
        self._served: set[str] = set()
        self._committed = False

    def event(
        self,
        kind: str,
        *,
        event_id: str | None = None,
        at: datetime | None = None,
        actor: str | None = None,
        causes: Iterable[str | None] = (),
        **detail: Any,
    ) -> str:
        """Queue an event and the CAUSED links from its causes; return its id.

        Args:
            kind: run, message, curation, proposal, decision, action, sync or commit.
            event_id: its id (runs, syncs, proposals, messages); default a new one.
            at: when it happened (default the commit time).
            actor: who acted (see `graph.records.EventRecord`).
            causes: ids of the events that caused it (None entries are skipped); an
                event made in an earlier commit (a held proposal) is linked to as well.
            detail: fields of `graph.cypher.events.EVENT_FIELDS`.

        Raises:
            ValueError: a detail field that events do not carry (a programming error).
        """
        unknown = set(detail) - set(EVENT_FIELDS)
        if unknown:
            raise ValueError(f"unknown event fields: {sorted(unknown)}")
        eid = event_id or new_id(PREFIX[kind])
        self._events[eid] = {
            "key": event_key(self.owner, eid),
            "id": eid,
            "kind": kind,
            "at": at or self.t,
            "actor": actor,
            **{f: detail.get(f) for f in EVENT_FIELDS},
        }
        for cause in causes:
            if cause is not None and cause != eid:
                self.link(cause, eid)
        return eid

    def act(self, kind: str, **kwargs: Any) -> str:
        """Queue an event (as `event`) and make it the cause of what follows."""
        self.cause = self.event(kind, **kwargs)
        return self.cause

    def link(self, cause: str, effect: str) -> None:
        """Queue a CAUSED link between two events (by id)."""
        link = {"from": event_key(self.owner, cause), "to": event_key(self.owner, effect)}
        if link not in self._links:
            self._links.append(link)

    def wrote(self, items: Iterable[tuple[str, str]]) -> None:
        """Rows recorded for the current cause: (fact id, op: created|remainder|restored)."""
        self._wrote.extend({"fact_id": i, "op": op, "cause": self._cause()} for i, op in items)

    def ended(self, items: Iterable[tuple[str, str]]) -> None:
        """Rows retracted for the current cause: (fact id, op: superseded|coalesced|
        invalidated|retracted|moved)."""
        self._ended.extend({"fact_id": i, "op": op, "cause": self._cause()} for i, op in items)

    def changed(self, entity_id: str, op: str) -> None:
        """An entity changed for the current cause (archived|unarchived|merged|split)."""
        self._changed.append({"entity_id": entity_id, "op": op, "cause": self._cause()})

    def noted(self, rel: str, items: Iterable[tuple[str, str, str]]) -> None:
        """Note rows recorded (`rel` WROTE: op created|replaced|remainder|moved) or retracted
        (ENDED: op superseded|retired|moved) for the current cause: (row id, the row's
        owner, op). CONTRACT §13: notes keep the same audit trail as facts."""
        self._noted.extend(
            {"note_id": i, "owner": o, "rel": rel, "op": op, "cause": self._cause()}
            for i, o, op in items
        )

    def forgot(self, episode_ids: Iterable[str]) -> None:
        """Episodes forgotten for the current cause (CONTRACT §12), op `forgotten`."""
        self._forgot.extend(
            {"episode_id": i, "op": "forgotten", "cause": self._cause()} for i in episode_ids
        )

    def filed(self, episode_ids: Iterable[str], cause: str) -> None:
        """Episodes a run's curation filed (CONTRACT §12), op `recorded`, for `cause` (the
        run's curation event: `GET /v1/events/{run_id}/effects` lists them, §8)."""
        self._served.add(cause)
        self._filed.extend({"episode_id": i, "op": "recorded", "cause": cause} for i in episode_ids)

    def moved(self, new_fact_id: str, old_fact_id: str) -> None:
        """A row a merge or split recorded stands for a row it moved (for `why`)."""
        if new_fact_id != old_fact_id:
            self._moved.append({"from": new_fact_id, "to": old_fact_id})

    def fold(self, gone: str, into: str) -> None:
        """A row queued as written is not written after all: `into`, written in the
        same commit, folded it in (committer/batch.py). Its effect is dropped and the
        rows it was moved from are recorded for `into` (for `why`)."""
        self._wrote = [w for w in self._wrote if w["fact_id"] != gone]
        self._ended = [e for e in self._ended if e["fact_id"] != gone]
        moved = [
            {"from": into if m["from"] == gone else m["from"], "to": m["to"]} for m in self._moved
        ]
        self._moved = [m for i, m in enumerate(moved) if m not in moved[:i]]

    def _cause(self) -> str:
        cause = self.cause or self.commit_id
        self._served.add(cause)
        return cause

    def flush(self) -> None:
        """Write what is queued: events, links, and the commit's effects (after the rows
        they point at exist: `Batch.flush` calls this after recording its rows)."""
        commit = None
        if (
            self._wrote
            or self._ended
            or self._changed
            or self._noted
            or self._forgot
            or self._filed
        ):
            commit = event_key(self.owner, self.commit_id)
            if not self._committed:
                self.event("commit", event_id=self.commit_id, actor=COMMITTER)
                self._committed = True
            for cause in sorted(self._served - {self.commit_id}):
                self.link(cause, self.commit_id)
            self._served.clear()
        self.w.record_trail(
            self.owner,
            events=list(self._events.values()),
            links=self._links,
            commit=commit,
            wrote=self._wrote,
            ended=self._ended,
            changed=self._changed,
            moved=self._moved,
            noted=self._noted,
            forgot=self._forgot,
            filed=self._filed,
        )
        self._noted, self._filed = [], []
        self._events, self._links, self._moved, self._forgot = {}, [], [], []
        self._wrote, self._ended, self._changed = [], [], []
