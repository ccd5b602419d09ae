"""Owners and entities as the committer creates them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from committer.secrets import refuse_secrets
from graph.errors import InvalidInput
from graph.names import search_key
from graph.records import EntityRecord
from graph.time import utcnow
from graph.write.writer import WriteTx, new_id


def ensure_owner(w: WriteTx, owner: str) -> tuple[str, bool]:
    """Create the owner and its own person entity (named after it) if missing.

    Returns:
        (the owner's own person entity id, True if this call created the owner).
    """
    self_id, created = w.ensure_owner(owner, utcnow())
    if created:
        w.create_entity(
            owner,
            entity_id=self_id,
            name=owner,
            kind="person",
            aliases=(),
            search_names=(search_key(owner),),
            area=None,
            t=utcnow(),
        )
    return self_id, created


MAX_MERGE_HOPS = 20


def live_entity(w: WriteTx, owner: str, entity_id: str) -> EntityRecord:
    """The entity an id stands for now: itself, or the survivor it was merged into
    (CONTRACT §5), following a chain of merges.

    Raises:
        NotFound: the id is not the owner's.
    """
    entity = w.entity(owner, entity_id)
    for _ in range(MAX_MERGE_HOPS):
        if entity.merged_into is None:
            break
        entity = w.entity(owner, entity.merged_into)
    return entity


def new_entity(
    w: WriteTx,
    owner: str,
    name: str,
    kind: str,
    aliases: Sequence[str],
    area: str | None,
    t: datetime,
) -> EntityRecord:
    """Create an entity at `t`; its name and aliases are stored with their search keys.

    Every writer that creates an entity comes here (REST, a split, a proposal's or a
    sync's named entity), so a name or alias carrying a credential is refused before
    anything is written (CONTRACT §3, §12: an entity name is never a secret).

    Raises:
        InvalidInput: the name is empty.
        SecretRefused: the name or an alias carries a credential (field `name`,
            `aliases`; committer/secrets.py).
    """
    if not name.strip():
        raise InvalidInput("name", "must not be empty")
    refuse_secrets({"name": name, "aliases": list(aliases)})
    keys = list(dict.fromkeys(search_key(n) for n in (name, *aliases) if n.strip()))
    return w.create_entity(
        owner,
        entity_id=new_id("ent"),
        name=name.strip(),
        kind=kind,
        aliases=list(aliases),
        search_names=keys,
        area=area,
        t=t,
    )
