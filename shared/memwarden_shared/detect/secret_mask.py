"""Mask every detected secret before a message is stored (SPEC §5.6 v2). Pure.

Each secret's characters become ``*`` (line breaks are kept, so the sentences around a
masked PEM block still cut where they did): the text keeps its length, so the offsets of
every other span stay valid, and what is stored records only the masked spans' kinds and
offsets. Ingest, supersede and replay all store through :func:`mask_secrets`.

What is masked: every finding of :func:`~memwarden_shared.detect.secrets.find_secrets`
(vendor formats, checksummed numbers, stated passwords) and of
:func:`~memwarden_shared.detect.secret_shape_scan.scan_shapes` (credential shapes, digit
runs, cue windows, encoded secrets, identity/bank/crypto catalogues: SPEC §5.6 v3), and
what the session's open window finds in the turn (:mod:`secret_window`).

A secret whose value an earlier turn announced (``my bank PIN is`` ⏎ ``4711``), or that is
split over turns, is masked when the caller passes the session's latest turns as
``history`` (oldest first; :data:`HISTORY_TURNS` of them are enough) or the one before as
``previous``. If masking does not settle (a re-scan of the masked text still finds a
secret), the sentences holding the rest are masked whole and the message is marked
``unlocated``: the gate then rejects every proposal from it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from memwarden_shared.detect.secret_shape_scan import scan_shapes
from memwarden_shared.detect.secret_spoken import announces_value, ends_with_cue, leading_value
from memwarden_shared.detect.secret_window import WINDOW_TURNS, window_after, window_spans
from memwarden_shared.detect.secrets import find_secrets
from memwarden_shared.text.fold import Level, fold, fold_text
from memwarden_shared.text.segmenter import split_sentences

MASK = "*"
_MAX_PASSES = 3
HISTORY_TURNS = WINDOW_TURNS + 1  # the longest window and the turn that opened it


@dataclass(frozen=True, slots=True)
class MaskedSpan:
    """A masked secret of ``kind`` at ``[start, end)`` (code points); never its text."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Masked:
    """The text to store, the spans masked in it, and whether a secret escaped locating."""

    text: str
    spans: tuple[MaskedSpan, ...]
    unlocated: bool

    def spans_json(self) -> str | None:
        """The spans as stored in ``messages.masked_spans`` (None when nothing was masked)."""
        if not self.spans:
            return None
        return json.dumps([[s.kind, s.start, s.end] for s in self.spans], separators=(",", ":"))


def spans_from_json(raw: str | None) -> tuple[MaskedSpan, ...]:
    """Read ``messages.masked_spans`` back."""
    if not raw:
        return ()
    return tuple(MaskedSpan(str(k), int(s), int(e)) for k, s, e in json.loads(raw))


def touches(spans: tuple[MaskedSpan, ...], start: int, end: int) -> bool:
    """Whether ``[start, end)`` overlaps any masked span."""
    return any(s.start < end and start < s.end for s in spans)


def _apply(text: str, spans: list[MaskedSpan]) -> str:
    chars = list(text)
    for span in spans:
        for i in range(span.start, span.end):
            if not chars[i].isspace() or chars[i] == " ":
                chars[i] = MASK  # line breaks stay: the sentences around still cut there
    return "".join(chars)


def _announced(text: str, previous: str | None) -> MaskedSpan | None:
    """The value at the start of ``text`` that the previous turn's dangling cue announced."""
    if not previous or not ends_with_cue(fold_text(previous, Level.SCRIPT)):
        return None
    folded = fold(text, Level.SCRIPT)
    whole = text.strip()
    announced = announces_value(fold_text(previous, Level.SCRIPT))
    if announced and "\n" not in whole and len(whole.split()) <= 8:
        # "I'll send the passphrase in my next message": the short next turn IS the value.
        start = text.index(whole[0]) if whole else 0
        return MaskedSpan("password", start, start + len(whole)) if whole else None
    span = leading_value(folded.text)
    if span is None:
        return None
    start, end = folded.span(*span)
    return MaskedSpan("password", start, end)


def mask_secrets(text: str, *, previous: str | None = None, history: Sequence[str] = ()) -> Masked:
    """Mask every secret in ``text``. ``history`` is the session's latest turns before it,
    oldest first (stored, masked texts will do); ``previous`` the one turn before it, when
    the caller has no more."""
    history = tuple(history) or ((previous,) if previous else ())
    spans = [MaskedSpan(str(f.kind), f.start, f.end) for f in find_secrets(text)]
    spans += [MaskedSpan(f.kind, f.start, f.end) for f in scan_shapes(text)]
    announced = _announced(text, history[-1] if history else None)
    if announced:
        spans.append(announced)
    in_window, _ = window_spans(window_after(history), text)
    spans += [MaskedSpan(kind, start, end) for kind, start, end in in_window]
    masked = _apply(text, spans)
    unlocated = False
    for _ in range(_MAX_PASSES):
        rest = [MaskedSpan(str(f.kind), f.start, f.end) for f in find_secrets(masked)]
        if not rest:
            break
        spans += rest
        masked = _apply(masked, rest)
    else:
        unlocated = True
        whole = [
            MaskedSpan("unlocated", s.start, s.end)
            for s in split_sentences(masked)
            if any(f.start < s.end and s.start < f.end for f in find_secrets(masked))
        ]
        spans += whole or [MaskedSpan("unlocated", 0, len(text))]
        masked = _apply(masked, whole or [MaskedSpan("unlocated", 0, len(text))])
    ordered = tuple(sorted(set(spans), key=lambda s: (s.start, s.end, s.kind)))
    return Masked(masked, ordered, unlocated)


def mask_session(
    texts: list[str], *, previous: str | None = None, history: Sequence[str] = ()
) -> list[Masked]:
    """Mask consecutive turns of one session, each with the turns before it as context
    (``history``, or ``previous``, comes before the first)."""
    context = list(history) or ([previous] if previous else [])
    out = []
    for text in texts:
        out.append(mask_secrets(text, history=context[-HISTORY_TURNS:]))
        context.append(text)
    return out
