"""The pure pieces of the pull tools: shortest relationship paths (graph/read/paths.py) and
the diff of two reads (graph/read/diff.py). No database, no mocks."""

from __future__ import annotations

from datetime import UTC, datetime

import networkx as nx
from hypothesis import given
from hypothesis import strategies as st

from graph.read.diff import diff_rows
from graph.read.paths import shortest_paths
from graph.records import FactRecord
from graph.time import FAR_FUTURE

T = datetime(2024, 1, 1, tzinfo=UTC)


def row(
    fid: str,
    subject: str,
    attribute: str = "knows",
    obj: str | None = None,
    value: str | None = None,
    cardinality: str = "many",
    valid_from: datetime = T,
    valid_to: datetime = FAR_FUTURE,
) -> FactRecord:
    return FactRecord(
        id=fid,
        owner="o",
        entity_id=subject,
        attribute=attribute,
        value=value,
        object_id=obj,
        value_norm=(value or "").casefold(),
        cardinality=cardinality,
        valid_from=valid_from,
        valid_to=valid_to,
        recorded_at=T,
        retracted_at=FAR_FUTURE,
        status="active",
        source="user_edit",
        evidence=None,
        reason=None,
        confidence=1.0,
        run_id=None,
        message_id=None,
    )


NODES = st.sampled_from(list("abcdef"))
EDGES = st.lists(st.tuples(NODES, NODES), max_size=12)


def _edge_paths(rows: list[FactRecord], start: str, length: int) -> dict[str, list[list[str]]]:
    """Brute force: every walk of exactly `length` edges from `start`, by end node."""
    out: dict[str, list[list[str]]] = {}

    def walk(node: str, ids: list[str], visited: set[str]) -> None:
        if len(ids) == length:
            out.setdefault(node, []).append(ids)
            return
        for r in rows:
            if r.object_id is None or r.entity_id == r.object_id:
                continue
            for a, b in ((r.entity_id, r.object_id), (r.object_id, r.entity_id)):
                if a == node and b not in visited:
                    walk(b, [*ids, r.id], visited | {b})

    walk(start, [], {start})
    return out


@given(EDGES, st.integers(min_value=1, max_value=3))
def test_paths_are_shortest_and_the_smallest_by_fact_ids(
    edges: list[tuple[str, str]], depth: int
) -> None:
    """Every entity within `depth` hops is reached by a path of its BFS distance, and of
    all such paths the one with the smallest fact ids from the start."""
    rows = [row(f"f{i:02d}", a, obj=b) for i, (a, b) in enumerate(edges)]
    got = shortest_paths("a", rows, depth)
    g = nx.Graph([(r.entity_id, r.object_id) for r in rows if r.entity_id != r.object_id])
    g.add_node("a")
    distances = nx.single_source_shortest_path_length(g, "a", cutoff=depth)
    assert {n: len(p) for n, p in got.items()} == {n: d for n, d in distances.items() if n != "a"}
    for node, path in got.items():
        assert [f.id for f in path] == min(_edge_paths(rows, "a", len(path))[node])


def test_a_cycle_does_not_lead_back_to_the_start() -> None:
    """a -> b -> c -> a: b and c are one hop away; the start is never listed."""
    rows = [row("1", "a", obj="b"), row("2", "b", obj="c"), row("3", "c", obj="a")]
    got = shortest_paths("a", rows, 3)
    assert {n: [f.id for f in p] for n, p in got.items()} == {"b": ["1"], "c": ["3"]}


def test_depth_bounds_the_result() -> None:
    """A chain a-b-c-d-e at depth 2 reaches b and c only."""
    rows = [row(str(i), x, obj=y) for i, (x, y) in enumerate(zip("abcd", "bcde", strict=True))]
    assert set(shortest_paths("a", rows, 2)) == {"b", "c"}


def test_diff_one_attribute_moved_is_a_change() -> None:
    """Paris before, Berlin after, cardinality one: one change, nothing added or removed."""
    paris = row("p", "e", "location", value="Paris", cardinality="one")
    berlin = row("b", "e", "location", value="Berlin", cardinality="one")
    d = diff_rows([paris], [berlin], windows=False)
    assert (d.added, d.removed) == ((), ())
    assert [(c.attribute, c.before, c.after) for c in d.changed] == [
        ("location", (paris,), (berlin,))
    ]


def test_diff_same_value_in_another_row_is_no_change() -> None:
    """A value re-recorded in a new row (a remainder) is the same content: no difference."""
    before = row("1", "e", "location", value="Paris", cardinality="one")
    after = row("2", "e", "location", value="paris", cardinality="one")
    d = diff_rows([before], [after], windows=False)
    assert (d.added, d.removed, d.changed) == ((), (), ())


def test_diff_many_values_stand_alone_unless_the_window_moved() -> None:
    """likes tea -> coffee: removed and added; with windows, tea's window moving is a change."""
    tea, coffee = row("t", "e", "likes", value="tea"), row("c", "e", "likes", value="coffee")
    d = diff_rows([tea], [coffee], windows=False)
    assert (d.added, d.removed, d.changed) == ((coffee,), (tea,), ())
    ended = row("t2", "e", "likes", value="tea", valid_to=datetime(2024, 6, 1, tzinfo=UTC))
    moved = diff_rows([tea], [ended], windows=True)
    assert [(c.before, c.after) for c in moved.changed] == [((tea,), (ended,))]
    assert diff_rows([tea], [ended], windows=False).changed == ()


def test_diff_relationships_compare_by_object() -> None:
    """works_on Kube -> works_on Mesa (many): Mesa added, Kube removed."""
    kube, mesa = row("k", "e", "works_on", obj="kube"), row("m", "e", "works_on", obj="mesa")
    d = diff_rows([kube], [mesa], windows=False)
    assert (d.added, d.removed) == ((mesa,), (kube,))
