"""memwarden: a memory write gate for AI agents.

    from memwarden import Memory

    memory = Memory()  # embedded: SQLite in MEMWARDEN_DATA_DIR, pipeline in-process
    memory.add("I prefer pnpm for all my JavaScript projects.", subject="alice")
    print(memory.recall("alice", "package manager"))

See :class:`Memory` for the distributed and remote backends.
"""

from memwarden.client import Memory
from memwarden.errors import MemwardenError, NotFound, Refused, Unauthorized, Unavailable
from memwarden.types import (
    ActionReceipt,
    AddResult,
    Decided,
    Forgotten,
    MemoryProposal,
    MemoryVersion,
    Pending,
    Recalled,
    Receipt,
    Reviewed,
    Revoked,
    TurnInput,
)

__all__ = [
    "ActionReceipt",
    "AddResult",
    "Decided",
    "Forgotten",
    "Memory",
    "MemoryProposal",
    "MemoryVersion",
    "MemwardenError",
    "NotFound",
    "Pending",
    "Recalled",
    "Receipt",
    "Refused",
    "Reviewed",
    "Revoked",
    "TurnInput",
    "Unauthorized",
    "Unavailable",
]
