"""Reads of workflow state and of usage records (CONTRACT §14).

A part of `graph.read.reader.Reader`: READ transactions only. State reads AND
`graph.scope.held_visible` with a `Reach` (the owner's own holder, or a group it belongs to
now); usage is read by owner only.
"""

from __future__ import annotations

from datetime import datetime

from graph.cypher import state as sc
from graph.cypher import usage as uc
from graph.errors import NotFound
from graph.held import Holder, StateRecord, UsageSum
from graph.read.base import ReadBase
from graph.scope import Reach, reach_params
from graph.time import utcnow


class StateReads(ReadBase):
    """Workflow state and usage."""

    def state(
        self,
        reach: Reach,
        holder: Holder,
        workflow: str,
        key: str,
        known_at: datetime | None = None,
    ) -> StateRecord:
        """Return the value of (holder, workflow, key) believed at `known_at` (default now).

        Raises:
            NotFound: no value then (never written, deleted, or a holder the reach does
                not see: another owner's, or a group the caller is not a member of).
        """
        rows = self._rows(
            sc.STATE_AS_OF,
            holder=holder.key,
            workflow=workflow,
            key=key,
            known_at=known_at or utcnow(),
            **reach_params(reach),
        )
        found = sc.state_from_record(rows[0]["s"]) if rows else None
        if found is None or found.deleted:
            raise NotFound("state", f"{workflow}/{key}")
        return found

    def usage_summary(
        self, owner: str, start: datetime, end: datetime, group_by: str
    ) -> list[UsageSum]:
        """Sum the owner's usage records of turns in `[start, end)` by `group_by`
        (`surface`, `model` or `day`, a UTC date), ordered by key."""
        rows = self._rows(uc.SUMMARY, owner=owner, **{"from": start, "to": end}, group_by=group_by)
        return [uc.sum_from_record(r) for r in rows]
