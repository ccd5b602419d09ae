"""Settings of the curator: risk policy, worker leases, the optional LLM extractor.

`CuratorSettings` is one `BaseSettings` (prefix `WORLDSTATE_`); the API's `Settings`
extends it, so a process builds exactly one settings object (STYLE) whether it is
`worldstate serve` (curator in process) or `worldstate curator` (a worker of its own).
"""

from __future__ import annotations

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.embedding import EmbeddingSettings


# BaseSettings named again (already a base of EmbeddingSettings) so ruff sees a pydantic
# model and does not take its list defaults for shared mutable class attributes.
class CuratorSettings(EmbeddingSettings, BaseSettings):
    """Curator configuration read from the environment when a process starts.

    Extends `EmbeddingSettings` (WORLDSTATE_EMBEDDER, WORLDSTATE_EMBEDDING_*): the
    committer a curator drives embeds the rows it writes.
    """

    model_config = SettingsConfigDict(env_prefix="WORLDSTATE_", extra="ignore")

    neo4j_uri: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_URI"))
    neo4j_user: str | None = Field(default=None, validation_alias=AliasChoices("NEO4J_USER"))
    neo4j_password: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("NEO4J_PASSWORD")
    )
    neo4j_database: str | None = Field(
        default=None, validation_alias=AliasChoices("NEO4J_DATABASE")
    )
    curator_poll_seconds: float = 0.5
    """Pause between polls when no run is queued, seconds."""
    curator_lease_seconds: float = 30.0
    """How long a claimed run stays a worker's without a heartbeat (CONTRACT §4), seconds."""
    curator_max_attempts: int = 5
    """Claims of one run (crashes, lapsed leases, errors) after which it is `failed` (§4)."""
    auto_commit_threshold: float = 0.8
    """Confidence at or above which a clear, low-risk proposal commits itself (CONTRACT §3)."""
    privileged_areas: list[str] = ["health", "finances", "credentials"]
    """Attribute areas always held for the person's yes (CONTRACT §3), JSON list in env."""
    llm_base_url: str | None = None
    """OpenAI-compatible endpoint of the optional LLM extractor; off when unset (§4)."""
    llm_api_key: SecretStr | None = None
    llm_model: str | None = None
    llm_timeout_seconds: float = 30.0
