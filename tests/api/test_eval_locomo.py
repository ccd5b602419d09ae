"""`worldstate eval locomo` against a real Neo4j and the real API served in process
(issue 12): import into a fresh owner, ask, score by provenance, erase."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from api.cli.main import app as cli
from api.eval.locomo import dated, first_hit, read_conversation
from api.eval.report import pooled, report
from api.eval.run import evaluate
from api.eval.service import EvalError, serve_in_process
from api.http.settings import Settings
from committer.apply import Committer
from graph.embedding import LocalEmbedder
from graph.read.reader import Reader

TINY = Path(__file__).resolve().parents[1] / "data" / "locomo_tiny.json"


def _env(neo4j_server: Any) -> dict[str, str]:
    env = {"NEO4J_URI": neo4j_server.uri, "WORLDSTATE_CURATOR_POLL_SECONDS": "0.1"}
    if neo4j_server.auth:
        env |= {"NEO4J_USER": neo4j_server.auth[0], "NEO4J_PASSWORD": neo4j_server.auth[1]}
    return env


def test_evaluate_maps_results_to_turns_by_provenance_and_erases_the_owner(neo4j_driver: Any):
    """Every run is curated before questions are asked; the fact "Omar location Lisbon"
    carries its message D1:2, so search finds the evidence for "Where did Omar move to?",
    dated; each system returns at most k items; the fresh owner is erased afterwards."""
    conversation = read_conversation(TINY)
    with serve_in_process(Settings(curator_poll_seconds=0.1), neo4j_driver) as url:
        result = evaluate(
            conversation, url, Committer(neo4j_driver), LocalEmbedder(), k=5, timeout=120
        )
    assert (result.imported.turns, result.imported.runs, result.imported.failed) == (9, 2, 0)
    assert result.imported.committed >= 2 and result.imported.turns_per_second > 0
    assert result.search_modes == {"hybrid": 5}
    moved = next(a for a in result.asked if a.question.text == "Where did Omar move to?")
    hit = first_hit(moved.ranked["search"], moved.question.evidence, 5)
    assert hit is not None and hit.kind in ("fact", "episode") and dated(hit)
    assert first_hit(moved.ranked["bm25"], moved.question.evidence, 5) is not None
    assert all(set(a.ranked) == {"search", "bm25", "dense"} for a in result.asked)
    assert all(len(items) <= 5 for a in result.asked for items in a.ranked.values())
    assert result.rss_mb is not None and result.peak_rss_mb >= result.rss_mb
    assert Reader(neo4j_driver).tokens(result.owner) == []


def test_the_command_prints_the_report_and_writes_details(neo4j_server: Any, tmp_path: Path):
    """`worldstate eval locomo FILE --k 5 --details F` serves the API in process, prints
    the table (search, both baselines, prefetch, the temporal lines) and one JSON line
    per question asked."""
    out = tmp_path / "details.jsonl"
    r = CliRunner().invoke(
        cli,
        ["eval", "locomo", str(TINY), "--k", "5", "--details", str(out)],
        env=_env(neo4j_server),
    )
    assert r.exit_code == 0, r.output
    assert "== locomo_tiny: 9 turns in 2 runs, 5 questions of categories 1-4" in r.output
    for row in ("search @5", "bm25 @5", "dense @5", "prefetch (block)", "temporal (category 2)"):
        assert row in r.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [rec["category"] for rec in records] == [4, 4, 2, 1, 3]
    assert records[1]["evidence"] == ["D1:2"] and len(records[1]["search"]) <= 5


def test_a_file_that_is_not_a_locomo_conversation_is_one_line(tmp_path: Path):
    """A file without `qa` is refused before anything starts: exit 1, no traceback."""
    bare = tmp_path / "bare.json"
    bare.write_text('{"speaker_a": "A", "speaker_b": "B"}')
    r = CliRunner().invoke(cli, ["eval", "locomo", str(bare)])
    assert r.exit_code == 1 and "error: bare.json has no `qa` list" in r.output
    assert "Traceback" not in r.output


def test_a_kept_owner_is_asked_again_without_an_import(neo4j_driver: Any):
    """A ranking experiment needs no new import: an owner kept by a first run is asked again
    (`owner=`): nothing is imported (`imported` is None, the report says it was reused),
    the answers are the same, the owner is not erased and the run's token is revoked; an
    owner that holds none of the runs is refused with one line."""
    conversation = read_conversation(TINY)
    committer = Committer(neo4j_driver)
    embedder = LocalEmbedder()
    with serve_in_process(Settings(curator_poll_seconds=0.1), neo4j_driver) as url:
        first = evaluate(conversation, url, committer, embedder, k=5, timeout=120, keep=True)
        try:
            again = evaluate(conversation, url, committer, embedder, k=5, owner=first.owner)
            with pytest.raises(EvalError, match="404"):
                evaluate(conversation, url, committer, embedder, k=5, owner=first.owner + "-x")
        finally:
            committer.erase_owner(first.owner, first.owner)
            committer.erase_owner(first.owner + "-x", first.owner + "-x")
    assert first.imported is not None and again.imported is None
    assert again.owner == first.owner
    assert [a.ranked["search"] for a in again.asked] == [a.ranked["search"] for a in first.asked]
    assert f"owner {first.owner} reused" in report(again)
    assert "1 of 1 files reused, not measured" in pooled([again])
