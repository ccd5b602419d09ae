"""The local embedder's vector of a text does not depend on the texts embedded with it
(issue 12: a run's texts go in one call, in batches of `BATCH` padded to their longest)."""

from __future__ import annotations

import numpy as np

from graph.embedding.local import BATCH, LocalEmbedder


def test_a_texts_vector_is_the_same_alone_and_in_any_batch() -> None:
    """Texts of very different lengths, embedded together (several batches, each padded)
    and one by one, get the same vectors."""
    texts = [
        "Hi!",
        "I adopted a cat named Miso two weeks ago, by the way.",
        "Ok.",
        "We launched group budgets last week, my first big feature, and the app got its "
        "first review too: four stars, because the reviewer wanted a dark mode.",
        "Portland to Denver, a puppy, a new job, and a promotion.",
        "Yes.",
    ]
    assert len(texts) > BATCH
    embedder = LocalEmbedder()
    together = np.array(embedder.embed(texts))
    alone = np.array([embedder.embed([t])[0] for t in texts])
    assert together.shape == (len(texts), embedder.dimensions)
    assert np.allclose(together, alone, atol=1e-6)
