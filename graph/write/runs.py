"""Write primitives of the run queue: submit, claim with a lease, heartbeat, release and
finish (CONTRACT §4: a run is claimed atomically with a lease, so a crashed worker's run is
taken over and nothing is applied twice). For `committer` only.

The queue is split into `STRIPES` stripes by owner, each with a lock of its own
(graph/cypher/runs.py LOCK_STRIPE): a run's transitions serialize with those of its
stripe only.
"""

from __future__ import annotations

import zlib
from datetime import datetime, timedelta

from graph.cypher import memory_access as ac
from graph.cypher import runs as rc
from graph.errors import Conflict
from graph.records import RunRecord, run_key
from graph.write.base import WriteBase

STRIPES = 16
"""Stripes of the run queue. A run keeps the stripe it was created with, so this may change
between versions (new runs then spread over the new count)."""


def stripe_of(owner: str) -> int:
    """The stripe of `owner`'s runs: a stable hash (CRC-32) of the owner id, mod `STRIPES`."""
    return zlib.crc32(owner.encode()) % STRIPES


def queue_id(stripe: int) -> str:
    """The id of a stripe's `RunQueue` lock node; stripe 0 keeps the single lock's id of
    before stripes ('runs', graph/cypher/runs.py STRIPE_OLD_RUNS)."""
    return "runs" if stripe == 0 else f"runs-{stripe}"


