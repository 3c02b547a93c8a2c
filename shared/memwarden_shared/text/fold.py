"""The one text fold, with named levels, remembering where each folded character came from.
Pure.

Every check that compares chat text with something (secrets, sensitive content, the
classifier, grounding, registry aliases, language names, recall, curate, suppression) folds
with :func:`fold_text` or :func:`fold` at one :class:`Level`, so two checks that must agree
(the registry's alias lookup and grounding, say) cannot drift apart. Each level folds
everything the one before it does, and more:

``EXACT``  the text as written;
``WIDTH``  each character NFKC-normalised (full-width ``ｐａｓｓ`` -> ``pass``, ``①`` -> ``1``)
           and invisible characters (zero-width, soft hyphen, word joiner) and bidi controls
           dropped; :class:`FoldFlag` records what was dropped;
``SCRIPT`` non-ASCII letters Unicode lists as confusable with an ASCII letter or digit reduced
           to that skeleton (Cyrillic ``а`` in ``pаssword`` -> ``a``, from the
           ``confusable_homoglyphs`` copy of Unicode's confusables.txt), and traditional
           Chinese mapped to simplified with OpenCC's ``t2s`` tables (``討厭`` -> ``讨厌``).
           Case is kept: token formats depend on it (the secret detectors read this level);
``CASE``   case-folded, typographic quotes straightened (``’`` -> ``'``, ``“`` -> ``"``);
``SPACE``  every run of whitespace one space, none at either end: the form cue patterns,
           grounding, alias and language-name lookups and recall read;
``KEY``    letters and digits only (whitespace, punctuation, symbols and ``_`` removed).

``Folded.origin[i]`` is the index in the ORIGINAL text of folded character ``i``, so a
finding in folded text maps back with :meth:`Folded.span`. :func:`suppression_form` builds
the forget hash's text on ``CASE`` (politeness words dropped, numerals as digits) and ends
at ``KEY``.

NFKC is applied per code point, not to the whole string: the index map stays exact, and a
decomposed accent (``e`` + U+0301) stays two characters instead of composing. Every client
we know sends composed (NFC) text; composing here would also change suppression hashes
already stored.
"""

from __future__ import annotations

import json
import re
import unicodedata
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from functools import cache, lru_cache
from importlib import resources

from opencc import OpenCC


class Level(IntEnum):
    """How much of a spelling a comparison ignores; each level folds all the previous do."""

    EXACT = 0
    WIDTH = 1
    SCRIPT = 2
    CASE = 3
    SPACE = 4
    KEY = 5


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
# Typographic quotes a keyboard or a chat client substitutes for the ASCII ones.
_QUOTES = {"’": "'", "‘": "'", "“": '"', "”": '"'}
_NOT_CONTENT = re.compile(r"[\s\W_]+", re.UNICODE)


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


def fold_text(text: str, level: Level) -> str:
    """``text`` folded to ``level`` (see the module doc); the string only, no index map."""
    if level == Level.EXACT:
        return text
    if len(text) <= _SHORT:
        return _fold_short(text, level)
    return _fold_text(text, level)


# Registry forms, language names and tool names are folded for every sentence they are
# looked for in: a few thousand short strings, kept apart from the sentence cache below.
_SHORT = 64


@lru_cache(maxsize=8192)
def _fold_short(text: str, level: Level) -> str:
    return _fold_text(text, level)


def _fold_text(text: str, level: Level) -> str:
    # ASCII is its own WIDTH and SCRIPT fold: NFKC, the skeleton and t2s leave it as it is
    script = text if text.isascii() else fold(text, min(level, Level.SCRIPT)).text
    if level <= Level.SCRIPT:
        return script
    folded = script.casefold()
    if not folded.isascii():
        for curly, straight in _QUOTES.items():
            folded = folded.replace(curly, straight)
    if level == Level.CASE:
        return folded
    if level == Level.SPACE:
        return " ".join(folded.split())
    return _NOT_CONTENT.sub("", folded)


