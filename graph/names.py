"""Keys: entity names matched case- and accent-insensitively (CONTRACT §10 `q`), and the
stored form of bearer tokens (CONTRACT §7: tokens are stored hashed)."""

from __future__ import annotations

import hashlib
import unicodedata


def search_key(text: str) -> str:
    """Return `text` NFKD-decomposed without combining marks, case-folded, spaces collapsed.

    "Zoë  O'Brien" -> "zoe o'brien". Used for stored names/aliases and for queries alike.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(unicodedata.normalize("NFKC", bare).casefold().split())


def token_hash(secret: str) -> str:
    """Return the stored form of a bearer token: its sha256, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()
