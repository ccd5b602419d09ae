"""Keys: entity names matched case- and accent-insensitively (CONTRACT §10 `q`), the
stored form of bearer tokens (CONTRACT §7: tokens are stored hashed), and what may name
an owner."""

from __future__ import annotations

import hashlib
import unicodedata

from graph.errors import InvalidInput


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


def check_owner_name(name: str) -> str:
    """Return `name` when it may name a new owner (CONTRACT §7, §11 `--owner NAME`).

    The one rule, for every command that makes an owner (`token create`, `import locomo`,
    `owner import`, `knowledge sync --owner`: api/cli/options.py) and for
    `Committer.create_token`: not empty, no whitespace at either end (" ana" and "ana"
    would be two owners that look alike), and no "/" (stored keys are `<owner>/<id>`,
    graph.records.chat_key: owner "a/b" with chat "c" would be owner "a" with chat "b/c").

    Raises:
        InvalidInput: field `owner`, saying which rule the name breaks.
    """
    if not name.strip():
        raise InvalidInput("owner", "an owner name must not be empty or only whitespace")
    if name != name.strip():
        raise InvalidInput(
            "owner", f"an owner name must not start or end with whitespace: {name!r}"
        )
    if "/" in name:
        raise InvalidInput("owner", f"an owner name must not contain '/': {name!r}")
    return name
