"""The oracle of tests/oracle.py with merges (CONTRACT §5), written from the contract text.

* Merge L into S at t: every current row of L is retracted at t and asserted again on S
  at t (window, value, cardinality, provenance kept, and its status where its own closed
  end ends the new row, as for a row recorded again), by the rules of CONTRACT §2.1; a
  `one` row overlapping a row of another value S held before the merge is not moved but
  held back as a question. L's id then stands for S; a history of S shows the rows of
  the entities merged into it (by the history's `known_at`).
"""

from __future__ import annotations

from typing import Any

from tests.oracle import Oracle, Row


class MergeOracle(Oracle):
    """`Oracle` plus merges.

    Attributes:
        merges: loser -> (survivor, merge time).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.merges: dict[str, tuple[str, Any]] = {}

    def merge(self, t: Any, loser: str, survivor: str) -> tuple[Row, ...]:
        """Merge `loser` into `survivor` at t (CONTRACT §5); return the rows held back.

        Every current row of the loser is retracted at t; each is then asserted on the
        survivor at t with its window and value (rules 1-4 apply: duplicates are
        nothing new, same-value windows coalesce), in order of attribute and
        valid_from; except a `one` row overlapping a row of another value that the
        survivor held before the merge: it is held back (a question, not a silent pick).
        """
        self._tick(t)
        rows = sorted(self.current(loser), key=lambda r: (r.attribute, r.valid_from))
        for r in rows:
            self._retract(r, t)
        before = {a: self.current(survivor, a) for a in {r.attribute for r in rows}}
        held = []
        for r in rows:
            if r.cardinality == "one" and any(
                s.norm != r.norm and s.valid_from < r.valid_to and r.valid_from < s.valid_to
                for s in before[r.attribute]
            ):
                held.append(r)
                continue
            end = None if r.valid_to == self.open_end else r.valid_to
            self._assert(
                t,
                survivor,
                r.attribute,
                r.value,
                r.valid_from,
                end,
                r.cardinality,
                r.provenance,
                r.status,
            )
        self.merges[loser] = (survivor, t)
        return tuple(held)

    def resolve(self, entity: str, known_at: Any = None) -> str:
        """The entity an id stands for at `known_at` (now when None): its survivor once
        merged, following a chain of merges, else itself."""
        while entity in self.merges and (known_at is None or self.merges[entity][1] <= known_at):
            entity = self.merges[entity][0]
        return entity

    def _members(self, entity: str, known_at: Any) -> set[str]:
        """`entity` and every entity merged into it by `known_at` (ever, when None),
        directly or through a chain of merges."""
        out = {entity}
        for e in {r.entity for r in self.rows}:
            step = e
            while step in self.merges and (known_at is None or self.merges[step][1] <= known_at):
                step = self.merges[step][0]
                if step == entity:
                    out.add(e)
        return out
