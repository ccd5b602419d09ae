"""Curator test fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai import FakeOpenAI


@pytest.fixture
def llm() -> Iterator[FakeOpenAI]:
    """A started `FakeOpenAI`, shut down after the test."""
    fake = FakeOpenAI().start()
    yield fake
    fake.stop()
