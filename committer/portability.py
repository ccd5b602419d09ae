"""Import of an owner's export into a new, empty owner (issue 13; format graph/portable.py).

A mixin of `committer.apply.Committer`. History is restored as it was, not replayed:
every row keeps its valid and transaction times, its status and its links, so a read at
any `(valid_at, known_at)` answers for the new owner what it answered for the old one.

Ids: the old owner may still exist in the same store, and node ids are unique across
owners, so every id of ours (`ent_`, `fct_`, `prp_`... followed by 24 hex digits,
`ID_PATTERN`) is replaced by `remap_id(new_owner, id)`, a hash of both: the same old id
gives the same new id in every field and line, with no table kept in memory. Keys made
of the owner (run, chat and event keys; merge suggestions' pair keys) are made again;
owner fields name the new owner. A client's own ids (runs, chats, messages) are kept.

What is not restored: tokens (the export has no secrets; mint new ones with `worldstate
token create`), memberships in and shares to other owners' groups (access to another
owner's memory is theirs to grant), and embeddings (`worldstate embeddings backfill`).

Nodes go in batches, one transaction each, with the owner marked `importing` so that no
commit of it runs meanwhile; an import that fails part way leaves a partial owner: erase
it (`worldstate owner erase`) and import again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from committer.proposals import pair_key
from graph.errors import Conflict, InvalidInput
from graph.portable import BY_LABEL, BY_TYPE, FORMAT, VERSION, decode
from graph.time import utcnow
from graph.write.writer import Writer

BATCH = 1_000
"""Nodes or relationships written per transaction."""
ID_PATTERN = re.compile(
    r"^(ent|fct|cor|ntf|mrg|grp|mem|shr|tok|nam|msg|cur|prp|dec|act|cmt|run|syn|epi|kdv|stv|acl"
    r"|nte|nov|ses|tsk)_[0-9a-f]{24}$"
)
"""Ids worldstate mints (graph/write/writer.py `new_id`, committer/trail.py `PREFIX`; notes,
their versions, session summaries and task logs, committer/notes.py)."""
OWNER_FIELDS = ("member", "added_by", "shared_by")
"""Fields besides a kind's owner field that name an owner (groups)."""


def remap_id(owner: str, old: str) -> str:
    """The id `old` gets in `owner`'s import: same prefix, 24 hex digits of a hash of both."""
    prefix = old.split("_", 1)[0]
    return f"{prefix}_{hashlib.sha256(f'{owner}|{old}'.encode()).hexdigest()[:24]}"


@dataclass
class ImportResult:
    """What an import wrote.

    Attributes:
        nodes: nodes created per label.
        relations: relationships created per type.
        skipped: lines left out per reason (tokens, other owners' groups).
    """

    nodes: dict[str, int] = field(default_factory=dict)
    relations: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)


class _Remap:
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new
        self.groups: set[str] = set()

    def value(self, v: Any) -> Any:
        if isinstance(v, str):
            if ID_PATTERN.match(v):
                return remap_id(self.new, v)
            if v.startswith("e:") and ID_PATTERN.match(v[2:]):
                return "e:" + remap_id(self.new, v[2:])
            return v
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v

    def holder(self, key: str) -> str:
        """A holder key (`owner:<id>`, `group:<id>`) for the new owner."""
        kind, _, ident = key.partition(":")
        if kind == "owner" and ident == self.old:
            return f"owner:{self.new}"
        return f"{kind}:{self.value(ident)}"

    def node(self, label: str, props: dict[str, Any]) -> dict[str, Any] | None:
        """The node's properties for the new owner, or None when it is left out."""
        out = {k: self.value(decode(v)) for k, v in props.items()}
        kind = BY_LABEL[label]
        out[kind.owner_field] = self.new
        for name in OWNER_FIELDS:
            if out.get(name) == self.old:
                out[name] = self.new
        if label == "Group":
            self.groups.add(out["id"])
        if label in ("Membership", "Share") and out.get("group_id") not in self.groups:
            return None
        if kind.cursor == "key":
            out["key"] = f"{self.new}/{out['id']}"
        if "holder" in out:  # a document or state version (CONTRACT §14): its holder
            out["holder"] = self.holder(out["holder"])
            if out.get("author") == self.old:
                out["author"] = self.new
            if out.get("idem"):
                workflow_key = json.loads(out["idem"])
                out["idem"] = json.dumps([self.holder(workflow_key[0]), *workflow_key[1:]])
        if label == "MergeSuggestion":
            out["key"] = pair_key(self.new, *out["entity_ids"][:2])
        return out


