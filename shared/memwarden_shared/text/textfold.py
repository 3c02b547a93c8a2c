"""Fold text once, in one place, remembering where each folded character came from. Pure.

Every check that reads chat text (secrets, sensitive content, the classifier, suppression)
matches on ``fold(text).text`` so that look-alike spellings cannot slip past it:

1. invisible characters (zero-width, soft hyphen, word joiner) and bidi controls are
   dropped, and :class:`FoldFlag` records that they were there;
2. each character is NFKC-normalised (full-width ``ｐａｓｓ`` -> ``pass``, ``①`` -> ``1``);
3. non-ASCII letters that Unicode lists as confusable with an ASCII letter or digit are
   reduced to that skeleton (Cyrillic ``а`` in ``pаssword`` -> ``a``), from the
   ``confusable_homoglyphs`` copy of Unicode's confusables.txt;
4. traditional Chinese is mapped to simplified with OpenCC's ``t2s`` tables
   (``討厭`` -> ``讨厌``, ``密碼`` -> ``密码``).

Case is kept: token formats depend on it; callers casefold when they need to.

``Folded.origin[i]`` is the index in the ORIGINAL text of folded character ``i``, so a
finding in folded text maps back with :meth:`Folded.span` and masks the right original
characters. :func:`suppression_form` goes further (case, punctuation, politeness words,
numerals) for the forget hash, where no offsets are needed.
"""

from __future__ import annotations

import json
import re
import unicodedata
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache
from importlib import resources

from opencc import OpenCC

# Invisible characters someone can insert inside a token without changing how it reads.
INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u2060\u2061\u2062"
    "\u2063\u2064\u3164\ufeff\uffa0"
)
# Bidi embedding, override and isolate controls: they reorder what a reader sees.
BIDI_CONTROLS = frozenset(
    "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c"
)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


class FoldFlag(StrEnum):
    """What folding had to undo; a caller may treat the text as suspicious."""

    INVISIBLE = "invisible"
    BIDI = "bidi"
    CONFUSABLE = "confusable"
    TRADITIONAL = "traditional"


