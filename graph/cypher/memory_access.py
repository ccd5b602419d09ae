"""Cypher for memory access: per chat and the owner's default (CONTRACT §7).

A chat's own setting lives on `(:Chat {key: owner + "/" + chat_id})`; the owner's
default on its `(:Owner)` node. Both carry `memory_mode`, `memory_areas` and
`memory_sources`; `access_from_record` resolves the effective setting (the chat's own,
else the profile's, else `full`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graph.records import MemoryAccess, chat_key

MEMORY_ACCESS = """
OPTIONAL MATCH (o:Owner {id: $owner})
OPTIONAL MATCH (c:Chat {key: $chat_key})
WHERE c.owner = $owner
RETURN o {.memory_mode, .memory_areas, .memory_sources} AS profile,
       c {.memory_mode, .memory_areas, .memory_sources} AS chat
"""
"""READ. $owner, $chat_key (owner + "/" + chat id, or null for the profile alone) ->
profile, chat: maps of memory_mode, memory_areas, memory_sources (null when the owner
or chat is unknown; their fields null when never set). Exactly one row. Unique-constraint
seeks on Owner.id and Chat.key."""

SET_CHAT_ACCESS = """
MERGE (c:Chat {key: $chat_key})
ON CREATE SET c.owner = $owner, c.id = $chat_id, c.created_at = $t
SET c.memory_mode = $mode, c.memory_areas = $areas, c.memory_sources = $sources,
    c.updated_at = $t
RETURN c.owner AS owner, c {.memory_mode, .memory_areas, .memory_sources} AS chat
"""
"""WRITE. $chat_key, $owner, $chat_id, $mode, $areas, $sources, $t -> owner (the chat's:
the caller checks it is $owner), chat. Creates the chat node on first use."""

SET_PROFILE_ACCESS = """
MATCH (o:Owner {id: $owner})
SET o.memory_mode = $mode, o.memory_areas = $areas, o.memory_sources = $sources,
    o.memory_updated_at = $t
RETURN o {.memory_mode, .memory_areas, .memory_sources} AS profile
"""
"""WRITE. $owner, $mode, $areas, $sources, $t -> profile (0 rows if the owner is unknown)."""


def access_from_record(profile: Any, chat: Any) -> MemoryAccess:
    """Resolve the effective memory access of a chat (CONTRACT §7).

    Args:
        profile: the owner's map from MEMORY_ACCESS (or None).
        chat: the chat's map from MEMORY_ACCESS (or None).

    Returns:
        The chat's own setting, else the owner's default, else `full` (origin `default`).
    """
    for origin, settings in (("chat", chat), ("profile", profile)):
        if settings is not None and settings.get("memory_mode") is not None:
            return MemoryAccess(
                mode=settings["memory_mode"],
                areas=tuple(settings.get("memory_areas") or ()),
                sources=tuple(settings.get("memory_sources") or ()),
                origin=origin,
            )
    return MemoryAccess(mode="full")


def effective_access(
    rows: Callable[..., list[Any]], owner: str, chat_id: str | None
) -> MemoryAccess:
    """Read a chat's effective memory access (the owner's default when `chat_id` is None)
    through `rows(query, **params)`: the reader's and the writer's one way to ask.

    Returns:
        The chat's own setting, else the owner's profile default, else `full`
        (`MemoryAccess.origin` says which). An unknown owner or chat reads as `full`.
    """
    key = None if chat_id is None else chat_key(owner, chat_id)
    row = rows(MEMORY_ACCESS, owner=owner, chat_key=key)[0]
    return access_from_record(row["profile"], row["chat"])
