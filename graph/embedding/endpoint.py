"""The `openai` embedder: an OpenAI-compatible `/v1/embeddings` endpoint.

Any server that speaks the OpenAI embeddings API: OpenAI itself, or a local one. The
answer is checked (one finite vector of the configured size per text) before any row
or query uses it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from graph.embedding.base import MAX_TEXT_CHARS, EmbedderUnavailable


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
        # every process imports this module (its settings do); only this embedder needs
        # the client, so `worldstate --help` never loads it
        import openai  # noqa: PLC0415

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
        import openai  # noqa: PLC0415  # loaded by __init__ already; named here for its errors

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
