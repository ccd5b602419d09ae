"""Settings of one worldstate process (STYLE: one BaseSettings, built in create_app or main()).

Environment: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE, and WORLDSTATE_*
for everything else (documented in README.md).
"""

from __future__ import annotations

from pydantic import Field

from curator.settings import CuratorSettings


class Settings(CuratorSettings):
    """Configuration read from the environment when a process starts, never at import.

    Extends `CuratorSettings` (Neo4j connection, risk policy, leases, LLM extractor),
    since `worldstate serve` runs a curator in process.
    """

    curator_in_process: bool = True
    """Run a curator worker thread inside the API process (CONTRACT §4)."""
    prefetch_deadline_ms: int = 150
    """Prefetch answers degraded after this long (CONTRACT §6)."""
    prefetch_max_chars: int = 2000
    """The block's default size budget, characters (a request may ask for another)."""
    prefetch_max_items: int = 40
    """The block's default item budget, lines (a request may ask for another)."""
    prefetch_keepalive_seconds: float = 5.0
    """Prefetch runs for nobody this often, keeping its connection and plans warm
    (api/chat/prefetch/warm.py); 0 warms once at start-up only."""
    max_body_bytes: int = 2_000_000
    """Requests larger than this are refused with 413 (CONTRACT §9)."""
    remember_restricted_surfaces: list[str] = Field(
        default_factory=lambda: ["slack", "whatsapp", "telegram"]
    )
    """Surfaces the gated `remember(topic, content)` refuses (CONTRACT §14), JSON list in env."""
    remember_allow_no_surface: bool = False
    """Whether a `remember` call that names no surface is let through (default: refused)."""
