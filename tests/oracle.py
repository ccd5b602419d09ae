"""A small, independent model of CONTRACT §2 (time, committer rules, forget, retract).

Written from the contract text, not from `committer.rules`: the tests run the same
operations against the store and against this model and compare what each can read.
The model keeps every row in a list; nothing is ever removed, a row is only retracted.

Commit times are not invented here: the caller passes the store's `recorded_at` for
each operation, so both sides agree on the transaction-time axis. Valid times are any
totally ordered values (datetimes in practice); `open_end` stands for an open end.

Rules (CONTRACT §2.1, §2.2), N = (value, [a, b)) committed at t:

* Rule 3, late knowledge: an open N ends at the earliest start, after a, of a current
  row of the attribute (`one`: any value; `many`: N's value only). When it is cut
  short and a row of another value starts exactly there, N's row is `superseded`.
* Rule 1, duplicate: a current row of N's (normalized) value covering [a, b_eff)
  means nothing is written.
* Rule 2, supersede (`one` only): each current row of another value overlapping
  [a, b_eff) is retracted; its part before a is recorded again `superseded`, its part
  after b_eff recorded again with its own status.
* Coalesce: N widens over every current row of its value that overlaps or touches it;
  those rows are retracted; the new row takes the status of whichever row supplies
  its end (N on a tie), and N's provenance.
* Forget F: retract F, record [F.from, min(F.to, t)) `invalidated` unless F.from >= t.
  Forgetting a row already `invalidated` and ended by t changes nothing.
* Retract X (it was never true: the assertion is undone): X is retracted with no
  replacement. X's *lineage* is X and every row it continues, transitively (a row
  continues the rows it was recorded in place of: a remainder its original, a forgotten
  row's `invalidated` remnant the forgotten row, a brought-back row the rows it brings
  back and the rows of its value it joined). The lineage's windows, less what the
  other current rows cover, go back to what held there before: the rows any lineage row
  pushed out (rule 2) or folded in (a same-value row coalesced into an assertion),
  nearest in the lineage first, then most recently recorded first, each over what is
  left of its old window. Brought-back parts coalesce with the current rows of their
  value, and with each other (a part joined to an earlier-brought-back part keeps that
  part's value and provenance). A part cut short of its row's window where a row of
  another value starts (a current one, or another brought-back part) is `superseded`;
  any other part keeps its row's status.
* Retract declares a claim never true, for good: X's lineage, and every other part of
  that claim recorded before and no longer current at the retract (a row continuing,
  transitively, a lineage row, since retracted by a supersede, forget or coalesce) are
  *disowned*. A disowned row is never brought back by this or any later retract; in its
  place stand the rows its own lineage pushed out or folded in (what held before it), at
  its distance plus one plus theirs, and so on through disowned rows. Parts of the claim
  still current at the retract are left alone: they are believed, and a later undo of
  what pushes them out brings them back. Forget and supersede disown nothing.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from graph.time import FAR_FUTURE

ACTIVE, SUPERSEDED, INVALIDATED = "active", "superseded", "invalidated"


def normalize(value: Any) -> Hashable:
    """What "the same value" means: strings compare case- and space-insensitively."""
    if isinstance(value, str):
        return ("s", " ".join(unicodedata.normalize("NFKC", value).casefold().split()))
    if isinstance(value, bool):
        return ("b", value)
    return ("n", value)


@dataclass(slots=True)
class Row:
    """One fact version in the model.

    Attributes:
        pushed: ids of rows of other values this row's assertion retracted (rule 2).
        folded: ids of rows of its value its assertion coalesced into it.
        continues: ids of the rows it was recorded in place of (the row it is a
            remainder of or invalidates; the rows it brings back and those it joined).
    """

    id: str
    entity: str
    attribute: str
    value: Any
    norm: Hashable
    cardinality: str
    valid_from: Any
    valid_to: Any
    recorded_at: Any
    retracted_at: Any
    status: str
    provenance: Any = None
    pushed: list[str] = field(default_factory=list)
    folded: list[str] = field(default_factory=list)
    continues: list[str] = field(default_factory=list)

    def key(self) -> tuple[Any, ...]:
        """What tests compare between the model and the store."""
        return (self.attribute, self.value, self.valid_from, self.valid_to, self.status)

    def full_key(self) -> tuple[Any, ...]:
        """`key()` plus both transaction-time fields."""
        return (*self.key(), self.recorded_at, self.retracted_at)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one operation did.

    Attributes:
        effect: "created" | "duplicate" | "superseded" | "forgotten" | "retracted".
        fact: the row standing for the assertion (the covering row for a duplicate),
            the new `invalidated` row of a forget, or None.
        superseded: rows of other values retracted by an assertion.
        retracted: every row retracted by the operation.
        recorded: every row recorded by the operation.
    """

    effect: str
    fact: Row | None
    superseded: tuple[Row, ...] = ()
    retracted: tuple[Row, ...] = ()
    recorded: tuple[Row, ...] = ()


