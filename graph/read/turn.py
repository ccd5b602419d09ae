"""A prefetch's view and its pointer's documents in one round trip (CONTRACT §6 push, §14).

A mixin of `graph.read.reader.Reader`: READ transactions only. `prefetch_turn` answers what
`prefetch_view` and `pointers` answer, in one query (graph/cypher/turn.py PREFETCH_TURN)
instead of two: each part is scoped as it is alone (the view by the chat's scope, the
pointer by the reach). The notes stay a query of their own (`prefetch_notes`; the module
graph/cypher/turn.py says why).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from graph.cypher.turn import PREFETCH_TURN
from graph.read.base import ReadBase
from graph.read.knowledge import pointer_params
from graph.read.prefetch import PrefetchLimits, PrefetchView, view_found, view_params
from graph.scope import Reach, Scope
from graph.time import AsOf

POINTER_LIMIT = 20
"""Documents the pointer line chooses from (`KnowledgeReads.pointers`' default)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """What `prefetch_turn` read.

    Attributes:
        view: as `prefetch_view` answers it.
        pointers: as `pointers` answers it (empty when no reach was given).
    """

    view: PrefetchView
    pointers: list[tuple[str, str, str, str]]


class TurnReads(ReadBase):
    """A prefetch's view and pointer documents, together."""

    def prefetch_turn(
        self,
        scope: Scope,
        positions: Mapping[str, int],
        as_of: AsOf,
        *,
        preference_attributes: Sequence[str],
        event_attribute: str,
        attribute_order: Mapping[str, int],
        limits: PrefetchLimits,
        recall: Sequence[str] = (),
        message: str,
        reach: Reach | None = None,
    ) -> Turn:
        """Read the view and the pointer's documents of one prefetch, in one query.

        Args:
            scope: who may read what (`prefetch_scope`).
            positions, preference_attributes, event_attribute, attribute_order, limits,
                recall: as `prefetch_view` takes them.
            as_of: the point on both time axes (the view's; the pointer reads current
                documents, as `pointers` does).
            message: the turn's message (the pointer's words).
            reach: the holders the pointer may name (`reach`), or None for no pointer.

        Returns:
            Both answers, each as its own method gives it.

        Raises:
            StoreUnavailable: Neo4j could not be reached.
        """
        view = view_params(
            scope,
            positions,
            as_of,
            preference_attributes=preference_attributes,
            event_attribute=event_attribute,
            attribute_order=attribute_order,
            limits=limits,
            recall=recall,
        )
        pointer = pointer_params(
            reach if reach is not None else Reach(scope.owner, (), False), message, POINTER_LIMIT
        )
        row = self._rows(
            PREFETCH_TURN,
            **view,
            # a string and a flag, never a null: the plan is kept for one shape (PREFETCH_TURN)
            pointer_turn={
                "lucene": pointer["turn"]["lucene"] or "",
                "wanted": pointer["turn"]["lucene"] is not None,
            },
            pointer_limit=pointer["limit"],
            far=pointer["far"],
            held=pointer["held"],
        )[0]
        pointers = [(n, d or "", h, t or "") for n, d, h, t in row["pointers"]]
        return Turn(view_found(row, scope.owner), pointers)
