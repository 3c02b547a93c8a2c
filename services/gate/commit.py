"""The receipt's stored form. Memory rows are written by ``shared.memory_state``, the one
owner of a memory's state, for the batch gate and owner approval alike."""

from __future__ import annotations

from memwarden.shared.canonical import jcs
from memwarden.shared.memory_state import CompareAndSetFailed
from memwarden.shared.models import Receipt

__all__ = ["CompareAndSetFailed", "receipt_body"]


def receipt_body(receipt: Receipt) -> str:
    return jcs(receipt.model_dump(mode="json")).decode("utf-8")
