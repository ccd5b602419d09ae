"""Settings of one worldstate process (STYLE: one BaseSettings, built in create_app or main()).

Environment: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE, and WORLDSTATE_*
for everything else (documented in README.md).
"""

from __future__ import annotations

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
