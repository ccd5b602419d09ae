"""The service side of `worldstate eval locomo`: a fresh owner's client of the REST API, the
import of a conversation, and search and prefetch answers reduced to `Retrieved` items.

Everything goes through HTTP, so the evaluation measures the routes a user calls: against
a server started in this process on a loopback port (`serve_in_process`), or against a
running `worldstate serve` (`--api`). Tokens are minted, and the fresh owners erased,
through the store (the same Neo4j the server uses), as `worldstate import locomo` does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from neo4j import Driver

from api.eval.locomo import Retrieved
from api.http.settings import Settings
from curator.locomo import RunPayload
from graph.local.server import pick_free_port

EVAL_CHAT = "locomo-eval"
"""The chat prefetch is asked in: a new conversation, not the imported one."""
FINISHED = ("done", "failed", "skipped")


class EvalError(Exception):
    """The evaluation cannot go on (the service refused a call or timed out); the message
    says what happened, for a person."""


@dataclass(frozen=True, slots=True)
class Imported:
    """What the import of one conversation took.

    Attributes:
        turns: messages posted.
        runs: runs posted.
        seconds: from the first post until every run was finished (wall clock).
        proposals: proposals the curator made, over all runs.
        committed: of them, committed.
        held: of them, held for confirmation.
        failed: runs that ended `failed`.
    """

    turns: int
    runs: int
    seconds: float
    proposals: int
    committed: int
    held: int
    failed: int

    @property
    def turns_per_second(self) -> float:
        """Turns imported per second of wall clock, to done."""
        return self.turns / self.seconds if self.seconds > 0 else float("inf")


@contextmanager
def serve_in_process(settings: Settings, driver: Driver) -> Iterator[str]:
    """Run `worldstate serve`'s app (API and in-process curator) on a free loopback port in
    a thread of this process; yield its base URL; stop it when the block ends.

    The per-token rate limit is lifted for it (`rate_limit_per_minute=0`): one evaluation
    asks thousands of questions with one token, and this server is the evaluator's own.

    Raises:
        EvalError: it did not start within 180 s (start-up loads the embedding model).
    """
    import uvicorn

    from api.http.app import create_app

    port = pick_free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings.model_copy(update={"rate_limit_per_minute": 0}), driver),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, name="eval-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + 180
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not server.started:
        server.should_exit = True
        raise EvalError("the in-process server did not start within 180 s")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


MAX_WAITS = 20
"""Rate-limited answers (429) waited out per request before the evaluation gives up."""


def _retry_after(r: httpx.Response) -> float:
    """Seconds a 429 asks to wait (`Retry-After`), 1 when it says nothing usable, at most 60."""
    try:
        return min(max(float(r.headers.get("retry-after", "1")), 0.0), 60.0)
    except ValueError:
        return 1.0


class OwnerClient:
    """One owner's client of the REST API, with the provenance lookups scoring needs.

    Args:
        client: an httpx client with the base URL and the owner's bearer token.
        run_ids: the conversation's run ids: provenance from other runs names no turn of it.
    """

    def __init__(self, client: httpx.Client, run_ids: set[str]):
        self._client = client
        self._run_ids = run_ids
        self._facts: dict[str, frozenset[str]] = {}
        self._episodes: dict[str, Retrieved] = {}

    def _call(self, method: str, url: str, **kw: Any) -> Any:
        """One request; a 429 (a running server's rate limit, `--api`) is retried after its
        `Retry-After` seconds, up to `MAX_WAITS` times."""
        for _ in range(MAX_WAITS):
            try:
                r = self._client.request(method, url, **kw)
            except httpx.HTTPError as exc:
                raise EvalError(f"{method} {url} failed: {exc}") from exc
            if r.status_code != httpx.codes.TOO_MANY_REQUESTS:
                break
            time.sleep(_retry_after(r))
        if r.is_error:
            raise EvalError(f"{method} {url}: HTTP {r.status_code} {r.text[:300]}")
        return r.json()

    def import_runs(self, runs: list[RunPayload], timeout: float) -> Imported:
        """Post every run, then poll `GET /v1/runs/{id}` until each is finished.

        Raises:
            EvalError: a post was refused, or runs were still unfinished after `timeout` s.
        """
        began = time.perf_counter()
        for run in runs:
            self._call("POST", "/v1/runs", json=run)
        pending = [run["id"] for run in runs]
        statuses: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while pending:
            status = self._call("GET", f"/v1/runs/{pending[0]}")
            if status["status"] in FINISHED:
                statuses.append(status)
                pending.pop(0)
            elif time.monotonic() > deadline:
                raise EvalError(f"{len(pending)} runs unfinished after {timeout:.0f} s")
            else:
                time.sleep(0.05)
        return Imported(
            turns=sum(len(run["messages"]) for run in runs),
            runs=len(runs),
            seconds=time.perf_counter() - began,
            proposals=sum(s.get("proposals", 0) for s in statuses),
            committed=sum(s.get("committed", 0) for s in statuses),
            held=sum(s.get("held", 0) for s in statuses),
            failed=sum(s["status"] == "failed" for s in statuses),
        )

    def check_imported(self, runs: list[RunPayload]) -> None:
        """Check that this owner holds every run of `runs`, each finished (an owner reused
        from an earlier evaluation).

        Raises:
            EvalError: a run is missing (HTTP 404) or not finished.
        """
        for run in runs:
            status = self._call("GET", f"/v1/runs/{run['id']}")
            if status["status"] not in FINISHED:
                raise EvalError(f"run {run['id']} is {status['status']}, not finished")

    def search(self, q: str, limit: int) -> tuple[list[Retrieved], str]:
        """`GET /v1/search?q=&limit=`: the items best first, and the answer's `mode`."""
        body = self._call("GET", "/v1/search", params={"q": q, "limit": limit})
        return [self.retrieved(i) for i in body["items"]], str(body.get("mode"))

    def prefetch(self, message: str) -> tuple[list[Retrieved], bool]:
        """`POST /v1/prefetch` with the default budget in chat `EVAL_CHAT`: the block's items
        in block order, and whether it answered degraded."""
        body = self._call("POST", "/v1/prefetch", json={"chat_id": EVAL_CHAT, "message": message})
        return [self.retrieved(i) for i in body["items"]], bool(body["degraded"])

    def retrieved(self, item: dict[str, Any]) -> Retrieved:
        """A search or prefetch item reduced to its kind, dialogue ids and date.

        A search item holds `fact` or `episode`; a prefetch item holds `fact_id`, or an
        episode's `message_id` or `episode_id`. Items of neither kind (an entity's title
        line) name no turn.
        """
        episode = item.get("episode")
        if isinstance(episode, dict):
            return self._episode(episode)
        fact = item.get("fact")
        if isinstance(fact, dict):
            return Retrieved("fact", self._fact_dia_ids(fact["id"]), _time(fact.get("valid_from")))
        kind = str(item.get("kind") or "item")
        if kind == "episode" or (item.get("episode_id") and not item.get("fact_id")):
            if item.get("message_id"):
                return self._episode(item)
            if item.get("episode_id"):
                return self._episode_by_id(str(item["episode_id"]))
        if item.get("fact_id"):
            return Retrieved(kind, self._fact_dia_ids(item["fact_id"]), _time(item["valid_from"]))
        return Retrieved(kind, frozenset(), None)

    def _episode(self, episode: dict[str, Any]) -> Retrieved:
        run_id = episode.get("run_id")
        ids = (
            frozenset({str(episode["message_id"])})
            if episode.get("message_id") and (run_id is None or run_id in self._run_ids)
            else frozenset()
        )
        return Retrieved("episode", ids, _time(episode.get("said_at")))

    def _episode_by_id(self, episode_id: str) -> Retrieved:
        if episode_id not in self._episodes:
            self._episodes[episode_id] = self._episode(
                self._call("GET", f"/v1/episodes/{episode_id}")
            )
        return self._episodes[episode_id]

    def _fact_dia_ids(self, fact_id: str) -> frozenset[str]:
        """The turns a fact's provenance names: its own message and its corroborations'
        (`GET /v1/facts/{id}`), from this conversation's runs. Cached per fact id."""
        if fact_id not in self._facts:
            detail = self._call("GET", f"/v1/facts/{fact_id}")
            named = [detail, *detail.get("corroborations", [])]
            self._facts[fact_id] = frozenset(
                str(p["message_id"])
                for p in named
                if p.get("message_id") and p.get("run_id") in self._run_ids
            )
        return self._facts[fact_id]


def _time(value: Any) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(str(value)).astimezone(UTC)
