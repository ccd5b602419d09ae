"""`worldstate curator` whose worker stalls after each claim: a test double run as a child
process, so a test can kill a worker mid-run deterministically (tests/curator/test_workers.py).

Usage: `python -m tests.curator.paused_worker SECONDS [worldstate curator options]`. The stall
waits on the worker's stop event, so SIGTERM during it hands the run back as a real stop does.
Production code carries no switch for this: the double replaces the worker class before the
command line imports it.
"""

from __future__ import annotations

import sys

from curator import worker
from graph.records import RunRecord


class PausedWorker(worker.CuratorWorker):
    """A curator worker that stalls `PAUSE` seconds after each claim, before reading the run."""

    PAUSE = 0.0

    def _curate(self, run: RunRecord) -> None:
        if self._stop.wait(self.PAUSE):
            self._committer.release_run(run, self.worker_id, "worker stopped", retry_in=0)
            return
        super()._curate(run)


def run(argv: list[str]) -> None:
    """Run `worldstate curator` with the paused worker; argv[0] is the stall in seconds."""
    PausedWorker.PAUSE = float(argv[0])
    worker.CuratorWorker = PausedWorker  # type: ignore[misc]  # the double, before api imports it
    from api.cli.main import main  # noqa: PLC0415  # must import after the swap above

    sys.argv = ["worldstate", "curator", *argv[1:]]
    main()


if __name__ == "__main__":
    run(sys.argv[1:])
