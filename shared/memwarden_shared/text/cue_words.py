"""A cheap first test that a text may hold one of some words, in any letter case. Pure.

The secret detectors scan with large case-insensitive patterns, and most texts hold none
of their cue words: ruling those texts out first saves most of the scanning. Python's
``re`` cannot skip ahead on a case-insensitive pattern, but it can on a case-sensitive
one, so the words are searched in the lower-cased text instead.

That never misses what ``re.IGNORECASE`` would find: it matches an ASCII letter only to
itself in either case or to one of four other characters (U+0130, U+0131, U+017F,
U+212A; tests/test_cue_words.py checks every code point), and a text holding one of
those four is searched the case-insensitive way.
"""

from __future__ import annotations

import re

_CASE_TWINS = re.compile("[\u0130\u0131\u017f\u212a]")


class CueWords:
    """``words``: an alternation of plain words in lower-case ASCII or caseless characters
    (Chinese, which ``re.IGNORECASE`` matches only to themselves), no other regex syntax."""

    def __init__(self, words: str) -> None:
        syntax = any(c in words for c in "\\.^$*+?{}[]()")
        cased = any(c.isupper() if c.isascii() else c.lower() != c.upper() for c in words)
        if syntax or cased:
            raise ValueError("cue words must be plain lower-case ASCII or caseless words")
        self._lower = re.compile(words)
        self._any_case = re.compile(words, re.IGNORECASE)

    def may_occur(self, text: str) -> bool:
        """False only when ``re.search(words, text, re.IGNORECASE)`` finds nothing."""
        if text.isascii() or not _CASE_TWINS.search(text):
            return self._lower.search(text.lower()) is not None
        return self._any_case.search(text) is not None
