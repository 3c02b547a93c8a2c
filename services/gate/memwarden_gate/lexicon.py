"""Is a word a word of a language? Answered by wordfreq's maintained frequency lists. Pure.

Deny by default (SPEC §5.6 v3) needs "a word of the language" from a maintained list, not a
list of our own: wordfreq covers some forty languages from subtitles, Wikipedia, books and
web text, and segments Chinese with jieba. A word is known when its frequency is above zero
in the list of a language written in the word's script.

Scripts and their languages: a Latin word is looked up in the European languages people
write notes in; a Han run is cut by jieba and each piece looked up in Chinese (wordfreq
folds traditional to simplified itself). Japanese and Korean need MeCab, which is not
installed: their words are not known, so such values go to the owner (fail closed).
Digits are never looked up here: wordfreq folds every digit to 0 and estimates a
frequency for any number, which would recognise a PIN. Numbers are typed forms
(:mod:`memwarden_gate.recognised`).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache

import jieba
from wordfreq import zipf_frequency
from wordfreq.tokens import tokenize

# jieba announces its dictionary load on stderr at INFO: the gate's log is structured.
jieba.setLogLevel(logging.WARNING)

LATIN_LANGUAGES = ("en", "fr", "de", "es", "pt", "it", "nl")
SCRIPT_LANGUAGES = {
    "LATIN": LATIN_LANGUAGES,
    "CYRILLIC": ("ru", "uk"),
    "GREEK": ("el",),
    "ARABIC": ("ar", "fa"),
    "HEBREW": ("he",),
    "DEVANAGARI": ("hi",),
}
WORD_MEMO_SIZE = 1 << 16


def script_of(word: str) -> str | None:
    """The script of a word's first letter by its Unicode name ("LATIN", "CJK", ...)."""
    for ch in word:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            return name.split(" ", 1)[0] if name else None
    return None


@lru_cache(maxsize=WORD_MEMO_SIZE)
def known_word(word: str) -> bool:
    """True when ``word`` (letters only, any case) is in a frequency list of its script's
    languages. Han text is cut with jieba and every piece must be known."""
    script = script_of(word)
    if script == "CJK":
        pieces = tokenize(word, "zh")
        return bool(pieces) and all(zipf_frequency(p, "zh") > 0 for p in pieces)
    languages = SCRIPT_LANGUAGES.get(script or "", ())
    lowered = word.lower()
    return any(zipf_frequency(lowered, lang) > 0 for lang in languages)


@lru_cache(maxsize=WORD_MEMO_SIZE)
def known_english_token(token: str) -> bool:
    """A Latin token with a digit in it ("k8s", "mp3") that English text uses as a word.
    English only: other lists hold more stray tokens, and a code must stay unknown."""
    return zipf_frequency(token.lower(), "en") > 0


# The lists a lookup of English or Chinese text may consult: a Latin token unknown in
# English is looked up in every Latin language, so all seven are read on the first one.
WARM_LANGUAGES = (*LATIN_LANGUAGES, "zh")


def warm() -> None:
    """Read jieba's dictionary and the frequency lists of :data:`WARM_LANGUAGES` now.

    Each is read on first use otherwise, inside the batch that first needs it: about 4 s
    for jieba and 0.5-3.5 s per list on this machine under load, so a fresh gate worker's
    first batch took seconds. The lists of other scripts stay lazy (they hold 30-110 MB
    each and en/zh traffic rarely needs them). The answers of every lookup are unchanged."""
    jieba.initialize()
    for lang in WARM_LANGUAGES:
        zipf_frequency("warm", lang)


COMPOUND_PART_MIN = 3
COMPOUND_PART_ZIPF = 3.0  # each half a common English word (once per 1000 000 words)


# Two humps, each a capital (the first may be lower) and lower-case letters: "PagerDuty",
# "DataGrip", "iCloud"-like names have the shape; "xKq9LmPz" or "aBcDeF" do not.
_CAMEL = re.compile(r"^([A-Za-z][a-z]{2,})([A-Z][a-z]{2,})$")


@lru_cache(maxsize=WORD_MEMO_SIZE)
def known_compound(word: str) -> bool:
    """A closed English compound of two common words ("monorepo", "runbook"), as developers
    coin them faster than any list; product names write the same compound in CamelCase
    ("PagerDuty", "DataGrip"). Letters in one case only (or a capital first), or exactly two
    CamelCase humps: a random-case string is no compound."""
    camel = _CAMEL.match(word)
    if camel:
        return all(
            zipf_frequency(part.lower(), "en") >= COMPOUND_PART_ZIPF for part in camel.groups()
        )
    if not (word.isalpha() and word.isascii()) or not (
        word.islower() or word.isupper() or word.istitle()
    ):
        return False
    lowered = word.lower()
    return any(
        zipf_frequency(lowered[:i], "en") >= COMPOUND_PART_ZIPF
        and zipf_frequency(lowered[i:], "en") >= COMPOUND_PART_ZIPF
        for i in range(COMPOUND_PART_MIN, len(lowered) - COMPOUND_PART_MIN + 1)
    )
