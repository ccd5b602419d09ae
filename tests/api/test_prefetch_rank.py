"""Personalized PageRank of the prefetch neighbourhood, and mention keys (pure, no store)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.chat.prefetch.mentions import mention_keys
from api.chat.prefetch.rank import personalized_pagerank


def _power_iteration(
    nodes: list[str], edges: list[tuple[str, str]], seeds: list[str], alpha: float = 0.85
) -> dict[str, float]:
    """The oracle: PageRank by plain power iteration on the undirected multigraph."""
    weight: dict[str, dict[str, float]] = {n: {} for n in nodes}
    for a, b in edges:
        if a != b:
            weight[a][b] = weight[a].get(b, 0.0) + 1
            weight[b][a] = weight[b].get(a, 0.0) + 1
    restart = {n: (1 / len(seeds) if n in seeds else 0.0) for n in nodes}
    x = dict(restart)
    for _ in range(2000):
        nxt = {n: (1 - alpha) * restart[n] for n in nodes}
        for n in nodes:
            total = sum(weight[n].values())
            if total == 0:  # dangling: back to the restart set
                for m in nodes:
                    nxt[m] += alpha * x[n] * restart[m]
            for m, w in weight[n].items():
                nxt[m] += alpha * x[n] * w / total
        x = nxt
    return x


def test_known_order_on_a_small_graph() -> None:
    """Seed A linked to B, C, D, E; B-C and C-D linked: C first, B = D, E last."""
    edges = [("A", "B"), ("A", "C"), ("A", "D"), ("A", "E"), ("B", "C"), ("C", "D")]
    score = personalized_pagerank("ABCDE", edges, ["A"])
    assert score["A"] > score["C"] > score["B"] == score["D"] > score["E"]
    ranked = sorted("BCDE", key=lambda n: (-score[n], n))
    assert ranked == ["C", "B", "D", "E"]  # the B/D tie goes by id


@given(
    st.lists(st.tuples(st.sampled_from("ABCDEFG"), st.sampled_from("ABCDEFG")), max_size=15),
    st.lists(st.sampled_from("ABCDEFG"), min_size=1, max_size=3, unique=True),
)
def test_agrees_with_power_iteration(edges: list[tuple[str, str]], seeds: list[str]) -> None:
    """The exact solve equals PageRank by power iteration (to 1e-9), parallel rows and
    isolated seeds included; the scores sum to 1."""
    nodes = list("ABCDEFG")
    mine = personalized_pagerank(nodes, edges, seeds)
    oracle = _power_iteration(nodes, edges, seeds)
    assert all(abs(mine[n] - oracle[n]) < 1e-9 for n in nodes), (mine, oracle)
    assert abs(sum(mine.values()) - 1) < 1e-9


def test_mention_keys_are_word_runs_with_possessives_and_plurals() -> None:
    """Keys are runs of whole words (normalized), with a plural s/es dropped; a run never
    crosses punctuation that no name holds, nor starts at a possessive's s."""
    keys = mention_keys("Ask Zoë O'Brien's kids, then the Smiths.")
    assert keys["zoe o'brien"] == keys["zoe"] == 4 and keys["o'brien"] == 8
    assert "smith" in keys and "smiths" in keys and "kid" in keys
    assert not any(k.startswith("s ") or "," in k for k in keys)
    assert "anastasia" not in mention_keys("Ana") and "ana" not in mention_keys("Anastasia")
