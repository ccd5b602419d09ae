"""The curator worker: claims runs, extracts proposals, hands them to the committer.

Runs in the API process (a daemon thread, CONTRACT §4 default) or as `worldstate curator`,
and any number of workers may share one Neo4j: a run is claimed atomically with a lease
(`Committer.claim_run`), a heartbeat thread extends the lease while the run is curated,
and a run whose worker died is taken over once its lease lapses. The curator never
writes facts itself: `Committer.apply_run` does, in one transaction that also marks the
run done and checks the lease is still this worker's, so a run is applied exactly once.
Every message of the run goes with it, redacted, to be kept as an episode
(curator/episodes.py, CONTRACT §12).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
import threading
from collections.abc import Iterator
from http import HTTPStatus

from committer.apply import Committer
from committer.proposals import Reviewed
from committer.runs import MAX_ATTEMPTS, RunOutcome
from curator.episodes import said_in
from curator.llm import ExtractorUnavailable, LlmExtractor
from curator.merges import find_candidates
from curator.propose import review_run
from curator.settings import CuratorSettings
from graph.errors import Conflict, StoreUnavailable
from graph.read.reader import Reader
from graph.records import RunRecord

log = logging.getLogger("worldstate.curator")


def new_worker_id() -> str:
    """Return a worker id unique across hosts and restarts: `host-pid-random`."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


class CuratorWorker:
    """Claims runs and curates them one at a time.

    Args:
        committer: the committer that claims, applies and closes runs.
        poll_seconds: the pause between polls when no run is claimable.
        lease_seconds: how long a claim holds without a heartbeat; heartbeats come every
            third of it (CONTRACT §4).
        worker_id: this worker's id (default `new_worker_id()`).
        max_attempts: claims of one run after which it is closed `failed`.
    """

    def __init__(
        self,
        committer: Committer,
        poll_seconds: float = 0.5,
        lease_seconds: float = 30.0,
        *,
        worker_id: str | None = None,
        max_attempts: int = MAX_ATTEMPTS,
        settings: CuratorSettings | None = None,
        reader: Reader | None = None,
    ):
        self._committer = committer
        self._poll = poll_seconds
        self._lease = lease_seconds
        self._max_attempts = max_attempts
        self._settings = settings or CuratorSettings()
        self._reader = reader
        self._llm = LlmExtractor.from_settings(self._settings)
        self.worker_id = worker_id or new_worker_id()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_settings(
        cls, committer: Committer, settings: CuratorSettings, reader: Reader | None = None
    ) -> CuratorWorker:
        """A worker configured by settings: leases, risk policy, the optional LLM extractor.

        Args:
            committer: the committer.
            settings: the process's settings.
            reader: the read side, for merge suggestions (none are raised without it).
        """
        return cls(
            committer,
            settings.curator_poll_seconds,
            settings.curator_lease_seconds,
            max_attempts=settings.curator_max_attempts,
            settings=settings,
            reader=reader,
        )

    def run_once(self) -> bool:
        """Claim one run and curate it; return whether a run was taken.

        A run from a chat with memory access `none` comes back from the claim already
        `skipped`, unread. A run whose lease was taken over meanwhile is left to its new
        worker (the apply raised `Conflict`, nothing was written). Any other error hands
        the run back for a later retry, counted against `max_attempts`. A store outage
        is raised to the caller; the run's lease then lapses and it is taken over.
        """
        run = self._committer.claim_run(self.worker_id, self._lease, self._max_attempts)
        if run is None:
            return False
        if run.status != "curating":
            log.info("run %s of %s: %s %s", run.id, run.owner, run.status, run.error or "")
            return True
        with self._heartbeat(run):
            self._curate(run)
        return True

    def _review(self, run: RunRecord) -> list[Reviewed]:
        """Every extractor over the run, then the risk policy (curator.propose)."""
        return review_run(
            run,
            threshold=self._settings.auto_commit_threshold,
            privileged=self._settings.privileged_areas,
            llm=self._llm,
        )

    def _suggest_merges(self, run: RunRecord, outcome: RunOutcome) -> None:
        """Raise merge suggestions about the entities the run touched (CONTRACT §4).

        Best effort: the run is applied already, so a failure here is only logged."""
        if self._reader is None or not outcome.entity_ids:
            return
        try:
            found = find_candidates(self._reader, run.owner, outcome.entity_ids)
            if found:
                self._committer.suggest_merges(run.owner, found)
        except Exception:
            log.warning("run %s: merge suggestions failed", run.id, exc_info=True)

    def _curate(self, run: RunRecord) -> None:
        try:
            reviewed = self._review(run)
            outcome = self._committer.apply_run(
                run, reviewed, worker=self.worker_id, said=said_in(run)
            )
            log.info(
                "run %s: %d proposals, %d committed, %d held",
                run.id,
                outcome.proposals,
                outcome.committed,
                outcome.held,
            )
            self._suggest_merges(run, outcome)
        except ExtractorUnavailable as exc:
            # An outage (no answer, 5xx, 429) is retried without end: the run is never lost.
            # A refusal (other 4xx: bad key, unknown model) counts against max_attempts.
            refused = (
                exc.status is not None
                and HTTPStatus.BAD_REQUEST <= exc.status < HTTPStatus.INTERNAL_SERVER_ERROR
                and exc.status != HTTPStatus.TOO_MANY_REQUESTS
            )
            log.warning("run %s: extractor unavailable, retrying later: %s", run.id, exc)
            self._committer.release_run(
                run,
                self.worker_id,
                f"extractor unavailable: {exc}",
                retry_in=max(self._poll * 10, 1.0),
                count_attempt=refused,
                max_attempts=self._max_attempts,
            )
        except Conflict as exc:
            log.warning("run %s: not applied, the lease was lost (%s)", run.id, exc)
        except StoreUnavailable:
            raise
        except Exception as exc:
            log.exception("run %s failed; it will be retried", run.id)
            self._committer.release_run(
                run,
                self.worker_id,
                f"{type(exc).__name__}: {exc}",
                count_attempt=True,
                max_attempts=self._max_attempts,
            )

    @contextlib.contextmanager
    def _heartbeat(self, run: RunRecord) -> Iterator[None]:
        """Extend the run's lease every third of the lease, in a thread, while the block runs."""
        done = threading.Event()

        def beat() -> None:
            while not done.wait(self._lease / 3):
                try:
                    if not self._committer.heartbeat(run, self.worker_id, self._lease):
                        log.warning("run %s: lease lost to another worker", run.id)
                        return
                except Exception:  # A failed beat is retried; the lease decides.
                    log.warning("run %s: heartbeat failed", run.id, exc_info=True)

        thread = threading.Thread(target=beat, name=f"lease-{run.id}", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()

    def drain(self) -> int:
        """Curate claimable runs until none is left; return how many were taken."""
        taken = 0
        while not self._stop.is_set() and self.run_once():
            taken += 1
        return taken

    def serve_forever(self) -> None:
        """Poll until `stop()`; errors are logged and retried after a pause.

        A stop lets the current run finish (or, while stalled before reading it, hands
        it back to the queue), then returns.
        """
        while not self._stop.is_set():
            try:
                if self.run_once():
                    continue
            except StoreUnavailable as exc:
                log.warning("store unavailable, retrying: %s", exc)
            except Exception:  # The loop must outlive one bad poll.
                log.exception("curator poll failed, retrying")
            self._stop.wait(self._poll)

    def start(self) -> None:
        """Start `serve_forever` in a daemon thread."""
        self._thread = threading.Thread(target=self.serve_forever, name="curator", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the loop to end (safe from a signal handler) and wait for its thread, if any."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)
