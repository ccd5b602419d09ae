"""Settings of one worldstate process (STYLE: one BaseSettings, built in create_app or main()).

Environment: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE, and WORLDSTATE_*
for everything else (documented in README.md).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr

from curator.settings import CuratorSettings
from graph.driver import StoreTimeouts
from graph.transactions import RetryPolicy


class Settings(CuratorSettings):
    """Configuration read from the environment when a process starts, never at import.

    Extends `CuratorSettings` (Neo4j connection, risk policy, leases, LLM extractor),
    since `worldstate serve` runs a curator in process.
    """

    curator_in_process: bool = True
    """Run a curator worker thread inside the API process (CONTRACT §4)."""
    prefetch_deadline_ms: int = 150
    """Prefetch answers degraded after this long (CONTRACT §6)."""
    prefetch_threads: int = Field(default=8, ge=1, le=64)
    """Threads running prefetches in one API process (api/http/bounded.py)."""
    prefetch_max_queued: int = Field(default=16, ge=0, le=64)
    """Prefetches waiting for a thread at most; a turn past it, or whose expected wait
    already reaches the deadline, is answered degraded at once (admission control,
    counted on /metrics as `shed`)."""
    prefetch_max_chars: int = 2000
    """The block's default size budget, characters (a request may ask for another)."""
    prefetch_max_items: int = 40
    """The block's default item budget, lines (a request may ask for another)."""
    prefetch_keepalive_seconds: float = 5.0
    """Prefetch runs for nobody this often, keeping its connection and plans warm
    (api/chat/prefetch/warm.py); 0 warms once at start-up only."""
    search_cache_rows: int = 100_000
    """Fact and episode vectors held in the API process for semantic search, in all (about
    1.5 KB each at 384 dimensions; graph/read/vectors.py); 0 turns the cache off."""
    search_cache_owner_rows: int = 20_000
    """An owner with more fact rows (or episodes) than this is searched through the store
    for them (the vector index, or an exact ranking in Cypher)."""
    chat_history_max_turns: int = Field(default=200, ge=1, le=10_000)
    """`GET /v1/chats/{chat_id}/history` returns at most this many messages, whatever
    `limit` asks (issue 16 "Per-chat history")."""
    chat_history_max_age_days: float = Field(default=30.0, gt=0, le=3_660)
    """`GET /v1/chats/{chat_id}/history` leaves out messages said longer ago than this."""
    max_body_bytes: int = 2_000_000
    """Requests larger than this are refused with 413 (CONTRACT §9)."""
    neo4j_connect_timeout_seconds: float = 1.0
    """Opening a connection to Neo4j (TCP and Bolt handshake) gives up after this long."""
    neo4j_acquire_timeout_seconds: float = 1.0
    """Getting a connection from the pool (a new one included) gives up after this long."""
    neo4j_retry_seconds: float = 1.0
    """A read or commit is retried for at most this long while Neo4j does not answer,
    then answers 503 (CONTRACT §15; graph/transactions.py)."""
    neo4j_contention_retry_seconds: float = 30.0
    """A commit that meets a transient conflict (a deadlock) is retried this long."""
    request_store_seconds: float = 1.5
    """One request stops retrying the store after this long in all, however many reads it
    makes, so it answers 503 within 2 s of Neo4j becoming unreachable (CONTRACT §15)."""
    health_timeout_seconds: float = 0.8
    """`/healthz` and `/readyz` wait this long for Neo4j's answer (they answer within 1 s)."""
    rate_limit_per_minute: int = 600
    """Requests one token may make per minute (a sliding window); over it, 429 with
    `Retry-After`. 0 turns the limit off."""
    runs_queued_per_owner: int = 1000
    """Runs of one owner waiting for the curator (queued or being curated) at most; a new
    run past it is refused with 429 and `Retry-After`. 0 turns the limit off."""
    bad_tokens_per_minute: int = 20
    """Unknown or revoked tokens one client address may present per minute; past it, its
    requests with a token this process has not verified are refused with 429."""

    web_sessions: Literal["memory", "signed"] = "memory"
    """Where the Memory page keeps sign-in sessions: in this process's memory, or in
    signed cookies (`serve --workers N` sets it, so any process serves any session)."""
    web_session_secret: SecretStr | None = None
    """The key that signs session cookies (`signed`); random per process when unset,
    which signs everyone out at a restart."""

    remember_restricted_surfaces: list[str] = Field(
        default_factory=lambda: ["slack", "whatsapp", "telegram"]
    )
    """Surfaces the gated `remember(topic, content)` refuses (CONTRACT §14), JSON list in env."""
    remember_allow_no_surface: bool = False
    """Whether a `remember` call that names no surface is let through (default: refused)."""

    def store_timeouts(self) -> StoreTimeouts:
        """The driver's connect, acquisition and retry bounds (graph/driver.py)."""
        return StoreTimeouts(
            connect_s=self.neo4j_connect_timeout_seconds,
            acquire_s=self.neo4j_acquire_timeout_seconds,
            retry_s=self.neo4j_retry_seconds,
        )

    def retry_policy(self) -> RetryPolicy:
        """The retry budgets of reads and commits (graph/transactions.py)."""
        return RetryPolicy(
            unreachable_s=self.neo4j_retry_seconds,
            contention_s=self.neo4j_contention_retry_seconds,
        )

    notes_read_notes_per_hour: int = 40
    """Notes one token may read (bodies served) per UTC hour (issue 15; api/notes/limits.py)."""
    notes_read_chars_per_hour: int = 120_000
    """Characters of notes one token may read per UTC hour."""
    notes_read_playbooks_per_hour: int = 6
    """Playbooks one token may read per UTC hour."""
    notes_max_per_owner: int = 600
    """Notes one owner may hold; a new note past it is refused with 409."""
    notes_warn_from: int = 240
    """From this many notes, note writes and overviews carry a warning."""
