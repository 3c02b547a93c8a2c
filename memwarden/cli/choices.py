"""Values the parser offers as choices, spelt out here so that building the parser imports
no stage, no store and no pydantic model (`memwarden --version` and a usage error answer at
once; issue 26 item 6). tests/test_cli_start.py checks that each agrees with its source."""

from __future__ import annotations

# memwarden_usecases.operate.DEAD_LETTER_STAGES: the stages, and the relay
DEAD_LETTER_STAGES = ("extractor", "gate", "revalidation", "vector_sink", "replay", "relay")

# memwarden_shared.contract.models.Topic
TOPICS = (
    "turn.received",
    "proposal.submitted",
    "memory.committed",
    "memory.revoked",
    "evidence.revoked",
    "evidence.superseded",
    "action.cancelled",
    "action.needs_repair",
    "extractor.rolled_back",
    "extractor.rollback_cleared",
    "write_rate.held",
    "write_rate.cleared",
    "commit_switch.closed",
    "commit_switch.opened",
)

# memwarden_shared.state.auth.Scope
SCOPES = (
    "memory:propose",
    "memory:review",
    "memory:read",
    "memory:admin",
    "action:request",
    "action:approve",
)