class Oracle:
    """The model store.

    Args:
        open_end: the value standing for an open end on both axes.
        norm: maps a value to its normalized form.
    """

    def __init__(
        self, open_end: Any = FAR_FUTURE, norm: Callable[[Any], Hashable] = normalize
    ) -> None:
        self.open_end = open_end
        self.norm = norm
        self.rows: list[Row] = []
        self._ids = itertools.count(1)
        self._by_id: dict[str, Row] = {}
        self._last_t: Any = None
        self.disowned: set[str] = set()
        """Ids of rows a retract declared never true (see the module docstring)."""

    # -- reads -----------------------------------------------------------------------

    def row(self, row_id: str) -> Row:
        """Return the row with `row_id`."""
        return self._by_id[row_id]

    def current(self, entity: str | None = None, attribute: str | None = None) -> list[Row]:
        """Rows still believed (`retracted_at` open), optionally of one entity/attribute."""
        return [
            r
            for r in self.rows
            if r.retracted_at == self.open_end
            and (entity is None or r.entity == entity)
            and (attribute is None or r.attribute == attribute)
        ]

    def read(self, entity: str, valid_at: Any, known_at: Any) -> list[Row]:
        """Rows of `entity` a read at (valid_at, known_at) sees (CONTRACT §2)."""
        return [
            r
            for r in self.rows
            if r.entity == entity
            and r.recorded_at <= known_at < r.retracted_at
            and r.valid_from <= valid_at < r.valid_to
        ]

    def history(
        self,
        entity: str,
        attribute: str | None = None,
        known_at: Any = None,
        include_retracted: bool = False,
    ) -> list[Row]:
        """Rows of an attribute (or every attribute) ordered by (valid_from, recorded_at).

        Without `include_retracted`: the rows believed at `known_at` (now when None).
        With it: every row recorded by `known_at` (every row when None), retracted or not.
        Rows of the entities `_members` names count as the entity's own.
        """
        members = self._members(entity, known_at)
        out = []
        for r in self.rows:
            if r.entity not in members or (attribute is not None and r.attribute != attribute):
                continue
            if known_at is not None and r.recorded_at > known_at:
                continue
            if not include_retracted:
                believed_until = r.retracted_at
                if known_at is None and believed_until != self.open_end:
                    continue
                if known_at is not None and not known_at < believed_until:
                    continue
            out.append(r)
        return sorted(out, key=lambda r: (r.valid_from, r.recorded_at))

    # -- writes ----------------------------------------------------------------------

    def assert_(
        self,
        t: Any,
        entity: str,
        attribute: str,
        value: Any,
        valid_from: Any = None,
        valid_to: Any = None,
        cardinality: str = "one",
        provenance: Any = None,
    ) -> Outcome:
        """Commit N = (value, [valid_from, valid_to)) at t (CONTRACT §2.1).

        `valid_from=None` means t; `valid_to=None` means open.

        Raises:
            ValueError: the window is empty.
        """
        self._tick(t)
        return self._assert(
            t, entity, attribute, value, valid_from, valid_to, cardinality, provenance, ACTIVE
        )

    def _assert(
        self,
        t: Any,
        entity: str,
        attribute: str,
        value: Any,
        valid_from: Any,
        valid_to: Any,
        cardinality: str,
        provenance: Any,
        closed_status: str,
    ) -> Outcome:
        """`assert_` without the commit-time check (a merge asserts many rows at one t);
        `closed_status` is the new row's status when its own closed end ends it."""
        a = t if valid_from is None else valid_from
        b = self.open_end if valid_to is None else valid_to
        if not a < b:
            raise ValueError("valid_to must be later than valid_from")
        key = self.norm(value)
        cur = self.current(entity, attribute)
        same = [r for r in cur if r.norm == key]
        others = [r for r in cur if r.norm != key] if cardinality == "one" else []

        # Rule 3: late knowledge.
        end, status = b, ACTIVE if b == self.open_end else closed_status
        if b == self.open_end:
            pool = cur if cardinality == "one" else same
            later = [r.valid_from for r in pool if r.valid_from > a]
            if later:
                end = min(later)
                if any(r.valid_from == end for r in others):
                    status = SUPERSEDED

        # Rule 1: duplicate.
        for r in same:
            if r.valid_from <= a and r.valid_to >= end:
                return Outcome("duplicate", r)

        retracted: list[Row] = []
        recorded: list[Row] = []
        pushed: list[Row] = []
        # Rule 2: supersede.
        for r in sorted(others, key=lambda r: r.valid_from):
            if not (r.valid_from < end and a < r.valid_to):
                continue
            pushed.append(r)
            retracted.append(self._retract(r, t))
            if r.valid_from < a:
                recorded.append(self._carry(r, t, r.valid_from, a, SUPERSEDED))
            if r.valid_to > end:
                recorded.append(self._carry(r, t, end, r.valid_to, r.status))

        joined = self._coalesce(entity, attribute, key, a, end, status, t)
        retracted.extend(joined.retracted)
        new = self._record(
            t,
            entity,
            attribute,
            value,
            key,
            cardinality,
            joined.start,
            joined.stop,
            joined.status,
            provenance,
            pushed=[*(r.id for r in pushed), *joined.pushed],
            folded=joined.joined,
        )
        recorded.append(new)
        return Outcome(
            SUPERSEDED if pushed else "created",
            new,
            tuple(pushed),
            tuple(retracted),
            tuple(recorded),
        )

    def forget(self, t: Any, row_id: str) -> Outcome:
        """Forget a current row at t: it no longer holds (CONTRACT §2.2)."""
        self._tick(t)
        f = self._current_row(row_id)
        if f.status == INVALIDATED and f.valid_to <= t:
            return Outcome("forgotten", f)  # already forgotten and ended: nothing changes
        self._retract(f, t)
        if not f.valid_from < t:
            return Outcome("forgotten", None, (), (f,), ())
        new = self._carry(f, t, f.valid_from, min(f.valid_to, t), INVALIDATED)
        return Outcome("forgotten", new, (), (f,), (new,))

    def retract(self, t: Any, row_id: str) -> Outcome:
        """Retract a current row at t: it was never true (CONTRACT §2.2)."""
        self._tick(t)
        x = self._current_row(row_id)
        lineage = self.lineage(x)
        self._disown(lineage)
        before = self._before(lineage)
        self._retract(x, t)
        gaps: list[tuple[Any, Any]] = []
        for row, _ in lineage:
            gaps = [*_subtract(gaps, row.valid_from, row.valid_to), (row.valid_from, row.valid_to)]
        gaps = _subtract_all(gaps, self.current(x.entity, x.attribute))
        pieces: list[tuple[Any, Any, Row]] = []
        for _, p in sorted(before.values(), key=lambda dp: (dp[0], _desc(dp[1].recorded_at))):
            for g_start, g_stop in list(gaps):
                s, e = max(g_start, p.valid_from), min(g_stop, p.valid_to)
                if s < e:
                    pieces.append((s, e, p))
                    gaps = _subtract(gaps, s, e)
        retracted: list[Row] = [x]
        recorded: list[Row] = []
        starts = [(r.valid_from, r.norm) for r in self.current(x.entity, x.attribute)]
        starts += [(s, p.norm) for s, _, p in pieces]
        for s, e, p in sorted(pieces, key=lambda piece: piece[0]):
            cut = e < p.valid_to and any(at == e and norm != p.norm for at, norm in starts)
            status = SUPERSEDED if cut else p.status
            joined = self._coalesce(p.entity, p.attribute, p.norm, s, e, status, t)
            retracted.extend(joined.retracted)
            recorded = [r for r in recorded if r.id not in joined.dropped]
            value, provenance = p.value, p.provenance
            if joined.first is not None:
                value, provenance = joined.first.value, joined.first.provenance
            recorded.append(
                self._record(
                    t,
                    p.entity,
                    p.attribute,
                    value,
                    p.norm,
                    p.cardinality,
                    joined.start,
                    joined.stop,
                    joined.status,
                    provenance,
                    continues=[p.id, *joined.continues],
                )
            )
        return Outcome("retracted", None, (), tuple(retracted), tuple(recorded))

    def _disown(self, lineage: list[tuple[Row, int]]) -> None:
        """Declare the claim of a lineage never true: its rows, and every row continuing
        one of them that is no longer current (called before the retract ends anything)."""
        claim = {row.id for row, _ in lineage}
        self.disowned |= claim
        for r in self.rows:
            if r.retracted_at != self.open_end and claim & {c.id for c, _ in self.lineage(r)}:
                self.disowned.add(r.id)

    def _before(self, lineage: list[tuple[Row, int]]) -> dict[str, tuple[int, Row]]:
        """What held before a claim: the rows its lineage pushed out or folded in, by id,
        each at its smallest distance; a disowned one gives way to what held before it."""
        before: dict[str, tuple[int, Row]] = {}
        todo = [(lineage, 0)]
        while todo:
            rows, base = todo.pop()
            for row, depth in rows:
                for i in (*row.pushed, *row.folded):
                    d = base + depth
                    if i in before and before[i][0] <= d:
                        continue
                    before[i] = (d, self._by_id[i])
                    if i in self.disowned:
                        todo.append((self.lineage(self._by_id[i]), d + 1))
        return {i: dp for i, dp in before.items() if i not in self.disowned}

    def _members(self, entity: str, known_at: Any) -> set[str]:
        """The entities whose rows a history of `entity` shows: itself (tests/oracle_merge.py
        adds the entities merged into it)."""
        return {entity}

    def lineage(self, x: Row) -> list[tuple[Row, int]]:
        """x and every row it continues, transitively, each with its distance from x."""
        out: list[tuple[Row, int]] = []
        seen = {x.id}
        frontier, depth = [x], 0
        while frontier:
            out.extend((r, depth) for r in frontier)
            nxt = []
            for r in frontier:
                for i in r.continues:
                    if i not in seen:
                        seen.add(i)
                        nxt.append(self._by_id[i])
            frontier, depth = nxt, depth + 1
        return out

    # -- internals -------------------------------------------------------------------

    def _tick(self, t: Any) -> None:
        if self._last_t is not None and not self._last_t < t:
            raise AssertionError(f"commit times must increase: {self._last_t!r} then {t!r}")
        self._last_t = t

    def _current_row(self, row_id: str) -> Row:
        r = self._by_id[row_id]
        if r.retracted_at != self.open_end:
            raise KeyError(f"row {row_id} is not current")
        return r

    def _retract(self, r: Row, t: Any) -> Row:
        assert r.retracted_at == self.open_end, "a row is retracted at most once"
        r.retracted_at = t
        return r

    def _coalesce(
        self,
        entity: str,
        attribute: str,
        key: Hashable,
        start: Any,
        stop: Any,
        status: str,
        t: Any,
    ) -> _Joined:
        """Widen [start, stop) over touching current rows of `key`, to a fixed point.

        Rows recorded before this commit are retracted. A row recorded earlier in this
        same commit (a part brought back by the same retract, a window moved by the same
        merge) never existed on its own: it is dropped, and the new row continues, pushes
        out and folds in what it did.
        """
        out = _Joined(start, stop, status)
        changed = True
        while changed:
            changed = False
            for r in self.current(entity, attribute):
                if r.norm != key or not (r.valid_from <= out.stop and out.start <= r.valid_to):
                    continue
                if r.recorded_at == t:
                    self.rows.remove(r)
                    del self._by_id[r.id]
                    out.dropped.add(r.id)
                    out.continues.extend(r.continues)
                    out.pushed.extend(r.pushed)
                    out.joined.extend(r.folded)
                    if out.first is None or r.valid_from < out.first.valid_from:
                        out.first = r
                else:
                    out.retracted.append(self._retract(r, t))
                    out.joined.append(r.id)
                    out.continues.append(r.id)
                out.start = min(out.start, r.valid_from)
                if r.valid_to > out.stop:
                    out.stop, out.status = r.valid_to, r.status
                changed = True
        return out

    def _carry(self, r: Row, t: Any, start: Any, stop: Any, status: str) -> Row:
        """Record part of `r` again, as its continuation."""
        return self._record(
            t,
            r.entity,
            r.attribute,
            r.value,
            r.norm,
            r.cardinality,
            start,
            stop,
            status,
            r.provenance,
            continues=[r.id],
        )

    def _record(
        self,
        t: Any,
        entity: str,
        attribute: str,
        value: Any,
        key: Hashable,
        cardinality: str,
        start: Any,
        stop: Any,
        status: str,
        provenance: Any,
        pushed: list[str] | None = None,
        folded: list[str] | None = None,
        continues: list[str] | None = None,
    ) -> Row:
        r = Row(
            id=f"o{next(self._ids)}",
            entity=entity,
            attribute=attribute,
            value=value,
            norm=key,
            cardinality=cardinality,
            valid_from=start,
            valid_to=stop,
            recorded_at=t,
            retracted_at=self.open_end,
            status=status,
            provenance=provenance,
            pushed=list(pushed or ()),
            folded=list(folded or ()),
            continues=list(continues or ()),
        )
        self.rows.append(r)
        self._by_id[r.id] = r
        return r


