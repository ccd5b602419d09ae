"""What every embedder shares: the protocol, its errors, the row text and the sizes.

A leaf of `graph.embedding` (it imports no other module of the package), so the
embedders (`local`, `endpoint`, `torch_backend`) and the settings can all import it
without a cycle through the package's `__init__`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from graph.errors import WorldstateError

LOCAL_MODEL = "all-MiniLM-L6-v2"
"""The model the `local` embedder runs (and the `torch` embedder by default)."""
LOCAL_MODEL_ID = f"local:{LOCAL_MODEL}"
"""The id stored on rows it embedded. The same for the ONNX runtime of today and the
sentence-transformers runtime of earlier versions: their vectors agree (cosine ≥ 0.99
for every text measured, README "Semantic recall"), so rows of either stay searchable."""
LOCAL_DIMENSIONS = 384
"""Its vector size: also the vector index's size when no embedder is configured."""
MAX_TEXT_CHARS = 2_000
"""Text past this is not embedded (the local model reads 256 word pieces at most anyway)."""


class EmbedderUnavailable(WorldstateError):
    """The embedder could not embed (endpoint down or answering badly, model missing).

    Never an HTTP error: search falls back to full-text and says so; the committer
    writes the rows without vectors (`worldstate embeddings backfill` adds them later).
    """


class ModelChecksumMismatch(EmbedderUnavailable):
    """A file of the local model is not the one this version was built and tested with.

    Raised by `warm` before the file is used. `graph.embedding.warm` lets it through, so
    `serve` and the curator refuse to start with it; anywhere else it is an
    `EmbedderUnavailable` like any other (a commit is never failed by it).

    Args:
        path: the file checked.
        expected: the sha256 pinned in the code (hex).
        actual: the sha256 of the file found (hex).
        remedy: what to do about it, one sentence.
    """

    def __init__(self, path: str, expected: str, actual: str, remedy: str):
        super().__init__(
            f"{path} has sha256 {actual}, not the pinned {expected}: {remedy} "
            f"(or set WORLDSTATE_EMBEDDER=none to run with full-text search only)"
        )
        self.path = path
        self.expected = expected
        self.actual = actual


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