def closing_line(path: Path) -> dict[str, Any]:
    """Read an export file's last line, to refuse a file cut short or changed during its
    export before anything is written.

    Raises:
        InvalidInput: the file does not end with the export's closing line, or the owner
            changed while it was exported (field `file`).
    """
    with path.open("rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(max(0, size - 65536))
        tail = f.read().decode("utf-8", errors="replace").rstrip("\n").rsplit("\n", 1)[-1]
    try:
        last = json.loads(tail)
    except ValueError:
        last = {}
    if not isinstance(last, dict) or not last.get("end"):
        raise InvalidInput("file", "the export was cut short (no closing line); export it again")
    if last.get("changed_during_export"):
        raise InvalidInput("file", "the owner changed while it was exported; export it again")
    return last


class PortabilityCommands:
    """Owner import."""

    _writer: Writer

    def import_owner(self, lines: Iterable[str], owner: str, batch: int = BATCH) -> ImportResult:
        """Restore an export (JSON lines, graph/portable.py) into `owner`.

        Args:
            lines: the export's lines, in order.
            owner: the new owner's id; it must not exist, or hold nothing but tokens.
            batch: nodes or relationships per transaction.

        Returns:
            Counts of what was written and left out.

        Raises:
            InvalidInput: the file is not an owner export of a known version, was cut
                short, or changed while it was exported (field `file`).
            Conflict: the owner already has memory.
        """
        it = iter(lines)
        header = _header(next(it, ""))
        remap = _Remap(header["owner"], owner)
        if self._writer.transaction(lambda w: w.owned_besides_tokens(owner)):
            raise Conflict(f"owner {owner!r} already has memory; import into a new owner")
        result = ImportResult()
        pending: list[dict[str, Any]] = []
        pending_kind: tuple[str, str] | None = None
        ended = False
        self._writer.transaction(lambda w: w.start_import(owner, {}, utcnow()))
        for raw in it:
            if not raw.strip():
                continue
            line = json.loads(raw)
            if line.get("end"):
                if line.get("changed_during_export"):
                    raise InvalidInput(
                        "file", "the owner changed while it was exported; export it again"
                    )
                ended = True
                break
            key, item = self._item(line, remap, result)
            if item is None:
                continue
            if key != pending_kind or len(pending) >= batch:
                self._flush(owner, pending_kind, pending, result)
                pending, pending_kind = [], key
            pending.append(item)
        self._flush(owner, pending_kind, pending, result)
        if not ended:
            raise InvalidInput(
                "file", "the export was cut short (no closing line); nothing ends it"
            )
        self._writer.transaction(lambda w: w.end_import(owner))
        return result

    def _item(
        self, line: dict[str, Any], remap: _Remap, result: ImportResult
    ) -> tuple[tuple[str, str] | None, dict[str, Any] | None]:
        if "node" in line:
            label = line["node"]
            if label not in BY_LABEL:
                raise InvalidInput("file", f"unknown node kind {label!r}")
            if not BY_LABEL[label].imported:
                result.skipped[label] = result.skipped.get(label, 0) + 1
                return None, None
            props = remap.node(label, line["props"])
            if props is None:
                result.skipped[f"{label} of another owner's group"] = (
                    result.skipped.get(f"{label} of another owner's group", 0) + 1
                )
                return None, None
            return ("node", label), props
        if "rel" in line:
            if line["rel"] not in BY_TYPE:
                raise InvalidInput("file", f"unknown relationship type {line['rel']!r}")
            edge = {
                "start": remap.value(line["from"]),
                "end": remap.value(line["to"]),
                "props": {k: remap.value(decode(v)) for k, v in line["props"].items()},
            }
            return ("rel", line["rel"]), edge
        raise InvalidInput("file", "a line is neither a node nor a relationship")

    def _flush(
        self,
        owner: str,
        kind: tuple[str, str] | None,
        items: list[dict[str, Any]],
        result: ImportResult,
    ) -> None:
        if kind is None or not items:
            return
        what, name = kind
        if what == "node" and name == "Owner":
            props = {k: v for k, v in items[-1].items() if k != "id"}
            self._writer.transaction(lambda w: w.start_import(owner, props, utcnow()))
            result.nodes["Owner"] = 1
        elif what == "node":
            n = self._writer.transaction(lambda w: w.restore_nodes(name, items))
            result.nodes[name] = result.nodes.get(name, 0) + n
        else:
            n = self._writer.transaction(lambda w: w.restore_relations(owner, name, items))
            result.relations[name] = result.relations.get(name, 0) + n


def _header(raw: str) -> dict[str, Any]:
    try:
        header = json.loads(raw)
    except ValueError:
        header = {}
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InvalidInput("file", f"not a worldstate owner export (first line: {raw[:80]!r})")
    if header.get("version") != VERSION:
        raise InvalidInput(
            "file", f"export version {header.get('version')!r}; this reads {VERSION}"
        )
    return header
