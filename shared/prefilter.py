"""A literal prefilter in front of a compiled regular expression. Pure.

The cue lists are long alternations whose branches start with ``\\b`` or a lookbehind, so
``re`` cannot skip ahead to a likely start and tries every branch at every position of
the sentence; most sentences match none of them. :func:`prefiltered` reads the pattern's
own parse tree for literal strings at least one of which every match must contain, and
searches for those first: an alternation of plain literals is what ``re`` runs fastest
(it skips to their first characters and rejects a branch on one comparison). Only when
one occurs does the full pattern run, so every answer is the full pattern's answer.

The derivation is conservative: anything it does not understand (a back-reference, a
class of characters, a group whose case rules differ from the pattern's) contributes no
literal, and a pattern left with none is returned as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from re import _parser as sre_parse  # the parse tree ``re`` itself compiles from
from typing import Any

_OPS = sre_parse  # op codes (LITERAL, BRANCH, ...) are exported by the parser module


# A class of a few listed characters ("[sz]") multiplies the spellings of a literal; past
# these bounds the literal is cut there instead.
_MAX_CLASS = 8
_MAX_SPELLINGS = 64


def _weight(s: str) -> int:
    """How rare a literal is: one Latin letter occurs in nearly every sentence, one Chinese
    character ("吗", "先") in few."""
    return len(s) if s.isascii() else 2 * len(s)


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The more selective of two literal sets: longer shortest string, then fewer strings."""
    if a is None:
        return b
    if b is None:
        return a
    key_a = (min(map(_weight, a)), -len(a))
    key_b = (min(map(_weight, b)), -len(b))
    return b if key_b > key_a else a


def _class_chars(av: Any) -> list[str] | None:
    """The characters of a class made only of listed characters ("[sz]", "[，,]")."""
    if len(av) > _MAX_CLASS or any(op is not _OPS.LITERAL for op, _ in av):
        return None
    return [chr(code) for _, code in av]


def _required(items: Any, ignorecase: bool) -> frozenset[str] | None:
    """Literals one of which every match of the sequence ``items`` contains, or None."""
    best: frozenset[str] | None = None
    run: set[str] = {""}  # the literal text just consumed, in each of its spellings

    def close() -> None:
        nonlocal best, run
        if run != {""}:
            best = _better(best, frozenset(run))
        run = {""}

    for op, av in items:
        chars = [chr(av)] if op is _OPS.LITERAL else None
        if op is _OPS.IN:
            chars = _class_chars(av)
        if chars is not None and len(run) * len(chars) <= _MAX_SPELLINGS:
            run = {head + c for head in run for c in chars}
            continue
        if op is _OPS.AT:
            continue  # zero width: the characters around it are still consumed together
        close()
        if chars is not None:  # too many spellings to go on: start again from this class
            run = set(chars)
        elif op is _OPS.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            if (add_flags | del_flags) & re.IGNORECASE and not ignorecase:
                continue  # its literals match other cases than the prefilter would
            best = _better(best, _required(sub.data, ignorecase))
        elif op is _OPS.ATOMIC_GROUP:
            best = _better(best, _required(av.data, ignorecase))
        elif op in (_OPS.MAX_REPEAT, _OPS.MIN_REPEAT, _OPS.POSSESSIVE_REPEAT):
            low, _high, sub = av
            if low >= 1:
                best = _better(best, _required(sub.data, ignorecase))
        elif op is _OPS.BRANCH:
            union: set[str] = set()
            for alternative in av[1]:
                found = _required(alternative.data, ignorecase)
                if found is None:
                    break
                union |= found
            else:
                best = _better(best, frozenset(union))
        # anything else (lookarounds, back-references, wider classes) contributes nothing
    close()
    return best


def required_literals(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Strings one of which every match of ``pattern`` contains, or None when unknown."""
    if not isinstance(pattern.pattern, str):
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags & ~re.UNICODE)
    except re.error:
        return None
    found = _required(parsed.data, bool(pattern.flags & re.IGNORECASE))
    if not found or min(map(_weight, found)) < 2:  # a lone Latin letter filters nothing
        return None
    return found


def _trie(literals: list[str]) -> str:
    """One regex that finds any of ``literals``, branching once per character (a flat
    alternation would try every literal at every position)."""
    if "" in literals:
        return ""  # a literal ends here: nothing more is needed
    heads: dict[str, list[str]] = {}
    for literal in literals:
        heads.setdefault(literal[0], []).append(literal[1:])
    branches = [re.escape(head) + _trie(tails) for head, tails in sorted(heads.items())]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _may_meet_ascii(char: str) -> bool:
    """Whether ``char`` matches some ASCII character when case is ignored (the Kelvin sign
    matches "k", the long s "s")."""
    return char.isascii() or any(
        re.fullmatch(re.escape(char), chr(code), re.IGNORECASE) for code in range(128)
    )


class Prefiltered:
    """``pattern`` behind its literal prefilter; the methods answer as ``pattern``'s do.

    A case-insensitive pattern is prefiltered on ASCII text only, lower-cased (``re`` has no
    fast path for case-insensitive literals; for ASCII text and literals, ignoring case is
    comparing lower case); any other text goes straight to the pattern."""

    __slots__ = ("pattern", "flags", "_full", "_pre", "_fold_case")

    def __init__(self, full: re.Pattern[str], literals: frozenset[str]) -> None:
        self._full = full
        self.pattern = full.pattern
        self.flags = full.flags
        self._fold_case = bool(full.flags & re.IGNORECASE)
        if self._fold_case:
            # a literal that can meet no ASCII character cannot occur in ASCII text
            literals = frozenset(s.lower() for s in literals if s.isascii())
        self._pre = re.compile(_trie(sorted(literals)) if literals else "(?!)")

    def _may_match(self, text: str) -> bool:
        if self._fold_case:
            return not text.isascii() or self._pre.search(text.lower()) is not None
        return self._pre.search(text) is not None

    def search(self, text: str) -> re.Match[str] | None:
        return self._full.search(text) if self._may_match(text) else None

    def match(self, text: str) -> re.Match[str] | None:
        return self._full.match(text) if self._may_match(text) else None

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self._full.fullmatch(text) if self._may_match(text) else None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self._full.finditer(text) if self._may_match(text) else iter(())

    def findall(self, text: str) -> list[Any]:
        return self._full.findall(text) if self._may_match(text) else []

    def sub(self, repl: Any, text: str) -> str:
        return self._full.sub(repl, text) if self._may_match(text) else text


def prefiltered(pattern: re.Pattern[str]) -> re.Pattern[str] | Prefiltered:
    """``pattern`` with a literal prefilter in front when one can be derived, else itself."""
    literals = required_literals(pattern)
    if literals is None:
        return pattern
    if pattern.flags & re.IGNORECASE and not all(
        literal.isascii() or not all(map(_may_meet_ascii, literal)) for literal in literals
    ):
        return pattern  # a literal that may read as ASCII when case is ignored: no prefilter
    return Prefiltered(pattern, literals)
