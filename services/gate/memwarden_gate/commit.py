"""The receipt's stored form. Memory rows are written by ``shared.memory_state``, the one
owner of a memory's state, for the batch gate and owner approval alike."""

from __future__ import annotations

from memwarden_shared.contract.canonical import jcs
from memwarden_shared.contract.models import Receipt
from memwarden_shared.state.memory_state import CompareAndSetFailed

__all__ = ["CompareAndSetFailed", "receipt_body"]


def receipt_body(receipt: Receipt) -> str:
    return jcs(receipt.model_dump(mode="json")).decode("utf-8")
