"""What a revoked source does to the memory versions that cite it. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from shared.models import MemoryStatus


@dataclass(frozen=True)
class Dependent:
    memory_id: str
    version: int
    active_evidence: int  # supporting messages still active after the revocation


def outcome(dep: Dependent) -> MemoryStatus:
    """REVOKED when nothing supports the version any more; still COMMITTED when another
    active message supports it (provenance is counted, not guessed)."""
    return MemoryStatus.COMMITTED if dep.active_evidence > 0 else MemoryStatus.REVOKED
