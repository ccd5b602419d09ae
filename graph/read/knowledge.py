"""Reads of knowledge documents and of the access log of `remember` (CONTRACT §14).

A part of `graph.read.reader.Reader`: READ transactions only. Every query ANDs
`graph.scope.held_visible` (documents) or `LOG_VISIBLE` (the log) with the parameters of a
`Reach` resolved here, the one place a caller's holders are found.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from graph.cypher import access_log as lc
from graph.cypher import holders as hc
from graph.cypher import knowledge as kc
from graph.errors import Conflict, NotFound
from graph.held import AccessLogRecord, DocumentRecord, Holder
from graph.read.base import ReadBase
from graph.read.search import words
from graph.records import MemoryAccess
from graph.scope import GROUPS_CREATED, GROUPS_OF, Reach, knowledge_allowed, reach_params
from graph.time import FAR_FUTURE, utcnow

MAX_POINTER_TERMS = 16
MAX_NARROWED_HOLDERS = 64
"""More holders than this and the pointer's lookup is not narrowed in Lucene (the Cypher
filter alone keeps it exact)."""
_SAFE_KEY = re.compile(r"[\w.@:+-]+")


def pointer_lucene(terms: list[str], reach: Reach) -> str:
    """The full-text query of prefetch's pointer: any of `terms` (message words, as
    `graph.read.search.words` gives them: no Lucene operator among them) in a document's
    words, narrowed to the reach's holders (the caller's own, its groups') so that other
    owners' documents are never read from the index, as `fact_text` is narrowed by owner.

    A holder key the analyzer could not match as a phrase (characters outside letters,
    digits and `.@:+-_`), or more than `MAX_NARROWED_HOLDERS` of them, leaves the query
    un-narrowed: the Cypher filter (`held_visible`) still keeps the answer exact.
    """
    query = "+search_text:(" + " ".join(terms) + ")"
    keys = [f"owner:{reach.owner}", *(f"group:{g}" for g in reach.groups)]
    if len(keys) <= MAX_NARROWED_HOLDERS and all(_SAFE_KEY.fullmatch(k) for k in keys):
        query += " +(" + " ".join(f'holder:"{k}"' for k in keys) + ")"
    return query


def pointer_params(reach: Reach, message: str, limit: int) -> dict[str, Any]:
    """The parameters of graph/cypher/knowledge.py POINTERS for `KnowledgeReads.pointers`'s
    arguments; `turn.lucene` is None when nothing is to be read (no word, or knowledge kept
    out of the reach)."""
    terms = words(message)[:MAX_POINTER_TERMS]
    wanted = bool(terms) and reach.readable
    return {
        "turn": {"lucene": pointer_lucene(terms, reach) if wanted else None},
        "far": FAR_FUTURE,
        "limit": limit,
        **reach_params(reach),
    }


class KnowledgeReads(ReadBase):
    """Knowledge documents and the access log, as the caller may see them."""

    def reach(self, owner: str, access: MemoryAccess | None = None) -> Reach:
        """Resolve the holders `owner` may read now: its own and its groups' (one read; none
        in a snapshot where `prefetch_scope` read them already, in the same transaction).

        Args:
            owner: the caller's owner id.
            access: the chat's memory access, or None (no chat: full).
        """
        groups = self._groups.get(owner) if self._tx is not None else None
        if groups is None:
            rows = self._rows(GROUPS_OF, who={"owner": owner}, far=FAR_FUTURE)
            groups = tuple(sorted(rows[0]["ids"])) if rows else ()
        readable = access is None or knowledge_allowed(access)
        return Reach(owner, groups, readable)

    def document(
        self,
        reach: Reach,
        name: str,
        group_id: str | None = None,
        known_at: datetime | None = None,
    ) -> DocumentRecord:
        """Return a document as it was believed at `known_at` (default now).

        Args:
            reach: what the caller may read.
            name: the document's name.
            group_id: the group holding it; None looks in the caller's own documents
                first, then in its groups' (when exactly one group has that name).
            known_at: the knowledge instant, aware UTC.

        Raises:
            NotFound: no such document in a holder the reach sees (or retired then).
            Conflict: `group_id` None, no own document, and several groups have one.
        """
        holders = (
            [Holder(group_id=group_id).key]
            if group_id
            else [Holder(owner=reach.owner).key, *(Holder(group_id=g).key for g in reach.groups)]
        )
        rows = self._rows(
            kc.DOCS_AS_OF,
            holders=holders,
            name=name,
            known_at=known_at or utcnow(),
            **reach_params(reach),
        )
        found = [kc.document_from_record(r["k"]) for r in rows]
        own = [d for d in found if d.holder == holders[0]]
        if own:
            return own[0]
        if len(found) > 1:
            groups = ", ".join(sorted(d.group_id or "" for d in found))
            raise Conflict(f"Groups {groups} each have a document {name!r}; name the group.")
        if not found:
            raise NotFound("document", name)
        return found[0]

    def documents(
        self,
        reach: Reach,
        group_id: str | None = None,
        known_at: datetime | None = None,
        skip: int = 0,
        limit: int = 100,
    ) -> list[DocumentRecord]:
        """List documents (without bodies: `body` is "") by name, then holder.

        Args:
            reach: what the caller may read.
            group_id: only this group's; None: the caller's own and all its groups'.
            known_at: the knowledge instant (default now).
            skip, limit: the page.
        """
        holders = (
            [Holder(group_id=group_id).key]
            if group_id
            else [Holder(owner=reach.owner).key, *(Holder(group_id=g).key for g in reach.groups)]
        )
        rows = self._rows(
            kc.LIST_DOCS,
            holders=holders,
            known_at=known_at or utcnow(),
            skip=skip,
            limit=limit,
            **reach_params(reach),
        )
        return [kc.document_from_record(r["k"]) for r in rows]

    def versions(
        self, reach: Reach, holder: Holder | None, name: str, after: int = 0, limit: int = 100
    ) -> list[DocumentRecord]:
        """Every version of one document, oldest first, without bodies.

        Args:
            reach: what the caller may read.
            holder: the document's holder; None resolves it as `document` does: the
                caller's own document first, then the one group's that has (or had) it.
            name: the document's name.
            after: the last version of the previous page (0: from the first).
            limit: page size.

        Raises:
            NotFound: the document has no version the reach may see.
            Conflict: `holder` None, no own document, and several groups have one.
        """
        if holder is None:
            holder = self._holder_of(reach, name)
        rows = self._rows(
            kc.VERSIONS,
            holder=holder.key,
            name=name,
            after=after,
            limit=limit,
            **reach_params(reach),
        )
        if not rows and after == 0:
            raise NotFound("document", name)
        return [kc.document_from_record(r["k"]) for r in rows]

    def _holder_of(self, reach: Reach, name: str) -> Holder:
        """The holder a name without a group means: the caller's own, else its one group's.

        Raises:
            NotFound: no holder the reach sees has the document.
            Conflict: no own document, and several groups have one.
        """
        own = Holder(owner=reach.owner)
        rows = self._rows(
            kc.DOC_HOLDERS,
            holders=[own.key, *(Holder(group_id=g).key for g in reach.groups)],
            name=name,
            **reach_params(reach),
        )
        found = [r["holder"] for r in rows]
        if own.key in found or not found:
            return own
        if len(found) > 1:
            groups = ", ".join(h.removeprefix("group:") for h in found)
            raise Conflict(f"Groups {groups} each have a document {name!r}; name the group.")
        return Holder(group_id=found[0].removeprefix("group:"))

    def pointers(
        self, reach: Reach, message: str, limit: int = 20
    ) -> list[tuple[str, str, str, str]]:
        """Candidate documents for prefetch's pointer line: (name, description, holder,
        indexed words) of the current documents sharing a word with `message`, best first
        (CONTRACT §14). Current, whatever the prefetch's `at`: the pointer tells the
        assistant to read a document now (`read_knowledge`), and only current versions
        are in the index, so a document's history never slows prefetch."""
        asked = pointer_params(reach, message, limit)
        if asked["turn"]["lucene"] is None:
            return []
        rows = self._rows(kc.POINTERS, **asked)
        return [(r["name"], r["description"] or "", r["holder"], r["text"] or "") for r in rows]

    def group_creator(self, group_id: str) -> str | None:
        """The owner who created the group, or None when there is no such group (for the
        command line, which acts for a group without a token)."""
        rows = self._rows(hc.GROUP_CREATOR, group_id=group_id)
        return rows[0]["owner"] if rows else None

    def managed_groups(self, owner: str) -> list[str]:
        """The groups `owner` created (whose whole access log it may read)."""
        rows = self._rows(GROUPS_CREATED, owner=owner)
        return sorted(rows[0]["ids"]) if rows else []

    def access_log(
        self,
        owner: str,
        managed: list[str],
        *,
        group_id: str | None = None,
        outcome: str | None = None,
        after: tuple[datetime, str] | None = None,
        limit: int = 100,
    ) -> list[AccessLogRecord]:
        """Access-log entries newest first: `owner`'s own attempts and every attempt on a
        group in `managed` (CONTRACT §14).

        Args:
            owner: the reader ("" for an operator reading one group's log).
            managed: groups whose every entry the reader may read.
            group_id, outcome: filters (None: any).
            after: (at, id) of the last entry of the previous page.
            limit: page size.
        """
        rows = self._rows(
            lc.ACCESS_LOG,
            owner=owner,
            managed=managed,
            group_id=group_id,
            outcome=outcome,
            after_at=None if after is None else after[0],
            after_id=None if after is None else after[1],
            limit=limit,
        )
        return [lc.entry_from_record(r["a"]) for r in rows]
