"""Fold text before pattern matching, remembering where each folded character came from.

Detectors match on the folded text so that full-width forms (U+FF10..U+FF5E digits,
letters and punctuation) and zero-width characters slipped inside a token cannot hide it;
they report offsets through :meth:`Folded.span` so callers can redact the ORIGINAL text.
Pure.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import opencc

# Invisible characters someone can insert inside a token without changing how it reads.
INVISIBLE = frozenset("\u00ad\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff")


@dataclass(frozen=True, slots=True)
class Folded:
    """``text`` is the folded string; ``origin[i]`` is the original index of ``text[i]``."""

    text: str
    origin: tuple[int, ...]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map a non-empty folded span ``[start, end)`` to the original text."""
        return self.origin[start], self.origin[end - 1] + 1


def fold(text: str) -> Folded:
    """NFKC each character and drop invisible ones, keeping an index back to ``text``.

    NFKC is applied per code point rather than to the whole string: it keeps the index map
    exact, and the only difference (combining sequences) does not occur in ASCII secrets.
    """
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch in INVISIBLE:
            continue
        folded = unicodedata.normalize("NFKC", ch) if not ch.isascii() else ch
        for piece in folded:
            if piece in INVISIBLE:
                continue
            out.append(piece)
            origin.append(i)
    return Folded("".join(out), tuple(origin))


@lru_cache(maxsize=1)
def _t2s() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional Chinese (Taiwan, Hong Kong) -> simplified, with OpenCC's maintained tables.

    Cue lists are written in simplified Chinese once; folding here makes "討厭", "並非" and
    "喜歡" meet the same cues as "讨厌", "并非" and "喜欢". Text without CJK is returned as is.
    """
    if text.isascii():
        return text
    return _t2s().convert(text)
