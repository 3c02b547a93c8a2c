"""What a revoked or superseded source does to the memory versions that cite it. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from memwarden_shared.contract.models import MemoryStatus
from memwarden_shared.text.segmenter import split_sentences


@dataclass(frozen=True)
class Dependent:
    memory_id: str
    version: int
    active_evidence: int  # supporting message revisions still active after the change


def outcome(dep: Dependent) -> MemoryStatus:
    """REVOKED when nothing supports the version any more; still COMMITTED when another
    active message supports it (provenance is counted, not guessed)."""
    return MemoryStatus.COMMITTED if dep.active_evidence > 0 else MemoryStatus.REVOKED


def successor_span(old_sentence: str, new_text: str) -> tuple[int, int] | None:
    """Where the new revision still says exactly the old evidence sentence, as one whole
    sentence of its own (an exact successor); None when the claim is gone or changed."""
    for sentence in split_sentences(new_text):
        if sentence.text == old_sentence:
            return sentence.start, sentence.end
    return None
