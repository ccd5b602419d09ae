"""The owner export's format: which nodes and relationships make up an owner's memory,
and how their values travel as JSON (issue 13 "Export of an owner's memory").

`KINDS` is the table of node kinds, in the order they are exported and imported: a new
owned label is one more line here (and one in `graph.cypher.erasure.OWNED_LABELS`;
tests/graph/test_portable.py holds the two together). `RELATIONS` lists the relationship
types between an owner's nodes. Every property of a node travels, except
`Kind.derived` (recomputed: embeddings are `worldstate embeddings backfill`'s job) and
`Kind.secret` (a token's hash never leaves the store). Lines are JSON objects:

* `{"format": "worldstate-owner-export", "version": 1, "owner", "exported_at"}` first;
* `{"node": "<Label>", "props": {...}}` per node, kinds in `KINDS` order;
* `{"rel": "<TYPE>", "from": "<start ref>", "to": "<end ref>", "props": {...}}` (`rel` is
  `Relation.key`: the type, or a name of its own where a type has two end kinds);
* `{"end": true, "counts": {...}, "changed_during_export": bool}` last: a file without
  it was cut short.

Values are JSON, except a datetime, written `{"$datetime": "<ISO 8601, nanoseconds, Z>"}`
so a time round-trips exactly (an open end is stored as 9999-12-31, `graph.time.FAR_FUTURE`,
and exported as such).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from neo4j.time import DateTime

FORMAT = "worldstate-owner-export"
VERSION = 1


@dataclass(frozen=True, slots=True)
class Kind:
    """One label of an owner's memory.

    Attributes:
        label: the node label (a literal of ours, never from input).
        cursor: the property pages are ordered by (unique per owner).
        ref: the property a relationship line names the node by (owner-free: an event's
            `id`, not its `owner/id` key).
        owner_field: the property holding the owner id ("owner"; "id" for `Owner`).
        derived: properties left out (recomputed after an import).
        secret: properties never exported.
        imported: False for a kind exported for the person's information only (tokens:
            a restored owner gets tokens of its own).
    """

    label: str
    cursor: str = "id"
    ref: str = "id"
    owner_field: str = "owner"
    derived: tuple[str, ...] = ()
    secret: tuple[str, ...] = ()
    imported: bool = True


KINDS: tuple[Kind, ...] = (
    Kind("Owner", owner_field="id", derived=("locked_by", "erasing", "importing")),
    Kind("Entity"),
    Kind("EntityNames"),
    Kind("Fact", derived=("embedding", "embedding_model")),
    Kind("Corroboration"),
    Kind("Proposal"),
    Kind("Suppression", cursor="subject", ref=""),
    Kind("Notification"),
    Kind("MergeSuggestion"),
    Kind("Run", cursor="key", ref=""),
    Kind("Chat", cursor="key", ref=""),
    Kind("Event", cursor="key"),
    Kind("Group", derived=("locked_by",)),
    Kind("Membership"),
    Kind("Share"),
    Kind("Token", secret=("hash",), ref="", imported=False),
    # Episodes, what was said (CONTRACT §12): `search_text` travels (it is what the
    # full-text index reads); the vector is the backfill's to make again.
    Kind("Episode", derived=("embedding", "embedding_model")),
    # Knowledge documents, workflow state, the access log, usage (CONTRACT §14). The
    # commits' WROTE / ENDED edges to versions are not exported (a type has one pair of
    # ends here); each version keeps its cause event's id.
    Kind("KnowledgeVersion"),
    Kind("StateVersion"),
    Kind("AccessLogEntry"),
    Kind("Usage", cursor="key", ref=""),
    # Notes (CONTRACT §13): versions, standing, session summaries, task logs, reading ledgers.
    Kind("Note", derived=("embedding", "embedding_model")),
    Kind("NoteHead"),
    Kind("NoteSession"),
    Kind("NoteTask"),
    Kind("NoteReadLedger", cursor="key", ref="", derived=("locked_by",)),
)
"""Every kind of node an owner's memory consists of, in export and import order."""

