"""``memwarden explain``: what the extractor and the gate would do with a text, without
storing anything (issue 26 item 7).

The text is masked as ingest masks it, read by the rules extractor sentence by sentence
(``sentence_outcomes``: the extractor's own pass, with the reason a sentence was declined),
and each candidate is checked and decided by the gate's pure functions (``assess``,
``decide``) as if the subject had no memory of that key yet.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memwarden_extractor.io import with_id
from memwarden_extractor.rules import sentence_outcomes
from memwarden_gate.checks import StoredMessage, assess
from memwarden_gate.decide import decide
from memwarden_shared.contract.models import MemoryProposal, Role, Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.contract.turn_input import SOURCE_OF_ROLE
from memwarden_shared.detect.secret_mask import mask_secrets

SUBJECT = "explain"


@dataclass(frozen=True)
class Candidate:
    key: str
    value: Any
    decision: str  # what the gate would decide on an empty store
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class SentenceExplained:
    text: str  # the sentence as stored: secrets masked
    declined: tuple[str, ...]  # why the extractor proposed nothing (reason codes)
    candidates: tuple[Candidate, ...] = field(default=())


def explain(text: str, *, role: str = "user") -> list[SentenceExplained]:
    """Each sentence of ``text``, said by ``role`` about themselves, and what became of it;
    nothing is stored."""
    turn = Turn(
        tenant_id=SUBJECT,
        subject_id=SUBJECT,
        session_id=SUBJECT,
        message_id="explain-" + uuid.uuid4().hex,
        role=Role(role),
        source=SOURCE_OF_ROLE[Role(role)],
        text=text,
        created_at=datetime.now(UTC),
    )
    return explain_turn(turn)


def explain_turn(turn: Turn) -> list[SentenceExplained]:
    """:func:`explain` for a whole turn (its role, source and author as given)."""
    masked = mask_secrets(turn.text)
    turn = turn.model_copy(update={"text": masked.text})
    stored = StoredMessage(
        tenant_id=turn.tenant_id,
        message_id=turn.message_id,
        revision=1,
        subject_id=turn.subject_id,
        author_id=turn.author,
        role=turn.role.value,
        source=turn.source.value,
        text=masked.text,
        status="active",
        created_at=turn.created_at,
        session_id=turn.session_id,
        masked_spans=masked.spans,
        secret_unlocated=masked.unlocated,
    )
    registry = default_registry()
    out = []
    for outcome in sentence_outcomes(turn, registry):
        candidates = []
        for body in outcome.proposals:
            proposal = MemoryProposal.model_validate(with_id(body))
            verdict = decide(
                assess(proposal, stored, registry, review_all=False, suppressed=False),
                value=proposal.value,
                current=None,
                seen_version=0,
                locked_version=0,
                evidence_at=turn.created_at,
            )
            candidates.append(
                Candidate(body.normalized_key, body.value, verdict.decision.value, verdict.reasons)
            )
        out.append(
            SentenceExplained(
                masked.text[outcome.start : outcome.end], outcome.declined, tuple(candidates)
            )
        )
    return out
