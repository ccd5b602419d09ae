"""Knowledge documents as committer commands (CONTRACT §14: versioned in transaction time,
every edit kept, restore undoes).

A part of `committer.apply.Committer`. Each method is one write transaction: it opens the
holder (committer/holders.py: the owner's own, or a group the writer belongs to now),
records the new versions (the current one retracted at the same instant), and the change's
cause and effect (an `action` or a `sync` event, a `commit` event, WROTE / ENDED edges to
the versions, CONTRACT §8). A change that would leave a document as it is records nothing.

Bounds (issue 16; README "Bounds"): name 200 characters (graph.held.name_problem), body
100,000, description 1,000, at most 1,000 live documents per owner or group (409 past it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from committer.base import CommitterBase
from committer.holders import Author, Opened, open_holder, record_cause
from committer.secrets import refuse_secrets, secret_field
from graph.errors import Conflict, InvalidInput, NotFound, SecretRefused
from graph.held import (
    MAX_DOC_BODY,
    MAX_DOC_DESCRIPTION,
    MAX_DOCS,
    DocumentRecord,
    name_problem,
    search_text,
)
from graph.write.writer import WriteTx, new_id


def digest(description: str, body: str) -> str:
    """sha256 of a document's description and body: what a sync compares."""
    return hashlib.sha256(f"{description}\x00{body}".encode()).hexdigest()


def check_document(name: str, description: str, body: str) -> None:
    """Check a document against its bounds (CONTRACT §9: a 422 naming the field).

    Raises:
        InvalidInput: the name, description or body is out of bounds.
    """
    problem = name_problem(name)
    if problem is not None:
        raise InvalidInput("name", problem)
    if len(description) > MAX_DOC_DESCRIPTION:
        raise InvalidInput("description", f"at most {MAX_DOC_DESCRIPTION} characters")
    if len(body) > MAX_DOC_BODY:
        raise InvalidInput("body", f"at most {MAX_DOC_BODY} characters")


def version_map(
    name: str,
    version: int,
    description: str,
    body: str,
    *,
    source: str,
    reason: str | None,
    path: str | None = None,
    restored_from: int | None = None,
    retired: bool = False,
) -> dict[str, Any]:
    """One entry of RECORD_VERSIONS' `$docs` (graph/cypher/knowledge.py)."""
    return {
        "id": new_id("kdv"),
        "name": name,
        "version": version,
        "description": description,
        "body": body,
        "retired": retired,
        "source": source,
        "reason": reason,
        "path": path,
        "restored_from": restored_from,
        "digest": digest(description, body),
        "search_text": "" if retired else search_text(name, description),
    }


