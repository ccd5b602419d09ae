"""The extractor on the labelled turns: precise overall, and it reads each new kind (issue 3).

The set (`tests/data/extraction_labels.jsonl`) is LoCoMo turns paraphrased in our own
words plus written turns; `bench/extraction_eval.py` states how proposals are matched and
prints the full table.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "extraction_eval", ROOT / "bench" / "extraction_eval.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


EVAL = _bench()
TURNS = EVAL.load()
TALLY = EVAL.evaluate(TURNS)


def test_the_set_is_large_and_mixed():
    """At least 150 turns, many expecting nothing, and about 20 of each new kind."""
    assert len(TURNS) >= 150
    assert sum(1 for t in TURNS if not t["expected"]) >= 40
    for kind in EVAL.NEW_KINDS:
        assert sum(1 for t in TURNS if any(e["kind"] == kind for e in t["expected"])) >= 18, kind


def test_overall_precision_is_at_least_0_9():
    """Of everything proposed over the whole set, at least 90% is what a careful reader expects."""
    proposed = sum(v for k, v in TALLY.proposed.items() if k != "none")
    correct = sum(TALLY.correct.values())
    assert proposed and correct / proposed >= 0.9, EVAL.report(TALLY)


@pytest.mark.parametrize("kind", EVAL.NEW_KINDS)
def test_recall_of_each_new_kind_is_at_least_0_6(kind: str):
    """Endings, moves, other people, memory requests and assistant preferences are read."""
    assert TALLY.found[kind] / TALLY.expected[kind] >= 0.6, EVAL.report(TALLY)
