"""Curator test fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.curator.fake_llm import FakeLlm


@pytest.fixture
def llm() -> Iterator[FakeLlm]:
    """A started `FakeLlm`, shut down after the test."""
    fake = FakeLlm()
    fake.thread.start()
    yield fake
    fake.release.set()
    fake.server.shutdown()
    fake.server.server_close()
