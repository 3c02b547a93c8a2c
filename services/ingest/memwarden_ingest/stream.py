"""Ingest of a JSONL file in bounded memory: read line by line, commit in batches.

Bad lines follow replay's policy (docs/decisions.md, "Ingest and replay: bad lines"): by
default a streaming pre-pass reads the whole file first and refuses it at the first bad
line, before anything is stored; ``skip_bad`` stores the good lines and reports the others.
Only one batch of turns is ever held, so memory does not grow with the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from memwarden_ingest import io as ingest_io
from memwarden_ingest.io import IngestRefused
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.turn_lines import read_turn_lines

SKIPPED_KEPT = 20  # skipped lines named in the result; the count covers them all


@dataclass
class FileIngest:
    stored: int = 0
    duplicates: int = 0
    skipped: int = 0
    skipped_lines: list[dict[str, Any]] = field(default_factory=list)  # {"line", "error"}


@dataclass(frozen=True)
class BatchStored:
    """Progress after a committed batch (for a progress bar)."""

    bytes_read: int
    turns: int
    last_line: int  # every line up to this one is stored (or was skipped as bad)


@dataclass(frozen=True)
class Validated:
    """Progress of the validation pre-pass (for a progress bar)."""

    bytes_read: int
    lines: int


VALIDATED_EVERY = 1000  # lines between two validation progress reports


def ingest_file(
    path: Path,
    *,
    engine: Engine,
    default_tenant: str | None = None,
    extract: bool = True,
    max_text_chars: int = 20_000,
    batch_size: int = 500,
    skip_bad: bool = False,
    after_batch: Callable[[BatchStored], None] | None = None,
    from_line: int = 1,
    on_validated: Callable[[Validated], None] | None = None,
) -> FileIngest:
    """Store the turns of ``path`` in transactions of ``batch_size`` turns.

    Raises :class:`IngestRefused` naming the line (``path:N``) and the rule, never its
    content: at the first bad line when ``skip_bad`` is False (nothing stored), or when a
    batch conflicts with stored messages (the batches before it stay stored; re-running
    after a fix is safe, they count as duplicates).

    ``from_line`` resumes an interrupted ingest: lines before it are neither validated nor
    stored. ``on_validated`` reports the pre-pass every :data:`VALIDATED_EVERY` lines.
    """

    def lines() -> Iterator[Any]:
        every = read_turn_lines(path, default_tenant=default_tenant, max_text_chars=max_text_chars)
        return (line for line in every if line.number >= from_line)

    if not skip_bad:
        for line in lines():
            if on_validated and line.number % VALIDATED_EVERY == 0:
                on_validated(Validated(line.end, line.number))
            if line.error is not None:
                raise IngestRefused(
                    f"{path}:{line.number}: {line.error}; nothing was stored (fix the line, "
                    "or pass --skip-bad to skip bad lines)"
                )
    result = FileIngest()
    batch: list[Turn] = []
    first_line = 1

    def flush(last_line: int, bytes_read: int) -> None:
        try:
            done = ingest_io.ingest_turns(
                batch, engine=engine, extract=extract, max_text_chars=max_text_chars
            )
        except IngestRefused as exc:
            raise IngestRefused(
                f"{path}:{first_line}-{last_line}: {exc}; the {result.stored} turns before "
                "this batch were stored"
            ) from None
        result.stored += done.stored
        result.duplicates += done.duplicates
        if after_batch:
            after_batch(BatchStored(bytes_read, len(batch), last_line))

    for line in lines():
        if line.error is not None:
            result.skipped += 1
            if len(result.skipped_lines) < SKIPPED_KEPT:
                result.skipped_lines.append({"line": line.number, "error": line.error})
        elif line.turn is not None:
            if not batch:
                first_line = line.number
            batch.append(line.turn)
            if len(batch) >= batch_size:
                flush(line.number, line.end)
                batch = []
        last = line
    if batch:
        flush(last.number, last.end)
    return result
