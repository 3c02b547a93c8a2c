"""Settings: the only place that reads the environment (prefix ``MEMWARDEN_``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATA_DIR = Path.home() / ".memwarden"


class Settings(BaseSettings):
    """Runtime configuration. With nothing set, memwarden runs embedded (SQLite, no broker)."""

    model_config = SettingsConfigDict(env_prefix="MEMWARDEN_", extra="ignore")

    database_url: str = Field(
        default="",
        description="SQLAlchemy URL; empty means SQLite at <data_dir>/memwarden.db",
    )
    broker_url: str = Field(
        default="",
        description="Celery broker URL; empty means embedded (tasks run in-process)",
    )
    data_dir: Path = Field(default=DEFAULT_DATA_DIR, description="where the embedded store lives")
    policy_profile: str = Field(
        default="auto", description="default tenant policy: auto | review_all"
    )
    policy_version: str = Field(default="gate-policy-1", description="written into every receipt")
    max_text_chars: int = Field(default=20_000, description="longest turn text accepted at ingest")
    max_batch: int = Field(default=200, description="outbox rows a relay claims and sends per task")
    relay_poll_seconds: float = Field(
        default=0.2, description="relay sleep when the outbox is empty"
    )
    task_time_limit: int = Field(default=300, description="hard Celery task time limit, seconds")
    visibility_timeout: int = Field(default=3600, description="Redis visibility timeout, seconds")
    embedding_dim: int = Field(default=256, description="dimension of the default hashed embedder")
    log_level: str = Field(default="INFO")
    api_key: str = Field(default="", description="CLI credential for review and submit commands")

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'memwarden.db'}"

    @property
    def embedded(self) -> bool:
        """True when no broker is configured: the outbox is drained in-process."""
        return not self.broker_url


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
