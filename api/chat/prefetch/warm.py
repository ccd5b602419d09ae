"""Keep prefetch warm between turns, so a first prefetch after start-up or idle is not
degraded (CONTRACT §6: prefetch has a deadline).

A cold turn pays for what a warm one does not: the pooled Bolt connection (opened, or
found dead after idle), the plans of prefetch's queries (Neo4j plans a query on first
use, and plans it again on first use after `cypher.min_replan_interval` once its
statistics have moved), and the JIT of the server's code paths. `Warmer` runs the real
prefetch, through the same reader, for an owner that does not exist: once before the API
serves, then every `interval` seconds in a daemon thread, so those costs fall on the
warmer, not on a user's turn. Read-only; a failure is logged and retried next tick.

Planning is most of a start-up's warm-up (seconds per query shape, on Neo4j's CPU), so the
first warm-up plans each of prefetch's queries in its own thread (`plan_parts`): on two
cores they plan side by side instead of one after the other.

Neo4j caches a plan per query text *and* per shape of its parameters (their types, and
size classes of strings and lists), so a turn whose owner id, chat id or message falls
in a class the warm-up never used still plans (2-3 s for prefetch's query). Inside the
turn's deadline that planning is killed with the transaction and never cached, so every
later turn of that shape would be degraded too. `replan` breaks the loop: a turn past
its deadline hands its own arguments to the warmer, which runs them once without a
deadline in the background; the plan is cached and the next such turn is served.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from api.chat.prefetch import block as prefetch
from api.chat.prefetch import notes as noted
from api.chat.prefetch import recall
from api.chat.prefetch.mentions import mention_keys
from graph.read.reader import Reader
from graph.time import utcnow

log = logging.getLogger("worldstate.prefetch")

WARM_OWNER = "\x00prefetch-warm-up"
"""No owner has this id (it is not a name a token can carry)."""
WARM_MESSAGE = "How are Ana's kids and the K8s migration going?"
"""Words, a possessive and a plural: every part of the query runs with real parameters."""
WARM_PROJECTS = (None, "warm-up")
"""A turn without a `project` and one with: the notes' query (api/chat/prefetch/notes.py)
plans once per shape, a string where the default is null (about 3 s on a loaded machine)."""


class Warmer:
    """Runs a prefetch for nobody at start-up and then every `interval` seconds.

    Args:
        reader: a reader on prefetch's driver (the same connection pool) without a
            transaction timeout: the first run plans the query, which takes longer than
            a turn's deadline.
        interval: seconds between warm-ups; 0 warms once at start-up only.
        max_chars: the block budget a turn uses by default (`WORLDSTATE_PREFETCH_MAX_CHARS`).
        max_items: the item budget a turn uses by default (`WORLDSTATE_PREFETCH_MAX_ITEMS`).
    """

    REPLAN_GAP_S = 1.0
    """At most one background replan starts per this many seconds (and one at a time)."""

    def __init__(self, reader: Reader, interval: float, *, max_chars: int, max_items: int):
        self._reader = reader
        self._interval = interval
        self._budget = (max_chars, max_items)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._replanning = threading.Lock()
        self._replanned_at = float("-inf")
        self.replans = 0
        """Background replans that answered (for tests and logs)."""
        self.warmed = False
        """True once a warm-up answered (`/readyz`)."""

    def warm(self) -> bool:
        """Run prefetch for nobody, without and with a project (`WARM_PROJECTS`); return
        True when both answered. The first call plans the queries side by side first
        (`plan_parts`)."""
        try:
            if not self.warmed:
                plan_parts(self._reader)
            for project in WARM_PROJECTS:
                prefetch.build(
                    self._reader,
                    WARM_OWNER,
                    "warm-up",
                    WARM_MESSAGE,
                    utcnow(),
                    *self._budget,
                    project,
                )
        except Exception:
            log.warning("prefetch warm-up failed", exc_info=True)
            return False
        self.warmed = True
        return True

    def replan(
        self,
        owner: str,
        chat_id: str,
        message: str,
        at: datetime,
        max_chars: int,
        max_items: int,
        project: str | None = None,
    ) -> threading.Thread | None:
        """Run one prefetch with a turn's own arguments, without a deadline, in a daemon
        thread, so Neo4j plans and caches the plan for their shape (module docstring).

        Called by `POST /v1/prefetch` when a turn misses its deadline. Read-only; the
        result is discarded. Skipped (returns None) while another replan runs or within
        `REPLAN_GAP_S` of the last one started, so a slow store gets at most one extra
        query at a time. Returns the thread it started.
        """
        now = time.monotonic()
        if now - self._replanned_at < self.REPLAN_GAP_S or not self._replanning.acquire(
            blocking=False
        ):
            return None
        self._replanned_at = now

        def run() -> None:
            try:
                prefetch.build(
                    self._reader, owner, chat_id, message, at, max_chars, max_items, project
                )
                self.replans += 1
            except Exception:
                log.warning("prefetch replan failed", exc_info=True)
            finally:
                self._replanning.release()

        thread = threading.Thread(target=run, name="prefetch-replan", daemon=True)
        thread.start()
        return thread

    def start(self) -> None:
        """Warm up now (the queries planned side by side, then whole prefetches on the
        cached plans), then keep warm in a daemon thread every `interval` seconds."""
        self.warm()
        if self._interval > 0:
            self._thread = threading.Thread(target=self._loop, name="prefetch-warmer", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread (it exits at its next wake-up, at most `interval` seconds)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self.warm()


def plan_parts(reader: Reader) -> None:
    """Run each of prefetch's queries for nobody once, each in its own thread and
    snapshot, so Neo4j plans them concurrently: the view with the pointer's documents
    (graph/read/turn.py; the notes of `WARM_PROJECTS[0]` follow it in its snapshot) and
    the notes for each of `WARM_PROJECTS`. Read-only.

    Raises:
        StoreUnavailable: Neo4j could not be reached (the first failure is raised).
    """
    at = utcnow()

    def scoped(read: Callable[..., object]) -> Callable[[], object]:
        def run() -> object:
            with reader.snapshot() as snap:
                scope = snap.prefetch_scope(WARM_OWNER, "warm-up", at)
                return read(snap, scope)

        return run

    parts = [
        scoped(
            lambda snap, scope: prefetch.read_turn(
                snap,
                scope,
                mention_keys(WARM_MESSAGE),
                at,
                recall.recall_words(WARM_MESSAGE),
                WARM_MESSAGE,
            )
        ),
        *(
            scoped(lambda snap, scope, p=project: noted.read(snap, scope, WARM_MESSAGE, at, p))
            for project in WARM_PROJECTS
        ),
    ]
    with ThreadPoolExecutor(max_workers=len(parts), thread_name_prefix="prefetch-plan") as pool:
        for future in [pool.submit(part) for part in parts]:
            future.result()