@dataclass(frozen=True, slots=True)
class SyncFile:
    """One Markdown file of a synced folder, parsed (api/cli/knowledge.py reads them)."""

    path: str
    name: str
    description: str
    body: str


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What a folder sync did: names created, changed, retired, and left unchanged."""

    sync_id: str | None
    created: tuple[str, ...]
    changed: tuple[str, ...]
    retired: tuple[str, ...]
    unchanged: tuple[str, ...]


def write_versions(
    w: WriteTx,
    opened: Opened,
    author: Author,
    docs: Sequence[dict[str, Any]],
    kind: str = "action",
    event_id: str | None = None,
    **detail: Any,
) -> list[DocumentRecord]:
    """Record `docs` in the opened holder with their cause and effect; return the new
    versions (in the order of `docs`)."""
    if not docs:
        return []
    events = record_cause(w, author.owner, opened.t, kind, event_id=event_id, **detail)
    written = w.record_documents(
        opened.holder.key,
        owner=opened.erased_with,
        group_id=opened.holder.group_id,
        author=author.owner,
        token_id=author.token_id,
        cause=events.cause,
        docs=docs,
        t=opened.t,
    )
    w.link_document_effects(
        author.owner,
        events.commit_key,
        events.cause,
        [d.id for d, _ in written],
        [old for _, ended in written for old in ended],
    )
    return [d for d, _ in written]


def next_version(current: DocumentRecord | None) -> int:
    """The version number after `current` (1 for a new document)."""
    return 1 if current is None else current.version + 1


def room_for_one(w: WriteTx, holder: str, current: DocumentRecord | None) -> None:
    """Refuse a new live document past the bound (a document that is live already is not
    counted twice).

    Raises:
        Conflict: the holder has `MAX_DOCS` live documents.
    """
    if current is not None and not current.retired:
        return
    if len(w.live_documents(holder)) >= MAX_DOCS:
        raise Conflict(
            f"This owner or group has {MAX_DOCS} documents, the most it may hold; "
            "retire one first (DELETE /v1/knowledge/{name})."
        )


class KnowledgeCommands(CommitterBase):
    """Edit, retire, restore and sync knowledge documents."""

    def put_document(
        self,
        author: Author,
        name: str,
        description: str,
        body: str,
        *,
        group_id: str | None = None,
        reason: str | None = None,
        source: str = "edit",
    ) -> tuple[DocumentRecord, bool]:
        """Record a new version of a document (created if new, or live again if retired).

        Returns:
            (the current version, True when this call recorded it; False when the
            document already read exactly so and nothing was written).

        Raises:
            InvalidInput: out of bounds (field named).
            SecretRefused: the description, body or reason carries a credential.
            NotFound: `group_id` is not a group the author belongs to.
            Conflict: a new document past the 1,000 bound.
        """
        check_document(name, description, body)
        refuse_secrets({"description": description, "body": body, "reason": reason})

        def work(w: WriteTx) -> tuple[DocumentRecord, bool]:
            opened = open_holder(w, author.owner, group_id)
            current = w.current_document(opened.holder.key, name)
            unchanged = current is not None and current.digest == digest(description, body)
            if current is not None and not current.retired and unchanged:
                return current, False
            room_for_one(w, opened.holder.key, current)
            doc = version_map(
                name, next_version(current), description, body, source=source, reason=reason
            )
            [written] = write_versions(
                w, opened, author, [doc], action="knowledge_edit", target_id=name
            )
            return written, True

        return self._writer.transaction(work)

    def retire_document(
        self, author: Author, name: str, *, group_id: str | None = None, reason: str | None = None
    ) -> DocumentRecord:
        """Retire a document: a version saying so; reads from now on answer 404, reads with
        `known_at` before now still see it, and a restore brings it back.

        Raises:
            NotFound: no live document of that name in the holder.
        """

        def work(w: WriteTx) -> DocumentRecord:
            opened = open_holder(w, author.owner, group_id)
            current = w.current_document(opened.holder.key, name)
            if current is None or current.retired:
                raise NotFound("document", name)
            doc = version_map(
                name, current.version + 1, "", "", source="edit", reason=reason, retired=True
            )
            [written] = write_versions(
                w, opened, author, [doc], action="knowledge_retire", target_id=name
            )
            return written

        return self._writer.transaction(work)

    def restore_document(
        self,
        author: Author,
        name: str,
        version: int,
        *,
        group_id: str | None = None,
        reason: str | None = None,
    ) -> tuple[DocumentRecord, bool]:
        """Undo: record a new version with the description and body of `version`.

        Returns:
            (the current version, True when recorded now; False when the document
            already reads as that version).

        Raises:
            NotFound: no such document or version in the holder.
            InvalidInput: `version` is a retirement (field `version`).
            Conflict: restoring a retired document past the 1,000 bound.
        """

        def work(w: WriteTx) -> tuple[DocumentRecord, bool]:
            opened = open_holder(w, author.owner, group_id)
            old = w.document_version(opened.holder.key, name, version)
            if old is None:
                raise NotFound("document version", f"{name}@{version}")
            if old.retired:
                raise InvalidInput("version", f"version {version} retired the document")
            current = w.current_document(opened.holder.key, name)
            if current is not None and not current.retired and current.digest == old.digest:
                return current, False
            room_for_one(w, opened.holder.key, current)
            doc = version_map(
                name,
                next_version(current),
                old.description,
                old.body,
                source="restore",
                reason=reason or f"restore of version {version}",
                restored_from=version,
            )
            [written] = write_versions(
                w, opened, author, [doc], action="knowledge_restore", target_id=name
            )
            return written, True

        return self._writer.transaction(work)

    def sync_documents(
        self, author: Author, files: Sequence[SyncFile], *, group_id: str | None = None
    ) -> SyncResult:
        """Make the holder's synced documents match a folder, in one transaction.

        A changed or new file records a version (source `sync`, its path, the sync as the
        cause); a document whose current version came from a sync and whose file is gone
        is retired; documents written otherwise (an edit, `remember`) are left alone. A
        folder that matches the store records nothing, not even a sync event.

        Raises:
            InvalidInput: a file out of bounds, or two files with one name (field `name`).
            SecretRefused: a file's description or body carries a credential (field
                "body of <path>"): nothing is synced.
            NotFound: `group_id` names no group `author` belongs to.
            Conflict: the holder would pass 1,000 live documents.
        """
        seen: dict[str, str] = {}
        for f in files:
            check_document(f.name, f.description, f.body)
            found = secret_field({"description": f.description, "body": f.body})
            if found is not None:
                raise SecretRefused(f"{found} of {f.path}")
            if f.name in seen:
                raise InvalidInput("name", f"{f.path} and {seen[f.name]} both name {f.name!r}")
            seen[f.name] = f.path

        def work(w: WriteTx) -> SyncResult:
            opened = open_holder(w, author.owner, group_id)
            live = {d["name"]: d for d in w.live_documents(opened.holder.key)}
            docs: list[dict[str, Any]] = []
            created: list[str] = []
            changed: list[str] = []
            unchanged: list[str] = []
            for f in sorted(files, key=lambda x: x.name):
                now = live.get(f.name)
                if now is not None and now["digest"] == digest(f.description, f.body):
                    unchanged.append(f.name)
                    continue
                current = w.current_document(opened.holder.key, f.name)
                (changed if now is not None else created).append(f.name)
                docs.append(
                    version_map(
                        f.name,
                        next_version(current),
                        f.description,
                        f.body,
                        source="sync",
                        reason=f"synced from {f.path}",
                        path=f.path,
                    )
                )
            gone = sorted(n for n, d in live.items() if d["source"] == "sync" and n not in seen)
            for name in gone:
                docs.append(
                    version_map(
                        name,
                        int(live[name]["version"]) + 1,
                        "",
                        "",
                        source="sync",
                        reason=f"{live[name]['path']} was removed",
                        path=live[name]["path"],
                        retired=True,
                    )
                )
            if len(live) + len(created) - len(gone) > MAX_DOCS:
                raise Conflict(f"The sync would leave more than {MAX_DOCS} documents.")
            if not docs:
                return SyncResult(None, (), (), (), tuple(unchanged))
            sync_id = new_id("syn")
            write_versions(
                w, opened, author, docs, kind="sync", event_id=sync_id, integration="folder"
            )
            return SyncResult(
                sync_id, tuple(created), tuple(changed), tuple(gone), tuple(unchanged)
            )

        return self._writer.transaction(work)
