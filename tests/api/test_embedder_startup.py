"""`serve` does not start on a local model file that fails its sha256 check."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from api.http.app import create_app
from api.http.settings import Settings
from graph.embedding import LocalEmbedder, ModelChecksumMismatch


def test_the_app_refuses_to_start_on_a_wrong_model_file(
    neo4j_driver: Driver, tmp_path: Path
) -> None:
    """The app's start-up (lifespan) loads the embedder; a wrong network file stops it
    with the checksum error, before any request is served."""
    wrong = tmp_path / "model.onnx"
    wrong.write_bytes(b"an onnx file of other weights")
    app = create_app(Settings(curator_in_process=False), neo4j_driver)
    app.state.embedder = LocalEmbedder(model_file=wrong)
    with pytest.raises(ModelChecksumMismatch, match="sha256"), TestClient(app):
        pass
