"""The person's decisions, as committer commands: keep, discard, replies, notifications,
merge suggestions and merges (CONTRACT §3, §4, §5).

A mixin of `committer.apply.Committer`: each method is one write transaction that locks
the owner first (`begin_commit`), like every other commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from committer import filing as review
from committer.base import CommitterBase
from committer.merge import MergeResult, merge_entities
from committer.owners import ensure_owner, live_entity
from committer.proposals import Candidate, Reviewed, pair_key
from committer.trail import Trail
from graph.errors import Conflict, NotFound
from graph.records import FactRecord, MergeSuggestionRecord, ProposalRecord
from graph.time import utcnow
from graph.write.writer import WriteTx, new_id

T = TypeVar("T")


class DecisionCommands(CommitterBase):
    """Decisions a person makes about proposals, notifications and entities."""

    def _commit(self, owner: str, work: Callable[[WriteTx, str, datetime], T]) -> T:
        def run(w: WriteTx) -> T:
            self_id, _ = ensure_owner(w, owner)
            t = w.begin_commit(owner, utcnow())
            return work(w, self_id, t)

        return self._writer.transaction(run)

    def keep_proposal(
        self, owner: str, proposal_id: str, by: str = "rest"
    ) -> tuple[ProposalRecord, FactRecord | None]:
        """Keep a pending proposal: the committer writes it (CONTRACT §3).

        Returns:
            (the proposal, now `kept`; the row standing for it, or None for an `end`
            that found nothing to end).

        Raises:
            NotFound: no such proposal for this owner.
            Conflict: it is not pending (kept or discarded before).
        """

        def work(w: WriteTx, self_id: str, t: datetime) -> tuple[ProposalRecord, FactRecord | None]:
            rec, fact_id = review.keep(
                w, owner, self_id, proposal_id, by, t, Trail(w, owner, t), self.note_limit
            )
            return rec, None if fact_id is None else w.fact(owner, fact_id)

        return self._commit(owner, work)

    def discard_proposal(self, owner: str, proposal_id: str, by: str = "rest") -> ProposalRecord:
        """Discard a pending proposal and suppress its assertion (CONTRACT §3).

        Raises:
            NotFound: no such proposal for this owner.
            Conflict: it is not pending.
        """
        return self._commit(
            owner,
            lambda w, self_id, t: review.discard(
                w, owner, self_id, proposal_id, by, t, Trail(w, owner, t)
            ),
        )

    def resolve(
        self, owner: str, keep: Sequence[str], discard: Sequence[str], by: str
    ) -> tuple[list[str], list[str]]:
        """Keep and discard several pending proposals in one transaction (a chat reply).

        A proposal decided meanwhile (say, kept over REST a moment before) is skipped, so
        the person's answer still holds for the others.

        Returns:
            (ids kept, ids discarded) by this call.
        """

        def work(w: WriteTx, self_id: str, t: datetime) -> tuple[list[str], list[str]]:
            def still_pending(pid: str) -> bool:
                found = w.proposal(owner, pid)
                return found is not None and found.status == "pending"

            trail = Trail(w, owner, t)
            kept = [pid for pid in keep if still_pending(pid)]
            for pid in kept:
                review.keep(w, owner, self_id, pid, by, t, trail, self.note_limit)
            dropped = [pid for pid in discard if still_pending(pid)]
            for pid in dropped:
                review.discard(w, owner, self_id, pid, by, t, trail)
            return kept, dropped

        return self._commit(owner, work)

    def file_proposals(
        self, owner: str, chat_id: str | None, reviewed: Sequence[Reviewed]
    ) -> list[ProposalRecord]:
        """File proposals that come from the person directly, outside a run (the MCP
        `remember` tool), in one transaction: each already carries its risk decision
        (curator.policy), so low-risk ones are committed and the rest held pending,
        invisible to reads until kept, with a notification in `chat_id` (CONTRACT §3).

        Args:
            owner: the owner id (created if new).
            chat_id: the chat the proposals surface in, or None for the main chat.
            reviewed: the proposals with their decisions.

        Returns:
            The stored proposals (`committed` or `pending`), in order; a suppressed one
            (discarded before) is left out.
        """

        def work(w: WriteTx, self_id: str, t: datetime) -> list[ProposalRecord]:
            trail = Trail(w, owner, t)  # CONTRACT §8: the person's "remember" caused them
            said = trail.act("action", actor="person", action="remember", chat_id=chat_id)
            review.store_reviewed(
                w, owner, self_id, chat_id, reviewed, t, trail, lambda _: [said], self.note_limit
            )
            found = [w.proposal(owner, review.public_id(owner, r.proposal.id)) for r in reviewed]
            return [p for p in found if p is not None]

        return self._commit(owner, work)

    def acknowledge(self, owner: str, notification_id: str) -> None:
        """Acknowledge a notification (idempotent).

        Raises:
            NotFound: no such notification for this owner.
        """

        def work(w: WriteTx) -> None:
            if not w.notification_exists(owner, notification_id):
                raise NotFound("notification", notification_id)
            w.acknowledge(owner, ids=[notification_id], t=utcnow())

        self._writer.transaction(work)

    # --- merges --------------------------------------------------------------------------

    def suggest_merges(
        self, owner: str, candidates: Sequence[Candidate]
    ) -> list[MergeSuggestionRecord]:
        """Raise merge suggestions for new pairs, each with a main-chat notification.

        A pair suggested before (open, confirmed or declined) is never suggested again.

        Returns:
            The suggestions created by this call.
        """

        def work(w: WriteTx, self_id: str, t: datetime) -> list[MergeSuggestionRecord]:
            out = []
            for c in candidates:
                a, b = sorted(c.entity_ids)
                rec, created = w.suggest_merge(
                    owner,
                    key=pair_key(owner, a, b),
                    suggestion_id=new_id("mrg"),
                    entity_ids=(a, b),
                    reason=c.reason,
                    score=c.score,
                    t=t,
                )
                if created:
                    names = w.entity_names(owner, [a, b])
                    w.notify(
                        owner,
                        [
                            {
                                "id": "ntf_" + rec.id[4:],
                                "kind": "merge_suggestion",
                                "suggestion_id": rec.id,
                                "text": (
                                    f"Are these the same? {names.get(a, a)} and "
                                    f"{names.get(b, b)} ({c.reason})"
                                ),
                            }
                        ],
                        t,
                    )
                    out.append(rec)
            return out

        return self._commit(owner, work)

    def confirm_suggestion(
        self, owner: str, suggestion_id: str
    ) -> tuple[MergeSuggestionRecord, MergeResult]:
        """Confirm a merge suggestion: the younger entity merges into the older one (the
        owner's own entity always survives) (CONTRACT §4, §5).

        An entity merged since the suggestion stands for its survivor; when both already
        are one, confirming only records the answer.

        Raises:
            NotFound: no such suggestion. Conflict: it is not open.
        """

        def work(
            w: WriteTx, self_id: str, t: datetime
        ) -> tuple[MergeSuggestionRecord, MergeResult]:
            rec = w.decide_suggestion(owner, suggestion_id, "confirmed", t)
            if rec is None:
                _missing_or_decided(w.suggestion(owner, suggestion_id), suggestion_id)
            assert rec is not None
            # Either may have been merged since: act on what each id stands for now.
            a, b = (live_entity(w, owner, i) for i in rec.entity_ids)
            survivor, loser = sorted((a, b), key=lambda e: (e.id != self_id, e.created_at, e.id))
            trail = Trail(w, owner, t)
            trail.act(
                "decision",
                actor="rest",
                decision="confirm_merge",
                suggestion_id=suggestion_id,
                entity_id=loser.id,
                target_id=survivor.id,
            )
            if survivor.id == loser.id:  # already one entity: nothing left to merge
                gone = next(w.entity(owner, i) for i in rec.entity_ids if i != survivor.id)
                result = MergeResult(survivor, gone, 0, (), trail.cause)
                trail.flush()
            else:
                result = merge_entities(w, owner, self_id, loser.id, survivor.id, t, trail)
            w.acknowledge(owner, suggestion_ids=[suggestion_id], t=t)
            return rec, result

        return self._commit(owner, work)

    def decline_suggestion(self, owner: str, suggestion_id: str) -> MergeSuggestionRecord:
        """Decline a merge suggestion; the pair is never suggested again (CONTRACT §4).

        Raises:
            NotFound: no such suggestion. Conflict: it is not open.
        """

        def work(w: WriteTx, self_id: str, t: datetime) -> MergeSuggestionRecord:
            rec = w.decide_suggestion(owner, suggestion_id, "declined", t)
            if rec is None:
                _missing_or_decided(w.suggestion(owner, suggestion_id), suggestion_id)
            assert rec is not None
            w.acknowledge(owner, suggestion_ids=[suggestion_id], t=t)
            return rec

        return self._commit(owner, work)

    def merge(self, owner: str, entity_id: str, into: str, by: str = "rest") -> MergeResult:
        """Merge `entity_id` into `into` directly (CONTRACT §5, `POST /v1/entities/{id}/merge`).

        Recorded as the person's `merge` action (actor `by`; CONTRACT §8).

        Raises:
            NotFound: either entity is not the owner's. InvalidInput: same id.
            Conflict: already merged, or `entity_id` is the owner's own entity.
        """

        def work(w: WriteTx, self_id: str, t: datetime) -> MergeResult:
            trail = Trail(w, owner, t)
            trail.act("action", actor=by, action="merge", entity_id=entity_id, target_id=into)
            return merge_entities(w, owner, self_id, entity_id, into, t, trail)

        return self._commit(owner, work)


def _missing_or_decided(found: MergeSuggestionRecord | None, suggestion_id: str) -> None:
    if found is None:
        raise NotFound("merge suggestion", suggestion_id)
    raise Conflict(f"merge suggestion {suggestion_id!r} is already {found.status}")
