"""The run queue as committer commands: submit, claim, heartbeat, release, apply and close a
curated run (CONTRACT §4). Each method is one write transaction; applying a run checks its
lease inside the transaction that writes its proposals, so a worker that lost its run writes
nothing and nothing is applied twice.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from committer.base import CommitterBase
from committer.episodes import embed_run
from committer.filing import record_run
from committer.owners import ensure_owner
from committer.proposals import Reviewed, Said
from committer.trail import Trail
from graph.errors import Conflict, TooBusy
from graph.records import RunRecord, run_key
from graph.time import utcnow
from graph.write.writer import WriteTx

RUN_QUEUE_RETRY_SECONDS = 30.0
"""`Retry-After` of a run refused because the owner's queue is full."""
MAX_ATTEMPTS = 5
"""Claims of one run after which it is given up as `failed` (CONTRACT §4)."""
RETRY_BASE_SECONDS = 5.0
"""First retry delay of a released run; it doubles per try."""
RETRY_MAX_SECONDS = 300.0
"""Longest retry delay of a released run."""
SPREAD = 4
"""A claim starts at one of this many of the oldest claimable stripes, at random, so
concurrent claims mostly take different stripes' locks while the oldest runs still go
first (each of them is tried first by one claim in `SPREAD`, and next by the others)."""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """Counts of one run's proposals (CONTRACT §10 `GET /v1/runs/{id}`)."""

    proposals: int
    committed: int
    held: int
    entity_ids: tuple[str, ...] = ()
    """Entities the committed proposals touched (for merge suggestions)."""


