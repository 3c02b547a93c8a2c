"""Settings: the only place that reads the environment (prefix ``MEMWARDEN_``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATA_DIR = Path.home() / ".memwarden"


class Settings(BaseSettings):
    """Runtime configuration. With nothing set, memwarden runs embedded (SQLite, no broker)."""

    model_config = SettingsConfigDict(env_prefix="MEMWARDEN_", extra="ignore")

    database_url: str = Field(
        default="",
        description="SQLAlchemy URL; empty means SQLite at <data_dir>/memwarden.db",
    )
    app_role: str = Field(
        default="",
        description="PostgreSQL login role of the processes (not the tables' owner): "
        "`memwarden migrate` grants it row access; empty = grant nothing",
    )
    app_role_password: SecretStr = Field(
        default=SecretStr(""),
        description="when set and the app role does not exist, `memwarden migrate` creates it "
        "(needs CREATEROLE)",
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
    redeliver_seconds: float = Field(
        default=30.0,
        gt=0,
        description="an outbox row published but not consumed this long is published again",
    )
    relay_lease_seconds: float = Field(
        default=30.0, gt=0, description="how long a relay's claim on outbox rows lasts"
    )
    hold_seconds: float = Field(
        default=1.0,
        gt=0,
        description="delay before a held-back event (an older one of its subject is unconsumed)"
        " is published again",
    )
    consumer_attempts: int = Field(
        default=5, ge=1, description="tries of a batch on transient errors before giving it back"
    )
    backoff_base_seconds: float = Field(
        default=0.5, gt=0, description="first backoff step of consumers and relays"
    )
    backoff_max_seconds: float = Field(default=30.0, gt=0, description="longest backoff step")
    task_time_limit: int = Field(default=300, description="hard Celery task time limit, seconds")
    visibility_timeout: int = Field(default=3600, description="Redis visibility timeout, seconds")
    embedding_dim: int = Field(default=256, description="dimension of the default hashed embedder")
    log_level: str = Field(default="INFO")
    log_format: Literal["console", "json"] = Field(
        default="console", description="console (people) | json (one object per line)"
    )
    metrics_port: int = Field(
        default=0, ge=0, le=65535, description="/metrics port of a worker or relay; 0 = off"
    )
    api_key: str = Field(default="", description="CLI credential for review and submit commands")
    action_registry_extra: Path | None = Field(
        default=None, description="a tenant's action registry extension (JSON, actions.json shape)"
    )
    extractor: str = Field(default="rules", description="extractor stage: rules | llm")
    # The LLM extractor has no default endpoint: message text must never go to a remote
    # model that nobody configured on purpose.
    llm_base_url: str = Field(
        default="", description="OpenAI-compatible API root, e.g. http://127.0.0.1:11434/v1"
    )
    llm_model: str = Field(default="", description="model name sent to chat completions")
    llm_api_key: SecretStr = Field(
        default=SecretStr(""), description="bearer token; empty for local servers"
    )
    llm_timeout_seconds: float = Field(default=30.0, gt=0, description="one request, overall")
    llm_budget_turns: int = Field(default=1000, gt=0, description="turns per extraction run")
    llm_budget_seconds: float = Field(default=600.0, gt=0, description="seconds per run")
    llm_budget_tokens: int = Field(default=500_000, gt=0, description="tokens per run (usage)")

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
