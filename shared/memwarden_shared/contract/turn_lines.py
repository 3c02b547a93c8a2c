"""Turns read from a JSONL file one line at a time: ingest and replay share the reading and
the reasons a line is refused, so both treat a bad line the same way.

A file is never read whole, so memory stays bounded whatever its size. A reason names
fields and error types only, never the line's content (a line may hold a secret).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from memwarden_shared.contract.ijson import IJsonError, loads_strict
from memwarden_shared.contract.models import Turn, safe_error_fields
from memwarden_shared.contract.turn_input import TurnInput

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class TurnLine:
    number: int  # 1-based line number (counted from ``start`` when reading from an offset)
    offset: int  # byte offset of the line's start
    end: int  # byte offset just past the line
    turn: Turn | None  # the turn, or None when the line is blank or bad
    error: str | None  # why the line is not a turn (None for a turn or a blank line)


def parse_line(
    line: bytes, default_tenant: str | None, max_text_chars: int | None = None
) -> Turn | str:
    """The turn on one line (the one turn format, ``contract.turn_input``), or why it is
    not one."""
    try:
        row = loads_strict(line)
    except IJsonError as exc:
        return f"not I-JSON: {exc.code}"
    if not isinstance(row, dict):
        return "not a JSON object"
    try:
        given = TurnInput.model_validate(row)
    except ValidationError as exc:
        return "invalid turn (" + "; ".join(safe_error_fields(exc)) + ")"
    tenant = given.tenant_id or default_tenant
    if not tenant:
        return "invalid turn (tenant_id: missing; pass --tenant or name it on the line)"
    turn = given.to_turn(tenant)
    if max_text_chars is not None and len(turn.text) > max_text_chars:
        return f"text has {len(turn.text)} characters, limit {max_text_chars}"
    return turn


def read_turn_lines(
    path: Path,
    *,
    start: int = 0,
    default_tenant: str | None = None,
    max_text_chars: int | None = None,
) -> Iterator[TurnLine]:
    """Every line of ``path`` from byte ``start`` (a line boundary), parsed, in order."""
    with path.open("rb") as handle:
        handle.seek(start)
        offset = start
        for number, line in enumerate(handle, 1):
            line_start, offset = offset, offset + len(line)
            if line_start == 0:
                line = line.removeprefix(BOM)
            if not line.strip():
                yield TurnLine(number, line_start, offset, None, None)
                continue
            parsed = parse_line(line, default_tenant, max_text_chars)
            if isinstance(parsed, Turn):
                yield TurnLine(number, line_start, offset, parsed, None)
            else:
                yield TurnLine(number, line_start, offset, None, parsed)