def fold(text: str, level: Level) -> Folded:
    """``text`` folded to ``level``, with an index back to ``text`` (for masking a finding).

    Short texts are cached at ``WIDTH`` and ``SCRIPT``: the gate folds one sentence for
    several checks.
    """
    if level == Level.EXACT:
        return Folded(text, range(len(text)), frozenset(), len(text))
    if level > Level.SCRIPT:
        return _fold_above_script(fold(text, Level.SCRIPT), level)
    return _fold_cached(text, level) if len(text) <= _CACHED_LENGTH else _fold(text, level)


# Sentences repeat across checks; whole messages (up to MAX_TEXT_CHARS) are folded once and
# must not be kept, or a replay of long turns would hold thousands of them in memory.
_CACHED_LENGTH = 2_000


@lru_cache(maxsize=256)  # a batch re-folds the same sentences; more would only hold memory
def _fold_cached(text: str, level: Level) -> Folded:
    return _fold(text, level)


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


def simplified(text: str) -> str:
    """``text`` with traditional Chinese characters mapped to simplified ones, one for one
    and nothing else folded: every offset into the result indexes ``text`` too, so a rule
    written for one script reads both without its own map back."""
    if text.isascii():
        return text
    out = list(text)
    return "".join(out) if _simplify(out) else text


@lru_cache(maxsize=8192)  # one entry per distinct character and level: a text holds few
def _fold_char(ch: str, level: Level) -> tuple[str, FoldFlag | None]:
    """``WIDTH`` (and at ``SCRIPT`` the skeleton) of one non-ASCII character: what it
    becomes, and the flag it raises."""
    if ch in INVISIBLE:
        return "", FoldFlag.INVISIBLE
    if ch in BIDI_CONTROLS:
        return "", FoldFlag.BIDI
    skeleton = _skeleton() if level >= Level.SCRIPT else {}
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


def _fold(text: str, level: Level) -> Folded:
    """``WIDTH`` or ``SCRIPT``."""
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
        folded, flag = fold_char(ch, level)
        if flag is not None:
            flags.add(flag)
        if folded == ch:  # most characters (CJK among them) stay as they are
            out.append(ch)
            origin.append(i)
            continue
        for piece in folded:
            out.append(piece)
            origin.append(i)
    if level >= Level.SCRIPT and _CJK.search("".join(out)) and _simplify(out):
        flags.add(FoldFlag.TRADITIONAL)
    return Folded("".join(out), array("i", origin), frozenset(flags), len(text))


def _fold_above_script(script: Folded, level: Level) -> Folded:
    """``CASE``, ``SPACE`` or ``KEY`` from ``SCRIPT``, character by character so that each
    folded character keeps its origin (:func:`fold_text` is the fast path to the string)."""
    out: list[str] = []
    origin: list[int] = []
    for ch, i in zip(script.text, script.origin, strict=True):
        for piece in ch.casefold():
            piece = _QUOTES.get(piece, piece)
            if level == Level.KEY and not piece.isalnum():
                continue
            if level == Level.SPACE and piece.isspace():
                if not out or out[-1] == " ":
                    continue
                piece = " "
            out.append(piece)
            origin.append(i)
    if level == Level.SPACE and out and out[-1] == " ":
        out.pop()
        origin.pop()
    return Folded("".join(out), array("i", origin), script.flags, script.original_length)


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
    """The text a forget hash is taken of: ``text`` at ``CASE``, politeness words dropped,
    numerals written in digits (``三`` == ``three`` == ``3``), then at ``KEY``.

    It matches the same claim restated with a homoglyph, in traditional characters, with a
    trailing ", please" or with another numeral form; it does not match paraphrases. Built
    on ``CASE``, not ``SPACE``: whitespace runs stay as the hashes already stored saw them.
    """
    s = _POLITE.sub(" ", fold_text(text, Level.CASE))
    s = _ZH_NUMERAL.sub(lambda m: str(zh_numeral_value(m.group())), s)
    s = _EN_NUMBER.sub(lambda m: _EN_NUMBERS[m.group()], s)
    return _NOT_CONTENT.sub("", s)
