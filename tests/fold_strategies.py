"""Hypothesis strategies that respell text the way each fold level undoes (tests only).

``respelled(text, level)`` draws a spelling of ``text`` that differs from it only in what
``level`` folds away (and what the levels below it fold): full-width forms and invisible or
bidi characters (WIDTH), homoglyphs and traditional Chinese (SCRIPT), case and curly quotes
(CASE), whitespace runs (SPACE), punctuation (KEY). The tables come from the same
catalogues the fold reads (Unicode confusables, OpenCC), inverted.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from hypothesis import strategies as st
from opencc import OpenCC

from memwarden_shared.text.fold import BIDI_CONTROLS, INVISIBLE, Level, _skeleton

_HIDDEN = sorted(INVISIBLE | BIDI_CONTROLS)
_SPACES = [" ", "  ", "\t", "\u3000", " \u00a0"]
_PUNCTUATION = list(",.;:!?-_/()[]'\"，。！？、：")


@cache
def _homoglyphs() -> dict[str, list[str]]:
    """ASCII letter or digit -> characters the fold reduces to it (their NFKC is themselves,
    so the skeleton applies to them as written)."""
    out: dict[str, list[str]] = {}
    for glyph, ascii_char in sorted(_skeleton().items()):
        if unicodedata.normalize("NFKC", glyph) == glyph and glyph.isprintable():
            out.setdefault(ascii_char, []).append(glyph)
    return out


_S2T, _T2S = OpenCC("s2t"), OpenCC("t2s")


@cache
def traditional(ch: str) -> str | None:
    """The traditional form of a simplified character, when OpenCC maps it back one to one."""
    trad = _S2T.convert(ch)
    if len(trad) == 1 and trad != ch and _T2S.convert(trad) == ch:
        return str(trad)
    return None


def _choices(ch: str, level: Level) -> list[str]:
    """Spellings of the single character ``ch`` that ``level`` folds to what ``ch`` folds to."""
    out = [ch]
    if level >= Level.WIDTH and "!" <= ch <= "~":
        out.append(chr(ord(ch) + 0xFEE0))  # the full-width form
    if level >= Level.SCRIPT:
        out += _homoglyphs().get(ch, [])
        out += [t for t in [traditional(ch)] if t is not None]
    if level >= Level.CASE and ch.isascii() and ch.isalpha():
        out += [ch.swapcase(), *_homoglyphs().get(ch.swapcase(), [])]
    if level >= Level.CASE and ch == "'":
        out += ["’", "‘"]
    if level >= Level.SPACE and ch == " ":
        out += _SPACES
    return out


@st.composite
def respelled(draw: st.DrawFn, text: str, level: Level) -> str:
    """``text`` respelled within ``level`` (see the module doc)."""
    out: list[str] = []
    if level >= Level.SPACE:
        out.append(draw(st.sampled_from(["", " ", "\u3000 "])))
    for ch in text:
        if level >= Level.WIDTH and draw(st.integers(0, 4)) == 0:
            out.append(draw(st.sampled_from(_HIDDEN)))
        if level >= Level.KEY and draw(st.integers(0, 4)) == 0:
            out.append(draw(st.sampled_from(_PUNCTUATION)))
        out.append(draw(st.sampled_from(_choices(ch, level))))
    if level >= Level.SPACE:
        out.append(draw(st.sampled_from(["", " ", "\n"])))
    return "".join(out)


_homoglyphs()  # load the catalogues now, not inside the first example (hypothesis times it)
