"""Name keys for matching entities case- and accent-insensitively (CONTRACT §10 `q`)."""

from __future__ import annotations

import unicodedata


def search_key(text: str) -> str:
    """Return `text` NFKD-decomposed without combining marks, case-folded, spaces collapsed.

    "Zoë  O'Brien" -> "zoe o'brien". Used for stored names/aliases and for queries alike.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(unicodedata.normalize("NFKC", bare).casefold().split())
