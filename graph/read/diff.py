"""What changed between two states of memory (CONTRACT §2 time travel, §6 "Pull").

Pure: the rows of two reads in, a `Diff` out. The two reads are chosen by the caller
(`api.chat.tools.diff`): on the valid axis, the rows holding at T1 and at T2 under the same
knowledge; on the known axis, the rows the service believed at T1 and at T2.

Rows are compared by content, not by id (a row is immutable, but the same value can be
recorded again in a new row, e.g. a remainder after a supersede):

* a row's key is (entity, attribute, value) where the value is the object entity for a
  relationship, else the normalized value; with `windows=True` the valid window
  `[valid_from, valid_to)` is part of the key too (needed when the reads cover all of
  valid time, where a window that moved is a change);
* rows whose key is only in `before` are gone, rows whose key is only in `after` are new;
* gone and new rows of one (entity, attribute) of cardinality `one` are a **change**
  of that attribute (location Paris -> Berlin); for `many` attributes only rows of the
  same value pair up (a window that moved), other values are added or removed on
  their own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from graph.records import FactRecord


@dataclass(frozen=True, slots=True)
class Change:
    """One attribute (or, for `many`, one value) whose rows differ between the two reads."""

    entity_id: str
    attribute: str
    before: tuple[FactRecord, ...]
    after: tuple[FactRecord, ...]


@dataclass(frozen=True, slots=True)
class Diff:
    """Rows only in the later read (`added`), only in the earlier (`removed`), and
    attributes whose value changed (`changed`), each ordered by entity, attribute,
    valid_from, recorded_at and id."""

    added: tuple[FactRecord, ...]
    removed: tuple[FactRecord, ...]
    changed: tuple[Change, ...]


def _value(row: FactRecord) -> tuple[str, str]:
    return ("entity", row.object_id) if row.object_id is not None else ("value", row.value_norm)


def _key(row: FactRecord, windows: bool) -> tuple[Any, ...]:
    key: tuple[Any, ...] = (row.entity_id, row.attribute, _value(row))
    return (*key, row.valid_from, row.valid_to) if windows else key


def _group(row: FactRecord) -> tuple[Any, ...]:
    base: tuple[Any, ...] = (row.entity_id, row.attribute)
    return base if row.cardinality == "one" else (*base, _value(row))


def _order(row: FactRecord) -> tuple[Any, ...]:
    return (row.entity_id, row.attribute, row.valid_from, row.recorded_at, row.id)


def diff_rows(before: Iterable[FactRecord], after: Iterable[FactRecord], *, windows: bool) -> Diff:
    """Compare two reads of rows (see the module docstring for the rules).

    Args:
        before: the rows of the earlier read (T1).
        after: the rows of the later read (T2).
        windows: compare valid windows too (reads spanning all of valid time).

    Returns:
        The `Diff`; rows present in both reads (by key) appear nowhere.
    """
    old, new = list(before), list(after)
    old_keys = {_key(r, windows) for r in old}
    new_keys = {_key(r, windows) for r in new}
    gone = sorted((r for r in old if _key(r, windows) not in new_keys), key=_order)
    came = sorted((r for r in new if _key(r, windows) not in old_keys), key=_order)
    gone_by: dict[tuple[Any, ...], list[FactRecord]] = defaultdict(list)
    came_by: dict[tuple[Any, ...], list[FactRecord]] = defaultdict(list)
    for r in gone:
        gone_by[_group(r)].append(r)
    for r in came:
        came_by[_group(r)].append(r)
    both = sorted(set(gone_by) & set(came_by), key=lambda g: _order(gone_by[g][0]))
    changed = tuple(Change(g[0], g[1], tuple(gone_by[g]), tuple(came_by[g])) for g in both)
    paired = set(both)
    return Diff(
        added=tuple(r for r in came if _group(r) not in paired),
        removed=tuple(r for r in gone if _group(r) not in paired),
        changed=changed,
    )
