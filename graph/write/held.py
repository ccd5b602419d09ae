"""Write primitives for knowledge documents, workflow state, the access log and usage
(CONTRACT §14), for `committer` only.

A part of `graph.write.writer.WriteTx`: every method runs inside the caller's write
transaction. Versions are created and later retracted once; nothing is deleted (owner
erasure, graph/write/erasure.py, is the one hard delete).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from graph.cypher import access_log as lc
from graph.cypher import entities as ec
from graph.cypher import holders as hc
from graph.cypher import knowledge as kc
from graph.cypher import state as sc
from graph.cypher import usage as uc
from graph.held import AccessLogRecord, DocumentRecord, StateRecord, UsageRecord
from graph.scope import GROUPS_OF
from graph.time import FAR_FUTURE, from_store
from graph.write.base import WriteBase

TICK = timedelta(microseconds=1)


class HeldWrites(WriteBase):
    """Document, state, access-log and usage writes inside one transaction."""

    def group_clock(self, owner: str, group_id: str, t: datetime) -> tuple[str, datetime] | None:
        """Lock a group (after `begin_commit` locked `owner`) and return (its creator, this
        commit's time): later than both `t` and the group's last commit, so the versions of
        one group's documents and values get strictly increasing times whoever writes them
        (CONTRACT §2). None when no such group exists.
        """
        rows = self._run(hc.GROUP_CLOCK, group_id=group_id, tx_id=uuid.uuid4().hex)
        if not rows:
            return None
        last = rows[0]["last_tx"]
        if last is not None:
            t = max(t, from_store(last) + TICK)
        self._run(hc.SET_GROUP_CLOCK, group_id=group_id, t=t)
        self._run(ec.SET_TX_TIME, owner=owner, t=t)
        return rows[0]["owner"], t

    # --- knowledge documents ------------------------------------------------------------

    def current_document(self, holder: str, name: str) -> DocumentRecord | None:
        """The document's current version (retired or not), or None if it never existed."""
        rows = self._run(kc.CURRENT_DOC, holder=holder, name=name, far=FAR_FUTURE)
        return kc.document_from_record(rows[0]["k"]) if rows else None

    def live_documents(self, holder: str) -> list[dict[str, Any]]:
        """name, digest, source, path, version of the holder's live documents, by name."""
        return [r.data() for r in self._run(kc.LIVE_DOCS, holder=holder, far=FAR_FUTURE)]

    def document_version(self, holder: str, name: str, version: int) -> DocumentRecord | None:
        """One version of a document of `holder` (the caller checked the holder), or None."""
        rows = self._run(
            kc.VERSION_IN,
            holder=holder,
            name=name,
            version=version,
            held={"readable": True, "own": holder, "groups": []},
        )
        return kc.document_from_record(rows[0]["k"]) if rows else None

    def record_documents(
        self,
        holder: str,
        *,
        owner: str,
        group_id: str | None,
        author: str,
        token_id: str | None,
        cause: str,
        docs: Sequence[dict[str, Any]],
        t: datetime,
    ) -> list[tuple[DocumentRecord, list[str]]]:
        """Record a new version of each document in `docs` at `t` (retracting its current
        one); return each new version with the ids it retracted.

        Args:
            holder: the holder key.
            owner: whom erasure removes them with (the owner, or the group's creator).
            group_id: the holding group, or None.
            author, token_id: who made the change.
            cause: the action or sync event id.
            docs: maps of graph/cypher/knowledge.py RECORD_VERSIONS `$docs`.
            t: the commit time.
        """
        if not docs:
            return []
        rows = self._run(
            kc.RECORD_VERSIONS,
            holder=holder,
            owner=owner,
            group_id=group_id,
            author=author,
            token_id=token_id,
            cause=cause,
            docs=list(docs),
            t=t,
            far=FAR_FUTURE,
        )
        return [(kc.document_from_record(r["k"]), list(r["ended"])) for r in rows]

    def link_document_effects(
        self, actor: str, commit: str, cause: str, wrote: Sequence[str], ended: Sequence[str]
    ) -> None:
        """The commit `commit` (an event key of `actor`) recorded `wrote` and retracted
        `ended` (version ids) for `cause` (CONTRACT §8)."""
        self._run(
            kc.LINK_EFFECTS,
            actor=actor,
            commit=commit,
            cause=cause,
            wrote=list(wrote),
            ended=list(ended),
        )

    # --- workflow state -----------------------------------------------------------------

    def current_state(self, holder: str, workflow: str, key: str) -> StateRecord | None:
        """The value's current version (a deletion included), or None if never written."""
        rows = self._run(
            sc.CURRENT_STATE, holder=holder, workflow=workflow, key=key, far=FAR_FUTURE
        )
        return sc.state_from_record(rows[0]["s"]) if rows else None

    def state_by_idempotency(self, idem: str) -> StateRecord | None:
        """The version an earlier write with this idempotency key made, or None."""
        rows = self._run(sc.BY_IDEMPOTENCY, idem=idem)
        return sc.state_from_record(rows[0]["s"]) if rows else None

    def record_state(self, **fields: Any) -> tuple[StateRecord, list[str]]:
        """Record a new version of a value (graph/cypher/state.py RECORD_STATE's parameters
        but `far`), retracting the current one; return it and the ids it retracted."""
        row = self._run(sc.RECORD_STATE, far=FAR_FUTURE, **fields)[0]
        return sc.state_from_record(row["s"]), list(row["ended"])

    def link_state_effects(
        self, actor: str, commit: str, cause: str, wrote: Sequence[str], ended: Sequence[str]
    ) -> None:
        """As `link_document_effects`, for state versions."""
        self._run(
            sc.LINK_EFFECTS,
            actor=actor,
            commit=commit,
            cause=cause,
            wrote=list(wrote),
            ended=list(ended),
        )

    # --- the access log and usage ---------------------------------------------------------

    def groups_now(self, owner: str) -> list[str]:
        """The ids of the groups `owner` is a member of now, sorted."""
        rows = self._run(GROUPS_OF, who={"owner": owner}, far=FAR_FUTURE)
        return sorted(rows[0]["ids"]) if rows else []

    def group_has_curator(self, group_id: str) -> bool:
        """A current member of the group holds a live token with the `curate` scope."""
        rows = self._run(lc.GROUP_HAS_CURATOR, group_id=group_id, far=FAR_FUTURE)
        return bool(rows and rows[0]["found"])

    def record_attempt(self, entry: AccessLogRecord) -> None:
        """Create one access-log entry (graph/cypher/access_log.py RECORD_ATTEMPT)."""
        self._run(
            lc.RECORD_ATTEMPT,
            id=entry.id,
            owner=entry.owner,
            token_id=entry.token_id,
            surface=entry.surface,
            group_id=entry.group_id,
            topic=entry.topic,
            outcome=entry.outcome,
            reason=entry.reason,
            document=entry.document,
            version=entry.version,
            t=entry.at,
        )

    def record_usage(self, **fields: Any) -> tuple[UsageRecord, bool, str]:
        """Store a usage record unless one with its key exists; return (the stored record,
        True when created now, the stored digest)."""
        row = self._run(uc.RECORD_USAGE, **fields)[0]
        return uc.usage_from_record(row["u"]), bool(row["created"]), row["u"]["digest"]
