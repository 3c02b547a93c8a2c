"""Credential-cue windows and spelled-out secrets. Pure.

A cue (:mod:`memwarden_shared.detect.secret_cues`) opens a window over the text around it:
forward, from the cue to the end of its sentence (at most 64 characters; when nothing
follows the cue before the sentence ends, the next sentence instead), and backward, at
most 32 characters within the same sentence (``4711 is my PIN``, ``1234是我的密码``).
Inside a window, with no exemption for dates, phones or counts, these are masked:

- every token holding a digit or a password symbol, and every credential-shaped token;
- every spelled sequence of two units or more: digit words (``four seven``), Chinese
  numerals (``一二三``, ``幺两``, ``壹贰叁``), NATO words (``alpha bravo``), single letters
  and ``X as in Y`` (``k as in kilo``);
- the value right after the cue and a connector (``is``, ``:``, ``=``, ``是``, ``为``): one
  Latin token unless it is a word about the secret (``my password is too weak``), or a
  run of Chinese characters unless it opens with one (``密码是我生日``).

A cue whose sentence ends in a colon and a line break announces the lines after it: each
line of that block, to a blank line, is masked whole, whatever it looks like.

Outside windows, a spelled sequence of six units or more is masked all the same, as a
digit run of six would be (:mod:`memwarden_shared.detect.secret_shapes`).

Works on folded text; yields ``(kind, start, end)`` in folded offsets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memwarden_shared.detect.secret_cues import Cue, find_cues
from memwarden_shared.detect.secret_phrases import PROSE_WORDS
from memwarden_shared.detect.secret_shapes import UNIT_AFTER, credential_shaped, tokens

SPELLED = "spelled_secret"
FORWARD, BACKWARD = 64, 32
LIST_BLOCK = 1024  # the most a cue announcing lines reaches into them
SPELLED_ALONE = 6  # units of a spelled sequence masked with no cue: as a digit run
SPELLED_IN_WINDOW = 2

_ZH_NUMERAL = "零〇一二三四五六七八九幺两壹贰叁肆伍陆柒捌玖"
_DIGIT_WORDS = "zero|oh|one|two|three|four|five|six|seven|eight|nine|niner"
_NATO = (
    "alfa|alpha|bravo|charlie|delta|echo|foxtrot|golf|hotel|india|juliet|juliett|kilo|lima"
    "|mike|november|oscar|papa|quebec|romeo|sierra|tango|uniform|victor|whiskey|whisky|x-ray"
    "|xray|yankee|zulu"
)
_UNIT = (
    rf"(?:[A-Za-z]\s+(?:as|like|for)\s+(?:in\s+)?[A-Za-z]+"  # "k as in kilo", "b for bravo"
    rf"|(?:{_DIGIT_WORDS}|{_NATO})(?![A-Za-z])|[A-Za-z0-9](?![A-Za-z0-9])"
    rf"|[{_ZH_NUMERAL}])"
)
_SEP = r"(?:\s*(?:[,，、./\-]|\bthen\b|\band\b)?\s*)"
_SPELLED = re.compile(rf"(?<![A-Za-z0-9]){_UNIT}(?:{_SEP}{_UNIT})+", re.IGNORECASE)
_UNIT_ONE = re.compile(_UNIT, re.IGNORECASE)
_WORDY_UNIT = re.compile(rf"(?:{_DIGIT_WORDS}|{_NATO})|\bas\b|\bfor\b|[{_ZH_NUMERAL}]", re.I)

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_LINE = re.compile(r"[^\s](?:[^\n]*[^\s])?")
# A period ends a sentence, but not the one of "no.", "nr." or "acct." ("passport no. 1234…")
_HARD_BREAK = re.compile(r"[。！？!?;；\n]|(?<!\b(?i:no))(?<!\b(?i:nr))(?<!\b(?i:acct))\.(?=\s|$)")
_CONNECTOR = re.compile(
    r"\s*(?:(?:is|are|was|will be|reads|equals)\b\s*[:=]?|:=|[:=：]|->|=>"
    r"|就是|是|为|為|叫|设为|改成|换成)\s*(?:(?:now|still|just|currently)\s+)?",
    re.IGNORECASE,
)
_PROSE = frozenset(PROSE_WORDS.split())
_ZH_VALUE = re.compile(r"[\u4e00-\u9fff]{2,16}")
_ZH_PROSE = re.compile(
    r"[我你他她它的在不没很太要会能可也还都和跟被把让给啥多什怎哪几有已忘错对见看问]|这|那|需要|应该"
)
_ZH_LENGTH = re.compile(rf"[{_ZH_NUMERAL}十几]+(?:位|个)")  # "六位数": a length
_SYMBOLS = frozenset("!@#$%^&*+=?~|")
_OPENERS = "\"'(（[「『“‘<:：,，、"


def _spelled(text: str, lo: int, hi: int, min_units: int) -> Iterator[tuple[str, int, int]]:
    for m in _SPELLED.finditer(text, lo, hi):
        units = _UNIT_ONE.findall(m.group())
        if len(units) < min_units:
            continue
        # Alone, a sequence must be spoken digits or letters, not a row of single letters
        # and digits ("a b c", "1 2 3" are lists): half its units are words or numerals.
        if min_units > SPELLED_IN_WINDOW and len(_WORDY_UNIT.findall(m.group())) * 2 < len(units):
            continue
        yield SPELLED, m.start(), m.end()


def find_spelled(text: str) -> Iterator[tuple[str, int, int]]:
    """Spelled sequences of :data:`SPELLED_ALONE` units or more, anywhere in ``text``."""
    yield from _spelled(text, 0, len(text), SPELLED_ALONE)


def _announced_block(text: str, start: int) -> tuple[int, int] | None:
    """The block of lines the cue's sentence announces ("backup codes, keep them safe:" ⏎
    code ⏎ code): from the line after its colon to a blank line (at most LIST_BLOCK)."""
    brk = _HARD_BREAK.search(text, start, min(len(text), start + FORWARD))
    if brk is None or text[brk.start()] != "\n":
        return None
    if not text[start : brk.start()].rstrip().endswith((":", "：")):
        return None
    blank = _BLANK_LINE.search(text, brk.end(), min(len(text), brk.end() + LIST_BLOCK))
    return brk.end(), blank.start() if blank else min(len(text), brk.end() + LIST_BLOCK)


def _forward_end(text: str, start: int) -> int:
    brk = _HARD_BREAK.search(text, start, min(len(text), start + FORWARD))
    if brk is None:
        return min(len(text), start + FORWARD)
    if not text[start : brk.start()].strip(" \t:：=-—…"):
        # a dangling cue ("my PIN is." ⏎ "4711"): the window is the next sentence
        nxt = _HARD_BREAK.search(text, brk.end(), min(len(text), brk.end() + FORWARD))
        return nxt.start() if nxt else min(len(text), brk.end() + FORWARD)
    return brk.start()


def _backward_start(text: str, end: int) -> int:
    lo = max(0, end - BACKWARD)
    breaks = [m.end() for m in _HARD_BREAK.finditer(text, lo, end)]
    return breaks[-1] if breaks else lo


def _token_candidates(text: str, lo: int, hi: int) -> Iterator[tuple[int, int]]:
    for start, end in tokens(text[lo:hi]):
        token = text[lo + start : lo + end]
        if token.isdigit() and UNIT_AFTER.match(text, lo + end):
            continue  # "at least 8 characters", "expires in 5 minutes": a quantity
        if (
            any(c.isdigit() for c in token)
            or any(c in _SYMBOLS for c in token)
            or credential_shaped(token)
        ):
            yield lo + start, lo + end


def _value_slot(text: str, cue: Cue, hi: int) -> tuple[int, int] | None:
    conn = _CONNECTOR.match(text, cue.end, hi)
    if conn is None or conn.end() >= hi:
        return None
    pos = conn.end()
    zh = _ZH_VALUE.match(text, pos, hi)
    if zh:
        prose = _ZH_PROSE.match(zh.group()) or _ZH_LENGTH.match(zh.group())
        return None if prose else zh.span()
    for start, end in tokens(text[pos:hi]):
        if start != 0:
            return None
        word = text[pos : pos + end]
        if word.casefold() in _PROSE or word.casefold().endswith(("ing", "ed", "ly")):
            return None
        if UNIT_AFTER.match(text, pos + end):
            return None  # "my PIN is four digits long": its length, not it
        return pos, pos + end
    return None


def _inside_token(text: str, start: int) -> bool:
    if start == 0:
        return False
    before = text[start - 1]
    return not (before.isspace() or before in _OPENERS or "\u2e80" <= before <= "\u9fff")


def _window_findings(text: str, cue: Cue, cues: list[Cue]) -> Iterator[tuple[str, int, int]]:
    hi = _forward_end(text, cue.end)
    # A cue inside a token (a URL's "&secret=…") names what follows it, not what precedes.
    lo = cue.start if _inside_token(text, cue.start) else _backward_start(text, cue.start)
    for lo_, hi_ in ((lo, cue.start), (cue.end, hi)):
        for start, end in _token_candidates(text, lo_, hi_):
            if not any(c.start < end and start < c.end for c in cues):
                yield cue.kind, start, end
        for _, start, end in _spelled(text, lo_, hi_, SPELLED_IN_WINDOW):
            yield cue.kind, start, end
    slot = _value_slot(text, cue, hi)
    if slot is not None:
        yield cue.kind, *slot
    block = _announced_block(text, cue.end)
    if block is not None:
        # each line of the block is one item, whatever it looks like: masked whole
        for line in _LINE.finditer(text, *block):
            yield cue.kind, line.start(), line.end()


def find_cue_windows(text: str) -> Iterator[tuple[str, int, int]]:
    """Everything masked inside the credential-cue windows of ``text`` (folded)."""
    cues = find_cues(text)
    for cue in cues:
        yield from _window_findings(text, cue, cues)


def has_cue(text: str) -> bool:
    """Whether ``text`` (folded) holds a credential cue."""
    return bool(find_cues(text))
