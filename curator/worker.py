"""The curator worker: claims queued runs, extracts proposals, hands them to the committer.

Runs in the API process (a daemon thread, CONTRACT §4 default) or as `worldstate curator`.
The curator never writes facts itself: `Committer.apply_run` does, in one transaction
that also marks the run done, so a run is applied at most once.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import datetime
from typing import Any

from committer.apply import Committer
from curator.extract import extract_run
from graph.errors import StoreUnavailable

log = logging.getLogger("worldstate.curator")


def _messages(payload: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for m in payload.get("messages", []):
        out.append({**m, "at": datetime.fromisoformat(m["at"])})
    return out


class CuratorWorker:
    """Polls for queued runs and curates them one at a time.

    Args:
        committer: the committer that claims, applies and closes runs.
        poll_seconds: the pause between polls when no run is queued.
    """

    def __init__(self, committer: Committer, poll_seconds: float = 0.5):
        self._committer = committer
        self._poll = poll_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def run_once(self) -> bool:
        """Curate one queued run if there is one; return whether a run was taken.

        A run whose extraction or commit raises is marked `failed` with the error;
        a store outage leaves it `curating` and is raised to the caller.
        """
        run = self._committer.claim_run()
        if run is None:
            return False
        try:
            payload = json.loads(run.payload)
            proposals = extract_run(_messages(payload), run.id)
            outcome = self._committer.apply_run(run, proposals)
            log.info("run %s: %d proposals, %d committed", run.id, outcome.proposals, outcome.committed)
        except StoreUnavailable:
            raise
        except Exception as exc:
            log.exception("run %s failed", run.id)
            self._committer.close_run(run, "failed", f"{type(exc).__name__}: {exc}")
        return True

    def drain(self) -> int:
        """Curate queued runs until none is left; return how many were taken."""
        taken = 0
        while self.run_once():
            taken += 1
        return taken

    def serve_forever(self) -> None:
        """Poll until `stop()`; store outages are logged and retried after a pause."""
        while not self._stop.is_set():
            try:
                if self.run_once():
                    continue
            except StoreUnavailable as exc:
                log.warning("store unavailable, retrying: %s", exc)
            self._stop.wait(self._poll)

    def start(self) -> None:
        """Start `serve_forever` in a daemon thread."""
        self._thread = threading.Thread(target=self.serve_forever, name="curator", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the loop to end and wait for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