@dataclass(slots=True)
class _Joined:
    """The result of coalescing: the widened window, its status, and what it absorbed."""

    start: Any
    stop: Any
    status: str
    retracted: list[Row] = field(default_factory=list)
    dropped: set[str] = field(default_factory=set)
    joined: list[str] = field(default_factory=list)
    pushed: list[str] = field(default_factory=list)
    continues: list[str] = field(default_factory=list)
    first: Row | None = None


def _desc(t: Any) -> _Reversed:
    """Sort key putting later times first (works for datetimes and numbers)."""
    return _Reversed(t)


@dataclass(frozen=True, slots=True)
class _Reversed:
    value: Any

    def __lt__(self, other: _Reversed) -> bool:
        return bool(other.value < self.value)


def _subtract(gaps: list[tuple[Any, Any]], start: Any, stop: Any) -> list[tuple[Any, Any]]:
    out = []
    for a, b in gaps:
        if stop <= a or b <= start:
            out.append((a, b))
            continue
        if a < start:
            out.append((a, start))
        if stop < b:
            out.append((stop, b))
    return out


def _subtract_all(gaps: list[tuple[Any, Any]], rows: Iterable[Row]) -> list[tuple[Any, Any]]:
    for r in rows:
        gaps = _subtract(gaps, r.valid_from, r.valid_to)
    return gaps


def store_key(fact: Any) -> tuple[Any, ...]:
    """`Row.key()` of a store row (a `graph.records.FactRecord`)."""
    return (fact.attribute, fact.value, fact.valid_from, fact.valid_to, fact.status)


def store_full_key(fact: Any) -> tuple[Any, ...]:
    """`Row.full_key()` of a store row."""
    return (*store_key(fact), fact.recorded_at, fact.retracted_at)
