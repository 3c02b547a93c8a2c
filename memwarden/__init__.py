"""memwarden: a memory write gate for AI agents.

    from memwarden import Memory

    memory = Memory()  # embedded: SQLite in MEMWARDEN_DATA_DIR, pipeline in-process
    memory.add("I prefer pnpm for all my JavaScript projects.", user_id="alice")
    print(memory.search("package manager", user_id="alice"))

See :class:`Memory` for the distributed and remote backends.

The names below are loaded on first use (PEP 562): ``memwarden.cli`` lives in this package,
and ``memwarden --version`` must not pay for the client's imports (issue 26 item 6).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memwarden.client import Memory
    from memwarden.errors import (
        InvalidInput,
        MemwardenError,
        NotFound,
        Refused,
        Unauthorized,
        Unavailable,
    )
    from memwarden.types import (
        ActionReceipt,
        Added,
        AddResult,
        Decided,
        Deleted,
        Forgotten,
        HistoryEntry,
        Memories,
        MemoryItem,
        MemoryProposal,
        MemoryVersion,
        Pending,
        Recalled,
        Receipt,
        Reviewed,
        Revoked,
        TurnInput,
    )

_HOME = {
    "Memory": "memwarden.client",
    **dict.fromkeys(
        (
            "InvalidInput",
            "MemwardenError",
            "NotFound",
            "Refused",
            "Unauthorized",
            "Unavailable",
        ),
        "memwarden.errors",
    ),
    **dict.fromkeys(
        (
            "ActionReceipt",
            "AddResult",
            "Added",
            "Decided",
            "Deleted",
            "Forgotten",
            "HistoryEntry",
            "Memories",
            "MemoryItem",
            "MemoryProposal",
            "MemoryVersion",
            "Pending",
            "Recalled",
            "Receipt",
            "Reviewed",
            "Revoked",
            "TurnInput",
        ),
        "memwarden.types",
    ),
}

__all__ = [
    "ActionReceipt",
    "AddResult",
    "Added",
    "Decided",
    "Deleted",
    "Forgotten",
    "HistoryEntry",
    "InvalidInput",
    "Memories",
    "Memory",
    "MemoryItem",
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


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'memwarden' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # once loaded, a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