BY_LABEL = {k.label: k for k in KINDS}


@dataclass(frozen=True, slots=True)
class Relation:
    """A relationship type between two of an owner's node kinds.

    Attributes:
        type: the relationship type (a literal of ours).
        start: the start node's label.
        end: the end node's label.
        name: what a line's `rel` field says, when one type links a start kind to two end
            kinds (an event WROTE or ENDED a fact row or an episode); the type by default.
    """

    type: str
    start: str
    end: str
    name: str = ""

    @property
    def key(self) -> str:
        """The line's `rel` field: `name`, or the type."""
        return self.name or self.type


RELATIONS: tuple[Relation, ...] = (
    Relation("OWNS", "Owner", "Entity"),
    Relation("HAD_NAMES", "Entity", "EntityNames"),
    Relation("MERGED_INTO", "Entity", "Entity"),
    Relation("OBJECT", "Fact", "Entity"),
    Relation("REPLACES", "Fact", "Fact"),
    Relation("SUPERSEDED", "Fact", "Fact"),
    Relation("COALESCED", "Fact", "Fact"),
    Relation("MOVED_FROM", "Fact", "Fact"),
    Relation("CORROBORATES", "Corroboration", "Fact"),
    Relation("CAUSED", "Event", "Event"),
    Relation("WROTE", "Event", "Fact"),
    Relation("ENDED", "Event", "Fact"),
    Relation("CHANGED", "Event", "Entity"),
    Relation("SUPERSEDES", "Note", "Note"),
    Relation("REMAINS_OF", "Note", "Note"),
    Relation("HANDED_OVER_FROM", "Note", "Note"),
    Relation("WROTE_NOTE", "Event", "Note"),
    Relation("ENDED_NOTE", "Event", "Note"),
    Relation("ENDED", "Event", "Episode", name="ENDED_EPISODE"),
    Relation("WROTE", "Event", "Episode", name="WROTE_EPISODE"),
)
"""Every relationship type inside an owner's memory (`HAS_TOKEN` is left out with the
tokens' secrets; a restored owner's tokens are its own)."""

BY_TYPE = {r.key: r for r in RELATIONS}
"""Relations by the `rel` field of their lines (`Relation.key`)."""


def encode(value: Any) -> Any:
    """A stored value as JSON: a datetime as `{"$datetime": ISO}`, lists element-wise."""
    if isinstance(value, DateTime):
        return {"$datetime": _iso(value)}
    if isinstance(value, dt.datetime):
        return {"$datetime": _iso(DateTime.from_native(value))}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """The inverse of `encode`: `{"$datetime": ISO}` back to a Neo4j DateTime at the UTC
    offset, as the committer stores times (an offset, not the zone id `[UTC]`: Cypher
    does not order a zone-id datetime against an offset one)."""
    if isinstance(value, dict) and set(value) == {"$datetime"}:
        parsed = DateTime.from_iso_format(value["$datetime"].replace("Z", "+00:00"))
        return parsed.astimezone(dt.UTC).replace(tzinfo=dt.UTC)
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def node_line(label: str, props: dict[str, Any]) -> str:
    """One node as a JSON line (without the kind's derived and secret properties)."""
    kind = BY_LABEL[label]
    kept = {k: encode(v) for k, v in sorted(props.items()) if k not in kind.derived + kind.secret}
    return json.dumps({"node": label, "props": kept}, ensure_ascii=False)


def rel_line(key: str, start: str, end: str, props: dict[str, Any]) -> str:
    """One relationship as a JSON line: its `Relation.key`, its ends' refs, its properties."""
    body = {k: encode(v) for k, v in sorted(props.items())}
    return json.dumps({"rel": key, "from": start, "to": end, "props": body}, ensure_ascii=False)


def _iso(value: DateTime) -> str:
    utc = value.astimezone(dt.UTC) if value.tzinfo is not None else value
    return str(utc.iso_format()).replace("+00:00", "Z")
