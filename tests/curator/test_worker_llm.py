"""With the LLM extractor configured, a failing endpoint never loses a run (CONTRACT §4)."""

from __future__ import annotations

import json
import time
from typing import Any

from committer.apply import Committer
from curator.settings import CuratorSettings
from curator.worker import CuratorWorker
from graph.read.reader import Reader
from graph.time import AsOf
from tests.fakes.openai import KEY, FakeOpenAI
from tests.fakes.openai import LLM_MODEL as MODEL

TEXT = "I moved to Lisbon last month. I play the cello."


def test_failing_endpoint_requeues_then_applies(
    neo4j_driver: Any, owner: str, llm: FakeOpenAI
) -> None:
    """500 from the endpoint: the run goes back to the queue, nothing written; once the
    endpoint answers, the run is applied with both extractors' proposals."""
    committer, reader = Committer(neo4j_driver), Reader(neo4j_driver)
    CuratorWorker(committer).drain()  # runs other tests left queued on the shared Neo4j
    payload = {
        "id": "r1",
        "chat_id": "c1",
        "messages": [{"id": "m0", "role": "user", "text": TEXT, "at": "2023-05-08T13:56:00+00:00"}],
    }
    committer.submit_run(
        owner, run_id="r1", chat_id="c1", surface=None, payload=json.dumps(payload)
    )
    settings = CuratorSettings(
        llm_base_url=llm.base_url,
        llm_model=MODEL,
        llm_api_key=KEY,
        llm_timeout_seconds=1.0,
        curator_poll_seconds=0.05,
    )
    worker = CuratorWorker.from_settings(committer, settings, reader)
    llm.reply = lambda: (500, b'{"error": "down"}')
    assert worker.run_once()
    run = reader.run(owner, "r1")
    assert run.status == "queued" and "extractor unavailable" in (run.error or "")
    self_id = reader.self_entity_id(owner)
    assert self_id is not None and reader.facts(owner, self_id, AsOf.at()) == []
    llm.statements(
        {
            "message_index": 0,
            "subject": None,
            "op": "assert",
            "attribute": "hobby",
            "value": "cello",
            "confidence": 0.9,
            "evidence": "I play the cello.",
            "reason": "plays the cello",
            "inferred": False,
        }
    )
    deadline = time.monotonic() + 15
    while reader.run(owner, "r1").status != "done" and time.monotonic() < deadline:
        worker.run_once() or time.sleep(0.1)
    assert reader.run(owner, "r1").status == "done"
    facts = {(f.attribute, f.value, f.source) for f in reader.facts(owner, self_id, AsOf.at())}
    assert ("location", "Lisbon", "user_stated") in facts
    assert ("hobby", "cello", "user_stated") in facts
    assert len(llm.requests) >= 2
