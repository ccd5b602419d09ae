"""Write primitives of the run queue: submit, claim with a lease, heartbeat, release and
finish (CONTRACT §4: a run is claimed atomically with a lease, so a crashed worker's run is
taken over and nothing is applied twice). For `committer` only.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from graph.cypher import memory_access as ac
from graph.cypher import runs as rc
from graph.errors import Conflict
from graph.records import RunRecord, run_key
from graph.write.base import WriteBase


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
        )[0]
        if row["r"]["owner"] != owner:
            raise Conflict("run id already used")
        if not row["created"] and row["r"]["digest"] != digest:
            raise Conflict(f"run {run_id!r} was already posted with different content")
        return rc.run_from_record(row["r"]), bool(row["created"])

    def runs_waiting(self, owner: str) -> int:
        """Count the owner's runs queued or being curated."""
        return int(self._run(rc.RUNS_WAITING, owner=owner)[0]["waiting"])

    def claim_run(
        self, worker: str, now: datetime, lease: timedelta, max_attempts: int
    ) -> RunRecord | None:
        """Claim the oldest claimable run for `worker` (CONTRACT §4), under the queue lock.

        Claimable: `queued` and past its `retry_at`, or `curating` with a lapsed lease
        (takeover). A run whose chat has memory access `none` (CONTRACT §7) is closed
        `skipped` without its payload being read; one claimed `max_attempts` times
        already is closed `failed`.

        Args:
            worker: the claiming worker's id.
            now: the claim time, aware UTC.
            lease: how long the claim holds without a heartbeat.
            max_attempts: attempts after which a run is given up.

        Returns:
            The run, `curating` and leased to `worker` until `now + lease`, or closed
            `skipped` (payload empty) or `failed`; None when no run is claimable.
        """
        self._run(rc.LOCK_QUEUE, worker=worker, t=now)
        rows = self._run(rc.NEXT_RUN, t=now)
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

    def heartbeat_run(self, key: str, worker: str, now: datetime, lease: timedelta) -> bool:
        """Extend `worker`'s lease on a run to `now + lease`; False if the lease is not its own."""
        self._run(rc.LOCK_QUEUE, worker=worker, t=now)
        return bool(self._run(rc.HEARTBEAT_RUN, key=key, worker=worker, until=now + lease))

    def release_run(
        self,
        key: str,
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
            worker: the worker holding the lease.
            refund: True to not count this attempt (the run was not at fault).
            retry_at: not claimed before this instant, aware UTC.
            error: why, kept on the run (or None).
            now: the time of the release.

        Returns:
            False if the lease is not `worker`'s (nothing changed).
        """
        self._run(rc.LOCK_QUEUE, worker=worker, t=now)
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
        worker: str,
        status: str,
        proposals: int,
        committed: int,
        held: int,
        error: str | None,
        now: datetime,
    ) -> bool:
        """Close a run `worker` is curating, under the queue lock (CONTRACT §4).

        Returns:
            False if the run is not `curating` under `worker`'s lease (its lease lapsed and
            another worker took it over, or it was closed): the caller must roll back.
        """
        self._run(rc.LOCK_QUEUE, worker=worker, t=now)
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
