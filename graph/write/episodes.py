"""Write primitives for episodes, what was said (CONTRACT §12), for `committer` only.

A mixin of `graph.write.writer.WriteTx`: each method runs inside the caller's write
transaction (the owner locked by `begin_commit`) and is scoped by owner. An episode is
created once and never rewritten, except `retracted_at`, set once when it is forgotten.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graph.cypher import episode_writes as pc
from graph.errors import Conflict
from graph.time import FAR_FUTURE, epoch_parts
from graph.write.base import WriteBase


class EpisodeWrites(WriteBase):
    """Episode writes inside one transaction."""

    def create_episodes(
        self, owner: str, episodes: Sequence[dict[str, Any]], t: datetime, model: str | None
    ) -> set[str]:
        """Record episodes at commit time `t`, with their search text and vector.

        Args:
            owner: the owner id.
            episodes: maps of id, chat_id, run_id, message_id, seq, part, surface, role,
                speaker_id, text, said_at (aware UTC), source, search_text, embedding
                (floats, or None), and optionally withheld (bool: never pushed nor found).
            t: the commit time.
            model: the id of the model that made the embeddings (None when there are none).

        Returns:
            The ids this call created (one that exists is left alone: idempotent on id).
        """
        if not episodes:
            return set()
        wire = []
        for e in episodes:
            item = {k: v for k, v in e.items() if k != "said_at"}
            item["said_at_s"], item["said_at_ns"] = epoch_parts(e["said_at"])
            wire.append(item)
        rows = self._run(
            pc.CREATE_EPISODES, owner=owner, episodes=wire, t=t, far=FAR_FUTURE, model=model
        )
        return {r["id"] for r in rows}

    def episode_run(self, owner: str, episode_id: str) -> tuple[str, bool] | None:
        """Return (run id, not forgotten yet) of an episode of `owner`, or None."""
        rows = self._run(pc.EPISODE_RUN, owner=owner, episode_id=episode_id, far=FAR_FUTURE)
        return (rows[0]["run_id"], bool(rows[0]["current"])) if rows else None

    def current_episodes(
        self, owner: str, run_id: str, episode_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Return {id, message_id, part, role} of the run's episodes not forgotten yet (of
        just `episode_id`, when given), in run order."""
        rows = self._run(
            pc.CURRENT_EPISODES, owner=owner, run_id=run_id, episode_id=episode_id, far=FAR_FUTURE
        )
        return [r.data() for r in rows]

    def retract_episodes(self, owner: str, ids: Sequence[str], t: datetime, *, facts: bool) -> None:
        """Set `retracted_at = t` on current episodes `ids` (CONTRACT §12 forget), and
        `forgot_facts = facts`: whether the facts whose only evidence they are go too (a
        later forget with facts counts only those as forgotten evidence).

        Raises:
            Conflict: one of them is not a current episode of this owner (the caller's
                transaction is rolled back).
        """
        if not ids:
            return
        rows = self._run(
            pc.RETRACT_EPISODES, owner=owner, ids=list(ids), t=t, facts=facts, far=FAR_FUTURE
        )
        if rows[0]["retracted"] != len(set(ids)):
            raise Conflict("an episode to forget is already forgotten; nothing was written")

    def message_speakers(
        self, owner: str, run_id: str, message_ids: Sequence[str]
    ) -> dict[str, str | None]:
        """Return message id -> the person entity who said it, for messages of a run."""
        if not message_ids:
            return {}
        rows = self._run(
            pc.MESSAGE_SPEAKERS, owner=owner, run_id=run_id, message_ids=list(message_ids)
        )
        return {r["message_id"]: r["speaker_id"] for r in rows}

    def rows_of_messages(
        self, owner: str, run_id: str, message_ids: Sequence[str] | None
    ) -> list[dict[str, Any]]:
        """Return the current rows drawn from messages of a run, each with its evidence.

        Args:
            owner: the owner id.
            run_id: the run.
            message_ids: its messages, or None for every message of the run.

        Returns:
            Maps {id, entity_id, attribute, evidence: [[run_id, message_id, source]]}
            (graph/cypher/episode_writes.py ROWS_OF_MESSAGES), by entity and attribute.
        """
        rows = self._run(
            pc.ROWS_OF_MESSAGES,
            owner=owner,
            run_id=run_id,
            message_ids=None if message_ids is None else list(message_ids),
            far=FAR_FUTURE,
        )
        return [r.data() for r in rows]

    def forgotten_parts(
        self, owner: str, messages: Sequence[tuple[str, str]]
    ) -> dict[tuple[str, str], dict[str, tuple[str, bool]]]:
        """Return (run id, message id) -> {part: (role, facts)} of the message parts whose
        episode is forgotten, among `messages`, `facts` telling whether that forget took the
        facts whose only evidence they were (graph/cypher/episode_writes.py FORGOTTEN_PARTS)."""
        if not messages:
            return {}
        rows = self._run(
            pc.FORGOTTEN_PARTS,
            owner=owner,
            messages=[list(m) for m in dict.fromkeys(messages)],
            far=FAR_FUTURE,
        )
        out: dict[tuple[str, str], dict[str, tuple[str, bool]]] = {}
        for r in rows:
            parts = out.setdefault((r["run_id"], r["message_id"]), {})
            parts[r["part"]] = (r["role"], bool(r["facts"]))
        return out

    def evidence_of_rows(self, owner: str, ids: Sequence[str]) -> dict[str, list[list[Any]]]:
        """Return row id -> its evidence, [[run_id, message_id, source]] (graph/cypher/
        episode_writes.py EVIDENCE_OF_ROWS), for rows of `owner` on any axis."""
        if not ids:
            return {}
        rows = self._run(pc.EVIDENCE_OF_ROWS, owner=owner, ids=list(ids))
        return {r["id"]: r["evidence"] for r in rows}

    def unembedded_episodes(self, owner: str, model: str, limit: int) -> list[dict[str, Any]]:
        """Return up to `limit` episodes of `owner` with no vector of `model`: {id, text}."""
        rows = self._run(pc.UNEMBEDDED_EPISODES, owner=owner, model=model, limit=limit)
        return [r.data() for r in rows]

    def embed_episodes(self, owner: str, rows: Sequence[dict[str, Any]], model: str) -> None:
        """Set the vectors of episodes of `owner`: rows {id, embedding}, made by `model`."""
        if rows:
            self._run(pc.EMBED_EPISODES, owner=owner, rows=list(rows), model=model)
