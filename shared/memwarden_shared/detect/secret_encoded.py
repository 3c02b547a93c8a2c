"""Secrets hidden in base64, hex or percent-encoding. Pure.

A token is decoded when it is written in one of these encodings and its decoded bytes are
text (UTF-8, printable, four characters or more, at least half letters or digits, its letters
of one script: random bytes decode to a mix such as Cyrillic and Latin letters):

- base64 (standard or URL-safe alphabet, padded or not): 8 characters or more, not all of
  them hex digits (those are read as hex, or are a number or a colour); a token
  shaped like a word (letters only, cased as words are) must decode to ASCII letters and
  digits (a word of the language decodes to accented or symbol-strewn noise by chance);
- hex: an even number of hex digits, 12 or more, with a letter, as a whole token (``0x``
  allowed; digits alone are a number, judged by the digit-run rule; four random bytes
  read as text too often to count);
- percent-encoding: at least one ``%XX`` escape.

The decoded text is scanned by the caller's scanner (the whole set of shape, cue,
catalogue and vendor detectors). The encoded token is masked whole when that scan finds
anything, and also, for base64 and hex, when the decoded text is one word with no space
(a password has no reason to be sent base64-encoded in a chat; a sentence may be).
Decoding nests at most :data:`MAX_DEPTH` times (base64 of hex of a password).
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Callable, Iterator
from urllib.parse import unquote

ENCODED = "encoded_secret"
MAX_DEPTH = 2

Scanner = Callable[[str], bool]

_B64 = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{8,}={0,2}(?![A-Za-z0-9+/_=-])")
# A whole token: a group of a UUID or a dashed id is no encoding.
_HEX = re.compile(r"(?<![A-Za-z0-9-])(?:0x)?(?:[0-9a-fA-F]{2}){6,}(?![A-Za-z0-9-])")
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")
_PCT = re.compile(r"[^\s%]*(?:%[0-9a-fA-F]{2}[^\s%]*)+")


def _as_text(raw: bytes) -> str | None:
    """The bytes as text: UTF-8, printable, four characters or more, at least half of them
    letters or digits (random bytes that happen to be printable are mostly symbols)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 4 or not all(c.isprintable() or c in "\n\t" for c in text):
        return None
    if sum(c.isalnum() for c in text) * 2 < len(text):
        return None
    if len({_script(c) for c in text if c.isalpha()}) > 1:
        return None
    return text


# Scripts written together in one word count as one (Japanese mixes kana and kanji).
_SAME_SCRIPT = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HALFWIDTH": "CJK", "FULLWIDTH": "LATIN"}


def _script(letter: str) -> str:
    """The script of a letter, as the first word of its Unicode name ("LATIN", "CYRILLIC",
    "CJK", "GREEK"...)."""
    first = unicodedata.name(letter, "UNKNOWN").split(" ", 1)[0]
    return _SAME_SCRIPT.get(first, first)


def _plain(text: str) -> bool:
    return text.isascii() and text.isalnum()


def _word_shaped(token: str) -> bool:
    """Letters cased as a word is: all lower, all upper, or a capital then lower case."""
    return token.isalpha() and (token.islower() or token.isupper() or token.istitle())


def _b64(token: str) -> str | None:
    body = token.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = (base64.urlsafe_b64decode if "-" in body or "_" in body else base64.b64decode)(
            padded.encode("ascii")
        )
    except (binascii.Error, ValueError):
        return None
    return _as_text(raw)


def _hex(token: str) -> str | None:
    body = token[2:] if token[:2].lower() == "0x" else token
    try:
        return _as_text(bytes.fromhex(body))
    except ValueError:
        return None


def _decodings(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """``(start, end, decoded, strict)``: strict decodings mask a bare word too."""
    for m in _HEX.finditer(text):
        if m.group().isdigit():
            continue  # a number: the digit-run rule judges it
        decoded = _hex(m.group())
        if decoded is not None:
            yield m.start(), m.end(), decoded, True
    for m in _B64.finditer(text):
        if _HEX_DIGITS.fullmatch(m.group()):
            # a number, or hex digits read as hex above: base64 of random bytes uses the
            # other 48 characters too (all 8+ in 16 of 64 by chance: under 1 in 65,000)
            continue
        decoded = _b64(m.group())
        if decoded is not None and _word_shaped(m.group()) and not _plain(decoded):
            continue  # a word ("emphasis") decodes to noise by chance, not to text
        if decoded is not None:
            yield m.start(), m.end(), decoded, True
    if "%" in text:
        for m in _PCT.finditer(text):
            decoded = unquote(m.group(), errors="strict") if _utf8(m.group()) else None
            if decoded and decoded != m.group():
                yield m.start(), m.end(), decoded, False


def _utf8(token: str) -> bool:
    try:
        unquote(token, errors="strict")
    except UnicodeDecodeError:
        return False
    return True


def find_encoded(text: str, scan: Scanner, depth: int = 0) -> Iterator[tuple[str, int, int]]:
    """Encoded tokens of ``text`` whose decoded form holds a secret, as ``scan`` (a
    function of the decoded text: True when it holds one) or the one-word rule says."""
    if depth >= MAX_DEPTH:
        return
    for start, end, decoded, strict in _decodings(text):
        one_word = strict and not any(c.isspace() for c in decoded.strip())
        if one_word or scan(decoded) or any(find_encoded(decoded, scan, depth + 1)):
            yield ENCODED, start, end