class RunWrites(WriteBase):
    """The run queue's primitives, inside one write transaction."""

    def run(self, owner: str, run_id: str) -> RunRecord | None:
        """Return a run of `owner` (its payload included), or None."""
        rows = self._run(rc.RUN_BY_ID, owner=owner, key=run_key(owner, run_id))
        return rc.run_from_record(rows[0]["r"]) if rows else None

    def create_run(
        self,
        owner: str,
        *,
        key: str,
        run_id: str,
        chat_id: str,
        surface: str | None,
        payload: str,
        digest: str,
        now: datetime,
    ) -> tuple[RunRecord, bool]:
        """Store a run as `queued` unless a run with that id exists; return (run, created).

        Raises:
            Conflict: the id is taken by a run with different content.
        """
        row = self._run(
            rc.CREATE_RUN,
            key=key,
            id=run_id,
            owner=owner,
            chat_id=chat_id,
            surface=surface,
            payload=payload,
            digest=digest,
            t=now,
            stripe=stripe_of(owner),
        )[0]
        if row["r"]["owner"] != owner:
            raise Conflict("run id already used")
        if not row["created"] and row["r"]["digest"] != digest:
            raise Conflict(f"run {run_id!r} was already posted with different content")
        return rc.run_from_record(row["r"]), bool(row["created"])

    def claimable_stripes(self, now: datetime, sample: int = 64) -> list[int]:
        """Return the stripes that hold claimable runs, the stripe of the oldest first.

        A hint, read without a lock: a claim in one of them may find nothing by then.

        Args:
            now: the claim time, aware UTC.
            sample: how many of the oldest claimable runs of each kind are looked at.
        """
        return [int(r["stripe"]) for r in self._run(rc.CLAIMABLE_STRIPES, t=now, n=sample)]

    def runs_waiting(self, owner: str) -> int:
        """Count the owner's runs queued or being curated."""
        return int(self._run(rc.RUNS_WAITING, owner=owner)[0]["waiting"])

    def claim_run(
        self, worker: str, now: datetime, lease: timedelta, max_attempts: int, stripe: int = 0
    ) -> RunRecord | None:
        """Claim the oldest claimable run of one stripe for `worker` (CONTRACT §4), under
        that stripe's lock.

        Claimable: `queued` and past its `retry_at`, or `curating` with a lapsed lease
        (takeover). A run whose chat has memory access `none` (CONTRACT §7) is closed
        `skipped` without its payload being read; one claimed `max_attempts` times
        already is closed `failed`.

        Args:
            worker: the claiming worker's id.
            now: the claim time, aware UTC.
            lease: how long the claim holds without a heartbeat.
            max_attempts: attempts after which a run is given up.
            stripe: the stripe to claim from (`claimable_stripes`).

        Returns:
            The run, `curating` and leased to `worker` until `now + lease`, or closed
            `skipped` (payload empty) or `failed`; None when the stripe has no
            claimable run.
        """
        self._run(rc.LOCK_STRIPE, queue=queue_id(stripe), worker=worker, t=now)
        rows = self._run(rc.NEXT_RUN, stripe=stripe, t=now)
        if not rows:
            return None
        key, attempts = rows[0]["key"], int(rows[0]["attempts"])
        access = ac.effective_access(self._run, rows[0]["owner"], rows[0]["chat_id"])
        if access.mode == "none":
            return self._set_aside(key, "skipped", None, worker, now)
        if attempts >= max_attempts:
            last = rows[0]["error"]
            error = f"gave up after {attempts} attempts" + (f"; last error: {last}" if last else "")
            return self._set_aside(key, "failed", error, worker, now)
        row = self._run(rc.START_RUN, key=key, worker=worker, t=now, until=now + lease)[0]
        return rc.run_from_record(row["r"])

    def _set_aside(
        self, key: str, status: str, error: str | None, worker: str, now: datetime
    ) -> RunRecord:
        row = self._run(
            rc.SET_ASIDE_RUN, key=key, status=status, attempt=0, error=error, worker=worker, t=now
        )[0]
        return rc.run_from_record(row["r"])

    def heartbeat_run(
        self, key: str, stripe: int, worker: str, now: datetime, lease: timedelta
    ) -> bool:
        """Extend `worker`'s lease on a run (of stripe `stripe`) to `now + lease`; False if
        the lease is not its own."""
        self._run(rc.LOCK_STRIPE, queue=queue_id(stripe), worker=worker, t=now)
        return bool(self._run(rc.HEARTBEAT_RUN, key=key, worker=worker, until=now + lease))

    def release_run(
        self,
        key: str,
        stripe: int,
        worker: str,
        *,
        refund: bool,
        retry_at: datetime,
        error: str | None,
        now: datetime,
    ) -> bool:
        """Put a run `worker` holds back to `queued`, claimable from `retry_at`.

        Args:
            key: the run key.
            stripe: the run's stripe (`RunRecord.stripe`).
            worker: the worker holding the lease.
            refund: True to not count this attempt (the run was not at fault).
            retry_at: not claimed before this instant, aware UTC.
            error: why, kept on the run (or None).
            now: the time of the release.

        Returns:
            False if the lease is not `worker`'s (nothing changed).
        """
        self._run(rc.LOCK_STRIPE, queue=queue_id(stripe), worker=worker, t=now)
        rows = self._run(
            rc.RELEASE_RUN,
            key=key,
            worker=worker,
            refund=int(refund),
            retry_at=retry_at,
            error=error,
        )
        return bool(rows)

    def finish_run(
        self,
        key: str,
        *,
        stripe: int,
        worker: str,
        status: str,
        proposals: int,
        committed: int,
        held: int,
        error: str | None,
        now: datetime,
    ) -> bool:
        """Close a run `worker` is curating, under its stripe's lock (CONTRACT §4); `stripe`
        is the run's (`RunRecord.stripe`).

        Returns:
            False if the run is not `curating` under `worker`'s lease (its lease lapsed and
            another worker took it over, or it was closed): the caller must roll back.
        """
        self._run(rc.LOCK_STRIPE, queue=queue_id(stripe), worker=worker, t=now)
        rows = self._run(
            rc.FINISH_RUN,
            key=key,
            worker=worker,
            status=status,
            proposals=proposals,
            committed=committed,
            held=held,
            error=error,
            t=now,
        )
        return bool(rows)