@dataclass(frozen=True, slots=True)
class Folded:
    """``text`` is the folded string; ``origin[i]`` is the original index of ``text[i]``."""

    text: str
    origin: Sequence[int]  # a range when nothing moved, else a compact int array
    flags: frozenset[FoldFlag]
    original_length: int

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Map a non-empty folded span ``[start, end)`` to the original text."""
        return self.origin[start], self.origin[end - 1] + 1

    def to_original_offset(self, i: int) -> int:
        """The original offset of folded offset ``i`` (``len(text)`` maps to the original end)."""
        return self.origin[i] if i < len(self.origin) else self.original_length


@cache
def _skeleton() -> dict[str, str]:
    """Non-ASCII character -> the ASCII letter or digit Unicode says it is confusable with."""
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    table: dict[str, str] = {}
    for ch, entries in data.items():
        # Wide characters are CJK: "〇" is a Chinese zero, not the letter O.
        if len(ch) != 1 or ch.isascii() or unicodedata.east_asian_width(ch) in ("W", "F"):
            continue
        for entry in entries:
            target = entry["c"]
            if len(target) == 1 and target.isascii() and target.isalnum():
                table[ch] = target
                break
    return table


@cache
def _t2s() -> OpenCC:
    return OpenCC("t2s")


def _simplify(out: list[str]) -> bool:
    """Map traditional to simplified in place, one character for one (the index map holds);
    True when anything changed."""
    text = "".join(out)
    changed = False
    for m in _CJK.finditer(text):
        run = m.group()
        simple = _t2s().convert(run)
        if len(simple) != len(run):  # a phrase rule changed the length: go character by character
            simple = "".join(_t2s().convert(c)[:1] or c for c in run)
        if simple != run:
            changed = True
            out[m.start() : m.end()] = list(simple)
    return changed


# Sentences repeat across checks; whole messages (up to MAX_TEXT_CHARS) are folded once and
# must not be kept, or a replay of long turns would hold thousands of them in memory.
_CACHED_LENGTH = 2_000


def fold(text: str) -> Folded:
    """Fold ``text`` for matching (see the module doc), keeping an index back to ``text``.

    NFKC is applied per code point rather than to the whole string: it keeps the index map
    exact, and the only difference (combining sequences) does not occur in ASCII secrets.
    Short texts are cached: the gate folds one sentence for several checks.
    """
    return _fold_cached(text) if len(text) <= _CACHED_LENGTH else _fold(text)


@lru_cache(maxsize=256)  # a batch re-folds the same sentences; more would only hold memory
def _fold_cached(text: str) -> Folded:
    return _fold(text)


@lru_cache(maxsize=8192)  # one entry per distinct character: a text holds few
def _fold_char(ch: str) -> tuple[str, FoldFlag | None]:
    """Steps 1–3 for one non-ASCII character: what it becomes, and the flag it raises."""
    if ch in INVISIBLE:
        return "", FoldFlag.INVISIBLE
    if ch in BIDI_CONTROLS:
        return "", FoldFlag.BIDI
    skeleton = _skeleton()
    flag = None
    pieces: list[str] = []
    for piece in unicodedata.normalize("NFKC", ch):
        if piece in INVISIBLE or piece in BIDI_CONTROLS:
            continue
        if not piece.isascii() and piece in skeleton:
            piece = skeleton[piece]
            flag = FoldFlag.CONFUSABLE
        pieces.append(piece)
    return "".join(pieces), flag


def _fold(text: str) -> Folded:
    if text.isascii():  # nothing to fold: the common case, kept cheap
        return Folded(text, range(len(text)), frozenset(), len(text))
    out: list[str] = []
    origin: list[int] = []
    flags: set[FoldFlag] = set()
    fold_char = _fold_char
    for i, ch in enumerate(text):
        if ch.isascii():
            out.append(ch)
            origin.append(i)
            continue
        folded, flag = fold_char(ch)
        if flag is not None:
            flags.add(flag)
        if folded == ch:  # most characters (CJK among them) stay as they are
            out.append(ch)
            origin.append(i)
            continue
        for piece in folded:
            out.append(piece)
            origin.append(i)
    if _CJK.search("".join(out)) and _simplify(out):
        flags.add(FoldFlag.TRADITIONAL)
    return Folded("".join(out), array("i", origin), frozenset(flags), len(text))


def to_simplified(text: str) -> str:
    """Traditional Chinese (Taiwan, Hong Kong) -> simplified, with OpenCC's maintained tables,
    and nothing else (grounding compares values with evidence in this form)."""
    if text.isascii():
        return text
    return str(_t2s().convert(text))


def folded_text(text: str) -> str:
    """Just the folded string, for checks that need no offsets (classifier, sensitive)."""
    return fold(text).text


# ---------------------------------------------------------------- suppression (forget) form

_POLITE = re.compile(
    r"\b(?:please|pls|plz|kindly|thanks|thank you|thx|cheers)\b"
    r"|谢谢(?:你|您)?|多谢|感谢|麻烦(?:你|您)?|拜托(?:你|您)?|劳驾|烦请"
    r"|请(?=记|帮|把|你|您|务必|一定|注意|留意|别|不要|以后|今后|将来|[，,、\s])|^请",
    re.IGNORECASE,
)
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
              "六": 6, "七": 7, "八": 8, "九": 9}  # fmt: skip
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000}
_ZH_NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
_EN_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
             "fourteen fifteen sixteen seventeen eighteen nineteen twenty")  # fmt: skip
_EN_NUMBERS = {w: str(n) for n, w in enumerate(_EN_WORDS.split(" "))}
_EN_NUMBER = re.compile(r"\b(?:" + "|".join(_EN_NUMBERS) + r")\b")
_NOT_CONTENT = re.compile(r"[\s\W_]+", re.UNICODE)


def zh_numeral_value(numeral: str) -> int:
    """The value of a Chinese numeral: ``三`` 3, ``十三`` 13, ``二十`` 20, ``一二三`` 123."""
    if not any(c in _ZH_UNITS for c in numeral):
        return int("".join(str(_ZH_DIGITS[c]) for c in numeral))
    total = section = digit = 0
    for c in numeral:
        if c in _ZH_DIGITS:
            digit = _ZH_DIGITS[c]
        elif c == "万":
            total += (section + digit) * 10_000
            section = digit = 0
        else:
            section += (digit or 1) * _ZH_UNITS[c]
            digit = 0
    return total + section + digit


def suppression_form(text: str) -> str:
    """The text a forget hash is taken of: folded, case-folded, politeness words dropped,
    numerals written in digits (``三`` == ``three`` == ``3``), punctuation and space removed.

    It matches the same claim restated with a homoglyph, in traditional characters, with a
    trailing ", please" or with another numeral form; it does not match paraphrases.
    """
    s = folded_text(text).casefold()
    s = _POLITE.sub(" ", s)
    s = _ZH_NUMERAL.sub(lambda m: str(zh_numeral_value(m.group())), s)
    s = _EN_NUMBER.sub(lambda m: _EN_NUMBERS[m.group()], s)
    return _NOT_CONTENT.sub("", s)