class RunCommands(CommitterBase):
    """The run queue's commands."""

    def submit_run(
        self,
        owner: str,
        *,
        run_id: str,
        chat_id: str,
        surface: str | None,
        payload: str,
        canonical: str | None = None,
        max_waiting: int = 0,
    ) -> tuple[RunRecord, bool]:
        """Queue a finished run for the curator; idempotent on run id (CONTRACT §4).

        Args:
            owner: the owner id.
            run_id: the client's run id (unique per owner).
            chat_id: the chat it came from.
            surface: where it ran, or None.
            payload: the run as JSON text (messages, observations).
            canonical: the form compared for idempotency (e.g. with times in UTC, so the
                same instant written in another offset is the same run); default payload.
            max_waiting: a new run is refused while the owner has this many runs queued
                or being curated (0: no bound); a run posted again is never refused.

        Returns:
            (the stored run, True if this call queued it).

        A run of a chat whose memory access is `none` is stored without its content
        (payload `{}`; CONTRACT §7, §12: that chat's messages are never stored); the
        digest still makes a repost with other content a conflict.

        Raises:
            Conflict: the run id was posted before with different content, or is a
                sync's id (CONTRACT §10: both are event ids).
            TooBusy: `max_waiting` runs of the owner are waiting (retry later).
        """
        digest = hashlib.sha256((canonical or payload).encode()).hexdigest()

        def work(w: WriteTx) -> tuple[RunRecord, bool]:
            ensure_owner(w, owner)
            if max_waiting and not w.run_exists(owner, run_id):
                waiting = w.runs_waiting(owner)
                if waiting >= max_waiting:
                    raise TooBusy(
                        f"{waiting} runs of this owner wait for the curator (bound "
                        f"{max_waiting}, WORLDSTATE_RUNS_QUEUED_PER_OWNER); post again later",
                        RUN_QUEUE_RETRY_SECONDS,
                    )
            taken = w.event(owner, run_id)
            if taken is not None and taken.kind != "run":
                raise Conflict(
                    f"id {run_id!r} is already the id of a {taken.kind}; a run's "
                    "event id is its run id, so runs and syncs need distinct ids"
                )
            closed = w.memory_access(owner, chat_id).mode == "none"
            return w.create_run(
                owner,
                key=run_key(owner, run_id),
                run_id=run_id,
                chat_id=chat_id,
                surface=surface,
                payload="{}" if closed else payload,
                digest=digest,
                now=utcnow(),
            )

        return self._writer.transaction(work)

    def claim_run(
        self, worker: str, lease_seconds: float = 30.0, max_attempts: int = MAX_ATTEMPTS
    ) -> RunRecord | None:
        """Claim one of the oldest claimable runs of any owner for `worker`, atomically
        (CONTRACT §4).

        Claimable: `queued` and past its `retry_at`, or `curating` with a lapsed lease
        (its worker died: takeover). The queue is striped by owner (graph/write/runs.py):
        the claim reads which stripes hold claimable runs (without a lock), then takes
        the lock of one of them (graph/cypher/runs.py LOCK_STRIPE) and its oldest run, in
        one transaction; so two workers never hold one run, and claims of different
        stripes never wait for each other. A stripe emptied meanwhile is followed by the
        next, each in a transaction of its own.

        Args:
            worker: the claiming worker's id (host-pid-random).
            lease_seconds: how long the claim holds without a heartbeat.
            max_attempts: a run claimed this many times already is closed `failed`.

        Returns:
            The run `curating` under `worker`'s lease; or a run closed at once: `skipped`
            (its chat's memory access is `none`, CONTRACT §7; its payload is neither
            read nor returned) or `failed` (attempts exhausted); None when none waits.
        """
        lease = timedelta(seconds=lease_seconds)

        def first(w: WriteTx) -> tuple[RunRecord | None, list[int]]:
            stripes = w.claimable_stripes(utcnow())
            if not stripes:
                return None, []
            start = random.randrange(min(len(stripes), SPREAD))
            order = stripes[start:] + stripes[:start]
            return w.claim_run(worker, utcnow(), lease, max_attempts, order[0]), order[1:]

        run, rest = self._writer.transaction(first)
        for stripe in rest:
            if run is not None:
                break

            def claim(w: WriteTx, stripe: int = stripe) -> RunRecord | None:
                return w.claim_run(worker, utcnow(), lease, max_attempts, stripe)

            run = self._writer.transaction(claim)
        return run

    def heartbeat(self, run: RunRecord, worker: str, lease_seconds: float) -> bool:
        """Extend `worker`'s lease on `run` to now + `lease_seconds`.

        Returns:
            False when the lease is no longer `worker`'s (it lapsed and another worker
            took the run over, or the run was closed): the worker's apply will fail.
        """
        lease = timedelta(seconds=lease_seconds)
        return self._writer.transaction(
            lambda w: w.heartbeat_run(
                run_key(run.owner, run.id), run.stripe, worker, utcnow(), lease
            )
        )

    def release_run(
        self,
        run: RunRecord,
        worker: str,
        error: str | None,
        *,
        count_attempt: bool = False,
        retry_in: float | None = None,
        max_attempts: int = MAX_ATTEMPTS,
    ) -> bool:
        """Put a run `worker` holds back in the queue, to be retried later (CONTRACT §4).

        For a run that could not be curated now through no fault of its own (the LLM
        extractor's endpoint failing, a worker stopping): the run is never lost.

        Args:
            run: the claimed run.
            worker: the worker holding its lease.
            error: why, kept on the run (never message text), or None.
            count_attempt: count this attempt against `max_attempts` (the run itself
                failed); then a run out of attempts is closed `failed` instead.
            retry_in: seconds before it may be claimed again; default an exponential
                backoff, `RETRY_BASE_SECONDS` doubling per try up to `RETRY_MAX_SECONDS`.
            max_attempts: see `count_attempt`.

        Returns:
            False when the lease was no longer `worker`'s (nothing changed).
        """
        if count_attempt and run.attempts >= max_attempts:
            return self.close_run(run, "failed", error, worker=worker)
        if retry_in is None:
            tries = max(run.attempts + run.releases, 1)
            retry_in = min(RETRY_BASE_SECONDS * 2 ** (tries - 1), RETRY_MAX_SECONDS)

        def work(w: WriteTx) -> bool:
            now = utcnow()
            return w.release_run(
                run_key(run.owner, run.id),
                run.stripe,
                worker,
                refund=not count_attempt,
                retry_at=now + timedelta(seconds=retry_in),
                error=error,
                now=now,
            )

        return self._writer.transaction(work)

    def apply_run(
        self,
        run: RunRecord,
        reviewed: Sequence[Reviewed],
        *,
        worker: str,
        said: Sequence[Said] = (),
    ) -> RunOutcome:
        """Store a claimed run's episodes and reviewed proposals and mark it done, in one
        transaction.

        Each message the curator handed over (`said`, secrets already redacted) is kept as
        an episode (CONTRACT §12); low-risk proposals are committed, the rest held pending
        for the person, and suppressed ones dropped (CONTRACT §3,
        `committer.filing.record_run`). Either all of it lands and the run is `done`, or
        nothing does (CONTRACT §4: nothing is applied twice; proposals and episodes are
        idempotent on id).

        Raises:
            Conflict: the run is no longer being curated under `worker`'s lease (it lapsed
                and another worker took the run over, or it was finished): nothing is
                written.
        """

        # Embedded before the transaction, the messages and the rows' likely texts in one
        # call: the owner is not locked while the embedder runs (issue 12).
        embedded, embedder = embed_run(run.owner, said, reviewed, self._writer.embedder)

        def work(w: WriteTx) -> RunOutcome:
            self_id, _ = ensure_owner(w, run.owner)
            t = w.begin_commit(run.owner, utcnow())
            trail = Trail(w, run.owner, t)
            review = record_run(
                w,
                run.owner,
                self_id,
                run,
                reviewed,
                t,
                trail,
                worker,
                said,
                embedded,
                note_limit=self.note_limit,
            )
            outcome = RunOutcome(review.proposals, review.committed, review.held, review.entity_ids)
            if not w.finish_run(
                run_key(run.owner, run.id),
                stripe=run.stripe,
                worker=worker,
                status="done",
                proposals=review.proposals,
                committed=review.committed,
                held=review.held,
                error=None,
                now=t,
            ):
                raise Conflict(f"run {run.id!r} is not being curated")
            return outcome

        return self._writer.transaction(work, embedder=embedder)

    def close_run(
        self, run: RunRecord, status: str, error: str | None = None, *, worker: str
    ) -> bool:
        """Mark a run `worker` holds `failed` or `skipped` with nothing applied.

        Returns:
            False when the lease was no longer `worker`'s (nothing changed).
        """
        return self._writer.transaction(
            lambda w: w.finish_run(
                run_key(run.owner, run.id),
                stripe=run.stripe,
                worker=worker,
                status=status,
                proposals=0,
                committed=0,
                held=0,
                error=error,
                now=utcnow(),
            )
        )
