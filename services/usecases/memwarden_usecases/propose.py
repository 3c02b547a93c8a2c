"""Propose: MemoryProposals from an extractor to the gate, one receipt each, in order."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from memwarden_gate.io import GateContext, decide_batch
from memwarden_shared.contract.models import Receipt


def propose(
    engine: Engine, proposals: list[Any], *, proposed_by: str | None = None
) -> list[Receipt]:
    """Decide ``proposals`` in one transaction; REJECT ones get receipts too, and an exact
    replay returns the stored receipt. ``proposed_by`` is the authenticated submitter (who
    can then never approve the candidate); None is the built-in extractor."""
    return decide_batch(proposals, engine=engine, ctx=GateContext(proposed_by=proposed_by))
