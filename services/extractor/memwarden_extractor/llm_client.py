"""The LLM extractor's client: the shared OpenAI-compatible client (remote.llm_client)
with the extractor's schema name and version naming."""

from __future__ import annotations

from memwarden_shared.remote.llm_client import (
    MAX_RESPONSE_BYTES,
    ChatClient,
    Completion,
    Failure,
    LlmError,
)

__all__ = [
    "MAX_RESPONSE_BYTES",
    "PROMPT_VERSION",
    "SCHEMA_NAME",
    "Completion",
    "Failure",
    "LlmClient",
    "LlmError",
    "extractor_version_for",
]

PROMPT_VERSION = 1  # bump with any change to the prompt or schema: it is part of every id
SCHEMA_NAME = "memory_candidates"


def extractor_version_for(model: str) -> str:
    """``llm-<model>-<prompt version>``, clipped to the proposal field's 100 characters."""
    return f"llm-{model[:80]}-{PROMPT_VERSION}"


class LlmClient(ChatClient):
    """The extractor's endpoint: its schema name, and the version every proposal carries."""

    schema_name = SCHEMA_NAME

    @property
    def extractor_version(self) -> str:
        return extractor_version_for(self.model)
