"""Replay input: JSONL files and folders, read as a stream of batches with byte offsets.

A file is never read whole: lines are read one at a time and handed out in batches, each
carrying the byte offset just past its last line (what a checkpoint stores), so memory stays
bounded by the batch size whatever the file size. Reading files is all this module does; it
never touches the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memwarden_shared.contract.canonical import jcs, sha256_hex
from memwarden_shared.contract.models import Turn
from memwarden_shared.contract.turn_lines import parse_line, read_turn_lines

__all__ = ["Batch", "expand_paths", "first_bad_line", "parse_line", "read_batches", "run_id_for"]


@dataclass(frozen=True)
class Batch:
    path: str
    start: int  # byte offset of the batch's first line
    end: int  # byte offset just past its last line: where the next batch starts
    turns: list[Turn]
    bad_lines: list[dict[str, Any]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return self.end - self.start


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given, folders as their ``*.jsonl`` files (recursively, sorted); each file once,
    in the order named. A path that does not exist raises FileNotFoundError."""
    out: dict[Path, None] = {}
    for path in paths:
        if path.is_dir():
            out.update(dict.fromkeys(p.resolve() for p in sorted(path.rglob("*.jsonl"))))
        elif path.is_file():
            out[path.resolve()] = None
        else:
            raise FileNotFoundError(2, "No such file or directory", str(path))
    return list(out)


def run_id_for(
    paths: list[Path],
    extractor: str,
    extractor_version: str,
    shadow: bool,
    tenant: str | None,
    *,
    distributed: bool = False,
) -> str:
    """The default run id: the same command over the same files resumes the same run."""
    ident: dict[str, object] = {
        "paths": [str(p) for p in paths],
        "extractor": extractor,
        "extractor_version": extractor_version,
        "shadow": shadow,
        "tenant": tenant,
    }
    if distributed:  # only then: the ids of in-process runs stay what they were
        ident["distributed"] = True
    return "replay-" + sha256_hex(jcs(ident))[:16]


def read_batches(
    path: Path, *, start: int, size: int, default_tenant: str | None = None
) -> Iterator[Batch]:
    """Batches of up to ``size`` lines from byte ``start`` (a line boundary) to the end.

    Blank lines are skipped, bad lines are reported in their batch; a final batch of only
    blank lines is still yielded so that the checkpoint reaches the end of the file.
    """
    name = str(path)
    offset = batch_start = start
    turns: list[Turn] = []
    bad: list[dict[str, Any]] = []
    for line in read_turn_lines(path, start=start, default_tenant=default_tenant):
        offset = line.end
        if line.turn is not None:
            turns.append(line.turn)
        elif line.error is not None:
            bad.append({"path": name, "byte_offset": line.offset, "error": line.error})
        if len(turns) + len(bad) >= size:
            yield Batch(name, batch_start, offset, turns, bad)
            batch_start, turns, bad = offset, [], []
    if offset > batch_start:
        yield Batch(name, batch_start, offset, turns, bad)


def first_bad_line(path: Path, *, start: int, default_tenant: str | None) -> str | None:
    """Where and why the first bad line from ``start`` is refused, or None: the streaming
    pre-pass that lets a replay refuse a file before storing any of it."""
    for line in read_turn_lines(path, start=start, default_tenant=default_tenant):
        if line.error is not None:
            return f"{path}: byte {line.offset}: {line.error}"
    return None
